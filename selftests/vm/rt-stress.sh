#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make rt-stress): wqrtd_rtstress.sh, the stress of RT
# workers that come and go (FIFO profiles on the test workqueues and on
# writeback, the idle cull at 1 ms, CPU hotplug, a FIFO 80 hog, a /proc
# reader, wqrtd rescanning), wqrt.rtstress_rounds= times in a row (5 by
# default), each wqrt.rtstress_s= seconds long (the test's own default,
# 40, unless given). Each round is a program of its own for the verdict,
# so a stall, a hung task or a lost burst names its round.
rounds=5
for arg in $(cat /proc/cmdline); do
	case "$arg" in wqrt.rtstress_rounds=*) rounds=${arg#*=} ;; esac
done
cd /usr/lib/wqrt/daemon-tests || exit 1
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	echo "# wqrt-run: wqrtd_rtstress.sh round $i of $rounds"
	./wqrtd_rtstress.sh </dev/null
	echo "# wqrt-exit: wqrtd_rtstress.sh $?"
done
