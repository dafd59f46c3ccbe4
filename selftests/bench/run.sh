#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh latency|enqueue|flush: `make bench-latency` / `make bench-enqueue` /
# `make bench-flush`.
# Numbers, not tests: every figure is measured side by side in one run, the
# variants interleaved, and reported as a table (markdown) and a plot (PNG)
# under build/bench/.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${WQRT_BUILD:-$top/build}
out=$build/bench
mkdir -p "$out"
what=${1:?usage: run.sh latency|enqueue|flush}

build_flavour() { # FLAVOUR -> builds kernel + bench module, prints stage dir
	local k=$1 stage=$out/stage-$1
	"$top/kernel/scripts/build.sh" "$k" >&2
	make --no-print-directory -C "$top/selftests/bench" \
		KDIR="$build/kernel-$k/obj" OUT="$out/module-$k" >/dev/null
	rm -rf "$stage"
	mkdir -p "$stage"
	cp "$out/module-$k/wqrt_bench.ko" "$stage/"
	echo "$stage"
}

boot() { # FLAVOUR SCRIPT NAME TIMEOUT: run SCRIPT in the VM, log in $out/NAME.log
	local k=$1 script=$2 name=$3 t=$4 stage
	stage=$out/stage-$k
	cp "$script" "$stage/run.sh"
	"$top/selftests/vm/vm.sh" script "$k" "$stage/run.sh" \
		--name "bench-$name" --timeout "$t" >"$out/$name.vmout" 2>&1 || true
	cp "$build/vm/bench-$name/tap.log" "$out/$name.log"
	# The accelerator the numbers were measured with goes with them.
	cp "$build/vm/bench-$name/accel" "$out/$name.accel" 2>/dev/null || true
}

accel_of() { # NAME: "kvm" or "tcg" as run-vm.sh chose it for that run
	head -n 1 "$out/$1.accel" 2>/dev/null || echo unknown
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
	build_flavour perf >/dev/null
	boot perf "$top/selftests/bench/vm-latency.sh" latency 1500
	log=$out/latency.log
	grep -q '^I kernel' "$log" || { cat "$out/latency.vmout"; exit 1; }
	info=$(grep '^I ' "$log" | cut -c3-)
	table=$out/latency.md
	{
		echo "# Dispatch latency under load ($(date -u +%Y-%m-%d))"
		echo
		echo "queue_work() (from a hard hrtimer, as an interrupt handler would)"
		echo "to the first line of the work function. Kernel: patched perf"
		echo "flavour (PREEMPT_RT, lock_stat) under QEMU, accelerator"
		echo "$(accel_of latency) ($(sed -n 2p "$out/latency.accel" 2>/dev/null))."
		echo
		echo '```'
		echo "$info"
		echo '```'
		echo
		echo "| variant | count | p50 us | p99 us | p99.9 us | max us |"
		echo "|---|---|---|---|---|---|"
		for v in default nice-20 fifo50 fifo50-private-reserve kthread50 cyclictest50; do
			read -r n p50 p99 p999 max < <(awk -v v=$v '$1 == "S" && $2 == v { print $3 }' "$log" | percentiles)
			echo "| $v | $n | $p50 | $p99 | $p999 | $max |"
		done
		echo
		echo "Burst: K items queued at once, each blocking 2 ms; latency from"
		echo "queue_work() to the start of each item (policy fifo 50)."
		echo
		echo "| variant | count | p50 us | p99 us | p99.9 us | max us |"
		echo "|---|---|---|---|---|---|"
		for v in $(awk '$1 == "B" { print $2 }' "$log" | sort -u); do
			read -r n p50 p99 p999 max < <(awk -v v=$v '$1 == "B" && $2 == v { print $3 }' "$log" | percentiles)
			echo "| $v | $n | $p50 | $p99 | $p999 | $max |"
		done
		grep '^V ' "$log" | sed 's/^V /- skipped: /' || true
	} >"$table"
	# Latency distribution: one CDF per variant, log-scale latency axis.
	for v in default nice-20 fifo50 fifo50-private-reserve kthread50 cyclictest50; do
		awk -v v=$v '$1 == "S" && $2 == v { print $3 / 1000 }' "$log" | sort -n |
			awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' \
			>"$out/latency-$v.dat"
	done
	gnuplot <<GP
set terminal pngcairo size 1000,600 noenhanced
set output "$out/latency.png"
set title "queue_work() to work start under load (CDF)"
set logscale x
set xlabel "latency (us)"
set ylabel "fraction of items"
set key bottom right
set grid
plot for [v in "default nice-20 fifo50 fifo50-private-reserve kthread50 cyclictest50"] \
	"$out/latency-".v.".dat" using 1:2 with lines lw 2 title v
GP
	cat "$table"
	echo "bench: table $table, plot $out/latency.png"
	;;
enqueue)
	rounds=${ROUNDS:-3}
	# plain 6.12, the series (a deferred task pointer), the series with a
	# wake_q instead (kernel/variants/wake-q): booted in turn, every round
	kernels="perf-plain perf perf-alt"
	for k in $kernels; do
		build_flavour "$k" >/dev/null
	done
	: >"$out/enqueue.raw"
	for r in $(seq 1 "$rounds"); do
		for k in $kernels; do
			echo "bench-enqueue: round $r/$rounds on $k"
			boot "$k" "$top/selftests/bench/vm-enqueue.sh" "enqueue-$k-$r" 600
			awk -v k=$k '$1 == "R" { print k, $0 }' "$out/enqueue-$k-$r.log" >>"$out/enqueue.raw"
		done
	done
	{
		"$top/selftests/bench/enqueue-table.sh" "$out/enqueue.raw"
		echo
		echo "QEMU accelerator of each boot (selftests/vm/accel.sh):"
		for r in $(seq 1 "$rounds"); do
			for k in $kernels; do
				echo "- round $r, $k: $(accel_of "enqueue-$k-$r")"
			done
		done
	} >"$out/enqueue.md"
	cat "$out/enqueue.md"
	echo "bench: table $out/enqueue.md"
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
	"$top/selftests/bench/flush-table.sh" "$raw" "$out" >"$out/flush.md"
	date=$(date -u +%Y-%m-%d)
	cp "$out/flush.md" "$top/selftests/bench/results/flush-$date.md"
	cp "$raw" "$top/selftests/bench/results/flush-$date.raw"
	cat "$out/flush.md"
	echo "bench: table $out/flush.md, raw samples $raw (copies under selftests/bench/results/flush-$date.*)"
	;;
*)
	echo "usage: run.sh latency|enqueue|flush" >&2
	exit 2
	;;
esac
