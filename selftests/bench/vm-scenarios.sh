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
# and, once per round after the latency variants, worker creation: BURST_K
# items at once, each sleeping 2 ms, queued from a FIFO 50 kthread with
# interrupts off from the stamp to queue_work(), on private fifo 50
# workqueues (wqrt_bench_c0..3 without a reserve, c4..7 with nr_idle_extra
# BURST_K): the first burst after CULL_WAIT seconds idle (past the idle
# cull, IDLE_WORKER_TIMEOUT 300 s), then BURST_WARM bursts 50 ms apart. On
# a kernel without the series: one default-attribute workqueue (c0, the
# pool every unbound workqueue shares), its kworkers chrt'ed by wqrtd.
#
# Prints the lines of vm-latency.sh (I, O, S, H, B, V) and:
#   S VARIANT ROUND NS TIMER_NS POLICY AGE_NS   POLICY of the task that ran
#                              the item, AGE_NS since it was created
#   B VARIANT ROUND NS POLICY AGE_NS
#   P VARIANT ROUND WQ POOL_IDS   the pools of a workqueue as it ran
#   W VARIANT ROUND WQ BEFORE AFTER IDLE_S   the workers of its pools
#                              before the first burst and after the last
#                              one, and how long they had been idle (fewer
#                              workers BEFORE than the last AFTER: culled)
#   K VARIANT ROUND PID FORK_NS DONE_NS RESULT COMM   wqrtd --timing: a kworker
#                              forked while wqrtd ran, and when its FIFO
#                              policy was verified
# The settings are the first lines, which run.sh rewrites.

COUNT=5000
PERIOD_US=1000
ROUNDS=5
VARIANTS="default fifo50"
BURST_K=8
BURST_WARM=5
CULL_WAIT=310
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
echo "I scenarios: hog cpu $HOG_CPU on_us $HOG_ON_US off_us $HOG_OFF_US; flood items $FLOOD_ITEMS spin_us $FLOOD_SPIN_US period_us $FLOOD_PERIOD_US; burst k $BURST_K warm $BURST_WARM cull_wait_s $CULL_WAIT"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I rtla $(command -v rtla >/dev/null && rtla --help 2>&1 | sed -n 's/^rtla version //p' | head -n 1 || echo missing)"
echo "I wqrtd $(command -v wqrtd >/dev/null && echo present || echo missing)"
[ -e "$tracefs/tracing_on" ] || mount -t tracefs nodev "$tracefs" 2>/dev/null
mask=$(printf '%x' $((1 << HOG_CPU)))

. "$here/load.sh"
start_load

setattr() { # WQ ATTR VALUE: fails the variant when the kernel refuses
	[ -e "$wqdir/$1/$2" ] || return 1
	echo "$3" >"$wqdir/$1/$2" 2>/dev/null
}

reset_wq() { # WQ
	if [ $series = 1 ]; then
		setattr "$1" policy normal
		setattr "$1" nr_idle_extra 0
		setattr "$1" private 0
	fi
	setattr "$1" nice 0
	setattr "$1" cpumask "$(printf '%x' $(((1 << ncpu) - 1)))"
}

pools() { # VARIANT ROUND WQ: a P line
	echo "P $1 $2 $3 $(cat "$wqdir/$3/pool_ids" 2>/dev/null || echo none)"
}

workers() { # WQ: the kworkers of its pools (every unbound one without pool_ids)
	if [ -e "$wqdir/$1/pool_ids" ]; then
		ids=$(tr ' ' '\n' <"$wqdir/$1/pool_ids" | sed 's/.*://' | paste -sd'|')
		cat /proc/[0-9]*/comm 2>/dev/null | grep -cE "^kworker/u($ids):"
	else
		cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^kworker/u'
	fi
}

# wqrtd in [kworker:] mode, every unbound kworker fifo 50, its --timing
# file for the window of a new kworker still SCHED_NORMAL.
wqrtd_pid=
wqrtd_start() {
	command -v wqrtd >/dev/null || return 1
	printf '[kworker:kworker/u*]\npolicy = fifo\nrtprio = 50\n' >/tmp/chrt.conf
	chmod 0644 /tmp/chrt.conf
	rm -f /tmp/timing
	wqrtd --foreground -c /tmp/chrt.conf --timing /tmp/timing >/tmp/wqrtd.log 2>&1 &
	wqrtd_pid=$!
	_i=0
	while ! grep -q "mode:" /tmp/wqrtd.log 2>/dev/null && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	sleep 1
	kill -0 $wqrtd_pid 2>/dev/null
}

wqrtd_stop() { # VARIANT ROUND
	[ -n "$wqrtd_pid" ] || return 0
	kill -TERM $wqrtd_pid 2>/dev/null
	wait $wqrtd_pid 2>/dev/null
	wqrtd_pid=
	awk -v v="$1" -v r="$2" '{ print "K " v " " r " " $0 }' /tmp/timing 2>/dev/null
	grep -E "warning:|error:|critical:" /tmp/wqrtd.log | head -n 5 |
		sed "s/^/V $1 $2 note: wqrtd: /"
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
		wqrtd_start || { wqrtd_stop "$1" "$2"; return 1; }
		latency wq "$1" "$2"
		wqrtd_stop "$1" "$2"
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

# Worker creation. With the series: c0..3 without a reserve, c4..7 with
# one, all private (a pool each, so that every workqueue gives one burst
# after its own cull) and fifo 50. Without: c0 alone, default attributes.
if [ $series = 1 ]; then
	cwqs="wqrt_bench_c0 wqrt_bench_c1 wqrt_bench_c2 wqrt_bench_c3 wqrt_bench_c4 wqrt_bench_c5 wqrt_bench_c6 wqrt_bench_c7"
	for c in $cwqs; do
		case $c in
		*c[0-3]) res=0 ;;
		*) res=$BURST_K ;;
		esac
		setattr $c private 1 && setattr $c nr_idle_extra $res &&
			setattr $c policy fifo && setattr $c rtprio 50 ||
			echo "V burst 0 note: $c refused its attributes"
	done
else
	cwqs=wqrt_bench_c0
fi
burst_name() { # WQ
	if [ $series = 0 ]; then
		echo chrt-burst
	else
		case $1 in
		*c[0-3]) echo burst-r0 ;;
		*) echo "burst-r$BURST_K" ;;
		esac
	fi
}
burst() { # WQ NAME ROUND N
	echo "$BURST_K $4 $1" >"$ctl/burst" &&
		awk -v v="$2" -v r="$3" '{ print "B " v " " r " " $0 }' "$ctl/burst"
}
# the first burst of each pool: it grows, and from here on only a cull
# takes its workers away again
for c in $cwqs; do
	burst $c "$(burst_name $c)-first" 0 1
	eval "left_$(echo $c | tr -c 'a-z0-9\n' _)=$(workers $c)"
done
last_burst=$(awk '{ print int($1) }' /proc/uptime)

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
	reset_wq wqrt_bench
	reset_wq wqrt_bench_nb
	# past the idle cull of every burst pool: IDLE_WORKER_TIMEOUT, and
	# then the idle timer, a 300 s timer in the timer wheel's level of
	# 32768-jiffy granularity (HZ=1000), may fire up to about 33 s late,
	# and once more if it had to be re-armed; so from CULL_WAIT on, wait
	# until every burst pool has fewer workers than the bursts left it
	# with (the cull happened), for at most 120 s more
	now=$(awk '{ print int($1) }' /proc/uptime)
	[ $((now - last_burst)) -ge "$CULL_WAIT" ] ||
		sleep $((CULL_WAIT - (now - last_burst)))
	while :; do
		culled=1
		for c in $cwqs; do
			left=0
			eval "left=\${left_$(echo $c | tr -c 'a-z0-9\n' _):-0}"
			[ "$(workers $c)" -lt "$left" ] || culled=0
		done
		now=$(awk '{ print int($1) }' /proc/uptime)
		[ $culled = 1 ] && break
		[ $((now - last_burst)) -lt $((CULL_WAIT + 120)) ] || break
		sleep 5
	done
	idle_s=$((now - last_burst))
	[ $series = 1 ] || wqrtd_start || echo "V chrt-burst $r note: no wqrtd, kworkers not chrt'ed"
	for c in $cwqs; do
		name=$(burst_name $c)
		pools "$name" $r $c
		before=$(workers $c)
		burst $c "$name-culled" $r 1
		sleep 0.05
		burst $c "$name-warm" $r "$BURST_WARM"
		after=$(workers $c)
		eval "left_$(echo $c | tr -c 'a-z0-9\n' _)=$after"
		echo "W $name $r $c $before $after $idle_s"
	done
	[ $series = 1 ] || wqrtd_stop chrt-burst $r
	last_burst=$(awk '{ print int($1) }' /proc/uptime)
	r=$((r + 1))
done
stop_load
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
