#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Reproducer for the stall that keeps wqrtd_vkms.sh opt-in (run inside the
# VM):
#   WQRT_VM_APPEND=wqrt.vkms=1 selftests/vm/vm.sh script test \
#	selftests/vm/vkms-stall/run.sh --name vkms-stall --timeout 3000
# Runs the daemon tests in the suite's order R times. 2026-11-30: the guest
# stalled in wqrtd_vkms.sh in 2 of the 5 rounds that reached it this way (both vCPUs idle, the
# "vblank timer overrun" messages stop), and in none of 25 runs of
# wqrtd_vkms.sh alone. A SCHED_FIFO watchdog (its sleep is a hard hrtimer
# on PREEMPT_RT) runs dump.sh when a test takes over 120 s; in both stalls
# it got nothing out, so the next step is the QEMU monitor or gdbstub.
echo "TAP version 13"
R=${R:-4}
tests=${TESTS:-"wqrtd_ctl.sh wqrtd_kworker.sh wqrtd_spoof.sh wqrtd_storm.sh wqrtd_sysfs.sh wqrtd_uart.sh wqrtd_unsupported.sh wqrtd_vkms.sh wqrtd_wqsysfs.sh"}
set -- $tests
echo "1..$((R * $#))"
cd /usr/lib/wqrt/daemon-tests || { echo "Bail out! no daemon tests"; exit 1; }
n=1
r=1
while [ $r -le "$R" ]; do
	for t in $tests; do
		./$t >/tmp/v.out 2>&1 &
		pid=$!
		chrt -f 90 sh -c "sleep 120; kill -0 $pid 2>/dev/null && sh /wqrt/dump.sh $t $r" &
		wd=$!
		wait $pid
		rc=$?
		kill $wd 2>/dev/null
		if [ $rc = 4 ]; then
			echo "ok $n $t round $r # SKIP $(grep -m1 SKIP /tmp/v.out)"
		elif [ $rc = 0 ] && ! grep -q '^not ok' /tmp/v.out; then
			echo "ok $n $t round $r"
		else
			sed 's/^/#   /' /tmp/v.out
			echo "not ok $n $t round $r (exit $rc)"
		fi
		n=$((n + 1))
	done
	r=$((r + 1))
done
