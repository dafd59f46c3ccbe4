#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make rt-exit-demo) on the rt-exit-nofix kernel: the
# series without the return of an exiting worker to SCHED_NORMAL
# (kernel/variants/rt-exit-nofix). Each test of wq_rt_exit must catch it:
# the SCHED_NORMAL task killing one of the worker's /proc dentries is kept
# off the CPU until the test raises it. The test's own output is shown as
# TAP comments; the verdict is inverted here.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"

ktap_print_header
ktap_set_plan 3
cd /usr/lib/wqrt/selftests || { ktap_test_fail "no selftests"; ktap_finished; }
for t in pool_release_module_wq pool_release_writeback rescuer_destroy; do
	{ WQRT_RT_EXIT_ROUNDS=1 ./wq_rt_exit -v "$t" 2>&1; echo $? >/tmp/rc; } |
		tee /tmp/out | sed 's/^/# /'
	rc=$(cat /tmp/rc)
	if [ "$rc" != 0 ] && grep -q 'was not done [0-9]* ms after its hold ended' /tmp/out; then
		ktap_test_pass "wq_rt_exit $t caught the exiting SCHED_FIFO worker starving the reader"
	else
		ktap_test_fail "wq_rt_exit $t did not catch it (exit $rc)"
	fi
done
ktap_finished
