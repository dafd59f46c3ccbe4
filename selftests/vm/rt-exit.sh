#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make rt-exit-repro): wq_rt_exit with many rounds per
# test (wqrt.rt_exit_rounds= on the kernel command line, 50 by default),
# one KTAP result per test. Each round ends the life of a SCHED_FIFO worker
# while a SCHED_NORMAL task on its CPU is in the middle of killing one of
# its /proc dentries; a round that starves that task fails the test.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"

rounds=50
for arg in $(cat /proc/cmdline); do
	case "$arg" in wqrt.rt_exit_rounds=*) rounds=${arg#*=} ;; esac
done
ktap_print_header
ktap_set_plan 3
cd /usr/lib/wqrt/selftests || { ktap_test_fail "no selftests"; ktap_finished; }
for t in pool_release_module_wq pool_release_writeback rescuer_destroy; do
	# streamed, so that a run the kernel ends shows how far it got
	{ WQRT_RT_EXIT_ROUNDS=$rounds ./wq_rt_exit -v "$t" 2>&1; echo $? >/tmp/rc; } |
		tee /tmp/out | sed 's/^/# /'
	rc=$(cat /tmp/rc)
	done_rounds=$(grep -c 'worker [0-9]* gone' /tmp/out)
	if [ "$rc" = 0 ] && [ "$done_rounds" = "$rounds" ]; then
		ktap_test_pass "wq_rt_exit $t: $rounds rounds in a row"
	else
		ktap_test_fail "wq_rt_exit $t (exit $rc, $done_rounds of $rounds rounds)"
	fi
done
ktap_finished
