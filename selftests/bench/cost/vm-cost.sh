#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-cost, its counting part), booted under QEMU
# with the wqcount plugin (selftests/bench/cost/wqcount.c) and one TCG
# thread: every case of wqrt_bench's cost command RUNS times, each run in a
# counting window of the plugin, which prints the counts when QEMU exits.
# Prints the module's symbols ("K ADDR TYPE NAME", for the report to name
# the plugin's PCs) and the buckets ("B BUCKET CASE WINDOW RUNS OPS").
# run.sh sets the settings on the next lines.
RUNS=100
CASES="queue-percpu queue-unbound burst-percpu burst-unbound flush-idle-percpu flush-idle-unbound qf-percpu qf-unbound dense-percpu enqueue-percpu enqueue-shared queue-reserve burst-reserve"
# the enqueue cases' runs: each is 4000 items, counted per item
ENQ_RUNS=10

ctl=/sys/kernel/debug/wqrt_bench/cost

insmod /wqrt/wqrt_bench.ko || { echo "E cannot load wqrt_bench.ko"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) runs $RUNS"
echo "I cmdline $(cat /proc/cmdline)"
# make bench-flush-sweep checks that the boot saw the possible CPUs it was
# given (-smp 2,maxcpus=N)
echo "I possible $(cat /sys/devices/system/cpu/possible) online $(cat /sys/devices/system/cpu/online)"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo 0 >/proc/sys/kernel/kptr_restrict 2>/dev/null
grep '\[wqrt_bench\]' /proc/kallsyms | sed 's/^/K /'
# A case's counted runs (n), and for the enqueue cases the affinity scope
# of wqrt_bench that their names stand for, as make bench-cost's timed
# boots set it (vm-cost-times.sh): cpu, a pool per CPU; system, one pool
# for both CPUs. The reserve cases run on wqrt_cost_reserve with a reserve
# of one idle worker (nr_idle_extra 1, a pool of its own): a kernel
# without the attribute (6.12, a prefix before the reserve's patch) skips
# them. Fails (1) for a case to skip, its reason in $why.
reserve=/sys/devices/virtual/workqueue/wqrt_cost_reserve/nr_idle_extra
prepare() { # CASE
	n=$RUNS
	case "$1" in
	enqueue-*)
		n=$ENQ_RUNS scope=cpu
		[ "$1" = enqueue-shared ] && scope=system
		echo "$scope" >/sys/devices/virtual/workqueue/wqrt_bench/affinity_scope ||
			{ echo "E affinity scope $scope refused"; exit 1; }
		;;
	*-reserve)
		[ -e "$reserve" ] || { why="no nr_idle_extra on this kernel"; return 1; }
		echo 1 >"$reserve" || { echo "E nr_idle_extra 1 refused on wqrt_cost_reserve"; exit 1; }
		;;
	esac
}
# one untimed pass: every pool has its workers, every pwq exists
for c in $CASES; do
	prepare "$c" || continue
	echo "$c 5 warm" >"$ctl" || { echo "E warm-up of $c failed"; exit 1; }
done
for c in $CASES; do
	prepare "$c" || { echo "I skipped $c: $why"; continue; }
	echo "$c $n" >"$ctl" || { echo "E $c failed"; exit 1; }
done
sed 's/^/B /' "$ctl"
exit 0
