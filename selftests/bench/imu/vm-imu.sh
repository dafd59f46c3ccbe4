#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-imu): seed 004's IMU-over-UART case. The
# VM's third 16550, ttyS2, in loopback carries a stream of FRAME_LEN-byte
# frames, one per period, from a SCHED_FIFO writer to a SCHED_FIFO reader
# (imu_uart, built on the host and staged next to this script), under the
# same load as vm-latency.sh, for each setting of the 8250's flip buffer
# workqueue ttyS-serial_8250 (or of the kworkers); ROUNDS rounds, the
# variants in a new random order each round. Prints:
#   I ...                         the environment
#   O ROUND VARIANT...            the order of a round
#   F VARIANT ROUND SEQ WRITER_LATE_NS LATENCY_NS   one line per frame
#   X VARIANT ROUND frames N received N lost N ...  per run
#   W VARIANT ROUND ATTR=VALUE... the workqueue and the threads as the run
#                                 saw them
#   T VARIANT ROUND NS QCPU XCPU  queue_work -> flush_to_ldisc start, per
#                                 work item, the CPU that queued it (the
#                                 UART's IRQ thread) and the one that ran
#                                 it, when the kernel has the events
#   D VARIANT ROUND NS WAKE_NS SWITCH_NS TASK PREEMPTED_NS BLOCKED_NS
#                                 a start over 10 ms late: when the worker
#                                 that ran it was first woken and last
#                                 switched in, from the queueing, how long it
#                                 was off the CPU since: preempted (R) or
#                                 asleep (blocked, e.g. creating a worker)
#   B VARIANT ROUND NS CPU TASK,PRIO,NS...
#                                 with SWITCHES=all, for each D line:
#                                 what ran on the CPU the work started
#                                 on, from the queueing to the start
#   S VARIANT ROUND NS TASK WHERE,COUNT...
#                                 and where the timer interrupts of
#                                 that time found imu_uart's threads
#   V VARIANT ROUND skipped: why  a variant this kernel refuses
#   H timerlat50 ROUND US COUNT   after each round, rtla timerlat at FIFO 50
#                                 for TIMERLAT_S s at the same period on
#                                 every CPU: the floor (load.sh)
#
# Variants:
#   default          the workqueue as the kernel makes it
#   nice-20-pin      nice -20, cpumask the IRQ thread's CPU: what
#                    mainline's flip workqueue (7.1, WQ_SYSFS) offers, the
#                    seed's own first fix
#   tuned-fifo20     every unbound kworker (kworker/u*) chrt'ed SCHED_FIFO
#                    20 by name just before the run, as tuned's scheduler
#                    plugin does on a stock kernel; put back after it
#   wqrt             policy fifo, rtprio 20, private 1, nr_idle_extra 2,
#                    every CPU: the series, everything else CFS
#   wqrt-pin         the same, cpumask the IRQ thread's CPU
#   seed-fifo20-pin  policy fifo, rtprio 20, cpumask the IRQ thread's
#                    CPU, nothing else: the recipe that fixed seed 004's
#                    IMU (FIFO 20 bound to the CPUs of the port's IRQ)
#   shipped          what conf/conf.d/50-uart-imu.conf sets once
#                    uncommented, read from the file by run.sh (SHIPPED:
#                    ATTR=VALUE..., cpumask=irq the CPUs of the port's
#                    interrupt, as its "cpumask = irq:NAME" resolves)

COUNT=${COUNT:-1500}
PERIOD_US=${PERIOD_US:-1000}
FRAME_LEN=${FRAME_LEN:-8}
ROUNDS=${ROUNDS:-5}
TIMERLAT_S=${TIMERLAT_S:-2}
# SWITCHES=all: every task's sched_switch traced too, in an instance of
# its own, so that a late start also says what ran on its CPU meanwhile
# (B lines): a tracing cost on every switch, the same in every variant,
# so off unless asked (a stall's diagnosis)
SWITCHES=${SWITCHES:-kworkers}
# FEED=1: the frames come from outside, imu_sender on the host through the
# UART's serial backend (make bench-imu's host-clock mode): no writer, no
# loopback; imu_uart -R prints the gaps at the reader (G lines)
FEED=${FEED:-0}
# The writer and the reader share one CPU, as an IMU application would
# on a small board.
CPU=${CPU:-0}
WPRIO=${WPRIO:-40}
RPRIO=${RPRIO:-30}
VARIANTS=${VARIANTS:-default nice-20-pin tuned-fifo20 seed-fifo20-pin shipped wqrt}
# the shipped profile's attributes (run.sh reads them from the file)
SHIPPED=${SHIPPED:-}
UART=${UART:-/dev/ttyS2}
# on a board: WQ the port's flip workqueue (ttyAMA-ttyAMA for a PL011),
# IMU where imu_uart was built (docs/hardware.md)
wq=/sys/devices/virtual/workqueue/${WQ:-ttyS-serial_8250}
imu=${IMU:-/wqrt/imu_uart}
tracefs=/sys/kernel/tracing

ncpu=$(nproc)
[ -x "$imu" ] || { echo "E no $imu"; exit 1; }
[ -d "$wq" ] || { echo "E no $wq: kernel without the tty flip workqueue patch"; exit 1; }
[ -c "$UART" ] || { echo "E no $UART"; exit 1; }
[ "$(cat "/sys/class/tty/${UART#/dev/}/type" 2>/dev/null || echo 0)" -gt 0 ] ||
	{ echo "E no UART behind $UART"; exit 1; }
irq=$(cat "/sys/class/tty/${UART#/dev/}/irq")
# The IRQ thread of the UART's line (forced threading under PREEMPT_RT;
# ttyS2 shares its line with ttyS0 on a PC) and its CPU: the variants
# that pin the workqueue pin it there.
irqpid=
for d in /proc/[0-9]*; do
	case "$(cat "$d/comm" 2>/dev/null)" in
	"irq/$irq-"*) irqpid=${d#/proc/}; break ;;
	esac
done
irqcpu=$(cut -d, -f1 "/proc/irq/$irq/effective_affinity_list" 2>/dev/null | cut -d- -f1)
[ -n "$irqcpu" ] || irqcpu=$CPU
thread_state() { # PID: comm, policy/prio, allowed CPUs, last CPU
	[ -n "$1" ] && [ -d "/proc/$1" ] || { echo "-"; return; }
	echo "$(cat "/proc/$1/comm"),$(chrt -p "$1" 2>/dev/null | sed -n 's/.*policy: SCHED_\([A-Z]*\).*/\1/p' | tr 'A-Z' 'a-z')/$(chrt -p "$1" 2>/dev/null | sed -n 's/.*priority: //p'),allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status"),last=$(cut -d' ' -f39 "/proc/$1/stat")"
}
echo "I kernel $(uname -r) vcpus $ncpu frames $COUNT period_us $PERIOD_US frame_len $FRAME_LEN rounds $ROUNDS"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I frame $FRAME_LEN bytes through $UART in loopback at 115200 baud (8250, 16550A FIFO)"
echo "I writer SCHED_FIFO $WPRIO, reader SCHED_FIFO $RPRIO, both on CPU $CPU"
echo "I irq $irq effective affinity $(cat "/proc/irq/$irq/effective_affinity_list" 2>/dev/null), thread $(thread_state "$irqpid"); pinned variants: CPU $irqcpu"
echo "I ${WQ:-ttyS-serial_8250} at boot: $(for a in policy rtprio nice cpumask; do printf '%s=%s ' $a "$(cat "$wq/$a" 2>/dev/null || echo -)"; done)"

# queue_work -> flush_to_ldisc start from the trace events, when the
# kernel has them.
tracing=0
[ -d "$tracefs/events" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
if [ -d "$tracefs/events/workqueue/workqueue_execute_start" ]; then
	tracing=1
	echo mono >"$tracefs/trace_clock"
	echo 8192 >"$tracefs/buffer_size_kb"
	echo "I trace: workqueue_queue_work/workqueue_execute_start, clock mono; the kworkers' and the idle task's sched_switch$([ "$SWITCHES" != all ] || echo ", every sched_switch in instance wqrt-imu-switches")"
else
	echo "I trace: no workqueue trace events in this kernel (CONFIG_EVENT_TRACING off), no queue_work -> flush_to_ldisc figures"
fi
# SWITCHES=all: every switch of a run under the load, some ten times the
# kworkers', in a ring of their own, read only after a run with a late
# start (imu-trace.awk's second pass), and the stack of imu_uart's
# threads at every timer interrupt that finds one of them on its CPU
# (where a late start's CPU went: S lines). The trigger is set once, here,
# before the load: the timer event is not among those the init holds, so
# registering it patches kernel text
allsw=$tracefs/instances/wqrt-imu-switches
allsw_trigger='stacktrace if comm == "imu_uart"'
allsw_remove() { # the instance and its trigger go with the script (a board keeps nothing)
	[ -d "$allsw" ] || return 0
	echo "!$allsw_trigger" >"$allsw/events/timer/hrtimer_expire_entry/trigger" 2>/dev/null
	echo 0 >"$allsw/events/sched/sched_switch/enable" 2>/dev/null
	rmdir "$allsw" 2>/dev/null
}
if [ $tracing = 1 ] && [ "$SWITCHES" = all ]; then
	trap allsw_remove EXIT
	mkdir -p "$allsw" && echo mono >"$allsw/trace_clock" &&
		echo 32768 >"$allsw/buffer_size_kb" &&
		echo 1 >"$allsw/events/sched/sched_switch/enable" &&
		echo "$allsw_trigger" >"$allsw/events/timer/hrtimer_expire_entry/trigger" ||
		{ echo "E SWITCHES=all: cannot set up the tracing instance $allsw"; exit 1; }
fi

trace_on() {
	[ $tracing = 1 ] || return 0
	echo 0 >"$tracefs/tracing_on"
	echo >"$tracefs/trace"
	for e in workqueue_queue_work workqueue_execute_start; do
		echo 1 >"$tracefs/events/workqueue/$e/enable"
	done
	# the kworkers' wakeups and switches, and the idle task's, to tell a
	# late start of the work (D lines) into woken late (the workqueue
	# had no worker to wake), asleep, preempted, or woken and waiting for
	# a CPU, and whether that CPU sat idle meanwhile (imu-trace.awk)
	if [ -d "$tracefs/events/sched/sched_wakeup" ]; then
		echo 'comm ~ "kworker/*"' >"$tracefs/events/sched/sched_wakeup/filter"
		echo 'prev_comm ~ "kworker/*" || next_comm ~ "kworker/*" || prev_pid == 0 || next_pid == 0' \
			>"$tracefs/events/sched/sched_switch/filter"
		echo 1 >"$tracefs/events/sched/sched_wakeup/enable"
		echo 1 >"$tracefs/events/sched/sched_switch/enable"
	fi
	if [ "$SWITCHES" = all ]; then
		echo 0 >"$allsw/tracing_on"
		echo >"$allsw/trace"
		echo 1 >"$allsw/tracing_on"
	fi
	echo 1 >"$tracefs/tracing_on"
}

trace_off() { # VARIANT ROUND: T lines for every flush_to_ldisc of the flip workqueue
	[ $tracing = 1 ] || return 0
	echo 0 >"$tracefs/tracing_on"
	[ "$SWITCHES" != all ] || echo 0 >"$allsw/tracing_on"
	for e in workqueue_queue_work workqueue_execute_start; do
		echo 0 >"$tracefs/events/workqueue/$e/enable"
	done
	for e in sched_wakeup sched_switch; do
		[ -d "$tracefs/events/sched/$e" ] || continue
		echo 0 >"$tracefs/events/sched/$e/enable"
		echo 0 >"$tracefs/events/sched/$e/filter"
	done
	rm -f /tmp/imu-windows
	awk -v v="$1" -v r="$2" -v wqname="${WQ:-ttyS-serial_8250}" \
		-v windows="$([ "$SWITCHES" = all ] && echo /tmp/imu-windows)" \
		-f "$(dirname "$0")/imu-trace.awk" "$tracefs/trace"
	if grep -q 'LOST.*EVENTS' "$tracefs/trace"; then
		echo "I trace $1 $2: the ring buffer lost events"
	fi
	echo >"$tracefs/trace"
	# a late start: what ran on its CPU meanwhile, from every switch.
	# Long work (the whole ring), so not at this script's FIFO 1: a
	# preempted RCU reader that RCU boosts to FIFO 1 must get the CPU
	# back (a FIFO 1 awk over every switch held one off for 21 s, an
	# RCU stall, in the first try); nice -20 keeps it ahead of the load
	# (the guest's busybox has renice, not nice)
	if [ -s /tmp/imu-windows ]; then
		chrt -o 0 awk -v pass=ran -v v="$1" -v r="$2" \
			-f "$(dirname "$0")/imu-trace.awk" /tmp/imu-windows "$allsw/trace" &
		renice -20 -p $! >/dev/null
		wait $!
		if grep -q 'LOST.*EVENTS' "$allsw/trace"; then
			echo "I trace $1 $2: the switches' ring buffer lost events"
		fi
	fi
}

# The load, as in every latency benchmark (load.sh).
. "$(dirname "$0")/load.sh"
start_load
# This script's own bookkeeping between runs (settings, printing,
# parsing the trace) above the CFS load, which would otherwise give it a
# third of a vCPU: under -icount every guest second costs several host
# seconds. It waits while a run measures; imu_uart runs SCHED_OTHER.
chrt -f -p 1 $$ 2>/dev/null || echo "I bookkeeping at SCHED_OTHER: chrt -p $$ failed"

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

unbound_kworkers() { # the pids of kworker/u* (tuned's "by name")
	for d in /proc/[0-9]*; do
		case "$(cat "$d/comm" 2>/dev/null)" in
		kworker/u*) echo "${d#/proc/}" ;;
		esac
	done
}

# FEED=1: between the runs something must read the UART, or the guest's
# 8250 stops taking bytes, QEMU stops reading its socket, and the sender
# drops every frame (imu_sender: a frame not taken when due is lost);
# with a reader the stream flows, and a run's reader starts on live
# frames (imu_uart flushes what the tty holds when it opens the port)
drainpid=
drain_start() {
	[ "$FEED" = 1 ] || return 0
	stty -F "$UART" raw -echo 115200 2>/dev/null
	cat "$UART" >/dev/null 2>&1 &
	drainpid=$!
}
drain_stop() {
	[ -n "$drainpid" ] || return 0
	kill "$drainpid" 2>/dev/null
	wait "$drainpid" 2>/dev/null
	drainpid=
}

chrted=
reset_wq() {
	for kv in policy=normal nr_idle_extra=0 private=0 nice=0 cpumask=$orig_cpumask; do
		[ -e "$wq/${kv%%=*}" ] && echo "${kv#*=}" >"$wq/${kv%%=*}" 2>/dev/null
	done
	for p in $chrted; do
		chrt -o -p 0 "$p" 2>/dev/null
	done
	chrted=
}

pinmask=$(printf '%x' $((1 << irqcpu)))
# every CPU of the interrupt's effective affinity, what wqrtd's
# "cpumask = irq:NAME" resolves to
irqmask=0
for c in $(tr ',' ' ' <"/proc/irq/$irq/effective_affinity_list" 2>/dev/null); do
	lo=${c%-*} hi=${c#*-}
	while [ "$lo" -le "$hi" ]; do
		irqmask=$((irqmask | (1 << lo)))
		lo=$((lo + 1))
	done
done
[ "$irqmask" -ne 0 ] || irqmask=$((1 << irqcpu))
irqmask=$(printf '%x' "$irqmask")

configure() { # VARIANT
	case "$1" in
	default) ;;
	nice-20-pin) setattr nice -20 && setattr cpumask "$pinmask" ;;
	tuned-fifo20)
		# after the settling sleep, just before the run (below)
		;;
	wqrt | wqrt-pin)
		setattr private 1 && setattr nr_idle_extra 2 &&
			setattr policy fifo && setattr rtprio 20 || return 1
		[ "$1" = wqrt ] || setattr cpumask "$pinmask"
		;;
	seed-fifo20-pin)
		setattr policy fifo && setattr rtprio 20 && setattr cpumask "$pinmask"
		;;
	shipped)
		[ -n "$SHIPPED" ] || { why="no SHIPPED attributes given"; return 1; }
		for kv in $SHIPPED; do
			val=${kv#*=}
			[ "$kv" != cpumask=irq ] || val=$irqmask
			setattr "${kv%%=*}" "$val" || return 1
		done
		;;
	*) why="unknown variant"; false ;;
	esac
}

kworker_census() { # "N kworker/u*, M of them SCHED_FIFO"
	n=0 f=0
	for p in $(unbound_kworkers); do
		n=$((n + 1))
		chrt -p "$p" 2>/dev/null | grep -q SCHED_FIFO && f=$((f + 1))
	done
	echo "kworker_u=$n,fifo=$f"
}

drain_start
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
		# (half a second: under -icount a guest second of the load
		# costs several host seconds)
		sleep 0.5 2>/dev/null || sleep 1
		if [ "$v" = tuned-fifo20 ]; then
			for p in $(unbound_kworkers); do
				chrt -f -p 20 "$p" 2>/dev/null && chrted="$chrted $p"
			done
		fi
		printf 'W %s %s ' "$v" "$r"
		for a in policy rtprio nice private nr_idle_extra cpumask pool_ids; do
			printf '%s=%s ' $a "$(cat "$wq/$a" 2>/dev/null | xargs | tr ' ' ,)"
		done
		echo "$(kworker_census) irq_thread=$(thread_state "$irqpid")"
		trace_on
		if [ "$FEED" = 1 ]; then
			drain_stop
			chrt -o 0 "$imu" -R -n "$COUNT" -p "$PERIOD_US" -l "$FRAME_LEN" -c "$CPU" \
				-r "$RPRIO" -t "$v $r" "$UART" ||
				echo "V $v $r skipped: imu_uart -R failed ($?)"
			drain_start
		else
			chrt -o 0 "$imu" -n "$COUNT" -p "$PERIOD_US" -l "$FRAME_LEN" -c "$CPU" \
				-w "$WPRIO" -r "$RPRIO" -t "$v $r" "$UART" ||
				echo "V $v $r skipped: imu_uart failed ($?)"
		fi
		trace_off "$v" "$r"
		# the kworkers born during the run stayed SCHED_NORMAL under tuned
		echo "W $v $r after: $(kworker_census) irq_thread=$(thread_state "$irqpid")"
	done
	reset_wq
	if [ "$TIMERLAT_S" -gt 0 ]; then
		rtla_timerlat "$r" "$TIMERLAT_S" || echo "I timerlat round $r: $(tail -n 1 /tmp/timerlat 2>/dev/null || echo "no rtla")"
	fi
	r=$((r + 1))
done
reset_wq
drain_stop
stop_load
# the kernel may have changed clocksource since the start (tsc-early)
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
