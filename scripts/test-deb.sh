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
# a test runs the package's kselftests as a user
chmod 0755 "$tmp"

ktap_print_header
ktap_set_plan 13

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

# issue 33: what a board user needs beside the programs
[ -n "$wqrtd" ] && dpkg-deb -x "$wqrtd" "$tmp/wqrtd-x"
w=$tmp/wqrtd-x
seeds=
for f in "$top"/conf/conf.d/*.conf; do
	cmp -s "$f" "$w/usr/lib/wqrt/conf.d/$(basename "$f")" || seeds="$seeds $(basename "$f")"
done
ktap_test_result "wqrtd: /etc/wqrt.conf.d, the seed profiles in /usr/lib/wqrt/conf.d${seeds:+ (missing:$seeds)}" \
	eval '[ -d "$w/etc/wqrt.conf.d" ] && [ -z "$seeds" ] && ls "$top"/conf/conf.d/*.conf >/dev/null'
# the board steps where wqrtctl check-kernel sends the user
doc=$(strings "$w/usr/sbin/wqrtctl" 2>/dev/null | grep -o '/usr/share/doc/wqrtd/[^ )]*' | head -n 1)
ktap_test_result "wqrtd: the README and ${doc:-the page check-kernel names} in /usr/share/doc/wqrtd" \
	eval '[ -f "$w/usr/share/doc/wqrtd/README.md" ] && [ -n "$doc" ] && [ -f "$w$doc" ]'
# Vcs-* are the source's: debian/control, the .dsc
ktap_test_result "wqrtd: Homepage in its control file, Vcs-Git and Vcs-Browser in the source's" \
	eval '[ -n "$(dpkg-deb -f "$wqrtd" Homepage)" ] &&
		grep -q "^Vcs-Git: " "$top/debian/control" && grep -q "^Vcs-Browser: " "$top/debian/control"'
help_names_packages() {
	local h p
	h=$(make --no-print-directory -C "$top" help)
	for p in wqrtd wqrt-selftests wqrt-selftests-dkms; do
		echo "$h" | grep -q "[ ,]$p\([ ,]\|$\)" || return 1
	done
}
ktap_test_result "make help names the three packages" help_names_packages

# The daemon alone, without the kernel source: the build profile
# pkg.wqrt.noselftests drops linux-source-6.12 from the build
# dependencies, and the build never reads it (WQRT_KSRC names nothing)
bd=$(cd "$top" && perl -MDpkg::Control::Info -MDpkg::Deps -e '
	my $c = Dpkg::Control::Info->new("debian/control");
	print deps_parse($c->get_source->{"Build-Depends"}, build_dep => 1,
		reduce_profiles => 1, build_profiles => ["pkg.wqrt.noselftests"])')
echo "# Build-Depends with pkg.wqrt.noselftests: $bd"
ktap_test_result "pkg.wqrt.noselftests: no linux-source-6.12 among the build dependencies" \
	eval '[ -n "$bd" ] && ! echo "$bd" | grep -q linux-source'
DEB_BUILD_PROFILES=pkg.wqrt.noselftests DEB_BUILD_OPTIONS=nocheck WQRT_KSRC=/nonexistent \
	"$top/scripts/deb.sh" "$tmp/deb-daemon" >"$tmp/deb-daemon.log" 2>&1
rc=$?
built=$(cd "$tmp/deb-daemon" 2>/dev/null && ls *.deb 2>/dev/null | grep -v dbgsym | tr '\n' ' ')
[ $rc = 0 ] || sed 's/^/# /' "$tmp/deb-daemon.log" | tail -n 20
ktap_test_result "pkg.wqrt.noselftests: wqrtd alone, without the kernel source (built: $built)" \
	eval '[ $rc = 0 ] && [ "$built" = "wqrtd_$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)_$(dpkg --print-architecture).deb " ]'

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

# Issue 43.5: the board benchmark, what it runs beside it; as a user it
# refuses with the reason, nothing changed
bmissing=
for f in wqrt-bench-board vm-imu.sh imu-trace.awk imu_uart imu-stats.py shipped-profile.sh load.sh \
	wqattr.sh quiet.sh benchstats.py gpu-submit/vm.sh gpu-submit/stats.py; do
	[ -e "$k/bench/$f" ] || bmissing="$bmissing $f"
done
for f in wqrt-bench-board vm-imu.sh imu_uart imu-stats.py gpu-submit/vm.sh gpu-submit/stats.py; do
	[ -x "$k/bench/$f" ] || bmissing="$bmissing $f(not executable)"
done
setpriv --reuid=65534 --regid=65534 --clear-groups "$k/bench/wqrt-bench-board" gpu \
	>"$tmp/bench-user.log" 2>&1
brc=$?
ktap_test_result "wqrt-selftests: wqrt-bench-board and its scripts in /usr/lib/wqrt-selftests/bench${bmissing:+ (missing:$bmissing)}; as a user it says to run as root (exit $brc)" \
	eval '[ -z "$bmissing" ] && [ $brc = 1 ] && grep -q "run as root" "$tmp/bench-user.log"'

# Issue 33: run_kselftest.sh's output redirected to a file keeps each
# program's SKIP reason (the kernel's runner, unpatched, overwrites it
# with the "ok" lines); as a user every program skips: "run as root"
setpriv --reuid=65534 --regid=65534 --clear-groups "$k/run_kselftest.sh" \
	-t wqrt:wq_sysfs_base >"$tmp/redirected.log" 2>&1
sed 's/^/#   /' "$tmp/redirected.log"
ktap_test_result "wqrt-selftests: run_kselftest.sh > FILE keeps the SKIP reason (run as root) in FILE" \
	eval 'grep -q "^# 1\.\.0 # SKIP run as root" "$tmp/redirected.log" &&
		grep -q "^ok 1 selftests: wqrt: wq_sysfs_base # SKIP" "$tmp/redirected.log"'

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
for m in wqrt_test wqrt_flush wqrt_reach wqrt_tty wqrt_submit; do
	f=$(find "$tmp/dkmstree" -name "$m.ko" | head -n 1)
	v=$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)
	[ "$v" = "$release" ] || bad="$bad $m"
done
[ $rc = 0 ] && [ -z "$bad" ] || sed 's/^/# dkms: /' "$tmp/dkms.log" | tail -n 20
ktap_test_result "dkms build of $name $ver for $release makes wqrt_test, wqrt_flush, wqrt_reach, wqrt_tty, wqrt_submit${bad:+ (bad:$bad)}" \
	eval '[ $rc = 0 ] && [ -z "$bad" ] && [ -n "$release" ]'
ktap_finished
