#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# cpumask = irq:NAME on the real thing (issue 43.4): wqrtd binds the
# 8250's flip workqueue to the CPUs its port's interrupt is delivered to
# (/proc/irq/N/effective_affinity_list), follows it when the affinity is
# written, says when no such interrupt exists, and puts the cpumask back
# on SIGTERM. The interrupt is the one of the UART the other tests put in
# loopback (ttyS2 in the VM, its handler called ttyS0 there: the 8250
# names a shared interrupt after its first port); bytes through it make
# the interrupts that carry out a move, which the x86 IO-APIC defers to
# the next interrupt.
. "$(dirname "$0")/lib.sh"
ktap_print_header

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ "$(nproc)" -ge 2 ] || skip_all "one CPU: nowhere to move an interrupt"
FLIP=$(flip_wq_8250) ||
	skip_all "no ttyS flip workqueue in sysfs (it comes with the series)"
uart_ready
IRQ=$(cat "/sys/class/tty/${UART#/dev/}/irq" 2>/dev/null)
NAME=
for h in "/proc/irq/$IRQ"/*; do
	[ -d "$h" ] && { NAME=${h##*/}; break; }
done
[ -n "$NAME" ] || skip_all "no handler of $UART's interrupt (${IRQ:-none}) in /proc/irq"
ktap_set_plan 5

ORIG_MASK=$(cat "$WQDIR/$FLIP/cpumask")
ORIG_AFF=$(cat "/proc/irq/$IRQ/smp_affinity_list")
ORIG_EFF=$(cat "/proc/irq/$IRQ/effective_affinity_list")
# Is the interrupt delivered to CPU(s) $1? If not, bytes through the UART
# in loopback make the interrupt at which the x86 IO-APIC carries out a
# move
irq_at() {
	[ "$(effective)" = "$1" ] && return 0
	"$LOOP" "$UART" 16 > /dev/null 2>&1
	[ "$(effective)" = "$1" ]
}
# as found: where it was delivered (the other tests count on it), then
# the affinity asked for, which keeps it there
restore_irq() {
	echo "$ORIG_EFF" > "/proc/irq/$IRQ/smp_affinity_list"
	wait_for 10 irq_at "$ORIG_EFF"
	echo "$ORIG_AFF" > "/proc/irq/$IRQ/smp_affinity_list"
}

# the cpumask sysfs shows (hex, "3" or "00000003") as a number, and the
# same of a cpulist ("0-1,3"); 2 vCPUs: far below 32 bits
mask_value() { printf '%d' "0x$(cat "$WQDIR/$FLIP/cpumask" | tr -d ,)"; }
list_value() {
	_v=0
	for _c in $(cpulist_cpus "$1"); do
		_v=$((_v | (1 << _c)))
	done
	echo "$_v"
}
effective() { cat "/proc/irq/$IRQ/effective_affinity_list"; }
follows() { [ "$(mask_value)" = "$(list_value "$(effective)")" ]; }

cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 1

[wq:$FLIP]
cpumask = irq:$NAME
CONF
start_wqrtd
wait_ready
ktap_print_msg "IRQ $IRQ ($NAME): effective $(effective), asked $ORIG_AFF; $FLIP cpumask $ORIG_MASK"
ktap_test_result "$FLIP's cpumask is the CPUs of IRQ $IRQ ($NAME): $(effective)" \
	wait_for 10 follows

# move it to the CPU it is not on now (the first one of those online)
BEFORE=$(effective)
TO=$(for c in $(seq 0 $(($(nproc) - 1))); do
	[ "$(list_value "$c")" = "$(list_value "$BEFORE")" ] || { echo "$c"; break; }
done)
echo "$TO" > "/proc/irq/$IRQ/smp_affinity_list"
ktap_print_msg "IRQ $IRQ: affinity $TO written (effective $BEFORE)"
moved() { irq_at "$TO"; }
wait_for 10 moved
ktap_print_msg "IRQ $IRQ: effective $(effective) now"
ktap_test_result "IRQ $IRQ moved to CPU $TO: $FLIP's cpumask follows it within a rescan" \
	eval 'moved && wait_for 10 follows'
restore_irq

printf '[global]\nrescan_interval = 1\n[wq:%s]\ncpumask = irq:wqrt_no_such_irq\n' "$FLIP" > "$CONF"
kill -HUP "$DPID"
ktap_test_result "no such interrupt: said, and the cpumask put back ($ORIG_MASK)" \
	eval 'wait_for 10 logged "cpumask = irq:wqrt_no_such_irq: no interrupt has a handler called wqrt_no_such_irq" &&
		wait_for 10 attr_is "$FLIP" cpumask "$ORIG_MASK"'

printf '[global]\nrescan_interval = 1\n[wq:%s]\ncpumask = irq:%s\n' "$FLIP" "$NAME" > "$CONF"
kill -HUP "$DPID"
wait_for 10 follows
stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
ktap_test_result "SIGTERM: $FLIP's cpumask back to $ORIG_MASK" attr_is "$FLIP" cpumask "$ORIG_MASK"
restore_irq
finish
