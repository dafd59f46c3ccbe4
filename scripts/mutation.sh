#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make mutation: do the daemon's tests notice a wrong line? Each mutant of
# daemon/tests/mutations.txt (one line of daemon/ changed) is built on a
# copy of this tree and the programs of `make -C daemon test-run` run on it
# (plain build, in their order, stopping at the first that fails). A
# mutant no test catches fails the run, unless the list argues it
# equivalent. The report (daemon/tests/mutation-report.md by default, or
# $1) says which program caught each one. Outside make check: about half
# a minute a mutant.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
report=${1:-$top/daemon/tests/mutation-report.md}

work=$(mktemp -d /tmp/wqrt-mutation.XXXXXX)
trap 'rm -rf "$work"' EXIT
# the tree as it is (tracked files, edits included)
(cd "$top" && git ls-files -z | xargs -0 tar -cf - --no-recursion) |
	tar -xf - -C "$work"
O=$work/build
# the list as it is now: an edit while this runs changes nothing here
list=$work/mutations.txt
cp "${WQRT_MUTATIONS:-$top/daemon/tests/mutations.txt}" "$list"

build() { make -s -C "$work/daemon" O="$O" WERROR=1 test-build > "$work/build.log" 2>&1; }
# run_tests: 0, or 1 with the first program that failed in $caught
run_tests() {
	local t s
	for t in "$O"/tests/test_*; do
		[ -x "$t" ] || continue
		if ! (cd "$work" && timeout 120 "$t") > "$work/test.log" 2>&1; then
			caught=${t##*/}
			return 1
		fi
	done
	for s in cli exits cli-board cli-leftovers cli-trace cli-nonroot cli-try; do
		if ! timeout 300 sh "$work/daemon/tests/$s.sh" "$O" > "$work/test.log" 2>&1; then
			caught=$s.sh
			return 1
		fi
	done
	return 0
}

echo "mutation: the unmutated tree first"
build || { tail -n 20 "$work/build.log"; echo "mutation: the tree does not build" >&2; exit 1; }
caught=
if ! run_tests; then
	tail -n 20 "$work/test.log"
	echo "mutation: $caught fails on the unmutated tree" >&2
	exit 1
fi

total=$(grep -c ' ==> ' "$list")
n=0 killed=0 equivalent=0 survived=0 stale=0
{
	echo "# Mutation report"
	echo
	echo "\`make mutation\` ($(date -u +%Y-%m-%d), $(git -C "$top" describe --always --dirty)):"
	echo "each mutant of \`daemon/tests/mutations.txt\` built alone, the daemon's"
	echo "tests (plain build) run until one fails."
	echo
	echo "| # | file | mutation | result |"
	echo "|---|---|---|---|"
} > "$work/report"
while IFS= read -r line; do
	case "$line" in '' | '#'*) continue ;; esac
	n=$((n + 1))
	file=${line%%: *}
	rest=${line#*: }
	why=
	case "$rest" in *' ## equivalent: '*)
		why=${rest#*' ## equivalent: '}
		rest=${rest%%' ## equivalent: '*} ;;
	esac
	old=${rest%% ==> *}
	new=${rest#* ==> }
	printf 'mutation %d/%d: %s: %s\n' "$n" "$total" "$file" "$old"
	cp "$work/$file" "$work/pristine"
	if ! OLD=$old NEW=$new python3 - "$work/$file" <<'PY'
import os, sys
p = sys.argv[1]
s = open(p).read()
old, new = os.environ["OLD"].strip(), os.environ["NEW"].strip()
if s.count(old) != 1:
    sys.exit(1)
open(p, "w").write(s.replace(old, new))
PY
	then
		result="**stale**: the line is not in the file exactly once"
		stale=$((stale + 1))
	elif ! build; then
		result="**does not build**: choose a mutant the compiler takes"
		stale=$((stale + 1))
	else
		caught=
		if run_tests; then
			if [ -n "$why" ]; then
				result="equivalent: $why"
				equivalent=$((equivalent + 1))
			else
				result="**SURVIVED**"
				survived=$((survived + 1))
			fi
		else
			result="caught by $caught"
			killed=$((killed + 1))
		fi
	fi
	echo "  $result"
	cp "$work/pristine" "$work/$file"
	touch "$work/$file"
	printf '| %d | `%s` | `%s` → `%s` | %s |\n' "$n" "$file" \
		"$(printf %s "$old" | sed 's/|/\\|/g; s/^[[:space:]]*//')" \
		"$(printf %s "$new" | sed 's/|/\\|/g; s/^[[:space:]]*//')" \
		"$result" >> "$work/report"
done < "$list"
{
	echo
	echo "$n mutants: $killed caught, $equivalent argued equivalent, $survived survived, $stale stale."
} >> "$work/report"
cp "$work/report" "$report"
echo "mutation: $n mutants: $killed caught, $equivalent equivalent, $survived survived, $stale stale; report in $report"
[ "$survived" -eq 0 ] && [ "$stale" -eq 0 ]
