#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh OUT.cpio SELFTESTS_DIR [SCRIPT]
#
# Build the test initramfs: static busybox, /init, the test modules
# (SELFTESTS_DIR/modules/*.ko -> /lib/wqrt), the test programs and their
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

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,wqrt} \
	"$root"/usr/{bin,sbin,lib/wqrt/selftests,lib/wqrt/daemon-tests,lib/wqrt/lib} \
	"$root"/lib/wqrt
cp /bin/busybox "$root/bin/busybox"
install -m 0755 "$top/selftests/vm/init.sh" "$root/init"
echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
echo "root:x:0:" >"$root/etc/group"

if [ -d "$selftests/modules" ]; then
	cp "$selftests"/modules/*.ko "$root/lib/wqrt/" 2>/dev/null || true
fi
if [ -d "$selftests/bin" ]; then
	cp -a "$selftests"/bin/. "$root/usr/lib/wqrt/selftests/"
fi
[ -f "$root/usr/lib/wqrt/selftests/list" ] ||
	: >"$root/usr/lib/wqrt/selftests/list"
# The test programs look for the module next to themselves too.
cp "$root"/lib/wqrt/*.ko "$root/usr/lib/wqrt/selftests/" 2>/dev/null || true

# KTAP output and task readers for every shell test, the scripts' too.
cp -a "$top/selftests/lib/." "$root/usr/lib/wqrt/lib/"
if [ -d "$top/selftests/daemon" ]; then
	cp -a "$top/selftests/daemon/." "$root/usr/lib/wqrt/daemon-tests/"
fi
for f in wqrtd wqrtctl; do
	if [ -x "$build/daemon/$f" ]; then
		case $f in
		wqrtd) cp "$build/daemon/$f" "$root/usr/sbin/" ;;
		*) cp "$build/daemon/$f" "$root/usr/bin/" ;;
		esac
	fi
done
[ -x "$build/daemon/nl_spoof" ] &&
	cp "$build/daemon/nl_spoof" "$root/usr/lib/wqrt/daemon-tests/"
# The daemon's VM tests run after the kselftests, from the same list.
for f in "$root"/usr/lib/wqrt/daemon-tests/wqrtd_*.sh; do
	[ -e "$f" ] || continue
	echo "../daemon-tests/$(basename "$f")" >>"$root/usr/lib/wqrt/selftests/list"
done
[ -f "$top/conf/wqrt.conf" ] && cp "$top/conf/wqrt.conf" "$root/etc/wqrt.conf"
if command -v chrt >/dev/null; then
	cp "$(command -v chrt)" "$root/usr/bin/chrt"
fi
if command -v cyclictest >/dev/null; then
	cp "$(command -v cyclictest)" "$root/usr/bin/cyclictest"
fi

if [ -n "$script" ]; then
	install -m 0755 "$script" "$root/wqrt/run.sh"
	# Files next to the script (helpers, configs) come along.
	cp -a "$(dirname "$script")/." "$root/wqrt/" 2>/dev/null || true
	install -m 0755 "$script" "$root/wqrt/run.sh"
fi

# Shared libraries of every dynamically linked program in the image.
find "$root" -type f -perm -u+x | while read -r elf; do
	file_type=$(head -c 4 "$elf" | od -An -c | tr -d ' ')
	[ "$file_type" = '177ELF' ] || continue
	ldd "$elf" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*' || true
done | sort -u | while read -r lib; do
	[ -e "$lib" ] || continue
	real=$(readlink -f "$lib")
	mkdir -p "$root$(dirname "$lib")" "$root$(dirname "$real")"
	cp -n "$real" "$root$real"
	[ "$real" = "$lib" ] || ln -sf "$real" "$root$lib"
done

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
