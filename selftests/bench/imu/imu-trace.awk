# SPDX-License-Identifier: GPL-2.0
#
# imu-trace.awk: vm-imu.sh's reading of the trace (tracefs "trace", the
# events workqueue_queue_work, workqueue_execute_start, and the kworkers'
# sched_wakeup and sched_switch), one run's: for every flush_to_ldisc of
# the flip workqueue WQNAME, a T line (queue_work -> start, the CPU that
# queued it, the one that ran it), and for a start over 10 ms late a D
# line (its worker's first wakeup after the queueing, its last switch-in
# before the start, and its time off the CPU since the queueing,
# preempted or asleep). Variables: v (the
# variant), r (the round), wqname. A trace line: "<comm>-<pid> [cpu] flags
# secs.usecs: event: ..."; a work item is queued once while pending, so a
# queue and the next start of the same work struct pair up.
function ts(   i) {
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/)
			return substr($i, 1, length($i) - 1)
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
	wkt[p, ++nwk[p]] = ts()
	next
}
/sched_switch:/ {
	t = ts()
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
			# off the CPU after the queueing: preempted, blocked
			pre = blk = 0
			for (i = noff[p]; i >= 1 && offt[p, i] + offd[p, i] >= q[w]; i--) {
				d = offd[p, i] - (offt[p, i] < q[w] ? q[w] - offt[p, i] : 0)
				if (offr[p, i])
					pre += d
				else
					blk += d
			}
			# its first wakeup after the queueing, else the last
			# one before it (negative)
			wk = -1e12
			for (i = nwk[p]; i >= 1; i--) {
				wk = (wkt[p, i] - q[w]) * 1e9
				if (i == 1 || wkt[p, i - 1] < q[w])
					break
			}
			printf "D %s %s %.0f %.0f %.0f %s %.0f %.0f\n", v, r, (t - q[w]) * 1e9, wk,
				p in sw ? (sw[p] - q[w]) * 1e9 : -1e12, $1, pre * 1e9, blk * 1e9
		}
		delete q[w]
	}
}
