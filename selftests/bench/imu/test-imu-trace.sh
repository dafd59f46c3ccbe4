#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-imu-trace.sh: imu-trace.awk, vm-imu.sh's reading of the trace, on a
# trace of known answers in the format of 6.12's events: a flip work whose
# worker went to sleep (D) for 20 ms after its wakeup (as when it must
# create a worker before it may work), one whose worker was preempted (R+)
# for 15 ms, one of another workqueue, one on time; with AWK (awk; the
# guest's is busybox's: AWK="busybox awk"). TAP output; run by make check's
# harness stage, with both when busybox is there.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 4
sw() { # TIME PREV PREV_PID STATE NEXT NEXT_PID
	printf '   %s-%s [000] d..2. %s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=79 prev_state=%s ==> next_comm=%s next_pid=%s next_prio=79\n' \
		"$2" "$3" "$1" "$2" "$3" "$4" "$5" "$6"
}
wake() { # TIME PID
	printf '   irq/4-ttyS0-95 [000] d..3. %s: sched_wakeup: comm=kworker/u8:2 pid=%s prio=79 target_cpu=000\n' "$1" "$2"
}
queue() { # TIME WORK WQ
	printf '   irq/4-ttyS0-95 [000] d..2. %s: workqueue_queue_work: work struct=%s function=flush_to_ldisc workqueue=%s req_cpu=8 cpu=4294967295\n' "$1" "$2" "$3"
}
start() { # TIME WORK PID
	printf '   kworker/u8:2-%s [000] ..... %s: workqueue_execute_start: work struct %s: function flush_to_ldisc\n' "$3" "$1" "$2"
}
{
	# asleep 20 ms after the wakeup
	queue 100.001000 00000000deadbeef ttyS-serial_8250
	wake 100.001010 38
	sw 100.001020 swapper/0 0 R kworker/u8:2 38
	sw 100.001100 kworker/u8:2 38 D kthreadd 2
	wake 100.021100 38
	sw 100.021200 sh 500 R+ kworker/u8:2 38
	start 100.021300 00000000deadbeef 38
	sw 100.021400 kworker/u8:2 38 S swapper/0 0
	# preempted 15 ms
	queue 100.100000 00000000deadbeef ttyS-serial_8250
	wake 100.100010 38
	sw 100.100020 swapper/0 0 R kworker/u8:2 38
	sw 100.100100 kworker/u8:2 38 R+ sh 500
	sw 100.115100 sh 500 R+ kworker/u8:2 38
	start 100.115200 00000000deadbeef 38
	# another workqueue's, late, and ours on time
	queue 100.200000 00000000cafef00d ttyACM-acm
	start 100.260000 00000000cafef00d 38
	queue 100.300000 00000000deadbeef ttyS-serial_8250
	start 100.300100 00000000deadbeef 38
} >"$tmp/trace"
${AWK:-awk} -v v=var -v r=3 -v wqname=ttyS-serial_8250 -f "$top/selftests/bench/imu/imu-trace.awk" \
	"$tmp/trace" >"$tmp/out" 2>"$tmp/err"
sed 's/^/# /' "$tmp/out"
ktap_test_result "a T line for each flush_to_ldisc of the flip workqueue, none for another's" \
	eval '[ "$(grep -c "^T var 3 " "$tmp/out")" = 3 ] && grep -q "^T var 3 20300000 0 0$" "$tmp/out" && grep -q "^T var 3 100000 0 0$" "$tmp/out"'
ktap_test_result "the worker that slept: woken at once, 20.1 ms asleep, not preempted" \
	grep -q "^D var 3 20300000 10000 20200000 kworker/u8:2-38 0 20100000$" "$tmp/out"
ktap_test_result "the worker that was preempted: 15 ms preempted, not asleep" \
	grep -q "^D var 3 15200000 10000 15100000 kworker/u8:2-38 15000000 0$" "$tmp/out"
ktap_test_result "no D line for a start within 10 ms" \
	eval '[ "$(grep -c "^D " "$tmp/out")" = 2 ]'
ktap_finished
