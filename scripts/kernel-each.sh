#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-each.sh: every prefix of the series must build and boot, and the
# selftests must pass on it (each patch stands on its own). Builds the test
# flavour with the first N patches for N = 1..len and runs the VM suite.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
n=$(grep -cvE '^\s*(#|$)' kernel/series || true)
[ "$n" -gt 0 ] || { echo "kernel-each: the series is empty"; exit 0; }
fail=0
for i in $(seq 1 "$n"); do
	name=test-p$i
	echo "=== kernel-each: first $i of $n patch(es)"
	kernel/scripts/build.sh test "$i"
	make --no-print-directory -C selftests KDIR="build/kernel-$name/obj" \
		KSRC="build/kernel-$name/src" O="$top/build/selftests/$name"
	selftests/vm/mkinitramfs.sh "build/initramfs-$name.cpio" "build/selftests/$name"
	if ! selftests/vm/run-vm.sh --name "$name" "build/kernel-$name" \
		"build/initramfs-$name.cpio"; then
		echo "kernel-each: FAIL with the first $i patch(es)"
		fail=1
	fi
done
exit $fail
