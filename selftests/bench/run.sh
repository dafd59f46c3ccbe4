#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh latency|latency-scenarios|enqueue|flush|imu|reserve|cost|gpu: `make
# bench-latency` (latency, then latency-scenarios) / `make bench-enqueue` /
# `make bench-flush` / `make bench-imu` / `make bench-reserve` / `make
# bench-cost` / `make bench-gpu`.
# Numbers, not tests: every figure is measured side by side in one run, the
# variants interleaved, and reported as a table (markdown) and a plot (PNG)
# under build/bench/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
out=$build/bench
mkdir -p "$out"
what=${1:?usage: run.sh latency|enqueue|flush|imu|reserve|cost|gpu}
# when this part of the bench began: every environment record gives the
# span to its own writing, so the parts of one make bench add up to its
# wall time
started=$(date -u '+%F %H:%M')

# Every sample is two clock reads. Under TCG the guest's clocksource
# watchdog moved the TSC to the HPET (an MMIO exit per read) in 3 of 25
# prod boots and 6 of 15 lock_stat boots of the first enqueue runs,
# mid-run: the TSC QEMU emulates is the host's clock, so mark it reliable
# (no watchdog) in every bench boot; env_record() says which clocksource
# a boot started and ended on.
export WQRT_VM_APPEND="${WQRT_VM_APPEND:+$WQRT_VM_APPEND }tsc=reliable"

# A kernel is a flavour (perf, perf-plain, ...) or FLAVOUR@N: the flavour
# with only the first N patches of the series, built in a tree of its own
# (FLAVOUR-pN) for a per-patch A/B, or in the one tree PREFIX_TREE for every
# prefix (built and booted one after the other, each build changes only what
# the patches between two prefixes change: make bench-cost's counts).
build_flavour() { # KERNEL -> builds kernel + bench module, prints stage dir
	local k=$1 stage=$out/stage-$1 flavour=${1%@*} kdir
	if [ "$k" != "$flavour" ]; then
		WQRT_TREE=${PREFIX_TREE:-${WQRT_TREE_PREFIX:-}$flavour-p${k#*@}} \
			"$top/kernel/scripts/build.sh" "$flavour" "${k#*@}" >&2
	else
		"$top/kernel/scripts/build.sh" "$k" >&2
	fi
	# the tree just built: build/kernel-FLAVOUR points at it
	kdir=$(readlink -f "$build/kernel-$flavour")
	make --no-print-directory -C "$top/selftests/bench" \
		KDIR="$kdir/obj" OUT="$out/module-$k" >/dev/null
	rm -rf "$stage"
	mkdir -p "$stage"
	cp "$out/module-$k/wqrt_bench.ko" "$stage/"
	echo "$kdir" >"$stage/.kdir"
	echo "$stage"
}

boot() { # KERNEL SCRIPT NAME TIMEOUT: run SCRIPT in the VM, log in $out/NAME.log
	local k=$1 script=$2 name=$3 t=$4 stage
	stage=$out/stage-$k
	cp "$script" "$stage/run.sh"
	cp "$top/selftests/bench/load.sh" "$stage/"
	"$top/selftests/vm/vm.sh" script "$(cat "$stage/.kdir")" "$stage/run.sh" \
		--name "bench-$name" --timeout "$t" >"$out/$name.vmout" 2>&1 || true
	cp "$build/vm/bench-$name/tap.log" "$out/$name.log"
	# The accelerator the numbers were measured with goes with them.
	cp "$build/vm/bench-$name/accel" "$out/$name.accel" 2>/dev/null || true
}

accel_of() { # NAME: "kvm" or "tcg" as run-vm.sh chose it for that run
	head -n 1 "$out/$1.accel" 2>/dev/null || echo unknown
}

env_record() { # NAME KERNEL LOAD_BEFORE LOAD_AFTER: markdown list, every result carries it
	# KERNEL@N has no build/kernel-* link of its own: its stage knows the tree
	local log=$out/$1.log kcfg
	kcfg=$(cat "$out/stage-$2/.kdir" 2>/dev/null || echo "$build/kernel-$2")/obj/.config
	echo "- kernel: $2 flavour, $(grep -E '^CONFIG_HZ=' "$kcfg"), $(grep -q '^CONFIG_PREEMPT_RT=y' "$kcfg" && echo PREEMPT_RT || echo "not PREEMPT_RT"), $(grep -q '^CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y' "$kcfg" && echo -O2 || echo -Os), lock debugging $(grep -qE '^CONFIG_(LOCKDEP|LOCK_STAT|DEBUG_SPINLOCK)=y' "$kcfg" && echo on || echo off), trace events $(grep -q '^CONFIG_EVENT_TRACING=y' "$kcfg" && echo on || echo off); .config sha256 $(sha256sum <"$kcfg" | cut -c1-16)"
	echo "- host: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs; $(qemu-system-x86_64 --version | head -n 1)"
	echo "- accelerator: $(accel_of "$1") ($(sed -n 2p "$out/$1.accel" 2>/dev/null))"
	echo "- guest: $(sed -n 's/^I kernel .* vcpus \([0-9]*\) .*/\1/p' "$log") vCPUs, clocksource $(sed -n 's/^I clocksource //p' "$log" | awk '!seen[$0]++' | paste -sd' ' | sed 's/ /, then /g')"
	echo "- host load (/proc/loadavg) before: $3; after: $4"
	echo "- wall clock: run.sh $what started $started UTC, this record $(date -u +%H:%M) UTC"
}

orders() { # SEED ROUNDS VARIANTS: one line per round, the variants in a random order drawn from SEED
	python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]))
v = sys.argv[3].split()
for _ in range(int(sys.argv[2])):
	rng.shuffle(v)
	print(" ".join(v))' "$@"
}

percentiles() { # reads numbers (ns) on stdin; prints count p50 p99 p99.9 max in us
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "0 - - - -"; exit }
		printf "%d %.1f %.1f %.1f %.1f\n", NR, v[int(NR * 0.5) + 1] / 1000,
			v[int(NR * 0.99) + 1] / 1000,
			v[(int(NR * 0.999) + 1 > NR) ? NR : int(NR * 0.999) + 1] / 1000,
			v[NR] / 1000 }'
}

case "$what" in
latency)
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
	burst_k=${BURST_K:-8}
	orders "$seed" "$rounds" "$variants" >"$stage/order"
	cp "$top/selftests/bench/vm-latency.sh" "$stage/vm-latency.sh"
	# the script's settings travel in its first lines
	sed -i "s/^COUNT=.*/COUNT=$count/; s/^PERIOD_US=.*/PERIOD_US=$period_us/; s/^ROUNDS=.*/ROUNDS=$rounds/; s/^VARIANTS=.*/VARIANTS=\"$variants\"/; s/^BURST_K=.*/BURST_K=$burst_k/" \
		"$stage/vm-latency.sh"
	load_before=$(cat /proc/loadavg)
	boot "$kernel" "$stage/vm-latency.sh" latency \
		$((1200 + rounds * $(echo "$variants" | wc -w) * (count * period_us / 1000000 + 15)))
	load_after=$(cat /proc/loadavg)
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
			BURSTS="burst-reserve0 burst-reserve$burst_k" BURST_K=$burst_k \
			python3 "$top/selftests/bench/latency-stats.py" "$log" "$d"
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
	;;
latency-scenarios)
	# Issue 18.6, the cases where wqrt's features should matter, on the
	# prod kernel and on plain 6.12 of the same configuration
	# (prod-plain), booted in turn; `make bench-latency` runs this after
	# the base case. SCENARIOS selects groups (all by default; empty
	# skips the part): rt (a FIFO hog at the profile's priority and
	# below), noisy (a neighbour flooding the shared pool, with and
	# without private), drivers (WQ_HIGHPRI, a kthread_worker, a
	# threaded-handler-like FIFO thread), burst (worker creation warm and
	# after the idle cull, with and without a reserve), stock (plain 6.12
	# with wqrtd's [kworker:] mode). The controls (default, fifo50,
	# timerlat50) are in every boot. vm-scenarios.sh says what each
	# variant is. ROUNDS (5, at least CULL_WAIT each), COUNT, PERIOD_US, DEADLINE_US, SEED as for
	# the base case; CULL_WAIT (310 s) idle before the burst after the
	# cull, BURST_K (8) items a burst, BURST_WARM (5) warm bursts after
	# it; SUFFIX names the result files (latency-scenarios-DATE-SUFFIX.*,
	# "smoke" for a run that is one); TABLE_ONLY=1 makes the tables again
	# from the logs of the last run (same SCENARIOS, ROUNDS), no VM.
	scenarios=${SCENARIOS-rt noisy drivers burst stock}
	[ -n "$scenarios" ] || { echo "bench: SCENARIOS empty, no scenarios"; exit 0; }
	has() { case " $scenarios " in *" $1 "*) return 0 ;; esac; return 1; }
	rounds=${ROUNDS:-5} count=${COUNT:-5000} period_us=${PERIOD_US:-1000}
	deadline_us=${DEADLINE_US:-$period_us}
	# the idle cull takes workers idle for IDLE_WORKER_TIMEOUT (300 s in
	# kernel/workqueue.c): a round lasts at least this long
	cull_wait=${CULL_WAIT:-310}
	burst_k=${BURST_K:-8} burst_warm=${BURST_WARM:-5}
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
	has burst || burst_k=0
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
		cp "$top/selftests/bench/vm-scenarios.sh" "$stage/vm-scenarios.sh"
		# the script's settings travel in its first lines
		sed -i "s/^COUNT=.*/COUNT=$count/; s/^PERIOD_US=.*/PERIOD_US=$period_us/;
			s/^ROUNDS=.*/ROUNDS=$rounds/; s/^VARIANTS=.*/VARIANTS=\"$v\"/;
			s/^BURST_K=.*/BURST_K=$burst_k/; s/^BURST_WARM=.*/BURST_WARM=$burst_warm/;
			s/^CULL_WAIT=.*/CULL_WAIT=$cull_wait/" "$stage/vm-scenarios.sh"
		log=$out/scen-$k.log
		# TABLE_ONLY=1: no VM, the tables again from the last logs
		if [ "${TABLE_ONLY:-0}" != 1 ]; then
			before=$(cat /proc/loadavg)
			echo "bench-latency scenarios: $k, $rounds rounds of: $v" >&2
			boot "$k" "$stage/vm-scenarios.sh" "scen-$k" \
				$((1200 + rounds * ($(echo "$v" | wc -w) * (count * period_us / 1000000 + 20) + cull_wait + 120)))
			after=$(cat /proc/loadavg)
			sed -i -e 's/\r$//' -e 's/\x1b\[[0-9;]*m//g' "$log"
			grep -q '^I kernel' "$log" || { cat "$out/scen-$k.vmout"; exit 1; }
			grep '^E ' "$log" && { cat "$out/scen-$k.vmout"; exit 1; }
			env_record "scen-$k" "$k" "$before" "$after" >"$out/scen-$k.env"
			echo "$seed" >"$out/scen.seed"
		fi
		cp "$out/scen-$k.env" "$d/env-$k"
		# the bursts after an idle wait that no cull ended are
		# -notculled; one namespace: plain 6.12's variants are stock-NAME
		if [ "$k" = prod ]; then
			python3 "$top/selftests/bench/scenarios-stats.py" relabel "$log" |
				grep -E '^[IOSHBNVPWK] ' >>"$d/all.raw"
		else
			python3 "$top/selftests/bench/scenarios-stats.py" relabel "$log" |
				awk '$1 ~ /^[SHBVPWK]$/ { $2 = "stock-" $2 } $1 == "O" {
				for (i = 3; i <= NF; i++) $i = "stock-" $i } $1 == "I" { $1 = "I stock:" }
				{ print }' | grep -E '^[IOSHBNVPWK] ' >>"$d/all.raw"
		fi
	done
	order_rows=$v_prod
	has stock && order_rows="$order_rows $(for x in $v_stock; do printf 'stock-%s ' "$x"; done)"
	bursts="burst-r0-warm burst-r0-culled burst-r0-notculled burst-r$burst_k-warm burst-r$burst_k-culled burst-r$burst_k-notculled stock-chrt-burst-warm stock-chrt-burst-culled stock-chrt-burst-notculled"
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
		echo "Variants (selftests/bench/vm-scenarios.sh):"
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
		echo "  kworker by name, tuned's way; wqrtd runs only for that variant (and"
		echo "  the stock burst), and the kworkers are put back to SCHED_OTHER after."
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
			BURSTS="$bursts" BURST_K=$burst_k BURST_DESC="$(cat <<TXT
$burst_k items at once, each sleeping 2 ms, queued from a FIFO 50 kthread with
interrupts off from each item's stamp to its queue_work(); the stamp to
the item's start. burst-rN: private fifo 50 workqueues (4 per N) with
nr_idle_extra N; -culled: the first burst after the pool's idle cull (at
least $cull_wait s idle, and fewer workers than the last bursts left);
-notculled: the same wait, but no cull had happened yet; -warm: $burst_warm
bursts 50 ms apart right after it. stock-chrt-burst: plain 6.12, one
workqueue with the default attributes (the pool every unbound workqueue
shares), its kworkers chrt'ed to FIFO 50 by wqrtd's [kworker:] mode;
TXT
)" \
			python3 "$top/selftests/bench/latency-stats.py" "$d/all.raw" "$d"
		DEADLINE_US=$deadline_us BURST_K=$burst_k SEED=$seed VARIANTS=$order_rows \
			python3 "$top/selftests/bench/scenarios-stats.py" "$d/all.raw" "$d"
	} >"$table"
	plot_set() { # TITLE VARIANTS...: the survival curves of those that ran
		local t=$1 p="" x
		shift
		for x in "$@"; do
			[ -s "$d/surv-$x.dat" ] && p="$p $x"
		done
		echo "set title \"$t\""
		if [ -n "$p" ]; then
			echo "plot for [v in \"${p# }\"] \"$d/surv-\".v.\".dat\" using 1:2 with steps lw 2 title v"
		else
			# an empty panel: a curve outside its range, and a label
			echo "set label 1 \"not run\" at graph 0.4, graph 0.5"
			echo "plot [1:10][1:10] 100 notitle"
			echo "unset label 1"
		fi
	}
	{
		cat <<GP
set terminal pngcairo size 1400,1000 noenhanced
set output "$out/latency-scenarios.png"
set multiplot layout 2,2 title "expiry (burst: stamp) to work start under load: share at least this late (1-CDF)"
set logscale xy
set xlabel "latency (us)"
set ylabel "share"
set arrow from $deadline_us, graph 0 to $deadline_us, graph 1 nohead dt 2
set key top right
set grid
GP
		plot_set "RT competition (FIFO hog on CPU 1)" fifo50-pin default-pin-hog50 fifo50-pin-hog50 fifo50-pin-hog40 timerlat50
		plot_set "noisy neighbour" fifo50 fifo50-noisy fifo50-private-noisy default
		plot_set "drivers' first tries, stock kernel" default highpri kthread50 irqthread50 stock-default stock-highpri stock-chrt-fifo50 stock-irqthread50
		plot_set "bursts of $burst_k (stamp to start)" $bursts
		echo "unset multiplot"
	} | gnuplot
	res=$top/selftests/bench/results
	base=$res/latency-scenarios-$date${SUFFIX:+-$SUFFIX}
	cp "$table" "$base.md"
	cp "$out/latency-scenarios.png" "$base.png"
	xz -9 <"$d/all.raw" >"$base.raw.xz"
	cat "$table"
	echo "bench: table $table, plot $out/latency-scenarios.png (copies under $base.*)"
	;;
enqueue)
	# Seed 000's method, PRODUCERS kthreads x ITEMS work items per
	# affinity scope, on the production-like kernels (prod.config: -O2,
	# no lock debugging): plain 6.12, patches 1-2, patch 3 (the deferred
	# wakeup with a task pointer), the whole series, and the series with
	# a wake_q instead of the task pointer (kernel/variants/wake-q),
	# booted in a random order drawn from SEED in every round.
	# LOCKSTAT=1: the same on the lock_stat kernels (perf.config, lock
	# debugging on): a diagnostic of pool->lock (contentions, wait and
	# hold times), whose throughput and latency are not the prod ones.
	lockstat=${LOCKSTAT:-0}
	if [ "$lockstat" = 1 ]; then
		name=enqueue-lockstat family=perf
	else
		name=enqueue family=prod
	fi
	kernels=${KERNELS:-$family-plain $family@2 $family@3 $family $family-alt}
	rounds=${ROUNDS:-5} producers=${PRODUCERS:-8} items=${ITEMS:-200000}
	for v in rounds producers items; do
		[[ "${!v}" =~ ^[1-9][0-9]{0,8}$ ]] || {
			echo "bench-enqueue: ${v^^}=${!v}: a positive integer, please" >&2
			exit 2
		}
	done
	# wqrt_bench.c's bound (ENQ_MAX_PRODUCERS, ENQ_MAX_ITEMS): every item
	# is allocated up front, 40 bytes without lockdep, about 90 with it
	if [ "$producers" -gt 64 ] || [ $((producers * items)) -gt 4000000 ]; then
		echo "bench-enqueue: PRODUCERS=$producers x ITEMS=$items: at most 64 producers and 4000000 items in all (160 MB up front, about 350 MB on a lock_stat kernel, of the VM's ${WQRT_VM_MEM:-1024} MiB)" >&2
		exit 2
	fi
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	for k in $kernels; do
		build_flavour "$k" >/dev/null
		cp "$top/selftests/bench/vm-enqueue.sh" "$out/stage-$k/vm-enqueue.sh"
		# the script's settings travel in its first lines
		sed -i "s/^PRODUCERS=.*/PRODUCERS=$producers/; s/^ITEMS=.*/ITEMS=$items/" \
			"$out/stage-$k/vm-enqueue.sh"
	done
	orders "$seed" "$rounds" "$kernels" >"$out/$name.order"
	# tsc=reliable (above): enqueue-stats.py still leaves out any boot
	# that ends on another clocksource.
	# Under TCG a boot queues 20000 to 200000 items/s: 5 scopes, a warm-up
	# each, the boot itself
	timeout=$((300 + 5 * producers * items / 15000))
	raw=$out/$name.raw
	: >"$raw"
	# The boots, not the builds, under the host-wide bench lock, so that
	# two benchmarks never share the 2 CPUs (WQRT_BENCH_LOCK= to skip it).
	lock=${WQRT_BENCH_LOCK-/tmp/wqrt-bench.lock}
	[ -z "$lock" ] || exec 7>"$lock"
	[ -z "$lock" ] || {
		echo "bench-enqueue: waiting for $lock"
		flock 7
	}
	start=$(date +%s)
	load_before=$(cat /proc/loadavg)
	# UNTIL (a date): start no round that would end after it, judging by
	# the longest round so far; the table says how many rounds ran.
	until_s=
	[ -z "${UNTIL:-}" ] || until_s=$(date -d "$UNTIL" +%s)
	r=0 longest=0
	while read -r order; do
		rstart=$(date +%s)
		if [ -n "$until_s" ] && [ "$r" -gt 0 ] &&
			[ $((rstart + longest)) -gt "$until_s" ]; then
			echo "bench-enqueue: stopping after $r of $rounds rounds: another would end after UNTIL=$UNTIL"
			break
		fi
		r=$((r + 1)) pos=0
		for k in $order; do
			pos=$((pos + 1))
			echo "bench-enqueue: round $r/$rounds, $pos: $k ($producers x $items per scope)"
			echo "$k $r $pos H $(cat /proc/loadavg)" >>"$raw"
			boot "$k" "$out/stage-$k/vm-enqueue.sh" "$name-$k-$r" "$timeout" </dev/null
			log=$out/$name-$k-$r.log
			sed -i 's/\r$//' "$log"
			grep -q '^I kernel' "$log" || { cat "$out/$name-$k-$r.vmout"; exit 1; }
			grep '^E ' "$log" && { cat "$out/$name-$k-$r.vmout"; exit 1; }
			awk -v p="$k $r $pos" '$1 ~ /^[LRSVI]$/ { print p, $0 }' "$log" >>"$raw"
			echo "$k $r $pos A $(accel_of "$name-$k-$r")" >>"$raw"
		done
		[ $(($(date +%s) - rstart)) -le "$longest" ] || longest=$(($(date +%s) - rstart))
	done <"$out/$name.order"
	[ "$r" = "$rounds" ] || {
		head -n "$r" "$out/$name.order" >"$out/$name.order.ran"
		mv "$out/$name.order.ran" "$out/$name.order"
		rounds_asked=$rounds rounds=$r
	}
	load_after=$(cat /proc/loadavg)
	[ -z "$lock" ] || exec 7>&-
	date=$(date -u +%Y-%m-%d)
	res=$top/selftests/bench/results
	base=$name-$date${TAG:+-$TAG}
	table=$out/$name.md
	{
		if [ "$lockstat" = 1 ]; then
			echo "# Enqueue, lock_stat diagnostic pass ($date${TAG:+, $TAG})"
			echo
			echo "**Diagnostic.** These kernels carry lock_stat (kernel/configs/perf.config:"
			echo "lockdep, lock statistics), which adds to every lock acquisition:"
			echo "their items/s and enqueue latencies are not the production figures"
			echo "(those are results/enqueue-*.md on the prod kernels). This pass is"
			echo "for what only lock_stat sees: pool->lock contentions, wait and hold"
			echo "times, summed over its lock classes."
		else
			echo "# Enqueue throughput and latency ($date${TAG:+, $TAG})"
			echo
			echo "On the production-like kernels (kernel/configs/prod.config: -O2,"
			echo "HZ=1000, no lock debugging). The pool->lock contention and hold"
			echo "times come from the separate lock_stat pass (LOCKSTAT=1,"
			echo "results/enqueue-lockstat-*.md)."
		fi
		echo
		echo "Seed 000's method: $producers producer kthreads x $items work items each"
		echo "on a WQ_UNBOUND workqueue, as fast as they can, once per affinity"
		echo "scope (after a warm-up of $producers x 2000); items/s is all the items over"
		echo "the time from waking the producers to the last item's completion,"
		echo "p50/p99 the time of each queue_work() call (all $((producers * items)) of them)."
		echo "$rounds rounds${rounds_asked:+ (of ROUNDS=$rounds_asked: UNTIL=$UNTIL stopped the rest)}; in each round every kernel boots once, in an order"
		echo "drawn from seed $seed: $(paste -sd';' "$out/$name.order" | sed 's/;/; /g')."
		echo "Command: \`$(for v in LOCKSTAT KERNELS ROUNDS PRODUCERS ITEMS UNTIL TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-enqueue\`,"
		echo "$(( ($(date +%s) - start) / 60 )) min of boots."
		echo
		echo "## Environment"
		echo
		for k in $kernels; do
			echo "### $k"
			echo
			env_record "$name-$k-1" "$k" "$load_before" "$load_after"
			echo
		done
		echo "Host load before each boot: the H lines of the raw file."
		echo
		SEED=$seed KERNELS=$kernels FAMILY=$family \
			python3 "$top/selftests/bench/enqueue-stats.py" "$raw"
	} >"$table"
	cp "$table" "$res/$base.md"
	xz -9 <"$raw" >"$res/$base.raw.xz"
	cat "$table"
	echo "bench: table $table, raw samples $raw (copies under selftests/bench/results/$base.*)"
	;;
flush)
	# seed 003: plain 6.12 and the series, both with room for many
	# possible CPUs (kernel/configs/bench-flush.config), booted in turn
	# with 2 online of 192 possible CPUs, every round
	rounds=${ROUNDS:-5}
	kernels="bench-flush-plain bench-flush"
	cfg=$top/kernel/configs
	diff <(grep -v -e '^#' -e '^$' -e '^CONFIG_NR_CPUS=' "$cfg/wqrt.config") \
		<(grep -v -e '^#' -e '^$' -e '^CONFIG_NR_CPUS=' "$cfg/bench-flush.config") >/dev/null || {
		echo "bench-flush: kernel/configs/bench-flush.config differs from wqrt.config in more than NR_CPUS" >&2
		exit 1
	}
	for k in $kernels; do
		# a tree of its own per flavour, also under a developer's WQRT_TREE
		WQRT_TREE=${WQRT_TREE:+$WQRT_TREE-$k} build_flavour "$k" >/dev/null
	done
	export WQRT_VM_SMP=${WQRT_VM_SMP:-2,maxcpus=192}
	raw=$out/flush.raw
	: >"$raw"
	load_before=$(cat /proc/loadavg)
	for r in $(seq 1 "$rounds"); do
		for k in $kernels; do
			echo "bench-flush: round $r/$rounds on $k (-smp $WQRT_VM_SMP)"
			boot "$k" "$top/selftests/bench/vm-flush.sh" "flush-$k-$r" 900
			grep -q '^I kernel' "$out/flush-$k-$r.log" || {
				cat "$out/flush-$k-$r.vmout"
				exit 1
			}
			awk -v k=$k -v r=$r '$1 == "S" { print k, r, $2, $3 }' \
				"$out/flush-$k-$r.log" >>"$raw"
		done
	done
	load_after=$(cat /proc/loadavg)
	{
		"$top/selftests/bench/flush-table.sh" "$raw" "$out"
		echo
		echo "## Environment"
		for k in $kernels; do
			echo
			echo "### $k (its last boot)"
			echo
			env_record "flush-$k-$rounds" "$k" "$load_before" "$load_after"
		done
	} >"$out/flush.md"
	date=$(date -u +%Y-%m-%d)
	cp "$out/flush.md" "$top/selftests/bench/results/flush-$date.md"
	cp "$raw" "$top/selftests/bench/results/flush-$date.raw"
	cat "$out/flush.md"
	echo "bench: table $out/flush.md, raw samples $raw (copies under selftests/bench/results/flush-$date.*)"
	;;
reserve)
	# make bench-reserve (issue 32.3): the memory a reserve of idle
	# workers costs, per worker (selftests/bench/vm-reserve.sh), on the
	# production-like kernel (RESERVE_KERNEL, prod), ROUNDS (5) boots,
	# the reserve grown to each of SIZES (8 64) in every boot.
	kernel=${RESERVE_KERNEL:-prod}
	rounds=${ROUNDS:-5} sizes=${SIZES:-8 64}
	[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench-reserve: ROUNDS=$rounds: 1 to 99, please" >&2; exit 2; }
	for n in $sizes; do
		[[ "$n" =~ ^[1-9][0-9]?$ ]] && [ "$n" -le 64 ] ||
			{ echo "bench-reserve: SIZES: '$n' is not a reserve of 1 to 64 workers" >&2; exit 2; }
	done
	stage=$(build_flavour "$kernel")
	cp "$top/selftests/bench/vm-reserve.sh" "$stage/vm-reserve.sh"
	sed -i "s/^SIZES=.*/SIZES=\"$sizes\"/" "$stage/vm-reserve.sh"
	raw=$out/reserve.raw
	: >"$raw"
	load_before=$(cat /proc/loadavg)
	for r in $(seq 1 "$rounds"); do
		echo "bench-reserve: boot $r/$rounds on $kernel, nr_idle_extra $sizes"
		boot "$kernel" "$stage/vm-reserve.sh" "reserve-$r" 900
		sed -i 's/\r$//' "$out/reserve-$r.log"
		if ! grep -q '^I done' "$out/reserve-$r.log" || grep -q '^E ' "$out/reserve-$r.log"; then
			grep '^E ' "$out/reserve-$r.log" >&2 || cat "$out/reserve-$r.vmout" >&2
			echo "bench-reserve: boot $r did not measure every step" >&2
			exit 1
		fi
		grep -E '^[IMO] ' "$out/reserve-$r.log" | sed "s/^/$r /" >>"$raw"
	done
	load_after=$(cat /proc/loadavg)
	date=$(date -u +%Y-%m-%d)
	{
		echo "# What a reserve of idle workers costs in memory: make bench-reserve ($date)"
		echo
		echo "Command: \`ROUNDS=$rounds SIZES=\"$sizes\" RESERVE_KERNEL=$kernel make bench-reserve\`;"
		echo "selftests/bench/vm-reserve.sh says what each boot does,"
		echo "selftests/bench/reserve-stats.py how the table is made."
		echo
		python3 "$top/selftests/bench/reserve-stats.py" "$raw"
		echo "## Environment (the last boot)"
		echo
		env_record "reserve-$rounds" "$kernel" "$load_before" "$load_after"
	} >"$out/reserve.md"
	cp "$out/reserve.md" "$top/selftests/bench/results/reserve-$date.md"
	cp "$raw" "$top/selftests/bench/results/reserve-$date.raw"
	cat "$out/reserve.md"
	echo "bench: table $out/reserve.md, raw $raw (copies under selftests/bench/results/reserve-$date.*)"
	;;
cost)
	# make bench-cost (issue 29): what the series costs the queue_work()
	# and flushes of everyone else, to run before a change to the
	# workqueue patches. Counts first, which do not depend on the host:
	# one boot per kernel of COUNT_KERNELS (prod-plain prod; FLAVOUR@N
	# for a prefix of the series) under QEMU's TCG with one thread and
	# the wqcount plugin (selftests/bench/cost/wqcount.c), which counts
	# the instructions, atomics, fences and cache lines moved between
	# vCPUs of each case of wqrt_bench's cost command, RUNS (100) runs
	# each; cost-stats.py names where they happen. Times second:
	# ROUNDS (3) rounds; in each, prod-plain and prod boot in a seeded
	# random order for enqueue (the cpu and system affinity scopes,
	# PRODUCERS x ITEMS, 8 x 50000, REPS samples each), then
	# prod-flush-plain and prod-flush (prod and prod-plain with
	# kernel/variants/possible-cpus, booted with -smp 2,maxcpus=64:
	# NR_CPUS is prod's 64) for the two flush cases the series made
	# slower on the flush kernels (FLUSH_CASES, REPS x MS ms).
	# Per-round ratios with intervals that resample the rounds, the
	# smallest cost the run could see, the host's load and steal time
	# per boot. COUNTS=0 or TIMES=0 skips a
	# part; TAG names the result files (cost-DATE-TAG.*); PREFIX_TREE
	# builds the prefixes of COUNT_KERNELS in one tree (above). The boots
	# hold /tmp/wqrt-bench.lock, as bench-enqueue's do.
	count_kernels=${COUNT_KERNELS:-prod-plain prod}
	runs=${RUNS:-100} rounds=${ROUNDS:-3}
	producers=${PRODUCERS:-8} items=${ITEMS:-50000}
	reps=${REPS:-3} ms=${MS:-1000}
	flush_cases=${FLUSH_CASES:-qf1-unbound dense-percpu}
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	for v in runs rounds producers items reps ms; do
		[[ "${!v}" =~ ^[1-9][0-9]{0,7}$ ]] || {
			echo "bench-cost: ${v^^}=${!v}: a positive integer, please" >&2
			exit 2
		}
	done
	date=$(date -u +%Y-%m-%d)
	res=$top/selftests/bench/results
	base=cost-$date${TAG:+-$TAG}
	start=$(date +%s)
	lock=${WQRT_BENCH_LOCK-/tmp/wqrt-bench.lock}
	steal() { # the host's steal and total jiffies, from /proc/stat
		awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t }' /proc/stat
	}
	steal_pct() { # BEFORE AFTER ("steal total" each): % of the host's CPU time stolen
		# the conditional in parentheses: a bare ">" after printf's
		# arguments would redirect its output to a file
		echo "$1 $2" | awk '{ d = $4 - $2; printf "%.1f", (d > 0 ? 100 * ($3 - $1) / d : 0) }'
	}
	kernels_built=
	build_once() { # KERNEL: build it and its module once per run
		case " $kernels_built " in *" $1 "*) return 0 ;; esac
		build_flavour "$1" >/dev/null
		kernels_built="$kernels_built $1"
	}
	{
		echo "# What the series costs everyone else: make bench-cost ($date${TAG:+, $TAG})"
		echo
		echo "Command: \`$(for v in COUNTS TIMES COUNT_KERNELS RUNS ROUNDS PRODUCERS ITEMS REPS MS FLUSH_CASES TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-cost\`."
		echo
	} >"$out/cost.md"
	if [ "${COUNTS:-1}" = 1 ]; then
		gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
			-o "$out/wqcount.so" "$top/selftests/bench/cost/wqcount.c"
		[ -z "$lock" ] || { exec 7>"$lock"; echo "bench-cost: waiting for $lock"; flock 7; }
		for k in $count_kernels; do
			build_once "$k"
			cp "$top/selftests/bench/vm-cost.sh" "$out/stage-$k/vm-cost.sh"
			sed -i "s/^RUNS=.*/RUNS=$runs/" "$out/stage-$k/vm-cost.sh"
			echo "bench-cost: counting on $k ($runs runs a case, one TCG thread, wqcount plugin)"
			rm -f "$out/cost-$k.plugin"
			before=$(cat /proc/loadavg)
			# the flush flavours boot with their possible CPUs
			smp=2
			case "$k" in prod-flush*) smp=2,maxcpus=64 ;; esac
			WQRT_VM_SMP=$smp WQRT_VM_TCG_THREAD=single WQRT_VM_ACCEL=tcg \
			WQRT_VM_APPEND="$WQRT_VM_APPEND nokaslr" \
			WQRT_VM_QEMU_ARGS="-icount shift=0,sleep=off -plugin $out/wqcount.so,arg=lines=on -d plugin -D $out/cost-$k.plugin" \
				boot "$k" "$out/stage-$k/vm-cost.sh" "cost-$k" 3600
			after=$(cat /proc/loadavg)
			sed -i 's/\r$//' "$out/cost-$k.log"
			if ! grep -q '^I kernel' "$out/cost-$k.log" ||
				! grep -q '^B ' "$out/cost-$k.log" ||
				! grep -q '^E wqcount done' "$out/cost-$k.plugin"; then
				cat "$out/cost-$k.vmout"
				echo "bench-cost: the counting boot on $k did not finish" >&2
				exit 1
			fi
			cp "$(cat "$out/stage-$k/.kdir")/obj/System.map" "$out/cost-$k.map"
			env_record "cost-$k" "$k" "$before" "$after" >"$out/cost-$k.env"
		done
		[ -z "$lock" ] || exec 7>&-
		{
			echo "## Counts (host-independent)"
			echo
			echo "Each case of wqrt_bench's cost command (selftests/bench/wqrt_bench.c) $runs times after"
			echo "an uncounted warm-up of 5, on one boot per kernel under QEMU's TCG with one"
			echo "thread (-accel tcg,thread=single: the vCPUs take turns, no host timing"
			echo "decides what runs in parallel) and the wqcount plugin"
			echo "(selftests/bench/cost/wqcount.c). The plugin counts guest instructions,"
			echo "x86 atomics (LOCK-prefixed and XCHG with memory: each a full barrier),"
			echo "fences, and cache lines (64 bytes, physical) that another vCPU wrote or"
			echo "held last and that this one wrote (moved to it) or read (copied to it):"
			echo "a coherence model with unbounded caches. The guest's clock runs on"
			echo "instructions (-icount shift=0,sleep=off: a nanosecond each, idle time"
			echo "skipped), so timer ticks land at the same instructions on any host;"
			echo "what still varies from boot to boot is the guest's own state (the"
			echo "scheduler's balancing): two boots of one kernel, one beside two CPU"
			echo "hogs, differed by up to 100 instructions and 3 atomics at a case's"
			echo "median on the vCPU that queued or flushed (cost-2026-12-02-repro.md"
			echo "against cost-2026-12-02-counts.md). By function (below) the series'"
			echo "own code stands out of that: it runs in every window."
			echo
			for k in $count_kernels; do
				echo "### $k"
				echo
				cat "$out/cost-$k.env"
				echo
			done
			# shellcheck disable=SC2086 # one argument a kernel
			python3 "$top/selftests/bench/cost-stats.py" counts "$out" $count_kernels
			echo
		} >>"$out/cost.md"
		for k in $count_kernels; do
			xz -9 <"$out/cost-$k.plugin" >"$res/$base-counts-$k.plugin.xz"
			grep -E '^[IBKE] ' "$out/cost-$k.log" | xz -9 >"$res/$base-counts-$k.log.xz"
		done
	fi
	if [ "${TIMES:-1}" = 1 ]; then
		pairs="prod-plain prod prod-flush-plain prod-flush"
		for k in $pairs; do
			build_once "$k"
			cp "$top/selftests/bench/vm-cost-times.sh" "$out/stage-$k/vm-cost-times.sh"
			mode=enqueue
			case "$k" in prod-flush*) mode=flush ;; esac
			sed -i "s/^MODE=.*/MODE=$mode/; s/^PRODUCERS=.*/PRODUCERS=$producers/;
				s/^ITEMS=.*/ITEMS=$items/; s/^REPS=.*/REPS=$reps/; s/^MS=.*/MS=$ms/;
				s/^FLUSH_CASES=.*/FLUSH_CASES=\"$flush_cases\"/" \
				"$out/stage-$k/vm-cost-times.sh"
		done
		orders "$seed" "$rounds" "prod-plain prod" >"$out/cost.order-enqueue"
		orders "$((seed + 1))" "$rounds" "prod-flush-plain prod-flush" >"$out/cost.order-flush"
		raw=$out/cost-times.raw
		: >"$raw"
		[ -z "$lock" ] || { exec 7>"$lock"; echo "bench-cost: waiting for $lock"; flock 7; }
		load_before=$(cat /proc/loadavg) steal_before=$(steal)
		# The guest's TSC runs at the host's, but under TCG its
		# calibration against the emulated PIT is a lottery: one boot
		# of the first run took 20 times too long a nanosecond and
		# measured 20 times fewer flushes. Give the guest the host's
		# frequency when the host knows it (tsc_known_freq).
		tsc_append=
		if grep -qw tsc_known_freq /proc/cpuinfo; then
			tsc_append="tsc_early_khz=$(awk -F': *' '/^cpu MHz/ { printf "%.0f", $2 * 1000; exit }' /proc/cpuinfo)"
		fi
		for r in $(seq 1 "$rounds"); do
			for k in $(sed -n "${r}p" "$out/cost.order-enqueue") $(sed -n "${r}p" "$out/cost.order-flush"); do
				echo "bench-cost: round $r/$rounds: $k"
				s0=$(steal) l0=$(cut -d' ' -f1-3 /proc/loadavg)
				smp=2
				case "$k" in prod-flush*) smp=2,maxcpus=64 ;; esac
				WQRT_VM_SMP=$smp WQRT_VM_APPEND="${WQRT_VM_APPEND:-} $tsc_append" \
					boot "$k" "$out/stage-$k/vm-cost-times.sh" "cost-t-$k-$r" 900 </dev/null
				log=$out/cost-t-$k-$r.log
				sed -i 's/\r$//' "$log"
				grep -q '^I kernel' "$log" || { cat "$out/cost-t-$k-$r.vmout"; exit 1; }
				grep '^E ' "$log" && { cat "$out/cost-t-$k-$r.vmout"; exit 1; }
				echo "$k $r H load $l0 steal $(steal_pct "$s0" "$(steal)") % accel $(accel_of "cost-t-$k-$r") $(grep '^I clocksource' "$log" | awk '{ print $3 }' | paste -sd, -)" >>"$raw"
				# a metric's figure in a boot: the median of its samples
				awk '$1 == "S" { print $2, $3 }' "$log" | sort -k1,1 -k2g |
					awk -v p="$k $r" '{ v[$1] = v[$1] " " $2 } END {
						for (m in v) { n = split(v[m], a, " "); print p, m, a[int((n + 1) / 2)] } }' >>"$raw"
				awk -v p="$k $r" '$1 == "S" || $1 == "L" { print p, "R", $0 }' "$log" >>"$raw"
			done
		done
		[ -z "$lock" ] || exec 7>&-
		load_after=$(cat /proc/loadavg) steal_after=$(steal)
		{
			echo "## Times"
			echo
			echo "$rounds rounds. In each, prod-plain and prod (-smp 2) boot in an order"
			echo "drawn from seed $seed, for seed 000's enqueue benchmark: $producers producer kthreads"
			echo "x $items work items on a WQ_UNBOUND workqueue in the affinity scope cpu (a"
			echo "pool per CPU: per-CPU) and system (one pool for both CPUs: shared), $reps"
			echo "samples each, the scopes alternating, each after a warm-up; then prod-flush-plain and prod-flush (the same kernels with"
			echo "kernel/variants/possible-cpus, -smp 2,maxcpus=64: 64 possible, 2 online"
			echo "CPUs) in an order drawn from seed $((seed + 1)), for seed 003's flush rates"
			echo "of $flush_cases ($reps samples of $ms ms each). A metric's figure in a"
			echo "boot is the median of its samples. The"
			echo "second kernel of a pair against the first: the median of the per-round"
			echo "ratios, a bootstrap 95 % interval that resamples the rounds (boots);"
			echo "\"smallest cost detectable\" is half that interval's width: a true"
			echo "difference smaller than it would leave 1 inside an interval this wide."
			echo "With 3 rounds the interval spans the rounds' extremes."
			echo "Enqueue order: $(paste -sd';' "$out/cost.order-enqueue" | sed 's/;/; /g'); flush order: $(paste -sd';' "$out/cost.order-flush" | sed 's/;/; /g')."
			echo "The guests' TSC frequency: ${tsc_append:-calibrated by each boot (the host does not know its own)}."
			echo "$(( ($(date +%s) - start) / 60 )) min in all (the counting boots included)."
			echo
			SEED=$seed python3 "$top/selftests/bench/cost-stats.py" times "$raw" \
				prod-plain prod prod-flush-plain prod-flush
			echo
			echo "Host load and steal time per boot (steal: the share of this host's"
			echo "CPU time its own hypervisor took while the boot ran):"
			echo
			echo '```'
			awk '$3 == "H" { $3 = ""; print }' "$raw"
			echo '```'
			echo
			echo "Over the timed part: load $load_before before, $load_after after; steal $(steal_pct "$steal_before" "$steal_after") %."
			echo
			for k in prod-plain prod prod-flush-plain prod-flush; do
				echo "### $k"
				echo
				env_record "cost-t-$k-1" "$k" "$load_before" "$load_after"
				echo
			done
		} >>"$out/cost.md"
		xz -9 <"$raw" >"$res/$base-times.raw.xz"
	fi
	{
		echo "## Kernels"
		echo
		echo "Each kernel's .config: selftests/bench/results/$base-KERNEL.config.xz."
	} >>"$out/cost.md"
	for k in $kernels_built; do
		xz -9 <"$(cat "$out/stage-$k/.kdir")/obj/.config" >"$res/$base-$k.config.xz"
	done
	cp "$out/cost.md" "$res/$base.md"
	cat "$out/cost.md"
	echo "bench: table $out/cost.md (copies under selftests/bench/results/$base.*)"
	;;
gpu)
	# make bench-gpu (issue 32.2): the GPU case with vkms as the stand-in.
	# vkms's vblank hrtimer queues vkms_composer_worker on the ordered
	# workqueue vkms_composer (in sysfs through workqueue.sysfs=, which
	# run-vm.sh passes) at every vblank while CRC capture is on;
	# selftests/bench/vm-gpu.sh traces each vblank's programmed time, its
	# timer callback, the composition that covered it and when it ended,
	# under CPU and memory load, for GPU_VARIANTS (default, fifo 50 on
	# vkms_composer, and both with ksoftirqd at FIFO 50: vkms's timer is
	# a soft hrtimer, run by ksoftirqd on 6.12 PREEMPT_RT) at each rate
	# of RATES (60 240 Hz), ROUNDS (5) rounds in a seeded order (SEED),
	# DURATION (10) s of trace per run, mode SIZE (160x120), MEMHOG_MB
	# (64) for the memory load; gpu-stats.py makes the tables. On the
	# production-like kernel (GPU_KERNEL, prod: DRM and vkms built in, no
	# fbdev emulation: nothing but the bench lights the CRTC). The boot
	# holds /tmp/wqrt-bench.lock (WQRT_BENCH_LOCK= to skip it). TAG names
	# the result files (gpu-DATE-TAG.*).
	kernel=${GPU_KERNEL:-prod}
	rounds=${ROUNDS:-5} duration=${DURATION:-10} size=${SIZE:-160x120}
	rates=${RATES:-60 240} memhog=${MEMHOG_MB:-64}
	gvariants=${GPU_VARIANTS:-default fifo50 default-sirq50 fifo50-sirq50}
	[[ "$rounds" =~ ^[1-9][0-9]?$ ]] || { echo "bench-gpu: ROUNDS=$rounds: 1 to 99, please" >&2; exit 2; }
	[[ "$duration" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-gpu: DURATION=$duration: seconds, 1 to 999" >&2; exit 2; }
	[[ "$size" =~ ^[1-9][0-9]{1,3}x[1-9][0-9]{1,3}$ ]] || { echo "bench-gpu: SIZE=$size: WIDTHxHEIGHT, please" >&2; exit 2; }
	[[ "$memhog" =~ ^[0-9]{1,4}$ ]] || { echo "bench-gpu: MEMHOG_MB=$memhog: 0 to 9999" >&2; exit 2; }
	runs=
	for hz in $rates; do
		[[ "$hz" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "bench-gpu: RATES: '$hz' is not a rate of 1 to 999 Hz" >&2; exit 2; }
		for v in $gvariants; do runs="$runs $v-$hz"; done
	done
	runs=${runs# }
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	stage=$(build_flavour "$kernel")
	kdir=$(cat "$stage/.kdir")
	grep -q '^CONFIG_DRM_VKMS=y' "$kdir/obj/.config" ||
		{ echo "bench-gpu: $kernel has no built-in vkms (CONFIG_DRM_VKMS=y)" >&2; exit 2; }
	# the DRM uapi headers of the kernel itself (no libdrm in the guest,
	# none on the host): __user is the kernel's annotation, which
	# headers_install strips
	gcc -static -O2 -Wall -Wextra -Werror -D__user= -idirafter "$kdir/src/include/uapi" \
		-o "$stage/vkms_frames" "$top/selftests/bench/vkms_frames.c"
	orders "$seed" "$rounds" "$runs" >"$stage/order"
	cp "$top/selftests/bench/vm-gpu.sh" "$stage/vm-gpu.sh"
	# the script's settings travel in its first lines
	sed -i "s/^ROUNDS=.*/ROUNDS=$rounds/; s/^RUNS=.*/RUNS=\"$runs\"/; s/^DURATION=.*/DURATION=$duration/;
		s/^SIZE=.*/SIZE=$size/; s/^MEMHOG_MB=.*/MEMHOG_MB=$memhog/" "$stage/vm-gpu.sh"
	date=$(date -u +%Y-%m-%d)
	base=gpu-$date${TAG:+-$TAG}
	res=$top/selftests/bench/results
	lock=${WQRT_BENCH_LOCK-/tmp/wqrt-bench.lock}
	steal() { # the host's steal and total jiffies, from /proc/stat
		awk '$1 == "cpu" { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t }' /proc/stat
	}
	[ -z "$lock" ] || { exec 7>"$lock"; echo "bench-gpu: waiting for $lock"; flock 7; }
	start=$(date +%s)
	load_before=$(cat /proc/loadavg) steal_before=$(steal)
	echo "bench-gpu: $kernel, $rounds rounds of: $runs ($duration s each)"
	boot "$kernel" "$stage/vm-gpu.sh" gpu \
		$((600 + rounds * $(echo "$runs" | wc -w) * (duration + 25)))
	load_after=$(cat /proc/loadavg) steal_after=$(steal)
	vm_s=$(($(date +%s) - start))
	[ -z "$lock" ] || exec 7>&-
	log=$out/gpu.log
	sed -i 's/\r$//' "$log"
	grep -q '^I kernel' "$log" || { cat "$out/gpu.vmout"; exit 1; }
	grep '^E ' "$log" && { cat "$out/gpu.vmout"; exit 1; }
	grep -q '^I done' "$log" || { tail -n 30 "$out/gpu.vmout"; echo "bench-gpu: the guest did not finish" >&2; exit 1; }
	raw=$out/gpu.raw
	grep -E '^[IOWFRKCV] ' "$log" >"$raw"
	{
		echo "# The GPU case, vkms as the stand-in: make bench-gpu ($date${TAG:+, $TAG})"
		echo
		echo "Command: \`$(for x in ROUNDS DURATION SIZE RATES MEMHOG_MB GPU_KERNEL GPU_VARIANTS TAG; do [ -z "${!x:-}" ] || printf '%s=%q ' "$x" "${!x}"; done)SEED=$seed make bench-gpu\`;"
		echo "selftests/bench/vm-gpu.sh says what the guest does, gpu-stats.py how"
		echo "the tables are made. One boot of $kernel, $vm_s s from taking the lock to"
		echo "the guest's power-off."
		echo
		echo "## Environment"
		echo
		env_record gpu "$kernel" "$load_before" "$load_after"
		echo "- host steal time over the boot: $(echo "$steal_before $steal_after" | awk '{ d = $4 - $2; printf "%.1f", (d > 0 ? 100 * ($3 - $1) / d : 0) }') %"
		echo "- .config: selftests/bench/results/$base-$kernel.config.xz"
		echo
		echo '```'
		grep '^I ' "$log" | cut -c3-
		grep '^O ' "$log" | sed 's/^O /round /'
		echo "order of the rounds drawn from seed $seed"
		echo '```'
		echo
		SEED=$seed python3 "$top/selftests/bench/gpu-stats.py" "$raw"
	} >"$out/gpu.md"
	cp "$out/gpu.md" "$res/$base.md"
	xz -9 <"$raw" >"$res/$base.raw.xz"
	xz -9 <"$kdir/obj/.config" >"$res/$base-$kernel.config.xz"
	cat "$out/gpu.md"
	echo "bench: table $out/gpu.md, raw $raw (copies under selftests/bench/results/$base.*)"
	;;
imu)
	# seed 004: IMU frames through the 8250's flip buffer workqueue
	# (ttyS-serial_8250) in loopback, one boot, the variants interleaved. The
	# prod flavour (production-like, kernel/configs/prod.config) has the
	# 8250 (x86_64.config) and the trace events; on a kernel without them
	# vm-imu.sh says so and the queue_work -> flush_to_ldisc column says
	# "not measured".
	kernel=${IMU_KERNEL:-prod}
	stage=$(build_flavour "$kernel")
	gcc -static -O2 -Wall -Wextra -Werror -pthread \
		-o "$stage/imu_uart" "$top/selftests/bench/imu_uart.c"
	# 100 frames/s: under TCG, 5000 frames at 1 kHz took 9 to 21 s to
	# send, the writer up to 16 s behind its schedule in every variant
	# (results/imu-2026-11-30-1khz-saturated.*)
	rounds=${ROUNDS:-5} count=${COUNT:-1000} period_us=${PERIOD_US:-10000}
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	orders "$seed" "$rounds" "${VARIANTS:-default nice-20 fifo20-cpu0 fifo20-cpu0-private-reserve}" >"$stage/order"
	cp "$top/selftests/bench/vm-imu.sh" "$stage/vm-imu.sh"
	# the script's settings travel in its first lines
	sed -i "s/^ROUNDS=.*/ROUNDS=$rounds/; s/^COUNT=.*/COUNT=$count/; s/^PERIOD_US=.*/PERIOD_US=$period_us/" \
		"$stage/vm-imu.sh"
	load_before=$(cat /proc/loadavg)
	boot "$kernel" "$stage/vm-imu.sh" imu $((900 + rounds * 4 * (count * period_us / 1000000 + 45)))
	load_after=$(cat /proc/loadavg)
	log=$out/imu.log
	# the TAP UART's lines end in CRLF: a number with a \r compares as
	# a string in awk
	sed -i 's/\r$//' "$log"
	grep -q '^I kernel' "$log" || { cat "$out/imu.vmout"; exit 1; }
	grep '^E ' "$log" && { cat "$out/imu.vmout"; exit 1; }
	variants="default nice-20 fifo20-cpu0 fifo20-cpu0-private-reserve"
	d=$out/imu
	rm -rf "$d"
	mkdir -p "$d"
	# per variant and round: latencies (ns) of the frames that came,
	# inter-arrival deviation |arrival(k) - arrival(k-1) - period| (ns)
	# between consecutive frames that both came, writer lateness (ns),
	# and the UART path alone: arrival - the writer's write() (ns)
	awk -v d="$d" -v p=$((period_us * 1000)) '
	$1 == "F" {
		k = $2 "." $3
		print $5 >(d "/wl." k)
		if ($6 < 0)
			next
		print $6 >(d "/lat." k)
		print $6 - $5 >(d "/path." k)
		a = $4 * p + $6
		if ((k in last) && last[k] == $4 - 1) {
			j = a - arr[k] - p
			print (j < 0 ? -j : j) >(d "/jit." k)
		}
		last[k] = $4
		arr[k] = a
	}
	$1 == "T" { print $4 >(d "/trace." $2 "." $3) }' "$log"
	pct() { # FILES...: count p50 p99 p99.9 max (us) of their numbers
		cat "$@" 2>/dev/null | percentiles
	}
	late() { # NS FILES...: % of the frames sent that came later than NS or never
		local ns=$1
		shift
		cat "$@" 2>/dev/null | awk -v ns="$ns" -v n="$sent" -v lost="$lost" \
			'$1 > ns + 0 { l++ } END { printf "%.2f", n ? 100 * (l + lost) / n : 0 }'
	}
	xsum() { # FIELD VARIANT [ROUND]: sum of an X line field
		awk -v f="$1" -v v="$2" -v r="${3:-}" '$1 == "X" && $2 == v && (r == "" || $3 == r) {
			for (i = 4; i < NF; i += 2) if ($i == f) s += $(i + 1) } END { print s + 0 }' "$log"
	}
	trace_cell() { # FILES...: "p50 / p99 / max" us or "not measured"
		if cat "$@" 2>/dev/null | grep -q .; then
			pct "$@" | awk '{ printf "%s / %s / %s (%d)", $2, $3, $5, $1 }'
		else
			echo "not measured"
		fi
	}
	date=$(date -u +%Y-%m-%d)
	table=$out/imu.md
	{
		echo "# IMU frames over a UART under load ($date)"
		echo
		echo "Seed 004's case: 32-byte frames, one every ${period_us} us from an"
		echo "absolute-time clock, through the VM's third 16550 (ttyS2) in"
		echo "loopback, so every byte goes through the 8250's flip buffer"
		echo "workqueue ttyS-serial_8250 (flush_to_ldisc) to a reader. Latency: the"
		echo "reader's read() return - the frame's scheduled send time (a late"
		echo "writer is counted, no period is skipped). Late: frames later than"
		echo "the deadline, or lost, over the frames sent; the deadline is 2"
		echo "periods ($((2 * period_us / 1000)) ms: the next frame is due and the previous one is"
		echo "still missing, the IMU timestamp duplication of seed 004), 1 period"
		echo "beside it. Jitter: |inter-arrival - period| between consecutive"
		echo "frames. The rate is what the emulated UART carries under TCG: at"
		echo "1 kHz the writer fell seconds behind its schedule in every variant"
		echo "(results/imu-2026-11-30-1khz-saturated.*). Writer late: when"
		echo "write() started - the scheduled time, the guest's own floor; path:"
		echo "arrival - write() start, the UART, its IRQ thread and ttyS-serial_8250"
		echo "alone."
		echo "QEMU's 16550 passes the bytes on without pacing them at 115200 baud;"
		echo "a receive FIFO below its trigger level raises its interrupt only"
		echo "after a character timeout, which is in every variant's floor."
		echo
		echo "## Environment"
		echo
		env_record imu "$kernel" "$load_before" "$load_after"
		echo
		echo '```'
		grep '^I ' "$log" | cut -c3-
		grep '^O ' "$log" | sed 's/^O /round /'
		echo "order of the rounds drawn from seed $seed"
		echo '```'
		echo
		echo "Variants (the workqueue's attributes as each run saw them are the"
		echo "W lines of the raw samples): default (policy normal, nice 0, all"
		echo "CPUs); nice-20 (what mainline allows); fifo20-cpu0 (policy fifo,"
		echo "rtprio 20, cpumask CPU 0, the writer's and the reader's CPU);"
		echo "fifo20-cpu0-private-reserve (the same plus private 1,"
		echo "nr_idle_extra 2)."
		echo
		echo "## All rounds"
		echo
		echo "Pooled over the rounds; [min-max] of the per-round figures."
		echo
		echo "| variant | rounds | frames | lost | corrupt | p50 us | p99 us [rounds] | p99.9 us | max us [rounds] | late > $((2 * period_us / 1000)) ms % [rounds] | late > $((period_us / 1000)) ms % [rounds] | jitter p99 us | path p50 / p99 [rounds] / max us | queue_work -> flush_to_ldisc p50 / p99 / max us (n) |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for v in $variants; do
			rs=$(awk -v v=$v '$1 == "X" && $2 == v { print $3 }' "$log" | sort -n | xargs)
			if [ -z "$rs" ]; then
				echo "| $v | 0 | skipped: $(awk -v v=$v '$1 == "V" && $2 == v { $1 = $2 = $3 = ""; print; exit }' "$log" | sed 's/^ *skipped: //') | | | | | | | | | | | |"
				continue
			fi
			sent=$(xsum frames $v) lost=$(xsum lost $v)
			read -r n p50 p99 p999 max < <(pct "$d"/lat.$v.*)
			rp99= rmax= r2= r1= rpath=
			for r in $rs; do
				read -r _ _ q99 _ qmax < <(pct "$d/lat.$v.$r")
				rp99="$rp99 $q99" rmax="$rmax $qmax"
				rpath="$rpath $(pct "$d/path.$v.$r" | cut -d' ' -f3)"
				r2="$r2 $(sent=$(xsum frames $v $r) lost=$(xsum lost $v $r) late $((2 * period_us * 1000)) "$d/lat.$v.$r")"
				r1="$r1 $(sent=$(xsum frames $v $r) lost=$(xsum lost $v $r) late $((period_us * 1000)) "$d/lat.$v.$r")"
			done
			range() { echo "$@" | tr ' ' '\n' | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "[%s-%s]", a, b }'; }
			read -r _ _ j99 _ _ < <(pct "$d"/jit.$v.*)
			read -r _ a50 a99 _ amax < <(pct "$d"/path.$v.*)
			echo "| $v | $(echo $rs | wc -w) | $sent | $lost | $(xsum corrupt $v) | $p50 | $p99 $(range $rp99) | $p999 | $max $(range $rmax) | $(late $((2 * period_us * 1000)) "$d"/lat.$v.*) $(range $r2) | $(late $((period_us * 1000)) "$d"/lat.$v.*) $(range $r1) | $j99 | $a50 / $a99 $(range $rpath) / $amax | $(trace_cell "$d"/trace.$v.*) |"
		done
		echo
		echo "## Per round"
		echo
		echo "| variant | round | frames | lost | corrupt | p50 us | p99 us | p99.9 us | max us | late > $((2 * period_us / 1000)) ms % | late > $((period_us / 1000)) ms % | jitter p50 / p99 / p99.9 / max us | writer late p99 / max us | path p50 / p99 / max us | queue_work -> flush_to_ldisc p50 / p99 / max us (n) |"
		echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
		for v in $variants; do
			for r in $(awk -v v=$v '$1 == "X" && $2 == v { print $3 }' "$log" | sort -n); do
				sent=$(xsum frames $v $r) lost=$(xsum lost $v $r)
				read -r _ p50 p99 p999 max < <(pct "$d/lat.$v.$r")
				read -r _ j50 j99 j999 jmax < <(pct "$d/jit.$v.$r")
				read -r _ _ w99 _ wmax < <(pct "$d/wl.$v.$r")
				read -r _ a50 a99 _ amax < <(pct "$d/path.$v.$r")
				echo "| $v | $r | $sent | $lost | $(xsum corrupt $v $r) | $p50 | $p99 | $p999 | $max | $(late $((2 * period_us * 1000)) "$d/lat.$v.$r") | $(late $((period_us * 1000)) "$d/lat.$v.$r") | $j50 / $j99 / $j999 / $jmax | $w99 / $wmax | $a50 / $a99 / $amax | $(trace_cell "$d/trace.$v.$r") |"
			done
		done
		echo
		grep '^V ' "$log" | sed 's/^V \([^ ]*\) \([^ ]*\) /- \1, round \2: /' || true
	} >"$table"
	# Survival curve: the share of frames at least this late, per variant
	for v in $variants; do
		cat "$d"/lat.$v.* 2>/dev/null | sort -n | awk '{ x[NR] = $1 / 1000 }
			END { for (i = 1; i <= NR; i++) print x[i], (NR - i + 1) / NR }' \
			>"$d/surv.$v.dat"
	done
	gnuplot <<GP
set terminal pngcairo size 1000,600 noenhanced
set output "$out/imu.png"
set title "IMU frames through ttyS2 under load: share of frames at least this late (1-CDF)"
set logscale xy
set xlabel "frame latency, scheduled send to read() return (us)"
set ylabel "share of frames"
set arrow from $((2 * period_us)), graph 0 to $((2 * period_us)), graph 1 nohead dt 2
set label "deadline $((2 * period_us / 1000)) ms" at $((2 * period_us)), graph 0.5 offset 1,0
set key bottom left
set grid
plot for [v in "$variants"] "$d/surv.".v.".dat" using 1:2 with lines lw 2 title v
GP
	res=$top/selftests/bench/results
	cp "$table" "$res/imu-$date.md"
	cp "$out/imu.png" "$res/imu-$date.png"
	grep -E '^[IOFXWTV] ' "$log" | xz -9 >"$res/imu-$date.raw.xz"
	cat "$table"
	echo "bench: table $table, plot $out/imu.png, raw samples $log (copies under selftests/bench/results/imu-$date.*)"
	;;
*)
	echo "usage: run.sh latency|enqueue|flush|imu|reserve|cost|gpu" >&2
	exit 2
	;;
esac
