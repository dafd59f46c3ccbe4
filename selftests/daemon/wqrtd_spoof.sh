#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Netlink messages that claim kernel events but come from user space are
# ignored: a fake proc connector FORK and COMM for a real kworker, and a
# fake uevent for a real workqueue, sent with nl_spoof. Both were changed
# behind wqrtd's back after it applied its profile: had wqrtd taken a
# spoofed message for the kernel's, it would have applied the profile to
# them again.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
SPOOF=$(helper nl_spoof) || skip_all "nl_spoof helper not found"

# Real kernel objects that wqrtd would act on if it believed the spoofed
# messages: the rescuer of mm_percpu_wq (a kworker that never goes away)
# and the writeback workqueue. Both are profiled, then changed behind
# wqrtd's back; with no rescan, only a FORK event or a uevent would make
# wqrtd look at them again. Spoofed ones must not.
RESCUER=$(kthreads kworker/R-mm_percpu_wq)
[ -n "$RESCUER" ] || skip_all "no kworker/R-mm_percpu_wq"
[ -e "$WQDIR/writeback/nice" ] || skip_all "no $WQDIR/writeback"

cat > "$CONF" <<CONF
[global]
log_level = debug
rescan_interval = 0

[kworker:kworker/R-mm_percpu_wq]
policy = fifo
rtprio = 7

[wq:writeback]
nice = -3
CONF

IGNORED="ignored proc connector netlink message from port"
ktap_set_plan 8
NICE=$(cat "$WQDIR/writeback/nice")
start_wqrtd
applied() { [ "$(task_sched "$RESCUER")" = "1 7" ] && attr_is writeback nice -3; }
ready_applied() { wait_ready && applied; }
ktap_test_result "wqrtd starts and applies the profiles" ready_applied

# behind wqrtd's back: no event tells it, no rescan comes
chrt -o -p 0 "$RESCUER"
echo "$NICE" > "$WQDIR/writeback/nice"
"$SPOOF" fork "$RESCUER"
ktap_test_result "a FORK event from user space is ignored" \
	wait_for 5 logged "$IGNORED"
ktap_test_result "...and the kworker it names was not acted on (still SCHED_OTHER)" \
	all_sched "0 0" "$RESCUER"
# wqrtd takes no COMM events at all: the kernel-side filter drops them.
# The FORK after it marks the point where the COMM would have arrived.
"$SPOOF" comm "$RESCUER"
"$SPOOF" fork "$RESCUER"
two_ignored() { [ "$(logged_count "$IGNORED")" -ge 2 ]; }
comm_filtered() {
	wait_for 5 two_ignored || return 1
	# had the COMM reached wqrtd, it would be one more ignored message
	[ "$(logged_count "$IGNORED")" -eq 2 ]
}
ktap_test_result "a COMM event never reaches wqrtd (filtered in the kernel)" \
	comm_filtered
"$SPOOF" uevent writeback
ktap_test_result "a uevent from user space is ignored" \
	wait_for 5 logged "ignored uevent netlink message from port"
ktap_test_result "...and the workqueue it names was not acted on (nice $NICE)" \
	attr_is writeback nice "$NICE"
ktap_test_result "wqrtd is still running" alive
stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
finish
