#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make int3-repro): the "Oops: int3" in __schedule that
# VM runs met after a tracefs user went away (docs/tests.md). The sites are
# the tracepoint's jump label and static call in __schedule, which the
# enabling and disabling of sched_switch patch with text_poke_bp(); this
# flips that event on and off (wqrt.int3_toggles= times, 2000 by default)
# while both CPUs switch tasks, and a run the kernel ends with that Oops
# fails in the verdict. Nothing of wqrt is in the path (init loads the test
# module; nothing here uses it). With wqrt.trace_hold=0 the VM holds no
# tracepoint (selftests/lib/trace-hold.sh) and the flips patch text.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"

toggles=2000
for arg in $(cat /proc/cmdline); do
	case "$arg" in wqrt.int3_toggles=*) toggles=${arg#*=} ;; esac
done
ev=/sys/kernel/tracing/events/sched/sched_switch/enable
[ -e "$ev" ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
ktap_print_header
[ -e "$ev" ] || ktap_skip_all "no $ev"
ktap_set_plan 1
# a context switch storm on each CPU: two tasks passing a pipe's bytes
for cpu in 0 1; do
	taskset -c $cpu sh -c 'while :; do echo x; done | while read -r _; do :; done' &
done
i=0
while [ $i -lt "$toggles" ]; do
	echo 1 >"$ev"
	echo 0 >"$ev"
	i=$((i + 1))
	[ $((i % 500)) = 0 ] && ktap_print_msg "$i toggles"
done
# shellcheck disable=SC2046 # the pids, one word each
kill $(jobs -p) 2>/dev/null
ktap_test_pass "$toggles on/off toggles of sched_switch while both CPUs switch tasks"
ktap_finished
