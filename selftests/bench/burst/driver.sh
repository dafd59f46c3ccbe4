# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh burst: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# make bench-burst (and the end of make bench-latency): worker
# creation on the production-like kernel (BURST_KERNEL, prod), one
# boot, selftests/bench/burst/vm-burst.sh: bursts of BURST_K (8) items on
# private workqueues, the first after each pool's idle cull and
# BURST_WARM (5) warm ones after it, three variants interleaved in a
# seeded random order in each of ROUNDS (5) rounds: fifo 50 without a
# reserve, fifo 50 with nr_idle_extra BURST_K, and policy normal with
# the kworkers chrt'ed to FIFO 50 by name by wqrtd (the stock way);
# POOLS (3) workqueues per variant and round. A round comes every
# CULL_WAIT / 2 (155 s) or so after the first CULL_WAIT (310 s): 5
# rounds take about 18 min. Intervals resample whole rounds
# (rounds-ci.py), differences between variants too, the rounds drawn
# together. SUFFIX names the result files (burst-DATE-SUFFIX.*);
# TABLE_ONLY=1 makes the tables again from the last run's log, no VM.
kernel=${BURST_KERNEL:-prod}
rounds=${ROUNDS:-5} burst_k=${BURST_K:-8} burst_warm=${BURST_WARM:-5}
pools=${POOLS:-3} cull_wait=${CULL_WAIT:-310} cull_extra=${CULL_EXTRA:-120}
for v in rounds burst_k burst_warm pools cull_wait; do
	[[ "${!v}" =~ ^[1-9][0-9]{0,3}$ ]] || {
		echo "bench-burst: ${v^^}=${!v}: a positive integer, please" >&2
		exit 2
	}
done
# wqrt_bench.c's NR_CULL_WQ: two sets of 3 x POOLS workqueues
[ "$pools" -le 3 ] || { echo "bench-burst: POOLS=$pools: at most 3" >&2; exit 2; }
log=$out/burst.log
if [ "${TABLE_ONLY:-0}" = 1 ]; then
	stage=$out/stage-$kernel
	seed=$(cat "$out/burst.seed")
else
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	stage=$(build_flavour "$kernel")
	orders "$seed" "$rounds" "$(seq -s ' ' 0 $((3 * pools - 1)))" >"$stage/burst-order"
	cp "$top/selftests/bench/burst/vm-burst.sh" "$stage/vm-burst.sh"
	# the script's settings travel in its first lines
	sed -i "s/^ROUNDS=.*/ROUNDS=$rounds/; s/^BURST_K=.*/BURST_K=$burst_k/;
		s/^BURST_WARM=.*/BURST_WARM=$burst_warm/; s/^POOLS=.*/POOLS=$pools/;
		s/^CULL_WAIT=.*/CULL_WAIT=$cull_wait/; s/^CULL_EXTRA=.*/CULL_EXTRA=$cull_extra/" \
		"$stage/vm-burst.sh"
	bench_lock bench-burst
	start=$(date +%s)
	load_before=$(cat /proc/loadavg)
	echo "bench-burst: $kernel, $rounds rounds, about $(((cull_wait + (rounds - 1) * (cull_wait / 2 + 15)) / 60 + 2)) min"
	boot "$kernel" "$stage/vm-burst.sh" burst \
		$((900 + cull_wait + cull_extra + rounds * (cull_wait / 2 + cull_extra + 60)))
	load_after=$(cat /proc/loadavg)
	bench_unlock
	sed -i -e 's/\r$//' "$log"
	grep -q '^I done' "$log" && ! grep -q '^E ' "$log" || {
		grep '^E ' "$log" >&2 || cat "$out/burst.vmout" >&2
		echo "bench-burst: the boot did not finish its rounds" >&2
		exit 1
	}
	echo "$seed" >"$out/burst.seed"
	echo "$(( ($(date +%s) - start) / 60 ))" >"$out/burst.minutes"
	env_record burst "$kernel" "$load_before" "$load_after" >"$out/burst.env"
fi
date=$(date -u +%Y-%m-%d)
d=$out/burst
rm -rf "$d"
mkdir -p "$d"
# the bursts after an idle wait that no cull ended are -notculled;
# named as the results' copy (rounds-ci.py heads its tables with it)
raw=$d/burst-$date${SUFFIX:+-$SUFFIX}.raw
python3 "$top/selftests/bench/latency-scenarios/scenarios-stats.py" relabel "$log" |
	grep -E '^[IOBPWKV] ' >"$raw"
rk=burst-r$burst_k
pairs="burst-r0-culled:$rk-culled burst-r0-warm:$rk-warm burst-chrt-culled:burst-r0-culled burst-chrt-warm:burst-r0-warm"
table=$out/burst.md
{
	echo "# Worker creation: bursts after the idle cull, with and without a reserve, the stock way and the series' ($date)"
	echo
	echo "Command: \`$(for v in ROUNDS BURST_K BURST_WARM POOLS CULL_WAIT CULL_EXTRA BURST_KERNEL SUFFIX; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-burst\`;"
	echo "$(cat "$out/burst.minutes") min of boot. selftests/bench/burst/vm-burst.sh says what the boot does."
	echo
	echo "One boot of $kernel under the load of the latency benchmarks (a nice-0"
	echo "CPU hog per vCPU, a fork loop, a pipe stream). A burst: $burst_k items at"
	echo "once, each sleeping 2 ms, queued from a FIFO 50 kthread with interrupts"
	echo "off from each item's stamp to its queue_work(); a sample is the stamp"
	echo "to the item's start. Every workqueue has a pool of its own (private 1):"
	echo
	echo "- burst-r0: policy fifo, rtprio 50, no reserve: the series' way, every"
	echo "  kworker the pool creates born FIFO 50;"
	echo "- $rk: the same with nr_idle_extra $burst_k;"
	echo "- burst-chrt: policy normal, its kworkers chrt'ed to FIFO 50 by name"
	echo "  once they exist: the stock way, what a user of plain 6.12 can do"
	echo "  (wqrtd's [kworker:] sections, one per pool, as wqrtd on plain 6.12 or"
	echo "  tuned do it; wqrtd runs from before the first bursts to the end)."
	echo
	echo "-culled: the first burst after the pool's idle cull (idle at least"
	echo "$cull_wait s, and fewer workers than its last bursts left); -notculled: the"
	echo "same wait, no cull yet; -warm: $burst_warm bursts 50 ms apart, 50 ms after it;"
	echo "-first: each new pool's very first burst, before the rounds. $pools"
	echo "workqueues per variant in each of two sets used in alternate rounds;"
	echo "in each round its set's $((3 * pools)) workqueues in an order drawn from seed"
	echo "$seed (the O lines)."
	echo
	echo "## Environment"
	echo
	cat "$out/burst.env"
	echo "- kernel .config: burst-$date${SUFFIX:+-$SUFFIX}-$kernel.config.xz beside this file"
	echo
	echo '```'
	grep -E '^I ' "$raw" | cut -c3-
	grep -E '^O ' "$raw" | sed 's/^O \([^ ]*\) \([^ ]*\) /round \1, set \2: /'
	grep -E '^V ' "$raw" | cut -c3- || true
	echo '```'
	echo
	SEED=1 BURST_K=$burst_k PAIRS=$pairs \
		python3 "$top/selftests/bench/rounds-ci.py" "$raw" | sed 1,2d
	SEED=$seed python3 "$top/selftests/bench/latency-scenarios/scenarios-stats.py" "$raw" "$d"
} >"$table"
{
	survival_plot_head 1400,600 "$out/burst.png" 1,2 \
		"bursts of $burst_k under load, stamp to start: share at least this late (1-CDF)" 1000
	plot_set "first burst after the idle cull" burst-r0-culled "$rk-culled" burst-chrt-culled
	plot_set "warm bursts" burst-r0-warm "$rk-warm" burst-chrt-warm
	echo "unset multiplot"
} | gnuplot
res=$top/selftests/bench/results
base=$res/burst-$date${SUFFIX:+-$SUFFIX}
cp "$table" "$base.md"
cp "$out/burst.png" "$base.png"
xz -9 <"$raw" >"$base.raw.xz"
save_config "$kernel" "$base-$kernel.config.xz"
cat "$table"
echo "bench: table $table, plot $out/burst.png (copies under $base.*)"
