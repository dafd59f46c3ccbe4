#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# board-kernel.sh: the kernel of a Debian board, as Debian packages.
# `make board-kernel` runs it; the variables below go on its command line.
#
#   1. the source: Debian's linux-source-6.12 tarball unpacked into a git
#      tree with a commit "base" (an identity is set for the commits, so
#      none need be configured), or BOARD_SRC, your own 6.12 tree (a git
#      tree, or a directory made one); then kernel/stable/*.patch and the
#      patches kernel/series lists, with git am (-3 on a tree of your own).
#      A tree that has them all already is left as it is.
#   2. the configuration: Debian's own PREEMPT_RT configuration for the
#      architecture (linux-config-6.12's config.ARCH_rt_ARCH.xz), or
#      BOARD_CONFIG; then kernel/configs/board.config, the kselftests'
#      selftests/wqrt/config and the few build settings below merged in,
#      and every option of them checked with check-config.sh after
#      olddefconfig (an option whose dependencies are missing is named).
#   3. make bindeb-pkg: linux-image, linux-headers (DKMS builds the test
#      modules against it) and linux-libc-dev .debs in BOARD_OUT; for
#      arm64, cross-compiled on another machine, and with the
#      uncompressed Image, the device trees (boot/dtbs) and overlays
#      (boot/overlays, from Raspberry Pi's tree) in BOARD_OUT/boot for
#      firmware that loads the kernel itself (a Raspberry Pi 5).
#
# The build settings: SYSTEM_TRUSTED_KEYS and SYSTEM_REVOCATION_KEYS
# empty (a configuration taken from a Debian kernel names Debian's
# certificates, which a source tree does not have, and the build stops);
# the modules are signed with a key made at build time; no debug
# information (BOARD_DEBUG_INFO=1 keeps the configuration's: a -dbg
# package of several GB and about twice the build time); the release
# gets LOCALVERSION (-wqrt), so that it never replaces Debian's kernel.
#
# Variables:
#   BOARD_ARCH    amd64 or arm64 (default: this machine's)
#   BOARD_SRC     a 6.12 source: a directory or a .tar.xz (default:
#                 /usr/src/linux-source-6.12.tar.xz, unpacked into the
#                 wqrt cache and checked out in BOARD_OUT/linux)
#   BOARD_CONFIG  the starting configuration: a file (.xz and .gz too) or
#                 a defconfig target such as bcm2712_defconfig (default:
#                 Debian's RT configuration, package linux-config-6.12)
#   BOARD_OUT     where the tree's build and the packages go
#                 (default build/board-ARCH)
#   BOARD_DRY_RUN 1: the configured tree and the package's debian/
#                 directory, its build dependencies checked, and the
#                 command that would build it printed; nothing compiled
#   BOARD_KSELFTESTS  0: leave out selftests/wqrt/config
#   BOARD_DEBUG_INFO  1: keep the configuration's debug information
#   LOCALVERSION  appended to the release (default -wqrt)
#   JOBS          parallel jobs (default: the number of CPUs)

. "$(dirname "$0")/common.sh"

arch=${BOARD_ARCH:-$(dpkg --print-architecture)}
case "$arch" in
amd64) karch=x86_64 gnu=x86_64-linux-gnu image=arch/x86/boot/bzImage ;;
arm64) karch=arm64 gnu=aarch64-linux-gnu image=arch/arm64/boot/Image ;;
*) die "BOARD_ARCH=$arch: not a board architecture wqrt builds for (amd64, arm64)" ;;
esac
cross=
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
	cross=$gnu-
	command -v "${cross}gcc" >/dev/null ||
		die "BOARD_ARCH=$arch on $(dpkg --print-architecture) needs the cross compiler ${cross}gcc: apt install gcc-$gnu"
fi
out=${BOARD_OUT:-$WQRT_BUILD/board-$arch}
mkdir -p "$out"
out=$(cd "$out" && pwd)
obj=$out/obj
localversion=${LOCALVERSION--wqrt}
jobs=${JOBS:-$(nproc)}
dry=${BOARD_DRY_RUN:-0}

# kernel make for the board's architecture, in $obj
bmake() {
	make -C "$src" O="$obj" ARCH="$karch" ${cross:+CROSS_COMPILE=$cross} "$@"
}

# The subjects of the patch files $@, one a line, as git am makes them
subjects() {
	local p
	for p in "$@"; do
		git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
	done
}

# Whether the git tree $1 has a commit for each of the patches $2...
# (by subject, among its last 500 commits): a tree prepared by an earlier
# run, or by hand after git am -3 needed help.
has_patches() {
	local tree=$1 s
	shift
	local log
	log=$(git -C "$tree" log -n 500 --format=%s 2>/dev/null) || return 1
	while IFS= read -r s; do
		grep -qxF -- "$s" <<<"$log" || return 1
	done < <(subjects "$@")
}

# git am -3 the patches $2... onto the tree $1, stopping with what to do
# when one needs help
am_onto() {
	local tree=$1 p
	shift
	for p in "$@"; do
		if ! git_id -C "$tree" am -3 -q "$p"; then
			die "${p#"$WQRT_TOP"/} does not apply cleanly to $tree: resolve it there (git status), 'git am --continue', apply the rest of kernel/series the same way, then run this again with the same BOARD_SRC: a tree that has every patch is used as it is"
		fi
	done
}

mapfile -t patches < <(stable_patches; series_patches)

# --- 1. the source ---------------------------------------------------------
if [ -z "${BOARD_SRC:-}" ] || [ "$BOARD_SRC" = "$KSRC_TARBALL" ]; then
	[ -f "$KSRC_TARBALL" ] ||
		die "no $KSRC_TARBALL: apt install $KSRC_PKG (or set BOARD_SRC to your 6.12 tree)"
	src=$out/linux
	repo=$(base_repo)
	if [ ! -e "$src/.git" ]; then
		git -C "$repo" worktree prune
		rm -rf "$src"
		git -C "$repo" worktree add -q --detach "$src" base
	fi
	if has_patches "$src" "${patches[@]}"; then
		note "source: $src has kernel/stable and kernel/series already"
	else
		note "source: $KSRC_PKG $(ksrc_version) in $src, with ${#patches[@]} patches (git am)"
		git -C "$src" am --abort >/dev/null 2>&1 || true
		git -C "$src" checkout -q -f --detach base
		am_patches "$src" "${patches[@]}"
	fi
elif [ -d "$BOARD_SRC" ]; then
	src=$(cd "$BOARD_SRC" && pwd)
	[ -f "$src/Makefile" ] && [ -d "$src/kernel" ] ||
		die "BOARD_SRC=$BOARD_SRC is not a kernel source tree (no Makefile and kernel/)"
	if [ ! -e "$src/.git" ]; then
		note "source: $src is no git tree: recording it as commit 'base'"
		git -C "$src" init -q
		git -C "$src" add -f -A .
		git_id -C "$src" commit -q -m "base: $src as it was"
	fi
	if has_patches "$src" "${patches[@]}"; then
		note "source: $src has kernel/stable and kernel/series already"
	else
		[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
			die "BOARD_SRC=$src has uncommitted changes: commit or stash them first (the patches go on as commits)"
		note "source: ${#patches[@]} patches onto $src (git am -3)"
		am_onto "$src" "${patches[@]}"
	fi
elif [ -f "$BOARD_SRC" ]; then
	src=$out/linux
	if [ ! -e "$src/.git" ]; then
		note "source: unpacking $BOARD_SRC into $src"
		rm -rf "$src" && mkdir -p "$src"
		tar -xf "$BOARD_SRC" -C "$src" --strip-components=1 ||
			die "BOARD_SRC=$BOARD_SRC: cannot unpack it"
		git -C "$src" init -q
		git -C "$src" add -f -A .
		git_id -C "$src" commit -q -m "base: $(basename "$BOARD_SRC")"
	fi
	has_patches "$src" "${patches[@]}" || am_onto "$src" "${patches[@]}"
else
	die "BOARD_SRC=$BOARD_SRC: no such file or directory"
fi
kver=$(make -s -C "$src" kernelversion)
case "$kver" in
6.12.*) ;;
*) note "warning: $src is Linux $kver; the series is made for 6.12" ;;
esac

# --- 2. the configuration ----------------------------------------------------
mkdir -p "$obj"
config=${BOARD_CONFIG:-/usr/src/linux-config-6.12/config.${arch}_rt_${arch}.xz}
case "$config" in
*defconfig)
	[ -f "$src/arch/$karch/configs/$config" ] || [ "$config" = defconfig ] ||
		die "BOARD_CONFIG=$config: no arch/$karch/configs/$config in $src"
	note "config: $config"
	bmake -s "$config" >/dev/null
	;;
*)
	if [ ! -f "$config" ]; then
		[ -n "${BOARD_CONFIG:-}" ] && die "BOARD_CONFIG=$config: no such file"
		die "no $config: apt install linux-config-6.12${cross:+:$arch} (Debian's kernel configurations), or set BOARD_CONFIG"
	fi
	note "config: $config"
	case "$config" in
	*.xz) xzcat "$config" >"$obj/.config" ;;
	*.gz) zcat "$config" >"$obj/.config" ;;
	*) cp "$config" "$obj/.config" ;;
	esac || die "BOARD_CONFIG=$config: cannot read it"
	;;
esac
grep -q '^CONFIG_' "$obj/.config" || die "$config: no kernel configuration in it"

# What the build needs of a distribution's configuration; checked like
# the fragments. Each only where the starting configuration has the
# option it depends on.
build_frag=$out/board-build.config
has() { grep -qx "CONFIG_$1=y" "$obj/.config"; }
{
	echo '# made by kernel/scripts/board-kernel.sh: see there'
	! has SYSTEM_TRUSTED_KEYRING || echo 'CONFIG_SYSTEM_TRUSTED_KEYS=""'
	! has SYSTEM_REVOCATION_LIST || echo 'CONFIG_SYSTEM_REVOCATION_KEYS=""'
	echo "CONFIG_LOCALVERSION=\"$localversion\""
	echo '# CONFIG_LOCALVERSION_AUTO is not set'
	if [ "${BOARD_DEBUG_INFO:-0}" != 1 ] && has DEBUG_INFO; then
		echo 'CONFIG_DEBUG_INFO_NONE=y'
		echo '# CONFIG_DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT is not set'
		echo '# CONFIG_DEBUG_INFO_DWARF4 is not set'
		echo '# CONFIG_DEBUG_INFO_DWARF5 is not set'
	fi
} >"$build_frag"
frags=("$WQRT_KDIR/configs/board.config")
[ "${BOARD_KSELFTESTS:-1}" = 0 ] || frags+=("$WQRT_TOP/selftests/wqrt/config")
frags+=("$build_frag")
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
	"$obj/.config" "${frags[@]}" >"$out/merge_config.log" 2>&1) || {
	tail -n 20 "$out/merge_config.log" >&2
	die "merge_config.sh failed, log in $out/merge_config.log"
}
bmake -s olddefconfig >/dev/null
"$WQRT_KDIR/scripts/check-config.sh" "$obj/.config" "${frags[@]}" ||
	die "the configuration in $obj/.config lacks options the fragments ask for (above)"
# the key signing the modules is made at build time
grep -qx 'CONFIG_MODULE_SIG_KEY="certs/signing_key.pem"' "$obj/.config" ||
	! grep -q '^CONFIG_MODULE_SIG=y' "$obj/.config" ||
	note "warning: CONFIG_MODULE_SIG_KEY is $(sed -n 's/^CONFIG_MODULE_SIG_KEY=//p' "$obj/.config"): the build needs that key"
release=$(bmake -s kernelrelease LOCALVERSION= 2>/dev/null | tail -n 1)
note "config: $obj/.config, release $release (PREEMPT_RT, board.config${BOARD_KSELFTESTS:+}, checked)"

# --- 3. the packages ------------------------------------------------------
# Makefile.package's `debian` (what bindeb-pkg runs first) writes the
# package's debian/ (control, rules, arch) only; dpkg-checkbuilddeps names
# what is missing to build it.
bmake -s LOCALVERSION= include/config/kernel.release >/dev/null
# shellcheck disable=SC2016 # for make to expand
bmake -s LOCALVERSION= run-command \
	KBUILD_RUN_COMMAND='$(MAKE) -f $(srctree)/scripts/Makefile.package debian' >/dev/null
[ "$(cat "$obj/debian/arch")" = "$arch" ] ||
	die "the kernel's packaging says architecture $(cat "$obj/debian/arch"), not $arch"
if ! (cd "$obj" && dpkg-checkbuilddeps -a "$arch" debian/control) 2>"$out/builddeps.log"; then
	sed 's/^dpkg-checkbuilddeps: error: /wqrt: /' "$out/builddeps.log" >&2
	die "install the packages above to build the kernel packages (apt install, :native ones for this machine)"
fi
packages=$(sed -n 's/^Package: //p' "$obj/debian/control" | tr '\n' ' ')
cmd=(make -C "$src" O="$obj" ARCH="$karch" ${cross:+CROSS_COMPILE=$cross}
	LOCALVERSION= -j"$jobs" bindeb-pkg)
if [ "$dry" = 1 ]; then
	note "dry run: would build ${packages% } ($arch) into $out with:"
	echo "${cmd[*]}"
	exit 0
fi
note "building ${packages% } ($arch, $release) with $jobs jobs; log in $out/build.log (a distribution configuration takes a few hours on 2 CPUs)"
start=$(date +%s)
"${cmd[@]}" >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	die "the kernel package build failed, log in $out/build.log"
}
if [ "$arch" = arm64 ]; then
	mkdir -p "$out/boot"
	cp "$obj/$image" "$out/boot/Image"
	rm -rf "$out/boot/dtbs"
	bmake -s INSTALL_DTBS_PATH="$out/boot/dtbs" dtbs_install >/dev/null
	# Raspberry Pi's tree: the overlays its firmware applies
	rm -rf "$out/boot/overlays"
	if ls "$obj"/arch/arm64/boot/dts/overlays/*.dtbo >/dev/null 2>&1; then
		mkdir -p "$out/boot/overlays"
		cp "$obj"/arch/arm64/boot/dts/overlays/*.dtbo "$out/boot/overlays/"
	fi
fi
note "built in $(($(date +%s) - start)) s:"
ls "$out"/*"$release"*.deb "$out"/linux-libc-dev_*.deb 2>/dev/null
[ "$arch" != arm64 ] || ls -d "$out"/boot/*
