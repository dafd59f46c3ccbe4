#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Where did a workqueue's work items run, and at what priority? Sourced by
# the daemon's VM tests after lib.sh: record the workqueue trace events and
# the scheduler's switches in tracefs while a command runs, then list, for
# every work item that was queued on a given workqueue, the kworker that
# executed it, the CPU it ran on and the priority it had then (the
# sched_switch that put it on that CPU), not the one it has afterwards.

TRACEFS=/sys/kernel/tracing

# Mount tracefs if needed; false if this kernel has no workqueue events.
trace_ready() {
	[ -d "$TRACEFS/events" ] ||
		mount -t tracefs nodev "$TRACEFS" 2>/dev/null
	[ -d "$TRACEFS/events/workqueue/workqueue_execute_start" ]
}

_trace_events() {
	for _e in workqueue/workqueue_queue_work workqueue/workqueue_execute_start \
		  sched/sched_switch; do
		echo "$1" > "$TRACEFS/events/$_e/enable"
	done
}

# Every work item queued so far in the trace has started (its
# workqueue_execute_start is there too).
_trace_all_started() {
	awk '
	/workqueue_queue_work:/ {
		w = $0; sub(/.*work struct=/, "", w); sub(/ .*/, "", w)
		pending[w]++
	}
	/workqueue_execute_start:/ {
		w = $0; sub(/.*work struct /, "", w); sub(/:.*/, "", w)
		if (pending[w] > 0) pending[w]--
	}
	END { for (w in pending) if (pending[w] > 0) exit 1 }' "$TRACEFS/trace"
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
	# the work items CMD queued have run before the events go off
	wait_for 5 _trace_all_started ||
		ktap_print_msg "trace_run: work items queued but not started after 5 s"
	echo 0 > "$TRACEFS/tracing_on"
	_trace_events 0
	cat "$TRACEFS/trace" > "$_out"
	echo > "$TRACEFS/trace"
	return $_rc
}

# trace_ran_on TRACE WQ FUNCTION: "PID CPU PRIO" for every execution of a
# work item that was queued on WQ with FUNCTION; PRIO is the kernel
# priority the kworker was switched in with on that CPU (99 - rtprio for
# SCHED_FIFO/RR, 100..139 for SCHED_OTHER), "?" when the trace has no
# switch to it. The event lines look like
#   <comm>-<pid> [<cpu>] <flags> <time>: workqueue_queue_work: work
#     struct=<p> function=<f> workqueue=<wq> req_cpu=<n> cpu=<n>
#   <comm>-<pid> [<cpu>] <flags> <time>: workqueue_execute_start: work
#     struct <p>: function <f>
#   <comm>-<pid> [<cpu>] <flags> <time>: sched_switch: prev_comm=<c>
#     prev_pid=<n> prev_prio=<n> prev_state=<s> ==> next_comm=<c>
#     next_pid=<n> next_prio=<n>
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
	/sched_switch:/ {
		np = $0; sub(/.* next_pid=/, "", np); sub(/ .*/, "", np)
		pr = $0; sub(/.* next_prio=/, "", pr); sub(/[^0-9].*/, "", pr)
		if (task_cpu())
			prio_on[cpu ":" np] = pr
		next
	}
	/workqueue_execute_start:/ {
		w = $0
		sub(/.*work struct /, "", w)
		sub(/:.*/, "", w)
		if ((w in mine) && index($0, "function " fn) && task_cpu()) {
			pr = "?"
			if ((cpu ":" pid) in prio_on)
				pr = prio_on[cpu ":" pid]
			print pid, cpu, pr
		}
	}' "$1"
}

# trace_all_rt TRACE WQ FUNCTION "POLICY PRIO" CPU: at least one work item
# of WQ with FUNCTION ran, and every one ran in a kworker that had the RT
# priority PRIO (kernel priority 99 - PRIO) when it ran, on CPU. Says what
# it found. The trace gives the priority, not the policy: FIFO and RR
# look the same, and the kworker's policy now is only shown.
trace_all_rt() {
	trace_ran_on "$1" "$2" "$3" > "$1.ran"
	_runs=$(wc -l < "$1.ran")
	if [ "$_runs" -eq 0 ]; then
		ktap_print_msg "no $3 work item of $2 in the trace"
		return 1
	fi
	_want=$((99 - ${4#* }))
	_bad=0
	for _p in $(cut -d' ' -f1 "$1.ran" | sort -u); do
		_s=$(task_sched "$_p")
		_prios=$(grep "^$_p " "$1.ran" | cut -d' ' -f3 | sort -u | xargs)
		ktap_print_msg "$2: $(grep -c "^$_p " "$1.ran") x $3 in pid $_p ($(task_comm "$_p")), kernel priority when it ran: $_prios (want $_want), policy/rtprio now ${_s:-gone}, CPU(s) $(grep "^$_p " "$1.ran" | cut -d' ' -f2 | sort -u | xargs)"
		[ "$_prios" = "$_want" ] || _bad=1
	done
	if awk -v cpu="$5" '$2 != cpu { found = 1 } END { exit !found }' "$1.ran"; then
		ktap_print_msg "$2: work items ran on CPUs other than $5"
		_bad=1
	fi
	[ "$_bad" -eq 0 ]
}

# what wqrtctl left in tracefs: its instances, its synthetic events
instances_left() {
	_n=0
	for _i in "$TRACEFS"/instances/wqrtctl-*; do
		[ -d "$_i" ] && _n=$((_n + 1))
	done
	echo "$_n"
}
synth_left() { grep -c '^wqrtctl_' "$TRACEFS/synthetic_events"; }
