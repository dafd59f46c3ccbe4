#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-install.sh: make install and make uninstall as a user or a packager
# runs them, into scratch directories (DESTDIR): no apt-get, the files in
# place, the caller's CPPFLAGS/CFLAGS/LDFLAGS used and no -Werror, an
# edited /etc/wqrt.conf kept, the unit where pkg-config says. TAP.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d /tmp/wqrt-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# An apt-get that only says it was called: make install must not call it.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "$0 $*" >>%s/apt-get.called\nexit 1\n' "$tmp" >"$tmp/bin/apt-get"
chmod +x "$tmp/bin/apt-get"
export PATH="$tmp/bin:$PATH"

unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir=${unitdir:-/usr/lib/systemd/system}
d=$tmp/root

ktap_print_header
ktap_set_plan 13

make --no-print-directory -C "$top" install BUILD="$tmp/build" DESTDIR="$d" PREFIX=/usr \
	CPPFLAGS="-DWQRT_PROBE_CPPFLAGS" CFLAGS="-O2 -g -fstack-protector-strong" \
	LDFLAGS="-Wl,-z,relro -Wl,-z,now" >"$tmp/install.log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# /' "$tmp/install.log" | tail -n 20
ktap_test_result "make install DESTDIR PREFIX=/usr succeeds" [ $rc = 0 ]
ktap_test_result "make install ran no apt-get (nor make deps)" \
	eval '[ ! -e "$tmp/apt-get.called" ] && ! grep -q "wqrt: installing\|all build and test dependencies" "$tmp/install.log"'

missing=
for f in /usr/sbin/wqrtd /usr/sbin/wqrtctl "$unitdir/wqrtd.service" \
	/usr/share/man/man8/wqrtd.8 /usr/share/man/man8/wqrtctl.8 \
	/usr/share/man/man5/wqrt.conf.5 /etc/wqrt.conf; do
	[ -f "$d$f" ] || missing="$missing $f"
done
ktap_test_result "binaries, unit ($unitdir), man pages and /etc/wqrt.conf installed${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
ktap_test_result "the unit runs /usr/sbin/wqrtd" \
	grep -q '^ExecStart=/usr/sbin/wqrtd ' "$d$unitdir/wqrtd.service"
# issue 33: the drop-in directory, the seed profiles in the vendor one
seeds_in_place() {
	local f
	[ -d "$d/etc/wqrt.conf.d" ] || return 1
	for f in "$top"/conf/conf.d/*.conf; do
		cmp "$f" "$d/usr/lib/wqrt/conf.d/$(basename "$f")" || return 1
	done
}
ktap_test_result "/etc/wqrt.conf.d made, the seed profiles in /usr/lib/wqrt/conf.d" \
	seeds_in_place
ktap_test_result "make install says how to start wqrtd: daemon-reload, enable --now" \
	eval 'grep -qx "  systemctl daemon-reload" "$tmp/install.log" &&
		grep -qx "  systemctl enable --now wqrtd" "$tmp/install.log"'
# the vendor directory the programs read is the one make install fills
ktap_test_result "the installed wqrtctl reads PREFIX/lib/wqrt/conf.d" \
	grep -qa '^/usr/lib/wqrt/conf.d$' <(strings "$d/usr/sbin/wqrtctl")

# every compile saw CPPFLAGS and CFLAGS, every link LDFLAGS; no -Werror
ncc=$(grep -c -- ' -c .*\.c -o ' "$tmp/install.log")
ncpp=$(grep -- ' -c .*\.c -o ' "$tmp/install.log" | grep -c -- '-DWQRT_PROBE_CPPFLAGS.*-fstack-protector-strong')
nld=$(grep -- '-o .*/wqrt\(d\|ctl\) ' "$tmp/install.log" | grep -c -- '-Wl,-z,now')
ktap_test_result "CPPFLAGS and CFLAGS in all $ncc compiles ($ncpp), LDFLAGS in both links ($nld)" \
	eval '[ "$ncc" -gt 0 ] && [ "$ncpp" = "$ncc" ] && [ "$nld" = 2 ]'
ktap_test_result "make install builds without -Werror" \
	eval '! grep -q -- -Werror "$tmp/install.log"'

echo "# an edit" >>"$d/etc/wqrt.conf"
make --no-print-directory -C "$top" install BUILD="$tmp/build" DESTDIR="$d" PREFIX=/usr \
	>"$tmp/install2.log" 2>&1
ktap_test_result "a second make install keeps the edited /etc/wqrt.conf" \
	grep -q '^# an edit' "$d/etc/wqrt.conf"

make --no-print-directory -C "$top" uninstall BUILD="$tmp/build" DESTDIR="$d" PREFIX=/usr \
	>"$tmp/uninstall.log" 2>&1
left=$(cd "$d" && find . -type f | sort | tr '\n' ' ')
ktap_test_result "make uninstall leaves only the edited /etc/wqrt.conf (left: $left)" \
	[ "$left" = "./etc/wqrt.conf " ]

# issue 33: a missing library names every package, zlib1g-dev included
mkdir -p "$tmp/nopc"
printf '#!/bin/sh\nexit 1\n' >"$tmp/nopc/pkg-config"
chmod +x "$tmp/nopc/pkg-config"
make --no-print-directory -C "$top" install BUILD="$tmp/build-nopc" DESTDIR="$tmp/nopc-root" \
	PKG_CONFIG="$tmp/nopc/pkg-config" >"$tmp/install-nopc.log" 2>&1
ktap_test_result "without the libraries, make install names the packages, zlib1g-dev too" \
	eval '! [ -e "$tmp/nopc-root/usr/local/sbin/wqrtd" ] &&
		grep "apt-get install pkg-config libsystemd-dev libnl-3-dev libiniparser-dev" "$tmp/install-nopc.log" |
			grep -q " zlib1g-dev"'

d2=$tmp/local
make --no-print-directory -C "$top" install BUILD="$tmp/build" DESTDIR="$d2" \
	>"$tmp/install3.log" 2>&1
ktap_test_result "PREFIX defaults to /usr/local, the unit to /usr/local/lib/systemd/system" \
	eval '[ -x "$d2/usr/local/sbin/wqrtd" ] && [ -f "$d2/usr/local/lib/systemd/system/wqrtd.service" ]'
ktap_finished
