#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tap-verdict.sh [--mode M] [--timed-out 0|1] [--timeout S] TAP_LOG CONSOLE_LOG
#
# Judge one VM run from its logs; print every reason for failing and the
# closing line "N passed, N failed" (skips counted apart). Exit 0 only when
# nothing failed. Results are also written to TAP_LOG.result ("P F S").
set -uo pipefail

mode=check
timed_out=0
timeout_s=?
while [ $# -gt 2 ]; do
	case "$1" in
	--mode) mode=$2; shift 2 ;;
	--timed-out) timed_out=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	*) break ;;
	esac
done
tap=$1
console=$2

problems=()
[ "$timed_out" = 0 ] ||
	problems+=("the VM did not finish within ${timeout_s}s (timeout): last console lines are in $console")
grep -q '^WQRT-BEGIN' "$tap" ||
	problems+=("the guest never started its tests (no WQRT-BEGIN on ttyS1): see $console")
if [ "$timed_out" = 0 ] && ! grep -q '^WQRT-DONE' "$tap"; then
	problems+=("the guest stopped before finishing (no WQRT-DONE): crash or panic? see $console")
fi

# Kernel reports that fail a run whatever the tests said.
splat_re='BUG:|WARNING:|INFO: possible|INFO: trying to register|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|KASAN|workqueue lockup|Kernel panic|Oops|INFO: task .* blocked for more than|ODEBUG:|general protection fault|detected stall|UBSAN:'
splats=$(grep -aE "$splat_re" "$console" | head -n 5)
if [ -n "$splats" ]; then
	problems+=("the kernel log has BUG/WARNING/lockdep/lockup reports (full log: $console):")
	while IFS= read -r l; do problems+=("    $l"); done <<<"$splats"
	# The first report in full (to its end marker, 60 lines at most):
	# where the log is gone, as in CI, its call trace is all one has.
	first=$(grep -anE "$splat_re" "$console" | head -n 1 | cut -d: -f1)
	problems+=("the first report:")
	while IFS= read -r l; do problems+=("  | $l"); done < <(
		sed -n "$first,$((first + 59))p" "$console" | tr -d '\r' |
			sed '/---\[ end trace/q')
fi

# Count results per plan: each "1..N" opens a plan, which must see N results.
counts=$(awk '
	function close_plan() {
		if (plan >= 0 && seen < plan)
			printf "short %s %d %d\n", prog, plan, seen
		plan = -1; seen = 0
	}
	BEGIN { plan = -1; prog = "?" }
	/^# wqrt-run: / { close_plan(); prog = $3 }
	/^1\.\.[0-9]+/ { close_plan(); sub(/^1\.\./, ""); plan = $1 + 0 }
	/^ok [0-9]+/ {
		seen++
		if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) skip++; else pass++
	}
	/^not ok [0-9]+/ {
		seen++
		if ($0 ~ /# *TODO/) skip++; else { fail++; printf "notok %s\n", $0 }
	}
	/^# wqrt-exit: / {
		rc = $4 + 0
		# 0 pass, 4 all skipped (kselftest KSFT_SKIP)
		if (rc != 0 && rc != 4)
			printf "exit %s %d\n", $3, rc
	}
	/^WQRT-DONE / { if (prog == "?" && $2 + 0 != 0) printf "exit script %d\n", $2 }
	END {
		close_plan()
		printf "total %d %d %d\n", pass, fail, skip
	}
' "$tap")

passed=0 failed=0 skipped=0
while read -r kind a b c; do
	case "$kind" in
	short)
		problems+=("$a: planned $b results, got $c (crashed or hung?)")
		failed=$((failed + b - c))
		;;
	notok) problems+=("failed: $a $b $c") ;;
	exit) problems+=("$a exited with status $b") ;;
	total) passed=$a failed=$((failed + b)) skipped=$c ;;
	esac
done <<<"$counts"

if [ "$mode" = check ] && [ $((passed + failed + skipped)) = 0 ]; then
	problems+=("no test results at all in $tap")
fi
# A run that failed for a reason no test line shows counts as one failure.
if [ "${#problems[@]}" -gt 0 ] && [ "$failed" = 0 ]; then
	failed=1
fi

for p in "${problems[@]}"; do
	echo "wqrt-vm: FAIL: $p"
done
echo "$passed $failed $skipped" >"$tap.result"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "${#problems[@]}" = 0 ]
