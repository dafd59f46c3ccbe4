#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the wqrtd VM tests: waiting, starting and stopping wqrtd, on
# top of the shared KTAP output (../lib/ktap.sh) and task readers
# (../lib/task.sh). busybox sh.

# The shared helpers: beside this directory in the source tree, or where
# the VM images install them.
for WQRT_LIB in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$WQRT_LIB/ktap.sh" ] && break
done
. "$WQRT_LIB/ktap.sh"
. "$WQRT_LIB/task.sh"

WQDIR=/sys/devices/virtual/workqueue
TMPD=${TMPDIR:-/tmp}/wqrtd-test.$$
mkdir -p "$TMPD"
CONF=$TMPD/wqrt.conf
LOG=$TMPD/wqrtd.log
DPID=

# Nothing to test here: say why, clean up, exit as kselftest skips.
skip_all() {
	ktap_skip_all "$1"
	cleanup
	exit "$KSFT_SKIP"
}

finish() {
	cleanup
	ktap_finished
}

cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID"
	DPID=
	if [ -s "$LOG" ] && [ "$KTAP_CNT_FAIL" -ne 0 ]; then
		ktap_print_msg "wqrtd log:"
		sed 's/^/#   /' "$LOG"
	fi
	rm -rf "$TMPD"
}

# Find a helper: on PATH, or where the image installs test helpers.
helper() {
	for _p in "$(command -v "$1" 2>/dev/null)" "/lib/wqrt/$1" \
		  "/usr/lib/wqrt/$1" "$(dirname "$0")/$1"; do
		[ -n "$_p" ] && [ -x "$_p" ] && { echo "$_p"; return 0; }
	done
	return 1
}

# Wait up to $1 seconds for the command to succeed.
wait_for() {
	_t=$(($1 * 5))
	shift
	while [ "$_t" -gt 0 ]; do
		"$@" && return 0
		sleep 0.2
		_t=$((_t - 1))
	done
	"$@"
}

attr_is() { [ "$(cat "$WQDIR/$1/$2" 2>/dev/null)" = "$3" ]; }
# attrs_are WQ "ATTR=VALUE ...": every one of them, read together
attrs_are() {
	_wq=$1
	for _av in $2; do
		attr_is "$_wq" "${_av%%=*}" "${_av#*=}" || return 1
	done
}
logged() { grep -qF "$1" "$LOG"; }
# The CPUs of a cpulist, one a line: "0-1,3" -> 0 1 3
cpulist_cpus() {
	echo "$1" | tr ',' '\n' | while IFS=- read -r _a _b; do
		[ -n "$_a" ] && seq "$_a" "${_b:-$_a}"
	done
}
# The 8250's tty flip workqueue in sysfs: "ttyS-serial_8250" with the
# series, as mainline names it since 7.1; fails where there is none
flip_wq_8250() {
	for _d in "$WQDIR"/ttyS-*; do
		[ -d "$_d" ] && { echo "${_d##*/}"; return 0; }
	done
	return 1
}
# the number of lines of wqrtd's log with $1
logged_count() { grep -cF "$1" "$LOG"; }

# What the runner tells the test to expect of the kernel: wqrt.series=1
# (the whole series) or 0 (none) on the command line (selftests/vm/vm.sh,
# from the "=series" row of selftests/vm/expected). Without it (a board, a
# prefix of the series) only the kernel can say: the policy attribute.
# Prints 1 or 0.
series_expected() {
	for _a in $(cat /proc/cmdline); do
		case "$_a" in
		wqrt.series=*) echo "${_a#wqrt.series=}"; return 0 ;;
		esac
	done
	if [ -e "$WQDIR/writeback/policy" ]; then echo 1; else echo 0; fi
}
# said once per test, for whoever reads the log
series_declared() { grep -q 'wqrt\.series=' /proc/cmdline; }
# nr_idle_extra comes with patch 9, after the policy attribute (patch 8): a
# prefix of the series (make kernel-each, no wqrt.series= declared) may
# have the one without the other. Where the whole series is declared, the
# tests that need it fail without it.
reserve_expected() {
	series_declared || [ -e "$WQDIR/writeback/nr_idle_extra" ]
}

# wqrtd says so once its netlink sockets are open and its first scan is
# applied: from then on nothing new escapes it.
READY_LINE="ready: netlink sockets open, initial scan done"
wait_ready() { wait_for 10 logged "$READY_LINE"; }

# All given pids have "policy rtprio" $1 (those that vanished are fine);
# no pid at all is a failure, never a pass.
all_sched() {
	_want=$1
	shift
	if [ $# -eq 0 ]; then
		ktap_print_msg "no pid to check for $_want"
		return 1
	fi
	_seen=0
	for _p in "$@"; do
		_got=$(task_sched "$_p") || continue
		_seen=$((_seen + 1))
		[ "$_got" = "$_want" ] || {
			ktap_print_msg "pid $_p ($(task_comm "$_p")): $_got, want $_want"
			return 1
		}
	done
	[ "$_seen" -gt 0 ] || ktap_print_msg "none of the pids $* is there any more"
	[ "$_seen" -gt 0 ]
}

start_wqrtd() {
	wqrtd --foreground -c "$CONF" "$@" > "$LOG" 2>&1 &
	DPID=$!
}

stop_wqrtd() {
	kill -TERM "$DPID"
	wait "$DPID"
	_rc=$?
	DPID=
	return $_rc
}

alive() { kill -0 "$DPID" 2>/dev/null; }

# uart_ready: UART (default /dev/ttyS2) is a real UART and LOOP the
# uart_loop helper, or skip the whole test saying which is missing
uart_ready() {
	UART=${WQRT_UART:-/dev/ttyS2}
	LOOP=$(helper uart_loop || helper selftests/uart_loop)
	[ -n "$LOOP" ] || skip_all "no uart_loop helper"
	[ -c "$UART" ] || skip_all "no $UART"
	[ "$(cat "/sys/class/tty/${UART#/dev/}/type" 2>/dev/null || echo 0)" -gt 0 ] ||
		skip_all "no UART behind $UART"
}
