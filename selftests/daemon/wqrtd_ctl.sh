#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtctl on a real kernel: list (issue 13), restore after --once, status
# asking the running daemon, check-kernel (issue 17). Valid on the
# patched and the plain kernel: what differs is checked by what the runner
# declares the kernel to be (wqrt.series=, lib.sh's series_expected), not
# by what sysfs shows, which would pass a kernel that lost the series.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
command -v wqrtctl > /dev/null || skip_all "wqrtctl is not on PATH"
RESCUER=$(kthreads kworker/R-mm_percpu_wq)
[ -n "$RESCUER" ] || skip_all "no kworker/R-mm_percpu_wq"
SERIES=$(series_expected)
series_declared || ktap_print_msg "no wqrt.series= on the command line: going by the kernel (series $SERIES)"
OUT=$TMPD/out

ktap_set_plan 17
# what a person reads, in the log of every run
show() { sed 's/^/#   /' "$OUT"; }

# list: what is reachable, and what is not and why
wqrtctl list > "$OUT" 2>&1
ktap_test_result "list exits 0" [ $? -eq 0 ]
ktap_test_result "list: writeback is unbound and reachable" \
	grep -qE '^writeback +unbound ' "$OUT"
wqrtctl list --all > "$OUT" 2>&1
show
ktap_test_result "list --all: mm_percpu_wq is out of reach (its rescuer said so)" \
	grep -qE '^mm_percpu_wq +(per-cpu|unknown) .*(seen as kworker/)' "$OUT"

# a section that matches nothing: a warning, not an error
printf '[wq:writeback]\nnice = -3\n[wq:no_such_wq*]\nnice = 1\n' > "$CONF"
wqrtd --check -c "$CONF" > "$OUT" 2>&1
ktap_test_result "--check: a section matching nothing is no error" [ $? -eq 0 ]
ktap_test_result "...but a warning" grep -qF '[wq:no_such_wq*]: matches no workqueue' "$OUT"

# restore after --once: the workqueue attribute and the rescuer come back
cat > "$CONF" <<CONF
[wq:writeback]
nice = -3
[kworker:kworker/R-mm_percpu_wq]
policy = fifo
rtprio = 3
CONF
NICE=$(cat "$WQDIR/writeback/nice")
rm -f /run/wqrtd/originals
wqrtd --once -c "$CONF" > "$LOG" 2>&1
once_applied() {
	attr_is writeback nice -3 && [ "$(task_sched "$RESCUER")" = "1 3" ]
}
ktap_test_result "--once applies" once_applied
ktap_test_result "--once saved the originals" [ -s /run/wqrtd/originals ]
wqrtctl restore > "$OUT" 2>&1
ktap_test_result "restore exits 0" [ $? -eq 0 ]
ktap_test_result "restore: writeback's nice is back" attr_is writeback nice "$NICE"
ktap_test_result "restore: the rescuer is SCHED_OTHER again" all_sched "0 0" "$RESCUER"

# status asks the running daemon
start_wqrtd
wait_ready
wqrtctl status > "$OUT" 2>&1
ktap_test_result "status: wqrtd runs, with its pid" \
	grep -q "^wqrtd: running (pid $DPID), holding $CONF" "$OUT"
printf '[wq:writeback]\nnice = -4\n' > "$CONF"
wqrtctl status > "$OUT" 2>&1
ktap_test_result "status after an edit: no drift against what wqrtd holds" [ $? -eq 0 ]
ktap_test_result "...and the edit is named" grep -qF "note: $CONF changed since" "$OUT"
kill -HUP "$DPID"
reloaded() {
	wqrtctl status > "$OUT" 2>&1 && grep -q 'desired -4 *actual -4' "$OUT" &&
		! grep -q '^note:' "$OUT"
}
ktap_test_result "status after the reload: what it holds now, no note" \
	wait_for 10 reloaded
show
stop_wqrtd
wqrtctl status -c "$CONF" > "$OUT" 2>&1
ktap_test_result "status after it stopped: not running" grep -qx "wqrtd: not running" "$OUT"

# check-kernel: the series is there or not, as sysfs says
wqrtctl check-kernel > "$OUT" 2>&1
rc=$?
show
if [ "$SERIES" = 1 ] && ! reserve_expected; then
	# a prefix of the series (make kernel-each): policy, no reserve yet
	ktap_test_result "check-kernel: policy is there, nr_idle_extra named missing" \
		sh -c "grep -qE '^ok +policy +required' '$OUT' &&
		       grep -qE '^MISSING +nr_idle_extra +required' '$OUT'"
	ktap_test_result "check-kernel: exit 69 (EX_UNAVAILABLE) without nr_idle_extra" \
		[ $rc -eq 69 ]
elif [ "$SERIES" = 1 ]; then
	ktap_test_result "check-kernel: the series' attributes are there" \
		grep -qE '^ok +policy +required' "$OUT"
	ktap_test_result "check-kernel: PREEMPT_RT and the connector, exit 0 or 66 (no config)" \
		sh -c "grep -qE '^ok +CONFIG_PREEMPT_RT ' '$OUT' &&
		       grep -qE '^ok +CONFIG_CONNECTOR ' '$OUT' &&
		       { [ $rc -eq 0 ] || [ $rc -eq 66 ]; }"
else
	ktap_test_result "check-kernel: the series' attributes are missing" \
		grep -qE '^MISSING +policy +series' "$OUT"
	ktap_test_result "check-kernel: wqrtd works in fallback mode, exit 0 or 66 (no config)" \
		sh -c "grep -q 'wqrtd works on this kernel in fallback mode' '$OUT' &&
		       { [ $rc -eq 0 ] || [ $rc -eq 66 ]; }"
fi
finish
