#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (selftests/vm/test-stall.sh): stalls one CPU for 100 s
# on purpose, preemption off, through the wqrt_test module's stall_cpu_s.
# The runner must end the boot when the kernel reports it (within a minute
# of the stall's start), not at its timeout; test-stall.sh judges that on
# the host. Reaching the end of this script means nothing stopped the VM.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/ktap.sh" ] && break
done
. "$lib/ktap.sh"

ktap_print_header
ktap_set_plan 1
param=/sys/module/wqrt_test/parameters/stall_cpu_s
if [ ! -w "$param" ]; then
	ktap_test_fail "no $param (wqrt_test not loaded?)"
	ktap_finished
fi
ktap_print_msg "stalling a CPU for 100 s"
echo 100 >"$param"
ktap_test_fail "the VM was still running after a 100 s stall"
ktap_finished
