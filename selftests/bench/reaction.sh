#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# reaction.sh: `make bench-reaction`, wqrtd's reaction time (issue 18.7).
# Boots each kernel of KERNELS in turn and runs vm-reaction.sh in it: new
# kworkers (the rescuers of wqrt_spawn's workqueues) at 10, 100 and 1000
# a second, and a wqrtd --timing that writes, for each, the kernel's fork
# timestamp (proc connector) and the time it had verified the policy.
# Reports fork -> verified p50/p99/max, the kworkers never verified,
# wqrtd's CPU time and peak RSS, per kernel, mode and rate.
#
#   KERNELS      kernel flavours, a plain one first ("prod-plain prod",
#                the production-like pair; "plain test" are the debug ones)
#   RATES        spawns per second ("10 100 1000")
#   DURATION     seconds of spawning per rate (10)
#   LIFETIME_MS  each workqueue (and its rescuer) lives this long (1000)
#   ROUNDS       rounds per kernel (1)
#   NICE         niceness of QEMU (0); a busy host is refused before each
#                boot unless WQRT_BENCH_FORCE=1 (quiet.sh), and the table
#                says so
#   TABLE_ONLY=1 no VM: the table again from build/bench/reaction.raw
#
# Writes build/bench/reaction.md (the table) and reaction.raw.xz (every
# line the VMs printed), copied to selftests/bench/results/reaction-DATE.*.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
out=$build/bench
mkdir -p "$out"
kernels=${KERNELS:-prod-plain prod}
# a quiet host before every boot, or no run (quiet.sh; WQRT_BENCH_FORCE=1)
. "$top/selftests/bench/quiet.sh"
quiet_rec=$out/quiet-reaction.record
rates=${RATES:-10 100 1000}
duration=${DURATION:-10}
lifetime_ms=${LIFETIME_MS:-1000}
rounds=${ROUNDS:-1}
nice=${NICE:-0}
date=$(date -u +%Y-%m-%d)
raw=$out/reaction.raw
# the guest's clock as in run.sh's boots: no watchdog moving it to the HPET
export WQRT_VM_APPEND="${WQRT_VM_APPEND:+$WQRT_VM_APPEND }tsc=reliable"
if [ "${TABLE_ONLY:-0}" = 1 ]; then
	kernels=
else
	echo "K - wall-clock started $(date -u '+%F %H:%M') UTC" >"$raw"
	: >"$quiet_rec"
fi

for k in $kernels; do
	"$top/kernel/scripts/build.sh" "$k" >&2
	kdir=$(readlink -f "$build/kernel-$k")
	make --no-print-directory -C "$top/selftests/bench" \
		KDIR="$kdir/obj" OUT="$out/module-$k" >/dev/null
	stage=$out/stage-reaction-$k
	rm -rf "$stage"
	mkdir -p "$stage"
	cp "$out/module-$k/wqrt_spawn.ko" "$stage/"
	# the settings travel in the script's first lines
	sed "s/^RATES=.*/RATES=\"$rates\"/; s/^DURATION=.*/DURATION=$duration/;
	     s/^LIFETIME_MS=.*/LIFETIME_MS=$lifetime_ms/; s/^ROUNDS=.*/ROUNDS=$rounds/" \
		"$top/selftests/bench/vm-reaction.sh" >"$stage/run.sh"
	# per rate and mode: DURATION s of spawning (the module stops on
	# time), the destroys behind it, wqrtd's start and a second to settle
	t=0
	for _ in $rates; do
		t=$((t + 2 * (duration * 2 + 60)))
	done
	t=$((300 + rounds * t))
	echo "bench-reaction: $k (timeout ${t}s)"
	name=reaction-$k
	log=$out/$name.log
	# a second boot when the first never reached the script: under TCG
	# on a starved host the kernel's early check of the IO-APIC timer
	# can panic ("IO-APIC + timer doesn't work!")
	for try in 1 2; do
		host_quiet "bench-reaction: $k" "$quiet_rec"
		rm -f "$build/vm/bench-$name/tap.log"
		round_watch_start "$build/vm/bench-$name/tap.log" "$out/$name.rounds"
		nice -n "$nice" "$top/selftests/vm/vm.sh" script "$kdir" "$stage/run.sh" \
			--name "bench-$name" --timeout "$t" >"$out/$name.vmout" 2>&1 || true
		round_watch_stop "$out/$name.rounds"
		# the TAP UART's lines end in CRLF
		sed 's/\r$//' "$build/vm/bench-$name/tap.log" >"$log"
		grep -q '^I kernel' "$log" && break
		echo "bench-reaction: $k: boot $try never reached the script" >&2
		grep -m1 'panic\|FAIL' "$out/$name.vmout" >&2 || true
	done
	grep -q '^I kernel' "$log" || { tail -n 30 "$out/$name.vmout"; exit 1; }
	grep -q '^I end' "$log" || echo "bench-reaction: $k: the run did not finish (timeout?); what it printed is kept" >&2
	{
		echo "K $k accel $(head -n 1 "$build/vm/bench-$name/accel" 2>/dev/null || echo unknown) $(sed -n 2p "$build/vm/bench-$name/accel" 2>/dev/null)"
		echo "K $k config $(sha256sum "$kdir/obj/.config" | cut -c1-16) $(grep -E '^CONFIG_HZ=' "$kdir/obj/.config") $(grep -cE '^CONFIG_(PROVE_LOCKING|LOCK_STAT|DEBUG_SPINLOCK)=y' "$kdir/obj/.config") lock-debug option(s)"
		echo "K $k host-load-after $(cut -d' ' -f1-3 /proc/loadavg) qemu-nice $nice"
		echo "K $k host-check $(tail -n 1 "$quiet_rec")"
		echo "K $k wall-clock boot-ended $(date -u '+%F %H:%M') UTC"
		awk -v k="$k" '/^[IXTLVE] / { print k, $0 }' "$log"
	} >>"$raw"
done

table=$out/reaction.md
{
	echo "# wqrtd reaction time ($date)"
	echo
	quiet_record "$quiet_rec"
	for k in $kernels; do
		rounds_record "reaction-$k" "$out/reaction-$k.rounds"
	done
	echo
	echo "New kworkers: the rescuers (\`kworker/R-ws<hex>\`) of WQ_MEM_RECLAIM"
	echo "workqueues that selftests/bench/wqrt_spawn.c makes at RATE a second for"
	echo "$duration s, each destroyed $lifetime_ms ms after it was made. A fresh"
	echo "\`wqrtd --timing\` per kernel, mode and rate writes, for each new kworker"
	echo "a rule covers, the fork's kernel timestamp (proc connector) and the"
	echo "CLOCK_MONOTONIC time after it read the policy back. Policy: fifo 30."
	echo
	echo "- \`kworker\`: \`[kworker:kworker/R-ws*]\`, wqrtd sets each rescuer by name"
	echo "  with sched_setattr() (plain 6.12's only way, tuned's way)."
	echo "- \`wq\`: \`[wq:ws???]\` on workqueues in sysfs (WQ_SYSFS), kernels with"
	echo "  the series: wqrtd writes the workqueue's policy on its uevent, the kernel"
	echo "  gives it to the rescuer, wqrtd then only reads it back (result \`ok\`)."
	echo
	echo "A new kernel thread is judged once it has its name and has run through"
	echo "kthread() (which resets its policy): one that has not when wqrtd reads"
	echo "its FORK is looked at again 10 ms later (then 20, 40 ... 640 ms), one"
	echo "that has (wqrtd woke late) at once."
	echo
	echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs,"
	echo "$(qemu-system-x86_64 --version | head -n 1)."
	echo
	echo '```'
	grep -E '^(K [^ ]+|[^ ]+ I) ' "$raw" | grep -v ' I end$' || true
	echo '```'
	echo
	echo "| kernel | mode | rate /s | round | achieved /s | late | spawned | verified (set/ok) | never verified | gone | fork -> verified p50 ms | p99 ms | max ms | wqrtd CPU ms (% of wall) | wqrtd VmHWM kB | pending full / overruns |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	awk '
	$2 == "X" {
		key = $1 " " $3 " " $4 " " $5
		keys[++n] = key
		for (i = 6; i < NF; i += 2) x[key, $i] = $(i + 1)
	}
	# kernel T mode rate round pid fork_ns done_ns result comm
	$2 == "T" && $10 ~ /^kworker\/R-ws/ {
		key = $1 " " $3 " " $4 " " $5
		if ($9 == "set" || $9 == "ok") {
			ms[key, ++nv[key]] = ($8 - $7) / 1e6
			res[key, $9]++
		} else if ($9 == "gone")
			gone[key]++
	}
	function pct(key, p,   i) { i = int(nv[key] * p) + 1; return i > nv[key] ? nv[key] : i }
	END {
		for (j = 1; j <= n; j++) {
			key = keys[j]
			m = nv[key] + 0
			# sort the samples of this key (insertion sort: a few thousand)
			for (a = 2; a <= m; a++) {
				v = ms[key, a]
				for (b = a - 1; b >= 1 && ms[key, b] > v; b--) ms[key, b + 1] = ms[key, b]
				ms[key, b + 1] = v
			}
			split(key, f, " ")
			sp = x[key, "spawned"]
			el = x[key, "elapsed_ms"]
			wall = x[key, "wall_s"]
			cpu = x[key, "cpu_ticks"] * 10
			printf "| %s | %s | %s | %s | %.0f | %s | %d | %d (%d/%d) | %d | %d | %s | %s | %s | %d (%.1f %%) | %s | %s |\n",
				f[1], f[2], f[3], f[4], (el > 0 ? sp * 1000 / el : 0), x[key, "late"], sp,
				m, res[key, "set"], res[key, "ok"], sp - m, gone[key],
				m ? sprintf("%.1f", ms[key, pct(key, 0.5)]) : "-",
				m ? sprintf("%.1f", ms[key, pct(key, 0.99)]) : "-",
				m ? sprintf("%.1f", ms[key, m]) : "-",
				cpu, (wall > 0 ? cpu / 10 / wall : 0), x[key, "hwm_kb"],
				(key SUBSEP "pending_full") in x ? x[key, "pending_full"] "/" x[key, "overruns"] : "-"
		}
	}' "$raw"
	if grep -q '^[^ ]* V ' "$raw"; then
		echo
		grep '^[^ ]* V ' "$raw" | sed 's/^\([^ ]*\) V /- \1: /'
	fi
	if grep -q '^[^ ]* L ' "$raw"; then
		echo
		echo "wqrtd's warnings (first lines per run):"
		echo
		echo '```'
		grep '^[^ ]* L ' "$raw" | cut -c1-200 | head -n 40
		echo '```'
	fi
	echo
	echo "achieved: spawned / (first to last spawn); late: spawns more than a"
	echo "period behind schedule (the module could not keep the rate). Never"
	echo "verified: spawned minus verified (died before wqrtd judged it, or"
	echo "judged only after a failure). CPU: wqrtd's utime + stime from"
	echo "/proc/PID/stat over the run (USER_HZ ticks, 10 ms each), wall: the same"
	echo "span. VmHWM: wqrtd's peak RSS over its life (one wqrtd per row)."
	echo "Pending full / overruns: wqrtd's notices that more than 64 new kthreads"
	echo "waited to settle, and its warnings of lost events: both mean kworkers"
	echo "waited for the rescan, at most one a second (- : not recorded)."
} >"$table"
xz -9 -k -f "$raw"
res=$top/selftests/bench/results
cp "$table" "$res/reaction-$date.md"
cp "$raw.xz" "$res/reaction-$date.raw.xz"
cat "$table"
echo "bench: table $table, raw $raw.xz (copies under selftests/bench/results/reaction-$date.*)"
