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
# idle task: a wakeup that did not reach that CPU. With every task's
# switches in the trace (switches=all), a B line after each D line says
# what ran on the CPU the work started on, from the queueing to the
# start (the worker itself included, if it ran before):
#   B VARIANT ROUND START CPU COMM-PID,PRIO,NS ... (longest first, at
#     most six, then other,-,NS for the rest)
# PRIO as sched_switch prints it (below 100: real-time, 99 - rtprio;
# 100-139: SCHED_OTHER, 120 + nice). Variables: v (the variant), r (the
# round), wqname, switches (all: record every switch). A trace line: "<comm>-<pid> [cpu]
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
	# every switch: the task switched out ran on C since the CPU's
	# previous switch
	if (switches == "all") {
		n = ++nsw[c]
		swt[c, n] = t
		pc = $0; sub(/.* prev_comm=/, "", pc); sub(/ prev_pid=.*/, "", pc)
		gsub(/[ ,]/, "_", pc)
		pp = $0; sub(/.* prev_pid=/, "", pp); sub(/ .*/, "", pp)
		pr = $0; sub(/.* prev_prio=/, "", pr); sub(/ .*/, "", pr)
		swp[c, n] = pc "-" pp "," pr
		nc = $0; sub(/.* next_comm=/, "", nc); sub(/ next_pid=.*/, "", nc)
		gsub(/[ ,]/, "_", nc)
		np = $0; sub(/.* next_pid=/, "", np); sub(/ .*/, "", np)
		nr = $0; sub(/.* next_prio=/, "", nr); sub(/ .*/, "", nr)
		cur[c] = nc "-" np "," nr
	}
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
# ran(C, FROM, TO): the B line's list, who ran on CPU C between FROM and
# TO, by the switches recorded (a task's run: from the CPU's previous
# switch to the one that switched it out)
function ran(c, from, to,   i, s, e, k, sum, out, best, bk, m) {
	for (k in sum)
		delete sum[k]
	for (i = nsw[c]; i >= 2 && swt[c, i] > from; i--) {
		s = swt[c, i - 1] > from ? swt[c, i - 1] : from
		e = swt[c, i] < to ? swt[c, i] : to
		if (e > s)
			sum[swp[c, i]] += e - s
	}
	# and the task on it since its last switch
	if (nsw[c] && to > swt[c, nsw[c]])
		sum[cur[c]] += to - (swt[c, nsw[c]] > from ? swt[c, nsw[c]] : from)
	out = ""
	for (m = 0; m < 6; m++) {
		best = -1
		for (k in sum)
			if (sum[k] > best) {
				best = sum[k]
				bk = k
			}
		if (best < 0)
			break
		out = out sprintf(" %s,%.0f", bk, best * 1e9)
		delete sum[bk]
	}
	best = 0
	for (k in sum)
		best += sum[k]
	if (best > 0)
		out = out sprintf(" other,-,%.0f", best * 1e9)
	return out
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
			if (switches == "all")
				printf "B %s %s %.0f %d%s\n", v, r, (t - q[w]) * 1e9, cpu(),
					ran(cpu(), q[w], t)
		}
		delete q[w]
	}
}
