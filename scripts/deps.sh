#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh [--check]
#
# Install every Debian package wqrt needs to build, test and benchmark.
# As root the missing ones are installed with apt-get; otherwise the exact
# apt-get line is printed and the script fails. --check only reports.
set -euo pipefail

packages=(
	# compiler and kernel build
	build-essential flex bison bc libelf-dev libssl-dev cpio kmod
	xz-utils rsync git python3 dwarves ccache
	# the kernel source the series applies to, and Debian's configurations
	# of it (make board-kernel starts from the RT ones)
	linux-source-6.12 linux-config-6.12 linux-config-6.12:arm64
	# the VM
	qemu-system-x86 busybox-static
	# wqrtd (libnl-3 alone: it uses no generic netlink)
	pkg-config libsystemd-dev libnl-3-dev
	libiniparser-dev libcmocka-dev zlib1g-dev
	# wqrtctl latency/who/try: tracefs instances, histogram triggers and
	# synthetic events (what rtla uses)
	libtracefs-dev libtraceevent-dev
	# the Debian packages (make deb), their lint and a dkms build of the
	# test modules' package in make check
	debhelper dh-dkms lintian dkms
	# arm64: the cross compiler, the VM, and the arm64 libraries that the
	# cross-built wqrtd, its tests and the arm64 .deb link against
	gcc-aarch64-linux-gnu qemu-system-arm
	libsystemd-dev:arm64 libnl-3-dev:arm64 libiniparser-dev:arm64
	libcmocka-dev:arm64 zlib1g-dev:arm64 libtracefs-dev:arm64
	libtraceevent-dev:arm64
	# make board-kernel BOARD_ARCH=arm64: the headers package's programs
	libssl-dev:arm64
	# man pages, benchmarks, the systemd VM
	mandoc gnuplot-nox rt-tests rtla debootstrap e2fsprogs
	clang-14 libclang-rt-14-dev
)

missing=()
for p in "${packages[@]}"; do
	case "$p" in \#*) continue ;; esac
	# A bare name means the host's own architecture (or "all"): with a
	# foreign one enabled, it can match an installation of both.
	case "$p" in
	*:*) want="installed ${p#*:}" ;;
	*) want="installed ($(dpkg --print-architecture)|all)" ;;
	esac
	dpkg-query -W -f='${db:Status-Status} ${Architecture}\n' "${p%:*}" 2>/dev/null |
		grep -qxE "$want" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "wqrt: all build and test dependencies are installed"
	exit 0
fi

line="apt-get install -y --no-install-recommends ${missing[*]}"
# Another apt-get or dpkg (a second checkout's make deps) may hold the
# lock: wait for it rather than fail.
lock_wait=(-o DPkg::Lock::Timeout=900)
if [ "${1:-}" = --check ]; then
	echo "wqrt: missing packages: ${missing[*]}" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "wqrt: missing packages; as root run:" >&2
	for a in $(printf '%s\n' "${missing[@]}" | sed -n 's/.*:\([a-z0-9]*\)$/\1/p' | sort -u); do
		dpkg --print-foreign-architectures | grep -qx "$a" ||
			echo "  dpkg --add-architecture $a" >&2
	done
	echo "  apt-get update && $line" >&2
	exit 1
fi
echo "wqrt: installing ${#missing[@]} missing package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Packages of a foreign architecture (name:arch) need it enabled first.
for a in $(printf '%s\n' "${missing[@]}" | sed -n 's/.*:\([a-z0-9]*\)$/\1/p' | sort -u); do
	dpkg --print-foreign-architectures | grep -qx "$a" ||
		dpkg --add-architecture "$a"
done
apt-get "${lock_wait[@]}" update -q
# shellcheck disable=SC2086
${line/apt-get/apt-get ${lock_wait[*]}}
