# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034 # the variables are for the sourcing test
# What a task runs with, read from /proc/PID/stat as the kernel reports it,
# and the kworkers of a workqueue. POSIX sh (busybox ash in the VM).
# Sourced.
#
#	task_sched 42		# "1 20": policy number, rt priority
#	task_sched_name 42	# "fifo 20"
#	task_comm 42		# "kworker/u9:2-wqrt_test_unbound"
#	wq_kworkers wqrt_test_unbound	# the pids of its pools' kworkers
#
# The comm (field 2) can hold spaces, parentheses and even newlines: it is
# what lies between the first '(' and the last ')' of the file, and the
# numeric fields are what follows that ')'.
#
# TASK_PROC (default /proc) and WQ_SYSFS (default
# /sys/devices/virtual/workqueue) point these at a fake tree for tests.

: "${TASK_PROC:=/proc}"
: "${WQ_SYSFS:=/sys/devices/virtual/workqueue}"

# task_read PID: set TASK_COMM, TASK_STATE, TASK_PPID, TASK_UTIME and
# TASK_STIME (fields 14, 15: clock ticks), TASK_RTPRIO (field 40) and
# TASK_POLICY (field 41: 0 SCHED_OTHER, 1 FIFO, 2 RR, 3 BATCH, 5 IDLE,
# 6 DEADLINE) from PID's stat. Fails when the task is gone.
task_read() {
	# read(1) costs no fork; a comm with a newline needs the whole file.
	IFS= read -r __task_stat 2>/dev/null <"$TASK_PROC/$1/stat" || return 1
	__task_parse && return 0
	__task_stat=$(cat "$TASK_PROC/$1/stat" 2>/dev/null) || return 1
	__task_parse
}

__task_parse() {
	case $__task_stat in
	*"("*")"*) ;;
	*) return 1 ;;
	esac
	TASK_COMM=${__task_stat#*(}
	TASK_COMM=${TASK_COMM%)*}
	# shellcheck disable=SC2086 # the fields after the comm, one word each
	set -- ${__task_stat##*)}
	[ $# -ge 39 ] || return 1
	TASK_STATE=$1
	TASK_PPID=$2
	TASK_UTIME=${12}
	TASK_STIME=${13}
	TASK_RTPRIO=${38}
	TASK_POLICY=${39}
}

task_comm() {
	task_read "$1" && printf '%s\n' "$TASK_COMM"
}

# "POLICY RTPRIO" as numbers, e.g. "0 0" or "1 20".
task_sched() {
	task_read "$1" && echo "$TASK_POLICY $TASK_RTPRIO"
}

# The CPU time a task used, user and system, in clock ticks (USER_HZ).
task_cpu_ticks() {
	task_read "$1" && echo $((TASK_UTIME + TASK_STIME))
}

# The name of a policy number, as the workqueue's policy attribute and
# wqrt.conf spell it (normal, fifo, rr) or the kernel's name otherwise.
task_policy_name() {
	case $1 in
	0) echo normal ;;
	1) echo fifo ;;
	2) echo rr ;;
	3) echo batch ;;
	5) echo idle ;;
	6) echo deadline ;;
	*) echo "$1" ;;
	esac
}

# "POLICY-NAME RTPRIO", e.g. "normal 0" or "fifo 20".
task_sched_name() {
	task_read "$1" && echo "$(task_policy_name "$TASK_POLICY") $TASK_RTPRIO"
}

# kthreads PREFIX: the kernel threads (kthreadd's children) whose comm
# starts with PREFIX, one pid a line.
kthreads() {
	for __task_s in "$TASK_PROC"/[0-9]*/stat; do
		__task_pid=${__task_s%/stat}
		__task_pid=${__task_pid##*/}
		task_read "$__task_pid" || continue
		case $TASK_COMM in
		"$1"*) ;;
		*) continue ;;
		esac
		[ "$TASK_PPID" = 2 ] && echo "$__task_pid"
	done
	return 0
}

# The unbound pools of a workqueue: the pool ids of its pool_ids
# ("pod:pool pod:pool ..."), each once.
wq_pools() {
	__task_ids=$(cat "$WQ_SYSFS/$1/pool_ids") || return 1
	for __task_pair in $__task_ids; do
		echo "${__task_pair#*:}"
	done | sort -un
}

# The kworkers of a workqueue's unbound pools ("kworker/u<pool>:..."),
# one pid a line.
wq_kworkers() {
	__task_pools=$(wq_pools "$1") || return 1
	for __task_pool in $__task_pools; do
		kthreads "kworker/u$__task_pool:"
	done
}
