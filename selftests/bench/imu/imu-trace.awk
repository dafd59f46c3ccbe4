# SPDX-License-Identifier: GPL-2.0
#
# imu-trace.awk: vm-imu.sh's reading of the trace (tracefs "trace", the
# events workqueue_queue_work, workqueue_execute_start, the kworkers'
# sched_wakeup, and the sched_switch of kworkers and of the idle task),
# one run's: for every flush_to_ldisc of the flip workqueue WQNAME, a T
# line (queue_work -> start, the CPU that queued it, the one that ran
# it), and for a start over 10 ms late a D line:
#   D VARIANT ROUND START WAKE SWITCH_IN WORKER PREEMPTED ASLEEP WAITED IDLE
# all in ns from the queueing: its worker's first wakeup after the
# queueing (negative: the last one before it), its last switch-in before
# the start, and its time off the CPU since the queueing, split three
# ways: preempted (switched out runnable), asleep (switched out blocked,
# up to its wakeup) and waited (woken, runnable, not yet switched in);
# IDLE is how much of the waited time the CPU it was woken onto ran its
# idle task: a wakeup that did not reach that CPU. Variables: v (the
# variant), r (the round), wqname. A trace line: "<comm>-<pid> [cpu]
# flags secs.usecs: event: ..."; a work item is queued once while
# pending, so a queue and the next start of the same work struct pair up.
# the line's time stamp, a number: a string from substr() would compare
# with the sums below as strings, at six digits (awk's CONVFMT)
function ts(   i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/)
			return substr($i, 1, length($i) - 1) + 0
	return -1
}
function cpu(   i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/)
			return substr($i, 2, length($i) - 2) + 0
	return -1
}
/workqueue_queue_work:/ && $0 ~ " workqueue=" wqname " " && / function=flush_to_ldisc / {
	w = $0; sub(/.*work struct=/, "", w); sub(/ .*/, "", w)
	q[w] = ts()
	qc[w] = cpu()
	next
}
/sched_wakeup:/ {
	p = $0; sub(/.* pid=/, "", p); sub(/ .*/, "", p)
	c = $0; sub(/.* target_cpu=/, "", c); sub(/ .*/, "", c)
	n = ++nwk[p]
	wkt[p, n] = ts()
	wkc[p, n] = c + 0
	next
}
/sched_switch:/ {
	t = ts()
	c = cpu()
	# the idle task's switches: the intervals each CPU was idle
	if ($0 ~ / next_pid=0 /)
		idle_from[c] = t
	if ($0 ~ / prev_pid=0 / && (c in idle_from)) {
		n = ++nidle[c]
		idle_s[c, n] = idle_from[c]; idle_e[c, n] = t
		delete idle_from[c]
	}
	# a kworker switched out: when, and whether it was preempted
	# (R) or went to sleep (S, D: blocked, e.g. waiting for a
	# worker to be created before it may work)
	if ($0 ~ / prev_comm=kworker\//) {
		p = $0; sub(/.* prev_pid=/, "", p); sub(/ .*/, "", p)
		st = $0; sub(/.* prev_state=/, "", st); sub(/ .*/, "", st)
		out[p] = t; outst[p] = st
	}
	if ($0 ~ / next_comm=kworker\//) {
		p = $0; sub(/.* next_pid=/, "", p); sub(/ .*/, "", p)
		sw[p] = t
		# its time off the CPU since it last went, by state,
		# kept per switch-in for the D line
		if (p in out) {
			n = ++noff[p]
			offt[p, n] = out[p]; offd[p, n] = t - out[p]
			offr[p, n] = (outst[p] ~ /^R/) ? 1 : 0
		}
	}
	next
}
# idle(C, FROM, TO): how long CPU C ran its idle task between FROM and TO
function idle(c, from, to,   i, s, e, sum) {
	sum = 0
	for (i = 1; i <= nidle[c]; i++) {
		s = idle_s[c, i] > from ? idle_s[c, i] : from
		e = idle_e[c, i] < to ? idle_e[c, i] : to
		if (e > s)
			sum += e - s
	}
	if ((c in idle_from) && idle_from[c] < to)
		sum += to - (idle_from[c] > from ? idle_from[c] : from)
	return sum
}
# the last wakeup of P in (FROM, TO], or 0
function woken(p, from, to,   i) {
	for (i = nwk[p]; i >= 1; i--)
		if (wkt[p, i] <= to) {
			if (wkt[p, i] > from)
				return i
			break
		}
	return 0
}
/workqueue_execute_start:/ && /function flush_to_ldisc/ {
	w = $0; sub(/.*work struct /, "", w); sub(/:.*/, "", w)
	if (w in q) {
		t = ts()
		printf "T %s %s %.0f %d %d\n", v, r, (t - q[w]) * 1e9, qc[w], cpu()
		# a start over 10 ms after the queueing: when the
		# worker that ran it was woken and last switched in,
		# from the queueing (negative: before it)
		if (t - q[w] > 0.010) {
			p = $1; sub(/.*-/, "", p)
			# off the CPU after the queueing: preempted; or
			# asleep up to its wakeup, then waiting for a CPU
			pre = blk = wait = idl = 0
			for (i = noff[p]; i >= 1 && offt[p, i] + offd[p, i] >= q[w]; i--) {
				from = offt[p, i] < q[w] ? q[w] : offt[p, i]
				to = offt[p, i] + offd[p, i]
				if (offr[p, i]) {
					pre += to - from
					continue
				}
				k = woken(p, offt[p, i], to)
				wk_at = k ? wkt[p, k] : offt[p, i]
				if (wk_at < from)
					wk_at = from
				blk += wk_at - from
				wait += to - wk_at
				if (k)
					idl += idle(wkc[p, k], wk_at, to)
			}
			# its first wakeup after the queueing, else the last
			# one before it (negative)
			wk = -1e12
			for (i = nwk[p]; i >= 1; i--) {
				wk = (wkt[p, i] - q[w]) * 1e9
				if (i == 1 || wkt[p, i - 1] < q[w])
					break
			}
			printf "D %s %s %.0f %.0f %.0f %s %.0f %.0f %.0f %.0f\n", v, r, (t - q[w]) * 1e9, wk,
				p in sw ? (sw[p] - q[w]) * 1e9 : -1e12, $1, pre * 1e9, blk * 1e9,
				wait * 1e9, idl * 1e9
		}
		delete q[w]
	}
}
