#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# enqueue-table.sh RAW: the markdown table of make bench-enqueue. RAW has
# lines "KERNEL R SCOPE ITEMS_PER_SEC P50 P99 HOLD_NS ACQ", several rounds.
set -euo pipefail
raw=$1
echo "# Enqueue throughput, plain 6.12 vs patched ($(date -u +%Y-%m-%d))"
echo
echo "Medians over $(awk '$1 == "perf" && $3 == "system"' "$raw" | wc -l) rounds per kernel, kernels booted"
echo "alternately in one run. Ratio = patched / plain. pool->lock hold time is"
echo "lock_stat's mean hold time over all acquisitions of that class."
echo
echo "| scope | plain items/s | patched items/s | ratio | p50 enq ns plain/patched | p99 enq ns plain/patched | pool->lock hold ns plain/patched |"
echo "|---|---|---|---|---|---|---|"
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }'; }
for scope in cpu smt cache numa system; do
	col() { awk -v k="$1" -v s=$scope -v c="$2" '$1 == k && $3 == s { print $c }' "$raw" | median; }
	pt=$(col perf-plain 4) qt=$(col perf 4)
	ratio=$(awk -v a="$pt" -v b="$qt" 'BEGIN { if (a + 0 > 0) printf "%.3f", b / a; else print "-" }')
	echo "| $scope | $pt | $qt | $ratio | $(col perf-plain 5) / $(col perf 5) | $(col perf-plain 6) / $(col perf 6) | $(col perf-plain 7) / $(col perf 7) |"
done
