#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-price.sh: make bench-price's table regenerates from committed files
# byte for byte, a kernel priced against itself is 1.000 at every corner,
# a prices file with a mistake is refused with the line named, the
# symbols a counts run commits name every address as the whole map, and a
# host-clock run's timed table regenerates with every round's ratio. TAP
# output; run by make check's harness stage.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stats=$top/selftests/bench/cost/cost-stats.py
res=$top/selftests/bench/results
prices=${PRICES:-$top/selftests/bench/cost/prices}

ktap_print_header
ktap_set_plan 11

OUT=$tmp/price.md "$top/selftests/bench/tables.sh" price >/dev/null 2>"$tmp/err"
ktap_test_result "make bench-price regenerates results/cost-2026-12-03-counts-priced.md" \
	cmp -s "$tmp/price.md" "$res/cost-2026-12-03-counts-priced.md"

# prod-plain against itself: every corner's ratio is 1
for f in plugin log; do
	xz -dc "$res/cost-2026-12-03-counts-counts-prod-plain.$f.xz" >"$tmp/cost-prod-plain.$f"
	cp "$tmp/cost-prod-plain.$f" "$tmp/cost-same.$f"
done
python3 "$stats" price "$prices" "$tmp" prod-plain same >"$tmp/same.md"
ktap_test_result "a kernel priced against itself: 1.000 to 1.000 in every row, no sign change" \
	eval 'rows=$(grep -cE "^\| [a-z-]+ \| (caller|roundtrip|all)" "$tmp/same.md")
	      [ "$rows" -ge 13 ] && [ "$(grep -cE "\| 1\.000 to 1\.000 \|\$" "$tmp/same.md")" = "$rows" ] &&
	      ! grep -q "changes sign" "$tmp/same.md"'

# bad_prices EDIT WANT: the prices file with sed EDIT applied is refused
# (exit not 0) with WANT in the message
bad_prices() {
	sed "$1" "$prices" >"$tmp/bad"
	! python3 "$stats" price "$tmp/bad" "$tmp" prod-plain same >/dev/null 2>"$tmp/err" &&
		grep -q "$2" "$tmp/err"
}
first=$(grep -m1 '^price ' "$prices")
mach=$(echo "$first" | cut -d' ' -f2)
ktap_test_result "LOW above HIGH: refused, the line named" \
	bad_prices "0,/^price /s/^price \([^ ]*\) \([^ ]*\) \([^ ]*\) \([^ ]*\)/price \1 \2 \4 \3/" "bad:[0-9]*: LOW .* HIGH .*: 0 <= LOW <= HIGH"
ktap_test_result "a metric that is not priced: refused, named" \
	bad_prices "0,/^price /s/^price \([^ ]*\) [^ ]*/price \1 cycles/" "bad:[0-9]*: cycles is not a priced metric"
ktap_test_result "a machine without a price for a metric: refused, both named" \
	bad_prices "/^price $mach apic /d" "$mach has no price for apic"
ktap_test_result "a price whose source no ref line gives: refused, named" \
	bad_prices "/^ref /d" "cites \[.*\], which no ref line gives"
# mapsubset: of a System.map, the symbols that contain the H lines'
# addresses (PC and call site), nothing else
mkdir -p "$tmp/ms"
cat >"$tmp/ms/cost-x.map" <<M
ffffffff81000000 T _stext
ffffffff81001000 T foo
ffffffff81002000 t bar
ffffffff81003000 T baz
ffffffff81003800 D some_data
ffffffff81004000 T after
M
cat >"$tmp/ms/cost-x.plugin" <<P
W 10 op insns 5 atomics 1 fences 0 wlines 0 rlines 0 apic 0 halts 0
H 10 op atomics ffffffff81001010 ffffffff81003004 1
H 10 op insns ffffffff81002fff 0 5
P
ktap_test_result "mapsubset: foo, bar and baz, which hold the addresses; not _stext, some_data, after" \
	[ "$(python3 "$stats" mapsubset "$tmp/ms" x | awk '{ print $3 }' | paste -sd,)" = "foo,bar,baz" ]
# regenerates BASE ROWS: tables.sh times makes BASE's table again into
# $tmp/BASE.md, and its lines that match ROWS (grep) are the committed
# BASE.md's, in order
regenerates() {
	OUT=$tmp/$1.md "$top/selftests/bench/tables.sh" times "$1" >/dev/null 2>"$tmp/err" &&
		diff <(grep "$2" "$res/$1.md") <(grep "$2" "$tmp/$1.md") >"$tmp/diff"
}
# shellcheck disable=SC2034 # both read by the tests' eval strings
table_rows='^| [a-z0-9-]*_[a-z0-9_]* | \(yes\|no\) |'
# shellcheck disable=SC2034
all_rows='^| [a-z0-9-]*_[a-z0-9_]* |'

# the timed table of a host-clock run, from its raw samples and seed: the
# rows of the committed result (which predates the per-round table), and
# every round's ratio, whose median is the table's
hc=cost-2026-12-03-times-hostclock
ktap_test_result "tables.sh times regenerates the table of $hc.md row for row" \
	eval 'regenerates "$hc" "$table_rows" && [ "$(grep -c "| yes |\|| no |" "$tmp/$hc.md")" -ge 14 ]'
ktap_test_result "every round's ratio listed, 5 a row, their median the table's" \
	python3 -c '
import statistics, sys
med, rows, part = {}, 0, 0
for line in open(sys.argv[1]):
	c = [x.strip() for x in line.strip().strip("|").split("|")]
	if c[:2] == ["metric", "lower is better"]: part = 1; continue
	if c[:2] == ["metric", "kernel A"]: part = 2; continue
	if not line.startswith("| ") or not c[0][:1].isalpha(): continue
	if part == 1: med[tuple(c[0:1] + c[2:4])] = c[6].split()[0]
	if part == 2:
		v = [float(x) for x in c[3:]]
		assert len(v) == 5, line
		assert "%.3f" % statistics.median(v) == med[tuple(c[0:3])], line
		rows += 1
assert rows >= 14, rows
' "$tmp/$hc.md"
# a run of a prefix without flush boots (ENQ_KERNELS, FLUSH=0): its pair
# is the one its Command line names, every row and every round's ratio
hp=cost-2026-12-05-hostclock-prefix
ktap_test_result "tables.sh times regenerates $hp.md (prod-plain against prod@3, no flush rows) row for row" \
	eval 'regenerates "$hp" "$all_rows" &&
	      [ "$(grep -c "| prod-plain | prod@3 |" "$tmp/$hp.md")" = 12 ] && ! grep -q flush "$tmp/$hp.md"'
# three kernels in the same rounds (ENQ_KERNELS="prod-plain prod@3 prod"):
# each against the first, the third against the second
h3=cost-2026-12-05-hostclock-enqueue3
ktap_test_result "tables.sh times regenerates $h3.md (three kernels, three pairs) row for row" \
	eval 'regenerates "$h3" "$all_rows" &&
	      [ "$(grep -c "| prod@3 | prod |" "$tmp/$h3.md")" = 12 ] && [ "$(grep -c "| prod-plain | prod |" "$tmp/$h3.md")" = 12 ]'
ktap_finished
