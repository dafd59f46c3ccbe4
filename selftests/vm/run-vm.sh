#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh [options] KERNEL_DIR INITRAMFS
#
# Boot the kernel of KERNEL_DIR (obj/.config says which architecture) with
# INITRAMFS: x86_64 under qemu-system-x86_64, KVM when a probe guest runs
# under it, else TCG (selftests/vm/accel.sh; WQRT_VM_ACCEL=kvm|tcg forces
# one); arm64 under qemu-system-aarch64 -M virt (TCG).
#
#   --mode check|script|shell   what /init does (default check)
#   --name NAME                 log directory build/vm/NAME
#   --timeout SECONDS           kill the VM after this long (default 900)
#   --smp N / --mem MB          guest size (default 2, 1024)
#   --append ARGS               more kernel command line
#   --expect FLAVOUR [--any-skip]  judge a check run against that column of
#                               selftests/vm/expected (tap-verdict.sh)
#
# WQRT_VM_TCG_THREAD=single|multi sets TCG's threading (QEMU's default is
# multi); WQRT_VM_QEMU_ARGS adds arguments to QEMU's command line, split on
# spaces (make bench-cost: its counting plugin); WQRT_VM_UART2=PATH feeds
# the x86 guest's ttyS2 from a Unix socket QEMU listens on at PATH (make
# bench-imu's host mode), in place of a UART that goes nowhere.
#
# check and script modes: the guest's TAP stream (ttyS1; hvc0 on arm64) and
# the kernel console (ttyS0; ttyAMA0 through uart-peer.py on arm64) are
# kept under build/vm/NAME/. The run fails on any
# `not ok`, a plan with fewer results than announced, a program that exited
# with an error, a timeout, or a kernel BUG/WARNING/lockdep/KASAN/lockup
# report in the console log. A stall (RCU, soft lockup, hung task,
# workqueue) ends the run when the kernel reports it, not at the timeout
# (WQRT_VM_STALL_GRACE seconds later, 10 by default, when the kernel does
# not panic on it). It ends with the line "N passed, N failed".
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
mode=check
name=
timeout_s=${WQRT_VM_TIMEOUT:-900}
smp=${WQRT_VM_SMP:-2}
mem=${WQRT_VM_MEM:-1024}
extra_append=${WQRT_VM_APPEND:-}
verdict_opts=()

while [ $# -gt 0 ]; do
	case "$1" in
	--mode) mode=$2; shift 2 ;;
	--name) name=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--append) extra_append="$extra_append $2"; shift 2 ;;
	--expect) verdict_opts+=(--expect "$2"); shift 2 ;;
	--any-skip) verdict_opts+=(--any-skip); shift ;;
	--) shift; break ;;
	-*) echo "run-vm.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
kdir=${1:?usage: run-vm.sh [options] KERNEL_DIR INITRAMFS}
initrd=${2:?usage: run-vm.sh [options] KERNEL_DIR INITRAMFS}
# The guest's architecture is the kernel's.
if grep -qs '^CONFIG_ARM64=y' "$kdir/obj/.config"; then
	arch=arm64 kernel="$kdir/obj/arch/arm64/boot/Image"
else
	arch=x86_64 kernel="$kdir/obj/arch/x86/boot/bzImage"
fi
[ -f "$kernel" ] || { echo "run-vm.sh: no kernel image at $kernel" >&2; exit 2; }
name=${name:-$(basename "$kdir")-$mode}
logdir="$build/vm/$name"
mkdir -p "$logdir"
console="$logdir/console.log"
tap="$logdir/tap.log"
: >"$console"
: >"$tap"

if [ "$arch" = x86_64 ]; then
	. "$top/selftests/vm/accel.sh"
	if ! choose_accel; then
		echo "wqrt-vm: FAIL: $ACCEL_REASON" >&2
		exit 2
	fi
else
	ACCEL=tcg ACCEL_CPU=max
	ACCEL_REASON="TCG: an $arch guest on an $(uname -m) host"
fi
accel=$ACCEL
# The choice and its reason stay with the logs (the benchmarks read it).
printf '%s\n%s\n' "$ACCEL" "$ACCEL_REASON" >"$logdir/accel"
# workqueue.sysfs=: the names the tests of the boot parameter look for
# (selftests/daemon/wqrtd_wqsysfs.sh); a kernel without it ignores it.
wq_sysfs="netns,kvfree_rcu_reclaim,vkms_composer,events,wqrt_reach_*"
# A stall ends the run as soon as the kernel reports it: an RCU stall, a
# soft lockup, a hung task and a stalled workqueue pool each panic (and a
# panic ends QEMU: -no-reboot), instead of the kernel repeating its report
# until the timeout. The detection windows stay the kernel's own (RCU 21 s,
# soft lockup 20 s, workqueue 30 s, hung task 120 s): under TCG on a busy
# host a vCPU can go unscheduled for seconds without anything being wrong.
stall_append="sysctl.kernel.panic_on_rcu_stall=1 softlockup_panic=1 hung_task_panic=1 workqueue.panic_on_stall=1"
base_append="panic=-1 oops=panic loglevel=6 $stall_append wqrt.mode=$mode workqueue.sysfs=$wq_sysfs $extra_append"
case "$arch" in
x86_64)
	# ttyS0: the console; ttyS1: the tests' TAP (init.sh's default);
	# ttyS2: a 16550 that goes nowhere, which the UART tests put in
	# loopback
	append="console=ttyS0,115200 $base_append"
	if [ "$accel" = tcg ] && [ -n "${WQRT_VM_TCG_THREAD:-}" ]; then
		qemu=(qemu-system-x86_64 -machine pc
			-accel "tcg,thread=$WQRT_VM_TCG_THREAD" -cpu "$ACCEL_CPU")
	else
		qemu=(qemu-system-x86_64 -machine "pc,accel=$accel" -cpu "$ACCEL_CPU")
	fi
	# WQRT_VM_UART2=PATH: ttyS2 fed from the host instead, through a
	# Unix socket QEMU listens on (make bench-imu's host-clock mode)
	if [ -n "${WQRT_VM_UART2:-}" ]; then
		tap_dev=(-serial "file:$tap"
			-chardev "socket,id=uart2,path=$WQRT_VM_UART2,server=on,wait=off"
			-serial chardev:uart2)
	else
		tap_dev=(-serial "file:$tap" -serial null)
	fi
	shell_tap=(-serial null -serial null)
	console_dev=(-serial "file:$console")
	;;
arm64)
	# virt has one PL011 (the console); the TAP goes to a virtio console.
	# QEMU 7.2's PL011 has no loopback: the host end of the console,
	# uart-peer.py, keeps the console log and answers the UART tests
	# (wqrt.uart_peer=: selftests/daemon/wqrtd_uart.sh)
	append="console=ttyAMA0 wqrt.tap=hvc0 wqrt.uart_peer=ttyAMA0 $base_append"
	qemu=(qemu-system-aarch64 -machine "virt,accel=$accel" -cpu "$ACCEL_CPU"
		-device virtio-serial-device)
	tap_dev=(-chardev "file,id=tap,path=$tap" -device virtconsole,chardev=tap)
	shell_tap=(-chardev null,id=tap -device virtconsole,chardev=tap)
	uart_peer=1
	;;
esac
qemu+=(-smp "$smp" -m "$mem" -kernel "$kernel" -initrd "$initrd" -no-reboot)
# shellcheck disable=SC2206 # split on spaces, as documented above
[ -z "${WQRT_VM_QEMU_ARGS:-}" ] || qemu+=($WQRT_VM_QEMU_ARGS)

if [ "$mode" = shell ]; then
	exec "${qemu[@]}" -nographic -serial mon:stdio "${shell_tap[@]}" -append "$append"
fi
console_sock=
if [ -n "${uart_peer:-}" ]; then
	# a short path: sun_path holds 108 bytes, a checkout's path may not
	console_sock=$(mktemp -d /tmp/wqrt-vm.XXXXXX)/console
	console_dev=(-chardev "socket,id=con,path=$console_sock,server=on,wait=on"
		-serial chardev:con)
fi

echo "wqrt-vm: accelerator $ACCEL_REASON"
echo "wqrt-vm: booting $(basename "$kdir") ($arch, $accel, $smp vCPUs, ${mem} MiB, timeout ${timeout_s}s); logs in $logdir"
"${qemu[@]}" -display none -monitor none "${console_dev[@]}" \
	"${tap_dev[@]}" -append "$append" &
qpid=$!
peerpid=
if [ -n "$console_sock" ]; then
	python3 "$top/selftests/vm/uart-peer.py" "$console_sock" "$console" &
	peerpid=$!
fi
tail -n +1 -f --pid=$qpid "$tap" 2>/dev/null | grep --line-buffered -v '^WQRT-' &
tailpid=$!
# The runner's own watch, for a kernel that reports a stall and does not
# panic (a report the panic parameters do not cover, a kernel without
# them): the first report stops QEMU stall_grace seconds later, long
# enough for the report to reach the log, instead of the timeout.
stall_re='rcu: INFO: .*detected stalls|rcu: .* kthread starved|INFO: task .* blocked for more than|BUG: soft lockup|hard LOCKUP|BUG: workqueue lockup'
stall_grace=${WQRT_VM_STALL_GRACE:-10}
stalled_at=
timed_out=0
waited=0
while kill -0 $qpid 2>/dev/null; do
	if [ "$waited" -ge "$timeout_s" ]; then
		timed_out=1
		kill $qpid 2>/dev/null || true
		break
	fi
	if [ -z "$stalled_at" ] && grep -aqE "$stall_re" "$console"; then
		stalled_at=$waited
		echo "wqrt-vm: the kernel reported a stall ${waited}s into the run: stopping the VM in ${stall_grace}s" >&2
	fi
	if [ -n "$stalled_at" ] && [ $((waited - stalled_at)) -ge "$stall_grace" ]; then
		kill $qpid 2>/dev/null || true
		break
	fi
	sleep 1
	waited=$((waited + 1))
done
wait $qpid 2>/dev/null || true
# the peer leaves when QEMU closes the console socket, log written
if [ -n "$peerpid" ]; then
	wait "$peerpid" 2>/dev/null || true
	rm -rf "$(dirname "$console_sock")"
fi
sleep 0.3
kill $tailpid 2>/dev/null || true
wait $tailpid 2>/dev/null || true

exec "$top/selftests/vm/tap-verdict.sh" --mode "$mode" --timed-out "$timed_out" \
	--timeout "$timeout_s" ${stalled_at:+--stalled "$stalled_at"} \
	"${verdict_opts[@]}" "$tap" "$console"
