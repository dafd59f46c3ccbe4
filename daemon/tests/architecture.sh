#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The house's rules (docs/architecture.md): no file of daemon/ uses
# another in a circle, nor one that sits above it, nor one its folder's
# README.md does not allow (scripts/deps-graph.sh, over the objects of
# BUILDDIR); the page names exactly the folders there are; every room
# says what it may use; no C file is over 1000 lines. TAP output.
# Usage: architecture.sh BUILDDIR
B=${1:?usage: architecture.sh BUILDDIR}
D=$(cd "$(dirname "$0")/.." && pwd)
top=$(cd "$D/.." && pwd)
doc=$top/docs/architecture.md
. "$top/selftests/lib/ktap.sh"
T=$(mktemp -d /tmp/wqrt-architecture.XXXXXX)
trap 'rm -rf "$T"' EXIT

ktap_print_header
ktap_set_plan 4

"$top/scripts/deps-graph.sh" --objs "$B/objs" "$D" > "$T/graph" 2>&1
rc=$?
ktap_test_result "make deps-graph: no circle, no use back up a floor, none against a folder's rule" \
	[ $rc -eq 0 ]
[ $rc -eq 0 ] || sed -n '/^circles:/,$s/^/# /p' "$T/graph"

# the folders of code, and those the page names (daemon/.../)
(cd "$top" && find daemon -name '*.[ch]' -type f | sed 's|/[^/]*$|/|' |
	LC_ALL=C sort -u) > "$T/tree"
grep -oE 'daemon/[a-z_]+(/[a-z_]+)*/' "$doc" | LC_ALL=C sort -u > "$T/doc"
ktap_test_result "docs/architecture.md names exactly the folders of daemon/" \
	cmp -s "$T/tree" "$T/doc"
cmp -s "$T/tree" "$T/doc" ||
	diff "$T/tree" "$T/doc" | sed -n 's/^</# only in the tree:/p; s/^>/# only on the page:/p'

# a room, the kit, the fuzz targets: each says what it may use
: > "$T/silent"
grep -v '^daemon/[^/]*/tests/$' "$T/tree" | while read -r f; do
	grep -q '^May use:' "$top/${f}README.md" 2>/dev/null || echo "$f" >> "$T/silent"
done
ktap_test_result "every folder of code has a README.md with its May use: line" \
	[ ! -s "$T/silent" ]
sed 's/^/# no May use: line: /' "$T/silent"

(cd "$top" && find daemon -name '*.[ch]' -type f -exec wc -l {} + |
	awk '$2 != "total" && $1 > 1000 {print "# " $2 ": " $1 " lines"}') > "$T/long"
cat "$T/long"
ktap_test_result "no C file of daemon/ is over 1000 lines" [ ! -s "$T/long" ]

ktap_finished
