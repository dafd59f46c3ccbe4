#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-verdict.sh: host-side tests of tap-verdict.sh, the judge of every VM
# run, on made-up TAP streams and console logs: a run goes red when a
# program goes missing, skips what its flavour's column does not allow
# (whole or one test), plans another number of tests or is not in the
# table, and when the console shows a call trace of any kind. Part of
# `make check` (the harness stage).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/ktap.sh"

tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

cat >"$tmp/expected" <<'EOF'
# program        tests  full  bare
=series          -      1     0
prog_a           3      -     all   # bare: no feature A
prog_b.sh        2      2     -     # full: test 2 needs a UART
prog_c           1      -     x
EOF
: >"$tmp/console"
printf '[    1.0] Linux version 6.12\n[    2.0] wqrt_test: loaded\n' >"$tmp/console"

# a run of prog_a, prog_b.sh, prog_c: "tap NAME" writes a TAP stream from
# the lines of stdin ("P name", "S name reason", "A reason": skip all,
# "F name", "plan N"), program by program ("run PROG")
tap() {
	local out=$tmp/$1 kind rest n=0
	{
		echo "WQRT-BEGIN 6.12"
		while read -r kind rest; do
			case "$kind" in
			run) [ "$n" = 0 ] || echo "# wqrt-exit: $prog 0"
				prog=$rest n=0
				echo "# wqrt-run: $prog"; echo "TAP version 13" ;;
			plan) echo "1..$rest" ;;
			A) echo "1..0 # SKIP $rest"; n=1 ;;
			P) n=$((n + 1)); echo "ok $n $rest" ;;
			F) n=$((n + 1)); echo "not ok $n $rest" ;;
			S) n=$((n + 1)); echo "ok $n ${rest%% *} # SKIP ${rest#* }" ;;
			esac
		done
		echo "# wqrt-exit: $prog 0"
		echo "WQRT-DONE 0"
	} >"$out"
}

# verdict NAME [CONSOLE] [tap-verdict options]: run the judge, output in
# $tmp/NAME.out
verdict() {
	local name=$1 console=${2:-$tmp/console}
	shift 2
	"$here/tap-verdict.sh" "$@" "$tmp/$name" "$console" >"$tmp/$name.out" 2>&1
}

# expect_verdict DESCRIPTION WANT_RC PATTERN NAME [CONSOLE] [OPTIONS]
expect_verdict() {
	local desc=$1 want=$2 pattern=$3 name=$4 rc
	shift 4
	verdict "$name" "$@"
	rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$pattern" "$tmp/$name.out"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc (exit $rc, want $want; no /$pattern/ in the output:)"
		sed 's/^/#   /' "$tmp/$name.out"
	fi
}

ktap_print_header
ktap_set_plan 20
full=(--expect full --expected "$tmp/expected")
bare=(--expect bare --expected "$tmp/expected")

tap good <<'EOF'
run prog_a
plan 3
P t1
P t2
P t3
run prog_b.sh
plan 2
P first
S second no UART here
run prog_c
plan 1
P only
EOF
expect_verdict "a run as the table says passes, the allowed skip counted" 0 \
	'^5 passed, 0 failed, 1 skipped$' good "" "${full[@]}"

tap unexpected-skip <<'EOF'
run prog_a
plan 3
P t1
S t2 no such attribute
P t3
run prog_b.sh
plan 2
P first
P second
run prog_c
plan 1
P only
EOF
expect_verdict "an unexpected skip fails, naming program, test and line to change" 1 \
	'prog_a: test 2 "t2" skipped on full \(no such attribute\).*list 2 in that column' \
	unexpected-skip "" "${full[@]}"
expect_verdict "...and passes with --any-skip (a prefix of the series)" 0 \
	'^5 passed, 0 failed, 1 skipped$' unexpected-skip "" --any-skip "${full[@]}"

tap skip-all <<'EOF'
run prog_a
A kernel without feature A
run prog_b.sh
plan 2
P first
P second
run prog_c
plan 1
P only
EOF
expect_verdict "1..0 # SKIP where nothing may skip fails by name" 1 \
	'prog_a skipped as a whole on full \(kernel without feature A\)' \
	skip-all "" "${full[@]}"
expect_verdict "...and counts as a skip" 1 '^3 passed, 1 failed, 1 skipped$' \
	skip-all "" "${full[@]}"
expect_verdict "a program marked x that ran fails" 1 \
	'prog_c ran on bare but its line .* marks it x' skip-all "" "${bare[@]}"
tap bare <<'EOF'
run prog_a
A kernel without feature A
run prog_b.sh
plan 2
P first
P second
EOF
expect_verdict "1..0 # SKIP where the column says all passes, counted" 0 \
	'^2 passed, 0 failed, 1 skipped$' bare "" "${bare[@]}"

tap missing <<'EOF'
run prog_a
plan 3
P t1
P t2
P t3
run prog_c
plan 1
P only
EOF
expect_verdict "a missing program fails by name" 1 \
	'prog_b.sh did not run on full: .*expects it \(2 tests' missing "" "${full[@]}"

tap count <<'EOF'
run prog_a
plan 4
P t1
P t2
P t3
P t4
run prog_b.sh
plan 2
P first
P second
run prog_c
plan 1
P only
run prog_new
plan 2
P n1
P n2
EOF
expect_verdict "another plan size fails and says the count to write" 1 \
	'prog_a planned 4 tests on full, .* says 3: if the change is meant, make its count 4' \
	count "" "${full[@]}"
expect_verdict "a program without a line fails and says what to add" 1 \
	'prog_new ran but has no line in .*: add "prog_new  2' count "" "${full[@]}"

printf '[   3.0] CPU: 1 UID: 0 PID: 7 Comm: insmod Not tainted 6.12\n[   3.0] Call Trace:\n[   3.0]  <TASK>\n[   3.0]  dump_stack_lvl+0x5d/0x80\n' >"$tmp/console-trace"
expect_verdict "a bare dump_stack() (Call Trace) in the console fails the run" 1 \
	'Call Trace:' good "$tmp/console-trace" "${full[@]}"
# tty_flip's register_retry makes sysfs dump_stack() on purpose (its
# ttyWQRTr0 is taken by a blocker): that one trace passes, the same trace
# for any other name, or a WARNING inside it, does not
dup_trace() {
	printf "[   4.0] sysfs: cannot create duplicate filename '/devices/virtual/tty/%s0'\r\n" "$1"
	printf '[   4.0] CPU: 1 UID: 0 PID: 9 Comm: tty_flip Tainted: G O 6.12\r\n'
	printf '[   4.0] Call Trace:\r\n[   4.0]  <TASK>\r\n[   4.0]  ? sysfs_warn_dup+0x51/0x5d\r\n'
	printf '%s' "${2:-}"
	printf '[   4.0]  </TASK>\r\n'
	printf '[   4.0] kobject: kobject_add_internal failed for %s0 with -EEXIST, don'"'"'t try to register things with the same name in the same directory.\r\n' "$1"
}
dup_trace ttyWQRTr >"$tmp/console-dup"
expect_verdict "tty_flip's own duplicate-name trace (ttyWQRTr0) passes" 0 \
	' passed, 0 failed' good "$tmp/console-dup" "${full[@]}"
dup_trace ttyS >"$tmp/console-dup-other"
expect_verdict "...the same trace for another device fails" 1 'Call Trace:' \
	good "$tmp/console-dup-other" "${full[@]}"
dup_trace ttyWQRTr '[   4.0] WARNING: CPU: 1 PID: 9 at fs/sysfs/dir.c:32\r\n' >"$tmp/console-dup-warn"
expect_verdict "...and a WARNING inside it fails" 1 'WARNING: CPU: 1' \
	good "$tmp/console-dup-warn" "${full[@]}"
printf '[   3.0] ==================================================================\n[   3.0] BUG: KFENCE: use-after-free read in wqrt_test_fn+0x10/0x20\n' >"$tmp/console-kfence"
expect_verdict "a KFENCE report fails the run" 1 'BUG: KFENCE: use-after-free' \
	good "$tmp/console-kfence" "${full[@]}"
expect_verdict "a flavour the table has no column for fails" 1 \
	'has no column nosuch' good "" --expect nosuch --expected "$tmp/expected"
# a stall that run-vm.sh stopped the VM for (--stalled), and the panic a
# stall parameter makes: each named, the report quoted
printf '[  40.1] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n[  40.1] rcu:     0-...!: (1 GPs behind) idle=1234\n[  40.2] Kernel panic - not syncing: RCU Stall\n' >"$tmp/console-stall"
printf 'WQRT-BEGIN 6.12\n# wqrt-run: prog_a\n1..3\nok 1 t1\n' >"$tmp/stalled"
expect_verdict "a stall the runner stopped the VM for fails, saying when" 1 \
	'the kernel reported a stall 42s into the run' stalled "$tmp/console-stall" \
	--stalled 42
expect_verdict "...with the panic named" 1 \
	'the kernel panicked: Kernel panic - not syncing: RCU Stall' \
	stalled "$tmp/console-stall" --stalled 42
expect_verdict "...and the stall report quoted" 1 \
	'^wqrt-vm: FAIL:   \| \[  40.1\] rcu: INFO: rcu_preempt detected stalls' \
	stalled "$tmp/console-stall" --stalled 42
printf 'WQRT-BEGIN 6.12\n1..1\nok 1 all fine\nWQRT-DONE 3\n' >"$tmp/script"
expect_verdict "a script (vm-run) that exits non-zero fails, whatever its TAP said" 1 \
	'script exited with status 3' script "" --mode script
ktap_finished
