#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make vm-run SCRIPT=selftests/vm/issue28.sh): the
# kselftests of issue 28 items 1 and 5-8 alone, one KTAP result each, to
# show them failing on a kernel without the fixes and passing with them in
# one boot instead of the whole suite.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"
ktap_print_header
ktap_set_plan 10
cd /usr/lib/wqrt/selftests || { ktap_test_fail "no selftests"; ktap_finished; }
run() {
	prog=$1 test=$2
	./$prog -t $test >/tmp/out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/out
	if [ "$rc" = 0 ] && ! grep -q '# SKIP' /tmp/out; then
		ktap_test_pass "$prog $test"
	else
		ktap_test_fail "$prog $test (exit $rc)"
	fi
}
run wq_rt_attrs unprivileged_writer_gets_eperm
run wq_rt_attrs unprivileged_writer_keeps_normal_rules
run wq_rt_attrs no_op_writes_keep_pwqs
run wq_rt_attrs in_kernel_reapply_keeps_private_pools
run wq_rt_attrs busy_pool_dump_names_rt_pool
run wq_nr_idle_extra reserve_capped_over_pools
run wq_nr_idle_extra reserve_counts_pools_of_cpumask
run wq_nr_idle_extra pool_release_does_not_wait_for_reserve
run wq_nr_idle_extra refill_wakes_outside_pool_lock
run wq_nr_idle_extra global_updates_never_fail_on_reserve
ktap_finished
