#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# shellcheck disable=SC2016 # results' conditions are eval'ed strings
# wqrtctl latency --why (issue 47.3) names what made a work item late: the
# UART's flip workqueue bound to CPU 1 (the series puts it in sysfs), a
# SCHED_FIFO 50 busy loop on CPU 1 for 4 s, bytes through ttyS2 in
# loopback from CPU 0, its interrupt on CPU 0. Every flip work item waits
# behind the hog until RT throttling gives SCHED_NORMAL its 50 ms a
# second (the fair server); latency --why
# must count late items and name the hog, by its pid, as the first
# culprit, and print the latest late item's wait in full.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wqrt_trace.sh"
ktap_print_header

command -v wqrtctl > /dev/null || skip_all "wqrtctl is not on PATH"
uart_ready
trace_ready || skip_all "no workqueue trace events in tracefs"
[ "$(nproc)" -ge 2 ] || skip_all "one CPU: no CPU to give the hog"
WQ=$(flip_wq_8250) ||
	skip_all "no ttyS flip workqueue in sysfs (it comes with the series)"

ktap_set_plan 5
MASK=$(cat "$WQDIR/$WQ/cpumask")
# The premise: the flip work runs SCHED_NORMAL on CPU 1 only, so that it
# waits behind the hog, and the UART's interrupt is delivered to CPU 0, so
# that its threaded handler (FIFO 50, as the hog) queues the work while
# the hog runs. With the interrupt on CPU 1 the handler itself waits for
# the hog, nothing is queued until the hog is done and no item is late:
# make kernel-each's run of patches 1..12 (2026-12-04: max 4.35 ms, none
# late) and this test after wqrtd_irq.sh had moved it there (reproduced
# 2026-12-05). An earlier test that left the workqueue RT, or a write
# that did not take, would do the same. Said before the hog starts, with
# what its kworkers run.
POLICY=$(cat "$WQDIR/$WQ/policy" 2>/dev/null || echo normal)
echo 2 > "$WQDIR/$WQ/cpumask"
BOUND=$(cat "$WQDIR/$WQ/cpumask")
IRQ=$(cat "/sys/class/tty/${UART#/dev/}/irq")
IRQ_AFF=$(cat "/proc/irq/$IRQ/smp_affinity_list")
echo 0 > "/proc/irq/$IRQ/smp_affinity_list"
# the x86 IO-APIC moves an interrupt at its next one: bytes make them
irq_on_cpu0() {
	[ "$(cat "/proc/irq/$IRQ/effective_affinity_list")" = 0 ] && return 0
	taskset -c 0 "$LOOP" "$UART" 16 > /dev/null 2>&1
	[ "$(cat "/proc/irq/$IRQ/effective_affinity_list")" = 0 ]
}
wait_for 10 irq_on_cpu0
IRQ_CPU=$(cat "/proc/irq/$IRQ/effective_affinity_list")
KW=
for k in $(wq_kworkers "$WQ"); do
	KW="$KW $k:$(task_sched "$k" | tr ' ' /)"
done
ktap_print_msg "$WQ bound to CPU 1 (was $MASK, now $BOUND), policy $POLICY, kworkers (pid:policy/rtprio):${KW:- none yet}; IRQ $IRQ of $UART on CPU $IRQ_CPU (asked: $IRQ_AFF before)"
premise_holds() {
	[ "$POLICY" = normal ] && [ "$BOUND" = 2 ] && [ "$IRQ_CPU" = 0 ]
}
ktap_test_result "the flip workqueue is SCHED_NORMAL and bound to CPU 1, its UART's interrupt on CPU 0 (policy $POLICY, cpumask $BOUND, IRQ $IRQ on $IRQ_CPU)" \
	premise_holds

# bytes through the UART from CPU 0, all along
( while [ ! -e "$TMPD/stop" ]; do
	taskset -c 0 "$LOOP" "$UART" 64 > /dev/null 2>&1
done ) &
TRAFFIC=$!
# latency measuring first (its setup waits on RCU, which a hog on CPU 1
# would hold up), then the hog inside its window: FIFO 50 on CPU 1 for
# 4 s, ending itself by the clock
taskset -c 0 wqrtctl latency --why 100000 --duration 6 "$WQ" \
	> "$TMPD/why" 2> "$TMPD/why.err" &
LAT=$!
wait_for 60 grep -q measuring "$TMPD/why.err"
chrt -f 50 taskset -c 1 sh -c 'read -r t _ < /proc/uptime
	end=$((${t%.*} + 4))
	while read -r t _ < /proc/uptime && [ "${t%.*}" -lt "$end" ]; do
		:
	done' &
HOG=$!
sleep 1
ktap_print_msg "hog $HOG: $(task_sched "$HOG" | tr ' ' /), $(grep Cpus_allowed_list /proc/$HOG/status 2>/dev/null | tr -s '\t ' ' ')"
wait "$HOG"
wait "$LAT"
RC=$?
touch "$TMPD/stop"
wait "$TRAFFIC"
echo "$MASK" > "$WQDIR/$WQ/cpumask"
echo "$IRQ_AFF" > "/proc/irq/$IRQ/smp_affinity_list"
sed 's/^/#   /' "$TMPD/why.err" "$TMPD/why"

LATE=$(sed -n 's/^why: \([0-9]*\) work item.*/\1/p' "$TMPD/why")
FIRST=$(sed -n '/^ *us  *items  *what$/{n;p;q}' "$TMPD/why" | sed 's/^ *[0-9]* *[0-9]*  //')
ktap_test_result "latency --why 100000: exit 0, late items found (${LATE:-none})" eval \
	'[ "$RC" -eq 0 ] && [ "${LATE:-0}" -gt 0 ]'
ktap_test_result "the first culprit is the FIFO 50 hog, pid $HOG (got: ${FIRST:-nothing})" \
	[ "$FIRST" = "RT 50 sh[$HOG]" ]
ktap_test_result "the latest late item's wait is printed in full, the hog in it" eval \
	'sed -n "/^the latest: $WQ /,\$p" "$TMPD/why" | grep -q "RT 50 sh\[$HOG\]"'
ktap_test_result "nothing of it is left in tracefs" eval \
	'[ "$(instances_left)" -eq 0 ] && [ "$(synth_left)" -eq 0 ]'
finish
