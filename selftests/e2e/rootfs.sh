#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# rootfs.sh: print the path of a cached Debian 12 (bookworm) minbase root
# with systemd, built with debootstrap on first use. The cache key is this
# script (which holds the package list): edit it and the root is rebuilt.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../kernel/scripts/common.sh"

# systemd as PID 1, udev, journald; kmod for insmod; procps for pgrep;
# man-db for `man wqrtd`; the runtime libraries of wqrtd and wqrtctl
# (libtracefs for wqrtctl latency, who and try).
packages=systemd,systemd-sysv,udev,kmod,procps,man-db,libnl-3-200,libiniparser1,libtracefs1,libtraceevent1
mirror=${WQRT_DEBIAN_MIRROR:-http://deb.debian.org/debian}

key=$(sha256sum <"$0" | cut -c1-16)
dir="$WQRT_CACHE/rootfs/bookworm-$key"
mkdir -p "$WQRT_CACHE/rootfs"
(
	flock 9
	if [ ! -f "$dir/.done" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		note "debootstrap bookworm (minbase + systemd) into $dir; a few minutes"
		if ! debootstrap --variant=minbase --include="$packages" \
			bookworm "$dir/root" "$mirror" >"$dir/debootstrap.log" 2>&1; then
			tail -n 20 "$dir/debootstrap.log" >&2
			die "debootstrap failed, log in $dir/debootstrap.log"
		fi
		rm -rf "$dir/root/var/cache/apt/archives"/*.deb
		touch "$dir/.done"
	fi
	# Older roots only fill the disk.
	for old in "$WQRT_CACHE"/rootfs/bookworm-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
) 9>"$WQRT_CACHE/rootfs/.lock" >&2
echo "$dir/root"
