#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# RT workers that come and go under everything that made one livelock in
# the e2e stage (issue 49): wqrtd keeps FIFO profiles on the test module's
# workqueues and on the block layer's writeback and rescans /proc every
# second, the idle cull runs at its shortest (1 ms), CPU 1 goes offline
# and back, a SCHED_FIFO 80 hog takes CPU 1 now and then, and a
# SCHED_NORMAL reader walks /proc/PID/stat of every task in a loop, while
# bursts of 8 items that must all run at once run on a FIFO workqueue
# whose workers the cull takes between bursts. Nothing may be lost (every
# burst runs all its items, each in a FIFO worker), wqrtd must still
# answer and put everything back when stopped,
# and the kernel must report no stall, hung task or lockup (the VM runner
# fails the run on any). RTSTRESS_S seconds (wqrt.rtstress_s= on the
# kernel command line; 40 by default).
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ "$(series_expected)" = 1 ] ||
	skip_all "needs the series: RT profiles through sysfs (the fallback's kworkers are wqrtd_kworker.sh's)"
DBG=/sys/kernel/debug/wqrt_test
[ -e "$DBG/burst" ] || skip_all "no $DBG (wqrt_test not loaded)"
IDLE=/sys/module/workqueue/parameters/debug_idle_timeout_ms
CPU1=/sys/devices/system/cpu/cpu1/online
[ -w "$CPU1" ] || skip_all "CPU 1 cannot be taken offline here"

SECS=40
for _a in $(cat /proc/cmdline); do
	case "$_a" in wqrt.rtstress_s=*) SECS=${_a#*=} ;; esac
done

cat > "$CONF" <<CONF
[global]
log_level = info
restore_on_exit = yes
rescan_interval = 1

[wq:wqrt_test_*]
policy = fifo
rtprio = 30

[wq:writeback]
policy = fifo
rtprio = 20
CONF

ktap_set_plan 6
BEFORE_TEST=$(cat "$WQDIR/wqrt_test_cull/policy" "$WQDIR/wqrt_test_cull/rtprio")
BEFORE_WB=$(cat "$WQDIR/writeback/policy" "$WQDIR/writeback/rtprio")
OLD_IDLE=
if [ -w "$IDLE" ]; then
	OLD_IDLE=$(cat "$IDLE")
	echo 1 > "$IDLE"
fi
start_wqrtd
ktap_test_result "wqrtd starts and applies the profiles" wait_ready

END=$(($(date +%s) + SECS))
running() { [ "$(date +%s)" -lt "$END" ]; }

# the loads, each until END. CPU 1 goes offline for a second, then is
# taken by a SCHED_FIFO 80 hog for a second: never both at once (a hog
# that hotplug moved to CPU 0 would starve it, which is no test of the
# workers). The hog ends itself, by the clock it reads (/proc/uptime):
# ended by a SCHED_NORMAL task (timeout 1 on CPU 0), it once outlived its
# second by more than 6 s and starved CPU 1's timer thread into an RCU
# stall, the killer most likely waiting on a lock (on PREEMPT_RT a
# sleeping one, such as the hog's siglock, which /proc/PID/stat takes)
# held by a SCHED_NORMAL reader that the hog had preempted on CPU 1. An
# RT hog that only a lower task can stop is the test's own inversion, not
# the workers'.
( while running; do
	echo 0 > "$CPU1" 2>/dev/null
	sleep 1
	echo 1 > "$CPU1" 2>/dev/null
	sleep 0.5
	chrt -f 80 taskset -c 1 sh -c 'read -r t _ < /proc/uptime
		end=$((${t%.*} + 2))
		while read -r t _ < /proc/uptime && [ "${t%.*}" -lt "$end" ]; do
			:
		done' 2>/dev/null
	sleep 0.5
done ) &
DISTURB=$!
( while running; do
	cat /proc/[0-9]*/stat > /dev/null 2>&1
done ) &
READER=$!
BURSTS=0
BURSTS_OK=0
: > "$TMPD/pids"
while running; do
	echo "wq=cull n=8 hold_ms=2000" > "$DBG/burst"
	cat "$DBG/burst" > "$TMPD/burst"
	# all 8 ran at once, each in a worker with the profile
	if grep -q 'result=PASS' "$TMPD/burst" &&
	   [ "$(grep -c ' policy=1 rtprio=30 ' "$TMPD/burst")" = 8 ]; then
		BURSTS_OK=$((BURSTS_OK + 1))
	else
		ktap_print_msg "burst $BURSTS: $(head -n 1 "$TMPD/burst")"
	fi
	sed -n 's/.* pid=\([0-9]*\) .*/\1/p' "$TMPD/burst" >> "$TMPD/pids"
	BURSTS=$((BURSTS + 1))
	# long enough for the idle cull (1 ms) to take the burst's workers
	sleep 0.5
done
wait "$DISTURB" "$READER"
echo 1 > "$CPU1"

WORKERS=$(sort -u "$TMPD/pids" | grep -c .)
ktap_print_msg "$BURSTS_OK of $BURSTS bursts of 8 ran all at once in FIFO 30 workers; $WORKERS distinct workers"
bursts_ok() { [ "$BURSTS" -ge 5 ] && [ "$BURSTS_OK" = "$BURSTS" ]; }
ktap_test_result "every burst on the FIFO workqueue ran all its items at once, each in a FIFO 30 worker (at least 5 bursts)" bursts_ok
# the idle cull took workers between bursts: their exits are what is tested
culled() { [ "$WORKERS" -gt 16 ]; }
if [ -n "$OLD_IDLE" ]; then
	ktap_test_result "the idle cull made the pool create new workers again and again (more than 16 in all)" culled
else
	# 6.12's idle timeout is 300 s: no cull within the run
	ktap_test_skip "the idle cull made the pool create new workers again and again (more than 16 in all)" \
		"needs workqueue.debug_idle_timeout_ms (CONFIG_WQ_DEBUG_WAKE_DELAY) for a cull within the run"
fi
status_ok() { wqrtctl status > "$TMPD/status" 2>&1; }
ktap_test_result "wqrtd is still running and answers" status_ok
still_fifo() { attrs_are wqrt_test_cull "policy=fifo rtprio=30" &&
	attrs_are writeback "policy=fifo rtprio=20"; }
ktap_test_result "the profiles are still in force" still_fifo
stopped_restored() {
	stop_wqrtd || return 1
	[ "$(cat "$WQDIR/wqrt_test_cull/policy" "$WQDIR/wqrt_test_cull/rtprio")" = "$BEFORE_TEST" ] &&
	[ "$(cat "$WQDIR/writeback/policy" "$WQDIR/writeback/rtprio")" = "$BEFORE_WB" ]
}
ktap_test_result "SIGTERM puts the workqueues back" stopped_restored
[ -z "$OLD_IDLE" ] || echo "$OLD_IDLE" > "$IDLE"
finish
