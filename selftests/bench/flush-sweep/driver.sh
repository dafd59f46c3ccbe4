# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh flush-sweep: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# make bench-flush-sweep (issue 32.3, the flush half): does a flush
# depend on the number of possible CPUs? 6.12's flush_workqueue()
# visits every pwq, one per possible CPU; patch 4's visits the listed
# ones. Counted, host-independent, as make bench-cost counts
# (count_boot: one TCG thread, -icount, the wqcount plugin), the flush
# cases of wqrt_bench's cost command (CASES) RUNS (100) times each,
# on each kernel of KERNELS (prod-plain prod, booted in that order;
# BASE, the first by default, is what the others are compared with)
# booted with -smp 2,maxcpus=N for each N of POSSIBLE: 2 online CPUs,
# N possible (the prod kernels carry kernel/variants/possible-cpus).
# Every boot must report N possible CPUs. POSSIBLE's largest is what
# QEMU's -machine pc accepts (255 for QEMU 7.2; its q35 takes 288
# only with KVM's in-kernel irqchip and X2APIC API, not under TCG)
# and the kernel's NR_CPUS (512 in prod.config). Each kernel is built
# (linked to the shared tree) before its boots, outside
# /tmp/wqrt-bench.lock, which its boots hold. TAG names the result
# files (flush-sweep-DATE-TAG.*).
kernels=${KERNELS:-prod-plain prod}
base_k=${BASE:-${kernels%% *}}
possible=${POSSIBLE:-8 64 192 255}
runs=${RUNS:-100}
cases=${CASES:-flush-idle-percpu flush-idle-unbound qf-percpu qf-unbound dense-percpu}
[[ "$runs" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench-flush-sweep: RUNS=$runs: 1 to 9999, please" >&2; exit 2; }
case " $kernels " in *" $base_k "*) ;; *)
	echo "bench-flush-sweep: BASE=$base_k is not one of KERNELS ($kernels)" >&2; exit 2 ;;
esac
# QEMU says its machine's maximum when asked for more
qemu_max=$({ timeout 20 qemu-system-x86_64 -machine pc -accel tcg -smp 1,maxcpus=100000 \
	-display none -monitor none -serial none -nodefaults -S 2>&1 </dev/null || true; } |
	sed -n 's/.*max CPUs supported by machine .* is \([0-9]*\).*/\1/p')
[ -n "$qemu_max" ] || { echo "bench-flush-sweep: cannot learn -machine pc's CPU maximum from QEMU" >&2; exit 2; }
for n in $possible; do
	if ! [[ "$n" =~ ^[1-9][0-9]{0,3}$ ]] || [ "$n" -lt 2 ] || [ "$n" -gt "$qemu_max" ]; then
		echo "bench-flush-sweep: POSSIBLE: '$n' is not 2 to $qemu_max (QEMU's -machine pc under TCG)" >&2
		exit 2
	fi
done
date=$(date -u +%Y-%m-%d)
res=$top/selftests/bench/results
base=flush-sweep-$date${TAG:+-$TAG}
start=$(date +%s)
booted=
: >"$out/flush-sweep.boots"
for k in $kernels; do
	build_once "$k"
	nr=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$(cat "$out/stage-$k/.kdir")/obj/.config")
	nr_cpus="${nr_cpus:+$nr_cpus, }$k $nr"
	bench_lock bench-flush-sweep
	for n in $possible; do
		[ "$n" -le "$nr" ] || { echo "bench-flush-sweep: $k has NR_CPUS $nr, not $n" >&2; exit 2; }
		count_boot "$k" "2,maxcpus=$n" "cost-$k-n$n" "$runs" "$cases"
		# the boot must have seen what it was given
		seen=$(sed -n 's/^I possible \([^ ]*\) online \([^ ]*\)$/\1 \2/p' "$out/cost-$k-n$n.log")
		[ "$seen" = "0-$((n - 1)) 0-1" ] || {
			echo "bench-flush-sweep: $k with -smp 2,maxcpus=$n saw possible/online '$seen', not 0-$((n - 1)) 0-1" >&2
			exit 1
		}
		echo "$k $n ${seen% *} ${seen#* }" >>"$out/flush-sweep.boots"
		booted="$booted $k-n$n"
	done
	bench_unlock
done
others=
for k in $kernels; do [ "$k" = "$base_k" ] || others="$others $k"; done
{
	echo "# Does a flush depend on the number of possible CPUs? make bench-flush-sweep ($date${TAG:+, $TAG})"
	echo
	echo "Command: \`$(for v in KERNELS BASE POSSIBLE RUNS CASES TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)make bench-flush-sweep\`."
	echo "$(( ($(date +%s) - start) / 60 )) min in all, builds and waits for the bench lock included."
	echo
	echo "Issue 32.3: patch 4 says the series' flush no longer depends on the"
	echo "number of possible CPUs, where 6.12's flush_workqueue() visits a pwq"
	echo "per possible CPU. Each kernel booted once per number N of possible"
	echo "CPUs with -smp 2,maxcpus=N (2 online; kernel/variants/possible-cpus"
	echo "counts QEMU's hot-pluggable CPUs as possible), and the cases"
	echo "$cases of wqrt_bench's cost command (selftests/bench/wqrt_bench.c) run"
	echo "$runs times each after a warm-up of 5, counted as make bench-cost counts"
	echo "(one TCG thread, the guest's clock on instructions, the wqcount plugin,"
	echo "selftests/bench/cost/wqcount.c). The largest N is $qemu_max at most: QEMU's"
	echo "-machine pc takes no more ($(qemu-system-x86_64 --version | head -n 1)),"
	echo "and its q35 takes 288 only with KVM's in-kernel irqchip and X2APIC API,"
	echo "not under TCG. The kernels' NR_CPUS: $nr_cpus."
	echo
	echo "Possible and online CPUs each boot reported (/sys/devices/system/cpu):"
	echo
	echo "| kernel | maxcpus | possible | online |"
	echo "|---|---|---|---|"
	awk '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$out/flush-sweep.boots"
	echo
	python3 "$top/selftests/bench/cost/cost-stats.py" sweep "$out" "$base_k" "$others" "$possible"
	echo
	echo "## Environment, per boot"
	for b in $booted; do
		echo
		echo "### $b"
		echo
		cat "$out/cost-$b.env"
	done
	echo
	echo "## Raw data and kernels"
	echo
	echo "Per boot: the plugin's output (W: each window's counts, H: where, by"
	echo "guest PC and call site) in selftests/bench/results/$base-BOOT.plugin.xz,"
	echo "the guest's lines (I, B, K) in $base-BOOT.log.xz; each kernel's .config in"
	echo "$base-KERNEL.config.xz, the symbols the plugin's addresses resolve to"
	echo "in $base-BOOT.map.xz. cost-stats.py sweep makes these tables from them."
} >"$out/flush-sweep.md"
for b in $booted; do
	xz -9 <"$out/cost-$b.plugin" >"$res/$base-$b.plugin.xz"
	python3 "$top/selftests/bench/cost/cost-stats.py" mapsubset "$out" "$b" |
		xz -9 >"$res/$base-$b.map.xz"
	grep -E '^[IBKE] ' "$out/cost-$b.log" | xz -9 >"$res/$base-$b.log.xz"
done
for k in $kernels_built; do
	save_config "$k" "$res/$base-$k.config.xz"
done
cp "$out/flush-sweep.md" "$res/$base.md"
cat "$out/flush-sweep.md"
echo "bench: table $out/flush-sweep.md (copies under selftests/bench/results/$base.*)"
