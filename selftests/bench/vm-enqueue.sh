#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-enqueue). Seed 000's method: PRODUCERS
# kthreads each queue ITEMS distinct work items on wqrt_bench
# (WQ_UNBOUND | WQ_SYSFS), once per affinity scope. Prints per scope:
# "R SCOPE ITEMS_PER_SEC ENQ_P50_NS ENQ_P99_NS HOLD_AVG_NS ACQUISITIONS",
# the last two from lock_stat for the pool->lock class.

PRODUCERS=${PRODUCERS:-4}
ITEMS=${ITEMS:-25000}
wq=/sys/devices/virtual/workqueue/wqrt_bench
ctl=/sys/kernel/debug/wqrt_bench

insmod /wqrt/wqrt_bench.ko || { echo "E cannot load wqrt_bench.ko"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) producers $PRODUCERS items $ITEMS"

# pool->lock hold time: total and acquisitions summed over its classes
# (lock_stat times are in microseconds with two decimals).
pool_lock_hold() {
	awk '$1 ~ /^&pool->lock(\/[0-9]+)?:$/ { acq += $9; hold += $12 }
		END { if (acq) printf "%.0f %d\n", hold * 1000 / acq, acq; else print "- 0" }' \
		/proc/lock_stat 2>/dev/null || echo "- 0"
}

for scope in cpu smt cache numa system; do
	echo "$scope" >"$wq/affinity_scope" || { echo "V $scope refused"; continue; }
	# One warm-up pass so that every pool has its workers.
	echo "$PRODUCERS 2000" >"$ctl/enqueue"
	[ -w /proc/lock_stat ] && echo 0 >/proc/lock_stat
	echo "$PRODUCERS $ITEMS" >"$ctl/enqueue" || { echo "V $scope failed"; continue; }
	set -- $(cat "$ctl/enqueue")
	echo "R $scope $2 $4 $6 $(pool_lock_hold)"
done
exit 0
