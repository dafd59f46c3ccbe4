#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# test-quiet.sh: the benchmarks' quiet-host check (quiet.sh) on fake /proc
# trees: a second QEMU, a compiler or a busy CPU refuses a run with the
# reason named, WQRT_BENCH_FORCE=1 runs it and marks its record, and a
# quiet host passes; the host per round: the benchmark's own CPU time told
# from the others', the guest's rounds found, a round that shared the host
# said. TAP output; run by make check's harness stage.
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
ktap_set_plan 13

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
# the real cpu_line again, for host_snapshot below
. "$top/selftests/bench/quiet.sh"

rc=0
run_quiet "$tmp/qemu" "$tmp/forced.rec" WQRT_BENCH_FORCE=1 || rc=$?
ktap_test_result "WQRT_BENCH_FORCE=1: runs, and the result says forced and why" \
	eval '[ $rc = 0 ] && quiet_record "$tmp/forced.rec" |
	      grep -q "^- \*\*forced run on a busy host\*\*: .*qemu-system-x86_64 is running (pid 4242)"'
# A /proc for host_snapshot: the benchmark's shell (500), its child with
# a command name of spaces and parentheses (501, ticks in its c* fields
# too), and a build beside it (600).
mkdir -p "$tmp/snap/500" "$tmp/snap/501" "$tmp/snap/600"
echo "cpu  100 0 100 1000 50 0 0 20 0 0" >"$tmp/snap/stat"
echo "1.50 1.00 0.50 1/100 999" >"$tmp/snap/loadavg"
stat_line() { # PID COMM PPID UTIME STIME CUTIME CSTIME
	echo "$1 ($2) S $3 $1 $1 0 -1 0 0 0 0 0 $4 $5 $6 $7 20 0 1 0 100 0 0"
}
stat_line 500 bash 1 10 5 0 0 >"$tmp/snap/500/stat"
stat_line 501 "my (odd) name" 500 30 10 2 1 >"$tmp/snap/501/stat"
stat_line 600 cc1 1 900 100 0 0 >"$tmp/snap/600/stat"
ktap_test_result "host_snapshot: total, busy, steal, the tree of 500 (not 600), load" \
	[ "$(host_snapshot "$tmp/snap" 500 | cut -d' ' -f2-)" = "1270 220 20 58 1.50" ]

cat >"$tmp/rounds" <<R
boot 100.0 1000 100 0 10 0.5
round 1 110.0 1200 250 10 150 1.0
round 2 130.0 1400 450 10 200 2.0
end 131.0 1410 455 10 205 2.0
R
ktap_test_result "round_segments: length, others (busy less the benchmark's), steal, load" \
	[ "$(round_segments "$tmp/rounds" | paste -sd'|')" = "boot 10 5 5.0 1.0|round 1 20 75 0.0 2.0|round 2 1 0 0.0 2.0" ]
rounds_record imu-tcg "$tmp/rounds" >"$tmp/rec"
ktap_test_result "rounds_record: every round said, the one others took 75 % of flagged" \
	eval 'grep -q "round 1 20 s: others 75 %, steal 0.0 %, load 2.0;" "$tmp/rec" &&
	      grep -q "^- \*\*shared the host\*\* .*: imu-tcg: round 1 (75 %)\$" "$tmp/rec"'
WQRT_BENCH_MAX_BUSY=80 rounds_record imu-tcg "$tmp/rounds" >"$tmp/rec"
ktap_test_result "...no flag when every round's others stay under WQRT_BENCH_MAX_BUSY" \
	eval '[ "$(wc -l <"$tmp/rec")" = 1 ] && ! grep -q "shared the host" "$tmp/rec"'

# round_watch on a TAP log the guest writes as it goes: its rounds, not
# the other "O" lines (vm-reserve.sh's "O SLAB"), in order
tap=$tmp/tap.log
WQRT_BENCH_PROC=$tmp/snap round_watch_start "$tap" "$tmp/watch"
sleep 0.6
printf 'I kernel x\r\nO 1 fifo default\r\nO SLAB kmalloc-64 1 2\r\n' >"$tap"
sleep 0.8
printf 'O 2 default fifo\r\n' >>"$tap"
sleep 0.8
round_watch_stop "$tmp/watch"
ktap_test_result "round_watch: boot, round 1, round 2, end, and no stop file left" \
	eval '[ "$(awk "{ print \$1 == \"round\" ? \$1 \" \" \$2 : \$1 }" "$tmp/watch" | paste -sd,)" = "boot,round 1,round 2,end" ] &&
	      [ ! -e "$tmp/watch.stop" ]'
ktap_finished
