#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-board.sh: wqrt-bench-board's refusals on the host, before it
# touches anything (bad options, not root, a kernel without the series).
# What it measures and that it puts everything back: the e2e test, in the
# packaged VM. TAP output; run by make check's harness stage.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/selftests/lib/ktap.sh"
b=$top/selftests/bench/board/wqrt-bench-board
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 5
"$b" --frobnicate all >"$tmp/o" 2>&1
rc=$?
ktap_test_result "an unknown option: exit 2, named, and the usage" \
	eval '[ $rc = 2 ] && grep -q "unknown option --frobnicate" "$tmp/o" && grep -q "^usage: wqrt-bench-board" "$tmp/o"'
"$b" --rounds 0 gpu >"$tmp/o" 2>&1
rc=$?
ktap_test_result "--rounds 0: exit 1, the option and the value named" \
	eval '[ $rc = 1 ] && grep -q "rounds 0: a positive number" "$tmp/o"'
"$b" gpu imu >"$tmp/o" 2>&1
rc=$?
ktap_test_result "two cases: exit 2 and the usage" \
	eval '[ $rc = 2 ] && grep -q "^usage:" "$tmp/o"'
if [ "$(id -u)" = 0 ]; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$b" gpu >"$tmp/o" 2>&1
	rc=$?
	ktap_test_result "as a user: exit 1, run as root" \
		eval '[ $rc = 1 ] && grep -q "run as root" "$tmp/o"'
else
	ktap_test_skip "as a user: needs root to become one"
fi
if [ "$(id -u)" != 0 ]; then
	ktap_test_skip "a kernel without the series: needs root"
elif ls /sys/devices/virtual/workqueue/*/policy >/dev/null 2>&1; then
	ktap_test_skip "a kernel without the series: this host's kernel has it"
else
	"$b" --out "$tmp/out" gpu >"$tmp/o" 2>&1
	rc=$?
	ktap_test_result "a kernel without the series: exit 1, says what to boot, no output directory" \
		eval '[ $rc = 1 ] && grep -q "no workqueue policy attribute: boot a kernel with the wqrt series" "$tmp/o" && [ ! -e "$tmp/out" ]'
fi
ktap_finished
