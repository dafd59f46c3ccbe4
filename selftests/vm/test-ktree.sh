#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-ktree.sh [KERNEL_DIR]: the kselftests dropped into a kernel tree,
# as docs/board.md and selftests/wqrt/Makefile tell a board user, installed
# into a temporary directory; checks the layout. KERNEL_DIR holds src/
# and obj/ (default: the test kernel, build/kernel-test). Host side, TAP.
#
#   cp -rL selftests/wqrt linux/tools/testing/selftests/wqrt
#   make -C linux/tools/testing/selftests TARGETS=wqrt KDIR=... install
#
# The tree here is the kernel source's selftest framework (the files that
# building and installing a target reads) in a scratch directory, so
# neither the cached kernel source nor this checkout is written to.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
kdir=${1:-$build/kernel-test}
kdir=$(cd "$kdir" 2>/dev/null && pwd || echo "$kdir")
. "$top/selftests/lib/ktap.sh"

src=$kdir/src obj=$kdir/obj
[ -f "$src/tools/testing/selftests/lib.mk" ] && [ -f "$obj/Module.symvers" ] || {
	echo "test-ktree: no built kernel at $kdir (make kernel)" >&2
	exit 1
}
tmp=$(mktemp -d /tmp/wqrt-ktree.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# the tests as a user read the programs there
chmod 0755 "$tmp"
tree=$tmp/linux ksft=tools/testing/selftests
inst=$tmp/install

progs=$(make --no-print-directory -s -C "$top/selftests/wqrt" KSRC="$src" \
	OUTPUT="$tmp/list" list && cat "$tmp/list/list")
nprogs=$(echo "$progs" | wc -w)
release=$(cat "$obj/include/config/kernel.release")

ktap_print_header
ktap_set_plan 16

mkdir -p "$tree/$ksft" "$tree/scripts"
(cd "$src" && cp -a $ksft/Makefile $ksft/lib.mk $ksft/kselftest.h \
	$ksft/kselftest_harness.h $ksft/run_kselftest.sh $ksft/kselftest \
	"$tree/$ksft/" && cp scripts/subarch.include "$tree/scripts/")
cp -rL "$top/selftests/wqrt" "$tree/$ksft/wqrt"
make -C "$tree/$ksft" TARGETS=wqrt KDIR="$obj" KSFT_INSTALL_PATH="$inst" \
	install >"$tmp/make.log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# make: /' "$tmp/make.log" | tail -n 30
ktap_test_result "make -C tools/testing/selftests TARGETS=wqrt install succeeds" [ $rc = 0 ]

ktap_test_result "run_kselftest.sh and kselftest/runner.sh are installed" \
	eval '[ -x "$inst/run_kselftest.sh" ] && [ -f "$inst/kselftest/runner.sh" ]'

want=$(for p in $progs; do echo "wqrt:$p"; done)
got=$(cat "$inst/kselftest-list.txt" 2>/dev/null)
[ "$want" = "$got" ] || echo "# kselftest-list.txt: $got" | tr '\n' ' '
ktap_test_result "kselftest-list.txt lists the $nprogs programs of TEST_GEN_PROGS in order" \
	[ "$want" = "$got" ]

missing=
for p in $progs; do
	[ -x "$inst/wqrt/$p" ] || missing="$missing $p"
done
ktap_test_result "every program is in INSTALL_PATH/wqrt/${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
ktap_test_result "settings and config are installed beside them" \
	eval '[ -f "$inst/wqrt/settings" ] && [ -f "$inst/wqrt/config" ]'

bad=
for m in wqrt_test wqrt_flush wqrt_reach wqrt_tty; do
	f=$inst/wqrt/modules/$m.ko
	v=$(modinfo -F vermagic "$f" 2>/dev/null | cut -d' ' -f1)
	[ "$v" = "$release" ] || bad="$bad $m(${v:-missing})"
done
ktap_test_result "TEST_GEN_MODS_DIR: the test modules, built for $release, in INSTALL_PATH/wqrt/modules/${bad:+ (bad:$bad)}" \
	[ -z "$bad" ]

# Without the modules (a board whose kernel has no wqrt_test, nor DKMS):
# a program says why and exits KSFT_SKIP, and run_kselftest.sh reports
# a SKIP for each, not a plain ok. The host's kernel never has wqrt_test,
# and the built modules are removed first so none is loaded into it.
cp -a "$inst" "$tmp/nomod"
rm -rf "$tmp/nomod/wqrt/modules"
"$tmp/nomod/wqrt/wq_sysfs_base" >"$tmp/skip.out" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/skip.out"
ktap_test_result "without the module a program exits KSFT_SKIP (4), got $rc" [ $rc = 4 ]
ktap_test_result "... and says why" \
	grep -q '^1\.\.0 # SKIP wqrt_test module not available' "$tmp/skip.out"
"$tmp/nomod/run_kselftest.sh" >"$tmp/run.out" 2>&1
n=$(grep -c '^ok [0-9]* selftests: wqrt: .* # SKIP' "$tmp/run.out")
grep '^\(not \)\?ok ' "$tmp/run.out" | sed 's/^/#   /'
ktap_test_result "run_kselftest.sh without the module: $n of $nprogs SKIP, none plain ok" \
	[ "$n" = "$nprogs" ]

# Issue 33: as a user, a program says "run as root" (not the module's
# reason), and run_kselftest.sh's output redirected to a file keeps it.
as_user() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
as_user "$tmp/nomod/wqrt/wq_sysfs_base" >"$tmp/user.out" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/user.out"
ktap_test_result "as a user a program exits KSFT_SKIP saying run as root" \
	eval '[ $rc = 4 ] && grep -q "^1\.\.0 # SKIP run as root" "$tmp/user.out"'

# Issue 33: make -C selftests/wqrt install, outside a kernel tree: the
# kernel's install in a scratch copy of KSRC's framework
make --no-print-directory -C "$top/selftests/wqrt" KSRC="$src" KDIR="$obj" \
	OUTPUT="$tmp/standalone" INSTALL_PATH="$tmp/sa" install >"$tmp/sa.log" 2>&1
rc=$?
[ $rc = 0 ] || sed 's/^/# make: /' "$tmp/sa.log" | tail -n 20
sa_missing=
for p in $progs; do
	[ -x "$tmp/sa/wqrt/$p" ] || sa_missing="$sa_missing $p"
done
ktap_test_result "make -C selftests/wqrt install: run_kselftest.sh, the $nprogs programs, modules for $release${sa_missing:+ (missing:$sa_missing)}" \
	eval '[ $rc = 0 ] && [ -x "$tmp/sa/run_kselftest.sh" ] && [ -z "$sa_missing" ] &&
		[ "$(modinfo -F vermagic "$tmp/sa/wqrt/modules/wqrt_test.ko" 2>/dev/null | cut -d" " -f1)" = "$release" ]'
ktap_test_result "...and it says how to run them, and where" \
	grep -qF "$tmp/sa/run_kselftest.sh 2>&1 | tee kselftest.log" "$tmp/sa.log"
# its runner keeps a program's SKIP reason in a file run_kselftest.sh's
# output is redirected to (> FILE: the kernel's own runner loses it). As
# root, as the tests are run (the kernel installs kselftest/prefix.pl,
# which the runner executes, 0744): without the modules, the module's
# reason.
rm -rf "$tmp/sa/wqrt/modules"
"$tmp/sa/run_kselftest.sh" -t wqrt:wq_sysfs_base >"$tmp/redirected.log" 2>&1
sed 's/^/#   /' "$tmp/redirected.log"
ktap_test_result "run_kselftest.sh > FILE keeps the SKIP reason in FILE" \
	eval 'grep -q "^# 1\.\.0 # SKIP wqrt_test module not available" "$tmp/redirected.log" &&
		grep -q "^ok 1 selftests: wqrt: wq_sysfs_base # SKIP" "$tmp/redirected.log"'
# without KSRC (nor Debian's linux-source-6.12) a standalone build says
# how to set it, instead of failing on kselftest_harness.h
make --no-print-directory -C "$top/selftests/wqrt" KSRC_TARBALL=/nonexistent \
	KSRC=/nonexistent/linux OUTPUT="$tmp/noksrc" >"$tmp/noksrc.log" 2>&1
rc=$?
sed 's/^/#   /' "$tmp/noksrc.log" | cut -c1-200
ktap_test_result "a standalone build without KSRC says to set KSRC, and where it looked" \
	eval '[ $rc != 0 ] && grep -q "no /nonexistent/linux/tools/testing/selftests/kselftest_harness.h: set KSRC to a kernel source tree" "$tmp/noksrc.log" &&
		! grep -q "kselftest_harness.h: No such file" "$tmp/noksrc.log"'

# The Debian package ships the modules as DKMS source instead.
rm -rf "$tmp/inst0"
make -C "$tree/$ksft" TARGETS=wqrt WQRT_MODULES=0 KSFT_INSTALL_PATH="$tmp/inst0" \
	install >"$tmp/make0.log" 2>&1
rc=$?
ktap_test_result "WQRT_MODULES=0 installs the programs without modules/" \
	eval '[ $rc = 0 ] && [ -x "$tmp/inst0/wqrt/wq_sysfs_base" ] && [ ! -e "$tmp/inst0/wqrt/modules" ]'

# A board's usual case: cross-compiled for arm64 against its kernel (the
# arm64 test kernel when it is built: make check builds it before this).
a64=${WQRT_KTREE_ARM64:-$build/kernel-test-arm64}
if [ -f "$a64/obj/Module.symvers" ] && command -v aarch64-linux-gnu-gcc >/dev/null; then
	a64=$(cd "$a64" && pwd)
	# the x86_64 objects out first, as between any two builds
	make -C "$tree/$ksft" TARGETS=wqrt KDIR="$obj" clean >/dev/null 2>&1
	make -C "$tree/$ksft" TARGETS=wqrt ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
		KDIR="$a64/obj" KSFT_INSTALL_PATH="$tmp/arm64" install >"$tmp/arm64.log" 2>&1
	rc=$?
	[ $rc = 0 ] || sed 's/^/# make: /' "$tmp/arm64.log" | tail -n 20
	elf=$(file -b "$tmp/arm64/wqrt/wq_sysfs_base" 2>/dev/null)
	vm=$(modinfo -F vermagic "$tmp/arm64/wqrt/modules/wqrt_test.ko" 2>/dev/null)
	echo "# arm64: $elf; $vm" | cut -c1-200
	ktap_test_result "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-: aarch64 programs and modules" \
		eval '[ $rc = 0 ] && [[ "$elf" == *aarch64* ]] && [[ "$vm" == *aarch64* ]]'
else
	ktap_test_skip "ARCH=arm64 cross install: no arm64 kernel built at $a64"
fi

ktap_finished
