#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the wqrt test initramfs. The kernel command line says what to do:
#   wqrt.mode=check   run the selftest programs listed in
#                     /usr/lib/wqrt/selftests/list (TAP on the tap device)
#   wqrt.mode=script  run /wqrt/run.sh (output on the tap device)
#   wqrt.mode=shell   an interactive shell on the console
#   wqrt.tap=DEV      the tap device: ttyS1 (default), hvc0 on arm64
# then power off. The host runner reads the tap device and the console log.

/bin/busybox mkdir -p /proc /sys /dev /tmp /run /sbin /usr/bin /usr/sbin
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
hostname wqrt-vm

mode=check
tap=ttyS1
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	wqrt.mode=*) mode=${arg#wqrt.mode=} ;;
	wqrt.tap=*) tap=${arg#wqrt.tap=} ;;
	esac
done

# Before powering off, give the kernel's watchdogs the chance to report
# what began near the end of the run: their windows (hung task 120 s, the
# workqueue watchdog 30 s, soft lockup 20 s) outlast the second the guest
# used to wait. Shorten each window to a few seconds (not less: a vCPU the
# loaded host does not run for a second is no lockup), now that nothing runs
# any more, then unload the test modules (destroy_workqueue() of each test
# workqueue, and free_module()'s synchronize_rcu(): a stalled grace period
# or a stuck pool blocks it, and the shortened hung task window reports
# the blocked rmmod), and wait out the windows. A report lands in the
# console log, which the host judges.
settle() {
	_ms=/sys/module/workqueue/parameters/watchdog_thresh
	[ -w $_ms ] && echo 3 >$_ms
	[ -w /proc/sys/kernel/watchdog_thresh ] &&
		echo 2 >/proc/sys/kernel/watchdog_thresh
	if [ -w /proc/sys/kernel/hung_task_timeout_secs ]; then
		echo 1 >/proc/sys/kernel/hung_task_check_interval_secs
		echo 5 >/proc/sys/kernel/hung_task_timeout_secs
	fi
	for _m in wqrt_reach wqrt_flush wqrt_test; do
		grep -q "^$_m " /proc/modules || continue
		rmmod "$_m" &
		_pid=$!
		_t=0
		while kill -0 $_pid 2>/dev/null && [ $_t -lt 30 ]; do
			sleep 1
			_t=$((_t + 1))
		done
		if kill -0 $_pid 2>/dev/null; then
			echo "# wqrt-exit: rmmod-$_m-hung 1" >&3
		elif ! wait $_pid; then
			echo "# wqrt-exit: rmmod-$_m 1" >&3
		fi
	done
	# the longest shortened window: the workqueue watchdog's 3 s, checked
	# every 3 s; hung task 5 s plus its 1 s check; soft lockup 4 s
	sleep 7
}

finish() {
	settle
	echo "WQRT-DONE $1" >&3
	sync
	poweroff -f
}

kver=$(uname -r)
echo "wqrt-vm: kernel $kver, $(nproc) CPUs, mode $mode"

if [ "$mode" = shell ]; then
	echo "wqrt-vm: the test module is in /lib/wqrt, tests in /usr/lib/wqrt"
	insmod /lib/wqrt/wqrt_test.ko 2>/dev/null
	setsid cttyhack sh -l
	poweroff -f
fi

exec 3>"/dev/$tap"
echo "WQRT-BEGIN $kver" >&3
# the tracepoints held enabled: QEMU's multi-threaded TCG and kernel text
# patching (selftests/lib/trace-hold.sh)
. /usr/lib/wqrt/lib/trace-hold.sh
tracepoints_hold

if [ "$mode" = script ]; then
	# whether the probes above are in every queue_work() and wakeup of
	# what the script measures (the benchmarks' env_record, lib.sh)
	echo "I trace_hold $(tracepoints_held)" >&3
	insmod /lib/wqrt/wqrt_test.ko 2>&3 ||
		echo "# wqrt-vm: insmod wqrt_test.ko failed (above)" >&3
	cd /wqrt && sh ./run.sh >&3 2>&1
	finish $?
fi

# check: every program of the list prints its own TAP (kselftest harness or
# a TAP shell script); its exit status is reported after it.
cd /usr/lib/wqrt/selftests || finish 1
while read -r prog args; do
	case "$prog" in "" | \#*) continue ;; esac
	echo "# wqrt-run: $prog $args" >&3
	echo "wqrt-vm: running $prog $args"
	./$prog $args >&3 2>&1 </dev/null
	echo "# wqrt-exit: $prog $?" >&3
done <list
finish 0
