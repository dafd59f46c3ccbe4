#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-stall.sh [KERNEL]: a deliberate stall ends a VM run within a minute,
# with the kernel's report in the verdict. Boots KERNEL (default: test)
# with selftests/vm/stall-demo.sh, which stalls a CPU for 100 s with
# preemption off; the run must fail, name the stall, quote its report, and
# the console must end less than 60 s (kernel time) after the stall began.
# Part of make check (the test kernel's stage); TAP on stdout.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/ktap.sh"
kernel=${1:-test}
build=${WQRT_BUILD:-$here/../../build}
name=$kernel-stall-demo
out=$(mktemp)
trap 'rm -f "$out"' EXIT

ktap_print_header
ktap_set_plan 4
start=$SECONDS
"$here/vm.sh" script "$kernel" "$here/stall-demo.sh" --name "$name" \
	--timeout 600 >"$out" 2>&1
rc=$?
wall=$((SECONDS - start))
sed 's/^/# /' "$out"
console=$build/vm/$name/console.log

if [ "$rc" != 0 ]; then
	ktap_test_pass "the stalled run fails (exit $rc)"
else
	ktap_test_fail "the stalled run passed"
fi
if grep -qE 'FAIL: the kernel (reported a stall|panicked)' "$out"; then
	ktap_test_pass "the verdict says the kernel stalled"
else
	ktap_test_fail "the verdict does not name the stall"
fi
# RCU says "detected stalls" when another CPU sees the stall first and
# "self-detected stall" when the stalled CPU does: either is the report
if grep -qE 'FAIL:   \| .*(detected stall|soft lockup)' "$out"; then
	ktap_test_pass "the verdict quotes the kernel's stall report"
else
	ktap_test_fail "the verdict quotes no stall report"
fi
# kernel time from the stall's start to the last line the console got
t0=$(grep -a 'stalling CPU' "$console" | head -n 1 |
	sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
t1=$(grep -aE '^\[ *[0-9.]+\]' "$console" | tail -n 1 |
	sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
if [ -n "$t0" ] && [ -n "$t1" ] &&
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 60) }'; then
	ktap_test_pass "the run ended $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", b - a }') s after the stall began (whole run ${wall} s)"
else
	ktap_test_fail "the run did not end within 60 s of the stall (stall at ${t0:-?} s, last console line at ${t1:-?} s, whole run ${wall} s)"
fi
ktap_finished
