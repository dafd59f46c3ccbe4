#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make demo: runs inside the VM booted on the patched kernel. Shows the
# test workqueue before, applies the example RT profile with wqrtd, and
# reads the result back from sysfs and from the kworker threads themselves.

# The shared helpers: beside this directory in the source tree, or where
# mkinitramfs.sh installs them.
for lib in "$(dirname "$0")/../lib" /usr/lib/wqrt/lib; do
	[ -f "$lib/task.sh" ] && break
done
. "$lib/task.sh"

wq=wqrt_test_unbound
dir=/sys/devices/virtual/workqueue/$wq

show_wq() {
	echo "--- $dir"
	for a in policy rtprio nice nr_idle_extra private cpumask \
		affinity_scope affinity_strict max_active pool_ids; do
		[ -e "$dir/$a" ] && printf '  %-16s %s\n' "$a" "$(cat "$dir/$a")"
	done
}

# The policy and priority of every kworker of the workqueue's pools, read
# from the threads (/proc/PID/stat fields 40 rt_priority and 41 policy).
show_kworkers() {
	for pid in $(wq_kworkers "$wq"); do
		task_read "$pid" || continue
		printf '  %-6s %-22s policy=%-6s rtprio=%s\n' "$pid" "$TASK_COMM" \
			"$(task_policy_name "$TASK_POLICY")" "$TASK_RTPRIO"
	done
}

if [ ! -d "$dir" ]; then
	echo "demo: $dir is missing: the test module did not load"
	exit 1
fi

echo "== The test workqueue on $(uname -r), as the driver created it"
show_wq
if [ ! -e "$dir/policy" ]; then
	echo "demo: this kernel has no 'policy' attribute (kernel without the wqrt series)"
	exit 0
fi

# The shipped /etc/wqrt.conf profiles nothing (it must not fight the
# kselftests over the test workqueues): the user's edit gives the test
# workqueue the example profile rt-critical at rtprio 20.
printf '\n[wq:%s]\nprofile = rt-critical\n; overrides the profile\nrtprio = 20\n' \
	"$wq" >>/etc/wqrt.conf

echo
echo "== The profile in /etc/wqrt.conf"
sed -n '/^\[profile:rt-critical\]/,/^$/p;/^\[wq:wqrt_test_unbound\]/,/^$/p' /etc/wqrt.conf

echo
echo "== wqrtd --check, then --dry-run (the plan), then --once (apply)"
wqrtd --check -c /etc/wqrt.conf || exit 1
wqrtd --dry-run -c /etc/wqrt.conf
wqrtd --once -c /etc/wqrt.conf || exit 1

echo
echo "== The workqueue after wqrtd"
show_wq
# A burst of blocking work makes the pool create new kworkers: they are
# born with the pool's policy.
if [ -e /sys/kernel/debug/wqrt_test/burst ]; then
	echo "wq=unbound n=8 hold_ms=200" >/sys/kernel/debug/wqrt_test/burst
	head -n 1 /sys/kernel/debug/wqrt_test/burst
fi
echo
echo "== Its kworkers, read from the threads"
show_kworkers

echo
echo "== wqrtctl status"
wqrtctl status -c /etc/wqrt.conf

# ----------------------------------------------------------------------
# The IMU-over-UART case of seeds/004: the 8250 UARTs' flip buffer
# workqueue made fifo 20 on CPU 0 by wqrtd, bytes through a UART in
# loopback (ttyS2, run-vm.sh's third serial port), and the kworkers that
# delivered them read back from the trace events and from the threads.
uart_section() {
	local wq=ttyS-serial_8250 uart=/dev/ttyS2 conf=/tmp/wqrt-uart.conf
	local d=/sys/devices/virtual/workqueue/ttyS-serial_8250 t=/sys/kernel/tracing
	local loop=/usr/lib/wqrt/selftests/uart_loop a e pid

	echo
	echo "== The UART case (seed 004): $wq, the flip buffer workqueue of ttyS*"
	if [ ! -d "$d" ]; then
		echo "demo: no $d (kernel without the tty flip workqueue patch)"
		return 0
	fi
	printf '[wq:%s]\npolicy = fifo\nrtprio = 20\ncpumask = 0\n' $wq >$conf
	cat $conf
	for a in policy rtprio cpumask; do
		printf '  %-8s %s' $a "$(cat $d/$a)"
	done
	echo "   (before)"
	wqrtd --once -c $conf >/dev/null || return 1
	for a in policy rtprio cpumask; do
		printf '  %-8s %s' $a "$(cat $d/$a)"
	done
	echo "   (after wqrtd --once)"

	[ -d $t/events ] || mount -t tracefs nodev $t 2>/dev/null
	for e in workqueue_queue_work workqueue_execute_start; do
		echo 1 >$t/events/workqueue/$e/enable 2>/dev/null
	done
	echo >$t/trace 2>/dev/null
	echo
	echo "-- 4096 bytes through $uart in loopback"
	[ -x $loop ] && $loop $uart 4096
	sleep 1
	for e in workqueue_queue_work workqueue_execute_start; do
		echo 0 >$t/events/workqueue/$e/enable 2>/dev/null
	done
	echo
	echo "-- the kworkers that ran its flush_to_ldisc work items"
	echo "   (runs, pid, name, policy rtprio, CPU from the trace)"
	# work items queued on the workqueue, then who executed them
	awk -v wq=$wq '
		/workqueue_queue_work:/ && index($0, "workqueue=" wq " ") {
			w = $0; sub(/.*struct=/, "", w); sub(/ .*/, "", w); mine[w] = 1
		}
		/workqueue_execute_start:/ {
			w = $0; sub(/.*struct /, "", w); sub(/:.*/, "", w)
			if (!(w in mine)) next
			for (i = 2; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) break
			p = $(i - 1); sub(/.*-/, "", p)
			n[p " " substr($i, 2, length($i) - 2) + 0]++
		}
		END { for (k in n) print n[k], k }' $t/trace |
	while read -r runs pid cpu; do
		set -- $(sed 's/.*) //' /proc/$pid/stat)
		eval "prio=\${38} policy=\${39}"
		case $policy in 1) policy=fifo ;; 2) policy=rr ;; *) policy=normal ;; esac
		printf '  %4s x  %-6s %-16s %s %s  CPU %s\n' "$runs" "$pid" \
			"$(cat /proc/$pid/comm)" $policy "$prio" "$cpu"
	done
	echo >$t/trace 2>/dev/null
	echo
	echo "-- wqrtctl status -c $conf"
	wqrtctl status -c $conf
}
uart_section
exit 0
