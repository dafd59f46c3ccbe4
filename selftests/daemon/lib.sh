#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the wqrtd VM tests: TAP output, reading a task's real
# scheduling policy, waiting, starting and stopping wqrtd. busybox sh.

WQDIR=/sys/devices/virtual/workqueue
TMPD=${TMPDIR:-/tmp}/wqrtd-test.$$
mkdir -p "$TMPD"
CONF=$TMPD/wqrt.conf
LOG=$TMPD/wqrtd.log
DPID=
_n=0
_fail=0

plan() { echo "1..$1"; }
ok() { _n=$((_n + 1)); echo "ok $_n $1"; }
not_ok() { _n=$((_n + 1)); _fail=$((_fail + 1)); echo "not ok $_n $1"; }
skip() { _n=$((_n + 1)); echo "ok $_n $1 # SKIP $2"; }
check() {
	_d=$1
	shift
	if "$@"; then ok "$_d"; else not_ok "$_d"; fi
}
skip_all() { echo "1..0 # SKIP $1"; cleanup; exit 0; }
diag() { echo "# $*"; }
finish() {
	cleanup
	echo "# $((_n - _fail)) passed, $_fail failed"
	[ "$_fail" -eq 0 ]
	exit $?
}
cleanup() {
	[ -n "$DPID" ] && kill -TERM "$DPID" 2>/dev/null && wait "$DPID"
	DPID=
	if [ -s "$LOG" ] && [ "$_fail" -ne 0 ]; then
		diag "wqrtd log:"
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

# "policy rtprio" of a task from /proc/PID/stat fields 41 and 40; the comm
# (field 2) may hold spaces, so cut after the last ')'. 0 other, 1 fifo,
# 2 rr.
sched_of() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null |
		awk '{ print $39, $38 }'
}

comm_of() { cat "/proc/$1/comm" 2>/dev/null; }

# kthreadd's children whose name starts with $1
kworkers() {
	for _s in /proc/[0-9]*/stat; do
		_pid=${_s#/proc/}
		_pid=${_pid%/stat}
		_c=$(comm_of "$_pid")
		case "$_c" in
		"$1"*) ;;
		*) continue ;;
		esac
		_pp=$(sed 's/.*) //' "$_s" 2>/dev/null | awk '{ print $2 }')
		[ "$_pp" = 2 ] && echo "$_pid"
	done
}

# The kworkers of a workqueue's unbound pools (from pool_ids).
pool_kworkers() {
	for _pair in $(cat "$WQDIR/$1/pool_ids"); do
		kworkers "kworker/u${_pair#*:}:"
	done
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
		_got=$(sched_of "$_p")
		[ -z "$_got" ] && continue
		[ "$_got" = "$_want" ] || { diag "pid $_p ($(comm_of "$_p")): $_got, want $_want"; return 1; }
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
