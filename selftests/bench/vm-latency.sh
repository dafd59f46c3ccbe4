#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-latency). Periodic dispatch latency under
# CPU load for each variant, ROUNDS times interleaved; prints one line per
# sample: "S VARIANT NANOSECONDS", and "V VARIANT ROUND skipped: why" for a
# variant this kernel cannot run.

COUNT=${COUNT:-2000}
PERIOD_US=${PERIOD_US:-1000}
ROUNDS=${ROUNDS:-3}
VARIANTS=${VARIANTS:-default nice-20 fifo50 fifo50-private-reserve kthread50 cyclictest50}
BURST_K=${BURST_K:-8}
BURST_ROUNDS=${BURST_ROUNDS:-20}
wq=/sys/devices/virtual/workqueue/wqrt_bench
ctl=/sys/kernel/debug/wqrt_bench

insmod /wqrt/wqrt_bench.ko || { echo "E cannot load wqrt_bench.ko"; exit 1; }
ncpu=$(nproc)
echo "I kernel $(uname -r) vcpus $ncpu count $COUNT period_us $PERIOD_US rounds $ROUNDS"

# The load, as in every latency benchmark (load.sh).
. "$(dirname "$0")/load.sh"
start_load

setattr() { # ATTR VALUE: fails the variant when the kernel refuses
	[ -e "$wq/$1" ] || return 1
	echo "$2" >"$wq/$1" 2>/dev/null
}

reset_wq() {
	setattr policy normal
	setattr nr_idle_extra 0
	setattr private 0
	setattr nice 0
}

variant() { # NAME: configure the workqueue (or not) and run
	reset_wq
	case "$1" in
	default) ;;
	nice-20) setattr nice -20 || return 1 ;;
	fifo50)
		setattr policy fifo && setattr rtprio 50 || return 1
		;;
	fifo50-private)
		setattr private 1 && setattr policy fifo &&
			setattr rtprio 50 || return 1
		;;
	fifo50-reserve)
		setattr nr_idle_extra 2 && setattr policy fifo &&
			setattr rtprio 50 || return 1
		;;
	fifo50-private-reserve)
		setattr private 1 && setattr nr_idle_extra 2 &&
			setattr policy fifo && setattr rtprio 50 || return 1
		;;
	esac
	sleep 1
	echo "wq $COUNT $PERIOD_US" >"$ctl/latency" || return 1
	awk -v v="$1" '{ print "S " v " " $1 }' "$ctl/latency"
}

r=1
while [ $r -le "$ROUNDS" ]; do
	for v in $VARIANTS; do
		case $v in
		kthread50)
			echo "kthread $COUNT $PERIOD_US" >"$ctl/latency" &&
				awk '{ print "S kthread50 " $1 }' "$ctl/latency"
			;;
		cyclictest50)
			# -v: one line per cycle "thread: cycle: latency_us"
			cyclictest -m -q -p 50 -i "$PERIOD_US" -l "$COUNT" -v 2>/dev/null |
				awk -F: 'NF == 3 && $2 + 0 > 0 { print "S cyclictest50 " ($3 * 1000) }'
			;;
		*)
			variant $v || echo "V $v $r skipped: attribute missing or refused on this kernel"
			;;
		esac
	done
	r=$((r + 1))
done

# Burst: K blocking items at once, without and with a reserve of K.
r=1
while [ $r -le "$ROUNDS" ]; do
	for reserve in 0 "$BURST_K"; do
		reset_wq
		setattr policy fifo && setattr rtprio 50 || { echo "V burst $r skipped: no policy attribute"; break; }
		setattr nr_idle_extra "$reserve" || { echo "V burst-reserve$reserve $r skipped: no nr_idle_extra"; continue; }
		sleep 1
		echo "$BURST_K $BURST_ROUNDS" >"$ctl/burst" &&
			awk -v v="burst-reserve$reserve" '{ print "B " v " " $1 }' "$ctl/burst"
	done
	r=$((r + 1))
done
reset_wq
stop_load
exit 0
