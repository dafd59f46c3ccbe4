#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-lib.sh: lib.sh's verdicts on a benchmark boot, on logs of known
# answers: a guest whose kernel panicked, stalled or logged a BUG or a
# WARNING stops the benchmark with the report (no table from it), one cut
# short by its timeout does not (the icount runs keep the rounds that
# finished); the held-tracepoint check. TAP output; run by make check's
# harness stage.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
what=test WQRT_BUILD=$tmp/build
. "$top/selftests/bench/lib.sh"

ktap_print_header
ktap_set_plan 7

# verdict NAME: guest_kernel_ok on $tmp/NAME.vmout in a subshell (it
# exits the benchmark); its status in $st, stderr in $tmp/NAME.err
verdict() {
	(guest_kernel_ok "$tmp/$1.vmout" "$1") 2>"$tmp/$1.err"
	st=$?
}
printf '%s\n' "I kernel 6.12.118+" "1 passed, 0 failed" >"$tmp/clean.vmout"
printf '%s\n' "wqrt-vm: FAIL: the kernel panicked: Kernel panic - not syncing: RCU Stall" \
	"wqrt-vm: FAIL: the kernel log has BUG/WARNING/lockdep/lockup reports or a call trace (full log: console.log):" \
	"wqrt-vm: FAIL:     [   24.579201] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" \
	"0 passed, 1 failed" >"$tmp/panic.vmout"
printf '%s\n' "wqrt-vm: FAIL: the kernel log has BUG/WARNING/lockdep/lockup reports or a call trace (full log: console.log):" \
	"wqrt-vm: FAIL:     [   12.000000] WARNING: CPU: 1 PID: 40 at kernel/workqueue.c:1234 x+0x1/0x2" >"$tmp/warn.vmout"
printf '%s\n' "wqrt-vm: FAIL: the VM did not finish within 1000s (timeout): last console lines are in console.log" \
	"wqrt-vm: FAIL: the guest stopped before finishing (no WQRT-DONE): crash or panic? see console.log" >"$tmp/timeout.vmout"

verdict clean
ktap_test_result "a boot whose kernel reported nothing passes" [ $st = 0 ]
verdict panic
ktap_test_result "a kernel panic (an RCU stall) stops the benchmark, the report and the boot named" \
	eval '[ $st != 0 ] && grep -q "RCU Stall" "$tmp/panic.err" && grep -q "boot panic: .*no table" "$tmp/panic.err"'
verdict warn
ktap_test_result "a WARNING in the kernel log stops it too" \
	eval '[ $st != 0 ] && grep -q "WARNING: CPU: 1" "$tmp/warn.err"'
verdict timeout
ktap_test_result "a boot cut short by its timeout is the driver's to judge: not stopped here" [ $st = 0 ]

printf 'I trace_hold 0\r\n' >"$tmp/held0.log"
printf 'I trace_hold 2\n' >"$tmp/held2.log"
printf 'I kernel x\n' >"$tmp/heldnone.log"
(no_trace_hold_check "$tmp/held0.log" held0) 2>/dev/null
st=$?
ktap_test_result "no held tracepoints (a CRLF log): passes" [ $st = 0 ]
(no_trace_hold_check "$tmp/held2.log" held2) 2>"$tmp/held2.err"
st=$?
ktap_test_result "held tracepoints stop the run, the count named" \
	eval '[ $st != 0 ] && grep -q "I trace_hold 2" "$tmp/held2.err"'
(no_trace_hold_check "$tmp/heldnone.log" heldnone) 2>"$tmp/heldnone.err"
st=$?
ktap_test_result "no trace_hold line stops it, said" \
	eval '[ $st != 0 ] && grep -q "no trace_hold line" "$tmp/heldnone.err"'
ktap_finished
