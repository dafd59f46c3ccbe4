#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-latency, its scenarios): the cases where
# wqrt's features should matter (issue 18.6), measured as vm-latency.sh
# measures (a hard hrtimer's programmed expiry to the work function's
# first line, one item per period from a ring, every period counted),
# under the same load (load.sh), ROUNDS rounds, each in the order of its
# line in ./order (run.sh draws it from a recorded seed). The variants:
#
#   default, fifo50              the controls (wqrt_bench as is; fifo 50)
#   fifo50-pin                   wqrt_bench on HOG_CPU alone, fifo 50
#   default-pin-hog50            on HOG_CPU, policy normal, under the hog
#   fifo50-pin-hog50, -hog40     on HOG_CPU, fifo 50, under a SCHED_FIFO
#                                hog at 50 (the profile's priority) or 40
#                                bound to HOG_CPU: HOG_ON_US spinning,
#                                HOG_OFF_US asleep, as a threaded handler
#                                under an interrupt storm
#   fifo50-noisy                 fifo 50, and wqrt_bench_nb, the same
#                                attributes (so the same pool, P lines
#                                prove it), flooded with FLOOD_ITEMS items
#                                of FLOOD_SPIN_US every FLOOD_PERIOD_US
#   fifo50-private-noisy         the same with private 1 on wqrt_bench
#   highpri                      wqrt_bench_hp, a per-cpu WQ_HIGHPRI
#                                workqueue (nice -20 kworkers)
#   kthread50                    a FIFO 50 kthread_worker
#   irqthread50                  the hard timer wakes a FIFO 50 thread, as
#                                a threaded interrupt handler is woken
#   chrt-fifo50                  kernels without the series: wqrtd with
#                                [kworker:kworker/u*] fifo 50 (tuned's way:
#                                every unbound kworker by name)
#   timerlat50                   rtla timerlat at FIFO 50, the floor
#
# Worker creation (bursts after the idle cull, the stock way against the
# series') is make bench-burst's, vm-burst.sh.
#
# Prints the lines of vm-latency.sh (I, O, S, H, V) and:
#   S VARIANT ROUND NS TIMER_NS POLICY AGE_NS   POLICY of the task that ran
#                              the item, AGE_NS since it was created
#   P VARIANT ROUND WQ POOL_IDS   the pools of a workqueue as it ran
#   K VARIANT ROUND PID FORK_NS DONE_NS RESULT COMM   wqrtd --timing: a kworker
#                              forked while wqrtd ran, and when its FIFO
#                              policy was verified
# The settings are the first lines, which run.sh rewrites.

COUNT=5000
PERIOD_US=1000
ROUNDS=5
VARIANTS="default fifo50"
HOG_CPU=1
HOG_ON_US=2000
HOG_OFF_US=8000
FLOOD_ITEMS=16
FLOOD_SPIN_US=25
FLOOD_PERIOD_US=1000

wq=/sys/devices/virtual/workqueue/wqrt_bench
wqdir=/sys/devices/virtual/workqueue
ctl=/sys/kernel/debug/wqrt_bench
tracefs=/sys/kernel/tracing
here=$(dirname "$0")

insmod "$here/wqrt_bench.ko" || { echo "E cannot load wqrt_bench.ko"; exit 1; }
ncpu=$(nproc)
series=0
[ -e "$wq/policy" ] && series=1
echo "I kernel $(uname -r) vcpus $ncpu series $series periods $COUNT period_us $PERIOD_US rounds $ROUNDS"
echo "I scenarios: hog cpu $HOG_CPU on_us $HOG_ON_US off_us $HOG_OFF_US; flood items $FLOOD_ITEMS spin_us $FLOOD_SPIN_US period_us $FLOOD_PERIOD_US"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I rtla $(command -v rtla >/dev/null && rtla --help 2>&1 | sed -n 's/^rtla version //p' | head -n 1 || echo missing)"
echo "I wqrtd $(command -v wqrtd >/dev/null && echo present || echo missing)"
[ -e "$tracefs/tracing_on" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
mask=$(printf '%x' $((1 << HOG_CPU)))

. "$here/load.sh"
start_load
. "$here/wqattr.sh"

# wqrtd in [kworker:] mode, every unbound kworker fifo 50 (tuned's way)
chrt_start() {
	printf '[kworker:kworker/u*]\npolicy = fifo\nrtprio = 50\n' >/tmp/chrt.conf
	wqrtd_start /tmp/chrt.conf
}

chrt_stop() { # VARIANT ROUND
	wqrtd_stop "$1" "$2"
	# back to what the stock kernel gives them, for the other variants
	for _p in /proc/[0-9]*; do
		case $(cat "$_p/comm" 2>/dev/null) in
		kworker/u*) chrt -o -p 0 "${_p#/proc/}" >/dev/null 2>&1 ;;
		esac
	done
}

latency() { # KIND VARIANT ROUND
	echo "$1 $COUNT $PERIOD_US" >"$ctl/latency" || return 1
	awk -v v="$2" -v r="$3" '{ print "S " v " " r " " $0 }' "$ctl/latency"
}

variant() { # NAME ROUND
	reset_wq wqrt_bench
	reset_wq wqrt_bench_nb
	case "$1" in
	default) ;;
	fifo50|fifo50-noisy)
		setattr wqrt_bench policy fifo && setattr wqrt_bench rtprio 50 || return 1 ;;
	fifo50-private-noisy)
		setattr wqrt_bench private 1 && setattr wqrt_bench policy fifo &&
			setattr wqrt_bench rtprio 50 || return 1 ;;
	default-pin-hog50)
		setattr wqrt_bench cpumask "$mask" || return 1 ;;
	fifo50-pin|fifo50-pin-hog50|fifo50-pin-hog40)
		setattr wqrt_bench cpumask "$mask" && setattr wqrt_bench policy fifo &&
			setattr wqrt_bench rtprio 50 || return 1 ;;
	highpri)
		sleep 1
		latency hp "$1" "$2"
		return ;;
	kthread50)
		latency kthread "$1" "$2"
		return ;;
	irqthread50)
		latency irqthread "$1" "$2"
		return ;;
	chrt-fifo50)
		[ $series = 0 ] || return 1
		chrt_start || { chrt_stop "$1" "$2"; return 1; }
		latency wq "$1" "$2"
		chrt_stop "$1" "$2"
		return ;;
	*) return 1 ;;
	esac
	case "$1" in
	*-noisy)
		setattr wqrt_bench_nb policy fifo && setattr wqrt_bench_nb rtprio 50 || return 1
		echo "$FLOOD_ITEMS $FLOOD_SPIN_US $FLOOD_PERIOD_US" >"$ctl/flood" || return 1
		;;
	*-hog50) echo "50 $HOG_CPU $HOG_ON_US $HOG_OFF_US" >"$ctl/hog" || return 1 ;;
	*-hog40) echo "40 $HOG_CPU $HOG_ON_US $HOG_OFF_US" >"$ctl/hog" || return 1 ;;
	esac
	sleep 1
	pools "$1" "$2" wqrt_bench
	case "$1" in *-noisy) pools "$1" "$2" wqrt_bench_nb ;; esac
	latency wq "$1" "$2"
	_rc=$?
	echo "0 0 0" >"$ctl/flood"
	echo "0 0 0 0" >"$ctl/hog"
	return $_rc
}

timerlat() { # ROUND: as vm-latency.sh, rtla only
	rtla_timerlat "$1" "$(((COUNT * PERIOD_US + 999999) / 1000000))" ||
		echo "V timerlat50 $1 skipped: rtla timerlat failed ($(grep -v '^ *$' /tmp/timerlat 2>/dev/null | head -n 2 | tr '\n' ' '))"
}

r=1
while [ $r -le "$ROUNDS" ]; do
	order=$(sed -n "${r}p" "$here/order" 2>/dev/null)
	[ -n "$order" ] || order=$VARIANTS
	echo "O $r $order"
	for v in $order; do
		case $v in
		timerlat50) timerlat $r ;;
		*) variant $v $r || echo "V $v $r skipped: attribute missing or refused on this kernel" ;;
		esac
	done
	r=$((r + 1))
done
stop_load
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
