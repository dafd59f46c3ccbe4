#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio SELFTESTS_DIR [SCRIPT]
#
# Build the test initramfs: static busybox, /init, the test modules
# (SELFTESTS_DIR/modules/*.ko -> /lib/wqrt, and /usr/lib/wqrt/selftests/
# modules, where the kselftests look, links there), the test programs and their
# list (SELFTESTS_DIR/bin -> /usr/lib/wqrt/selftests), the daemon tests,
# the shell test helpers (selftests/lib -> /usr/lib/wqrt/lib),
# wqrtd and wqrtctl when built, the example config, and every shared library
# these programs need (found with ldd, not listed by hand). SCRIPT, when
# given, becomes /wqrt/run.sh for wqrt.mode=script.
set -euo pipefail

out=$1
selftests=$2
script=${3:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
# The guest's architecture (vm.sh sets it from the kernel): x86_64 takes
# busybox, chrt and the libraries from the host; arm64 takes busybox and
# chrt from selftests/vm/sysroot.sh and the libraries from the multiarch
# directories.
arch=${WQRT_ARCH:-x86_64}
daemon=${WQRT_DAEMON_DIR:-$build/daemon}
case "$arch" in
x86_64)
	busybox=/bin/busybox chrt=$(command -v chrt || true)
	cyclictest=$(command -v cyclictest || true)
	rtla=$(command -v rtla || true)
	;;
arm64)
	sysroot=$("$top/selftests/vm/sysroot.sh" "$arch")
	busybox=$sysroot/bin/busybox chrt=$sysroot/usr/bin/chrt cyclictest='' rtla=''
	triplet=aarch64-linux-gnu
	;;
*) echo "mkinitramfs: no support for $arch guests" >&2; exit 2 ;;
esac

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,wqrt} \
	"$root"/usr/{bin,sbin,lib/wqrt/selftests,lib/wqrt/daemon-tests,lib/wqrt/lib} \
	"$root"/lib/wqrt
cp "$busybox" "$root/bin/busybox"
install -m 0755 "$top/selftests/vm/init.sh" "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"

# The test modules: every one the build made (selftests/modules/Kbuild),
# or the image is not worth booting (a test whose module is missing would
# only skip).
for m in $(sed -n 's/^obj-m *+= *\(.*\)\.o$/\1/p' "$top/selftests/modules/Kbuild"); do
	[ -f "$selftests/modules/$m.ko" ] || {
		echo "mkinitramfs: no $selftests/modules/$m.ko: the test modules did not build" >&2
		exit 1
	}
	cp "$selftests/modules/$m.ko" "$root/lib/wqrt/"
done
# The kselftests look for their modules in modules/ beside them (the
# kselftest install layout), after modprobe.
ln -s /lib/wqrt "$root/usr/lib/wqrt/selftests/modules"
if [ -d "$selftests/bin" ]; then
	cp -a "$selftests"/bin/. "$root/usr/lib/wqrt/selftests/"
fi
[ -f "$root/usr/lib/wqrt/selftests/list" ] ||
	: >"$root/usr/lib/wqrt/selftests/list"
# The test programs look for the module next to themselves too.
cp "$root"/lib/wqrt/*.ko "$root/usr/lib/wqrt/selftests/"

# KTAP output and task readers for every shell test, the scripts' too.
cp -a "$top/selftests/lib/." "$root/usr/lib/wqrt/lib/"
# the benchmarks' load, which wqrtd_latency.sh runs under too
cp "$top/selftests/bench/load.sh" "$root/usr/lib/wqrt/lib/"
if [ -d "$top/selftests/daemon" ]; then
	cp -a "$top/selftests/daemon/." "$root/usr/lib/wqrt/daemon-tests/"
fi
for f in wqrtd wqrtctl; do
	if [ -x "$daemon/$f" ]; then
		case $f in
		wqrtd) cp "$daemon/$f" "$root/usr/sbin/" ;;
		*) cp "$daemon/$f" "$root/usr/bin/" ;;
		esac
	fi
done
[ -x "$daemon/nl_spoof" ] &&
	cp "$daemon/nl_spoof" "$root/usr/lib/wqrt/daemon-tests/"
# The daemon's VM tests run after the kselftests, from the same list.
for f in "$root"/usr/lib/wqrt/daemon-tests/wqrtd_*.sh; do
	[ -e "$f" ] || continue
	echo "../daemon-tests/$(basename "$f")" >>"$root/usr/lib/wqrt/selftests/list"
done
# A flavour's run may leave programs out (vm.sh: the x of its column in
# selftests/vm/expected, e.g. the KASAN run's focus on lifetimes).
if [ -n "${WQRT_LEAVE_OUT:-}" ]; then
	list=$root/usr/lib/wqrt/selftests/list
	for p in $WQRT_LEAVE_OUT; do
		awk -v p="$p" '{ n = $1; sub(/.*\//, "", n) } n != p' "$list" >"$list.new"
		mv "$list.new" "$list"
	done
fi
[ -f "$top/conf/wqrt.conf" ] && cp "$top/conf/wqrt.conf" "$root/etc/wqrt.conf"
[ -z "$chrt" ] || cp "$chrt" "$root/usr/bin/chrt"
[ -z "$cyclictest" ] || cp "$cyclictest" "$root/usr/bin/cyclictest"
# rtla (timerlat, osnoise) for the benchmarks' floor; its libtracefs and
# libtraceevent come with the other shared libraries below
[ -z "$rtla" ] || cp "$(readlink -f "$rtla")" "$root/usr/bin/rtla"

if [ -n "$script" ]; then
	install -m 0755 "$script" "$root/wqrt/run.sh"
	# Files next to the script (helpers, configs) come along.
	cp -a "$(dirname "$script")/." "$root/wqrt/" 2>/dev/null || true
	install -m 0755 "$script" "$root/wqrt/run.sh"
fi

# The shared libraries ELF $1 needs, as host paths: ldd for the host's
# own architecture; for another one its DT_NEEDED entries and interpreter,
# found in the multiarch directories and followed recursively.
needed_libs() {
	local elf=$1 lib dir
	if [ "$arch" = x86_64 ]; then
		ldd "$elf" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' || true
		return
	fi
	LC_ALL=C readelf -l "$elf" 2>/dev/null |
		sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p'
	for lib in $(LC_ALL=C readelf -d "$elf" 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		for dir in /lib/$triplet /usr/lib/$triplet; do
			[ -e "$dir/$lib" ] || continue
			echo "$dir/$lib"
			needed_libs "$(readlink -f "$dir/$lib")"
			break
		done
	done
}

# Shared libraries of every dynamically linked program in the image.
find "$root" -type f -perm -u+x | while read -r elf; do
	file_type=$(head -c 4 "$elf" | od -An -c | tr -d ' ')
	[ "$file_type" = '177ELF' ] || continue
	needed_libs "$elf"
done | sort -u | while read -r lib; do
	[ -e "$lib" ] || continue
	real=$(readlink -f "$lib")
	mkdir -p "$root$(dirname "$lib")" "$root$(dirname "$real")"
	cp -n "$real" "$root$real"
	[ "$real" = "$lib" ] || ln -sf "$real" "$root$lib"
done

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
