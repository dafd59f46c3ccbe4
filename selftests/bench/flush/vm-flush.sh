#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-flush), booted with many possible CPUs and
# few online ones. Seed 003's measurements: flushes per second of an idle
# per-cpu and an idle unbound workqueue, of 1..N threads each queueing one
# item and flushing, and of dense flushes with an item on every pwq that
# can run one. Prints "S CASE FLUSHES_PER_SEC" per sample, REPS samples of
# MS milliseconds per case, the cases interleaved.

REPS=${REPS:-3}
MS=${MS:-1000}
THREADS=${THREADS:-"1 2 4 8 16"}
ctl=/sys/kernel/debug/wqrt_bench/flush

insmod /wqrt/wqrt_bench.ko || { echo "E cannot load wqrt_bench.ko"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) possible $(cat /sys/devices/system/cpu/possible) online $(cat /sys/devices/system/cpu/online) reps $REPS ms $MS"
clocksource() {
	echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
}
clocksource

measure() { # NAME CASE WQ THREADS
	if echo "$2 $3 $4 $MS" >"$ctl"; then
		set -- "$1" $(cat "$ctl")
		echo "S $1 $7"
	else
		echo "V $1 failed"
	fi
}

cases="idle-percpu idle-unbound dense-percpu dense-unbound"
for n in $THREADS; do
	cases="$cases qf$n-percpu qf$n-unbound"
done
# one short warm-up pass so that every pool has its workers
for c in dense-percpu dense-unbound; do
	echo "dense ${c#dense-} 1 100" >"$ctl"
done
for r in $(seq 1 "$REPS"); do
	for c in $cases; do
		wq=${c#*-}
		kind=${c%-*}
		case "$kind" in
		idle) measure "$c" idle "$wq" 1 ;;
		dense) measure "$c" dense "$wq" 1 ;;
		qf*) measure "$c" qf "$wq" "${kind#qf}" ;;
		esac
	done
done
# the guest may have changed clocksource since the start (tsc-early)
clocksource
exit 0
