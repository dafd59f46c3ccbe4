# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh enqueue: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# Seed 000's method, PRODUCERS kthreads x ITEMS work items per
# affinity scope, on the production-like kernels (prod.config: -O2,
# no lock debugging): plain 6.12, patches 1-2, patch 3 (the deferred
# wakeup with a task pointer), the whole series, and the series with
# a wake_q instead of the task pointer (kernel/variants/wake-q),
# booted in a random order drawn from SEED in every round.
# LOCKSTAT=1: the same on the lock_stat kernels (perf.config, lock
# debugging on): a diagnostic of pool->lock (contentions, wait and
# hold times), whose throughput and latency are not the prod ones.
# its guest enables no event: no held probe in what it times (lib.sh)
hold_tracepoints=0
lockstat=${LOCKSTAT:-0}
if [ "$lockstat" = 1 ]; then
	name=enqueue-lockstat family=perf
else
	name=enqueue family=prod
fi
kernels=${KERNELS:-$family-plain $family@2 $family@3 $family $family-alt}
rounds=${ROUNDS:-5} producers=${PRODUCERS:-8} items=${ITEMS:-200000}
for v in rounds producers items; do
	[[ "${!v}" =~ ^[1-9][0-9]{0,8}$ ]] || {
		echo "bench-enqueue: ${v^^}=${!v}: a positive integer, please" >&2
		exit 2
	}
done
# wqrt_bench.c's bound (ENQ_MAX_PRODUCERS, ENQ_MAX_ITEMS): every item
# is allocated up front, 40 bytes without lockdep, about 90 with it
if [ "$producers" -gt 64 ] || [ $((producers * items)) -gt 4000000 ]; then
	echo "bench-enqueue: PRODUCERS=$producers x ITEMS=$items: at most 64 producers and 4000000 items in all (160 MB up front, about 350 MB on a lock_stat kernel, of the VM's ${WQRT_VM_MEM:-1024} MiB)" >&2
	exit 2
fi
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
for k in $kernels; do
	build_flavour "$k" >/dev/null
	cp "$top/selftests/bench/enqueue/vm-enqueue.sh" "$out/stage-$k/vm-enqueue.sh"
	# the script's settings travel in its first lines
	sed -i "s/^PRODUCERS=.*/PRODUCERS=$producers/; s/^ITEMS=.*/ITEMS=$items/" \
		"$out/stage-$k/vm-enqueue.sh"
done
orders "$seed" "$rounds" "$kernels" >"$out/$name.order"
# tsc=reliable (above): enqueue-stats.py still leaves out any boot
# that ends on another clocksource.
# Under TCG a boot queues 20000 to 200000 items/s: 5 scopes, a warm-up
# each, the boot itself
timeout=$((300 + 5 * producers * items / 15000))
raw=$out/$name.raw
: >"$raw"
bench_lock bench-enqueue
start=$(date +%s)
load_before=$(cat /proc/loadavg)
# UNTIL (a date): start no round that would end after it, judging by
# the longest round so far; the table says how many rounds ran.
until_s=
[ -z "${UNTIL:-}" ] || until_s=$(date -d "$UNTIL" +%s)
r=0 longest=0
while read -r order; do
	rstart=$(date +%s)
	if [ -n "$until_s" ] && [ "$r" -gt 0 ] &&
		[ $((rstart + longest)) -gt "$until_s" ]; then
		echo "bench-enqueue: stopping after $r of $rounds rounds: another would end after UNTIL=$UNTIL"
		break
	fi
	r=$((r + 1)) pos=0
	for k in $order; do
		pos=$((pos + 1))
		echo "bench-enqueue: round $r/$rounds, $pos: $k ($producers x $items per scope)"
		echo "$k $r $pos H $(cat /proc/loadavg)" >>"$raw"
		boot "$k" "$out/stage-$k/vm-enqueue.sh" "$name-$k-$r" "$timeout" </dev/null
		log=$out/$name-$k-$r.log
		sed -i 's/\r$//' "$log"
		grep -q '^I kernel' "$log" || { cat "$out/$name-$k-$r.vmout"; exit 1; }
		grep '^E ' "$log" && { cat "$out/$name-$k-$r.vmout"; exit 1; }
		awk -v p="$k $r $pos" '$1 ~ /^[LRSVI]$/ { print p, $0 }' "$log" >>"$raw"
		echo "$k $r $pos A $(accel_of "$name-$k-$r")" >>"$raw"
	done
	[ $(($(date +%s) - rstart)) -le "$longest" ] || longest=$(($(date +%s) - rstart))
done <"$out/$name.order"
[ "$r" = "$rounds" ] || {
	head -n "$r" "$out/$name.order" >"$out/$name.order.ran"
	mv "$out/$name.order.ran" "$out/$name.order"
	rounds_asked=$rounds rounds=$r
}
load_after=$(cat /proc/loadavg)
bench_unlock
date=$(date -u +%Y-%m-%d)
res=$top/selftests/bench/results
base=$name-$date${TAG:+-$TAG}
table=$out/$name.md
{
	if [ "$lockstat" = 1 ]; then
		echo "# Enqueue, lock_stat diagnostic pass ($date${TAG:+, $TAG})"
		echo
		echo "**Diagnostic.** These kernels carry lock_stat (kernel/configs/perf.config:"
		echo "lockdep, lock statistics), which adds to every lock acquisition:"
		echo "their items/s and enqueue latencies are not the production figures"
		echo "(those are results/enqueue-*.md on the prod kernels). This pass is"
		echo "for what only lock_stat sees: pool->lock contentions, wait and hold"
		echo "times, summed over its lock classes."
	else
		echo "# Enqueue throughput and latency ($date${TAG:+, $TAG})"
		echo
		echo "On the production-like kernels (kernel/configs/prod.config: -O2,"
		echo "HZ=1000, no lock debugging). The pool->lock contention and hold"
		echo "times come from the separate lock_stat pass (LOCKSTAT=1,"
		echo "results/enqueue-lockstat-*.md)."
	fi
	echo
	echo "Seed 000's method: $producers producer kthreads x $items work items each"
	echo "on a WQ_UNBOUND workqueue, as fast as they can, once per affinity"
	echo "scope (after a warm-up of $producers x 2000); items/s is all the items over"
	echo "the time from waking the producers to the last item's completion,"
	echo "p50/p99 the time of each queue_work() call (all $((producers * items)) of them)."
	echo "$rounds rounds${rounds_asked:+ (of ROUNDS=$rounds_asked: UNTIL=$UNTIL stopped the rest)}; in each round every kernel boots once, in an order"
	echo "drawn from seed $seed: $(paste -sd';' "$out/$name.order" | sed 's/;/; /g')."
	echo "Command: \`$(for v in LOCKSTAT KERNELS ROUNDS PRODUCERS ITEMS UNTIL TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-enqueue\`,"
	echo "$(( ($(date +%s) - start) / 60 )) min of boots."
	echo
	echo "## Environment"
	echo
	for k in $kernels; do
		echo "### $k"
		echo
		env_record "$name-$k-1" "$k" "$load_before" "$load_after"
		echo
	done
	echo "Host load before each boot: the H lines of the raw file."
	echo
	SEED=$seed KERNELS=$kernels FAMILY=$family \
		python3 "$top/selftests/bench/enqueue/enqueue-stats.py" "$raw"
} >"$table"
cp "$table" "$res/$base.md"
xz -9 <"$raw" >"$res/$base.raw.xz"
cat "$table"
echo "bench: table $table, raw samples $raw (copies under selftests/bench/results/$base.*)"
