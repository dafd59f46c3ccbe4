#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh [OUTDIR]: build the Debian packages (wqrtd, wqrt-selftests,
# wqrt-selftests-dkms) with dpkg-buildpackage -us -uc -b from a copy of
# the working tree (so that the tree itself stays clean and uncommitted
# edits are included) into build/deb/. Prints the .deb paths.
# DEB_HOST_ARCH=arm64 cross-builds them for an arm64 board (with the
# arm64 libraries of make deps) into build/deb-arm64/.
# WQRT_KSRC (or an unpacked tree in the wqrt cache) saves unpacking the
# kselftest framework from linux-source-6.12's tarball.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
host=${DEB_HOST_ARCH:-$(dpkg --print-architecture)}
cross=()
if [ "$host" != "$(dpkg --print-architecture)" ]; then
	cross=(-a "$host" -Pcross,nocheck)
	out=${1:-${WQRT_BUILD:-$top/build}/deb-$host}
else
	out=${1:-${WQRT_BUILD:-$top/build}/deb}
fi
unset DEB_HOST_ARCH
mkdir -p "$out" && out=$(cd "$out" && pwd)
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/wqrt-$ver

rm -rf "$out"
mkdir -p "$src"
rsync -a --exclude=/build/ --exclude=/.git --exclude=/.ci "$top/" "$src/"

# The kernel scripts' unpacked copy of the installed linux-source-6.12
# (the same version, which Built-Using names), if there is one.
if [ -z "${WQRT_KSRC:-}" ]; then
	kver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
	for c in "${WQRT_CACHE:-}" /var/cache/wqrt "${XDG_CACHE_HOME:-$HOME/.cache}/wqrt"; do
		if [ -n "$c" ] && [ -n "$kver" ] && [ -f "$c/src/$kver/.wqrt-base-done" ]; then
			WQRT_KSRC=$c/src/$kver
			break
		fi
	done
fi
export WQRT_KSRC=${WQRT_KSRC:-}

(cd "$src" && dpkg-buildpackage -us -uc -b "${cross[@]}") >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed, log in $out/build.log" >&2
	exit 1
}
rm -rf "$src"
ls "$out"/*.deb
