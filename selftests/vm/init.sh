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

finish() {
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

if [ "$mode" = script ]; then
	insmod /lib/wqrt/wqrt_test.ko 2>/dev/null
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
	# Let a late splat reach the console log before the next program.
	sleep 1
done <list
finish 0
