# SPDX-License-Identifier: GPL-2.0
#
# quiet.sh: is the host quiet enough for a latency benchmark? Sourced by
# lib.sh for every VM benchmark, by the board runner (and by test-quiet.sh,
# which runs its functions on fake /proc trees). A latency benchmark
# boots a guest whose vCPU threads want the host's CPUs to themselves;
# beside another workload it measures the
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

# The host during each round. A round is what a benchmark compares its
# variants over: a boot of its own (enqueue, flush, reserve, cost,
# reaction) or a round inside one boot, which the guest opens with an
# "O ROUND ..." line on its TAP UART (latency, scenarios, burst, imu,
# gpu). The check before a boot cannot see a build that starts during it;
# these records can. A round's record: its length, the share of the
# host's CPU time taken by processes other than the benchmark's own
# (others), the share the hypervisor took from this host (steal), and
# the 1-minute load average at its end (which counts the guest's vCPUs).

# host_snapshot PROC ROOT: "EPOCH TOTAL BUSY STEAL OURS LOAD1": the host's
# CPU time (user to steal, the guest fields are inside user and nice),
# the busy part of it (not idle, not iowait), the stolen part, and the CPU
# time of ROOT's process tree (ROOT and its live descendants, each with
# its reaped children), all in USER_HZ ticks
host_snapshot() {
	local proc=$1 root=$2 cpu tree
	cpu=$(cpu_line "$proc" | awk '{
		t = 0; for (i = 1; i <= 8; i++) t += $i
		printf "%d %d %d", t, t - $4 - $5, $8 }')
	# the command name may hold spaces and parentheses: the fields that
	# matter come after the last ")"
	# (a process that exits while cat reads fails its read: not an error)
	tree=$({ cat "$proc"/[0-9]*/stat 2>/dev/null || true; } | awk -v root="$root" '{
		pid = $1; rest = substr($0, match($0, /\) [^)]*$/) + 2)
		split(rest, f, " ")
		ppid[pid] = f[2]; ticks[pid] = f[12] + f[13] + f[14] + f[15]
	} END {
		sum = 0
		for (p in ticks) {
			for (q = p; q + 0 > 1 && q != root; q = ppid[q]);
			if (q == root) sum += ticks[p]
		}
		print sum
	}')
	echo "$(date +%s.%N | cut -c1-14) $cpu $tree $(cut -d' ' -f1 "$proc/loadavg")"
}

# round_watch PROC ROOT TAP OUT: append "boot SNAPSHOT" to OUT, then
# "round N SNAPSHOT" for each "O N ..." line the guest writes to TAP, until
# the file OUT.stop appears; then "end SNAPSHOT". TAP need not exist yet.
round_watch() {
	local proc=$1 root=$2 tap=$3 out=$4 seen=0 r stop=
	echo "boot $(host_snapshot "$proc" "$root")" >>"$out"
	while :; do
		# the stop file before the last read: every line written before
		# it is read
		[ ! -e "$out.stop" ] || stop=1
		if [ -f "$tap" ]; then
			while read -r _ r _; do
				seen=$((seen + 1))
				echo "round $r $(host_snapshot "$proc" "$root")" >>"$out"
			done < <(grep -a -E '^O [0-9]+ ' "$tap" | tail -n +$((seen + 1)))
		fi
		[ -z "$stop" ] || break
		sleep 0.5
	done
	echo "end $(host_snapshot "$proc" "$root")" >>"$out"
}

# round_watch_start TAP OUT / round_watch_stop OUT: round_watch in the
# background around a boot, the benchmark's own processes being this
# shell's tree
round_watch_start() {
	rm -f "$2" "$2.stop"
	round_watch "${WQRT_BENCH_PROC:-/proc}" "$$" "$1" "$2" &
	round_watch_pid=$!
}
round_watch_stop() {
	touch "$1.stop"
	wait "$round_watch_pid" 2>/dev/null || true
	rm -f "$1.stop"
}

# round_segments OUT: one line a segment between two snapshots of OUT:
# "LABEL SECONDS OTHERS_PCT STEAL_PCT LOAD1_AT_ITS_END"; the segment
# before the first round is "boot" (the guest booting, the benchmark's
# setup), the whole boot when the guest opened no round
round_segments() {
	awk '{
		if ($1 == "round") { lab = "round " $2; $1 = $2 = "" } else { lab = $1; $1 = "" }
		n = split($0, v, " ")
		if (have) {
			dt = v[2] - p[2]
			others = dt > 0 ? 100 * ((v[3] - p[3]) - (v[5] - p[5])) / dt : 0
			if (others < 0) others = 0
			steal = dt > 0 ? 100 * (v[4] - p[4]) / dt : 0
			printf "%s %.0f %.0f %.1f %s\n", plab, v[1] - p[1], others, steal, v[6]
		}
		for (i = 1; i <= n; i++) p[i] = v[i]
		plab = lab; have = 1
	}' "$1"
}

# rounds_record NAME OUT: the markdown line of OUT's segments, and a line
# that says which rounds shared the host (others above
# WQRT_BENCH_MAX_BUSY %, the threshold of the check before a boot)
rounds_record() {
	local name=$1 out=$2 max=${WQRT_BENCH_MAX_BUSY:-25} segs busy
	[ -s "$out" ] || return 0
	segs=$(round_segments "$out")
	echo "- host per round of $name (length; others: CPU time of processes not the benchmark's; steal; load at its end): $(
		echo "$segs" | awk '{
			lab = $1 == "round" ? "round " $2 : $1; if ($1 == "round") $2 = ""
			printf "%s%s %s s: others %s %%, steal %s %%, load %s", sep, lab, $(NF - 3), $(NF - 2), $(NF - 1), $NF
			sep = "; " }')"
	busy=$(echo "$segs" | awk -v max="$max" '$(NF - 2) > max {
		lab = $1 == "round" ? "round " $2 : $1
		printf "%s%s (%s %%)", sep, lab, $(NF - 2); sep = ", " }')
	[ -z "$busy" ] ||
		echo "- **shared the host** (others above $max %, WQRT_BENCH_MAX_BUSY): $name: $busy"
}

# guest_default SCRIPT NAME: the default of a guest script's setting, its
# "NAME=${NAME:-DEFAULT}" line. A benchmark's guest script (vm-imu.sh,
# gpu-submit/vm.sh) is the one place its default variant list is written;
# the VM's driver and the board's runner, which both source this file,
# read it from there.
guest_default() {
	sed -n "s/^$2=\${$2:-\(.*\)}\$/\1/p" "$1"
}
