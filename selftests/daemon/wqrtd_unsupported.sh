#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A [wq:] policy on a kernel without the series (issue 16, point 8): it
# can reach the workqueue's rescuer alone, so it is reported as
# unsupported, a warning and drift in wqrtctl status, not an empty plan.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
command -v wqrtctl > /dev/null || skip_all "wqrtctl is not on PATH"
[ -e "$WQDIR/writeback/nice" ] || skip_all "no $WQDIR/writeback"
[ "$(series_expected)" = 1 ] && skip_all "the kernel has the series (wqrt.series=1, or a policy attribute)"

cat > "$CONF" <<CONF
[wq:writeback]
policy = fifo
rtprio = 5
CONF

ktap_set_plan 4
wqrtctl status -c "$CONF" > "$TMPD/status" 2>&1
ktap_test_result "wqrtctl status exits 10 (drift)" [ $? -eq 10 ]
ktap_test_result "...and shows the policy as unsupported" \
	grep -q "policy .*actual (unsupported)" "$TMPD/status"
wqrtd --dry-run -c "$CONF" > "$TMPD/plan" 2>&1
ktap_test_result "--dry-run says the kernel does not support it" \
	grep -q "^!policy = fifo: not supported by this kernel" "$TMPD/plan"
wqrtd --once -c "$CONF" > "$LOG" 2>&1
ktap_test_result "--once warns" \
	logged "writeback: policy and rtprio are not supported by this kernel"
finish
