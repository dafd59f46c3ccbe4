#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-deb.sh [DEBDIR [KERNEL_DIR]]: what the packages of make deb hold
# beyond what lintian sees: /etc/wqrt.conf a conffile, the unit enabled
# and started by the postinst, the kselftests in the kernel tree's install
# layout, and the DKMS source building the test modules with dkms itself
# against a kernel (KERNEL_DIR/obj, default build/kernel-test) in scratch
# trees (nothing is installed on this machine). TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build=${WQRT_BUILD:-$top/build}
debs=${1:-$build/deb}
kdir=${2:-$build/kernel-test}
kdir=$(cd "$kdir" 2>/dev/null && pwd || echo "$kdir")
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d /tmp/wqrt-deb.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

ktap_print_header
ktap_set_plan 5

wqrtd=$(ls "$debs"/wqrtd_*.deb 2>/dev/null | head -n 1)
st=$(ls "$debs"/wqrt-selftests_*.deb 2>/dev/null | head -n 1)
dkms=$(ls "$debs"/wqrt-selftests-dkms_*.deb 2>/dev/null | head -n 1)

mkdir -p "$tmp/wqrtd" "$tmp/st" "$tmp/dkms"
[ -n "$wqrtd" ] && dpkg-deb -R "$wqrtd" "$tmp/wqrtd"
ktap_test_result "wqrtd: /etc/wqrt.conf is a conffile" \
	grep -qx /etc/wqrt.conf "$tmp/wqrtd/DEBIAN/conffiles"
postinst_enables_starts() {
	local f=$tmp/wqrtd/DEBIAN/postinst
	grep -q "deb-systemd-helper enable 'wqrtd.service'" "$f" &&
		grep -q "deb-systemd-invoke .* 'wqrtd.service'" "$f"
}
ktap_test_result "wqrtd: the postinst enables and starts wqrtd.service" \
	postinst_enables_starts

[ -n "$st" ] && dpkg-deb -x "$st" "$tmp/st"
k=$tmp/st/usr/lib/wqrt-selftests
missing=
for f in run_kselftest.sh kselftest/runner.sh kselftest-list.txt wqrt/settings wqrt/config; do
	[ -e "$k/$f" ] || missing="$missing $f"
done
for t in $(sed -n 's/^wqrt://p' "$k/kselftest-list.txt" 2>/dev/null); do
	[ -x "$k/wqrt/$t" ] || missing="$missing wqrt/$t"
done
ktap_test_result "wqrt-selftests: the kselftest install layout in /usr/lib/wqrt-selftests${missing:+ (missing:$missing)}" \
	eval '[ -z "$missing" ] && [ "$(grep -c ^wqrt: "$k/kselftest-list.txt")" -ge 6 ]'

[ -n "$dkms" ] && dpkg-deb -x "$dkms" "$tmp/dkms"
conf=$(ls "$tmp"/dkms/usr/src/*/dkms.conf 2>/dev/null | head -n 1)
ktap_test_result "wqrt-selftests-dkms: DKMS source with dkms.conf in /usr/src" [ -n "$conf" ]

release=$(cat "$kdir/obj/include/config/kernel.release" 2>/dev/null)
ver=$(dpkg-deb -f "$dkms" Version 2>/dev/null)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$conf" 2>/dev/null)
mkdir -p "$tmp/dkmstree" "$tmp/installtree"
dkms build --dkmstree "$tmp/dkmstree" --sourcetree "$tmp/dkms/usr/src" \
	--installtree "$tmp/installtree" -m "$name" -v "$ver" -k "$release" \
	--kernelsourcedir "$kdir/obj" >"$tmp/dkms.log" 2>&1
rc=$?
bad=
for m in wqrt_test wqrt_flush wqrt_reach wqrt_tty; do
	f=$(find "$tmp/dkmstree" -name "$m.ko" | head -n 1)
	v=$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)
	[ "$v" = "$release" ] || bad="$bad $m"
done
[ $rc = 0 ] && [ -z "$bad" ] || sed 's/^/# dkms: /' "$tmp/dkms.log" | tail -n 20
ktap_test_result "dkms build of $name $ver for $release makes wqrt_test, wqrt_flush, wqrt_reach, wqrt_tty${bad:+ (bad:$bad)}" \
	eval '[ $rc = 0 ] && [ -z "$bad" ] && [ -n "$release" ]'
ktap_finished
