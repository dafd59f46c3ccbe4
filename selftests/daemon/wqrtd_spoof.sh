#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Netlink messages that claim kernel events but come from user space are
# ignored: a fake proc connector FORK/COMM for a process named like a
# kworker, and a fake uevent for a workqueue, sent with nl_spoof.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
SPOOF=$(helper nl_spoof) || skip_all "nl_spoof helper not found"

cat > "$CONF" <<CONF
[global]
log_level = debug
rescan_interval = 0

[kworker:kworker/u99*]
policy = fifo
rtprio = 7

[wq:wqrt_spoofed]
nice = -3
CONF

ktap_set_plan 7
# a user process that calls itself a kworker
sh -c 'printf kworker/u99:0 > /proc/$$/comm; while :; do sleep 1; done' &
FAKE=$!
start_wqrtd
ktap_test_result "wqrtd starts" wait_for 10 logged "mode"
sleep 1

"$SPOOF" fork "$FAKE"
ktap_test_result "a FORK event from user space is ignored" \
	wait_for 5 logged "ignored proc connector netlink message from port"
"$SPOOF" comm "$FAKE"
sleep 1
ktap_test_result "the process named kworker/u99:0 stays SCHED_OTHER" \
	all_sched "0 0" "$FAKE"
# wqrtd takes no COMM events at all: the kernel-side filter drops them
ktap_test_result "a COMM event never reaches wqrtd (filtered in the kernel)" \
	[ "$(grep -c 'ignored proc connector netlink message' "$LOG")" -eq 1 ]
"$SPOOF" uevent wqrt_spoofed
ktap_test_result "a uevent from user space is ignored" \
	wait_for 5 logged "ignored uevent netlink message from port"
ktap_test_result "...and no workqueue was acted on" \
	sh -c "! grep -q 'new workqueue wqrt_spoofed' '$LOG'"
ktap_test_result "wqrtd is still running" alive
kill "$FAKE"
finish
