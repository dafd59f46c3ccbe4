#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh lay|export|checkpatch
#
#   lay        make build/linux a git worktree of the pristine source with
#              kernel/stable and then kernel/series applied as commits
#              (refuses to overwrite an existing tree: it may hold work;
#              FORCE=1 to replace it)
#   export     write the commits of build/linux since the series' start
#              (the ref refs/worktree/series-base, on top of kernel/stable)
#              back to kernel/patches (git format-patch) and rewrite
#              kernel/series; the cover letter comes from
#              kernel/cover-letter.txt
#   checkpatch scripts/checkpatch.pl --strict on every patch of the series,
#              of kernel/stable and of the test-only kernel/variants/*;
#              then check-abi.sh: the series' ABI file lists every file
#              of a workqueue's sysfs directory

. "$(dirname "$0")/common.sh"

tree="$WQRT_BUILD/linux"
# Where the series starts in the developer tree: after kernel/stable.
# A per-worktree ref, so that trees laid from the same base repository
# do not share it.
series_base=refs/worktree/series-base

# The start of the series in $tree, or die: a tree laid before kernel/stable
# existed has no such ref, and exporting from 'base' would take the stable
# fixes into the series.
series_start() {
	git -C "$tree" rev-parse -q --verify "$series_base" >/dev/null ||
		die "$tree has no $series_base (laid by an older tree.sh?): export its series by hand or FORCE=1 make kernel-tree"
	echo "$series_base"
}

# kernel/patches/0000-cover-letter.patch: git's cover letter (shortlog,
# diffstat, base-commit) with the subject and text of kernel/cover-letter.txt
# (first line, blank line, body). Not in kernel/series: there is nothing to
# apply. The base commit is local to this machine's import of the Debian
# source; the version and the tree id of that import identify it anywhere.
write_cover_letter() {
	local text="$WQRT_KDIR/cover-letter.txt" tmp subject
	[ -f "$text" ] || return 0
	tmp=$(mktemp -d)
	GIT_AUTHOR_NAME="wqrt developers" GIT_COMMITTER_NAME="wqrt developers" \
		git_id -C "$tree" format-patch -q --zero-commit --no-signature \
		--cover-letter --base=base -o "$tmp" "$(series_start)..HEAD"
	subject=$(head -n1 "$text")
	{
		# the tree id in brackets: checkpatch reads a bare one as a commit
		printf 'Base: Debian %s %s,\nsource tree [%s]\n\n' "$KSRC_PKG" \
			"$(ksrc_version)" "$(git -C "$tree" rev-parse 'base^{tree}')"
		tail -n +3 "$text"
	} >"$tmp/blurb"
	awk -v subject="$subject" -v blurb="$tmp/blurb" '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
		/^\*\*\* BLURB HERE \*\*\*$/ {
			while ((getline line < blurb) > 0)
				print line
			# the end of the text: checkpatch reads no further
			print ""
			print "---"
			next
		}
		{ print }
	' "$tmp/0000-cover-letter.patch" >"$WQRT_KDIR/patches/0000-cover-letter.patch"
	rm -rf "$tmp"
	note "wrote kernel/patches/0000-cover-letter.patch"
}

# check_cover_letter: the exported cover letter carries cover-letter.txt's
# subject and text. The patch is written from the text; an edit made to the
# patch alone would be lost at the next export.
check_cover_letter() {
	local text="$WQRT_KDIR/cover-letter.txt" patch="$WQRT_KDIR/patches/0000-cover-letter.patch"
	[ -f "$text" ] && [ -f "$patch" ] || return 0
	grep -qxF "Subject: [PATCH 00/$(grep -c . "$WQRT_KDIR/series")] $(head -n1 "$text")" "$patch" || {
		echo "checkpatch: the cover letter's subject is not cover-letter.txt's first line" >&2
		return 1
	}
	# the text: after the "source tree [...]" line and its blank line, up
	# to the blank line and "---" that end it
	diff -u --label cover-letter.txt --label 0000-cover-letter.patch \
		<(tail -n +3 "$text") \
		<(awk '/^---$/ { exit } go { print } /^source tree \[/ { getline; go = 1 }' "$patch" | sed '$ d') >&2
}

case "${1:-}" in
lay)
	base=$(base_repo)
	if [ -e "$tree" ]; then
		[ "${FORCE:-0}" = 1 ] ||
			die "$tree exists and may hold unexported work: 'make kernel-export' it, or FORCE=1 to replace it"
		git -C "$base" worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"
	fi
	git -C "$base" worktree prune
	mkdir -p "$WQRT_BUILD"
	git -C "$base" worktree add -q --detach "$tree" base
	mapfile -t stable < <(stable_patches)
	[ "${#stable[@]}" = 0 ] || am_patches "$tree" "${stable[@]}"
	git -C "$tree" update-ref "$series_base" HEAD
	n=$(apply_series "$tree")
	note "$tree: ${#stable[@]} kernel/stable fix(es), then $n patch(es) of the series, as commits on top of 'base'"
	git -C "$tree" log --oneline base..HEAD
	;;
export)
	[ -d "$tree/.git" ] || [ -f "$tree/.git" ] ||
		die "$tree does not exist: 'make kernel-tree' first"
	start=$(series_start)
	count=$(git -C "$tree" rev-list --count "$start..HEAD")
	tmp=$(mktemp -d)
	git -C "$tree" format-patch -q --zero-commit --no-signature \
		--no-numbered -o "$tmp" "$start..HEAD"
	rm -f "$WQRT_KDIR"/patches/*.patch
	: >"$WQRT_KDIR/series.new"
	for p in "$tmp"/*.patch; do
		[ -e "$p" ] || continue
		cp "$p" "$WQRT_KDIR/patches/"
		basename "$p" >>"$WQRT_KDIR/series.new"
	done
	mv "$WQRT_KDIR/series.new" "$WQRT_KDIR/series"
	rm -rf "$tmp"
	write_cover_letter
	note "exported $count patch(es) to kernel/patches and kernel/series"
	;;
checkpatch)
	base=$(base_repo)
	mapfile -t patches < <(series_patches)
	# the fixes to the base, and the test-only variants (race
	# demonstration, benchmark A/B)
	mapfile -t -O "${#patches[@]}" patches < <(stable_patches)
	shopt -s nullglob
	patches+=("$WQRT_KDIR"/variants/*/*.patch)
	if [ "${#patches[@]}" -eq 0 ]; then
		note "checkpatch: the series is empty, nothing to check"
		exit 0
	fi
	bad=0
	for p in "${patches[@]}"; do
		# A fix of kernel/stable names the mainline commit it fixes
		# (Fixes:, as -stable wants); the base is Debian's tarball,
		# with no history to find it in, so that one check cannot
		# be made here.
		ignore=()
		case "$p" in
		"$WQRT_KDIR"/stable/*) ignore=(--ignore UNKNOWN_COMMIT_ID) ;;
		esac
		if (cd "$base" && ./scripts/checkpatch.pl --strict --quiet "${ignore[@]}" "$p"); then
			echo "checkpatch: $(basename "$p"): clean"
		else
			bad=1
		fi
	done
	[ "$bad" = 0 ] || die "checkpatch --strict reports problems (above)"
	check_cover_letter ||
		die "kernel/patches/0000-cover-letter.patch is not kernel/cover-letter.txt: edit the .txt and 'make kernel-export'"
	# and the ABI file against the sysfs files the series creates
	"$WQRT_KDIR/scripts/check-abi.sh" ||
		die "the series' ABI file does not match its sysfs files (above)"
	;;
*)
	die "usage: tree.sh lay|export|checkpatch"
	;;
esac
