#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (selftests/vm/vm.sh script debian-rt
# selftests/vm/rb-kill-warn.sh): a finding about 6.12's tracing, not about
# the series. A task SIGKILLed while its mkdir of a tracefs instance
# allocates the instance's ring buffers makes the allocation fail (it gives
# up on a fatal signal) and trace_rb_cpu_prepare() WARNs for it ("failed to
# allocate ring buffer on CPU N"): a monitoring tool killed at the wrong
# moment (wqrtctl, rtla) puts a WARNING in the kernel log, a panic with
# panic_on_warn. 40 mkdirs, each killed 0 to 9 ms in; the run's verdict
# fails on the WARNINGs, which is the finding (24 of 40 on Debian's
# 6.12.118-1~deb12u1 RT kernel under TCG). wqrtd_try.sh kills its tries
# only after their instance is made.
T=/sys/kernel/tracing
[ -d $T/instances ] || mount -t tracefs nodev $T
echo "1..1"
i=0
while [ $i -lt 40 ]; do
	sh -c "exec mkdir $T/instances/rbkill$i" &
	p=$!
	sleep "0.00$((i % 10))"
	kill -KILL $p 2>/dev/null
	wait $p 2>/dev/null
	rmdir $T/instances/rbkill$i 2>/dev/null
	i=$((i + 1))
done
n=$(dmesg | grep -c "failed to allocate ring buffer")
echo "# WARNs: $n of 40 killed mkdirs"
echo "ok 1 40 instance mkdirs killed ($n WARNs)"
