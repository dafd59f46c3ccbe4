# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The e2e scripts' checks (selftests/e2e/day.sh, first-hour.sh), on top of
# ktap.sh. Sourced.

# check DESCRIPTION COMMAND...: ok when COMMAND succeeds; else not ok, with
# the first 30 lines of what it printed
check() {
	local d=$1 rc
	shift
	"$@" >/tmp/check.out 2>&1
	rc=$?
	if [ $rc = 0 ]; then
		ktap_test_pass "$d"
	else
		ktap_test_fail "$d"
		sed 's/^/#   /' /tmp/check.out | head -n 30
	fi
}

# within SECONDS COMMAND...: poll every 0.1 s until COMMAND succeeds
within() {
	local deadline=$(($(date +%s%N) + $1 * 1000000000))
	shift
	while :; do
		"$@" && return 0
		[ "$(date +%s%N)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}
