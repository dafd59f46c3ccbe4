#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# enqueue-table.sh RAW [KERNEL...]: the markdown tables of make
# bench-enqueue. RAW has
# lines "KERNEL R SCOPE ITEMS_PER_SEC P50 P99 HOLD_NS ACQ", several rounds,
# KERNEL being perf-plain (6.12), perf (the series: a deferred task pointer)
# or perf-alt (the series with a wake_q instead of the task pointer).
set -euo pipefail
raw=$1
median() { sort -n | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.0f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a + 0 > 0 && b != "-") printf "%.3f", b / a; else print "-" }'; }
col() { awk -v k="$1" -v s="$2" -v c="$3" '$1 == k && $3 == s { print $c }' "$raw" | median; }

# Other kernels (KERNELS="perf@2 perf@3": a per-patch A/B): one column
# group per kernel, ratios against the first.
if [ $# -gt 1 ]; then
	shift
	first=$1
	echo "# Enqueue throughput: $* ($(date -u +%Y-%m-%d))"
	echo
	echo "Medians over $(awk -v k="$first" '$1 == k && $3 == "system"' "$raw" | wc -l) rounds per kernel, the kernels booted in"
	echo "turn in one run; KERNEL@N is the first N patches of the series."
	echo "Ratios are against $first. pool->lock hold time is lock_stat's mean"
	echo "hold time over all acquisitions of that class; the per-round rows"
	echo "are in the raw file."
	echo
	head="| scope |" rule="|---|"
	for k in "$@"; do
		head="$head $k items/s | $k hold ns | $k p99 enqueue ns |"
		rule="$rule---|---|---|"
		[ "$k" = "$first" ] || { head="$head items/s ratio | hold ratio |"; rule="$rule---|---|"; }
	done
	echo "$head"
	echo "$rule"
	for scope in cpu smt cache numa system; do
		row="| $scope |"
		for k in "$@"; do
			row="$row $(col "$k" $scope 4) | $(col "$k" $scope 7) | $(col "$k" $scope 6) |"
			[ "$k" = "$first" ] ||
				row="$row $(ratio "$(col "$first" $scope 4)" "$(col "$k" $scope 4)") | $(ratio "$(col "$first" $scope 7)" "$(col "$k" $scope 7)") |"
		done
		echo "$row"
	done
	exit 0
fi

echo "# Enqueue throughput: plain 6.12, the series (task pointer), the wake_q variant ($(date -u +%Y-%m-%d))"
echo
echo "Medians over $(awk '$1 == "perf" && $3 == "system"' "$raw" | wc -l) rounds per kernel, the kernels booted in"
echo "turn in one run. Ratios are against plain 6.12. pool->lock hold time is"
echo "lock_stat's mean hold time over all acquisitions of that class."
echo
echo "| scope | plain items/s | task ptr (series) items/s | ratio | wake_q items/s | ratio | pool->lock hold ns plain / task ptr / wake_q | p99 enqueue ns plain / task ptr / wake_q |"
echo "|---|---|---|---|---|---|---|---|"
for scope in cpu smt cache numa system; do
	pt=$(col perf-plain $scope 4) qt=$(col perf $scope 4) at=$(col perf-alt $scope 4)
	echo "| $scope | $pt | $qt | $(ratio "$pt" "$qt") | $at | $(ratio "$pt" "$at") |" \
		"$(col perf-plain $scope 7) / $(col perf $scope 7) / $(col perf-alt $scope 7) |" \
		"$(col perf-plain $scope 6) / $(col perf $scope 6) / $(col perf-alt $scope 6) |"
done
