#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-reaction): wqrtd's reaction time. The
# module wqrt_spawn (staged next to this script) makes RATE workqueues with
# a rescuer per second for DURATION seconds, each destroyed LIFETIME_MS
# later, so RATE new kworkers "kworker/R-ws<hex>" a second; a fresh wqrtd
# --timing for each mode and rate writes, for each of them, the kernel's
# fork timestamp and the time it had verified its policy. Modes:
#   kworker  [kworker:kworker/R-ws*]: wqrtd sets each rescuer by name
#            (the only way on plain 6.12; tuned's way)
#   wq       [wq:ws???] on workqueues in sysfs (WQ_SYSFS), kernels with
#            the series only: wqrtd writes the workqueue's policy on its
#            uevent, the kernel gives it to the rescuer, wqrtd verifies it
# Prints:
#   I ...                                    the environment
#   T MODE RATE ROUND PID FORK_NS DONE_NS RESULT COMM   wqrtd --timing
#   X MODE RATE ROUND key value ...          the module's and wqrtd's figures
#   L MODE RATE ROUND line                   wqrtd's warnings and errors
#   V MODE RATE ROUND skipped: why

RATES=${RATES:-10 100 1000}
DURATION=${DURATION:-10}
LIFETIME_MS=${LIFETIME_MS:-1000}
ROUNDS=${ROUNDS:-1}
MODES=${MODES:-kworker wq}
RTPRIO=30
ko=/wqrt/wqrt_spawn.ko
par=/sys/module/wqrt_spawn/parameters

[ -f "$ko" ] || { echo "E no $ko"; exit 1; }
command -v wqrtd >/dev/null || { echo "E wqrtd is not on PATH"; exit 1; }
series=0
ls /sys/devices/virtual/workqueue/*/policy >/dev/null 2>&1 && series=1
# USER_HZ, the unit of utime and stime: 100 on x86_64 and arm64
hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
echo "I kernel $(uname -r) vcpus $(nproc) series $series clk_tck $hz"
echo "I rates $RATES duration_s $DURATION lifetime_ms $LIFETIME_MS rounds $ROUNDS modes $MODES"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)"

conf=/tmp/reaction.conf
log=/tmp/reaction.log

ticks() { # PID: utime + stime, in clock ticks
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

run() { # MODE RATE ROUND
	mode=$1 rate=$2 round=$3 sysfs=0
	case "$mode" in
	kworker)
		printf '[kworker:kworker/R-ws*]\npolicy = fifo\nrtprio = %s\n' $RTPRIO >"$conf"
		;;
	wq)
		if [ $series = 0 ]; then
			echo "V $mode $rate $round skipped: no policy attribute (kernel without the series)"
			return
		fi
		printf '[wq:ws???]\npolicy = fifo\nrtprio = %s\n' $RTPRIO >"$conf"
		sysfs=1
		;;
	esac
	chmod 0644 "$conf"
	rm -f /tmp/timing
	wqrtd --foreground -c "$conf" --timing /tmp/timing >"$log" 2>&1 &
	dpid=$!
	# listening once it has scanned (READY): its notice comes first
	i=0
	while ! grep -q "mode:" "$log" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	sleep 1
	t0=$(ticks $dpid)
	up0=$(awk '{ print $1 }' /proc/uptime)
	# DURATION seconds, however many that is when the rate cannot be kept
	if ! insmod "$ko" rate="$rate" count=$((rate * DURATION)) \
		max_ms=$((DURATION * 1000)) lifetime_ms="$LIFETIME_MS" sysfs=$sysfs; then
		echo "V $mode $rate $round skipped: insmod wqrt_spawn failed"
		kill -TERM $dpid
		wait $dpid
		return
	fi
	i=0
	while [ "$(cat $par/done)" != 1 ] && [ $i -lt $((DURATION * 20 + 600)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
	# what is left in flight (the last retries, a rescan)
	sleep 1
	t1=$(ticks $dpid)
	up1=$(awk '{ print $1 }' /proc/uptime)
	hwm=$(awk '$1 == "VmHWM:" { print $2 }' /proc/$dpid/status)
	rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$dpid/status)
	echo "X $mode $rate $round done $(cat $par/done) spawned $(cat $par/spawned) failed $(cat $par/failed) late $(cat $par/late) elapsed_ms $(cat $par/elapsed_ms) cpu_ticks $((t1 - t0)) wall_s $(awk -v a="$up0" -v b="$up1" 'BEGIN { print b - a }') hwm_kb $hwm rss_kb $rss pending_full $(grep -c 'rescanning instead' "$log") overruns $(grep -c 'events lost' "$log")"
	rmmod wqrt_spawn
	kill -TERM $dpid
	wait $dpid
	awk -v p="T $mode $rate $round" '{ print p, $0 }' /tmp/timing
	# notices have no level prefix on stderr: the rescans by their text
	grep -E "rescan|warning:|error:|critical:" "$log" | head -n 20 |
		awk -v p="L $mode $rate $round" '{ print p, $0 }'
}

for r in $(seq 1 "$ROUNDS"); do
	for m in $MODES; do
		for rate in $RATES; do
			run "$m" "$rate" "$r"
		done
	done
done
echo "I end"
