#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-imu-trace.sh: imu-trace.awk, vm-imu.sh's reading of the trace, on a
# trace of known answers in the format of 6.12's events: a flip work whose
# worker went to sleep (D) for 20 ms after its wakeup (as when it must
# create a worker before it may work), one whose worker was preempted (R+)
# for 15 ms, one whose worker was woken onto a CPU that stayed idle for
# 30 ms (a wakeup that did not reach it), one of another workqueue, one on
# time; then a start that waited 98 ms behind a CPU hog: its window for
# the second pass, and from every switch what ran meanwhile (B); with AWK (awk; the guest's is busybox's: AWK="busybox awk"). The
# times have 11 digits, as a guest up for hours has: compared as strings
# (awk's six digits) they once mixed up the split. TAP output; run by make
# check's harness stage, with both when busybox is there.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 10
swp() { # TIME PREV PREV_PID PREV_PRIO STATE NEXT NEXT_PID NEXT_PRIO [CPU]
	printf '   %s-%s [%03d] d..2. %s: sched_switch: prev_comm=%s prev_pid=%s prev_prio=%s prev_state=%s ==> next_comm=%s next_pid=%s next_prio=%s\n' \
		"$2" "$3" "${9:-0}" "$1" "$2" "$3" "$4" "$5" "$6" "$7" "$8"
}
sw() { # TIME PREV PREV_PID STATE NEXT NEXT_PID [CPU]: both at prio 79 (FIFO 20)
	swp "$1" "$2" "$3" 79 "$4" "$5" "$6" 79 "${7:-0}"
}
wake() { # TIME PID [TARGET_CPU]
	printf '   irq/4-ttyS0-95 [000] d..3. %s: sched_wakeup: comm=kworker/u8:2 pid=%s prio=79 target_cpu=%03d\n' "$1" "$2" "${3:-0}"
}
queue() { # TIME WORK WQ
	printf '   irq/4-ttyS0-95 [000] d..2. %s: workqueue_queue_work: work struct=%s function=flush_to_ldisc workqueue=%s req_cpu=8 cpu=4294967295\n' "$1" "$2" "$3"
}
start() { # TIME WORK PID
	printf '   kworker/u8:2-%s [000] ..... %s: workqueue_execute_start: work struct %s: function flush_to_ldisc\n' "$3" "$1" "$2"
}
{
	# asleep 20 ms after the wakeup
	queue 12345.001000 00000000deadbeef ttyS-serial_8250
	wake 12345.001010 38
	sw 12345.001020 swapper/0 0 R kworker/u8:2 38
	sw 12345.001100 kworker/u8:2 38 D kthreadd 2
	wake 12345.021100 38
	sw 12345.021200 sh 500 R+ kworker/u8:2 38
	start 12345.021300 00000000deadbeef 38
	sw 12345.021400 kworker/u8:2 38 S swapper/0 0
	# preempted 15 ms
	queue 12345.100000 00000000deadbeef ttyS-serial_8250
	wake 12345.100010 38
	sw 12345.100020 swapper/0 0 R kworker/u8:2 38
	sw 12345.100100 kworker/u8:2 38 R+ sh 500
	sw 12345.115100 sh 500 R+ kworker/u8:2 38
	start 12345.115200 00000000deadbeef 38
	# woken onto CPU 1, idle from before the wakeup until 30 ms after it
	sw 12345.150000 kworker/u8:2 38 S swapper/0 0
	sw 12345.150500 sh 500 S swapper/1 0 1
	queue 12345.160000 00000000deadbeef ttyS-serial_8250
	wake 12345.160010 38 1
	sw 12345.190010 swapper/1 0 R kworker/u8:2 38 1
	start 12345.190100 00000000deadbeef 38
	sw 12345.190200 kworker/u8:2 38 S swapper/1 0 1
	# another workqueue's, late, and ours on time
	queue 12345.200000 00000000cafef00d ttyACM-acm
	start 12345.260000 00000000cafef00d 38
	queue 12345.300000 00000000deadbeef ttyS-serial_8250
	start 12345.300100 00000000deadbeef 38
} >"$tmp/trace"
${AWK:-awk} -v v=var -v r=3 -v wqname=ttyS-serial_8250 -f "$top/selftests/bench/imu/imu-trace.awk" \
	"$tmp/trace" >"$tmp/out" 2>"$tmp/err"
sed 's/^/# /' "$tmp/out"
ktap_test_result "a T line for each flush_to_ldisc of the flip workqueue, none for another's" \
	eval '[ "$(grep -c "^T var 3 " "$tmp/out")" = 4 ] && grep -q "^T var 3 20300000 0 0$" "$tmp/out" && grep -q "^T var 3 100000 0 0$" "$tmp/out"'
ktap_test_result "the worker that slept: woken at once, 20 ms asleep, 0.1 ms waiting for its CPU, not preempted" \
	grep -q "^D var 3 20300000 10000 20200000 kworker/u8:2-38 0 20000000 100000 0$" "$tmp/out"
ktap_test_result "the worker that was preempted: 15 ms preempted, 10 us asleep and 10 us waiting on an idle CPU" \
	grep -q "^D var 3 15200000 10000 15100000 kworker/u8:2-38 15000000 10000 10000 10000$" "$tmp/out"
ktap_test_result "the wakeup that did not reach CPU 1: 30 ms waiting, all of it CPU 1 idle" \
	grep -q "^D var 3 30100000 10000 30010000 kworker/u8:2-38 0 10000 30000000 30000000$" "$tmp/out"
ktap_test_result "no D line for a start within 10 ms" \
	eval '[ "$(grep -c "^D " "$tmp/out")" = 3 ]'
ktap_test_result "no B line from the first pass" \
	eval '! grep -q "^B " "$tmp/out"'

# the worker (nice -20: prio 100) woken at once onto CPU 0 and run 98
# ms later: a hog at nice 0 (120) ran 97 ms of it, the writer (FIFO 40:
# 59) 1 ms; the first pass sees the kworkers' and the idle task's
# switches, the second every switch (CPU 1's too, and after the start)
{
	swp 12346.998000 kworker/u8:2 38 100 S swapper/0 0 120
	swp 12346.999000 swapper/0 0 120 R hog 600 120
	queue 12347.000000 00000000deadbeef ttyS-serial_8250
	wake 12347.000010 38
	swp 12347.098000 hog 600 120 R kworker/u8:2 38 100
	start 12347.098100 00000000deadbeef 38
} >"$tmp/trace-kw"
{
	swp 12346.990000 sh 500 120 R hog 600 120
	swp 12346.998000 kworker/u8:2 38 100 S swapper/0 0 120
	swp 12346.999000 swapper/0 0 120 R hog 600 120
	swp 12347.050000 hog 600 120 R writer 700 59
	swp 12347.050500 cat 601 120 R dd 602 120 1
	swp 12347.051000 writer 700 59 S hog 600 120
	swp 12347.098000 hog 600 120 R kworker/u8:2 38 100
	swp 12347.200000 kworker/u8:2 38 100 S hog 600 120
} >"$tmp/trace-all"
${AWK:-awk} -v v=var -v r=3 -v wqname=ttyS-serial_8250 -v windows="$tmp/windows" \
	-f "$top/selftests/bench/imu/imu-trace.awk" "$tmp/trace-kw" >"$tmp/out-all" 2>>"$tmp/err"
${AWK:-awk} -v pass=ran -v v=var -v r=3 -f "$top/selftests/bench/imu/imu-trace.awk" \
	"$tmp/windows" "$tmp/trace-all" >>"$tmp/out-all" 2>>"$tmp/err"
sed 's/^/# /' "$tmp/out-all" "$tmp/windows"
ktap_test_result "the start behind the hog: woken at once, 97.99 ms waiting on a busy CPU" \
	grep -q "^D var 3 98100000 10000 98000000 kworker/u8:2-38 0 10000 97990000 0$" "$tmp/out-all"
ktap_test_result "its window for the second pass: queued, started, the CPU" \
	eval '[ "$(cat "$tmp/windows")" = "12347.000000 12347.098100 0" ]'
ktap_test_result "what ran on its CPU meanwhile, longest first: the hog 97 ms, the writer 1 ms, the worker 0.1 ms" \
	grep -q "^B var 3 98100000 0 hog-600,120,97000000 writer-700,59,1000000 kworker/u8:2-38,100,100000$" "$tmp/out-all"

# the tick's stack traces in the second pass's trace: three of the
# writer on CPU 0 within the window (two in a polled transmit, one in
# user space), one on CPU 1 and one after the window (not counted)
st() { # TIME CPU PID FRAME...: a tick's stack trace of imu_uart-PID
	printf '   imu_uart-%s [%03d] d.h1. %s: <stack trace>\n => hrtimer_interrupt+0x1/0x2\n => asm_sysvec_apic_timer_interrupt+0x1/0x2\n' "$3" "$2" "$1"
	shift 3
	for f in "$@"; do printf ' => %s+0x1/0x2\n' "$f"; done
}
{
	swp 12346.999000 imu_uart 700 59 S hog 600 120
	swp 12347.000100 hog 600 120 R imu_uart 700 59
	st 12347.001000 0 700 io_serial_in wait_for_lsr serial8250_tx_chars uart_write
	st 12347.002000 0 700 io_serial_in wait_for_lsr serial8250_tx_chars
	st 12347.002500 1 700 somewhere_else
	st 12347.003000 0 700
	swp 12347.098000 imu_uart 700 59 S kworker/u8:2 38 79
	st 12347.098200 0 701 n_tty_read
} >"$tmp/trace-stk"
${AWK:-awk} -v pass=ran -v v=var -v r=3 -f "$top/selftests/bench/imu/imu-trace.awk" \
	"$tmp/windows" "$tmp/trace-stk" >"$tmp/out-stk" 2>>"$tmp/err"
sed 's/^/# /' "$tmp/out-stk"
ktap_test_result "where the ticks found the writer on the late start's CPU: twice transmitting, once in user space" \
	eval 'grep -q "^S var 3 98100000 imu_uart-700 io_serial_in<wait_for_lsr<serial8250_tx_chars,2 user,1$" "$tmp/out-stk" &&
	      [ "$(grep -c "^S " "$tmp/out-stk")" = 1 ]'
ktap_finished
