#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-stats.sh: make bench-gpu-submit's tables from a guest log whose
# answers are known: the share of frames whose submit started later than
# the bound, a dropped frame counted as late, the worst dispatch, a round
# that differs from the others shown in its own column. TAP output; run by
# make check's harness stage.
set -u
top=$(cd "$(dirname "$0")/../../.." && pwd)
. "$top/selftests/lib/ktap.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
stats=$top/selftests/bench/gpu-submit/stats.py

# 3 rounds x 100 frames: default starts every 10th frame's submit 2 ms
# late and drops frame 5 of round 2; fifo50 is never late; round 3 of
# fifo50 has one 900 us submit (under the bound)
{
	echo "I kernel test"
	for r in 1 2 3; do
		echo "O $r default fifo50"
		for s in $(seq 0 99); do
			if [ "$r" = 2 ] && [ "$s" = 5 ]; then
				echo "F default $r $s drop"
			elif [ $((s % 10)) = 0 ]; then
				echo "F default $r $s 2000000 50000 1000 0"
			else
				echo "F default $r $s 100000 50000 1000 0"
			fi
			if [ "$r" = 3 ] && [ "$s" = 7 ]; then
				echo "F fifo50 $r $s 900000 40000 1000 1"
			else
				echo "F fifo50 $r $s 100000 40000 1000 1"
			fi
		done
	done
	echo "V kthread50 1 skipped: test"
} >"$tmp/log"

ktap_print_header
ktap_set_plan 5
SEED=1 python3 "$stats" "$tmp/log" >"$tmp/md" 2>"$tmp/err"
ktap_test_result "default: 300 frames, 1 dropped, 31 of 300 over 1000 us (10.33 %), worst 2000 us" \
	grep -q '^| default | 300 (1) | 10.33 \[.*\] | 100 | 2000 \[.*\] | 2000 | 50 | 50 |$' "$tmp/md"
ktap_test_result "fifo50: none over the bound, the worst 900 us" \
	grep -q '^| fifo50 | 300 (0) | 0.00 \[0.00, 0.00\] | 100 | 100 \[.*\] | 900 | 40 | 40 |$' "$tmp/md"
ktap_test_result "per round: default's round 2 with its dropped frame, 11 %" \
	grep -q '^| default | 10.00 (2000) | 11.00 (2000) | 10.00 (2000) |$' "$tmp/md"
ktap_test_result "a skipped variant is said" grep -q '^Skipped: kthread50 1 skipped: test$' "$tmp/md"
ktap_test_result "a log without frames: an error that names it" \
	eval '! python3 "$stats" /dev/null >/dev/null 2>"$tmp/err" && grep -q "no F lines in /dev/null" "$tmp/err"'
ktap_finished
