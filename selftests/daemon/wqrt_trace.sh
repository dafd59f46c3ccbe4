#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Where did a workqueue's work items run? Sourced by the daemon's VM tests
# after lib.sh: record the workqueue trace events in tracefs while a command
# runs, then list, for every work item that was queued on a given
# workqueue, the kworker that executed it and the CPU it ran on.

TRACEFS=/sys/kernel/tracing

# Mount tracefs if needed; false if this kernel has no workqueue events.
trace_ready() {
	[ -d "$TRACEFS/events" ] ||
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null
	[ -d "$TRACEFS/events/workqueue/workqueue_execute_start" ]
}

_trace_events() {
	for _e in workqueue_queue_work workqueue_execute_start; do
		echo "$1" > "$TRACEFS/events/workqueue/$_e/enable"
	done
}

# trace_run OUT CMD...: run CMD with the events on, the trace in OUT.
trace_run() {
	_out=$1
	shift
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	_trace_events 1
	echo 1 > "$TRACEFS/tracing_on"
	"$@"
	_rc=$?
	# let the last work items run before the events go off
	sleep 1
	echo 0 > "$TRACEFS/tracing_on"
	_trace_events 0
	cat "$TRACEFS/trace" > "$_out"
	echo > "$TRACEFS/trace"
	return $_rc
}

# trace_ran_on TRACE WQ FUNCTION: "PID CPU" for every execution of a work
# item that was queued on WQ with FUNCTION. The event lines look like
#   <comm>-<pid> [<cpu>] <flags> <time>: workqueue_queue_work: work
#     struct=<p> function=<f> workqueue=<wq> req_cpu=<n> cpu=<n>
#   <comm>-<pid> [<cpu>] <flags> <time>: workqueue_execute_start: work
#     struct <p>: function <f>
trace_ran_on() {
	awk -v wq="$2" -v fn="$3" '
	function task_cpu(   i) {
		for (i = 2; i <= NF; i++)
			if ($i ~ /^\[[0-9]+\]$/) {
				pid = $(i - 1)
				sub(/.*-/, "", pid)
				cpu = substr($i, 2, length($i) - 2) + 0
				return 1
			}
		return 0
	}
	/workqueue_queue_work:/ {
		if (index($0, " workqueue=" wq " ") && index($0, " function=" fn " ")) {
			w = $0
			sub(/.*work struct=/, "", w)
			sub(/ .*/, "", w)
			mine[w] = 1
		}
		next
	}
	/workqueue_execute_start:/ {
		w = $0
		sub(/.*work struct /, "", w)
		sub(/:.*/, "", w)
		if ((w in mine) && index($0, "function " fn) && task_cpu())
			print pid, cpu
	}' "$1"
}

# trace_all_rt TRACE WQ FUNCTION "POLICY PRIO" CPU: at least one work item
# of WQ with FUNCTION ran, and every one ran in a kworker whose policy and
# priority are POLICY PRIO, on CPU. Says what it found.
trace_all_rt() {
	trace_ran_on "$1" "$2" "$3" > "$1.ran"
	_runs=$(wc -l < "$1.ran")
	if [ "$_runs" -eq 0 ]; then
		ktap_print_msg "no $3 work item of $2 in the trace"
		return 1
	fi
	_bad=0
	for _p in $(cut -d' ' -f1 "$1.ran" | sort -u); do
		_s=$(task_sched "$_p")
		ktap_print_msg "$2: $(grep -c "^$_p " "$1.ran") x $3 in pid $_p ($(task_comm "$_p")), policy/rtprio ${_s:-gone}, CPU(s) $(grep "^$_p " "$1.ran" | cut -d' ' -f2 | sort -u | xargs)"
		[ "$_s" = "$4" ] || _bad=1
	done
	if grep -qv " $5\$" "$1.ran"; then
		ktap_print_msg "$2: work items ran on CPUs other than $5"
		_bad=1
	fi
	[ "$_bad" -eq 0 ]
}
