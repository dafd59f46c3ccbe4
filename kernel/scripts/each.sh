#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# each.sh series [FIRST [LAST]] | race
#
#   series  every prefix of the series (patches 1..N for N = 1..len) must
#           build and boot on its own, and the VM suite must pass on it:
#           tests for what is not there yet skip and say why; the race
#           state below is run too, right after the prefix it builds on.
#           FIRST and LAST limit the run to prefixes FIRST..LAST
#   race    the first $RACE_BASE patches plus kernel/race/*.patch, which
#           defers the wakeup without claiming the kicked worker: the
#           idle-cull race test must catch stranded work items on it
#
# Both build the test flavour's configuration in one incremental tree,
# $WQRT_CACHE/each/{src,obj}: moving from one state of the series to the
# next with `git checkout` touches only the files that differ, so each state
# after the first rebuilds in a minute or two instead of ten (a patch that
# changes a widely included header costs a near-full rebuild). A state that
# built, booted and passed is recorded in $WQRT_CACHE/each/passed and not
# run again unless its source, configuration or tests change.

. "$(dirname "$0")/common.sh"

# The race patch applies on top of the deferred wakeup and the debug knobs.
RACE_BASE=4

usage="usage: each.sh series [FIRST [LAST]] | race"
mode=${1:?$usage}
each="$WQRT_CACHE/each"
src="$each/src"
obj="$each/obj"
results="$WQRT_BUILD/each"
mkdir -p "$each/passed" "$results"

base=$(base_repo)
exec 9>"$each/.lock"
flock -n 9 || die "another each.sh is running on $each"

if [ ! -e "$src/.git" ]; then
	git -C "$base" worktree prune
	rm -rf "$src" "$obj"
	git -C "$base" worktree add -q --detach "$src" base
fi

# Commit the patches on top of $1 without a worktree (a private index), so
# that preparing the states leaves the build tree's files alone. Prints the
# commit of each patch, one per line.
commit_patches() {
	local prev=$1 p c tree
	shift
	local index
	index=$(mktemp)
	GIT_INDEX_FILE=$index git -C "$base" read-tree "$prev"
	for p in "$@"; do
		GIT_INDEX_FILE=$index git -C "$base" apply --cached "$p" ||
			die "$(basename "$p") does not apply"
		tree=$(GIT_INDEX_FILE=$index git -C "$base" write-tree)
		c=$(git_id -C "$base" commit-tree "$tree" -p "$prev" \
			-m "$(basename "$p")")
		echo "$c"
		prev=$c
	done
	rm -f "$index"
}

# The test flavour's fragments; debug-series.config only once the tree has
# the options it sets (they come with the series).
fragments_for() {
	local f sym
	echo "$WQRT_KDIR/configs/wqrt.config"
	echo "$WQRT_KDIR/configs/systemd.config"
	echo "$WQRT_KDIR/configs/debug.config"
	f="$WQRT_KDIR/configs/debug-series.config"
	for sym in $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "$f"); do
		grep -rqs --include='Kconfig*' "^config $sym\$" "$src" || return 0
	done
	echo "$f"
}

# Check out $2 in the build tree, configure and build it. $1 names the state.
build_state() {
	local name=$1 commit=$2 cfg start
	local -a frags
	git -C "$src" checkout -q --detach "$commit"
	mapfile -t frags < <(fragments_for)
	cfg="$each/cfg"
	mkdir -p "$cfg" "$obj"
	make -s -C "$src" O="$cfg" ARCH=x86_64 tinyconfig >/dev/null
	(cd "$cfg" && "$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" \
		"$cfg/.config" "${frags[@]}" >/dev/null)
	make -s -C "$src" O="$cfg" ARCH=x86_64 olddefconfig >/dev/null
	"$WQRT_KDIR/scripts/check-config.sh" "$cfg/.config" "${frags[@]}"
	# Only a real change of the configuration may trigger a rebuild.
	cmp -s "$cfg/.config" "$obj/.config" || cp "$cfg/.config" "$obj/.config"

	note "each $name: building ($(basename "${frags[-1]}") last fragment)"
	start=$(date +%s)
	if ! make -C "$src" O="$obj" ARCH=x86_64 -j"$(nproc)" all \
		>"$results/$name-build.log" 2>&1; then
		tail -n 40 "$results/$name-build.log" >&2
		note "each $name: build FAILED, log in $results/$name-build.log"
		return 1
	fi
	note "each $name: built in $(($(date +%s) - start)) s"
}

# Build the selftests against the state in the tree and boot it. Extra
# arguments go to mkinitramfs.sh (a script for wqrt.mode=script).
boot_state() {
	local name=$1 mode=$2
	local kdir="$each/kernel-$name"
	local -a script=("${@:3}")
	rm -rf "$kdir"
	mkdir -p "$kdir"
	# run-vm.sh wants KERNEL_DIR/obj/arch/x86/boot/bzImage.
	ln -sfn "$obj" "$kdir/obj"
	make --no-print-directory -s -C "$WQRT_TOP/selftests" KDIR="$obj" \
		KSRC="$src" O="$WQRT_BUILD/selftests/each" >"$results/$name-selftests.log" 2>&1 || {
		tail -n 20 "$results/$name-selftests.log" >&2
		note "each $name: the selftests do not build"
		return 1
	}
	"$WQRT_TOP/selftests/vm/mkinitramfs.sh" "$each/initramfs.cpio" \
		"$WQRT_BUILD/selftests/each" "${script[@]}"
	"$WQRT_TOP/selftests/vm/run-vm.sh" --mode "$mode" --name "each-$name" \
		"$kdir" "$each/initramfs.cpio"
}

# A state passed before if nothing that it is made of changed since.
state_key() {
	{
		git -C "$base" rev-parse "$1^{tree}"
		for f in $(fragments_for); do sha256sum <"$f"; done
		(cd "$WQRT_TOP" && find selftests -type f ! -path '*/results/*' |
			LC_ALL=C sort | xargs sha256sum) | sha256sum
		sha256sum <"$0"
		gcc --version | head -n 1
	} | sha256sum | cut -c1-16
}

mapfile -t series < <(series_patches)
[ "${#series[@]}" -gt 0 ] || die "the series is empty"
mapfile -t commits < <(commit_patches base "${series[@]}")

# The race state: build it, boot it with race-demo.sh (which passes only if
# the idle-cull test reports stranded work items).
run_race() {
	local -a race rc
	mapfile -t race < <(ls "$WQRT_KDIR"/race/*.patch)
	[ "${#race[@]}" -gt 0 ] || die "no patch in kernel/race"
	mapfile -t rc < <(commit_patches "${commits[$((RACE_BASE - 1))]}" "${race[@]}")
	echo "=== each: patches 1..$RACE_BASE + $(basename "${race[-1]}")"
	if build_state race "${rc[-1]}" &&
		boot_state race script "$WQRT_TOP/selftests/vm/race-demo.sh"; then
		echo "each race: PASS (the test caught the race without the claim)"
	else
		echo "each race: FAIL"
		return 1
	fi
}

fail=0
case "$mode" in
series)
	first=${2:-1} last=${3:-${#series[@]}}
	[[ "$first" =~ ^[0-9]+$ && "$last" =~ ^[0-9]+$ && "$first" -ge 1 &&
		"$first" -le "$last" && "$last" -le "${#series[@]}" ]] ||
		die "FIRST and LAST must be 1 <= FIRST <= LAST <= ${#series[@]} (got '$first' '$last')"
	for i in "${!series[@]}"; do
		n=$((i + 1)) name=p$((i + 1))
		[ "$n" -ge "$first" ] && [ "$n" -le "$last" ] || continue
		echo "=== each: patches 1..$n of ${#series[@]}: $(basename "${series[$i]}")"
		git -C "$src" checkout -q --detach "${commits[$i]}"
		key=$(state_key "${commits[$i]}")
		if [ -f "$each/passed/$name-$key" ]; then
			echo "each $name: passed before with the same source, config and tests"
		elif build_state "$name" "${commits[$i]}" && boot_state "$name" check; then
			touch "$each/passed/$name-$key"
			echo "each $name: PASS"
		else
			echo "each $name: FAIL (patches 1..$n)"
			fail=1
		fi
		if [ "$n" = "$RACE_BASE" ]; then
			run_race || fail=1
		fi
	done
	;;
race)
	run_race || fail=1
	;;
*)
	die "$usage"
	;;
esac
exit $fail
