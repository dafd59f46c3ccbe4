#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-imu): seed 004's IMU-over-UART case. The
# VM's third 16550, ttyS2, in loopback carries a stream of 32-byte frames,
# one per period, from a SCHED_FIFO writer to a SCHED_FIFO reader
# (imu_uart, built on the host and staged next to this script), under the
# same load as vm-latency.sh, for each setting of the 8250's flip buffer
# workqueue ttyS-serial_8250; ROUNDS rounds, the variants in a new random order
# each round. Prints:
#   I ...                         the environment
#   O ROUND VARIANT...            the order of a round
#   F VARIANT ROUND SEQ WRITER_LATE_NS LATENCY_NS   one line per frame
#   X VARIANT ROUND frames N received N lost N ...  per run
#   W VARIANT ROUND ATTR=VALUE... the workqueue as the run saw it
#   T VARIANT ROUND NS            queue_work -> flush_to_ldisc start, per
#                                 work item, when the kernel has the events
#   V VARIANT ROUND skipped: why  a variant this kernel refuses

COUNT=${COUNT:-1000}
PERIOD_US=${PERIOD_US:-10000}
ROUNDS=${ROUNDS:-5}
# The writer, the reader and, in the fifo variants, the workqueue share
# one CPU, as an IMU application and its UART would on a small board.
CPU=${CPU:-0}
WPRIO=${WPRIO:-40}
RPRIO=${RPRIO:-30}
VARIANTS=${VARIANTS:-default nice-20 fifo20-cpu0 fifo20-cpu0-private-reserve}
UART=${UART:-/dev/ttyS2}
wq=/sys/devices/virtual/workqueue/ttyS-serial_8250
imu=/wqrt/imu_uart
tracefs=/sys/kernel/tracing

ncpu=$(nproc)
[ -x "$imu" ] || { echo "E no $imu"; exit 1; }
[ -d "$wq" ] || { echo "E no $wq: kernel without the tty flip workqueue patch"; exit 1; }
[ -c "$UART" ] || { echo "E no $UART"; exit 1; }
[ "$(cat "/sys/class/tty/${UART#/dev/}/type" 2>/dev/null || echo 0)" -gt 0 ] ||
	{ echo "E no UART behind $UART"; exit 1; }
echo "I kernel $(uname -r) vcpus $ncpu frames $COUNT period_us $PERIOD_US rounds $ROUNDS"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I frame 32 bytes through $UART in loopback at 115200 baud (8250, 16550A FIFO)"
echo "I writer SCHED_FIFO $WPRIO, reader SCHED_FIFO $RPRIO, both on CPU $CPU; ttyS2 irq $(cat "/sys/class/tty/${UART#/dev/}/irq" 2>/dev/null)"
echo "I ttyS-serial_8250 at boot: $(for a in policy rtprio nice cpumask; do printf '%s=%s ' $a "$(cat "$wq/$a" 2>/dev/null || echo -)"; done)"

# queue_work -> flush_to_ldisc start from the trace events, when the
# kernel has them.
tracing=0
[ -d "$tracefs/events" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
if [ -d "$tracefs/events/workqueue/workqueue_execute_start" ]; then
	tracing=1
	echo mono >"$tracefs/trace_clock"
	echo 8192 >"$tracefs/buffer_size_kb"
	echo "I trace: workqueue_queue_work/workqueue_execute_start, clock mono"
else
	echo "I trace: no workqueue trace events in this kernel (CONFIG_EVENT_TRACING off), no queue_work -> flush_to_ldisc figures"
fi

trace_on() {
	[ $tracing = 1 ] || return 0
	echo 0 >"$tracefs/tracing_on"
	echo >"$tracefs/trace"
	for e in workqueue_queue_work workqueue_execute_start; do
		echo 1 >"$tracefs/events/workqueue/$e/enable"
	done
	echo 1 >"$tracefs/tracing_on"
}

trace_off() { # VARIANT ROUND: T lines for every flush_to_ldisc of ttyS-serial_8250
	[ $tracing = 1 ] || return 0
	echo 0 >"$tracefs/tracing_on"
	for e in workqueue_queue_work workqueue_execute_start; do
		echo 0 >"$tracefs/events/workqueue/$e/enable"
	done
	# "<comm>-<pid> [cpu] flags secs.usecs: event: ..."; a work item is
	# queued once while pending, so a queue and the next start of the same
	# work struct pair up.
	awk -v v="$1" -v r="$2" '
	function ts(   i) {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				return substr($i, 1, length($i) - 1)
		return -1
	}
	/workqueue_queue_work:/ && / workqueue=ttyS-serial_8250 / && / function=flush_to_ldisc / {
		w = $0; sub(/.*work struct=/, "", w); sub(/ .*/, "", w)
		q[w] = ts()
		next
	}
	/workqueue_execute_start:/ && /function flush_to_ldisc/ {
		w = $0; sub(/.*work struct /, "", w); sub(/:.*/, "", w)
		if (w in q) {
			printf "T %s %s %.0f\n", v, r, (ts() - q[w]) * 1e9
			delete q[w]
		}
	}' "$tracefs/trace"
	if grep -q 'LOST.*EVENTS' "$tracefs/trace"; then
		echo "I trace $1 $2: the ring buffer lost events"
	fi
	echo >"$tracefs/trace"
}

# The load, as in every latency benchmark (load.sh).
. "$(dirname "$0")/load.sh"
start_load

orig_cpumask=$(cat "$wq/cpumask")
why=

setattr() { # ATTR VALUE: false, with the reason in $why, when refused
	if [ ! -e "$wq/$1" ]; then
		why="no attribute $1"
		return 1
	fi
	why=$( { echo "$2" >"$wq/$1"; } 2>&1) && return 0
	why="writing $2 to $1 refused: ${why:-error}"
	return 1
}

reset_wq() {
	for kv in policy=normal nr_idle_extra=0 private=0 nice=0 cpumask=$orig_cpumask; do
		[ -e "$wq/${kv%%=*}" ] && echo "${kv#*=}" >"$wq/${kv%%=*}" 2>/dev/null
	done
}

cpumask=$(printf '%x' $((1 << CPU)))

configure() { # VARIANT
	case "$1" in
	default) ;;
	nice-20) setattr nice -20 ;;
	fifo20-cpu0)
		setattr policy fifo && setattr rtprio 20 &&
			setattr cpumask "$cpumask"
		;;
	fifo20-cpu0-private-reserve)
		setattr private 1 && setattr nr_idle_extra 2 &&
			setattr policy fifo && setattr rtprio 20 &&
			setattr cpumask "$cpumask"
		;;
	*) why="unknown variant"; false ;;
	esac
}

r=1
while [ "$r" -le "$ROUNDS" ]; do
	# run.sh draws the orders from a recorded seed (./order beside this
	# script); without it, shuf
	order=$(sed -n "${r}p" "$(dirname "$0")/order" 2>/dev/null)
	[ -n "$order" ] || order=$(for v in $VARIANTS; do echo "$v"; done | shuf | xargs)
	echo "O $r $order"
	for v in $order; do
		reset_wq
		if ! configure "$v"; then
			echo "V $v $r skipped: $why"
			continue
		fi
		# let the pool's kworkers come up with the new attributes
		sleep 1
		printf 'W %s %s ' "$v" "$r"
		for a in policy rtprio nice private nr_idle_extra cpumask pool_ids; do
			printf '%s=%s ' $a "$(cat "$wq/$a" 2>/dev/null | xargs | tr ' ' ,)"
		done
		echo
		trace_on
		"$imu" -n "$COUNT" -p "$PERIOD_US" -c "$CPU" -w "$WPRIO" -r "$RPRIO" \
			-t "$v $r" "$UART" || echo "V $v $r skipped: imu_uart failed ($?)"
		trace_off "$v" "$r"
	done
	r=$((r + 1))
done
reset_wq
stop_load
# the kernel may have changed clocksource since the start (tsc-early)
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
