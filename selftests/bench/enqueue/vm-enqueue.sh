#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-enqueue). Seed 000's method: PRODUCERS
# kthreads each queue ITEMS distinct work items on wqrt_bench
# (WQ_UNBOUND | WQ_SYSFS), once per affinity scope. Prints per scope:
#   "L SCOPE PARTITION CPU:POOL..."   the pools the scope really gives the
#        workqueue: for each online CPU, the pool (kworker/uPOOL_ID) that
#        ran an item queued on it; PARTITION names the pools A, B, ... in
#        CPU order ("AB": one pool per CPU, "AA": one pool for both), so
#        that scopes with the same layout are seen to be repeats
#   "R SCOPE ITEMS_PER_SEC ENQ_P50_NS ENQ_P99_NS HOLD_AVG_NS ACQUISITIONS"
#        the last two from lock_stat for the pool->lock class, "- 0"
#        without lock_stat
#   "S SCOPE NAME VALUE..."   every /proc/lock_stat column of the
#        pool->lock classes, summed (maxima: the largest, minima: the
#        smallest, averages recomputed from the totals), times in ns;
#        only on a lock_stat kernel
# run.sh sets the settings on the next lines.
PRODUCERS=8
ITEMS=200000
WARMUP=2000

wq=/sys/devices/virtual/workqueue/wqrt_bench
ctl=/sys/kernel/debug/wqrt_bench

insmod /wqrt/wqrt_bench.ko || { echo "E cannot load wqrt_bench.ko"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) producers $PRODUCERS items $ITEMS"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I lock_stat $([ -r /proc/lock_stat ] && echo yes || echo no)"
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	t=$c/topology
	echo "I topology $(basename "$c") package $(cat "$t/physical_package_id" 2>/dev/null) core $(cat "$t/core_id" 2>/dev/null) smt_siblings $(cat "$t/thread_siblings_list" 2>/dev/null) llc_shared $(cat "$c/cache/index3/shared_cpu_list" 2>/dev/null || echo none) node $(cd "$c" && for n in node*; do [ -e "$n" ] && echo "${n#node}" || echo none; done | head -n 1)"
done

# Every column of /proc/lock_stat for the pool->lock classes, found by
# the header's names (lock_stat prints times in us with two decimals).
pool_lock_stat() {
	awk '
	/class name/ {
		sub(/.*class name/, "")
		n = split($0, col)
		next
	}
	n && $1 ~ /^&pool->lock(\/[0-9]+)?:$/ {
		for (i = 1; i <= n; i++) {
			v = $(i + 1)
			c = col[i]
			if (c ~ /^(waittime|holdtime)-/)
				v *= 1000
			if (c ~ /-min$/) {
				if (!(c in seen) || v < s[c])
					s[c] = v
				seen[c] = 1
			}
			else if (c ~ /-max$/)
				s[c] = (s[c] > v) ? s[c] : v
			else
				s[c] += v
		}
		found = 1
	}
	END {
		if (!found)
			exit
		s["waittime-avg"] = s["contentions"] ? s["waittime-total"] / s["contentions"] : 0
		s["holdtime-avg"] = s["acquisitions"] ? s["holdtime-total"] / s["acquisitions"] : 0
		line = ""
		for (i = 1; i <= n; i++)
			line = line " " col[i] " " sprintf("%.0f", s[col[i]])
		print line
	}' /proc/lock_stat 2>/dev/null
}

for scope in cpu smt cache numa system; do
	echo "$scope" >"$wq/affinity_scope" || { echo "V $scope refused"; continue; }
	echo 1 >"$ctl/layout" || echo "V $scope layout probe failed"
	# CPU COMM RAN_ON ALLOWED -> the pool id, the letters in CPU order
	lay=$(awk '{ p = $2; sub(/^kworker\//, "", p); sub(/:.*/, "", p)
		if (!(p in name)) name[p] = sprintf("%c", 65 + k++)
		part = part name[p]; d = d " cpu" $1 ":" p "(ran_on_" $3 ",allowed_" $4 ")" }
		END { print part d }' "$ctl/layout")
	pool_ids=$(tr '\n' ' ' <"$wq/pool_ids" 2>/dev/null)
	echo "L $scope $lay${pool_ids:+ sysfs_pool_ids $pool_ids}"
	# One warm-up pass so that every pool has its workers.
	echo "$PRODUCERS $WARMUP" >"$ctl/enqueue"
	[ -w /proc/lock_stat ] && echo 0 >/proc/lock_stat
	echo "$PRODUCERS $ITEMS" >"$ctl/enqueue" || { echo "V $scope failed: $(dmesg | grep 'wqrt_bench: enqueue' | tail -n 1)"; continue; }
	# shellcheck disable=SC2046 # the result line, one word a field
	set -- $(cat "$ctl/enqueue")
	ls=$(pool_lock_stat)
	if [ -n "$ls" ]; then
		echo "R $scope $2 $4 $6 $(echo "$ls" | awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1); print v["holdtime-avg"], v["acquisitions"] }')"
		echo "S $scope$ls"
	else
		echo "R $scope $2 $4 $6 - 0"
	fi
	echo "I item_bytes $8"
done
# the kernel may have changed clocksource since the start (tsc-early)
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
