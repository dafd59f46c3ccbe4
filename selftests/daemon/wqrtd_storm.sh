#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What anyone can make wqrtd spend (issue 16, point 3): a storm of forks
# and a rename loop, by an ordinary process, cost wqrtd next to nothing;
# the kernel filters the proc connector events, and the receive buffer is
# the size asked for, past net.core.rmem_max.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
LOAD=$(helper nl_spoof) || skip_all "nl_spoof helper not found"
[ -r /proc/sys/net/core/rmem_max ] || skip_all "no net.core.rmem_max"

SECS=5
# wqrtd's CPU, in clock ticks (USER_HZ, 100 a second), at most this share
# of the run: 2 %
MAX_TICKS=$((SECS * 100 * 2 / 100))
# The load must be there for its cost to mean anything: the storm asks
# 10000 forks a second, and a TCG guest on a loaded host reaches 60 to 300
# (the renames some 3000); fewer than MIN_FORKS_S (or MIN_RENAMES_S
# renames) is no storm, and fails.
MIN_FORKS_S=30
MIN_RENAMES_S=1000

cat > "$CONF" <<CONF
[global]
log_level = debug
; no periodic rescan inside the measurement
rescan_interval = 0

[kworker:kworker/u*]
policy = fifo
rtprio = 3
CONF

# measure WHAT MIN_PER_S CMD...: run CMD, which prints "N <what> in ...",
# and check that it did at least MIN_PER_S a second and that wqrtd's CPU
# stayed under MAX_TICKS meanwhile
measure() {
	_what=$1 _min=$2
	shift 2
	_before=$(task_cpu_ticks "$DPID")
	_out=$("$@")
	_after=$(task_cpu_ticks "$DPID")
	_used=$((_after - _before))
	_n=${_out%% *}
	ktap_print_msg "$_what: $_out; wqrtd used $_used tick(s) (at most $MAX_TICKS)"
	case "$_n" in
	'' | *[!0-9]*) ktap_print_msg "$_what: no count in '$_out'"; return 1 ;;
	esac
	if [ "$_n" -lt $((_min * SECS)) ]; then
		ktap_print_msg "$_what: $_n in $SECS s, fewer than $_min a second: no load to measure"
		return 1
	fi
	[ "$_used" -le "$MAX_TICKS" ]
}

ktap_set_plan 5
OLD_RMEM=$(cat /proc/sys/net/core/rmem_max)
echo 212992 > /proc/sys/net/core/rmem_max
start_wqrtd
ktap_test_result "wqrtd starts" wait_ready
ktap_test_result "the proc connector buffer is 4 MiB, past rmem_max" \
	logged "proc connector: receive buffer 4194304 bytes"
ktap_test_result "a fork storm (asked 10000 a second, at least $MIN_FORKS_S reached) costs wqrtd under 2 % CPU" \
	measure "fork storm" $MIN_FORKS_S "$LOAD" storm $SECS 10000
ktap_test_result "a process renaming itself kworker/u9:N in a loop (at least $MIN_RENAMES_S a second) costs wqrtd under 2 % CPU" \
	measure "rename loop" $MIN_RENAMES_S "$LOAD" rename $SECS
ktap_test_result "wqrtd is still running" alive
echo "$OLD_RMEM" > /proc/sys/net/core/rmem_max
finish
