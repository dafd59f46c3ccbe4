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

cat > "$CONF" <<CONF
[global]
log_level = debug
; no periodic rescan inside the measurement
rescan_interval = 0

[kworker:kworker/u*]
policy = fifo
rtprio = 3
CONF

# Run "$@" and check wqrtd's CPU during it
measure() {
	_what=$1
	shift
	_before=$(task_cpu_ticks "$DPID")
	_out=$("$@")
	_after=$(task_cpu_ticks "$DPID")
	_used=$((_after - _before))
	ktap_print_msg "$_what: $_out; wqrtd used $_used tick(s) (at most $MAX_TICKS)"
	[ "$_used" -le "$MAX_TICKS" ]
}

ktap_set_plan 5
OLD_RMEM=$(cat /proc/sys/net/core/rmem_max)
echo 212992 > /proc/sys/net/core/rmem_max
start_wqrtd
ktap_test_result "wqrtd starts" wait_for 10 logged "mode"
ktap_test_result "the proc connector buffer is 4 MiB, past rmem_max" \
	logged "proc connector: receive buffer 4194304 bytes"
sleep 1
ktap_test_result "a fork storm (up to 10000 a second) costs wqrtd under 2 % CPU" \
	measure "fork storm" "$LOAD" storm $SECS 10000
ktap_test_result "a process renaming itself kworker/u9:N in a loop costs wqrtd under 2 % CPU" \
	measure "rename loop" "$LOAD" rename $SECS
ktap_test_result "wqrtd is still running" alive
echo "$OLD_RMEM" > /proc/sys/net/core/rmem_max
finish
