#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM (make bench-gpu-submit): the seed's GPU case (issue
# 43.3), a driver whose submit work must start within about 1 ms of
# queue_work() at 20 frames a second, with other RT tasks on the system.
# wqrt_submit.ko's job source, a hard hrtimer every PERIOD_US, queues each
# job's submit work (drm_sched's run_job) on the unbound workqueue
# wqrt_submit, or on a SCHED_FIFO kthread_worker (the baseline a maintainer
# asks for); the submit spins SUBMIT_US and starts the "GPU", whose
# completion interrupt JOB_US later queues the free work. Under the load of
# every latency benchmark (load.sh) and RT_TASKS (N PRIO ON_US OFF_US:
# SCHED_FIFO kthreads of the module, on the CPUs in turn). ROUNDS rounds,
# each variant once a round in the order of the round's line in ./order.
# Prints:
#   I ...                              the environment
#   O ROUND VARIANT...                 the order of a round
# Variants: default; nice-20; shipped, the attributes of
# conf/conf.d/60-gpu-scheduler.conf's profile (SHIPPED, read from the file
# by the runner); fifo50 (above RT_TASKS' FIFO 30); fifo50-private-reserve;
# kthread50, the submit on a SCHED_FIFO 50 kthread_worker.
#   F VARIANT ROUND SEQ SUBMIT_NS FREE_NS TIMER_NS POLICY   one line a frame
#   F VARIANT ROUND SEQ drop           a frame whose job slot was busy
#   V VARIANT ROUND skipped: why       a variant this kernel refuses
# The settings are the first lines: the VM's runner (driver.sh) rewrites
# them, the board's (wqrt-bench-board) sets them in the environment. This
# VARIANTS line is the one place the default list is written: both read it
# from here (quiet.sh's guest_default).

FRAMES=${FRAMES:-1200}
PERIOD_US=${PERIOD_US:-50000}
JOB_US=${JOB_US:-5000}
SUBMIT_US=${SUBMIT_US:-50}
ROUNDS=${ROUNDS:-5}
RT_TASKS=${RT_TASKS:-2 30 2000 8000}
VARIANTS=${VARIANTS:-default nice-20 shipped fifo50 fifo50-private-reserve kthread50}
# the shipped profile's attributes (the runner reads them from the file)
SHIPPED=${SHIPPED:-}

wqdir=/sys/devices/virtual/workqueue
wq=$wqdir/wqrt_submit
ctl=/sys/kernel/debug/wqrt_submit
here=$(dirname "$0")

# staged beside this script (the VM, or wqrt-bench-board --module), or
# installed (wqrt-selftests-dkms on a board)
if [ -f "$here/wqrt_submit.ko" ]; then
	insmod "$here/wqrt_submit.ko" || { echo "E cannot load wqrt_submit.ko"; exit 1; }
else
	modprobe wqrt_submit || { echo "E cannot load wqrt_submit (modprobe)"; exit 1; }
fi
[ -d "$wq" ] || { echo "E no $wq"; exit 1; }
echo "I kernel $(uname -r) vcpus $(nproc) frames $FRAMES period_us $PERIOD_US job_us $JOB_US submit_us $SUBMIT_US rounds $ROUNDS"
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
echo "I rt_tasks $RT_TASKS (N SCHED_FIFO PRIO kthreads spinning ON_US every ON_US + OFF_US)"

. "$here/load.sh"
start_load
# shellcheck disable=SC2086 # four numbers
echo $RT_TASKS >"$ctl/rt_tasks" || { echo "E rt_tasks refused: $RT_TASKS"; exit 1; }

# setattr WQ ATTR VALUE and reset_wq WQ, as the other benchmarks' guests
# shellcheck disable=SC2034 # wqattr.sh reads it
series=$([ -e "$wq/policy" ] && echo 1 || echo 0)
. "$here/wqattr.sh"

variant() { # NAME ROUND; why: the reason when it fails
	reset_wq wqrt_submit
	kind=wq why='attribute missing or refused on this kernel'
	case "$1" in
	default) ;;
	nice-20) setattr wqrt_submit nice -20 || return 1 ;;
	shipped)
		# conf/conf.d/60-gpu-scheduler.conf's profile, as the runner
		# read it from the file
		[ -n "$SHIPPED" ] || { why='no shipped profile given (SHIPPED)'; return 1; }
		for kv in $SHIPPED; do
			setattr wqrt_submit "${kv%%=*}" "${kv#*=}" || return 1
		done
		;;
	fifo50)
		setattr wqrt_submit policy fifo && setattr wqrt_submit rtprio 50 || return 1
		;;
	fifo50-private-reserve)
		setattr wqrt_submit private 1 && setattr wqrt_submit nr_idle_extra 2 &&
			setattr wqrt_submit policy fifo &&
			setattr wqrt_submit rtprio 50 || return 1
		;;
	kthread50) kind=kthread ;;
	*) return 1 ;;
	esac
	sleep 1
	echo "$kind $FRAMES $PERIOD_US $JOB_US $SUBMIT_US 50" >"$ctl/run" || return 1
	awk -v v="$1" -v r="$2" '{ print "F " v " " r " " $0 }' "$ctl/run"
}

r=1
while [ $r -le "$ROUNDS" ]; do
	order=$(sed -n "${r}p" "$here/order" 2>/dev/null)
	[ -n "$order" ] || order=$VARIANTS
	echo "O $r $order"
	for v in $order; do
		variant "$v" $r || echo "V $v $r skipped: $why"
	done
	r=$((r + 1))
done

echo "0 0 0 0" >"$ctl/rt_tasks"
reset_wq wqrt_submit
stop_load
echo "I clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null || echo unknown)"
exit 0
