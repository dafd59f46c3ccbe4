#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-reserve, issue 32.3): what the reserve of
# idle workers (nr_idle_extra) costs in memory, per worker. wqrt_bench, an
# unbound WQ_SYSFS workqueue, gets private=1 (a pool of its own, which
# starts with one worker); then, for each N of SIZES in turn, nr_idle_extra
# N, and once the pool holds N + 1 idle workers the memory counters are
# read again. Each step's growth divided by the workers it added is the
# cost of one worker: its kernel stack, its task_struct and the rest of a
# kthread (slab), its per-CPU data.
#
# Prints:
#   I ...                           the kernel and the settings
#   M STEP N WORKERS KEY KB         /proc/meminfo's KEY (KernelStack,
#                                   SUnreclaim, SReclaimable, Percpu,
#                                   MemAvailable) after STEP (0: the pool
#                                   before any reserve), with N the
#                                   reserve asked and WORKERS the pool's
#   O SLAB STEP NAME OBJS SIZE      /proc/slabinfo: active objects and the
#                                   object size of NAME after STEP
#   E reason                        the step did not reach its workers
# The settings are the first lines, which run.sh rewrites.

SIZES="8 64"
SETTLE_S=3
FILL_TIMEOUT_S=120

wqdir=/sys/devices/virtual/workqueue
wq=$wqdir/wqrt_bench
here=$(dirname "$0")

insmod "$here/wqrt_bench.ko" || { echo "E cannot load wqrt_bench.ko"; exit 1; }
[ -e "$wq/nr_idle_extra" ] || { echo "E $wq has no nr_idle_extra: a kernel without the series"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) sizes $SIZES settle_s $SETTLE_S"

# the kworkers of the workqueue's pools, by the pool ids in their names
workers() {
	ids=$(tr ' ' '\n' <"$wq/pool_ids" | sed 's/.*://' | sort -u | paste -sd'|')
	cat /proc/[0-9]*/comm 2>/dev/null | grep -cE "^kworker/u($ids):"
}

snapshot() { # STEP N
	sync
	echo 2 >/proc/sys/vm/drop_caches
	sleep "$SETTLE_S"
	w=$(workers)
	for key in KernelStack SUnreclaim SReclaimable Percpu MemAvailable; do
		echo "M $1 $2 $w $key $(awk -v k="$key:" '$1 == k { print $2 }' /proc/meminfo)"
	done
	awk -v s="$1" '$1 ~ /^(task_struct|kmalloc-[0-9]+|pid|signal_cache|sighand_cache|files_cache|fs_cache|cred_jar|vmap_area|kernfs_node_cache|worker)$/ {
		print "O SLAB", s, $1, $2, $4 }' /proc/slabinfo 2>/dev/null
}

echo 1 >"$wq/private" || { echo "E cannot set private"; exit 1; }
# the new private pool creates its first worker
sleep "$SETTLE_S"
snapshot 0 0
step=0
for n in $SIZES; do
	step=$((step + 1))
	echo "$n" >"$wq/nr_idle_extra" || { echo "E nr_idle_extra $n refused"; exit 1; }
	t=0
	while [ "$(workers)" -lt $((n + 1)) ] && [ $t -lt "$FILL_TIMEOUT_S" ]; do
		sleep 1
		t=$((t + 1))
	done
	[ "$(workers)" -ge $((n + 1)) ] ||
		echo "E step $step: $(workers) workers after ${FILL_TIMEOUT_S} s, want $((n + 1))"
	snapshot "$step" "$n"
done
echo "I done"
