#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtctl as a user who is not root (issue 47): latency, who and try say
# that they need root and exit 77 (EX_NOPERM), before they measure or
# change anything; not "the kernel lacks CONFIG_FTRACE", not a usage
# error. Runs on this machine's own kernel, as nobody (setpriv), so it
# needs root to start. TAP output.
# Usage: cli-nonroot.sh BUILDDIR
B=${1:?usage: cli-nonroot.sh BUILDDIR}
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
ktap_print_header
[ "$(id -u)" = 0 ] || ktap_skip_all "needs root, to run wqrtctl as nobody"
command -v setpriv > /dev/null || ktap_skip_all "no setpriv (util-linux)"
C=$(cd "$B" && pwd)/wqrtctl
[ -x "$C" ] || ktap_skip_all "no $C"
OUT=$(mktemp -d /tmp/wqrt-nonroot.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
chmod 0777 "$OUT"
# a workqueue every kernel has in sysfs, for try
WQ=writeback
[ -e "/sys/devices/virtual/workqueue/$WQ/nice" ] ||
	ktap_skip_all "no $WQ in sysfs on this kernel"

as_nobody() { # NAME ARGS...: wqrtctl ARGS as nobody, stderr in $OUT/NAME
	_name=$1
	shift
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all \
		"$C" "$@" > "$OUT/$_name.out" 2> "$OUT/$_name.err" < /dev/null
	echo $? > "$OUT/$_name.rc"
}
# NAME: exit 77, stderr says root, and says nothing of a missing option
says_root() {
	_rc=$(cat "$OUT/$1.rc")
	if [ "$_rc" != 77 ] || ! grep -q 'as root' "$OUT/$1.err" ||
	   grep -q 'CONFIG_' "$OUT/$1.err"; then
		ktap_print_msg "exit $_rc: $(cat "$OUT/$1.err")"
		return 1
	fi
}

ktap_set_plan 4
as_nobody latency latency --duration 1
ktap_test_result "latency as nobody: exit 77, run as root (not a kernel option)" \
	says_root latency
as_nobody latency-fn latency --duration 1 process_one_work
ktap_test_result "latency FUNC as nobody: exit 77, run as root" \
	says_root latency-fn
as_nobody who who process_one_work
ktap_test_result "who FUNC as nobody: exit 77, run as root (not a usage error)" \
	says_root who
as_nobody try try "$WQ" nice=-5 --for 1
try_said_first() {
	says_root try && ! grep -q 'as found' "$OUT/try.err"
}
ktap_test_result "try as nobody: exit 77, run as root, before it measures anything" \
	try_said_first
ktap_finished
