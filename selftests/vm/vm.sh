#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# vm.sh MODE KERNEL [SCRIPT] [run-vm.sh options]
#
# The one way wqrt boots a VM. KERNEL is a built kernel tree: a flavour
# name (test, plain, perf, ...: build/kernel-NAME, made by
# kernel/scripts/build.sh) or a directory with src/ and obj/. vm.sh builds
# wqrtd and the selftests against that kernel, makes the image and boots it
# with run-vm.sh:
#
#   check   the kselftests and the daemon's VM tests (busybox /init)
#   script  SCRIPT (and the files beside it) as /wqrt/run.sh, TAP judged
#   shell   an interactive busybox shell
#   e2e     the Debian 12 root with systemd as PID 1 (selftests/e2e): the
#           user's day (day.sh), or on a kernel without the series
#           (its column's =series 0) the fallback path (first-hour.sh)
#
# Options after KERNEL [SCRIPT] go to run-vm.sh (--name, --timeout, --mem,
# --smp); the log directory is build/vm/NAME.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
usage="usage: vm.sh check|script|shell|e2e KERNEL [SCRIPT] [run-vm.sh options]"
mode=${1:?$usage}
kernel=${2:?$usage}
shift 2
script=
if [ "$mode" = script ]; then
	script=${1:?script mode needs a SCRIPT: $usage}
	shift
	[ -f "$script" ] || { echo "vm.sh: no such script: $script" >&2; exit 2; }
	script=$(cd "$(dirname "$script")" && pwd)/$(basename "$script")
fi
case "$mode" in
check | script | shell | e2e) ;;
*) echo "$usage" >&2; exit 2 ;;
esac

if [ -d "$kernel" ]; then
	kdir=$(cd "$kernel" && pwd)
else
	kdir=$build/kernel-$kernel
fi
# The guest's architecture is the kernel's; wqrtd and the selftests are
# built for it (cross-compiled for arm64).
if grep -qs '^CONFIG_ARM64=y' "$kdir/obj/.config"; then
	arch=arm64 kimage=arch/arm64/boot/Image
	cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc)
	daemon_make=(CC=aarch64-linux-gnu-gcc "PKG_CONFIG=env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config")
	daemon=$build/daemon-arm64
else
	arch=x86_64 kimage=arch/x86/boot/bzImage cross=() daemon_make=()
	daemon=$build/daemon
fi
[ -f "$kdir/obj/$kimage" ] || {
	echo "vm.sh: no built kernel at $kdir (make kernel KERNEL=$kernel)" >&2
	exit 2
}
tag=$(basename "$kdir")
tag=${tag#kernel-}
case "$mode" in
check) name=$tag-selftests ;;
script) name=$tag-$(basename "$script" .sh) ;;
*) name=$tag-$mode ;;
esac

make --no-print-directory -s -C "$top/daemon" O="$daemon" WERROR=1 "${daemon_make[@]}" all
selftests=$build/selftests/$tag
env "${cross[@]}" make --no-print-directory -s -C "$top/selftests" KDIR="$kdir/obj" \
	KSRC="$kdir/src" O="$selftests" >"$build/selftests-$tag.log" 2>&1 || {
	tail -n 30 "$build/selftests-$tag.log" >&2
	echo "vm.sh: the selftests do not build against $kdir" >&2
	exit 1
}

image=$build/image-$tag-$mode.cpio
vmopts=(--name "$name")

# Which column of selftests/vm/expected judges this kernel's suite: the
# flavour's (kernel/scripts/common.sh writes it beside the tree), or
# WQRT_VM_EXPECT. "prefix" (a prefix of the series, make kernel-each) is
# judged as the test kernel with every skip allowed. The column also says
# which programs the image leaves out (x) and what the tests are to expect
# of the kernel (wqrt.series=, its "=series" row).
expected=$top/selftests/vm/expected
expect=${WQRT_VM_EXPECT:-$(cat "$kdir/expect" 2>/dev/null || true)}
column=$expect
[ "$expect" != prefix ] || column=test
# expected_row NAME: NAME's value in the column
expected_row() {
	awk -v col="$column" -v name="$1" '
		/^# *program +tests / {
			for (i = 3; i <= NF; i++) if ($i == col) c = i - 1
			next
		}
		c && $1 == name { print $c; exit }' "$expected"
}
if [ "$mode" = check ]; then
	if [ -z "$expect" ]; then
		echo "vm.sh: $kdir does not say which column of selftests/vm/expected judges its VM suite: rebuild it (make kernel KERNEL=...: a flavour with an expectation list) or set WQRT_VM_EXPECT=test|test-arm64|plain|kasan|prefix" >&2
		exit 2
	fi
	if [ "$expect" = prefix ]; then
		vmopts+=(--expect test --any-skip)
	else
		vmopts+=(--expect "$expect")
	fi
	# KASAN slows the guest several times over: its run gets twice the
	# default time (WQRT_VM_TIMEOUT or --timeout still decide)
	[ "$column" != kasan ] || [ -n "${WQRT_VM_TIMEOUT:-}" ] ||
		vmopts+=(--timeout 1800)
	# the programs this flavour's run leaves out
	WQRT_LEAVE_OUT=$(awk -v col="$column" '
		/^# *program +tests / {
			for (i = 3; i <= NF; i++) if ($i == col) c = i - 1
			next
		}
		c && /^[^#=]/ && $c == "x" { print $1 }' "$expected" | xargs)
	export WQRT_LEAVE_OUT
fi
if [ -n "$expect" ] && [ "$expect" != prefix ]; then
	series=$(expected_row =series)
	[ -z "$series" ] || vmopts+=(--append "wqrt.series=$series")
fi
export WQRT_ARCH=$arch WQRT_DAEMON_DIR=$daemon
# A packaged kernel (Debian's own, debian-kernel.sh) runs under
# single-threaded TCG: under multi-threaded TCG its text patching (a
# tracepoint, a module's static keys, while udev loads modules) ends in
# "Oops: int3" within seconds (make int3-repro; docs/tests.md), the
# emulator's defect, not the kernel's. The test kernels' VM runs hold the
# tracepoints instead (selftests/lib/trace-hold.sh).
kpkg=
if [ -d "$kdir/root/boot" ]; then
	kpkg=$kdir/root
	export WQRT_VM_TCG_THREAD=${WQRT_VM_TCG_THREAD:-single}
fi
case "$mode" in
e2e)
	[ "$arch" = x86_64 ] || { echo "vm.sh: the e2e image is x86_64 only" >&2; exit 2; }
	day=$top/selftests/e2e/day.sh
	if [ -n "$expect" ] && [ "$(expected_row =series)" = 0 ]; then
		day=$top/selftests/e2e/first-hour.sh
	fi
	# a packaged kernel (debian-kernel.sh) brings its /boot and modules
	"$top/selftests/e2e/mkimage.sh" "$image" "$selftests" "$day" "$kpkg"
	# the root is in RAM: with the compiler dkms brings along, 0.7 GB
	export WQRT_VM_MEM=${WQRT_VM_MEM:-3072}
	vmopts+=(--timeout 1800 --mode check)
	;;
*)
	"$top/selftests/vm/mkinitramfs.sh" "$image" "$selftests" $script
	vmopts+=(--mode "$mode")
	;;
esac
exec "$top/selftests/vm/run-vm.sh" "${vmopts[@]}" "$@" "$kdir" "$image"
