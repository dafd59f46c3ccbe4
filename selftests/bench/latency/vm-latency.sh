#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-latency). Periodic dispatch latency under
# load for each variant, ROUNDS rounds, each round in the order of its line
# in ./order next to this script (run.sh draws it from a recorded seed) or
# in VARIANTS order without one. Every period is counted: an item later
# than the next period is not waited for (wqrt_bench.ko's ring). Prints:
#   I ...                      the environment
#   O ROUND VARIANT...         the order of a round
#   S VARIANT ROUND NS [TIMER_NS]|skip   one line per period: expiry ->
#                              work start, and expiry -> the timer callback
#                              queueing the item (wqrt_bench.ko only)
#   H VARIANT ROUND US COUNT   a histogram bucket (rtla timerlat), COUNT
#                              periods at US microseconds
#   N ...                      rtla osnoise's (or the tracer's) summary
#   V VARIANT ROUND skipped: why   a variant this kernel cannot run
# The settings are the first lines, which run.sh rewrites.

COUNT=5000
PERIOD_US=1000
ROUNDS=5
VARIANTS="default nice-20 fifo50 fifo50-private-reserve kthread50 timerlat50 cyclictest50"
OSNOISE_S=10

wq=/sys/devices/virtual/workqueue/wqrt_bench
ctl=/sys/kernel/debug/wqrt_bench
tracefs=/sys/kernel/tracing
here=$(dirname "$0")

insmod "$here/wqrt_bench.ko" || { echo "E cannot load wqrt_bench.ko"; exit 1; }
ncpu=$(nproc)
echo "I kernel $(uname -r) vcpus $ncpu periods $COUNT period_us $PERIOD_US rounds $ROUNDS"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I rtla $(command -v rtla >/dev/null && rtla --help 2>&1 | sed -n 's/^rtla version //p' | head -n 1 || echo missing)"
[ -d "$tracefs/tracing_on" ] || [ -e "$tracefs/tracing_on" ] ||
	mount -t tracefs nodev "$tracefs" 2>/dev/null
echo "I tracers $(cat "$tracefs/available_tracers" 2>/dev/null || echo none)"

# The VM's own noise, before the load: rtla osnoise, or the osnoise
# tracer's own summary lines when rtla cannot drive this kernel's tracer.
osnoise() {
	if command -v rtla >/dev/null &&
		rtla osnoise top -q -d "${OSNOISE_S}s" >/tmp/osnoise 2>&1 &&
		grep -q '^ *[0-9]' /tmp/osnoise; then
		echo "I osnoise: rtla osnoise top -q -d ${OSNOISE_S}s, no load"
		sed 's/^/N /' /tmp/osnoise
		return
	fi
	echo "I osnoise: rtla osnoise failed ($(head -c 200 /tmp/osnoise 2>/dev/null | tr '\n' ' ')); the osnoise tracer from tracefs, no load"
	grep -qw osnoise "$tracefs/available_tracers" 2>/dev/null || { echo "N no osnoise tracer"; return; }
	echo >"$tracefs/trace"
	echo osnoise >"$tracefs/current_tracer"
	echo 1 >"$tracefs/tracing_on"
	sleep "$OSNOISE_S"
	echo 0 >"$tracefs/tracing_on"
	grep -E '^#|osnoise/' "$tracefs/trace" | grep -v '^#$' | tail -n 40 | sed 's/^/N /'
	echo nop >"$tracefs/current_tracer"
}
osnoise

# The load, as in every latency benchmark (load.sh).
. "$here/load.sh"
start_load

setattr() { # ATTR VALUE: fails the variant when the kernel refuses
	[ -e "$wq/$1" ] || return 1
	echo "$2" >"$wq/$1" 2>/dev/null
}

reset_wq() {
	setattr policy normal
	setattr nr_idle_extra 0
	setattr private 0
	setattr nice 0
}

variant() { # NAME ROUND: configure the workqueue (or not) and run
	reset_wq
	case "$1" in
	default) ;;
	nice-20) setattr nice -20 || return 1 ;;
	fifo50)
		setattr policy fifo && setattr rtprio 50 || return 1
		;;
	fifo50-private)
		setattr private 1 && setattr policy fifo &&
			setattr rtprio 50 || return 1
		;;
	fifo50-reserve)
		setattr nr_idle_extra 2 && setattr policy fifo &&
			setattr rtprio 50 || return 1
		;;
	fifo50-private-reserve)
		setattr private 1 && setattr nr_idle_extra 2 &&
			setattr policy fifo && setattr rtprio 50 || return 1
		;;
	*) return 1 ;;
	esac
	sleep 1
	echo "wq $COUNT $PERIOD_US" >"$ctl/latency" || return 1
	awk -v v="$1" -v r="$2" '{ print "S " v " " r " " $1 " " $2 }' "$ctl/latency"
}

# timerlat's thread latency, for as long as a workqueue variant runs:
# rtla_timerlat (load.sh); the timerlat tracer read from tracefs when rtla
# fails.
timerlat() { # ROUND
	secs=$(((COUNT * PERIOD_US + 999999) / 1000000))
	rtla_timerlat "$1" "$secs" && return
	echo "V timerlat50 $1 note: rtla timerlat failed ($(grep -v '^ *$' /tmp/timerlat 2>/dev/null | head -n 3 | tr '\n' ' ')); the timerlat tracer from tracefs"
	grep -qw timerlat "$tracefs/available_tracers" 2>/dev/null ||
		{ echo "V timerlat50 $1 skipped: no timerlat tracer"; return; }
	echo 0 >"$tracefs/tracing_on"
	echo >"$tracefs/trace"
	echo timerlat >"$tracefs/current_tracer"
	echo "$PERIOD_US" >"$tracefs/osnoise/timerlat_period_us"
	for p in $(ps -o pid,comm 2>/dev/null | awk '$2 ~ /^timerlat\// { print $1 }'); do
		chrt -f -p 50 "$p" >/dev/null
	done
	echo 1 >"$tracefs/tracing_on"
	sleep "$secs"
	echo 0 >"$tracefs/tracing_on"
	# "... #SEQ context thread timer_latency NS ns"
	awk -v r="$1" '/context +thread +timer_latency/ {
		for (i = 1; i < NF; i++) if ($i == "timer_latency") print "S timerlat50 " r " " $(i + 1) }' \
		"$tracefs/trace"
	grep -q 'LOST.*EVENTS' "$tracefs/trace" && echo "V timerlat50 $1 note: the ring buffer lost events"
	echo nop >"$tracefs/current_tracer"
}

r=1
while [ $r -le "$ROUNDS" ]; do
	order=$(sed -n "${r}p" "$here/order" 2>/dev/null)
	[ -n "$order" ] || order=$VARIANTS
	echo "O $r $order"
	for v in $order; do
		case $v in
		kthread50)
			echo "kthread $COUNT $PERIOD_US" >"$ctl/latency" &&
				awk -v r=$r '{ print "S kthread50 " r " " $1 " " $2 }' "$ctl/latency"
			;;
		timerlat50)
			timerlat $r
			;;
		cyclictest50)
			# a reference, not the floor: it measures to the return to
			# user space. -v: one line per cycle "thread: cycle: us"
			cyclictest -m -q -p 50 -i "$PERIOD_US" -l "$COUNT" -v 2>/dev/null |
				awk -F: -v r=$r 'NF == 3 && $2 + 0 > 0 { print "S cyclictest50 " r " " ($3 * 1000) }'
			;;
		*)
			variant $v $r || echo "V $v $r skipped: attribute missing or refused on this kernel"
			;;
		esac
	done
	r=$((r + 1))
done

reset_wq
stop_load
# the kernel may have changed clocksource since the start (tsc-early)
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
