# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh latency: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# On the production-like kernel (kernel/configs/prod.config: -O2,
# HZ=1000, no lock debugging, the timerlat and osnoise tracers).
kernel=${LATENCY_KERNEL:-prod}
stage=$(build_flavour "$kernel")
rounds=${ROUNDS:-5} count=${COUNT:-5000} period_us=${PERIOD_US:-1000}
# A period later than the next period's expiry: the next item is due
# while this one has not started, seed 004's duplicated IMU sample
# (its "2 % late"). Under TCG the timer's own lateness (p99 about
# 4 ms, the same in every variant and in timerlat) dominates the
# end-to-end miss rate; the workqueue's own share, queue_work() to
# start above one period, is the column that tells the variants
# apart (default 2 ms at p99, fifo 0.2 ms in the first full run).
# On hardware set DEADLINE_US to the application's own budget.
deadline_us=${DEADLINE_US:-$period_us}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
variants=${VARIANTS:-default nice-20 fifo50 fifo50-private-reserve kthread50 timerlat50 cyclictest50}
orders "$seed" "$rounds" "$variants" >"$stage/order"
cp "$top/selftests/bench/latency/vm-latency.sh" "$stage/vm-latency.sh"
# the script's settings travel in its first lines
sed -i "s/^COUNT=.*/COUNT=$count/; s/^PERIOD_US=.*/PERIOD_US=$period_us/; s/^ROUNDS=.*/ROUNDS=$rounds/; s/^VARIANTS=.*/VARIANTS=\"$variants\"/" \
	"$stage/vm-latency.sh"
bench_lock bench-latency
load_before=$(cat /proc/loadavg)
boot "$kernel" "$stage/vm-latency.sh" latency \
	$((1200 + rounds * $(echo "$variants" | wc -w) * (count * period_us / 1000000 + 15)))
load_after=$(cat /proc/loadavg)
bench_unlock
log=$out/latency.log
# CRLF from the TAP UART; rtla osnoise colours its header
sed -i -e 's/\r$//' -e 's/\x1b\[[0-9;]*m//g' "$log"
grep -q '^I kernel' "$log" || { cat "$out/latency.vmout"; exit 1; }
grep '^E ' "$log" && { cat "$out/latency.vmout"; exit 1; }
date=$(date -u +%Y-%m-%d)
table=$out/latency.md
d=$out/latency
rm -rf "$d"
mkdir -p "$d"
{
	echo "# Dispatch latency under load ($date)"
	echo
	echo "A hard hrtimer fires every $period_us us, $count periods per variant"
	echo "and round, and queues one work item per period from a ring (as an"
	echo "interrupt handler would): latency is the expiry the timer was"
	echo "programmed for to the first line of the work function, every period"
	echo "counted; a period whose ring slot was still in flight is a skip and"
	echo "a miss. The deadline is $deadline_us us (DEADLINE_US, by default one"
	echo "period: later than that, the next item is due before this one ran,"
	echo "seed 004's duplicated sample). timerlat50: rtla timerlat's thread at"
	echo "FIFO 50, the same interval (expiry to a FIFO 50 thread running) on"
	echo "every vCPU under the same load: the floor. cyclictest50: a reference"
	echo "only (it measures to the return to user space). $rounds rounds, each in"
	echo "its own random order (seed $seed)."
	echo
	echo "## Environment"
	echo
	env_record latency "$kernel" "$load_before" "$load_after"
	echo
	echo '```'
	grep '^I ' "$log" | cut -c3-
	grep '^O ' "$log" | sed 's/^O /round /'
	grep '^V ' "$log" | cut -c3- || true
	echo '```'
	echo
	echo "## The VM's own noise (rtla osnoise, no load)"
	echo
	echo '```'
	grep '^N ' "$log" | cut -c3- || echo "not measured"
	echo '```'
	echo
	DEADLINE_US=$deadline_us PERIOD_US=$period_us SEED=$seed VARIANTS=$variants \
		python3 "$top/selftests/bench/latency/latency-stats.py" "$log" "$d"
} >"$table"
# Survival curves: the share of periods at least this late, log y, so
# the tail above p99 is not squeezed into the top pixel.
plotted=
for v in $variants; do
	[ -s "$d/surv-$v.dat" ] && plotted="$plotted $v"
done
gnuplot <<GP
set terminal pngcairo size 1000,600 noenhanced
set output "$out/latency.png"
set title "expiry to work start under load: share of periods at least this late (1-CDF)"
set logscale xy
set xlabel "latency (us)"
set ylabel "share of periods"
set arrow from $deadline_us, graph 0 to $deadline_us, graph 1 nohead dt 2
set label "deadline $deadline_us us" at $deadline_us, graph 0.04 offset 1,0
set key top right
set grid
plot for [v in "${plotted# }"] "$d/surv-".v.".dat" using 1:2 with steps lw 2 title v
GP
res=$top/selftests/bench/results
cp "$table" "$res/latency-$date.md"
cp "$out/latency.png" "$res/latency-$date.png"
grep -E '^[IOSHBNV] ' "$log" | xz -9 >"$res/latency-$date.raw.xz"
cat "$table"
echo "bench: table $table, plot $out/latency.png, raw samples $log (copies under selftests/bench/results/latency-$date.*)"
