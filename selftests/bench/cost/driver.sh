# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh cost: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# make bench-cost (issue 29): what the series costs the queue_work()
# and flushes of everyone else, to run before a change to the
# workqueue patches. Counts first, which do not depend on the host:
# one boot per kernel of COUNT_KERNELS (prod-plain prod; FLAVOUR@N
# for a prefix of the series) under QEMU's TCG with one thread and
# the wqcount plugin (selftests/bench/cost/wqcount.c), which counts
# the instructions, atomics, fences and cache lines moved between
# vCPUs of each case of wqrt_bench's cost command, RUNS (100) runs
# each; cost-stats.py names where they happen. Times second:
# ROUNDS (3) rounds; in each, prod-plain and prod boot in a seeded
# random order for enqueue (the cpu and system affinity scopes,
# PRODUCERS x ITEMS, 8 x 50000, REPS samples each), then
# prod-flush-plain and prod-flush (prod and prod-plain with
# kernel/variants/possible-cpus, booted with -smp 2,maxcpus=64 of
# prod's NR_CPUS 512) for the flush cases (FLUSH_CASES, REPS x MS
# ms; the first and the last the 2026-12-01 flush run found slower
# on the series): one
# thread queueing and flushing an unbound workqueue with its worker
# where the scheduler puts it, on the thread's CPU (-same) and on
# the other (-other), and a flush behind an item on each online
# CPU's pwq. The timed boots run on the host's clock (multi-threaded
# TCG: the vCPUs overlap, atomics and moved cache lines cost what the
# host makes them cost) and only on a quiet host (quiet.sh), checked
# before every boot; ICOUNT=1 runs them on the guest's instruction
# clock instead, as the counting boots, which shows instruction paths
# and scheduling order, never cost (the counts and bench-price are
# for that). IDLE_POLL=1 boots the timed guests with idle=poll (a
# vCPU never halts: the control for the cost of waking a halted
# vCPU), each boot's /proc/cmdline checked and recorded.
# Per-round ratios with intervals that resample the rounds, the
# smallest cost the run could see, the host's load and steal time
# per boot. ENQ_KERNELS ("prod-plain prod") names the enqueue pair, or
# three kernels (each against the first, the third against the second), the
# first the baseline (FLAVOUR@N for a prefix, built in PREFIX_TREE as
# the counts' are: which patches a timed cost comes from); FLUSH=0 skips
# the flush boots. COUNTS=0 or TIMES=0 skips a
# part; TAG names the result files (cost-DATE-TAG.*); PREFIX_TREE
# builds the prefixes of COUNT_KERNELS in one tree (above). The boots
# hold /tmp/wqrt-bench.lock, as bench-enqueue's do.
count_kernels=${COUNT_KERNELS:-prod-plain prod}
# its guests enable no event: no held probe in what they count or time
hold_tracepoints=0
runs=${RUNS:-100} rounds=${ROUNDS:-3}
producers=${PRODUCERS:-8} items=${ITEMS:-50000}
reps=${REPS:-3} ms=${MS:-1000} icount=${ICOUNT:-0} idle_poll=${IDLE_POLL:-0}
flush_spin=${FLUSH_SPIN:-0} flush=${FLUSH:-1}
enq_kernels=${ENQ_KERNELS:-prod-plain prod}
read -r enq_a enq_b enq_c enq_more <<<"$enq_kernels" || true
[ -n "$enq_b" ] && [ -z "$enq_more" ] && [ "$enq_a" != "$enq_b" ] &&
	[ "$enq_c" != "$enq_a" ] && [ "$enq_c" != "$enq_b" ] || {
	echo "bench-cost: ENQ_KERNELS=$enq_kernels: two or three different kernels, the baseline first (prod-plain prod, prod-plain prod@3 prod), please" >&2
	exit 2
}
[[ "$flush" =~ ^[01]$ ]] || {
	echo "bench-cost: FLUSH=$flush: 0 (no flush boots) or 1, please" >&2
	exit 2
}
flush_cases=${FLUSH_CASES:-qf1-unbound qf1-unbound-same qf1-unbound-other dense-percpu}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
[[ "$icount" =~ ^[01]$ ]] || {
	echo "bench-cost: ICOUNT=$icount: 0 (the host's clock) or 1 (the guest's clock on instructions), please" >&2
	exit 2
}
[[ "$flush_spin" =~ ^[01]$ ]] || {
	echo "bench-cost: FLUSH_SPIN=$flush_spin: 0 or 1 (the flush cases on prod-flush-spin too), please" >&2
	exit 2
}
[[ "$idle_poll" =~ ^[01]$ ]] || {
	echo "bench-cost: IDLE_POLL=$idle_poll: 0 or 1 (the timed guests booted with idle=poll), please" >&2
	exit 2
}
# the host is checked only when there is a timing on its clock
[ "${TIMES:-1}" = 1 ] && [ "$icount" = 0 ] || quiet_exempt=1
for v in runs rounds producers items reps ms; do
	[[ "${!v}" =~ ^[1-9][0-9]{0,7}$ ]] || {
		echo "bench-cost: ${v^^}=${!v}: a positive integer, please" >&2
		exit 2
	}
done
date=$(date -u +%Y-%m-%d)
res=$top/selftests/bench/results
base=cost-$date${TAG:+-$TAG}
start=$(date +%s)
{
	echo "# What the series costs everyone else: make bench-cost ($date${TAG:+, $TAG})"
	echo
	echo "Command: \`$(for v in COUNTS TIMES ICOUNT IDLE_POLL FLUSH FLUSH_SPIN ENQ_KERNELS COUNT_KERNELS PREFIX_TREE RUNS ROUNDS PRODUCERS ITEMS REPS MS FLUSH_CASES TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-cost\`."
	echo
} >"$out/cost.md"
if [ "${COUNTS:-1}" = 1 ]; then
	bench_lock bench-cost
	for k in $count_kernels; do
		build_once "$k"
		# the flush flavours boot with their possible CPUs
		smp=2
		case "$k" in prod-flush*) smp=2,maxcpus=64 ;; esac
		count_boot "$k" "$smp" "cost-$k" "$runs"
	done
	bench_unlock
	{
		echo "## Counts (host-independent)"
		echo
		echo "Each case of wqrt_bench's cost command (selftests/bench/wqrt_bench.c) $runs times after"
		echo "an uncounted warm-up of 5 (the enqueue cases $(sed -n 's/^ENQ_RUNS=//p' "$top/selftests/bench/cost/vm-cost.sh") times, their items as the tables say),"
		echo "on one boot per kernel under QEMU's TCG with one"
		echo "thread (-accel tcg,thread=single: the vCPUs take turns, no host timing"
		echo "decides what runs in parallel) and the wqcount plugin"
		echo "(selftests/bench/cost/wqcount.c). The plugin counts guest instructions,"
		echo "x86 atomics (LOCK-prefixed and XCHG with memory: each a full barrier),"
		echo "fences, and cache lines (64 bytes, physical) that another vCPU wrote or"
		echo "held last and that this one wrote (moved to it) or read (copied to it):"
		echo "a coherence model with unbounded caches. The guest's clock runs on"
		echo "instructions (-icount shift=0,sleep=off: a nanosecond each, idle time"
		echo "skipped), so timer ticks land at the same instructions on any host;"
		echo "what still varies from boot to boot is the guest's own state (the"
		echo "scheduler's balancing): two boots of one kernel, one beside two CPU"
		echo "hogs, differed by up to 100 instructions and 3 atomics at a case's"
		echo "median on the vCPU that queued or flushed (cost-2026-12-02-repro.md"
		echo "against cost-2026-12-02-counts.md). By function (below) the series'"
		echo "own code stands out of that: it runs in every window."
		echo
		for k in $count_kernels; do
			echo "### $k"
			echo
			cat "$out/cost-$k.env"
			echo
		done
		# shellcheck disable=SC2086 # one argument a kernel
		python3 "$top/selftests/bench/cost/cost-stats.py" counts "$out" $count_kernels
		echo
	} >>"$out/cost.md"
	# the series the counts measured, for make bench-price
	series_id >"$res/$base.series"
	for k in $count_kernels; do
		xz -9 <"$out/cost-$k.plugin" >"$res/$base-counts-$k.plugin.xz"
		# the symbols the tables by function resolve (make bench-tables)
		python3 "$top/selftests/bench/cost/cost-stats.py" mapsubset "$out" "$k" |
			xz -9 >"$res/$base-counts-$k.map.xz"
		grep -E '^[IBKE] ' "$out/cost-$k.log" | xz -9 >"$res/$base-counts-$k.log.xz"
	done
fi
if [ "${TIMES:-1}" = 1 ]; then
	# FLUSH_SPIN=1: the flush cases on a third kernel, the series
	# with a flusher that spins before it sleeps (issue 44.4)
	flush_kernels=
	if [ "$flush" = 1 ]; then
		flush_kernels="prod-flush-plain prod-flush"
		[ "$flush_spin" = 0 ] || flush_kernels="$flush_kernels prod-flush-spin"
	fi
	time_kernels="$enq_a $enq_b $enq_c $flush_kernels"
	for k in $time_kernels; do
		build_once "$k"
		cp "$top/selftests/bench/cost/vm-cost-times.sh" "$out/stage-$k/vm-cost-times.sh"
		mode=enqueue
		case "$k" in prod-flush*) mode=flush ;; esac
		sed -i "s/^MODE=.*/MODE=$mode/; s/^PRODUCERS=.*/PRODUCERS=$producers/;
			s/^ITEMS=.*/ITEMS=$items/; s/^REPS=.*/REPS=$reps/; s/^MS=.*/MS=$ms/;
			s/^FLUSH_CASES=.*/FLUSH_CASES=\"$flush_cases\"/" \
			"$out/stage-$k/vm-cost-times.sh"
	done
	orders "$seed" "$rounds" "$enq_a $enq_b${enq_c:+ $enq_c}" >"$out/cost.order-enqueue"
	: >"$out/cost.order-flush"
	[ -z "$flush_kernels" ] || orders "$((seed + 1))" "$rounds" "$flush_kernels" >"$out/cost.order-flush"
	raw=$out/cost-times.raw
	: >"$raw"
	bench_lock bench-cost
	load_before=$(cat /proc/loadavg) steal_before=$(steal)
	# The guest's TSC runs at the host's, but under TCG its
	# calibration against the emulated PIT is a lottery: one boot
	# of the first run took 20 times too long a nanosecond and
	# measured 20 times fewer flushes. Give the guest the host's
	# frequency when the host knows it (tsc_known_freq).
	tsc_append=
	if grep -qw tsc_known_freq /proc/cpuinfo; then
		tsc_append="tsc_early_khz=$(awk -F': *' '/^cpu MHz/ { printf "%.0f", $2 * 1000; exit }' /proc/cpuinfo)"
	fi
	# ICOUNT=1: the guest's clock on instructions, as in the
	# counting boots (one TCG thread: icount excludes MTTCG), so a
	# nanosecond is an instruction on any host and the ratios
	# price every instruction alike: no host's cost of an atomic
	# or of a cache line moved between vCPUs decides them (the
	# counts price those), the guest's scheduling still does. The
	# TSC then runs on the same clock, there is nothing to give.
	time_vm_env=()
	if [ "$icount" = 1 ]; then
		tsc_append=
		time_vm_env=(WQRT_VM_TCG_THREAD=single WQRT_VM_ACCEL=tcg
			"WQRT_VM_QEMU_ARGS=-icount shift=0,sleep=off")
	fi
	[ "$idle_poll" = 0 ] || tsc_append="$tsc_append idle=poll"
	for r in $(seq 1 "$rounds"); do
		for k in $(sed -n "${r}p" "$out/cost.order-enqueue") $(sed -n "${r}p" "$out/cost.order-flush"); do
			echo "bench-cost: round $r/$rounds: $k"
			s0=$(steal) l0=$(cut -d' ' -f1-3 /proc/loadavg)
			smp=2
			case "$k" in prod-flush*) smp=2,maxcpus=64 ;; esac
			(
				[ "${#time_vm_env[@]}" = 0 ] || export "${time_vm_env[@]}"
				WQRT_VM_SMP=$smp WQRT_VM_APPEND="${WQRT_VM_APPEND:-} $tsc_append" \
					boot "$k" "$out/stage-$k/vm-cost-times.sh" "cost-t-$k-$r" 1800 </dev/null
			)
			log=$out/cost-t-$k-$r.log
			sed -i 's/\r$//' "$log"
			grep -q '^I kernel' "$log" || { cat "$out/cost-t-$k-$r.vmout"; exit 1; }
			grep '^E ' "$log" && { cat "$out/cost-t-$k-$r.vmout"; exit 1; }
			# the control's parameter in force, or the run stops
			# (no held tracepoints: boot() checked)
			if [ "$idle_poll" = 1 ] && ! grep -q '^I cmdline .*\bidle=poll\b' "$log"; then
				echo "bench-cost: IDLE_POLL=1 but the guest of cost-t-$k-$r booted without idle=poll: $(grep '^I cmdline' "$log" || echo 'no cmdline line')" >&2
				exit 1
			fi
			echo "$k $r H load $l0 steal $(steal_pct "$s0" "$(steal)") % accel $(accel_of "cost-t-$k-$r") $(grep '^I clocksource' "$log" | awk '{ print $3 }' | paste -sd, -)" >>"$raw"
			# a metric's figure in a boot: the median of its samples
			awk '$1 == "S" { print $2, $3 }' "$log" | sort -k1,1 -k2g |
				awk -v p="$k $r" '{ v[$1] = v[$1] " " $2 } END {
					for (m in v) { n = split(v[m], a, " "); print p, m, a[int((n + 1) / 2)] } }' >>"$raw"
			awk -v p="$k $r" '$1 == "S" || $1 == "L" { print p, "R", $0 }' "$log" >>"$raw"
		done
	done
	bench_unlock
	load_after=$(cat /proc/loadavg) steal_after=$(steal)
	{
		echo "## Times"
		echo
		echo "$rounds rounds. In each, $enq_a, $enq_b${enq_c:+ and $enq_c} (-smp 2) boot in an order"
		echo "drawn from seed $seed, for seed 000's enqueue benchmark: $producers producer kthreads"
		echo "x $items work items on a WQ_UNBOUND workqueue in the affinity scope cpu (a"
		echo "pool per CPU: per-CPU) and system (one pool for both CPUs: shared), $reps"
		echo "samples each, the scopes alternating, each after a warm-up (items_per_sec: items queued"
		echo "and run a second; p50_ns, p99_ns: how long one queue_work() call took, seed 000's"
		if [ -n "$flush_kernels" ]; then
			echo "enqueue latency); then $flush_kernels (prod-plain,"
			echo "prod$([ "$flush_spin" = 0 ] || echo " and prod with kernel/variants/flush-spin"), which carry kernel/variants/possible-cpus, booted with -smp 2,maxcpus=64: 64 possible, 2 online"
			echo "CPUs) in an order drawn from seed $((seed + 1)), for seed 003's flush rates"
			echo "of $flush_cases ($reps samples of $ms ms each; a case's -same or -other puts the"
			echo "unbound workqueue's worker on the flushing thread's CPU or the other one, through"
			echo "its cpumask, where the case without it leaves the choice to the scheduler)."
		else
			echo "enqueue latency); no flush boots (FLUSH=0)."
		fi
		echo "A metric's figure in a boot is the median of its samples. The"
		echo "second kernel of a pair against the first: the median of the per-round"
		echo "ratios, a bootstrap 95 % interval that resamples the rounds (boots);"
		echo "\"smallest cost detectable\" is half that interval's width: a true"
		echo "difference smaller than it would leave 1 inside an interval this wide."
		echo "With 3 rounds the interval spans the rounds' extremes."
		echo "Enqueue order: $(paste -sd';' "$out/cost.order-enqueue" | sed 's/;/; /g'); flush order: $(paste -sd';' "$out/cost.order-flush" | sed 's/;/; /g')."
		if [ "$icount" = 1 ]; then
			echo "The guests' clock: instructions (ICOUNT=1: -icount shift=0,sleep=off, one TCG thread),"
			echo "a nanosecond an instruction on any host; every instruction is priced alike, the"
			echo "guest's scheduling (who waits for whom) still counts, the host's load does not."
		else
			echo "The guests' TSC frequency: ${tsc_append:-calibrated by each boot (the host does not know its own)}."
		fi
		[ "$idle_poll" = 0 ] ||
			echo "idle=poll was in force in every boot: its /proc/cmdline carried it (the guest's I cmdline line, checked after each boot; the run stops at the first without)."
		echo "$(( ($(date +%s) - start) / 60 )) min in all (the counting boots included)."
		echo
		# each enqueue kernel against the first, a third against the
		# second (prod against prod@3: what the patches after the prefix
		# add, in the same rounds); the flush pairs of the kernels booted
		# shellcheck disable=SC2086 # a kernel a word
		SEED=$seed python3 "$top/selftests/bench/cost/cost-stats.py" times "$raw" $enq_kernels
		echo
		echo "Host load and steal time per boot (steal: the share of this host's"
		echo "CPU time its own hypervisor took while the boot ran):"
		echo
		echo '```'
		awk '$3 == "H" { $3 = ""; print }' "$raw"
		echo '```'
		echo
		echo "Over the timed part: load $load_before before, $load_after after; steal $(steal_pct "$steal_before" "$steal_after") %."
		echo
		for k in $time_kernels; do
			echo "### $k"
			echo
			env_record "cost-t-$k-1" "$k" "$load_before" "$load_after"
			echo
		done
	} >>"$out/cost.md"
	xz -9 <"$raw" >"$res/$base-times.raw.xz"
fi
{
	echo "## Kernels"
	echo
	echo "Each kernel's .config: selftests/bench/results/$base-KERNEL.config.xz."
} >>"$out/cost.md"
for k in $kernels_built; do
	save_config "$k" "$res/$base-$k.config.xz"
done
cp "$out/cost.md" "$res/$base.md"
cat "$out/cost.md"
echo "bench: table $out/cost.md (copies under selftests/bench/results/$base.*)"
