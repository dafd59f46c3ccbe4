# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# tracepoints_hold: keep the tracepoints that wqrtctl and the tests enable
# registered for the whole VM run, so that their enabling and disabling
# never patches kernel text. Sourced by the busybox VMs' init
# (selftests/vm/init.sh); not for a board.
#
# Why: under QEMU's multi-threaded TCG, text_poke_bp() on a site the other
# vCPU is executing ends in "Oops: int3" (the int3 is still seen after the
# kernel removed it and stopped expecting it). Debian's own kernel, with
# nothing of wqrt in the path, meets it within seconds when sched_switch is
# flipped on and off while both vCPUs switch tasks, and never in a run with
# single-threaded TCG (make int3-repro, docs/tests.md). A tracepoint's
# jump label changes when its first probe comes and its last goes, its
# static call when it goes from one probe to two and back: two instances,
# each with the events enabled (a probe each) and tracing off, keep both
# where the tests' own instances leave them. wqrt.trace_hold=0 on the
# kernel command line holds nothing (make int3-repro).
tracepoints_hold() {
	case " $(cat /proc/cmdline) " in *" wqrt.trace_hold=0 "*) return 0 ;; esac
	_th_t=/sys/kernel/tracing
	[ -d $_th_t/instances ] || mount -t tracefs nodev $_th_t 2>/dev/null
	[ -d $_th_t/instances ] || return 0
	for _th_i in a b; do
		_th_d=$_th_t/instances/wqrt-vm-hold-$_th_i
		mkdir -p $_th_d 2>/dev/null || return 0
		echo 0 >$_th_d/tracing_on
		echo 1 >$_th_d/buffer_size_kb
		for _th_e in sched/sched_switch sched/sched_wakeup sched/sched_waking \
			sched/sched_wakeup_new workqueue irq; do
			[ -e $_th_d/events/$_th_e/enable ] &&
				echo 1 >$_th_d/events/$_th_e/enable
		done
	done
	return 0
}

# tracepoints_held: how many holding instances tracepoints_hold() made (0
# with wqrt.trace_hold=0), for a run to say whether the probes are in
# every queue_work() and wakeup it measures
tracepoints_held() {
	ls /sys/kernel/tracing/instances 2>/dev/null | grep -c '^wqrt-vm-hold-'
}
