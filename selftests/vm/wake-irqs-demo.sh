#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make wake-irqs-demo) on a kernel whose
# process_one_work() and reserve refill enable IRQs again before the
# deferred wakeup (kernel/variants/wake-irqs-on). wq_nr_idle_extra's
# deferred_wakeups_keep_irqs_off must count wakeups issued with IRQs
# enabled there. The test's own output is shown as TAP comments; the
# verdict is inverted here.

for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"

ktap_print_header
ktap_set_plan 1
if ! cd /usr/lib/wqrt/selftests; then
	ktap_test_fail "no selftests"
	ktap_finished
fi
./wq_nr_idle_extra -t deferred_wakeups_keep_irqs_off >/tmp/irqs.out 2>&1
rc=$?
sed 's/^/# /' /tmp/irqs.out
# "process_one_work: N deferred wakeups, M with IRQs enabled"
on=$(sed -n 's/.*process_one_work: [0-9]* deferred wakeups, \([0-9]*\) with IRQs enabled.*/\1/p' /tmp/irqs.out | head -n 1)
if [ "$rc" != 0 ] && [ -n "$on" ] && [ "$on" -gt 0 ]; then
	ktap_test_pass "the test counted $on wakeup(s) of process_one_work() issued with IRQs enabled"
else
	ktap_test_fail "the test did not catch wakeups issued with IRQs enabled (exit $rc, process_one_work with IRQs on: ${on:-?})"
fi
ktap_finished
