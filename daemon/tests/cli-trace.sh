#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wqrtctl latency and who leave nothing in tracefs, whatever ends them
# (issue 46.3, 46.4): on a fake root whose tracing directory plays
# tracefs's manners (wqrtctl-faketrace: wqrtctl on a fake libtracefs,
# tests/fake_tracefs.c). A reader that goes away, SIGQUIT, a removal
# that fails (said, exit 74), and a SIGKILL whose leftovers wqrtd takes
# out at its next scan. TAP output.
# Usage: cli-trace.sh BUILDDIR
B=${1:?usage: cli-trace.sh BUILDDIR}
. "$(dirname "$0")/../../selftests/lib/ktap.sh"
. "$(dirname "$0")/fake-root.sh"
make_fake_root trace
C=$B/tests/wqrtctl-faketrace
make_fake_tracefs
echo "ffffffff81000000 T flush_to_ldisc" > "$T/proc/kallsyms"
printf '[wq:tty_flip]\nnice = -4\n' > "$T/nice.conf"
printf '[global]\nrescan_interval = 1\n[wq:tty_flip]\nnice = -4\n' > "$T/fast.conf"

# nothing of wqrtctl's left: no instance, no synthetic event, no trigger
clean() {
	[ -z "$(ls "$TR/instances")" ] &&
		! grep -q '^wqrtctl_' "$TR/synthetic_events" &&
		! grep -qs . "$TR"/events/workqueue/*/trigger
}
instance_of() { [ -d "$TR/instances/wqrtctl-$1" ]; }

ktap_print_header
ktap_set_plan 12

"$C" latency --root "$T" --duration 0.5 --json > "$T/out" 2> "$T/err"
RC=$?
ktap_test_result "latency --duration on the fake tracing directory: exit 0, a summary" \
	sh -c "[ $RC -eq 0 ] && grep -q '\"schema\"' '$T/out'"
ktap_test_result "...and nothing of it is left" clean

# a reader that goes away: the measurement ends, everything is taken out
"$C" latency --root "$T" --interval 0.2 2> "$T/err" | head -n 1 > "$T/out"
ktap_test_result "latency | head -n 1: ends when head is gone" \
	grep -q 'queue -> start latency' "$T/out"
ktap_test_result "...and nothing of it is left (SIGPIPE ignored, EPIPE ends it)" clean

# SIGQUIT ends it as SIGINT does
"$C" latency --root "$T" > "$T/out" 2> "$T/err" &
L=$!
within5 instance_of $L
kill -QUIT $L
wait $L
RC=$?
ktap_test_result "SIGQUIT: latency exits 0 with its summary (got $RC)" \
	sh -c "[ $RC -eq 0 ] && grep -q 'queue -> start latency' '$T/out'"
ktap_test_result "...and nothing of it is left" clean

# a removal that fails: said with the path, exit 74
"$C" latency --root "$T" > "$T/out" 2> "$T/err" &
L=$!
within5 instance_of $L
# another tool's trigger names its event: the kernel says EBUSY
echo "hist:keys=work:onmatch(x).trace(wqrtctl_${L}_lat,\$y)" \
	> "$TR/events/workqueue/workqueue_execute_end/trigger"
kill -INT $L
wait $L
RC=$?
sed 's/^/# /' "$T/err"
ktap_test_result "a synthetic event that cannot be removed: exit 74 (got $RC)" [ $RC -eq 74 ]
ktap_test_result "...the message names the file and the event" \
	grep -qF "wqrtctl: $TR/synthetic_events: cannot remove the synthetic event wqrtctl_${L}_lat: Device or resource busy" "$T/err"
: > "$TR/events/workqueue/workqueue_execute_end/trigger"

# SIGKILL leaves it all; wqrtd's next scan takes it out
"$C" latency --root "$T" > /dev/null 2> "$T/err" &
L=$!
within5 instance_of $L
kill -KILL $L
wait $L 2> /dev/null
ktap_test_result "SIGKILL: latency's instance and events are left" \
	sh -c "[ -d '$TR/instances/wqrtctl-$L' ] && grep -q '^wqrtctl_${L}_' '$TR/synthetic_events'"
"$B/wqrtd" --foreground -c "$T/fast.conf" --root "$T" 2> "$T/dlog" &
D=$!
within5 clean
ktap_test_result "...wqrtd takes them out at start, and says so" \
	sh -c "grep -q 'took out 3 tracefs instance(s) and synthetic event(s)' '$T/dlog'"
# a kill while wqrtd runs: its rescan (every second here) takes them out
"$C" latency --root "$T" > /dev/null 2> "$T/err" &
L=$!
within5 instance_of $L
kill -KILL $L
wait $L 2> /dev/null
within5 clean
ktap_test_result "...and at a rescan while it runs" clean
kill -TERM $D
wait $D

# who: the same session, and the same end
"$C" who --root "$T" --duration 0.3 flush_to_ldisc > "$T/out" 2> "$T/err"
RC=$?
ktap_test_result "who on the fake tracing directory: exit 0, nothing left (got $RC)" \
	sh -c "[ $RC -eq 0 ] && grep -q 'flush_to_ldisc: not queued' '$T/out'" && clean
ktap_finished
