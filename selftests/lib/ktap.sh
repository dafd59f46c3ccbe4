# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034 # the variables are for the sourcing test
# KTAP output for wqrt's shell tests, with the names of the kernel's
# tools/testing/selftests/kselftest/ktap_helpers.sh so a test reads the
# same in either place. POSIX sh (the VM runs them under busybox). Sourced.
#
#	ktap_print_header
#	ktap_set_plan 3
#	ktap_test_result "wqrtd started" start_wqrtd
#	ktap_test_skip "no uart" ...
#	ktap_finished		# prints the totals, exits 0 or 1
#
# As in the kernel's, ktap_finished fails a run whose passes and skips do
# not add up to the plan (a failure, or a test that went missing). Unlike
# the kernel's, ktap_test_skip takes an optional reason and
# ktap_test_result runs its command with its arguments quoted.

KTAP_TESTNO=1
KTAP_CNT_PASS=0
KTAP_CNT_FAIL=0
KTAP_CNT_SKIP=0
KSFT_PASS=0
KSFT_FAIL=1
KSFT_XFAIL=2
KSFT_XPASS=3
KSFT_SKIP=4
KSFT_NUM_TESTS=0

ktap_print_header() {
	echo "TAP version 13"
}

ktap_print_msg() {
	echo "# $*"
}

ktap_set_plan() {
	KSFT_NUM_TESTS=$1
	echo "1..$1"
}

# The whole program has nothing to test here; $1 says why. The caller
# exits, with $KSFT_SKIP.
ktap_skip_all() {
	echo "1..0 # SKIP $*"
}

__ktap_test() { # RESULT DESCRIPTION [DIRECTIVE]
	echo "$1 $KTAP_TESTNO $2${3:+ # $3}"
	KTAP_TESTNO=$((KTAP_TESTNO + 1))
}

ktap_test_pass() {
	__ktap_test ok "$1"
	KTAP_CNT_PASS=$((KTAP_CNT_PASS + 1))
}

ktap_test_skip() { # DESCRIPTION [REASON]
	__ktap_test ok "$1" "SKIP${2:+ $2}"
	KTAP_CNT_SKIP=$((KTAP_CNT_SKIP + 1))
}

ktap_test_fail() {
	__ktap_test "not ok" "$1"
	KTAP_CNT_FAIL=$((KTAP_CNT_FAIL + 1))
}

# ktap_test_result DESCRIPTION COMMAND [ARG...]: pass if COMMAND succeeds.
ktap_test_result() {
	__ktap_desc=$1
	shift
	if "$@"; then
		ktap_test_pass "$__ktap_desc"
	else
		ktap_test_fail "$__ktap_desc"
	fi
}

ktap_print_totals() {
	echo "# Totals: pass:$KTAP_CNT_PASS fail:$KTAP_CNT_FAIL xfail:0 xpass:0 skip:$KTAP_CNT_SKIP error:0"
}

# Give up on the rest of the run: "Bail out!", the totals, exit failed.
ktap_exit_fail_msg() {
	echo "Bail out! $*"
	ktap_print_totals
	exit "$KSFT_FAIL"
}

# Print the totals and exit with the kselftest status of the whole run:
# passed only when every planned test passed or was skipped.
ktap_finished() {
	ktap_print_totals
	if [ "$KTAP_CNT_FAIL" -eq 0 ] &&
		[ $((KTAP_CNT_PASS + KTAP_CNT_SKIP)) -eq "$KSFT_NUM_TESTS" ]; then
		exit "$KSFT_PASS"
	fi
	exit "$KSFT_FAIL"
}
