# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the kernel scripts. Sourced, not run.
#
# The kernel source comes from Debian's linux-source-6.12 package. It is
# unpacked once per package version into a git repository in the cache
# (one commit, tagged "base"); every build and the developer tree are git
# worktrees of it, so the series is always applied with `git am` and can be
# exported back with `git format-patch`.

set -euo pipefail
shopt -s inherit_errexit

WQRT_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WQRT_KDIR="$WQRT_TOP/kernel"
WQRT_BUILD=${WQRT_BUILD:-$WQRT_TOP/build}
KSRC_PKG=linux-source-6.12
KSRC_TARBALL=/usr/src/$KSRC_PKG.tar.xz

if [ -z "${WQRT_CACHE:-}" ]; then
	if [ -w /var/cache ] || [ -w /var/cache/wqrt ]; then
		WQRT_CACHE=/var/cache/wqrt
	else
		WQRT_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/wqrt
	fi
fi

die() {
	echo "wqrt: error: $*" >&2
	exit 1
}

note() {
	echo "wqrt: $*" >&2
}

ksrc_version() {
	dpkg-query -W -f='${Version}' "$KSRC_PKG" 2>/dev/null ||
		die "$KSRC_PKG is not installed (run 'make deps')"
}

# The pristine source repository for the installed package version.
# Created under an exclusive lock so that parallel builds share it.
base_repo() {
	local ver repo
	ver=$(ksrc_version)
	repo="$WQRT_CACHE/src/$ver"
	mkdir -p "$WQRT_CACHE/src"
	(
		flock 9
		if [ ! -f "$repo/.wqrt-base-done" ]; then
			rm -rf "$repo"
			mkdir -p "$repo"
			note "unpacking $KSRC_TARBALL ($ver) into $repo"
			tar -xf "$KSRC_TARBALL" -C "$repo" --strip-components=1
			note "recording the pristine tree as git commit 'base'"
			git -C "$repo" init -q
			git -C "$repo" config core.autocrlf false
			git -C "$repo" config gc.auto 0
			git -C "$repo" add -f -A .
			git_id -C "$repo" commit -q -m "Debian $KSRC_PKG $ver"
			# Debian's packaging ignores every top-level path, which
			# would hide files that patches add; upstream does not.
			sed -i '/^# Debian packaging/,$d' "$repo/.gitignore"
			git -C "$repo" add .gitignore
			git_id -C "$repo" commit -q -m "Drop Debian's top-level .gitignore"
			git -C "$repo" tag base
			touch "$repo/.wqrt-base-done"
		fi
	) 9>"$WQRT_CACHE/src/.lock" >&2
	echo "$repo"
}

# git with a fixed identity, so that `git am` and commits work on a
# machine where the user never configured one.
git_id() {
	GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-wqrt build} \
	GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-wqrt@localhost} \
	GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-wqrt build} \
	GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-wqrt@localhost} \
		git "$@"
}

# The patch files of kernel/series, in order, one per line. Blank lines and
# '#' comments are skipped. A listed file that does not exist is an error.
series_patches() {
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=$(echo "$line" | tr -d '[:space:]')
		[ -n "$line" ] || continue
		[ -f "$WQRT_KDIR/patches/$line" ] ||
			die "kernel/series lists $line but kernel/patches/$line does not exist"
		echo "$WQRT_KDIR/patches/$line"
	done <"$WQRT_KDIR/series"
}

# The fixes to the Debian source that every kernel wqrt builds carries,
# plain included, in name order: kernel/stable/*.patch. They are not part
# of the series (they go to their own maintainers and to -stable); the
# series is applied on top of them.
stable_patches() {
	local p
	for p in "$WQRT_KDIR"/stable/*.patch; do
		[ -e "$p" ] && echo "$p"
	done
	return 0
}

# git am the patch files $2... onto the worktree $1, one commit each.
am_patches() {
	local tree=$1 p
	shift
	for p in "$@"; do
		if ! git_id -C "$tree" am -q "$p" >/dev/null 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			die "patch ${p#"$WQRT_TOP"/} does not apply to $KSRC_PKG $(ksrc_version)"
		fi
	done
}

# Apply the series (or its first $2 patches) to the worktree $1 as commits.
apply_series() {
	local tree=$1 limit=${2:-}
	local -a series
	mapfile -t series < <(series_patches)
	if [ -n "$limit" ] && [ "$limit" -lt "${#series[@]}" ]; then
		series=("${series[@]:0:$limit}")
	fi
	[ "${#series[@]}" = 0 ] || am_patches "$tree" "${series[@]}"
	echo "${#series[@]}"
}

# --- kernel build model -------------------------------------------------
#
# A flavour is a state of the source (kernel/stable, then a prefix of the
# series, possibly with test-only variants from kernel/variants/ on top)
# and a list of config fragments. Every flavour is built in one incremental tree of its own,
# $WQRT_CACHE/tree/TREE/{src,obj} (TREE defaults to the flavour's name):
# the state is committed on top of 'base' without touching the tree, then
# checked out, so only the files that differ get new mtimes and only what
# depends on them is rebuilt. obj/.wqrt-key records what the tree was last
# built from (the source tree's git id, the fragments, the build recipe,
# the compiler); a build whose key matches is reused as it is, any other is
# brought up to date by make. build/kernel-FLAVOUR points at the tree.

# The flavour table. Sets FL_SERIES (1: the series applies), FL_VARIANT (the
# directories of kernel/variants applied on top, in order, or empty: the
# test flavours carry the debug knobs, which are not part of the series),
# FL_FRAGMENTS (names under kernel/configs; a trailing '?' marks a fragment
# of options that come with the series' variants: required, so that a
# test flavour that lost them fails its build by name, except on the
# prefixes of the series that `make kernel-each` builds, which leave the
# variants out; a name with a slash is a path from the top of the
# repository) and FL_EXPECT (the list under selftests/vm/expect/ that
# `vm.sh check` judges the flavour's VM suite against: which programs must
# run, how many tests each, which may skip and why; empty: the flavour is
# not meant for the VM suite), FL_TREE (the tree under the cache it is
# built in: its own name, or the flavour it is another name for). The kernels the VM tests boot merge the
# kselftests' own config, so what selftests/wqrt/config asks of a board is
# what the tests ran on.
TEST_FRAGMENTS="wqrt.config systemd.config debug.config selftests/wqrt/config"
flavour_spec() {
	FL_TREE=$1
	FL_VARIANT=
	FL_ARCH=x86_64
	FL_EXPECT=
	case "$1" in
	test-arm64) FL_ARCH=arm64 FL_SERIES=1 FL_VARIANT="debug-knobs drain-window"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?"
		FL_EXPECT=test-arm64 ;;
	test)	FL_SERIES=1 FL_VARIANT="debug-knobs possible-cpus drain-window"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?"
		FL_EXPECT=test ;;
	# plain carries the test knob of the drain walk too
	# (kernel/variants/drain-window): wq_flush shows the drain's
	# missed chain link, and its fix in kernel/stable, on 6.12 itself
	plain)	FL_SERIES=0 FL_VARIANT=drain-window
		FL_FRAGMENTS="$TEST_FRAGMENTS" FL_EXPECT=plain ;;
	# the lifetime tests under KASAN (make vm-test KERNEL=test-kasan, by
	# hand: a full KASAN build and a slow TCG run, outside make check's
	# CI budget)
	test-kasan) FL_SERIES=1 FL_VARIANT="debug-knobs drain-window"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config? kasan.config"
		FL_EXPECT=kasan ;;
	# the series without its policy attribute in sysfs
	# (kernel/variants/no-policy), judged as the test kernel: the VM
	# suite must fail by name (selftests/vm/no-policy-demo.sh)
	no-policy) FL_SERIES=1 FL_VARIANT="debug-knobs no-policy drain-window"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?"
		FL_EXPECT=test ;;
	race)	FL_SERIES=1 FL_VARIANT="debug-knobs race"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?" ;;
	# the deferred wakeups of process_one_work() and of the reserve's
	# refill issued with IRQs enabled again (kernel/variants/wake-irqs-on):
	# wq_nr_idle_extra must count them (selftests/vm/wake-irqs-demo.sh)
	wake-irqs-on) FL_SERIES=1 FL_VARIANT="debug-knobs wake-irqs-on"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?" ;;
	perf)	FL_SERIES=1 FL_FRAGMENTS="wqrt.config perf.config" ;;
	perf-plain) FL_SERIES=0 FL_FRAGMENTS="wqrt.config perf.config" ;;
	perf-alt) FL_SERIES=1 FL_VARIANT=wake-q
		FL_FRAGMENTS="wqrt.config perf.config" ;;
	# The production-like flavours carry kernel/variants/possible-cpus:
	# booted with -smp 2 they see what they would without it, and with
	# -smp 2,maxcpus=N (N up to prod.config's NR_CPUS) they are the flush
	# benchmarks' machine with many possible CPUs.
	prod)	FL_SERIES=1 FL_VARIANT=possible-cpus
		FL_FRAGMENTS="wqrt.config prod.config" ;;
	prod-plain) FL_SERIES=0 FL_VARIANT=possible-cpus
		FL_FRAGMENTS="wqrt.config prod.config" ;;
	prod-alt) FL_SERIES=1 FL_VARIANT="wake-q possible-cpus"
		FL_FRAGMENTS="wqrt.config prod.config" ;;
	flush-nosync) FL_SERIES=1 FL_VARIANT="debug-knobs flush-nosync drain-window"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?" ;;
	# the series without an exiting worker's return to SCHED_NORMAL
	# (kernel/variants/rt-exit-nofix): wq_rt_exit must catch it
	rt-exit-nofix) FL_SERIES=1 FL_VARIANT="debug-knobs rt-exit-nofix drain-window"
		FL_FRAGMENTS="$TEST_FRAGMENTS debug-series.config?" ;;
	bench-flush) FL_SERIES=1 FL_VARIANT=possible-cpus
		FL_FRAGMENTS="bench-flush.config" ;;
	bench-flush-plain) FL_SERIES=0 FL_VARIANT=possible-cpus
		FL_FRAGMENTS="bench-flush.config" ;;
	# names for prod and prod-plain booted with many possible CPUs (make
	# bench-cost, make bench-flush-sweep): the same kernels, the same trees
	prod-flush) flavour_spec prod; return 0 ;;
	prod-flush-plain) flavour_spec prod-plain; return 0 ;;
	# prod with a flusher that spins up to 20 us before it sleeps
	# (kernel/variants/flush-spin): make bench-cost FLUSH_SPIN=1
	prod-flush-spin) FL_SERIES=1 FL_VARIANT="possible-cpus flush-spin"
		FL_FRAGMENTS="wqrt.config prod.config" ;;
	*)	die "unknown kernel flavour '$1' (test, plain, test-arm64, test-kasan, no-policy, race, wake-irqs-on, perf, perf-plain, perf-alt, prod, prod-plain, prod-alt, flush-nosync, rt-exit-nofix, bench-flush, bench-flush-plain, prod-flush, prod-flush-plain, prod-flush-spin)" ;;
	esac
	# Every flavour starts from its architecture's own fragment.
	FL_FRAGMENTS="$FL_ARCH.config $FL_FRAGMENTS"
	case "$FL_ARCH" in
	x86_64) FL_CROSS= FL_IMAGE=arch/x86/boot/bzImage ;;
	arm64) FL_CROSS=aarch64-linux-gnu- FL_IMAGE=arch/arm64/boot/Image ;;
	esac
}

# The patches of a flavour's source state, in order: the series (its first
# $1 patches when given) and the patches of each variant in $FL_VARIANT, in
# that order. A variant's on-top-of file says what it applies to: "all" or
# the number of series patches. A prefix of the series ($1, as `make
# kernel-each` builds) leaves out the variants made for the whole of it:
# tests that need them skip and say why.
flavour_patches() {
	local limit=${1:-} v on vdir
	local -a series=() vdirs=()
	[ "$FL_SERIES" = 0 ] || mapfile -t series < <(series_patches)
	for v in $FL_VARIANT; do
		vdir="$WQRT_KDIR/variants/$v"
		on=$(tr -d '[:space:]' <"$vdir/on-top-of")
		if [ "$on" = all ]; then
			[ -z "${1:-}" ] || continue
		else
			[ -z "$limit" ] || [ "$limit" = "$on" ] ||
				die "variant $v applies on top of $on patches, not $limit"
			limit=$on
		fi
		vdirs+=("$vdir")
	done
	if [ -n "$limit" ]; then
		[[ "$limit" =~ ^[0-9]+$ ]] && [ "$limit" -le "${#series[@]}" ] ||
			die "the series has ${#series[@]} patches; cannot take the first '$limit'"
		series=("${series[@]:0:$limit}")
	fi
	[ "${#series[@]}" = 0 ] || printf '%s\n' "${series[@]}"
	for vdir in "${vdirs[@]}"; do
		ls "$vdir"/*.patch
	done
}

# Commit the patches on top of $1 in the base repository without a
# worktree (a private index), so that a build tree's files are left alone.
# Prints the last commit.
commit_patches() {
	local prev=$1 p tree index
	shift
	index=$(mktemp)
	GIT_INDEX_FILE=$index git -C "$BASE_REPO" read-tree "$prev"
	for p in "$@"; do
		GIT_INDEX_FILE=$index git -C "$BASE_REPO" apply --cached "$p" 2>&1 || {
			rm -f "$index"
			die "patch ${p#"$WQRT_TOP"/} does not apply to $KSRC_PKG $(ksrc_version)"
		}
		tree=$(GIT_INDEX_FILE=$index git -C "$BASE_REPO" write-tree)
		prev=$(git_id -C "$BASE_REPO" commit-tree "$tree" -p "$prev" \
			-m "$(basename "$p")")
	done
	rm -f "$index"
	git -C "$BASE_REPO" rev-parse "$prev"
}

# The fragment paths of the flavour for the source in $1; $2, when set,
# is the number of series patches of a prefix build, on which a '?'
# fragment is taken only when the tree defines every option it sets.
flavour_fragments() {
	local src=$1 prefix=${2:-} f path sym
	for f in $FL_FRAGMENTS; do
		case "$f" in
		*/*) path="$WQRT_TOP/${f%\?}" ;;
		*) path="$WQRT_KDIR/configs/${f%\?}" ;;
		esac
		if [ -n "$prefix" ] && [ "$f" != "${f%\?}" ]; then
			for sym in $(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=.*/\1/p' "$path"); do
				grep -rqs --include='Kconfig*' "^config $sym\$" "$src" ||
					continue 2
			done
		fi
		echo "$path"
	done
}

# kmake SRC OBJ ARGS...: the kernel's make for the flavour's architecture
# (flavour_spec sets FL_ARCH and FL_CROSS), through ccache when it is
# installed. CCACHE_BASEDIR makes the paths of every tree relative, so
# a new tree (another flavour, kernel-each, a developer's own) gets the
# objects of the same source and configuration from the cache instead of
# compiling them again; a changed file misses and is compiled, so the cache
# never hides a change.
kmake() {
	local src=$1 obj=$2
	shift 2
	local -a arch=(ARCH="$FL_ARCH" ${FL_CROSS:+CROSS_COMPILE=$FL_CROSS})
	if command -v ccache >/dev/null; then
		CCACHE_DIR=${CCACHE_DIR:-$WQRT_CACHE/ccache} \
		CCACHE_BASEDIR=$WQRT_CACHE/tree CCACHE_NOHASHDIR=1 \
		CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G} \
			make -C "$src" O="$obj" "${arch[@]}" \
			CC="ccache ${FL_CROSS}gcc" "$@"
	else
		make -C "$src" O="$obj" "${arch[@]}" "$@"
	fi
}

# kconfig SRC OBJ FRAGMENT...: tinyconfig plus the fragments into
# OBJ/.config, failing by name on any option olddefconfig drops. OBJ/.config
# is replaced only when it changes, so an unchanged configuration triggers
# no rebuild.
kconfig() {
	local src=$1 obj=$2 cfg
	shift 2
	cfg="$obj.cfg"
	rm -rf "$cfg"
	mkdir -p "$cfg" "$obj"
	kmake "$src" "$cfg" -s tinyconfig >/dev/null
	(cd "$cfg" && "$src/scripts/kconfig/merge_config.sh" -m -O "$cfg" \
		"$cfg/.config" "$@" >/dev/null)
	kmake "$src" "$cfg" -s olddefconfig >/dev/null
	"$WQRT_KDIR/scripts/check-config.sh" "$cfg/.config" "$@" ||
		die "the configuration of $obj lacks options its fragments ask for (above)"
	cmp -s "$cfg/.config" "$obj/.config" || cp "$cfg/.config" "$obj/.config"
	rm -rf "$cfg"
}

# build_kernel FLAVOUR [NPATCHES]: bring the flavour's tree up to date and
# point build/kernel-FLAVOUR at it. WQRT_TREE=NAME builds in the tree NAME
# instead of the flavour's own (kernel-each; a developer working on the
# series in a checkout of their own, so as not to rebuild the shared tree).
# WQRT_TREE_PREFIX=P builds every flavour in the tree P<flavour>: a second
# checkout that changes the series or the fragments keeps a set of trees of
# its own for all the flavours it boots.
# Prints nothing on stdout; progress goes to stderr.
build_kernel() {
	local flavour=$1 limit=${2:-} tree dir src obj commit key start
	local -a patches frags stable
	flavour_spec "$flavour"
	mapfile -t patches < <(flavour_patches "$limit")
	tree=${WQRT_TREE:-${WQRT_TREE_PREFIX:-}$FL_TREE}
	dir="$WQRT_CACHE/tree/$tree"
	src="$dir/src" obj="$dir/obj"
	BASE_REPO=$(base_repo)
	mkdir -p "$dir" "$WQRT_BUILD"
	exec 8>"$dir.lock"
	flock 8
	mapfile -t stable < <(stable_patches)
	commit=$(commit_patches base "${stable[@]}" "${patches[@]}")
	if [ ! -e "$src/.git" ]; then
		git -C "$BASE_REPO" worktree prune
		rm -rf "$src" "$obj"
		git -C "$BASE_REPO" worktree add -q --detach "$src" base
	fi
	git -C "$src" checkout -q -f --detach "$commit"
	mapfile -t frags < <(flavour_fragments "$src" "$limit")
	key=$(
		{
			echo "$KSRC_PKG $(ksrc_version)"
			git -C "$BASE_REPO" rev-parse "$commit^{tree}"
			for f in "${frags[@]}"; do
				echo "fragment $(basename "$f") $(sha256sum <"$f")"
			done
			sed -n '/^# --- kernel build model/,$p' "$WQRT_KDIR/scripts/common.sh" |
				sha256sum
			sha256sum <"$WQRT_KDIR/scripts/check-config.sh"
			"${FL_CROSS}gcc" --version | head -n 1
		} | sha256sum | cut -c1-16
	)
	# what vm.sh check judges this tree's suite against: the flavour's
	# list, or "prefix" on a prefix of the series (selftests/vm/expect/)
	if [ -n "$limit" ]; then
		echo prefix >"$dir/expect"
	else
		echo "$FL_EXPECT" >"$dir/expect"
	fi
	if [ -f "$obj/.wqrt-key" ] && [ "$(cat "$obj/.wqrt-key")" = "$key" ]; then
		note "kernel $tree: up to date ($key: ${#stable[@]} stable fix(es) + ${#patches[@]} patch(es), $(basename -a "${frags[@]}" | tr '\n' ' '))"
		ln -sfn "$dir" "$WQRT_BUILD/kernel-$flavour"
		exec 8>&-
		return 0
	fi
	rm -f "$obj/.wqrt-key"
	note "kernel $tree: ${#stable[@]} stable fix(es) + ${#patches[@]} patch(es), $(basename -a "${frags[@]}" | tr '\n' ' ')-> $key"
	kconfig "$src" "$obj" "${frags[@]}"
	note "kernel $tree: building in $obj (make -j$(nproc) all); a fresh tree takes several minutes, a changed patch one to ten"
	start=$(date +%s)
	if ! kmake "$src" "$obj" -j"$(nproc)" all >"$dir/build.log" 2>&1; then
		tail -n 40 "$dir/build.log" >&2
		die "kernel $tree: build failed, full log in $dir/build.log"
	fi
	echo "$key" >"$obj/.wqrt-key"
	ln -sfn "$dir" "$WQRT_BUILD/kernel-$flavour"
	note "kernel $tree: built in $(($(date +%s) - start)) s"
	exec 8>&-
}
