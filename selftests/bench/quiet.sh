# SPDX-License-Identifier: GPL-2.0
#
# quiet.sh: is the host quiet enough for a latency benchmark? Sourced by
# run.sh (and by test-quiet.sh, which runs its functions on fake /proc
# trees). A latency benchmark boots a guest whose vCPU threads want the
# host's CPUs to themselves; beside another workload it measures the
# contention, not the kernel: the IMU run whose TCG mode shared the host
# with a kernel build had 97 to 100 % of its frames late in every variant.
#
# Busy means any of:
#   - another QEMU (qemu-system-*): a second guest takes CPUs away;
#   - a compiler or linker (cc1, cc1plus, rustc, ld, ld.bfd, ld.gold): a
#     build, which takes every CPU it is given;
#   - more than WQRT_BENCH_MAX_BUSY % (default 25) of the host's CPU time
#     busy (not idle, not iowait) over WQRT_BENCH_QUIET_SAMPLE_S seconds
#     (default 3). On a 2-CPU host 25 % is half a CPU, a quarter of what a
#     2-vCPU guest wants; this 2-CPU host measured 0 % idle (three
#     checks) and 50 % with one CPU-bound process beside it (yes >
#     /dev/null), a build or a second guest takes more: the line sits far
#     from both.
# The 1-minute load average is not used: it still counts the benchmark's
# own previous boot for a minute after it ended.
#
# WQRT_BENCH_FORCE=1 runs anyway; the result says it was forced and why
# (quiet_record).

# busy_pct BEFORE AFTER: % of CPU time busy between two "cpu" lines of
# /proc/stat (the line without its label: user nice system idle iowait
# irq softirq steal ...); 0 when no time passed
busy_pct() {
	echo "$1 | $2" | awk -F'|' '{
		n = split($1, a, " "); split($2, b, " "); t = 0
		for (i = 1; i <= n; i++) t += b[i] - a[i]
		idle = (b[4] - a[4]) + (b[5] - a[5])
		printf "%d", (t > 0 ? 100 * (t - idle) / t : 0)
	}'
}

# cpu_line PROC: the "cpu" line of PROC/stat, without its label
cpu_line() {
	awk '$1 == "cpu" { $1 = ""; sub(/^ /, ""); print; exit }' "$1/stat"
}

# busy_procs PROC [EXCEPT_PID...]: "NAME PID" of every process of PROC
# that makes the host busy (another QEMU, a compiler or linker), one a
# line
busy_procs() {
	local proc=$1 d comm pid
	shift
	for d in "$proc"/[0-9]*; do
		pid=${d##*/}
		case " $* " in *" $pid "*) continue ;; esac
		comm=$(cat "$d/comm" 2>/dev/null) || continue
		case "$comm" in
		qemu-system-* | cc1 | cc1plus | rustc | ld | ld.bfd | ld.gold)
			echo "$comm $pid" ;;
		esac
	done
}

# cpu_busy_pct PROC: % of the host's CPU time busy over
# WQRT_BENCH_QUIET_SAMPLE_S seconds (default 3)
cpu_busy_pct() {
	local s0
	s0=$(cpu_line "$1")
	sleep "${WQRT_BENCH_QUIET_SAMPLE_S:-3}"
	busy_pct "$s0" "$(cpu_line "$1")"
}

# host_busy_reasons PROC PCT: why the host is busy, one reason a line, or
# nothing when it is quiet; PCT is its busy share (cpu_busy_pct)
host_busy_reasons() {
	local proc=$1 pct=$2 max=${WQRT_BENCH_MAX_BUSY:-25} procs
	procs=$(busy_procs "$proc" "$$" | sort -k1,1 -u | head -n 5)
	[ -z "$procs" ] || echo "$procs" | while read -r name pid; do
		echo "$name is running (pid $pid)"
	done
	[ "$pct" -le "$max" ] ||
		echo "the host's CPUs were $pct % busy over ${WQRT_BENCH_QUIET_SAMPLE_S:-3} s (more than $max %, WQRT_BENCH_MAX_BUSY)"
}

# host_quiet WHO RECORD: return if the host is quiet; else, unless
# WQRT_BENCH_FORCE=1, say why and exit 2. RECORD (a file) gets the
# verdict, which quiet_record puts in every result of the run.
host_quiet() {
	local who=$1 record=$2 proc=${WQRT_BENCH_PROC:-/proc} pct reasons
	pct=$(cpu_busy_pct "$proc")
	reasons=$(host_busy_reasons "$proc" "$pct")
	if [ -z "$reasons" ]; then
		echo "quiet: $pct % busy over ${WQRT_BENCH_QUIET_SAMPLE_S:-3} s, no other QEMU, no compiler ($(date -u +%H:%M:%S) UTC, $who)" >>"$record"
		return 0
	fi
	if [ "${WQRT_BENCH_FORCE:-0}" = 1 ]; then
		echo "$who: the host is busy, running anyway (WQRT_BENCH_FORCE=1):" >&2
		echo "$reasons" | sed 's/^/  /' >&2
		echo "FORCED on a busy host ($(date -u +%H:%M:%S) UTC, $who): $(echo "$reasons" | paste -sd';' | sed 's/;/; /g')" >>"$record"
		return 0
	fi
	{
		echo "$who: the host is busy; a latency benchmark beside another workload measures the contention, not the kernel:"
		echo "$reasons" | sed 's/^/  /'
		echo "Wait until it is over, or run anyway with WQRT_BENCH_FORCE=1 (the result then says it was forced)."
	} >&2
	exit 2
}

# quiet_record RECORD: the markdown lines of the host's verdicts for a
# result, a forced run first
quiet_record() {
	[ -s "$1" ] || return 0
	if grep -q '^FORCED' "$1"; then
		echo "- **forced run on a busy host**: $(grep '^FORCED' "$1" | head -n 1 | sed 's/^FORCED on a busy host //')"
	fi
	echo "- host quiet checks: $(grep -c '^quiet' "$1") passed, $(grep -c '^FORCED' "$1") forced; the last: $(tail -n 1 "$1")"
}
