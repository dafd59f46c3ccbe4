#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkimage.sh OUT.cpio SELFTESTS_DIR: the systemd VM's root as an
# uncompressed initramfs (no block layer needed). wqrt is installed into it
# the way a user installs it (make install DESTDIR=... PREFIX=/usr), with
# the test module, the selftests, the shell test helpers (selftests/lib)
# and the e2e unit, which runs day.sh at boot and powers off.
set -euo pipefail

out=$1
selftests=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${WQRT_BUILD:-$top/build}

base=$("$here/rootfs.sh")
root=$build/e2e/root
rm -rf "$root"
mkdir -p "$build/e2e"
cp -a "$base" "$root"

make --no-print-directory -C "$top/daemon" O="$build/daemon" \
	DESTDIR="$root" PREFIX=/usr install >/dev/null
[ -f "$root/etc/wqrt.conf" ] || { echo "mkimage: make install left no /etc/wqrt.conf" >&2; exit 1; }

mkdir -p "$root/usr/lib/wqrt/selftests" "$root/usr/lib/wqrt/e2e" \
	"$root/usr/lib/wqrt/lib"
cp -a "$selftests/bin/." "$root/usr/lib/wqrt/selftests/"
cp "$selftests"/modules/*.ko "$root/usr/lib/wqrt/selftests/"
install -m 0755 "$here/day.sh" "$root/usr/lib/wqrt/e2e/day.sh"
install -m 0644 "$here"/../lib/*.sh "$root/usr/lib/wqrt/lib/"
install -m 0644 "$here/wqrt-e2e.service" "$root/etc/systemd/system/"
ln -sf /etc/systemd/system/wqrt-e2e.service \
	"$root/etc/systemd/system/multi-user.target.wants/wqrt-e2e.service"

# A quiet, fast boot: no login prompts, no timers, nothing to wait for.
echo wqrt-e2e >"$root/etc/hostname"
: >"$root/etc/machine-id"
for u in getty.target serial-getty@ttyS0.service getty@tty1.service \
	apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer \
	e2scrub_all.timer fstrim.timer man-db.timer systemd-tmpfiles-clean.timer; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
ln -sf /lib/systemd/systemd "$root/init"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$root"
