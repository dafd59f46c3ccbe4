#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-board-config.sh [KERNEL_DIR]: kernel/configs/board.config merged into
# a vendor-like configuration (the architecture's defconfig) keeps every
# option it asks for through olddefconfig, on x86_64 and arm64; and the
# test kernel has every option selftests/wqrt/config lists (the VM tests
# run there). KERNEL_DIR holds src/ and obj/ (default build/kernel-test).
# Host side, TAP; only kconfig runs, in a scratch directory.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
kdir=${1:-$build/kernel-test}
kdir=$(cd "$kdir" 2>/dev/null && pwd || echo "$kdir")
. "$top/selftests/lib/ktap.sh"
src=$kdir/src
[ -f "$src/Makefile" ] && [ -f "$kdir/obj/.config" ] || {
	echo "test-board-config: no built kernel at $kdir (make kernel)" >&2
	exit 1
}
tmp=$(mktemp -d /tmp/wqrt-board.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
board=$top/kernel/configs/board.config

ktap_print_header
ktap_set_plan 5

for arch in x86_64 arm64; do
	o=$tmp/$arch
	cross=
	[ "$arch" = arm64 ] && cross=aarch64-linux-gnu-
	{
		make -s -C "$src" O="$o" ARCH=$arch CROSS_COMPILE=$cross defconfig &&
		(cd "$o" && "$src/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$board") &&
		make -s -C "$src" O="$o" ARCH=$arch CROSS_COMPILE=$cross olddefconfig
	} >"$tmp/$arch.log" 2>&1 || sed 's/^/# /' "$tmp/$arch.log" | tail -n 20
	"$top/kernel/scripts/check-config.sh" "$o/.config" "$board" 2>&1 | sed 's/^/# /'
	ktap_test_result "$arch defconfig + board.config: every option survives olddefconfig" \
		"$top/kernel/scripts/check-config.sh" "$o/.config" "$board"
done

"$top/kernel/scripts/check-config.sh" "$kdir/obj/.config" "$top/selftests/wqrt/config" 2>&1 | sed 's/^/# /'
ktap_test_result "the test kernel has every option of selftests/wqrt/config" \
	"$top/kernel/scripts/check-config.sh" "$kdir/obj/.config" "$top/selftests/wqrt/config"
# A later fragment may set what an earlier one set (prod.config's NR_CPUS
# over wqrt.config's): the last value is checked, and still checked.
nr=$(grep -E '^CONFIG_NR_CPUS=' "$kdir/obj/.config" | cut -d= -f2)
printf 'CONFIG_NR_CPUS=%s\nCONFIG_SMP=y\n' "$((nr * 2))" >"$tmp/first.config"
printf 'CONFIG_NR_CPUS=%s\n' "$nr" >"$tmp/later.config"
printf 'CONFIG_NR_CPUS=%s\n' "$((nr + 1))" >"$tmp/other.config"
ktap_test_result "check-config.sh: a later fragment's value replaces an earlier one's" \
	"$top/kernel/scripts/check-config.sh" "$kdir/obj/.config" "$tmp/first.config" "$tmp/later.config"
if "$top/kernel/scripts/check-config.sh" "$kdir/obj/.config" "$tmp/later.config" "$tmp/other.config" 2>"$tmp/err" ||
	! grep -q "other.config: CONFIG_NR_CPUS=$((nr + 1)) was dropped" "$tmp/err"; then
	sed 's/^/# /' "$tmp/err"
	ktap_test_fail "check-config.sh: a later fragment's value that the .config lacks fails, naming that fragment"
else
	ktap_test_pass "check-config.sh: a later fragment's value that the .config lacks fails, naming that fragment"
fi
ktap_finished
