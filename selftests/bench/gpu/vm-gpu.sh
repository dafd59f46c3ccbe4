#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-gpu): the GPU case on vkms. vkms's vblank
# hrtimer (vkms_vblank_simulate) queues vkms_composer_worker on the ordered
# workqueue vkms_composer at every vblank while CRC capture is on; the
# worker composes the planes and adds the frame's CRC. vkms_frames (built
# on the host, staged beside this script) sets a SIZE mode at each rate,
# keeps the CRTC lit and drains the CRCs; the trace events give every
# vblank's programmed time (hrtimer_start's expiry), when the timer
# callback ran (hrtimer_expire_entry), when the work was queued, and when
# the composition that covered that vblank started and ended
# (workqueue_execute_start/_end of vkms_composer_worker). Each run is
# VARIANT-HZ; ROUNDS rounds, each in the order of its line in ./order
# (run.sh draws it from a recorded seed), under CPU load (load.sh) and a
# memory load (vkms_frames -m). Prints:
#   I ...                          the environment
#   O ROUND RUN...                 the order of a round
#   W RUN ROUND ATTR=VALUE...      vkms_composer as the run saw it, and
#                                  each ksoftirqd's pid:policy/rtprio
#   F RUN ROUND K CB S E Q N       one line per vblank K of the run, in us
#                                  from its programmed time: CB the timer
#                                  callback ran, S and E the composition
#                                  that covered it started and ended, Q
#                                  queue_work() to S (-1: this vblank's
#                                  queue_work() found the work still
#                                  pending), N vblanks that composition
#                                  covered (more than 1: a vblank came
#                                  before the composition started)
#   R RUN ROUND key value...       per run: the period, the vblanks traced,
#                                  skipped (timer overruns), unfinished at
#                                  the end of the window, compositions
#   K RUN ROUND PID POLICY RTPRIO NICE   the kworkers that ran the worker
#   C RUN ROUND ...                vkms_frames' own line
#   V RUN ROUND skipped: why       a run that could not be made
# The settings are the first lines, which run.sh rewrites.

ROUNDS=5
RUNS="default-60 fifo50-60 default-sirq50-60 fifo50-sirq50-60 default-240 fifo50-240 default-sirq50-240 fifo50-sirq50-240"
DURATION=12
SIZE=160x120
MEMHOG_MB=64

wq=/sys/devices/virtual/workqueue/vkms_composer
tracefs=/sys/kernel/tracing
here=$(dirname "$0")
frames=$here/vkms_frames
card=/dev/dri/card0

[ -x "$frames" ] || { echo "E no $frames"; exit 1; }
[ -c "$card" ] || { echo "E no $card: kernel without DRM/vkms"; exit 1; }
[ -d "$wq" ] || { echo "E no $wq: booted without workqueue.sysfs=vkms_composer, or a kernel without it"; exit 1; }
[ -e "$wq/policy" ] || { echo "E $wq has no policy: kernel without the series"; exit 1; }
[ -e "$tracefs/tracing_on" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
[ -d "$tracefs/events/workqueue/workqueue_execute_end" ] &&
	[ -d "$tracefs/events/timer/hrtimer_expire_entry" ] ||
	{ echo "E no workqueue or timer trace events"; exit 1; }

ncpu=$(nproc)
echo "I kernel $(uname -r) vcpus $ncpu rounds $ROUNDS duration_s $DURATION size $SIZE memhog_mb $MEMHOG_MB"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I vkms_composer at boot: $(for a in policy rtprio nice cpumask max_active pool_ids; do printf '%s=%s ' $a "$(cat "$wq/$a" 2>/dev/null | xargs | tr ' ' ,)"; done)"
echo "I workqueue.sysfs=$(cat /sys/module/workqueue/parameters/sysfs 2>/dev/null)"

echo 0 >"$tracefs/tracing_on"
echo mono >"$tracefs/trace_clock"
echo 8192 >"$tracefs/buffer_size_kb"
echo >"$tracefs/trace"
# Only the vkms timer's and the composer's events: filtered in the kernel
# by function (the .function filter resolves a symbol)
filter() { # EVENT_DIR FUNCTION
	if echo "function.function == $2" >"$tracefs/events/$1/filter" 2>/dev/null; then
		echo "I filter $1: $(cat "$tracefs/events/$1/filter")"
	else
		echo "I filter $1: refused, unfiltered (the reduction below still picks $2)"
	fi
}
filter timer/hrtimer_start vkms_vblank_simulate
filter timer/hrtimer_expire_entry vkms_vblank_simulate
for e in workqueue_queue_work workqueue_execute_start workqueue_execute_end; do
	filter workqueue/$e vkms_composer_worker
done
events="timer/hrtimer_start timer/hrtimer_expire_entry workqueue/workqueue_queue_work workqueue/workqueue_execute_start workqueue/workqueue_execute_end"

# per vblank: its programmed time (the expiry of the last hrtimer_start
# of vkms's timer), the callback, the queue, the composition covering it
# (the first to start after the callback: the worker reads frame_end
# after it starts), its end. Trace timestamps are mono us; the expiry is
# mono ns.
reduce() { # RUN ROUND PERIOD_NS
	awk -v run="$1" -v r="$2" -v p="$3" '
	function ts(   i) {
		for (i = 1; i <= NF; i++)
			if ($i ~ /^[0-9]+\.[0-9]+:$/)
				return substr($i, 1, length($i) - 1) * 1000000
		return -1
	}
	/ hrtimer_start: / && /function=vkms_vblank_simulate / {
		e = $0; sub(/.* expires=/, "", e); sub(/ .*/, "", e)
		xp = e / 1000
		next
	}
	/ hrtimer_expire_entry: / && /function=vkms_vblank_simulate / {
		if (xp == "")
			next
		k++
		E[k] = xp; C[k] = ts(); Q[k] = -1
		pend[np++] = k
		# a callback later than a period forwards the timer past
		# the vblanks it missed: those vblanks never came
		if (pe != "" && p > 0 && xp > pe)
			skipped += int((xp - pe) * 1000 / p + 0.5) - 1
		pe = xp; last = k
		next
	}
	/ workqueue_queue_work: / && /function=vkms_composer_worker / {
		if (last)
			Q[last] = ts()
		next
	}
	/ workqueue_execute_start: / && /function vkms_composer_worker/ {
		s = ts(); nc = 0
		for (i = 0; i < np; i++)
			cur[nc++] = pend[i]
		np = 0; running = 1
		pid = $1; sub(/.*-/, "", pid); pids[pid] = 1
		next
	}
	/ workqueue_execute_end: / && /function vkms_composer_worker/ {
		if (!running)
			next
		d = ts(); running = 0
		if (nc)
			comps++
		for (i = 0; i < nc; i++) {
			j = cur[i]
			printf "F %s %s %d %.0f %.0f %.0f %.0f %d\n", run, r, j,
				C[j] - E[j], s - E[j], d - E[j],
				(Q[j] >= 0 ? s - Q[j] : -1), nc
			done++
		}
		nc = 0
		next
	}
	END {
		printf "R %s %s period_ns %d vblanks %d composed %d skipped %d unfinished %d compositions %d\n",
			run, r, p, k, done, skipped, np + nc, comps
		for (q in pids)
			print "P " q
	}' "$tracefs/trace"
}

trace_on() {
	echo 0 >"$tracefs/tracing_on"
	echo >"$tracefs/trace"
	for e in $events; do echo 1 >"$tracefs/events/$e/enable"; done
	echo 1 >"$tracefs/tracing_on"
}

trace_off() {
	echo 0 >"$tracefs/tracing_on"
	for e in $events; do echo 0 >"$tracefs/events/$e/enable"; done
}

why=
setattr() { # ATTR VALUE: false, with the reason in $why, when refused
	why=$( { echo "$2" >"$wq/$1"; } 2>&1) && return 0
	why="writing $2 to $1 refused: ${why:-error}"
	return 1
}

# vkms's vblank hrtimer is a soft hrtimer: on 6.12 PREEMPT_RT its
# callback runs in softirq context, in ksoftirqd/N (SCHED_NORMAL) when
# the CPU is busy, so under load the vblank itself comes late. The
# -sirq50 variants make ksoftirqd SCHED_FIFO 50, what a display
# controller's threaded vblank interrupt handler would be on an RT board,
# so that what is left is the workqueue's.
ksoftirqd=$(for p in /proc/[0-9]*; do
	case "$(cat "$p/comm" 2>/dev/null)" in ksoftirqd/*) echo "${p#/proc/}" ;; esac
done | xargs)

sirq_state() { # policy/rtprio of each ksoftirqd
	for p in $ksoftirqd; do
		sed 's/.*) //' "/proc/$p/stat" | awk -v p="$p" '{ printf "%s:%s/%s,", p, $39, $38 }'
	done
}

reset_wq() {
	echo normal >"$wq/policy" 2>/dev/null
	echo 0 >"$wq/nice" 2>/dev/null
	# shellcheck disable=SC2086 # one pid a word
	"$frames" -P 0 $ksoftirqd
}

configure() { # VARIANT
	case "$1" in
	*-sirq50)
		# shellcheck disable=SC2086 # one pid a word
		why=$("$frames" -P 50 $ksoftirqd 2>&1) || return 1
		;;
	esac
	case "${1%-sirq50}" in
	default) ;;
	fifo50) setattr policy fifo && setattr rtprio 50 ;;
	*) why="unknown variant $1"; false ;;
	esac
}

# The load: load.sh's (a nice-0 CPU hog per vCPU, a fork loop, a pipe
# stream) and the memory load, all nice 0
. "$here/load.sh"
start_load
"$frames" -m "$MEMHOG_MB" -s 0 &
memhog=$!
echo "I memory load: $MEMHOG_MB MB mapped, written and unmapped in a loop (vkms_frames -m)"
echo "I ksoftirqd (pid:policy/rtprio) at the start: $(sirq_state)"

w=${SIZE%x*} h=${SIZE#*x}
r=1
while [ "$r" -le "$ROUNDS" ]; do
	order=$(sed -n "${r}p" "$here/order" 2>/dev/null)
	[ -n "$order" ] || order=$RUNS
	echo "O $r $order"
	for run in $order; do
		v=${run%-*} hz=${run##*-}
		reset_wq
		if ! configure "$v"; then
			echo "V $run $r skipped: $why"
			continue
		fi
		# the pool's kworkers come up with the new attributes
		sleep 1
		printf 'W %s %s ' "$run" "$r"
		for a in policy rtprio nice cpumask pool_ids; do
			printf '%s=%s ' $a "$(cat "$wq/$a" 2>/dev/null | xargs | tr ' ' ,)"
		done
		echo "ksoftirqd=$(sirq_state)"
		"$frames" -W "$w" -H "$h" -r "$hz" -s $((DURATION + 3)) >/tmp/frames.out 2>&1 &
		fp=$!
		# the mode set and the first compositions, then the window
		sleep 2
		trace_on
		sleep "$DURATION"
		trace_off
		wait $fp
		rc=$?
		sed "s/^/C $run $r /" /tmp/frames.out
		[ $rc = 0 ] || echo "V $run $r skipped: vkms_frames failed ($rc)"
		period=$(sed -n 's/.*: \([0-9]*\) ns a frame.*/\1/p' /tmp/frames.out)
		reduce "$run" "$r" "${period:-0}" >/tmp/reduced
		grep -v '^P ' /tmp/reduced
		for pid in $(sed -n 's/^P //p' /tmp/reduced); do
			s=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || { echo "K $run $r $pid gone"; continue; }
			echo "$s" | awk -v p="$pid" -v run="$run" -v r="$r" \
				'{ print "K", run, r, p, "policy", $39, "rtprio", $38, "nice", $17 }'
		done
		if grep -q 'LOST.*EVENTS' "$tracefs/trace"; then
			echo "I trace $run $r: the ring buffer lost events"
		fi
		echo >"$tracefs/trace"
	done
	r=$((r + 1))
done
reset_wq
kill "$memhog" 2>/dev/null
stop_load
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I done"
exit 0
