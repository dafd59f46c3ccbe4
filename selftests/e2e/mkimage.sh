#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# mkimage.sh OUT.cpio SELFTESTS_DIR [SCRIPT [KERNEL_PKG_ROOT]]: the systemd
# VM's root as an uncompressed initramfs (no block layer needed), which
# runs SCRIPT at boot (selftests/e2e/day.sh by default).
#
# day.sh, the user's day on a kernel with the series: the Debian packages
# of make deb (wqrtd, wqrt-selftests, wqrt-selftests-dkms) are put in
# /root/wqrt-debs, and what apt needs to install them in the image's apt
# cache (the heavy part of it installed already, below): day.sh installs
# them with apt install ./*.deb, as a user does.
#
# first-hour.sh, the fallback path on Debian's own RT kernel: wqrtd's
# package alone in /root/wqrt-debs (a production board's install), the
# UART loopback helper, and the kernel package's /boot and /lib/modules
# from KERNEL_PKG_ROOT (kernel/scripts/debian-kernel.sh unpacks it), as
# apt install linux-image-6.12-rt-amd64 leaves them (check-kernel reads
# /boot/config-RELEASE; udev loads the modules).
# The test modules, built for the VM's kernel by the project, go to
# /lib/modules/RELEASE/updates/wqrt with depmod, where DKMS puts them on
# a board with kernel headers (the VM's kernel has none installed). The
# shell test helpers (selftests/lib) and the e2e unit, which runs day.sh at
# boot and powers off, come along.
set -euo pipefail

out=$1
selftests=$2
script=${3:-$(dirname "$0")/day.sh}
kpkg=${4:-}
script_name=$(basename "$script" .sh)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
# WQRT_CACHE, as the kernel scripts and rootfs.sh find it
. "$top/kernel/scripts/common.sh"

base=$("$here/rootfs.sh")
root=$build/e2e/root
rm -rf "$root"
mkdir -p "$build/e2e"
cp -a "$base" "$root"

debs=$build/e2e/deb
"$top/scripts/deb.sh" "$debs" >/dev/null
# The three packages, which day.sh installs in the VM with "apt install
# ./*.deb" as a user does on a fresh board. The VM has no network: what
# apt needs besides them is downloaded here, on the host, into the image's
# apt cache, where apt finds it (a cache of our own keeps those between
# images; apt checks each file against the package lists). What wqrt's
# packages need of their own (dkms; libnl-3-200 and libiniparser1, which
# the base root has and loses here) stays for apt to install in the VM;
# the compiler and the rest of what dkms brings along are installed now,
# on the host, which unpacks them in seconds where TCG takes a quarter of
# an hour.
pkgdir=/root/wqrt-debs
own_deps="dkms libnl-3-200 libiniparser1"
mkdir -p "$root$pkgdir"
if [ "$script_name" = first-hour ]; then
	cp "$debs"/wqrtd_*.deb "$root$pkgdir/"
else
	cp "$debs"/wqrtd_*.deb "$debs"/wqrt-selftests_*.deb "$debs"/wqrt-selftests-dkms_*.deb \
		"$root$pkgdir/"
fi
# man-db's trigger would rebuild its index for every package installed;
# man works without it
echo "man-db man-db/auto-update boolean false" | chroot "$root" debconf-set-selections
chroot "$root" dpkg --purge libnl-3-200 libiniparser1 >/dev/null
archives=$WQRT_CACHE/e2e-archives
mkdir -p "$archives"
(
	flock 9
	cp -n "$archives"/*.deb "$root/var/cache/apt/archives/" 2>/dev/null || true
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	log=$build/e2e/apt.log
	if ! chroot "$root" sh -c "cd $pkgdir && apt-get install --download-only -y -q ./*.deb" >"$log" 2>&1; then
		cat "$log" >&2
		echo "mkimage: apt could not fetch what the wqrt packages need (log above)" >&2
		exit 1
	fi
	cp -n "$root"/var/cache/apt/archives/*.deb "$archives/" 2>/dev/null || true
	rm -f "$root/etc/resolv.conf"
	# what apt would install, but wqrt's packages and their own deps
	pre=$(chroot "$root" sh -c "cd $pkgdir && apt-get install -s ./*.deb" 2>/dev/null |
		awk '$1 == "Inst" {print $2}' | grep -vxE "wqrt.*|${own_deps// /|}" || true)
	if [ -n "$pre" ] && ! chroot "$root" env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-download $pre >>"$log" 2>&1; then
		cat "$log" >&2
		echo "mkimage: the packages dkms brings along do not install (log above)" >&2
		exit 1
	fi
	# in the image's cache only what is left for apt to install
	for f in "$root"/var/cache/apt/archives/*.deb; do
		case "$(basename "$f")" in
		dkms_* | libnl-3-200_* | libiniparser1_*) ;;
		*) rm -f "$f" ;;
		esac
	done
) 9>"$archives.lock"

# A newer wqrtd package for day.sh's upgrade: the same files, a higher
# version, as an upgrade brings them (what an upgrade runs is the package's
# maintainer scripts and unit, the same). first-hour.sh has no upgrade.
if [ "$script_name" != first-hour ]; then
	newer=$build/e2e/deb-newer
	rm -rf "$newer" && mkdir -p "$newer"
	dpkg-deb -R "$debs"/wqrtd_*.deb "$newer/pkg"
	ver=$(sed -n 's/^Version: //p' "$newer/pkg/DEBIAN/control")
	sed -i "s/^Version: .*/Version: $ver+e2e1/" "$newer/pkg/DEBIAN/control"
	dpkg-deb -b "$newer/pkg" "$newer/wqrtd_$ver+e2e1.deb" >/dev/null
	install -D -m 0644 "$newer/wqrtd_$ver+e2e1.deb" "$root/usr/lib/wqrt/e2e/wqrtd-newer.deb"
	rm -rf "$newer"
fi

mkdir -p "$root/usr/lib/wqrt/e2e" "$root/usr/lib/wqrt/lib"
if [ "$script_name" = first-hour ]; then
	# what the kernel package installs on a board
	[ -d "$kpkg/boot" ] && [ -d "$kpkg/lib/modules" ] || {
		echo "mkimage: first-hour.sh needs the kernel package's root (/boot, /lib/modules), not '$kpkg'" >&2
		exit 2
	}
	cp -a "$kpkg/boot/." "$root/boot/"
	mkdir -p "$root/lib/modules"
	cp -a "$kpkg/lib/modules/." "$root/lib/modules/"
	for release in "$root"/lib/modules/*; do
		chroot "$root" depmod -a "${release##*/}" 2>/dev/null
	done
	install -m 0755 "$selftests/bin/uart_loop" "$root/usr/lib/wqrt/e2e/uart_loop"
else
	release=$(modinfo -F vermagic "$selftests/modules/wqrt_test.ko" | cut -d' ' -f1)
	install -D -m 0644 -t "$root/lib/modules/$release/updates/wqrt" "$selftests"/modules/*.ko
	chroot "$root" depmod -a "$release" 2>/dev/null
fi
install -m 0755 "$script" "$root/usr/lib/wqrt/e2e/$script_name.sh"
ln -sf "$script_name.sh" "$root/usr/lib/wqrt/e2e/day"
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
