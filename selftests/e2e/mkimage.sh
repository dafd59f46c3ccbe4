#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkimage.sh OUT.cpio SELFTESTS_DIR: the systemd VM's root as an
# uncompressed initramfs (no block layer needed). wqrt is installed into it
# the way a user installs it: the Debian packages wqrtd and wqrt-selftests
# (make deb) with dpkg -i. The test modules, built for the VM's kernel by
# the project, go to /lib/modules/RELEASE/updates/wqrt with depmod, where
# DKMS (wqrt-selftests-dkms) puts them on a board with kernel headers. The
# shell test helpers (selftests/lib) and the e2e unit, which runs day.sh at
# boot and powers off, come along.
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

debs=$build/e2e/deb
"$top/scripts/deb.sh" "$debs" >/dev/null
mkdir -p "$root/tmp/debs"
cp "$debs"/wqrtd_*.deb "$debs"/wqrt-selftests_*.deb "$root/tmp/debs/"
# dpkg -i as a user runs it; in the chroot no systemd runs, so the
# postinst enables wqrtd (it starts at boot) without starting it now
chroot "$root" sh -c 'dpkg -i /tmp/debs/*.deb' >"$build/e2e/dpkg.log" 2>&1 || {
	cat "$build/e2e/dpkg.log" >&2
	echo "mkimage: dpkg -i of the wqrt packages failed" >&2
	exit 1
}
rm -rf "$root/tmp/debs"
[ -f "$root/etc/wqrt.conf" ] || { echo "mkimage: the wqrtd package left no /etc/wqrt.conf" >&2; exit 1; }

# A newer wqrtd package for day.sh's upgrade: the same files, a higher
# version, as an upgrade brings them (what an upgrade runs is the package's
# maintainer scripts and unit, the same).
newer=$build/e2e/deb-newer
rm -rf "$newer" && mkdir -p "$newer"
dpkg-deb -R "$debs"/wqrtd_*.deb "$newer/pkg"
ver=$(sed -n 's/^Version: //p' "$newer/pkg/DEBIAN/control")
sed -i "s/^Version: .*/Version: $ver+e2e1/" "$newer/pkg/DEBIAN/control"
dpkg-deb -b "$newer/pkg" "$newer/wqrtd_$ver+e2e1.deb" >/dev/null
install -D -m 0644 "$newer/wqrtd_$ver+e2e1.deb" "$root/usr/lib/wqrt/e2e/wqrtd-newer.deb"
rm -rf "$newer"

release=$(modinfo -F vermagic "$selftests/modules/wqrt_test.ko" | cut -d' ' -f1)
install -D -m 0644 -t "$root/lib/modules/$release/updates/wqrt" "$selftests"/modules/*.ko
chroot "$root" depmod -a "$release" 2>/dev/null

mkdir -p "$root/usr/lib/wqrt/e2e" "$root/usr/lib/wqrt/lib"
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
