#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh FLAVOUR [NPATCHES]
#
# Build one kernel flavour and point build/kernel-FLAVOUR at it:
#
#   test    the series, wqrt.config + systemd.config + debug.config
#           (lockdep): the kernel
#           every VM test boots
#   plain   no series, same config: the A/B baseline and the
#           "kernel without the series" case of the tests
#   perf    the series, wqrt.config + perf.config (no lockdep, lock_stat):
#           benchmarks only
#   perf-plain  no series, same config as perf
#   perf-alt    perf plus kernel/bench/*.patch on top of the series: the
#               variant of the deferred wakeup that the enqueue benchmark
#               measures against the series
#
# NPATCHES applies only the first N patches of the series (to check that
# each patch builds and boots on its own).
#
# Builds are cached in $WQRT_CACHE/kernel/FLAVOUR-KEY, KEY being a hash of
# the source package version, the patches applied, the flavour's config
# fragments, the build recipe (this script below the recipe mark, and
# common.sh) and the compiler: a second run reuses the build, any change to
# one of them rebuilds.

. "$(dirname "$0")/common.sh"

flavour=${1:?usage: build.sh FLAVOUR [NPATCHES]}
limit=${2:-}

case "$flavour" in
test) with_series=1 fragments="wqrt.config systemd.config debug.config debug-series.config" ;;
plain) with_series=0 fragments="wqrt.config systemd.config debug.config" ;;
perf) with_series=1 fragments="wqrt.config perf.config" ;;
perf-plain) with_series=0 fragments="wqrt.config perf.config" ;;
perf-alt) with_series=1 fragments="wqrt.config perf.config" ;;
*) die "unknown kernel flavour '$flavour' (test, plain, perf, perf-plain, perf-alt)" ;;
esac

# perf-alt builds from a copy of kernel/ whose series ends with the patches
# of kernel/bench. The recipe below sees an ordinary series, and the cache
# key covers the extra patches like any other.
if [ "$flavour" = perf-alt ]; then
	overlay="$WQRT_BUILD/kernel-overlay-$flavour"
	rm -rf "$overlay"
	mkdir -p "$overlay/patches"
	ln -s "$WQRT_KDIR/configs" "$overlay/configs"
	ln -s "$WQRT_KDIR/scripts" "$overlay/scripts"
	cp "$WQRT_KDIR"/patches/*.patch "$WQRT_KDIR"/bench/*.patch "$overlay/patches/"
	cp "$WQRT_KDIR/series" "$overlay/series"
	(cd "$WQRT_KDIR/bench" && ls ./*.patch | sed 's|^\./||') >>"$overlay/series"
	WQRT_KDIR=$overlay
fi

# --- recipe --- Everything from here on is part of the cache key: a change
# to how a kernel is built rebuilds every flavour. The table above is not;
# a flavour's own fragments and patches are.
patches=()
if [ "$with_series" = 1 ]; then
	mapfile -t patches < <(series_patches)
	if [ -n "$limit" ]; then
		[ "$limit" -le "${#patches[@]}" ] ||
			die "NPATCHES=$limit but the series has ${#patches[@]} patches"
		patches=("${patches[@]:0:$limit}")
	fi
fi

ver=$(ksrc_version)
key=$(
	{
		echo "$KSRC_PKG $ver"
		echo "flavour $flavour"
		for p in "${patches[@]}"; do
			echo "patch $(basename "$p") $(sha256sum <"$p")"
		done
		for f in $fragments; do
			echo "fragment $f $(sha256sum <"$WQRT_KDIR/configs/$f")"
		done
		sha256sum <"$WQRT_KDIR/scripts/common.sh"
		sed -n '/^# --- recipe ---/,$p' "$0" | sha256sum
		gcc --version | head -n 1
	} | sha256sum | cut -c1-16
)
name=$flavour${limit:+-p$limit}
dir="$WQRT_CACHE/kernel/$name-$key"
mkdir -p "$WQRT_BUILD" "$WQRT_CACHE/kernel"
link="$WQRT_BUILD/kernel-$name"

if [ -f "$dir/.done" ]; then
	note "kernel $name: cached build $dir"
	ln -sfn "$dir" "$link"
	exit 0
fi

base=$(base_repo)
(
	flock 9
	# A half-finished earlier attempt for this key is thrown away.
	if [ -d "$dir" ]; then
		git -C "$base" worktree remove --force "$dir/src" 2>/dev/null || true
		rm -rf "$dir"
	fi
	git -C "$base" worktree prune
	mkdir -p "$dir"
	note "kernel $name: new build in $dir (key $key)"
	git -C "$base" worktree add -q --detach "$dir/src" base
	n=$(apply_series "$dir/src" "${#patches[@]}")
	[ "$with_series" = 1 ] || n=0
	note "kernel $name: $n patch(es) applied"

	obj="$dir/obj"
	mkdir -p "$obj"
	make -s -C "$dir/src" O="$obj" ARCH=x86_64 tinyconfig >/dev/null
	frag_paths=()
	for f in $fragments; do
		frag_paths+=("$WQRT_KDIR/configs/$f")
	done
	(cd "$obj" && "$dir/src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/.config" "${frag_paths[@]}" >/dev/null)
	make -s -C "$dir/src" O="$obj" ARCH=x86_64 olddefconfig >/dev/null
	"$WQRT_KDIR/scripts/check-config.sh" "$obj/.config" "${frag_paths[@]}"

	note "kernel $name: building (make -j$(nproc) all), this takes several minutes"
	start=$(date +%s)
	if ! make -C "$dir/src" O="$obj" ARCH=x86_64 -j"$(nproc)" all \
		>"$dir/build.log" 2>&1; then
		tail -n 40 "$dir/build.log" >&2
		die "kernel $name: build failed, full log in $dir/build.log"
	fi
	note "kernel $name: built in $(($(date +%s) - start)) s"
	touch "$dir/.done"
) 9>"$WQRT_CACHE/kernel/.lock-$name"

ln -sfn "$dir" "$link"

# Keep the two newest builds of each flavour; older ones only fill the disk.
for old in $(ls -dt "$WQRT_CACHE/kernel/$name"-???????????????? 2>/dev/null | tail -n +3); do
	note "kernel $name: pruning old build $old"
	git -C "$base" worktree remove --force "$old/src" 2>/dev/null || true
	rm -rf "$old"
done
git -C "$base" worktree prune
