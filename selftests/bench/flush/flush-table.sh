#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# flush-table.sh RAW OUTDIR: the markdown table of make bench-flush. RAW has
# lines "KERNEL ROUND CASE FLUSHES_PER_SEC", several samples per round,
# KERNEL being bench-flush-plain (6.12) or bench-flush (the series). OUTDIR
# holds the boots' logs (flush-KERNEL-ROUND.{log,accel}).
set -euo pipefail
raw=$1 out=$2

# stats KERNEL CASE: "median lo hi mean ci95 n_rounds n_samples": the
# median of every sample, the range and the mean of the per-round medians
# with a 95% confidence interval of that mean (Student's t)
stats() {
	awk -v k="$1" -v c="$2" '
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	$1 == k && $3 == c {
		all[++na] = $4 + 0
		if (!($2 in seen)) { seen[$2] = 1; order[++nr] = $2 }
		cnt[$2]++; v[$2, cnt[$2]] = $4 + 0
	}
	END {
		if (!na) { print "- - - - - 0 0"; exit }
		split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23", t, " ")
		lo = ""; hi = ""; sum = 0
		for (i = 1; i <= nr; i++) {
			r = order[i]
			for (j = 1; j <= cnt[r]; j++) tmp[j] = v[r, j]
			m[i] = med(tmp, cnt[r])
			sum += m[i]
			if (lo == "" || m[i] < lo) lo = m[i]
			if (hi == "" || m[i] > hi) hi = m[i]
		}
		mean = sum / nr; ss = 0
		for (i = 1; i <= nr; i++) ss += (m[i] - mean) ^ 2
		ci = nr > 1 ? t[nr - 1 > 10 ? 10 : nr - 1] * sqrt(ss / (nr - 1)) / sqrt(nr) : 0
		printf "%.0f %.0f %.0f %.0f %.0f %d %d\n", med(all, na), lo, hi, mean, ci, nr, na
	}' "$raw"
}

fmt() { # a rate: 1234567 -> 1.23M, 45678 -> 45.7k
	awk -v x="$1" 'BEGIN { if (x == "-") print "-";
		else if (x >= 1e6) printf "%.2fM", x / 1e6;
		else if (x >= 1e3) printf "%.1fk", x / 1e3; else printf "%.0f", x }'
}

cases=$(awk '{ print $3 }' "$raw" | awk '!s[$0]++')
rounds=$(awk '$1 == "bench-flush" { print $2 }' "$raw" | sort -u | wc -l)
info=$(grep -h '^I kernel' "$out"/flush-bench-flush-1.log 2>/dev/null | head -n 1 | cut -c3- || true)

echo "# Flush rates with many possible CPUs: plain 6.12 vs the series ($(date -u +%Y-%m-%d))"
echo
echo "Seed 003's measurements (\`make bench-flush\`): the bench-flush-plain and"
echo "bench-flush kernels (wqrt.config with NR_CPUS=256, no lock debugging, and"
echo "kernel/variants/possible-cpus so that TCG guests count QEMU's hot-pluggable CPUs)"
echo "booted in turn, $rounds round(s) each, interleaved, under QEMU with"
echo "\`-smp ${WQRT_VM_SMP:-2,maxcpus=192}\`: 192 possible CPUs, 2 online. Flushes per second;"
echo "each cell is the median of every sample, then [min-max] of the"
echo "per-round medians and their mean with a 95% confidence interval."
echo
echo '```'
echo "$info"
echo '```'
echo
echo "- idle-*: one thread flushing an idle workqueue."
echo "- dense-unbound: an item queued on every possible CPU's pwq (192), then a"
echo "  flush; dense-percpu: the same on the online CPUs' pwqs (a per-cpu pool"
echo "  of a CPU never brought up has no workers)."
echo "- qfN-*: N kthreads (spread over the online CPUs) each queueing one item"
echo "  and flushing; the flushes of all threads added up."
echo
echo "| case | plain 6.12 | the series | series / plain |"
echo "|---|---|---|---|"
for c in $cases; do
	read -r pm plo phi pmean pci pn pna < <(stats bench-flush-plain "$c")
	read -r sm slo shi smean sci sn sna < <(stats bench-flush "$c")
	ratio=$(awk -v a="$pm" -v b="$sm" 'BEGIN { if (a + 0 > 0 && b != "-") printf "%.2f", b / a; else print "-" }')
	echo "| $c | $(fmt "$pm") [$(fmt "$plo")-$(fmt "$phi")] $(fmt "$pmean")±$(fmt "$pci") | $(fmt "$sm") [$(fmt "$slo")-$(fmt "$shi")] $(fmt "$smean")±$(fmt "$sci") | $ratio |"
done
echo
echo "Seed figures for comparison (192-CPU, 2-node machine, all CPUs online,"
echo "against a base with upstream's same-pool lock coalescing): idle per-cpu"
echo "40k -> 4.2M/s, idle unbound 450k -> 4.3M/s, 16 threads queue+flush"
echo "30k -> 110k (per-cpu) and 60k -> 180k (unbound), dense unbound 15-20 %"
echo "slower."
echo
echo "QEMU accelerator of each boot (selftests/vm/accel.sh):"
for f in "$out"/flush-bench-flush*-[0-9]*.accel; do
	[ -e "$f" ] || continue
	n=$(basename "$f" .accel)
	echo "- ${n#flush-}: $(head -n 1 "$f")"
done
