#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-board-kernel.sh: `make board-kernel` (kernel/scripts/board-kernel.sh)
# as a board user runs it, up to the package build, which it only checks
# and prints (BOARD_DRY_RUN=1: a distribution configuration takes hours to
# compile): for amd64 from Debian's linux-source-6.12 and RT configuration,
# and for arm64, cross, from that tree as BOARD_SRC and a configuration
# file taken from a Debian kernel (its SYSTEM_TRUSTED_KEYS names Debian's
# certificates). Host side, TAP; scratch directories only.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/kernel/scripts/common.sh"
set +e
tmp=$(mktemp -d /tmp/wqrt-board-kernel.XXXXXX)
cleanup() {
	git -C "$(base_repo)" worktree remove --force "$tmp/amd64/linux" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

ktap_print_header
ktap_set_plan 10

# board ARCH NAME VAR=VALUE...: the script with BOARD_OUT=$tmp/ARCH, its
# output in $tmp/NAME.out, its status in $tmp/NAME.rc
board() {
	local arch=$1 name=$2
	shift 2
	env BOARD_ARCH="$arch" BOARD_OUT="$tmp/$arch" BOARD_DRY_RUN=1 "$@" \
		"$top/kernel/scripts/board-kernel.sh" >"$tmp/$name.out" 2>&1
	echo $? >"$tmp/$name.rc"
	sed "s/^/# $name: /" "$tmp/$name.out"
}
ran_ok() { [ "$(cat "$tmp/$1.rc")" = 0 ]; }
said() { grep -q -- "$2" "$tmp/$1.out"; }

# The subjects of the stable fixes and the series, in order
want=$(for p in $(stable_patches; series_patches); do
	git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
done)

# --- amd64, everything by default ---
board amd64 amd64
a=$tmp/amd64
release=$(sed -n 's/^Package: linux-image-//p' "$a/obj/debian/control" 2>/dev/null)
ktap_test_result "amd64: the dry run ends with the bindeb-pkg command" \
	eval 'ran_ok amd64 && said amd64 "^make -C $a/linux O=$a/obj ARCH=x86_64 .*bindeb-pkg$"'
ktap_test_result "amd64: the tree is Debian's source, then kernel/stable and kernel/series as commits" \
	eval '[ "$(git -C "$a/linux" log --reverse --format=%s base..HEAD)" = "$want" ] &&
		[ "$(git -C "$a/linux" show -s --format=%s base)" = "Drop Debian'"'"'s top-level .gitignore" ]'
conf_ok() { # ARCH: PREEMPT_RT, the fragments kept, no Debian keys, no debug info
	local c=$tmp/$1/obj/.config
	"$top/kernel/scripts/check-config.sh" "$c" "$top/kernel/configs/board.config" \
		"$top/selftests/wqrt/config" &&
		grep -qx 'CONFIG_PREEMPT_RT=y' "$c" &&
		grep -qx 'CONFIG_SYSTEM_TRUSTED_KEYS=""' "$c" &&
		grep -qx 'CONFIG_DEBUG_INFO_NONE=y' "$c" &&
		grep -qx 'CONFIG_LOCALVERSION="-wqrt"' "$c"
}
ktap_test_result "amd64: Debian's RT configuration + board.config + selftests/wqrt/config, checked, no trusted keys, no debug info" \
	conf_ok amd64
ktap_test_result "amd64: the packages linux-image-$release and linux-headers-$release, release 6.12.*-wqrt, for amd64" \
	eval '[[ "$release" == 6.12.*-wqrt ]] && [ "$(cat "$a/obj/debian/arch")" = amd64 ] &&
		grep -qx "Package: linux-headers-$release" "$a/obj/debian/control"'

# --- arm64: that tree, cross, a Debian kernel's configuration file ---
xzcat /usr/src/linux-config-6.12/config.arm64_rt_arm64.xz |
	sed 's|^# CONFIG_SYSTEM_TRUSTED_KEYRING is not set|CONFIG_SYSTEM_TRUSTED_KEYRING=y|' >"$tmp/config-debian"
echo 'CONFIG_SYSTEM_TRUSTED_KEYS="debian/certs/debian-uefi-certs.pem"' >>"$tmp/config-debian"
board arm64 arm64 BOARD_SRC="$a/linux" BOARD_CONFIG="$tmp/config-debian"
ktap_test_result "arm64: the dry run cross-builds from that tree (CROSS_COMPILE=aarch64-linux-gnu-)" \
	eval 'ran_ok arm64 && said arm64 "^make -C $a/linux O=$tmp/arm64/obj ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- .*bindeb-pkg$" &&
		said arm64 "has kernel/stable and kernel/series already"'
ktap_test_result "arm64: a Debian kernel's SYSTEM_TRUSTED_KEYS is emptied, the rest checked" \
	conf_ok arm64
ktap_test_result "arm64: the packages are for arm64" \
	eval '[ "$(cat "$tmp/arm64/obj/debian/arch")" = arm64 ]'

# --- bad input: named, and nothing built ---
board sparc bad-arch
ktap_test_result "BOARD_ARCH=sparc is refused by name" \
	eval '! ran_ok bad-arch && said bad-arch "BOARD_ARCH=sparc: not a board architecture"'
board amd64 bad-config BOARD_SRC="$a/linux" BOARD_CONFIG=/nonexistent/config
ktap_test_result "BOARD_CONFIG=/nonexistent/config is refused by name" \
	eval '! ran_ok bad-config && said bad-config "BOARD_CONFIG=/nonexistent/config: no such file"'
board amd64 bad-src BOARD_SRC=/nonexistent/linux
ktap_test_result "BOARD_SRC=/nonexistent/linux is refused by name" \
	eval '! ran_ok bad-src && said bad-src "BOARD_SRC=/nonexistent/linux: no such file or directory"'
ktap_finished
