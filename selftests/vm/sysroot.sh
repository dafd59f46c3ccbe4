#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# sysroot.sh ARCH: print a directory with the guest programs that an ARCH
# initramfs needs and the host cannot lend: a static busybox and chrt,
# taken from Debian's arm64 packages (busybox-static, util-linux) with
# `apt-get download` and unpacked, not installed. Their shared libraries
# come from the multiarch libraries that `make deps` installs.
set -euo pipefail

arch=${1:?usage: sysroot.sh ARCH}
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/kernel/scripts/common.sh"
dir=$WQRT_CACHE/sysroot/$arch
mkdir -p "$dir"
exec 9>"$dir.lock"
flock 9
if [ ! -f "$dir/.done" ]; then
	tmp=$(mktemp -d)
	chmod 755 "$tmp" # apt-get download runs as _apt where it can
	for pkg in busybox-static util-linux; do
		(cd "$tmp" && apt-get download -q "$pkg:$arch" >&2) ||
			die "cannot download $pkg:$arch (dpkg --add-architecture $arch; apt-get update)"
	done
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$dir"
	done
	rm -rf "$tmp"
	[ -x "$dir/bin/busybox" ] && [ -x "$dir/usr/bin/chrt" ] ||
		die "the $arch packages did not have bin/busybox and usr/bin/chrt"
	touch "$dir/.done"
fi
echo "$dir"
