# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # top, out, what: run.sh's and lib.sh's
#
# selftests/bench/run.sh latency-scenarios: this benchmark's driver, sourced by run.sh
# after lib.sh, whose functions it uses (build_flavour, boot, bench_lock,
# env_record, ...).
#
# Issue 18.6, the cases where wqrt's features should matter, on the
# prod kernel and on plain 6.12 of the same configuration
# (prod-plain), booted in turn; `make bench-latency` runs this after
# the base case. SCENARIOS selects groups (all by default; empty
# skips the part): rt (a FIFO hog at the profile's priority and
# below), noisy (a neighbour flooding the shared pool, with and
# without private), drivers (WQ_HIGHPRI, a kthread_worker, a
# threaded-handler-like FIFO thread), stock (plain 6.12 with wqrtd's
# [kworker:] mode). The controls (default, fifo50, timerlat50) are in
# every boot. vm-scenarios.sh says what each variant is. Worker
# creation (bursts after the idle cull, with and without a reserve,
# the stock way against the series') is `run.sh burst`, below.
# ROUNDS (5), COUNT, PERIOD_US, DEADLINE_US, SEED as for the base
# case; SUFFIX names the result files (latency-scenarios-DATE-SUFFIX.*,
# "smoke" for a run that is one); TABLE_ONLY=1 makes the tables again
# from the logs of the last run (same SCENARIOS, ROUNDS), no VM.
scenarios=${SCENARIOS-rt noisy drivers stock}
[ -n "$scenarios" ] || { echo "bench: SCENARIOS empty, no scenarios"; exit 0; }
has() { case " $scenarios " in *" $1 "*) return 0 ;; esac; return 1; }
rounds=${ROUNDS:-5} count=${COUNT:-5000} period_us=${PERIOD_US:-1000}
deadline_us=${DEADLINE_US:-$period_us}
seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
v_prod="default fifo50 timerlat50"
v_stock="default timerlat50"
if has rt; then
	v_prod="$v_prod fifo50-pin default-pin-hog50 fifo50-pin-hog50 fifo50-pin-hog40"
fi
has noisy && v_prod="$v_prod fifo50-noisy fifo50-private-noisy"
if has drivers; then
	v_prod="$v_prod highpri kthread50 irqthread50"
	v_stock="$v_stock highpri kthread50 irqthread50"
fi
has stock && v_stock="$v_stock chrt-fifo50"
kernels=prod
has stock && kernels="prod prod-plain"
# KERNELS=prod-plain: the stock boot alone (a smoke of its part)
kernels=${KERNELS:-$kernels}
date=$(date -u +%Y-%m-%d)
d=$out/latency-scenarios
rm -rf "$d"
mkdir -p "$d"
: >"$d/all.raw"
[ "${TABLE_ONLY:-0}" != 1 ] || seed=$(cat "$out/scen.seed")
for k in $kernels; do
	if [ "${TABLE_ONLY:-0}" = 1 ]; then
		stage=$out/stage-$k
	else
		stage=$(build_flavour "$k")
	fi
	if [ "$k" = prod ]; then v=$v_prod; else v=$v_stock; fi
	orders "$seed" "$rounds" "$v" >"$stage/order"
	cp "$top/selftests/bench/latency-scenarios/vm-scenarios.sh" "$stage/vm-scenarios.sh"
	# the script's settings travel in its first lines
	sed -i "s/^COUNT=.*/COUNT=$count/; s/^PERIOD_US=.*/PERIOD_US=$period_us/;
		s/^ROUNDS=.*/ROUNDS=$rounds/; s/^VARIANTS=.*/VARIANTS=\"$v\"/" \
		"$stage/vm-scenarios.sh"
	log=$out/scen-$k.log
	# TABLE_ONLY=1: no VM, the tables again from the last logs
	if [ "${TABLE_ONLY:-0}" != 1 ]; then
		bench_lock "bench-latency scenarios" >&2
		before=$(cat /proc/loadavg)
		echo "bench-latency scenarios: $k, $rounds rounds of: $v" >&2
		boot "$k" "$stage/vm-scenarios.sh" "scen-$k" \
			$((1200 + rounds * $(echo "$v" | wc -w) * (count * period_us / 1000000 + 20)))
		after=$(cat /proc/loadavg)
		bench_unlock
		sed -i -e 's/\r$//' -e 's/\x1b\[[0-9;]*m//g' "$log"
		grep -q '^I kernel' "$log" || { cat "$out/scen-$k.vmout"; exit 1; }
		grep '^E ' "$log" && { cat "$out/scen-$k.vmout"; exit 1; }
		env_record "scen-$k" "$k" "$before" "$after" >"$out/scen-$k.env"
		echo "$seed" >"$out/scen.seed"
	fi
	cp "$out/scen-$k.env" "$d/env-$k"
	# one namespace: plain 6.12's variants are stock-NAME
	if [ "$k" = prod ]; then
		grep -E '^[IOSHNVPK] ' "$log" >>"$d/all.raw"
	else
		awk '$1 ~ /^[SHVPK]$/ { $2 = "stock-" $2 } $1 == "O" {
			for (i = 3; i <= NF; i++) $i = "stock-" $i } $1 == "I" { $1 = "I stock:" }
			{ print }' "$log" | grep -E '^[IOSHNVPK] ' >>"$d/all.raw"
	fi
done
order_rows=$v_prod
has stock && order_rows="$order_rows $(for x in $v_stock; do printf 'stock-%s ' "$x"; done)"
table=$out/latency-scenarios.md
{
	echo "# Dispatch latency: scenarios where wqrt's features matter ($date)"
	echo
	echo "Issue 18.6. Method as make bench-latency's base case: a hard hrtimer"
	echo "every $period_us us, $count periods per variant and round, one item a period"
	echo "from a ring, latency = the programmed expiry to the work function's"
	echo "first line, every period counted, the same load (a nice-0 CPU hog per"
	echo "vCPU, a fork loop, a pipe stream). Deadline $deadline_us us. $rounds rounds,"
	echo "each in its own random order (seed $seed). Kernels: prod (the series)"
	echo "and, for the stock-* rows, prod-plain (plain 6.12, the same .config),"
	echo "booted in turn: rows of different kernels come from different boots."
	echo
	echo "Variants (selftests/bench/latency-scenarios/vm-scenarios.sh):"
	echo
	echo "- default, fifo50: wqrt_bench as created (unbound, policy normal), and"
	echo "  policy fifo rtprio 50 (the profile); timerlat50: rtla timerlat, the floor."
	echo "- RT competition: a SCHED_FIFO kthread bound to CPU 1 spins 2 ms and"
	echo "  sleeps 8 ms, again and again (a threaded handler under an interrupt"
	echo "  storm), at FIFO 50 (the profile's priority) or 40; wqrt_bench's"
	echo "  cpumask is CPU 1 alone (-pin). fifo50-pin is the same without the hog."
	echo "- Noisy neighbour: wqrt_bench_nb, an unbound workqueue with the same"
	echo "  attributes (fifo 50), gets 16 items of 25 us of spinning every 1 ms"
	echo "  from a hard hrtimer; fifo50-noisy shares its pool (P lines below),"
	echo "  fifo50-private-noisy has private 1 and a pool of its own."
	echo "- Drivers' first tries: highpri (a per-cpu WQ_HIGHPRI workqueue, the"
	echo "  timer CPU's nice -20 kworkers), kthread50 (a FIFO 50 kthread_worker),"
	echo "  irqthread50 (the hard timer wakes a FIFO 50 kthread that runs the"
	echo "  item, as a hard interrupt handler wakes its threaded handler: an"
	echo "  emulation, the VM has no device whose interrupt the bench can raise)."
	echo "- Stock: stock-chrt-fifo50 is plain 6.12 with wqrtd (from the image)"
	echo "  in [kworker:kworker/u*] mode, policy fifo rtprio 50: every unbound"
	echo "  kworker by name, tuned's way; wqrtd runs only for that variant, and"
	echo "  the kworkers are put back to SCHED_OTHER after."
	echo
	for k in $kernels; do
		echo "## Environment: $k"
		echo
		cat "$d/env-$k"
		echo
	done
	echo '```'
	grep -E '^I ' "$d/all.raw" | cut -c3-
	grep -E '^O ' "$d/all.raw" | sed 's/^O /round /'
	grep -E '^V ' "$d/all.raw" | cut -c3- || true
	echo '```'
	echo
	DEADLINE_US=$deadline_us PERIOD_US=$period_us SEED=$seed VARIANTS=$order_rows \
		python3 "$top/selftests/bench/latency/latency-stats.py" "$d/all.raw" "$d"
	DEADLINE_US=$deadline_us SEED=$seed VARIANTS=$order_rows \
		python3 "$top/selftests/bench/latency-scenarios/scenarios-stats.py" "$d/all.raw" "$d"
} >"$table"
{
	survival_plot_head 1800,600 "$out/latency-scenarios.png" 1,3 \
		"expiry to work start under load: share at least this late (1-CDF)" "$deadline_us"
	plot_set "RT competition (FIFO hog on CPU 1)" fifo50-pin default-pin-hog50 fifo50-pin-hog50 fifo50-pin-hog40 timerlat50
	plot_set "noisy neighbour" fifo50 fifo50-noisy fifo50-private-noisy default
	plot_set "drivers' first tries, stock kernel" default highpri kthread50 irqthread50 stock-default stock-highpri stock-chrt-fifo50 stock-irqthread50
	echo "unset multiplot"
} | gnuplot
res=$top/selftests/bench/results
base=$res/latency-scenarios-$date${SUFFIX:+-$SUFFIX}
cp "$table" "$base.md"
cp "$out/latency-scenarios.png" "$base.png"
xz -9 <"$d/all.raw" >"$base.raw.xz"
cat "$table"
echo "bench: table $table, plot $out/latency-scenarios.png (copies under $base.*)"
