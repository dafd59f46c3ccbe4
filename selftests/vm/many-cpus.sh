#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make vm-many-cpus): the test kernel booted with many
# possible CPUs and two online (-smp 2,maxcpus=64: QEMU's hot-pluggable
# CPUs are disabled MADT entries, which the test kernel counts as possible,
# kernel/variants/possible-cpus). The reserve of idle workers is counted over the pools a workqueue
# really has, not over every pod of its affinity scope.

for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"

ktap_print_header
ktap_set_plan 2
possible=$(cat /sys/devices/system/cpu/possible)
online=$(cat /sys/devices/system/cpu/online)
echo "# possible CPUs $possible, online $online"
case "$possible" in
0-[0-9] | 0 | 0-1[0-5])
	ktap_test_fail "only CPUs $possible possible: the boot did not give many"
	;;
*)
	ktap_test_pass "CPUs $possible possible, $online online"
	;;
esac
if ! cd /usr/lib/wqrt/selftests; then
	ktap_test_fail "no selftests"
	ktap_finished
fi
./wq_nr_idle_extra -t reserve_counts_pools_on_many_cpus \
	-t reserve_counts_pools_of_cpumask -t reserve_capped_over_pools \
	>/tmp/many.out 2>&1
rc=$?
sed 's/^/# /' /tmp/many.out
if [ "$rc" = 0 ] && ! grep -q '^ok .*# SKIP' /tmp/many.out; then
	ktap_test_pass "the reserve is counted over the pools of the cpumask"
else
	ktap_test_fail "wq_nr_idle_extra on many possible CPUs (exit $rc)"
fi
ktap_finished
