#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# each.sh series [FIRST [LAST]] | race
#
#   series  every prefix of the series (patches 1..N for N = 1..len) must
#           build and boot on its own, and the VM suite must pass on it:
#           tests for what is not there yet skip and say why; the race
#           flavour is run too, right after the prefix it builds on.
#           FIRST and LAST limit the run to prefixes FIRST..LAST
#   race    the race flavour (kernel/variants/race: the deferred wakeup
#           without the claim of the kicked worker): the idle-cull race
#           test must catch stranded work items on it
#
# Every state is built as the test flavour (or the race flavour) in one
# incremental tree, "each" (common.sh's build model): moving from one
# prefix to the next touches only the files that differ. A state that
# built, booted and passed is recorded in $WQRT_CACHE/each-passed and not
# run again unless its kernel or its tests change.

. "$(dirname "$0")/common.sh"

usage="usage: each.sh series [FIRST [LAST]] | race"
mode=${1:?$usage}
passed="$WQRT_CACHE/each-passed"
mkdir -p "$passed"
export WQRT_TREE=${WQRT_TREE_PREFIX:-}each
kdir="$WQRT_CACHE/tree/$WQRT_TREE"
vm="$WQRT_TOP/selftests/vm/vm.sh"

# build_kernel points build/kernel-FLAVOUR at the tree it built, here the
# "each" tree. Put the links back on exit, so that a later "make vm-test"
# in this checkout boots the test kernel and not the last prefix.
declare -A saved_link
for flavour in test race; do
	saved_link[$flavour]=$(readlink "$WQRT_BUILD/kernel-$flavour" 2>/dev/null || true)
done
restore_links() {
	local flavour
	for flavour in "${!saved_link[@]}"; do
		if [ -n "${saved_link[$flavour]}" ]; then
			ln -sfn "${saved_link[$flavour]}" "$WQRT_BUILD/kernel-$flavour"
		else
			rm -f "$WQRT_BUILD/kernel-$flavour"
		fi
	done
}
trap restore_links EXIT

# A state passed before if its kernel (the tree's build key) and the tests
# are the same.
state_key() {
	{
		cat "$kdir/obj/.wqrt-key"
		(cd "$WQRT_TOP" && find selftests daemon -type f ! -path '*/results/*' |
			LC_ALL=C sort | xargs sha256sum) | sha256sum
		sha256sum <"$0"
	} | sha256sum | cut -c1-16
}

run_race() {
	echo "=== each: the series + kernel/variants/debug-knobs + kernel/variants/race"
	if build_kernel race &&
		"$vm" script "$kdir" "$WQRT_TOP/selftests/vm/race-demo.sh" --name each-race; then
		echo "each race: PASS (the test caught the race without the claim)"
	else
		echo "each race: FAIL"
		return 1
	fi
}

fail=0
case "$mode" in
series)
	mapfile -t series < <(series_patches)
	[ "${#series[@]}" -gt 0 ] || die "the series is empty"
	# the race variant applies on top of the whole series and the knobs
	race_base=$(tr -d '[:space:]' <"$WQRT_KDIR/variants/race/on-top-of")
	[ "$race_base" != all ] || race_base=${#series[@]}
	first=${2:-1} last=${3:-${#series[@]}}
	[[ "$first" =~ ^[0-9]+$ && "$last" =~ ^[0-9]+$ && "$first" -ge 1 &&
		"$first" -le "$last" && "$last" -le "${#series[@]}" ]] ||
		die "FIRST and LAST must be 1 <= FIRST <= LAST <= ${#series[@]} (got '$first' '$last')"
	for n in $(seq "$first" "$last"); do
		echo "=== each: patches 1..$n of ${#series[@]}: $(basename "${series[$((n - 1))]}")"
		if ! (build_kernel test "$n"); then
			echo "each p$n: build FAILED (patches 1..$n)"
			fail=1
			continue
		fi
		key=$(state_key)
		if [ -f "$passed/p$n-$key" ]; then
			echo "each p$n: passed before with the same kernel and tests"
		elif "$vm" check "$kdir" --name "each-p$n"; then
			touch "$passed/p$n-$key"
			echo "each p$n: PASS"
		else
			echo "each p$n: FAIL (patches 1..$n)"
			fail=1
		fi
		if [ "$n" = "$race_base" ]; then
			(run_race) || fail=1
		fi
	done
	;;
race)
	(run_race) || fail=1
	;;
*)
	die "$usage"
	;;
esac
exit $fail
