#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make race-demo) on a kernel that defers the wakeup of
# the kicked worker but does not claim it. The idle-cull race test must
# catch it: its kick_oldest variant reports stranded work items. The test's
# own output is shown as TAP comments; the verdict is inverted here.

# The shared helpers: beside this directory in the source tree, or where
# mkinitramfs.sh installs them.
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
./wq_idle_cull -t idle_cull_race >/tmp/race.out 2>&1
rc=$?
sed 's/^/# /' /tmp/race.out
line=$(grep -o 'kick_oldest_5ms ([^)]*): .*' /tmp/race.out | head -n 1)
stranded=$(echo "$line" | sed -n 's/.* stranded=\([0-9]*\).*/\1/p')
if [ "$rc" != 0 ] && [ -n "$stranded" ] && [ "$stranded" -gt 0 ]; then
	ktap_test_pass "the idle-cull race test caught $stranded stranded work item(s) without the claim"
else
	ktap_test_fail "the idle-cull race test did not catch the race (exit $rc, stranded=${stranded:-?})"
fi
ktap_finished
