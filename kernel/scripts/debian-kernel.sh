#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-kernel.sh: Debian's own PREEMPT_RT kernel (linux-image-6.12-rt-amd64,
# the signed one a board installs with apt), laid out as a kernel tree the VM
# scripts boot, with no build: build/kernel-debian-rt.
#
# The packages are fetched from the archive (apt-get download: nothing is
# installed on the host, its /boot and boot loader stay untouched) in the
# version of the linux-source-6.12 the other flavours build, so that the
# kselftest framework the selftests compile against (src/, the pristine
# source of common.sh) is the one of the kernel booted. Unpacked into the
# cache:
#
#   root/  the image, headers and kbuild packages, as dpkg would lay them
#   obj/   the headers tree (out-of-tree modules build against it, as DKMS
#          does on a board), plus arch/x86/boot/bzImage: the package's
#          vmlinuz, so vm.sh boots it as it boots a built tree
#   src/   the pristine linux-source-6.12 of the same version
#   debs/  the packages as downloaded
#   expect the column of selftests/vm/expected its VM suite is judged by
set -euo pipefail

. "$(dirname "$0")/common.sh"

[ "$(dpkg --print-architecture)" = amd64 ] ||
	die "Debian's RT kernel flavour is amd64 only (this host is $(dpkg --print-architecture))"
ver=$(ksrc_version)
base=$(base_repo)
dir="$WQRT_CACHE/debian/$ver-rt-amd64"
mkdir -p "$WQRT_CACHE/debian" "$WQRT_BUILD"
exec 8>"$dir.lock"
flock 8

if [ ! -f "$dir/.done" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	# apt-get download as root: its sandbox user must be able to write the
	# target directory
	chown _apt "$dir/debs" 2>/dev/null || true
	fetch() { # PACKAGE=VERSION...: into debs/
		(cd "$dir/debs" && apt-get download -q "$@") >"$dir/fetch.log" 2>&1 || {
			cat "$dir/fetch.log" >&2
			die "apt-get download $* failed: Debian's RT kernel $ver is not in the archive apt knows (apt update, or a linux-source-6.12 of another version than the archive's)"
		}
	}
	note "fetching Debian's linux-image-6.12-rt-amd64 $ver and its headers (about 120 MB)"
	fetch "linux-image-6.12-rt-amd64=$ver"
	# the metapackage names the ABI's image package
	abi=$(dpkg-deb -f "$dir"/debs/linux-image-6.12-rt-amd64_*.deb Depends |
		grep -o 'linux-image-[^ ,]*-rt-amd64' | head -n 1)
	[ -n "$abi" ] || die "linux-image-6.12-rt-amd64 $ver names no image package"
	release=${abi#linux-image-}           # 6.12.118+deb12-rt-amd64
	abiver=${release%-rt-amd64}           # 6.12.118+deb12
	fetch "$abi=$ver" "linux-headers-$release=$ver" \
		"linux-headers-$abiver-common-rt=$ver" "linux-kbuild-$abiver=$ver"
	for deb in "$dir"/debs/*.deb; do
		dpkg-deb -x "$deb" "$dir/root"
	done
	hdr="$dir/root/usr/src/linux-headers-$release"
	[ -f "$hdr/.config" ] && [ -f "$dir/root/boot/vmlinuz-$release" ] ||
		die "the packages of $abi do not hold a headers tree and a vmlinuz"
	# The headers' Makefile includes the common tree by its absolute path
	# (/usr/src/...): point it at the unpacked one. Its other links are
	# relative and hold inside root/.
	sed -i "s|^include /usr/src/|include $dir/root/usr/src/|" "$hdr/Makefile"
	install -D -m 0644 "$dir/root/boot/vmlinuz-$release" "$hdr/arch/x86/boot/bzImage"
	ln -sfn "root/usr/src/linux-headers-$release" "$dir/obj"
	echo "$release" >"$dir/release"
	touch "$dir/.done"
fi
ln -sfn "$base" "$dir/src"
echo debian-rt >"$dir/expect"
ln -sfn "$dir" "$WQRT_BUILD/kernel-debian-rt"
note "kernel debian-rt: Debian's linux-image-$(cat "$dir/release") $ver, unpacked in $dir"
