#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-cost, its timed part). MODE=enqueue: seed
# 000's enqueue benchmark (wqrt_bench's enqueue: PRODUCERS kthreads x ITEMS
# work items on WQ_UNBOUND wqrt_bench) in the affinity scope cpu (a pool
# per CPU) and system (one pool for all CPUs), REPS samples each, the
# scopes alternating, after a warm-up each; the layout each scope gave is
# probed as make bench-enqueue does. MODE=flush: seed 003's flush rates
# (wqrt_bench's flush) of FLUSH_CASES, REPS samples of MS milliseconds
# each, interleaved. Prints "S METRIC VALUE" per sample (run.sh takes a
# metric's median sample as the boot's figure). run.sh sets the settings on the next lines.
MODE=enqueue
PRODUCERS=8
ITEMS=50000
REPS=3
MS=1000
FLUSH_CASES="qf1-unbound qf1-unbound-same qf1-unbound-other dense-percpu"

insmod /wqrt/wqrt_bench.ko || { echo "E cannot load wqrt_bench.ko"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) possible $(cat /sys/devices/system/cpu/possible) mode $MODE"
# what the boot was given (make bench-cost IDLE_POLL=1 checks idle=poll)
echo "I cmdline $(cat /proc/cmdline)"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
ctl=/sys/kernel/debug/wqrt_bench

case "$MODE" in
enqueue)
	wq=/sys/devices/virtual/workqueue/wqrt_bench
	# REPS samples a scope, the scopes alternating: a boot's figure is
	# the median sample, so one disturbed sample does not decide it
	for r in $(seq 1 "$REPS"); do
		for scope in cpu system; do
			name=percpu
			[ "$scope" = system ] && name=shared
			echo "$scope" >"$wq/affinity_scope" || { echo "E scope $scope refused"; exit 1; }
			if [ "$r" = 1 ]; then
				echo 1 >"$ctl/layout" || { echo "E layout probe failed"; exit 1; }
				# CPU COMM ...: the kworker/uPOOL:N that ran an item queued there
				echo "L $scope $(awk '{ printf " cpu%s:%s", $1, $2 }' "$ctl/layout")"
			fi
			# a warm-up after each scope change: the new pool's workers exist
			echo "$PRODUCERS 2000" >"$ctl/enqueue"
			echo "$PRODUCERS $ITEMS" >"$ctl/enqueue" || { echo "E enqueue failed"; exit 1; }
			# shellcheck disable=SC2046 # the result line, one word a field
			set -- $(cat "$ctl/enqueue")
			echo "S ${name}_items_per_sec $2"
			echo "S ${name}_p50_ns $4"
			echo "S ${name}_p99_ns $6"
		done
	done
	;;
flush)
	# KIND-WQ[-PLACE]: PLACE fixes where the unbound workqueue's worker
	# runs, through its cpumask: "same", the flushing thread's CPU (the
	# first online one, where wqrt_bench binds its first thread), or
	# "other", the second online CPU; without it the scheduler chooses,
	# and a loop settles on either, whose rates differ by up to 1.5
	# times on either kernel
	fbq=/sys/devices/virtual/workqueue/wqrt_fbench_unbound
	full=$(cat "$fbq/cpumask") || { echo "E no $fbq/cpumask"; exit 1; }
	# the first two online CPUs, from a cpulist such as 0-1 or 0,2-3
	set -- $(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
		for (c = r[1] + 0; c <= r[n] + 0; c++) print c } }' /sys/devices/system/cpu/online)
	[ $# -ge 2 ] || { echo "E the flush placements need two online CPUs"; exit 1; }
	same=$(printf '%x' $((1 << $1)))
	other=$(printf '%x' $((1 << $2)))
	for r in $(seq 1 "$REPS"); do
		for c in $FLUSH_CASES; do
			kind=${c%%-*}
			wqk=${c#*-}
			place=${wqk#*-}
			wqk=${wqk%%-*}
			[ "$place" != "$wqk" ] || place=
			case "$place" in
			"") mask=$full ;;
			same) mask=$same ;;
			other) mask=$other ;;
			*) echo "E flush case $c: placement '$place' is not same or other"; exit 1 ;;
			esac
			if [ -n "$place" ] && [ "$wqk" != unbound ]; then
				echo "E flush case $c: only the unbound workqueue takes a placement"
				exit 1
			fi
			[ "$wqk" != unbound ] || echo "$mask" >"$fbq/cpumask" ||
				{ echo "E flush case $c: cpumask $mask refused"; exit 1; }
			case "$kind" in
			qf*) args="qf $wqk ${kind#qf}" ;;
			*) args="$kind $wqk 1" ;;
			esac
			echo "$args $MS" >"$ctl/flush" || { echo "E flush $c failed"; exit 1; }
			# shellcheck disable=SC2046 # the result line, one word a field
			set -- $(cat "$ctl/flush")
			echo "S ${c}_flushes_per_sec $6"
			# voluntary context switches per 1000 flushes: how
			# often a flush had to wait for its item
			echo "S ${c}_sleeps_per_1000 $(awk -v s="$8" -v f="$2" 'BEGIN { printf "%.0f", f ? 1000 * s / f : 0 }')"
		done
	done
	;;
esac
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
# how this boot calibrated its clocks: under TCG the TSC and local APIC
# timer calibrations differ from boot to boot, and every rate above is
# in this boot's nanoseconds
dmesg | grep -iE 'tsc|clocksource|calibrat|apic timer|bogomips' | sed 's/^/I dmesg /'
exit 0
