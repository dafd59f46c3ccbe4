#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# no-policy-demo.sh: make no-policy-demo's verdict, on the host. The
# no-policy kernel (kernel/variants/no-policy: the series without its
# policy attribute in sysfs) gets the VM suite exactly as make check gives
# it to the test kernel (vm.sh check, judged against the test column of
# selftests/vm/expected). The suite must fail, and its verdict must name
# the programs that test the attribute; the demonstration passes only
# then. The run's own output is kept in build/vm/no-policy-demo.log.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
mkdir -p "$build/vm"
log=$build/vm/no-policy-demo.log

"$top/selftests/vm/vm.sh" check no-policy 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
echo
echo "=== no-policy-demo: the verdict's failures"
grep 'wqrt-vm: FAIL: ' "$log"
if [ "$rc" = 0 ]; then
	echo "no-policy-demo: FAIL: the suite passed on a kernel without the policy attribute"
	exit 1
fi
# what must be named: the kselftests of the attributes (they skip, which
# the test kernel does not allow) and the daemon tests that need the
# series (they skip as a whole, or their checks of the policy fail)
bad=0
for prog in wq_rt_attrs wq_nr_idle_extra wqrtd_sysfs.sh wqrtd_uart.sh \
	wqrtd_vkms.sh wqrtd_kworker.sh; do
	if grep -q "wqrt-vm: FAIL: .*$prog" "$log"; then
		echo "no-policy-demo: the verdict names $prog"
	else
		echo "no-policy-demo: FAIL: the verdict does not name $prog"
		bad=1
	fi
done
[ "$bad" = 0 ] && echo "no-policy-demo: PASS: the VM suite went red by name without the policy attribute"
exit $bad
