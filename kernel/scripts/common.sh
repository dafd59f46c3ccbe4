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

# Apply the series (or its first $2 patches) to the worktree $1 as commits.
apply_series() {
	local tree=$1 limit=${2:-} n=0 p
	for p in $(series_patches); do
		if [ -n "$limit" ] && [ "$n" -ge "$limit" ]; then
			break
		fi
		n=$((n + 1))
		if ! git_id -C "$tree" am -q "$p" >/dev/null 2>&1; then
			git -C "$tree" am --abort >/dev/null 2>&1 || true
			die "patch kernel/patches/$(basename "$p") does not apply to $KSRC_PKG $(ksrc_version)"
		fi
	done
	echo "$n"
}
