#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh latency|latency-scenarios|burst|enqueue|flush|imu|reserve|cost|flush-sweep|gpu|gpu-submit:
# `make bench-latency` (latency, latency-scenarios, then burst) / `make
# bench-burst` / `make bench-enqueue` / `make bench-flush` / `make
# bench-imu` / `make bench-reserve` / `make bench-cost` / `make
# bench-flush-sweep` / `make bench-gpu`.
# Numbers, not tests: every figure is measured side by side in one run, the
# variants interleaved, and reported as a table (markdown) and a plot (PNG)
# under build/bench/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
out=$build/bench
mkdir -p "$out"
what=${1:?usage: run.sh latency|latency-scenarios|burst|enqueue|flush|imu|reserve|cost|flush-sweep|gpu|gpu-submit}
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

# A latency benchmark runs on a quiet host or not at all (quiet.sh): the
# host is checked when the bench lock is taken and before every boot, and
# every result says how the checks went (a forced run first). Boots that
# count instructions, or time on the guest's instruction clock (-icount),
# are not checked (quiet_exempt=1: the host's load does not change what
# they measure): the counting boots of cost and flush-sweep, and the timed
# boots of cost with ICOUNT=1. Its timed boots on the host's clock are.
. "$top/selftests/bench/quiet.sh"
quiet_rec=$out/quiet-$what.record
: >"$quiet_rec"
# the boots of this run, "NAME KERNEL" a line: env_record gives the host
# per round of each boot of its kernel (quiet.sh's round_watch)
rounds_list=$out/rounds-$what.list
: >"$rounds_list"
quiet_check() { # WHO
	[ "${quiet_exempt:-0}" = 0 ] && [ "$what" != flush-sweep ] || return 0
	host_quiet "$1" "$quiet_rec"
}

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
	local k=$1 script=$2 name=$3 t=$4 stage s0 l0
	stage=$out/stage-$k
	quiet_check "bench-$what: boot $name"
	s0=$(steal) l0=$(cut -d' ' -f1-3 /proc/loadavg)
	cp "$script" "$stage/run.sh"
	cp "$top/selftests/bench/load.sh" "$top/selftests/bench/wqattr.sh" "$stage/"
	# the host during each of the boot's rounds: the guest's "O ROUND"
	# lines, read as they come; a tap.log of an earlier run must not count
	rm -f "$build/vm/bench-$name/tap.log"
	round_watch_start "$build/vm/bench-$name/tap.log" "$out/$name.rounds"
	"$top/selftests/vm/vm.sh" script "$(cat "$stage/.kdir")" "$stage/run.sh" \
		--name "bench-$name" --timeout "$t" >"$out/$name.vmout" 2>&1 || true
	round_watch_stop "$out/$name.rounds"
	echo "$name $k" >>"$rounds_list"
	cp "$build/vm/bench-$name/tap.log" "$out/$name.log"
	# The accelerator the numbers were measured with goes with them.
	cp "$build/vm/bench-$name/accel" "$out/$name.accel" 2>/dev/null || true
	# the host during this boot: its load before and after, its steal
	echo "load $l0 -> $(cut -d' ' -f1-3 /proc/loadavg), steal $(steal_pct "$s0" "$(steal)") %" >"$out/$name.host"
}

# The boots, not the builds, hold the host-wide bench lock, so that two
# benchmarks never share the host's CPUs (WQRT_BENCH_LOCK= to skip it).
bench_lock() { # WHO: wait for the lock on fd 7
	lock=${WQRT_BENCH_LOCK-/tmp/wqrt-bench.lock}
	[ -z "$lock" ] || {
		exec 7>"$lock"
		echo "$1: waiting for $lock"
		flock 7
	}
	quiet_check "$1"
}

bench_unlock() {
	[ -z "$lock" ] || exec 7>&-
}

accel_of() { # NAME: "kvm" or "tcg" as run-vm.sh chose it for that run
	head -n 1 "$out/$1.accel" 2>/dev/null || echo unknown
}

series_id() { # the series a kernel of this run carries: a hash of its files, and git's last commit of them
	local h c
	h=$(cd "$top/kernel" && { cat series; sed 's|^|patches/|' series | xargs cat; cat stable/*.patch; } 2>/dev/null |
		sha256sum | cut -c1-12)
	c=$(git -C "$top" log -1 --format=%h -- kernel/series kernel/patches kernel/stable 2>/dev/null || true)
	echo "series sha256 $h (kernel/series, its patches, kernel/stable)${c:+, last changed in commit $c}$(git -C "$top" diff --quiet HEAD -- kernel 2>/dev/null || echo ', with uncommitted changes')"
}

env_record() { # NAME KERNEL LOAD_BEFORE LOAD_AFTER: markdown list, every result carries it
	# KERNEL@N has no build/kernel-* link of its own: its stage knows the tree
	local log=$out/$1.log kcfg
	kcfg=$(cat "$out/stage-$2/.kdir" 2>/dev/null || echo "$build/kernel-$2")/obj/.config
	echo "- kernel: $2 flavour, $(grep -E '^CONFIG_HZ=' "$kcfg"), $(grep -q '^CONFIG_PREEMPT_RT=y' "$kcfg" && echo PREEMPT_RT || echo "not PREEMPT_RT"), $(grep -q '^CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y' "$kcfg" && echo -O2 || echo -Os), lock debugging $(grep -qE '^CONFIG_(LOCKDEP|LOCK_STAT|DEBUG_SPINLOCK)=y' "$kcfg" && echo on || echo off), trace events $(grep -q '^CONFIG_EVENT_TRACING=y' "$kcfg" && echo on || echo off); .config sha256 $(sha256sum <"$kcfg" | cut -c1-16)"
	echo "- host: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs; $(qemu-system-x86_64 --version | head -n 1)"
	echo "- accelerator: $(accel_of "$1") ($(sed -n 2p "$out/$1.accel" 2>/dev/null))"
	echo "- guest: $(sed -n 's/^I kernel .* vcpus \([0-9]*\) .*/\1/p' "$log") vCPUs, clocksource $(sed -n 's/^I clocksource //p' "$log" | awk '!seen[$0]++' | paste -sd' ' | sed 's/ /, then /g')"
	echo "- $(series_id)"
	echo "- host load (/proc/loadavg) before: $3; after: $4"
	echo "- wall clock: run.sh $what started $started UTC, this record $(date -u +%H:%M) UTC"
	[ ! -s "$out/$1.host" ] || echo "- host during the boot: $(cat "$out/$1.host")"
	quiet_record "$quiet_rec"
	local name kernel
	while read -r name kernel; do
		[ "$kernel" != "$2" ] || rounds_record "$name" "$out/$name.rounds"
	done <"$rounds_list"
}

one_boot_environment() { # NAME KERNEL LOAD_BEFORE LOAD_AFTER SEED BASE: a one-boot result's environment section
	local log=$out/$1.log
	echo "## Environment"
	echo
	env_record "$1" "$2" "$3" "$4"
	echo "- .config: selftests/bench/results/$6-$2.config.xz"
	echo
	echo '```'
	grep '^I ' "$log" | cut -c3-
	grep '^O ' "$log" | sed 's/^O /round /'
	echo "order of the rounds drawn from seed $5"
	echo '```'
}

survival_plot_head() { # SIZE PNG LAYOUT TITLE MARK_US: a multiplot of 1-CDFs, log-log
	cat <<GP
set terminal pngcairo size $1 noenhanced
set output "$2"
set multiplot layout $3 title "$4"
set logscale xy
set xlabel "latency (us)"
set ylabel "share"
set arrow from $5, graph 0 to $5, graph 1 nohead dt 2
set key top right
set grid
GP
}

plot_set() { # TITLE VARIANTS...: a gnuplot panel, the survival curves
	# ($d/surv-VARIANT.dat) of those that ran
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

# The counting boots of make bench-cost and make bench-flush-sweep: one
# TCG thread (the vCPUs take turns), the guest's clock on instructions
# (-icount shift=0,sleep=off: timer ticks land at the same instructions on
# any host) and the wqcount plugin (selftests/bench/cost/wqcount.c) around
# the cases of wqrt_bench's cost command (selftests/bench/vm-cost.sh).
count_boot() { # KERNEL SMP NAME RUNS [CASES]: $out/NAME.{log,plugin,map,env}
	local k=$1 smp=$2 name=$3 runs=$4 cases=${5:-} before after
	# counts do not depend on the host's load (boot() sees this)
	local quiet_exempt=1
	if [ -z "${wqcount_built:-}" ]; then
		gcc -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
			-o "$out/wqcount.so" "$top/selftests/bench/cost/wqcount.c"
		wqcount_built=1
	fi
	cp "$top/selftests/bench/vm-cost.sh" "$out/stage-$k/vm-cost.sh"
	sed -i "s/^RUNS=.*/RUNS=$runs/" "$out/stage-$k/vm-cost.sh"
	[ -z "$cases" ] || sed -i "s/^CASES=.*/CASES=\"$cases\"/" "$out/stage-$k/vm-cost.sh"
	echo "bench-$what: counting on $k, -smp $smp ($runs runs a case, one TCG thread, wqcount plugin)"
	rm -f "$out/$name.plugin"
	before=$(cat /proc/loadavg)
	WQRT_VM_SMP=$smp WQRT_VM_TCG_THREAD=single WQRT_VM_ACCEL=tcg \
	WQRT_VM_APPEND="$WQRT_VM_APPEND nokaslr" \
	WQRT_VM_QEMU_ARGS="-icount shift=0,sleep=off -plugin $out/wqcount.so,arg=lines=on -d plugin -D $out/$name.plugin" \
		boot "$k" "$out/stage-$k/vm-cost.sh" "$name" 3600 </dev/null
	after=$(cat /proc/loadavg)
	sed -i 's/\r$//' "$out/$name.log"
	if ! grep -q '^I kernel' "$out/$name.log" ||
		! grep -q '^B ' "$out/$name.log" ||
		! grep -q '^E wqcount done' "$out/$name.plugin"; then
		cat "$out/$name.vmout"
		echo "bench-$what: the counting boot $name on $k did not finish" >&2
		exit 1
	fi
	cp "$(cat "$out/stage-$k/.kdir")/obj/System.map" "$out/$name.map"
	{
		env_record "$name" "$k" "$before" "$after"
		echo "- the counts do not depend on the host's load or steal time"
	} >"$out/$name.env"
}

save_config() { # KERNEL FILE: the kernel's .config, xz-compressed, beside a result
	xz -9 <"$(cat "$out/stage-$1/.kdir")/obj/.config" >"$2"
}

orders() { # SEED ROUNDS VARIANTS: one line per round, the variants in a random order drawn from SEED
	python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]))
v = sys.argv[3].split()
for _ in range(int(sys.argv[2])):
	rng.shuffle(v)
	print(" ".join(v))' "$@"
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
	orders "$seed" "$rounds" "$variants" >"$stage/order"
	cp "$top/selftests/bench/vm-latency.sh" "$stage/vm-latency.sh"
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
		cp "$top/selftests/bench/vm-scenarios.sh" "$stage/vm-scenarios.sh"
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
			python3 "$top/selftests/bench/latency-stats.py" "$d/all.raw" "$d"
		DEADLINE_US=$deadline_us SEED=$seed VARIANTS=$order_rows \
			python3 "$top/selftests/bench/scenarios-stats.py" "$d/all.raw" "$d"
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
	;;
burst)
	# make bench-burst (and the end of make bench-latency): worker
	# creation on the production-like kernel (BURST_KERNEL, prod), one
	# boot, selftests/bench/vm-burst.sh: bursts of BURST_K (8) items on
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
		cp "$top/selftests/bench/vm-burst.sh" "$stage/vm-burst.sh"
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
	python3 "$top/selftests/bench/scenarios-stats.py" relabel "$log" |
		grep -E '^[IOBPWKV] ' >"$raw"
	rk=burst-r$burst_k
	pairs="burst-r0-culled:$rk-culled burst-r0-warm:$rk-warm burst-chrt-culled:burst-r0-culled burst-chrt-warm:burst-r0-warm"
	table=$out/burst.md
	{
		echo "# Worker creation: bursts after the idle cull, with and without a reserve, the stock way and the series' ($date)"
		echo
		echo "Command: \`$(for v in ROUNDS BURST_K BURST_WARM POOLS CULL_WAIT CULL_EXTRA BURST_KERNEL SUFFIX; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-burst\`;"
		echo "$(cat "$out/burst.minutes") min of boot. selftests/bench/vm-burst.sh says what the boot does."
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
		SEED=$seed python3 "$top/selftests/bench/scenarios-stats.py" "$raw" "$d"
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
	bench_lock bench-enqueue
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
	bench_unlock
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
	# kernel/variants/possible-cpus, booted with -smp 2,maxcpus=64 of
	# prod's NR_CPUS 512) for the flush cases (FLUSH_CASES, REPS x MS
	# ms; the first and the last the 2026-12-01 flush run found slower
	# on the series): one
	# thread queueing and flushing an unbound workqueue with its worker
	# where the scheduler puts it, on the thread's CPU (-same) and on
	# the other (-other), and a flush behind an item on each online
	# CPU's pwq. The timed boots run on the host's clock (multi-threaded
	# TCG: the vCPUs overlap, atomics and moved cache lines cost what the
	# host makes them cost) and only on a quiet host (quiet.sh), checked
	# before every boot; ICOUNT=1 runs them on the guest's instruction
	# clock instead, as the counting boots, which shows instruction paths
	# and scheduling order, never cost (the counts and bench-price are
	# for that). IDLE_POLL=1 boots the timed guests with idle=poll (a
	# vCPU never halts: the control for the cost of waking a halted
	# vCPU), each boot's /proc/cmdline checked and recorded.
	# Per-round ratios with intervals that resample the rounds, the
	# smallest cost the run could see, the host's load and steal time
	# per boot. COUNTS=0 or TIMES=0 skips a
	# part; TAG names the result files (cost-DATE-TAG.*); PREFIX_TREE
	# builds the prefixes of COUNT_KERNELS in one tree (above). The boots
	# hold /tmp/wqrt-bench.lock, as bench-enqueue's do.
	count_kernels=${COUNT_KERNELS:-prod-plain prod}
	runs=${RUNS:-100} rounds=${ROUNDS:-3}
	producers=${PRODUCERS:-8} items=${ITEMS:-50000}
	reps=${REPS:-3} ms=${MS:-1000} icount=${ICOUNT:-0} idle_poll=${IDLE_POLL:-0}
	flush_spin=${FLUSH_SPIN:-0}
	flush_cases=${FLUSH_CASES:-qf1-unbound qf1-unbound-same qf1-unbound-other dense-percpu}
	seed=${SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
	[[ "$icount" =~ ^[01]$ ]] || {
		echo "bench-cost: ICOUNT=$icount: 0 (the host's clock) or 1 (the guest's clock on instructions), please" >&2
		exit 2
	}
	[[ "$flush_spin" =~ ^[01]$ ]] || {
		echo "bench-cost: FLUSH_SPIN=$flush_spin: 0 or 1 (the flush cases on prod-flush-spin too), please" >&2
		exit 2
	}
	[[ "$idle_poll" =~ ^[01]$ ]] || {
		echo "bench-cost: IDLE_POLL=$idle_poll: 0 or 1 (the timed guests booted with idle=poll), please" >&2
		exit 2
	}
	# the host is checked only when there is a timing on its clock
	[ "${TIMES:-1}" = 1 ] && [ "$icount" = 0 ] || quiet_exempt=1
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
	{
		echo "# What the series costs everyone else: make bench-cost ($date${TAG:+, $TAG})"
		echo
		echo "Command: \`$(for v in COUNTS TIMES ICOUNT IDLE_POLL FLUSH_SPIN COUNT_KERNELS PREFIX_TREE RUNS ROUNDS PRODUCERS ITEMS REPS MS FLUSH_CASES TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-cost\`."
		echo
	} >"$out/cost.md"
	if [ "${COUNTS:-1}" = 1 ]; then
		bench_lock bench-cost
		for k in $count_kernels; do
			build_once "$k"
			# the flush flavours boot with their possible CPUs
			smp=2
			case "$k" in prod-flush*) smp=2,maxcpus=64 ;; esac
			count_boot "$k" "$smp" "cost-$k" "$runs"
		done
		bench_unlock
		{
			echo "## Counts (host-independent)"
			echo
			echo "Each case of wqrt_bench's cost command (selftests/bench/wqrt_bench.c) $runs times after"
			echo "an uncounted warm-up of 5 (the enqueue cases $(sed -n 's/^ENQ_RUNS=//p' "$top/selftests/bench/vm-cost.sh") times, their items as the tables say),"
			echo "on one boot per kernel under QEMU's TCG with one"
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
		# the series the counts measured, for make bench-price
		series_id >"$res/$base.series"
		for k in $count_kernels; do
			xz -9 <"$out/cost-$k.plugin" >"$res/$base-counts-$k.plugin.xz"
			# the symbols the tables by function resolve (make bench-tables)
			python3 "$top/selftests/bench/cost-stats.py" mapsubset "$out" "$k" |
				xz -9 >"$res/$base-counts-$k.map.xz"
			grep -E '^[IBKE] ' "$out/cost-$k.log" | xz -9 >"$res/$base-counts-$k.log.xz"
		done
	fi
	if [ "${TIMES:-1}" = 1 ]; then
		pairs="prod-plain prod prod-flush-plain prod-flush"
		# FLUSH_SPIN=1: the flush cases on a third kernel, the series
		# with a flusher that spins before it sleeps (issue 44.4)
		flush_kernels="prod-flush-plain prod-flush"
		if [ "$flush_spin" = 1 ]; then
			pairs="$pairs prod-flush-spin"
			flush_kernels="$flush_kernels prod-flush-spin"
		fi
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
		orders "$((seed + 1))" "$rounds" "$flush_kernels" >"$out/cost.order-flush"
		raw=$out/cost-times.raw
		: >"$raw"
		bench_lock bench-cost
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
		# ICOUNT=1: the guest's clock on instructions, as in the
		# counting boots (one TCG thread: icount excludes MTTCG), so a
		# nanosecond is an instruction on any host and the ratios
		# price every instruction alike: no host's cost of an atomic
		# or of a cache line moved between vCPUs decides them (the
		# counts price those), the guest's scheduling still does. The
		# TSC then runs on the same clock, there is nothing to give.
		time_vm_env=()
		if [ "$icount" = 1 ]; then
			tsc_append=
			time_vm_env=(WQRT_VM_TCG_THREAD=single WQRT_VM_ACCEL=tcg
				"WQRT_VM_QEMU_ARGS=-icount shift=0,sleep=off")
		fi
		[ "$idle_poll" = 0 ] || tsc_append="$tsc_append idle=poll"
		for r in $(seq 1 "$rounds"); do
			for k in $(sed -n "${r}p" "$out/cost.order-enqueue") $(sed -n "${r}p" "$out/cost.order-flush"); do
				echo "bench-cost: round $r/$rounds: $k"
				s0=$(steal) l0=$(cut -d' ' -f1-3 /proc/loadavg)
				smp=2
				case "$k" in prod-flush*) smp=2,maxcpus=64 ;; esac
				(
					[ "${#time_vm_env[@]}" = 0 ] || export "${time_vm_env[@]}"
					WQRT_VM_SMP=$smp WQRT_VM_APPEND="${WQRT_VM_APPEND:-} $tsc_append" \
						boot "$k" "$out/stage-$k/vm-cost-times.sh" "cost-t-$k-$r" 1800 </dev/null
				)
				log=$out/cost-t-$k-$r.log
				sed -i 's/\r$//' "$log"
				grep -q '^I kernel' "$log" || { cat "$out/cost-t-$k-$r.vmout"; exit 1; }
				grep '^E ' "$log" && { cat "$out/cost-t-$k-$r.vmout"; exit 1; }
				# the control's parameter, in force or the run stops
				if [ "$idle_poll" = 1 ] && ! grep -q '^I cmdline .*\bidle=poll\b' "$log"; then
					echo "bench-cost: IDLE_POLL=1 but the guest of cost-t-$k-$r booted without idle=poll: $(grep '^I cmdline' "$log" || echo 'no cmdline line')" >&2
					exit 1
				fi
				echo "$k $r H load $l0 steal $(steal_pct "$s0" "$(steal)") % accel $(accel_of "cost-t-$k-$r") $(grep '^I clocksource' "$log" | awk '{ print $3 }' | paste -sd, -)" >>"$raw"
				# a metric's figure in a boot: the median of its samples
				awk '$1 == "S" { print $2, $3 }' "$log" | sort -k1,1 -k2g |
					awk -v p="$k $r" '{ v[$1] = v[$1] " " $2 } END {
						for (m in v) { n = split(v[m], a, " "); print p, m, a[int((n + 1) / 2)] } }' >>"$raw"
				awk -v p="$k $r" '$1 == "S" || $1 == "L" { print p, "R", $0 }' "$log" >>"$raw"
			done
		done
		bench_unlock
		load_after=$(cat /proc/loadavg) steal_after=$(steal)
		{
			echo "## Times"
			echo
			echo "$rounds rounds. In each, prod-plain and prod (-smp 2) boot in an order"
			echo "drawn from seed $seed, for seed 000's enqueue benchmark: $producers producer kthreads"
			echo "x $items work items on a WQ_UNBOUND workqueue in the affinity scope cpu (a"
			echo "pool per CPU: per-CPU) and system (one pool for both CPUs: shared), $reps"
			echo "samples each, the scopes alternating, each after a warm-up (items_per_sec: items queued"
			echo "and run a second; p50_ns, p99_ns: how long one queue_work() call took, seed 000's"
			echo "enqueue latency); then prod-flush-plain and prod-flush (prod-plain and"
			echo "prod, which carry kernel/variants/possible-cpus, booted with -smp 2,maxcpus=64: 64 possible, 2 online"
			echo "CPUs) in an order drawn from seed $((seed + 1)), for seed 003's flush rates"
			echo "of $flush_cases ($reps samples of $ms ms each; a case's -same or -other puts the"
			echo "unbound workqueue's worker on the flushing thread's CPU or the other one, through"
			echo "its cpumask, where the case without it leaves the choice to the scheduler). A metric's figure in a"
			echo "boot is the median of its samples. The"
			echo "second kernel of a pair against the first: the median of the per-round"
			echo "ratios, a bootstrap 95 % interval that resamples the rounds (boots);"
			echo "\"smallest cost detectable\" is half that interval's width: a true"
			echo "difference smaller than it would leave 1 inside an interval this wide."
			echo "With 3 rounds the interval spans the rounds' extremes."
			echo "Enqueue order: $(paste -sd';' "$out/cost.order-enqueue" | sed 's/;/; /g'); flush order: $(paste -sd';' "$out/cost.order-flush" | sed 's/;/; /g')."
			if [ "$icount" = 1 ]; then
				echo "The guests' clock: instructions (ICOUNT=1: -icount shift=0,sleep=off, one TCG thread),"
				echo "a nanosecond an instruction on any host; every instruction is priced alike, the"
				echo "guest's scheduling (who waits for whom) still counts, the host's load does not."
			else
				echo "The guests' TSC frequency: ${tsc_append:-calibrated by each boot (the host does not know its own)}."
			fi
			echo "$(( ($(date +%s) - start) / 60 )) min in all (the counting boots included)."
			echo
			# shellcheck disable=SC2046 # the spin's pairs, a kernel a word
			SEED=$seed python3 "$top/selftests/bench/cost-stats.py" times "$raw" \
				prod-plain prod prod-flush-plain prod-flush \
				$([ "$flush_spin" = 0 ] || echo prod-flush-plain prod-flush-spin prod-flush prod-flush-spin)
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
			for k in prod-plain prod $flush_kernels; do
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
		save_config "$k" "$res/$base-$k.config.xz"
	done
	cp "$out/cost.md" "$res/$base.md"
	cat "$out/cost.md"
	echo "bench: table $out/cost.md (copies under selftests/bench/results/$base.*)"
	;;
flush-sweep)
	# make bench-flush-sweep (issue 32.3, the flush half): does a flush
	# depend on the number of possible CPUs? 6.12's flush_workqueue()
	# visits every pwq, one per possible CPU; patch 4's visits the listed
	# ones. Counted, host-independent, as make bench-cost counts
	# (count_boot: one TCG thread, -icount, the wqcount plugin), the flush
	# cases of wqrt_bench's cost command (CASES) RUNS (100) times each,
	# on each kernel of KERNELS (prod-plain prod, booted in that order;
	# BASE, the first by default, is what the others are compared with)
	# booted with -smp 2,maxcpus=N for each N of POSSIBLE: 2 online CPUs,
	# N possible (the prod kernels carry kernel/variants/possible-cpus).
	# Every boot must report N possible CPUs. POSSIBLE's largest is what
	# QEMU's -machine pc accepts (255 for QEMU 7.2; its q35 takes 288
	# only with KVM's in-kernel irqchip and X2APIC API, not under TCG)
	# and the kernel's NR_CPUS (512 in prod.config). Each kernel is built
	# (linked to the shared tree) before its boots, outside
	# /tmp/wqrt-bench.lock, which its boots hold. TAG names the result
	# files (flush-sweep-DATE-TAG.*).
	kernels=${KERNELS:-prod-plain prod}
	base_k=${BASE:-${kernels%% *}}
	possible=${POSSIBLE:-8 64 192 255}
	runs=${RUNS:-100}
	cases=${CASES:-flush-idle-percpu flush-idle-unbound qf-percpu qf-unbound dense-percpu}
	[[ "$runs" =~ ^[1-9][0-9]{0,3}$ ]] || { echo "bench-flush-sweep: RUNS=$runs: 1 to 9999, please" >&2; exit 2; }
	case " $kernels " in *" $base_k "*) ;; *)
		echo "bench-flush-sweep: BASE=$base_k is not one of KERNELS ($kernels)" >&2; exit 2 ;;
	esac
	# QEMU says its machine's maximum when asked for more
	qemu_max=$({ timeout 20 qemu-system-x86_64 -machine pc -accel tcg -smp 1,maxcpus=100000 \
		-display none -monitor none -serial none -nodefaults -S 2>&1 </dev/null || true; } |
		sed -n 's/.*max CPUs supported by machine .* is \([0-9]*\).*/\1/p')
	[ -n "$qemu_max" ] || { echo "bench-flush-sweep: cannot learn -machine pc's CPU maximum from QEMU" >&2; exit 2; }
	for n in $possible; do
		if ! [[ "$n" =~ ^[1-9][0-9]{0,3}$ ]] || [ "$n" -lt 2 ] || [ "$n" -gt "$qemu_max" ]; then
			echo "bench-flush-sweep: POSSIBLE: '$n' is not 2 to $qemu_max (QEMU's -machine pc under TCG)" >&2
			exit 2
		fi
	done
	date=$(date -u +%Y-%m-%d)
	res=$top/selftests/bench/results
	base=flush-sweep-$date${TAG:+-$TAG}
	start=$(date +%s)
	booted=
	: >"$out/flush-sweep.boots"
	for k in $kernels; do
		build_once "$k"
		nr=$(sed -n 's/^CONFIG_NR_CPUS=//p' "$(cat "$out/stage-$k/.kdir")/obj/.config")
		nr_cpus="${nr_cpus:+$nr_cpus, }$k $nr"
		bench_lock bench-flush-sweep
		for n in $possible; do
			[ "$n" -le "$nr" ] || { echo "bench-flush-sweep: $k has NR_CPUS $nr, not $n" >&2; exit 2; }
			count_boot "$k" "2,maxcpus=$n" "cost-$k-n$n" "$runs" "$cases"
			# the boot must have seen what it was given
			seen=$(sed -n 's/^I possible \([^ ]*\) online \([^ ]*\)$/\1 \2/p' "$out/cost-$k-n$n.log")
			[ "$seen" = "0-$((n - 1)) 0-1" ] || {
				echo "bench-flush-sweep: $k with -smp 2,maxcpus=$n saw possible/online '$seen', not 0-$((n - 1)) 0-1" >&2
				exit 1
			}
			echo "$k $n ${seen% *} ${seen#* }" >>"$out/flush-sweep.boots"
			booted="$booted $k-n$n"
		done
		bench_unlock
	done
	others=
	for k in $kernels; do [ "$k" = "$base_k" ] || others="$others $k"; done
	{
		echo "# Does a flush depend on the number of possible CPUs? make bench-flush-sweep ($date${TAG:+, $TAG})"
		echo
		echo "Command: \`$(for v in KERNELS BASE POSSIBLE RUNS CASES TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)make bench-flush-sweep\`."
		echo "$(( ($(date +%s) - start) / 60 )) min in all, builds and waits for the bench lock included."
		echo
		echo "Issue 32.3: patch 4 says the series' flush no longer depends on the"
		echo "number of possible CPUs, where 6.12's flush_workqueue() visits a pwq"
		echo "per possible CPU. Each kernel booted once per number N of possible"
		echo "CPUs with -smp 2,maxcpus=N (2 online; kernel/variants/possible-cpus"
		echo "counts QEMU's hot-pluggable CPUs as possible), and the cases"
		echo "$cases of wqrt_bench's cost command (selftests/bench/wqrt_bench.c) run"
		echo "$runs times each after a warm-up of 5, counted as make bench-cost counts"
		echo "(one TCG thread, the guest's clock on instructions, the wqcount plugin,"
		echo "selftests/bench/cost/wqcount.c). The largest N is $qemu_max at most: QEMU's"
		echo "-machine pc takes no more ($(qemu-system-x86_64 --version | head -n 1)),"
		echo "and its q35 takes 288 only with KVM's in-kernel irqchip and X2APIC API,"
		echo "not under TCG. The kernels' NR_CPUS: $nr_cpus."
		echo
		echo "Possible and online CPUs each boot reported (/sys/devices/system/cpu):"
		echo
		echo "| kernel | maxcpus | possible | online |"
		echo "|---|---|---|---|"
		awk '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$out/flush-sweep.boots"
		echo
		python3 "$top/selftests/bench/cost-stats.py" sweep "$out" "$base_k" "$others" "$possible"
		echo
		echo "## Environment, per boot"
		for b in $booted; do
			echo
			echo "### $b"
			echo
			cat "$out/cost-$b.env"
		done
		echo
		echo "## Raw data and kernels"
		echo
		echo "Per boot: the plugin's output (W: each window's counts, H: where, by"
		echo "guest PC and call site) in selftests/bench/results/$base-BOOT.plugin.xz,"
		echo "the guest's lines (I, B, K) in $base-BOOT.log.xz; each kernel's .config in"
		echo "$base-KERNEL.config.xz, the symbols the plugin's addresses resolve to"
		echo "in $base-BOOT.map.xz. cost-stats.py sweep makes these tables from them."
	} >"$out/flush-sweep.md"
	for b in $booted; do
		xz -9 <"$out/cost-$b.plugin" >"$res/$base-$b.plugin.xz"
		python3 "$top/selftests/bench/cost-stats.py" mapsubset "$out" "$b" |
			xz -9 >"$res/$base-$b.map.xz"
		grep -E '^[IBKE] ' "$out/cost-$b.log" | xz -9 >"$res/$base-$b.log.xz"
	done
	for k in $kernels_built; do
		save_config "$k" "$res/$base-$k.config.xz"
	done
	cp "$out/flush-sweep.md" "$res/$base.md"
	cat "$out/flush-sweep.md"
	echo "bench: table $out/flush-sweep.md (copies under selftests/bench/results/$base.*)"
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
	bench_lock bench-gpu
	start=$(date +%s)
	load_before=$(cat /proc/loadavg)
	echo "bench-gpu: $kernel, $rounds rounds of: $runs ($duration s each)"
	boot "$kernel" "$stage/vm-gpu.sh" gpu \
		$((600 + rounds * $(echo "$runs" | wc -w) * (duration + 25)))
	load_after=$(cat /proc/loadavg)
	vm_s=$(($(date +%s) - start))
	bench_unlock
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
		one_boot_environment gpu "$kernel" "$load_before" "$load_after" "$seed" "$base"
		echo
		SEED=$seed python3 "$top/selftests/bench/gpu-stats.py" "$raw"
	} >"$out/gpu.md"
	cp "$out/gpu.md" "$res/$base.md"
	xz -9 <"$raw" >"$res/$base.raw.xz"
	save_config "$kernel" "$res/$base-$kernel.config.xz"
	cat "$out/gpu.md"
	echo "bench: table $out/gpu.md, raw $raw (copies under selftests/bench/results/$base.*)"
	;;
gpu-submit)
	# the benchmark's own folder: its module, guest script, statistics
	. "$top/selftests/bench/gpu-submit/driver.sh"
	;;
imu)
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
		-o "$stage/imu_uart" "$top/selftests/bench/imu_uart.c"
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
	variants=${VARIANTS:-default nice-20-pin tuned-fifo20 seed-fifo20-pin shipped wqrt}
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
	cp "$top/selftests/bench/vm-imu.sh" "$stage/vm-imu.sh"
	# the script's settings travel in its first lines
	sed -i "s/^ROUNDS=.*/ROUNDS=$rounds/; s/^COUNT=.*/COUNT=$count/;
		s/^PERIOD_US=.*/PERIOD_US=$period_us/; s/^FRAME_LEN=.*/FRAME_LEN=$frame_len/;
		s/^TIMERLAT_S=.*/TIMERLAT_S=${TIMERLAT_S:-2}/;
		s/^VARIANTS=.*/VARIANTS=\"$variants\"/;
		s/^SHIPPED=.*/SHIPPED=\"$shipped\"/" "$stage/vm-imu.sh"
	# the host mode's guest reads what imu_sender sends from the host
	sed 's/^FEED=.*/FEED=1/' "$stage/vm-imu.sh" >"$stage/vm-imu-host.sh"
	gcc -O2 -Wall -Wextra -Werror -o "$stage/imu_sender" "$top/selftests/bench/imu_sender.c"
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
			"$stage/imu_sender" -p "$period_us" -l "$frame_len" -w 120 "$uart2" \
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
		grep -E '^[IOFXWTVHGD] ' "$log" | sed "s/^/$m /" >>"$raw"
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
		echo "Late: later than $((limit_us / 1000)) ms after the scheduled send time, or lost."
		echo
		echo "Command: \`$(for v in MODES ICOUNT ROUNDS COUNT PERIOD_US FRAME_LEN LIMIT_US TIMERLAT_S VARIANTS IMU_KERNEL TAG; do [ -z "${!v:-}" ] || printf '%s=%q ' "$v" "${!v}"; done)SEED=$seed make bench-imu\`"
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
			SEED=$seed python3 "$top/selftests/bench/imu-stats.py" "$raw" "$d"
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
	;;
*)
	echo "usage: run.sh latency|latency-scenarios|burst|enqueue|flush|imu|reserve|cost|flush-sweep|gpu" >&2
	exit 2
	;;
esac
