#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-burst), on a kernel with the series:
# worker creation. A burst is BURST_K items at once, each sleeping 2 ms,
# queued from a FIFO 50 kthread with interrupts off from each item's
# stamp to its queue_work() (wqrt_bench's burst command); each item's
# stamp to its start is a sample. Three variants, every workqueue with a
# pool of its own (private 1), so that each gives one burst after its own
# idle cull:
#
#   burst-r0     policy fifo, rtprio 50: the series' way (every kworker
#                the pool creates is born FIFO 50), no reserve
#   burst-rK     the same with nr_idle_extra BURST_K (K = BURST_K)
#   burst-chrt   policy normal, its kworkers chrt'ed to FIFO 50 by name
#                once they exist: the stock way (wqrtd's [kworker:]
#                sections, as wqrtd on plain 6.12 or tuned do it), one
#                section per pool, [kworker:kworker/uPOOL:*], so that no
#                other kworker changes; wqrtd runs from before the first
#                bursts to the end
#
# POOLS workqueues per variant in each of two sets (set 1: wqrt_bench_c0..,
# set 2: the next 3 x POOLS), used in alternate rounds: every pool waits
# CULL_WAIT s (past IDLE_WORKER_TIMEOUT, 300 s) between its bursts, and
# the second set's first bursts come CULL_WAIT / 2 s after the first's,
# so that a round comes every CULL_WAIT / 2 s or so. A round: its set
# waits until every one of its pools has been idle CULL_WAIT s and has
# fewer workers than its last bursts left it (the idle cull happened;
# CULL_EXTRA s more at most, then the bursts are -notculled), then each
# of its workqueues in the order of the round's line in ./burst-order
# (run.sh draws it from a recorded seed; slot J is variant J / POOLS)
# gives the first burst after the cull (-culled) and, 50 ms later,
# BURST_WARM warm bursts 50 ms apart (-warm). Before the rounds, each
# workqueue's very first burst (-first) grows its new pool.
#
# Prints:
#   I ...                      the environment and settings
#   O ROUND SET WQ...          the order of a round
#   B VARIANT ROUND NS POLICY AGE_NS   one line per item: stamp to start,
#                              the policy of the task that ran it and how
#                              long ago that task was created
#   P VARIANT ROUND WQ POOL_IDS   the pools of a workqueue as it ran
#   W VARIANT ROUND WQ BEFORE AFTER IDLE_S   the workers of its pools
#                              before the first burst and after the last
#                              one, and how long they had been idle (fewer
#                              workers BEFORE than the last AFTER: culled)
#   K VARIANT ROUND PID FORK_NS DONE_NS RESULT COMM   wqrtd --timing: a
#                              kworker forked while wqrtd ran, and when
#                              its FIFO policy was verified
#   V VARIANT ROUND note: ...  what went wrong
# The settings are the first lines, which run.sh rewrites.

ROUNDS=5
BURST_K=8
BURST_WARM=5
POOLS=3
CULL_WAIT=310
CULL_EXTRA=120

wqdir=/sys/devices/virtual/workqueue
ctl=/sys/kernel/debug/wqrt_bench
here=$(dirname "$0")

insmod "$here/wqrt_bench.ko" || { echo "E cannot load wqrt_bench.ko"; exit 1; }
series=0
[ -e "$wqdir/wqrt_bench/policy" ] && series=1
[ $series = 1 ] || { echo "E no policy attribute: make bench-burst needs the series"; exit 1; }
command -v wqrtd >/dev/null || { echo "E no wqrtd in the image"; exit 1; }
slots=$((3 * POOLS))
[ -e "$wqdir/wqrt_bench_c$((2 * slots - 1))" ] ||
	{ echo "E POOLS=$POOLS needs wqrt_bench_c0..$((2 * slots - 1))"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) series $series rounds $ROUNDS"
echo "I burst: k $BURST_K warm $BURST_WARM pools $POOLS per variant and set, cull_wait_s $CULL_WAIT cull_extra_s $CULL_EXTRA"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"

. "$here/load.sh"
start_load
. "$here/wqattr.sh"

uptime_s() {
	awk '{ print int($1) }' /proc/uptime
}

wq_of() { # SET SLOT
	echo "wqrt_bench_c$((($1 - 1) * slots + $2))"
}

variant_of() { # SLOT
	case $(($1 / POOLS)) in
	0) echo burst-r0 ;;
	1) echo "burst-r$BURST_K" ;;
	*) echo burst-chrt ;;
	esac
}

# every workqueue: a pool of its own, the variant's attributes
conf=/tmp/burst.conf
: >"$conf"
for grp in 1 2; do
	j=0
	while [ $j -lt $slots ]; do
		c=$(wq_of $grp $j)
		case $(variant_of $j) in
		burst-r0) setattr $c private 1 && setattr $c policy fifo &&
			setattr $c rtprio 50 ;;
		burst-chrt) setattr $c private 1 ;;
		*) setattr $c private 1 && setattr $c nr_idle_extra $BURST_K &&
			setattr $c policy fifo && setattr $c rtprio 50 ;;
		esac || { echo "E $c refused its attributes"; exit 1; }
		if [ "$(variant_of $j)" = burst-chrt ]; then
			for id in $(pool_ids $c); do
				printf '[kworker:kworker/u%s:*]\npolicy = fifo\nrtprio = 50\n\n' "$id" >>"$conf"
			done
		fi
		j=$((j + 1))
	done
done
sed 's/^/I wqrtd.conf: /' "$conf"
wqrtd_start "$conf" || { echo "E wqrtd did not start: $(head -c 300 /tmp/wqrtd.log | tr '\n' ' ')"; exit 1; }

burst() { # WQ NAME ROUND N
	echo "$BURST_K $4 $1" >"$ctl/burst" &&
		awk -v v="$2" -v r="$3" '{ print "B " v " " r " " $0 }' "$ctl/burst"
}

left_var() { # WQ: the variable keeping how many workers its last bursts left
	echo "left_$1"
}

first_bursts() { # SET: each new pool's first burst; from here on only a cull takes workers away
	j=0
	while [ $j -lt $slots ]; do
		c=$(wq_of "$1" $j)
		burst $c "$(variant_of $j)-first" 0 1
		eval "$(left_var $c)=$(workers $c)"
		j=$((j + 1))
	done
	eval "last_$1=$(uptime_s)"
}

first_bursts 1
if [ "$ROUNDS" -gt 1 ]; then
	sleep $((CULL_WAIT / 2))
	first_bursts 2
fi
wqrtd_timing burst-chrt-first 0

r=1
while [ $r -le "$ROUNDS" ]; do
	grp=$(((r - 1) % 2 + 1))
	last=0
	eval "last=\$last_$grp"
	now=$(uptime_s)
	[ $((now - last)) -ge "$CULL_WAIT" ] || sleep $((CULL_WAIT - (now - last)))
	# the idle timer is a 300 s timer in the timer wheel's level of
	# 32768-jiffy granularity (HZ=1000): it may fire up to about 33 s
	# late, and once more if it had to be re-armed
	while :; do
		culled=1
		j=0
		while [ $j -lt $slots ]; do
			c=$(wq_of $grp $j)
			left=0
			eval "left=\$$(left_var $c)"
			[ "$(workers $c)" -lt "$left" ] || culled=0
			j=$((j + 1))
		done
		now=$(uptime_s)
		[ $culled = 1 ] && break
		[ $((now - last)) -lt $((CULL_WAIT + CULL_EXTRA)) ] || break
		sleep 5
	done
	idle_s=$((now - last))
	order=$(sed -n "${r}p" "$here/burst-order" 2>/dev/null)
	[ -n "$order" ] || order=$(seq 0 $((slots - 1)) | paste -sd' ')
	echo "O $r $grp $(for j in $order; do wq_of $grp $j; done | paste -sd' ')"
	for j in $order; do
		c=$(wq_of $grp $j)
		name=$(variant_of $j)
		pools "$name" $r $c
		before=$(workers $c)
		burst $c "$name-culled" $r 1
		sleep 0.05
		burst $c "$name-warm" $r "$BURST_WARM"
		after=$(workers $c)
		eval "$(left_var $c)=$after"
		echo "W $name $r $c $before $after $idle_s"
	done
	eval "last_$grp=$(uptime_s)"
	# the kworkers forked for this round's bursts, verified by now
	sleep 1
	wqrtd_timing burst-chrt $r
	r=$((r + 1))
done
wqrtd_stop burst-chrt $ROUNDS
stop_load
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I done"
exit 0
