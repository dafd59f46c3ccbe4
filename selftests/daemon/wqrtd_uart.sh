#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The IMU-over-UART case (seeds/004): a UART driver's flip buffer
# workqueue (the 8250's ttyS-serial_8250, the PL011's ttyAMA-ttyAMA), made
# fifo 20 on CPU 0 by wqrtd from a wqrt.conf section; bytes sent through
# a UART in loopback come back intact, and every
# flush_to_ldisc() work item that carried them ran in a kworker that was
# SCHED_FIFO 20, on CPU 0 (trace events, /proc/PID/stat). SIGTERM puts the
# workqueue back.
#
# The UART is the VM's third serial port (run-vm.sh: ttyS0 is the console,
# ttyS1 the TAP stream), WQRT_UART to use another. A UART without loopback
# (arm64's PL011 under QEMU 7.2) is tested when the kernel command line
# names it in wqrt.uart_peer=: someone at the other end of the line
# (run-vm.sh's uart-peer.py) sends the bytes back on request. The flip
# workqueue is named after the tty driver, "<name>-<driver_name>"
# (WQRT_UART_WQ to give it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/wqrt_trace.sh"

ktap_print_header

peer=$(sed -n 's/.*wqrt\.uart_peer=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -z "${WQRT_UART:-}" ] && [ -n "$peer" ]; then
	UART=/dev/$peer LOOP_ARGS=--peer HOW="from the host end of the line"
else
	UART=${WQRT_UART:-/dev/ttyS2} LOOP_ARGS= HOW="in loopback"
fi
# the tty driver's name and driver_name (8250, amba-pl011)
case "${UART#/dev/}" in
ttyAMA*) WQ=ttyAMA-ttyAMA ;;
*) WQ=ttyS-serial_8250 ;;
esac
WQ=${WQRT_UART_WQ:-$WQ}
LOOP=$(helper uart_loop || helper selftests/uart_loop)

command -v wqrtd > /dev/null || skip_all "wqrtd is not on PATH"
[ "$(series_expected)" = 1 ] ||
	skip_all "kernel without the workqueue RT series (wqrt.series=0, or no policy attribute)"
# a driver registers its workqueue even without a port: none is a kernel
# without the driver or without the tty flip workqueue patch
[ -d "$WQDIR/$WQ" ] ||
	skip_all "no $WQ workqueue: no driver for $UART, or a kernel without the tty flip workqueue patch"
[ -n "$LOOP" ] || skip_all "no uart_loop helper"
[ -c "$UART" ] || skip_all "no $UART"
# a placeholder port with no UART behind it (arm64's virt has none) is
# type 0, PORT_UNKNOWN
[ "$(cat "/sys/class/tty/${UART#/dev/}/type" 2>/dev/null || echo 0)" -gt 0 ] ||
	skip_all "no UART behind $UART"
trace_ready || skip_all "no workqueue trace events in tracefs"

cat > "$CONF" <<CONF
[global]
log_level = debug
restore_on_exit = yes
rescan_interval = 2

# the flip buffer workqueue of $UART's driver
[wq:$WQ]
policy = fifo
rtprio = 20
cpumask = 0
CONF

# the ptys keep system_unbound_wq (TTY_DRIVER_NO_WORKQUEUE)
no_pty_wq() {
	for d in "$WQDIR"/pty* "$WQDIR"/ptm* "$WQDIR"/pts*; do
		[ -e "$d" ] && { ktap_print_msg "$d exists"; return 1; }
	done
	return 0
}

ktap_set_plan 10
ORIG_CPUMASK=$(cat "$WQDIR/$WQ/cpumask")
ktap_test_result "$WQ is an unbound workqueue in sysfs" attr_is $WQ per_cpu 0
ktap_test_result "the pty drivers have no flip workqueue" no_pty_wq

start_wqrtd
# ready: the first scan applied the whole profile (policy first, then
# rtprio and cpumask)
wait_ready
ktap_test_result "wqrtd applies fifo to $WQ" attr_is $WQ policy fifo
ktap_test_result "...rtprio 20" attr_is $WQ rtprio 20
ktap_test_result "...cpumask CPU 0 ($(cat "$WQDIR/$WQ/cpumask"))" \
	[ "$(printf '%d' "0x$(cat "$WQDIR/$WQ/cpumask")")" -eq 1 ]

# shellcheck disable=SC2086 # LOOP_ARGS: no word or one
if trace_run "$TMPD/trace" "$LOOP" $LOOP_ARGS "$UART" 4096 > "$TMPD/loop" 2>&1; then
	ktap_test_pass "4096 bytes through $UART $HOW come back intact"
else
	ktap_test_fail "4096 bytes through $UART $HOW come back intact"
	sed 's/^/#   /' "$TMPD/loop"
fi
ktap_test_result "every flush_to_ldisc of $WQ ran in a fifo 20 kworker on CPU 0" \
	trace_all_rt "$TMPD/trace" $WQ flush_to_ldisc "1 20" 0
# shellcheck disable=SC2046 # one pid a word
ktap_test_result "every kworker of $WQ's pools is fifo 20" \
	all_sched "1 20" $(wq_kworkers $WQ)

stop_wqrtd
ktap_test_result "SIGTERM: wqrtd exits 0" [ $? -eq 0 ]
ktap_test_result "SIGTERM: $WQ back to normal, rtprio 0, cpumask $ORIG_CPUMASK" \
	[ "$(cat "$WQDIR/$WQ/policy" "$WQDIR/$WQ/rtprio" "$WQDIR/$WQ/cpumask" | xargs)" = "normal 0 $ORIG_CPUMASK" ]
finish
