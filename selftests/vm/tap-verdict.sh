#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tap-verdict.sh [--mode M] [--timed-out 0|1] [--timeout S] [--stalled S]
#                [--expect FLAVOUR [--expected FILE] [--any-skip]]
#                TAP_LOG CONSOLE_LOG
#
# Judge one VM run from its logs; print every reason for failing and the
# closing line "N passed, N failed" (skips counted apart). Exit 0 only when
# nothing failed. Results are also written to TAP_LOG.result ("P F S").
#
# --expect FLAVOUR judges the programs of the run against the FLAVOUR
# column of the expectation table (--expected, by default
# selftests/vm/expected): every program listed there must run, with the
# number of tests its line says, and skip only what its column allows; a
# program the table does not list fails too. A program that skips as a
# whole (1..0 # SKIP) counts as one skipped test. --any-skip lets every
# test skip (a prefix of the series, make kernel-each), the rest still
# holds. --stalled S: the runner stopped the VM after the kernel reported a
# stall S seconds into the run.
set -uo pipefail

mode=check
timed_out=0
timeout_s=?
expect=
expected=$(dirname "$0")/expected
any_skip=0
stalled=
while [ $# -gt 2 ]; do
	case "$1" in
	--stalled) stalled=$2; shift 2 ;;
	--mode) mode=$2; shift 2 ;;
	--timed-out) timed_out=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--expect) expect=$2; shift 2 ;;
	--expected) expected=$2; shift 2 ;;
	--any-skip) any_skip=1; shift ;;
	*) break ;;
	esac
done
tap=$1
console=$2

problems=()
[ -z "$stalled" ] ||
	problems+=("the kernel reported a stall ${stalled}s into the run and the VM was stopped then (the report is below)")
# A panic ends the guest before its tests do; say which (a stall's
# panic parameters, an oops) with its line.
panic=$(grep -a -m1 'Kernel panic - not syncing' "$console" | tr -d '\r')
[ -z "$panic" ] || problems+=("the kernel panicked: ${panic#*] }")
[ "$timed_out" = 0 ] ||
	problems+=("the VM did not finish within ${timeout_s}s (timeout): last console lines are in $console")
grep -q '^WQRT-BEGIN' "$tap" ||
	problems+=("the guest never started its tests (no WQRT-BEGIN on ttyS1): see $console")
if [ "$timed_out" = 0 ] && ! grep -q '^WQRT-DONE' "$tap"; then
	problems+=("the guest stopped before finishing (no WQRT-DONE): crash or panic? see $console")
fi

# Kernel reports that fail a run whatever the tests said: BUG (KFENCE and
# KASAN reports among them), WARNING, lockdep, the watchdogs (soft lockup,
# RCU stall, hung task, workqueue lockup), and any call trace, which a bare
# dump_stack() prints with nothing else to match.
splat_re='BUG:|WARNING:|INFO: possible|INFO: trying to register|DEBUG_LOCKS_WARN_ON|turning off the locking correctness validator|KASAN|KFENCE|workqueue lockup|Kernel panic|Oops|INFO: task .* blocked for more than|ODEBUG:|general protection fault|detected stall|UBSAN:|Call [Tt]race:'
# One trace is made on purpose: tty_flip's register_retry registers a
# driver whose device name (ttyWQRTr0) a blocker already holds, and its
# failed_reregistration_keeps_links registers a driver (ttyWQRTr too) again
# while its own devices are still there; sysfs dump_stack()s on the
# duplicate before the registration fails. Only the
# "Call Trace:" line of that one report, from sysfs's line for that name
# to the kobject's -EEXIST for it, is left out; anything else in it
# (a BUG, a WARNING) still counts.
console_reports() {
	awk '
	/sysfs: cannot create duplicate filename .\/devices\/virtual\/tty\/ttyWQRTr[0-9]+\047/ {
		dup = 1; n = 0
	}
	dup {
		if (++n > 60)
			dup = 0
		else if ($0 ~ /kobject: kobject_add_internal failed for ttyWQRTr[0-9]+ with -EEXIST/)
			dup = 0
		else if ($0 ~ /Call [Tt]race:/)
			next
	}
	{ print }' "$console"
}
reports=$(console_reports)
splats=$(grep -aE "$splat_re" <<<"$reports" | head -n 5)
if [ -n "$splats" ]; then
	problems+=("the kernel log has BUG/WARNING/lockdep/lockup reports or a call trace (full log: $console):")
	while IFS= read -r l; do problems+=("    $l"); done <<<"$splats"
	# The first report in full (to its end marker, 60 lines at most):
	# where the log is gone, as in CI, its call trace is all one has.
	first=$(grep -anE "$splat_re" <<<"$reports" | head -n 1 | cut -d: -f1)
	problems+=("the first report:")
	while IFS= read -r l; do problems+=("  | $l"); done < <(
		sed -n "$first,$((first + 59))p" <<<"$reports" | tr -d '\r' |
			sed '/---\[ end trace/q')
fi

if [ -n "$expect" ]; then
	[ -f "$expected" ] || problems+=("no expectation table $expected")
	grep -qE "^#? *program +tests +.*[[:space:]]$expect([[:space:]]|\$)" "$expected" ||
		problems+=("$expected has no column $expect: add one (its header line is '# program tests FLAVOUR...')")
fi

# Count results per plan: each "1..N" opens a plan, which must see N
# results. Each program's plan, skips and exit status are then held
# against the expectation table's column (when --expect gives one).
tpath=
[ -z "$expect" ] || tpath=$expected
counts=$(awk -v flav="$expect" -v anyskip="$any_skip" -v tpath="$tpath" \
	-v table="${expected#"$(cd "$(dirname "$0")/../.." && pwd)"/}" '
	function close_plan() {
		if (plan >= 0 && seen < plan)
			printf "short %s %d %d\n", prog, plan, seen
		plan = -1; seen = 0
	}
	function problem(s) { printf "problem %s\n", s }
	BEGIN { plan = -1; prog = "?" }
	# may test N of program P skip? (column value v: "-", "all", "x",
	# or a list like "1,3-5")
	function may_skip(v, n,    k, parts, r) {
		if (anyskip || v == "all")
			return 1
		if (v == "-" || v == "x")
			return 0
		k = split(v, parts, ",")
		while (k > 0) {
			if (split(parts[k], r, "-") == 2) {
				if (n >= r[1] + 0 && n <= r[2] + 0)
					return 1
			} else if (n == parts[k] + 0) {
				return 1
			}
			k--
		}
		return 0
	}
	# the expectation table: the header names the columns
	FILENAME == tpath {
		line = $0
		sub(/[ \t]*#.*/, "", line)
		if ($0 ~ /^# *program +tests /) {
			h = $0
			sub(/^# */, "", h)
			nh = split(h, hdr, /[ \t]+/)
			for (i = 3; i <= nh; i++)
				if (hdr[i] == flav)
					col = i
			next
		}
		if (line !~ /[^ \t]/ || !col)
			next
		split(line, f, /[ \t]+/)
		if (f[1] ~ /^=/)
			next
		want_tests[f[1]] = f[2]
		want[f[1]] = f[col]
		order[++norder] = f[1]
		next
	}
	{ sub(/\r$/, "") }
	/^# wqrt-run: / {
		close_plan()
		prog = $3
		sub(/.*\//, "", prog)
		ran[prog] = 1
		planned[prog] = -1
		runs[++nruns] = prog
	}
	/^1\.\.[0-9]+/ {
		close_plan()
		n = $0
		sub(/^1\.\./, "", n)
		plan = n + 0
		if (prog != "?" && planned[prog] < 0)
			planned[prog] = plan
		if (plan == 0 && $0 ~ /# *[Ss][Kk][Ii][Pp]/) {
			skip++
			r = $0
			sub(/^1\.\.0 *# *[Ss][Kk][Ii][Pp] */, "", r)
			skipall[prog] = r == "" ? "no reason given" : r
		}
	}
	/^ok [0-9]+/ {
		seen++
		if ($0 ~ /# *[Ss][Kk][Ii][Pp]/) {
			skip++
			name = $0
			sub(/^ok [0-9]+ */, "", name)
			r = name
			sub(/ *# *[Ss][Kk][Ii][Pp].*/, "", name)
			sub(/.*# *[Ss][Kk][Ii][Pp] */, "", r)
			nskip[prog]++
			skipped_no[prog, nskip[prog]] = $2 + 0
			skipped_name[prog, nskip[prog]] = name
			skipped_why[prog, nskip[prog]] = r
		} else {
			pass++
		}
	}
	/^not ok [0-9]+/ {
		seen++
		if ($0 ~ /# *TODO/) skip++; else { fail++; printf "notok %s%s\n", prog == "?" ? "" : prog ": ", $0 }
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
		if (flav != "" && col) {
			for (i = 1; i <= nruns; i++) {
				p = runs[i]
				if (!(p in want)) {
					problem(p " ran but has no line in " table ": add \"" p "  " (planned[p] > 0 ? planned[p] : "N") "  ...\" with a column for each flavour (- when nothing may skip)")
					continue
				}
				v = want[p]
				if (v == "x") {
					problem(p " ran on " flav " but its line in " table " marks it x (not part of this run)")
					continue
				}
				if (p in skipall) {
					if (v != "all" && !anyskip)
						problem(p " skipped as a whole on " flav " (" skipall[p] "): " table " allows it no such skip (its " flav " column is \"" v "\"); fix the cause, or, if that is meant, make the column \"all\" and say why after #")
					continue
				}
				if (planned[p] < 0)
					problem(p " printed no plan on " flav " (crashed before it?)")
				else if (planned[p] != want_tests[p] + 0)
					problem(p " planned " planned[p] " tests on " flav ", " table " says " want_tests[p] ": if the change is meant, make its count " planned[p])
				for (k = 1; k <= nskip[p]; k++) {
					if (may_skip(v, skipped_no[p, k]))
						continue
					problem(p ": test " skipped_no[p, k] " \"" skipped_name[p, k] "\" skipped on " flav " (" skipped_why[p, k] "); " table " does not allow it (" flav " column \"" v "\"): fix the cause, or, if the skip is meant, list " skipped_no[p, k] " in that column and say why after #")
				}
			}
			for (i = 1; i <= norder; i++) {
				p = order[i]
				if (want[p] != "x" && !(p in ran))
					problem(p " did not run on " flav ": " table " expects it (" want_tests[p] " tests, column \"" want[p] "\"); a program missing from the image, or a run that stopped early")
			}
		}
		printf "total %d %d %d\n", pass, fail, skip
	}
' ${tpath:+"$tpath"} "$tap")

passed=0 failed=0 skipped=0
while read -r kind a b c; do
	case "$kind" in
	short)
		problems+=("$a: planned $b results, got $c (crashed or hung?)")
		failed=$((failed + b - c))
		;;
	notok) problems+=("failed: $a $b $c") ;;
	exit) problems+=("$a exited with status $b") ;;
	problem) problems+=("$a $b $c") ;;
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
