# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh imu: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# seed 004 (issue 32.0-1): IMU frames through the 8250's flip buffer
# workqueue (ttyS-serial_8250) in loopback, counted as the IMU's user
# counts: frames later than LIMIT_US (2 ms) or lost, the longest gap
# between frames at the reader, lost frames; per variant and round,
# the variants interleaved in a seeded order. One boot per QEMU mode
# (MODES): host, the frames from imu_sender on the host into the
# guest's ttyS2 at the host's clock (no guest writer: the reader's gaps,
# imu_uart -R; multi-threaded TCG); icount, the guest's clock on the
# instructions it executes
# (-icount ICOUNT), so that the host's scheduling of the vCPU threads
# no longer sets the tail and the guest's own scheduling does; tcg,
# the usual multi-threaded TCG whose guest clock is the host's. The
# prod flavour (production-like, kernel/configs/prod.config) has the
# 8250 (x86_64.config) and the trace events; on a kernel without them
# vm-imu.sh says so and the queue_work -> flush_to_ldisc columns say
# "not measured". The boots hold /tmp/wqrt-bench.lock.
kernel=${IMU_KERNEL:-prod}
stage=$(build_flavour "$kernel")
gcc -static -O2 -Wall -Wextra -Werror -pthread \
	-o "$stage/imu_uart" "$top/selftests/bench/imu/imu_uart.c"
# 1 kHz of 8-byte frames: what a 115200-baud line carries with room
# to spare (8000 of 11520 bytes/s). 32-byte frames at 1 kHz (more
# than such a line carries) saturated the emulated UART path of the
# debug kernel: results/imu-2026-11-30-1khz-saturated.*; at 100 Hz
# no variant had a late frame (imu-2026-12-01.*)
rounds=${ROUNDS:-5} count=${COUNT:-1500} period_us=${PERIOD_US:-1000}
frame_len=${FRAME_LEN:-8} limit_us=${LIMIT_US:-2000}
modes=${MODES:-host tcg icount icount1}
# shift=0: a guest nanosecond per instruction, the fastest guest
# (500 MIPS a vCPU, the two sharing the clock); sleep=off: an idle
# guest's clock jumps to its next timer instead of following the
# host's. shift=auto follows the host's speed instead, and on the
# loaded host of the first probe made a guest too slow to send
# 1000 frames a second (the writer seconds behind)
icount=${ICOUNT:-shift=0,sleep=off}
# the icount boot's wall time, at most (ICOUNT_TIMEOUT s): runs it
# cuts short are left out, and the tables say how many rounds ran
icount_timeout=${ICOUNT_TIMEOUT:-1000}
# the default list is vm-imu.sh's, written there only
variants=${VARIANTS:-$(guest_default "$top/selftests/bench/imu/vm-imu.sh" VARIANTS)}
# SWITCHES=all: every task's switches traced, to say what ran on a late
# start's CPU (vm-imu.sh)
switches=${SWITCHES:-kworkers}
case "$switches" in
all | kworkers) ;;
*) echo "bench-imu: SWITCHES=$switches: all or kworkers, please" >&2; exit 2 ;;
esac
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
# the shipped variant: the attributes conf/conf.d/50-uart-imu.conf
# sets once uncommented (its profile's keys, and cpumask=irq for the
# "cpumask = irq:NAME" of its 8250 section), read from the file as
# shipped so that the run measures what a user installs
shipped=$("$top/selftests/bench/shipped-profile.sh" \
	"$top/conf/conf.d/50-uart-imu.conf" uart-imu ttyS-serial_8250) || exit 1
echo "bench-imu: shipped = $shipped (conf/conf.d/50-uart-imu.conf)" >&2
for v in rounds count period_us frame_len limit_us; do
	[[ "${!v}" =~ ^[1-9][0-9]{0,7}$ ]] || {
		echo "bench-imu: ${v^^}=${!v}: a positive integer, please" >&2
		exit 2
	}
done
orders "$seed" "$rounds" "$variants" >"$stage/order"
cp "$top/selftests/bench/imu/vm-imu.sh" "$stage/vm-imu.sh"
cp "$top/selftests/bench/imu/imu-trace.awk" "$stage/"
# the script's settings travel in its first lines
sed -i "s/^ROUNDS=.*/ROUNDS=$rounds/; s/^COUNT=.*/COUNT=$count/;
	s/^PERIOD_US=.*/PERIOD_US=$period_us/; s/^FRAME_LEN=.*/FRAME_LEN=$frame_len/;
	s/^TIMERLAT_S=.*/TIMERLAT_S=${TIMERLAT_S:-2}/;
	s/^SWITCHES=.*/SWITCHES=$switches/;
	s/^VARIANTS=.*/VARIANTS=\"$variants\"/;
	s/^SHIPPED=.*/SHIPPED=\"$shipped\"/" "$stage/vm-imu.sh"
# the host mode's guest reads what imu_sender sends from the host
sed 's/^FEED=.*/FEED=1/' "$stage/vm-imu.sh" >"$stage/vm-imu-host.sh"
gcc -O2 -Wall -Wextra -Werror -o "$stage/imu_sender" "$top/selftests/bench/imu/imu_sender.c"
date=$(date -u +%Y-%m-%d)
res=$top/selftests/bench/results
base=imu-$date${TAG:+-$TAG}
d=$out/imu
rm -rf "$d"
mkdir -p "$d"
raw=$d/imu.raw
: >"$raw"
bench_lock bench-imu
for m in $modes; do
	t=$((900 + 6 * rounds * $(echo "$variants" | wc -w) * (count * period_us / 1000000 + 10)))
	script=$stage/vm-imu.sh uart2='' sender='' smp=2
	case "$m" in
	icount) qargs="-icount $icount" t=$icount_timeout ;;
	# one vCPU: the guest's scheduling order alone, no wakeup from
	# another CPU and no round-robin slice between vCPUs
	icount1) qargs="-icount $icount" t=$icount_timeout smp=1 ;;
	tcg) qargs= ;;
	host)
		# the frames from outside, on the host's clock: imu_sender
		# into ttyS2's socket backend for the whole boot
		qargs='' script=$stage/vm-imu-host.sh
		uart2=$(mktemp -d /tmp/wqrt-imu.XXXXXX)/uart2
		# SCHED_FIFO on the host: at SCHED_OTHER beside the two busy
		# vCPU threads it sent 7.6 % of its frames more than a period
		# late (imu-2026-12-05's first host boot), a floor under every
		# variant that is the host's, not the guest's
		chrt -f "${SENDER_PRIO:-20}" "$stage/imu_sender" -p "$period_us" -l "$frame_len" -w 120 "$uart2" \
			2>"$out/imu-host.sender" &
		sender=$!
		;;
	*) echo "bench-imu: MODES: host, tcg, icount or icount1, not $m" >&2; exit 2 ;;
	esac
	echo "bench-imu: $m: $rounds rounds of $variants, $count frames each" >&2
	load_before=$(cat /proc/loadavg) t0=$(date +%s)
	WQRT_VM_UART2=$uart2 WQRT_VM_SMP=$smp \
	WQRT_VM_QEMU_ARGS="${WQRT_VM_QEMU_ARGS:+$WQRT_VM_QEMU_ARGS }$qargs" \
		boot "$kernel" "$script" "imu-$m" "$t" </dev/null
	if [ -n "$sender" ]; then
		# QEMU closed the socket: the sender ends on its own
		# (and then kill fails: set -e)
		kill "$sender" 2>/dev/null || true
		wait "$sender" 2>/dev/null || true
		rm -rf "$(dirname "$uart2")"
	fi
	load_after=$(cat /proc/loadavg)
	log=$out/imu-$m.log
	# the TAP UART's lines end in CRLF
	sed -i 's/\r$//' "$log"
	grep -q '^I kernel' "$log" || { cat "$out/imu-$m.vmout"; exit 1; }
	grep '^E ' "$log" && { cat "$out/imu-$m.vmout"; exit 1; }
	{
		env_record "imu-$m" "$kernel" "$load_before" "$load_after"
		echo "- QEMU: ${qargs:-multi-threaded TCG, no -icount}${WQRT_VM_QEMU_ARGS:+ $WQRT_VM_QEMU_ARGS}; kernel command line adds ${WQRT_VM_APPEND}"
		echo "- the boot took $(( $(date +%s) - t0 )) s of wall time"
		[ -z "$sender" ] || echo "- imu_sender on the host, for the whole boot (dropped: frames the guest's UART could not take, while no run read it): $(grep '^S ' "$out/imu-host.sender" || echo "no summary, it ended early")"
	} >"$d/env-$m"
	# the guest's lines (a capital letter and a space: vm-imu.sh's
	# protocol), behind the mode's name; imu-stats.py picks its kinds
	grep -E '^[A-Z] ' "$log" | sed "s/^/$m /" >>"$raw"
done
bench_unlock
table=$out/imu.md
{
	echo "# IMU frames over a UART under load ($date)"
	echo
	echo "Seed 004's case, issue 32.0-1: $frame_len-byte frames, one every $period_us us from"
	echo "an absolute-time clock (a late writer still sends every frame, due at"
	echo "its scheduled time: no period is skipped), through the VM's third"
	echo "16550 (ttyS2) in loopback, so every byte goes through the UART's IRQ"
	echo "thread and the 8250's flip buffer workqueue ttyS-serial_8250"
	echo "(flush_to_ldisc) to a reader; writer SCHED_FIFO 40 and reader"
	echo "SCHED_FIFO 30 on CPU 0, a nice-0 CPU hog per vCPU, a fork loop and a"
	echo "pipe stream as load. $count frames per variant and round, $rounds rounds, each"
	echo "in its own random order drawn from seed $seed, one boot per QEMU mode."
	echo "Late: read more than $((limit_us / 1000)) ms after its write(), or lost (the host mode: a gap over"
	echo "$((limit_us / 1000)) ms at the reader); the writer's own wake-up is shown beside, never counted."
	echo
	echo "Command: \`$(for v in MODES ICOUNT ICOUNT_TIMEOUT ROUNDS COUNT PERIOD_US FRAME_LEN LIMIT_US TIMERLAT_S SWITCHES VARIANTS IMU_KERNEL TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-imu\`"
	echo
	echo "Variants (the workqueue's attributes and the kworkers' policies as"
	echo "each run saw them are the W lines of the raw samples):"
	echo
	echo "- default: ttyS-serial_8250 as the kernel makes it (normal, nice 0, every CPU);"
	echo "- nice-20-pin: nice -20 and cpumask the IRQ thread's CPU, what"
	echo "  mainline's flip workqueue (7.1, WQ_SYSFS) offers: the seed's own fix;"
	echo "- tuned-fifo20: every kworker/u* chrt'ed SCHED_FIFO 20 by name just"
	echo "  before the run, as tuned does on a stock kernel (the workqueue's"
	echo "  attributes untouched; kworkers born during the run stay normal);"
	echo "- wqrt: policy fifo, rtprio 20, private 1, nr_idle_extra 2, every CPU:"
	echo "  the series, everything else CFS;"
	echo "- wqrt-pin: the same, cpumask the IRQ thread's CPU;"
	echo "- seed-fifo20-pin: policy fifo, rtprio 20, cpumask the IRQ thread's CPU,"
	echo "  nothing else: the recipe that fixed seed 004's IMU;"
	echo "- shipped: conf/conf.d/50-uart-imu.conf as shipped, uncommented, read"
	echo "  from the file by run.sh: $shipped (cpumask=irq: the CPUs"
	echo "  of the port's interrupt, as its \"cpumask = irq:NAME\" resolves)."
	echo
	echo "Modes: host: multi-threaded TCG, the frames sent by imu_sender on"
	echo "the host, one a period on the host's clock, into ttyS2's socket: no"
	echo "guest writer and no guest timer on their path, the reader's gaps"
	echo "counted (imu_uart -R). tcg: multi-threaded TCG, the guest's clock the"
	echo "host's, the guest's writer in loopback; a vCPU thread the host does not"
	echo "run is guest time lost. icount: \`-icount $icount\`, 2 vCPUs on one"
	echo "host thread taking turns (a round-robin slice each), the guest's clock"
	echo "on the instructions it executes: the host's scheduling of QEMU no"
	echo "longer shows up as guest latency, the guest's own scheduling and the"
	echo "emulator's slice do. icount1: the same with 1 vCPU: the guest's"
	echo "scheduling order alone, no slice between vCPUs and no wakeup from"
	echo "another CPU (every variant then runs its work on the IRQ's CPU)."
	echo
	for m in $modes; do
		echo "## Environment: $m"
		echo
		cat "$d/env-$m"
		echo
		echo '```'
		awk -v m="$m" '$1 == m && $2 == "I" { $1 = $2 = ""; print substr($0, 3) }' "$raw"
		awk -v m="$m" '$1 == m && $2 == "O" { $1 = $2 = ""; print "round" substr($0, 2) }' "$raw"
		awk -v m="$m" '$1 == m && $2 == "V" { $1 = $2 = ""; print substr($0, 3) }' "$raw"
		echo '```'
		echo
	done
	echo "Each kernel's .config: selftests/bench/results/$base-$kernel.config.xz."
	echo
	MODES=$modes VARIANTS=$variants LIMIT_US=$limit_us PERIOD_US=$period_us \
		SEED=$seed python3 "$top/selftests/bench/imu/imu-stats.py" "$raw" "$d"
} >"$table"
# survival curves, one panel per mode: the share of frames at least
# this late, log y, the limit marked
# (modes with frame latencies: the host mode has gaps only)
pm=
for m in $modes; do
	ls "$d"/surv-"$m"-*.dat >/dev/null 2>&1 && pm="$pm $m"
done
nm=$(echo "$pm" | wc -w)
[ "$nm" -gt 0 ] && {
	echo "set terminal pngcairo size 1000,$((450 * nm)) noenhanced"
	echo "set output \"$out/imu.png\""
	echo "set multiplot layout $nm,1"
	for m in $pm; do
		echo "set title \"IMU frames through ttyS2 under load, $m: share of frames at least this late (1-CDF); lost frames not drawn\""
		echo "set logscale xy"
		echo "set xlabel \"write() to read() return (us)\""
		echo "set ylabel \"share of frames\""
		echo "unset arrow; unset label"
		echo "set arrow from $limit_us, graph 0 to $limit_us, graph 1 nohead dt 2"
		echo "set label \"limit $((limit_us / 1000)) ms\" at $limit_us, graph 0.9 offset 1,0"
		echo "set key bottom left"
		echo "set grid"
		printf 'plot '
		sep=
		for v in $variants; do
			[ -s "$d/surv-$m-$v.dat" ] || continue
			printf '%s"%s" using 1:2 with steps lw 2 title "%s"' "$sep" "$d/surv-$m-$v.dat" "$v"
			sep=', '
		done
		echo
	done
	echo "unset multiplot"
} | gnuplot
cp "$table" "$res/$base.md"
[ "$nm" -eq 0 ] || cp "$out/imu.png" "$res/$base.png"
xz -9 <"$raw" >"$res/$base.raw.xz"
save_config "$kernel" "$res/$base-$kernel.config.xz"
cat "$table"
echo "bench: table $table, plot $out/imu.png, raw samples $raw (copies under selftests/bench/results/$base.*)"
