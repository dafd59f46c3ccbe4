#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deb.sh [OUTDIR]: build the Debian packages (wqrtd, wqrt-selftests,
# wqrt-selftests-dkms) with dpkg-buildpackage -us -uc -b from a copy of
# the working tree (so that the tree itself stays clean and uncommitted
# edits are included) into build/deb/. Prints the .deb paths.
# WQRT_KSRC (or an unpacked tree in the wqrt cache) saves unpacking the
# kselftest framework from linux-source-6.12's tarball.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${WQRT_BUILD:-$top/build}/deb}
mkdir -p "$out" && out=$(cd "$out" && pwd)
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$out/wqrt-$ver

rm -rf "$out"
mkdir -p "$src"
rsync -a --exclude=/build/ --exclude=/.git --exclude=/.ci "$top/" "$src/"

if [ -z "${WQRT_KSRC:-}" ]; then
	for d in /var/cache/wqrt/src/*/; do
		[ -f "$d/.wqrt-base-done" ] && WQRT_KSRC=${d%/}
	done
fi
export WQRT_KSRC=${WQRT_KSRC:-}

(cd "$src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed, log in $out/build.log" >&2
	exit 1
}
rm -rf "$src"
ls "$out"/*.deb
