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
logged() { grep -qF "$1" "$LOG"; }

# All given pids have "policy rtprio" $1 (those that vanished are fine).
all_sched() {
	_want=$1
	shift
	for _p in "$@"; do
		_got=$(task_sched "$_p") || continue
		[ "$_got" = "$_want" ] || {
			ktap_print_msg "pid $_p ($(task_comm "$_p")): $_got, want $_want"
			return 1
		}
	done
	return 0
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
