#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-quiet.sh: the benchmarks' quiet-host check (quiet.sh) on fake /proc
# trees: a second QEMU, a compiler or a busy CPU refuses a run with the
# reason named, WQRT_BENCH_FORCE=1 runs it and marks its record, and a
# quiet host passes. TAP output; run by make check's harness stage.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/selftests/lib/ktap.sh"
. "$top/selftests/bench/quiet.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export WQRT_BENCH_QUIET_SAMPLE_S=0

# fake_proc DIR: a /proc with an idle CPU line and one shell
fake_proc() {
	mkdir -p "$1/100"
	echo "cpu  100 0 100 10000 50 0 0 0 0 0" >"$1/stat"
	echo bash >"$1/100/comm"
}
# run_quiet DIR RECORD [VAR=VALUE...]: host_quiet in a subshell; its
# status, stderr in $tmp/err
run_quiet() {
	local dir=$1 rec=$2
	shift 2
	(export "$@" WQRT_BENCH_PROC="$dir"; host_quiet test "$rec") 2>"$tmp/err"
}

ktap_print_header
ktap_set_plan 8

ktap_test_result "busy_pct: 300 of 1000 jiffies busy is 30 %" \
	[ "$(busy_pct "0 0 0 0 0 0 0 0" "200 0 100 650 50 0 0 0")" = 30 ]
ktap_test_result "busy_pct: iowait is idle, no time is 0 %" \
	[ "$(busy_pct "1 1 1 1 1" "1 1 1 5 6")" = 0 ]

fake_proc "$tmp/quiet"
run_quiet "$tmp/quiet" "$tmp/quiet.rec" WQRT_BENCH_FORCE=0
ktap_test_result "a quiet host passes and its record says quiet" \
	eval '[ $? = 0 ] && grep -q "^quiet: 0 % busy" "$tmp/quiet.rec"'

fake_proc "$tmp/qemu"
mkdir -p "$tmp/qemu/4242"
echo qemu-system-x86_64 >"$tmp/qemu/4242/comm"
rc=0
run_quiet "$tmp/qemu" "$tmp/qemu.rec" WQRT_BENCH_FORCE=0 || rc=$?
ktap_test_result "another QEMU: exit 2, named with its pid, nothing recorded" \
	eval '[ $rc = 2 ] && grep -q "qemu-system-x86_64 is running (pid 4242)" "$tmp/err" &&
	      grep -q WQRT_BENCH_FORCE=1 "$tmp/err" && [ ! -s "$tmp/qemu.rec" ]'

fake_proc "$tmp/cc"
mkdir -p "$tmp/cc/777"
echo cc1 >"$tmp/cc/777/comm"
rc=0
run_quiet "$tmp/cc" "$tmp/cc.rec" WQRT_BENCH_FORCE=0 || rc=$?
ktap_test_result "a compiler (a build): exit 2, named" \
	eval '[ $rc = 2 ] && grep -q "cc1 is running (pid 777)" "$tmp/err"'

# a CPU line that moves while it is sampled: the sample reads stat twice
fake_proc "$tmp/cpu"
cpu_line() { # the first read idle, the second 60 % busy
	if [ -e "$tmp/cpu/.read" ]; then
		echo "600 0 200 10400 50 0 0 0 0 0"
	else
		touch "$tmp/cpu/.read"
		echo "100 0 100 10000 50 0 0 0 0 0"
	fi
}
rc=0
run_quiet "$tmp/cpu" "$tmp/cpu.rec" WQRT_BENCH_FORCE=0 || rc=$?
ktap_test_result "CPUs 60 % busy (over 25 %): exit 2, the share said" \
	eval '[ $rc = 2 ] && grep -q "60 % busy" "$tmp/err"'
rm -f "$tmp/cpu/.read"
rc=0
run_quiet "$tmp/cpu" "$tmp/cpu.rec" WQRT_BENCH_FORCE=0 WQRT_BENCH_MAX_BUSY=70 || rc=$?
ktap_test_result "...passes with WQRT_BENCH_MAX_BUSY=70" [ $rc = 0 ]

rc=0
run_quiet "$tmp/qemu" "$tmp/forced.rec" WQRT_BENCH_FORCE=1 || rc=$?
ktap_test_result "WQRT_BENCH_FORCE=1: runs, and the result says forced and why" \
	eval '[ $rc = 0 ] && quiet_record "$tmp/forced.rec" |
	      grep -q "^- \*\*forced run on a busy host\*\*: .*qemu-system-x86_64 is running (pid 4242)"'
ktap_finished
