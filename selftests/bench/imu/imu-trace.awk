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
# variant), r (the round), wqname; windows, a file: each D line's
# "QUEUED START CPU" (seconds) written there for the second pass.
#
# The second pass (pass=ran; first the windows file, then a trace of
# every switch on those CPUs, SWITCHES=all's instance) says what ran on
# the CPU the late work started on, from the queueing to the start (the
# worker itself included, if it ran before), a B line a window:
#   B VARIANT ROUND START CPU COMM-PID,PRIO,NS ... (longest first, at
#     most six, then other,-,NS for the rest)
# PRIO as sched_switch prints it (below 100: real-time, 99 - rtprio;
# 100-139: SCHED_OTHER, 120 + nice). With the tick's stack traces of the
# benchmark's threads in that trace too (vm-imu.sh's stacktrace trigger),
# an S line a window says where the tick found each of them on that CPU:
#   S VARIANT ROUND START COMM-PID WHERE,COUNT ... (most often first, at
#     most four; WHERE the three innermost frames the tick interrupted,
#     innermost first and joined by <, or user)
# Two passes, because every switch
# of a run under the load is some 100000 lines, too many to read under
# -icount after every run: the second reads them only after a run with
# a late start.
#
# A trace line: "<comm>-<pid> [cpu] flags secs.usecs: event: ..."; a
# work item is queued once while pending, so a queue and the next start
# of the same work struct pair up.
# the line's time stamp, a number: a string from substr() would compare
# with the sums below as strings, at six digits (awk's CONVFMT)
# (the fourth field, unless a comm with spaces moved it: the second pass
# reads some 100000 lines under -icount)
function ts(   i) {
	if ($4 ~ /^[0-9]+\.[0-9]+:$/)
		return substr($4, 1, length($4) - 1) + 0
	for (i = 1; i <= NF; i++)
		if ($i ~ /^[0-9]+\.[0-9]+:$/)
			return substr($i, 1, length($i) - 1) + 0
	return -1
}
function cpu(   i) {
	if ($2 ~ /^\[[0-9]+\]$/)
		return substr($2, 2, length($2) - 2) + 0
	for (i = 1; i <= NF; i++)
		if ($i ~ /^\[[0-9]+\]$/)
			return substr($i, 2, length($i) - 2) + 0
	return -1
}
# the second pass: the windows first
pass == "ran" && FNR == NR {
	nwin++
	wq_at[nwin] = $1 + 0; wstart[nwin] = $2 + 0; wcpu[nwin] = $3 + 0
	if (nwin == 1 || wq_at[nwin] < first)
		first = wq_at[nwin]
	if (wstart[nwin] > last)
		last = wstart[nwin]
	next
}
# a stack trace's frames (" => FUNC+OFF/LEN"), after its "<stack trace>"
# line: the frames below the timer interrupt's entry are where it
# interrupted the task
pass == "ran" && stk != "" && /^ => / {
	f = $2
	sub(/\+.*/, "", f)
	if (f == "asm_sysvec_apic_timer_interrupt") {
		below = 1
		next
	}
	if (below && nbelow < 3)
		where = where (nbelow++ ? "<" : "") f
	next
}
pass == "ran" && stk != "" {
	stack_done()
}
pass == "ran" && /<stack trace>/ {
	stk_t = ts()
	if (stk_t > last)
		exit
	stk_c = cpu()
	stk = $1
	below = nbelow = 0
	where = ""
	next
}
# then every switch: the task switched out ran on its CPU since the
# CPU's previous switch; before the first window only the latest
# switch of each CPU is kept, unread (who ran when the window opened),
# after the last none
pass == "ran" {
	if (!/sched_switch:/)
		next
	t = ts()
	if (t > last)
		exit
	c = cpu()
	if (t < first) {
		before[c] = $0
		before_t[c] = t
		next
	}
	if (!(c in nsw) && (c in before))
		switched(c, before_t[c], before[c])
	switched(c, t, $0)
	next
}
pass == "ran" {
	next
}
/workqueue_queue_work:/ && $0 ~ " workqueue=" wqname " " && / function=flush_to_ldisc / {
	w = field($0, "work struct")
	q[w] = ts()
	qc[w] = cpu()
	next
}
/sched_wakeup:/ {
	p = field($0, "pid")
	c = field($0, "target_cpu")
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
		p = field($0, "prev_pid")
		st = field($0, "prev_state")
		out[p] = t; outst[p] = st
	}
	if ($0 ~ / next_comm=kworker\//) {
		p = field($0, "next_pid")
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
# stack_done(): the stack trace just read (stk, of that task on CPU
# stk_c at stk_t), counted for every window on its CPU that holds it by
# where it interrupted the task (none without the timer interrupt's
# entry frame: not a tick)
function stack_done(   i) {
	if (below)
		for (i = 1; i <= nwin; i++)
			if (wcpu[i] == stk_c && stk_t >= wq_at[i] && stk_t <= wstart[i]) {
				if (!((i, stk) in nticks))
					tasks[i] = tasks[i] " " stk
				nticks[i, stk]++
				at[i, stk, where != "" ? where : "user"]++
			}
	stk = ""
}
# switched(C, T, LINE): the second pass's record of a switch on CPU C at
# T: who went (ran since the CPU's previous switch) and who came (runs
# from T)
function switched(c, t, line,   n, pc, nc) {
	n = ++nsw[c]
	swt[c, n] = t
	pc = line; sub(/.* prev_comm=/, "", pc); sub(/ prev_pid=.*/, "", pc)
	nc = line; sub(/.* next_comm=/, "", nc); sub(/ next_pid=.*/, "", nc)
	gsub(/[ ,]/, "_", pc)
	gsub(/[ ,]/, "_", nc)
	swp[c, n] = pc "-" field(line, "prev_pid") "," field(line, "prev_prio")
	cur[c] = nc "-" field(line, "next_pid") "," field(line, "next_prio")
}
# field(LINE, KEY): the value of KEY= in LINE, up to the next space
function field(line, key,   i) {
	i = index(line, " " key "=")
	if (!i)
		return ""
	line = substr(line, i + length(key) + 2)
	i = index(line, " ")
	return i ? substr(line, 1, i - 1) : line
}
END {
	if (pass != "ran")
		exit
	# a CPU that did not switch from before the first window on
	for (c in before)
		if (!(c in nsw))
			switched(c, before_t[c], before[c])
	if (stk != "")
		stack_done()
	for (i = 1; i <= nwin; i++) {
		printf "B %s %s %.0f %d%s\n", v, r, (wstart[i] - wq_at[i]) * 1e9,
			wcpu[i], ran(wcpu[i], wq_at[i], wstart[i])
		nt = split(tasks[i], tl, " ")
		for (j = 1; j <= nt; j++)
			printf "S %s %s %.0f %s%s\n", v, r, (wstart[i] - wq_at[i]) * 1e9,
				tl[j], ticks_at(i, tl[j])
	}
}
# ticks_at(I, TASK): the S line's list, where the ticks of window I found
# TASK, most often first
function ticks_at(i, task,   k, key, cnt) {
	for (k in cnt)
		delete cnt[k]
	for (k in at) {
		split(k, key, SUBSEP)
		if (key[1] == i && key[2] == task)
			cnt[key[3]] = at[k]
	}
	return take_top(cnt, 4, 1, "%d")
}
# take_top(ARR, N, SCALE, FMT): the N largest entries of ARR, largest
# first, as " KEY,VALUE" (VALUE times SCALE, printed by FMT), taken out
# of ARR
function take_top(arr, n, scale, fmt,   out, k, best, bk, m) {
	out = ""
	for (m = 0; m < n; m++) {
		best = -1
		for (k in arr)
			if (arr[k] > best) {
				best = arr[k]
				bk = k
			}
		if (best < 0)
			break
		out = out sprintf(" %s," fmt, bk, best * scale)
		delete arr[bk]
	}
	return out
}
# ran(C, FROM, TO): the B line's list, who ran on CPU C between FROM and
# TO, by the switches recorded (a task's run: from the CPU's previous
# switch to the one that switched it out)
function ran(c, from, to,   i, s, e, k, sum, out, rest) {
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
	out = take_top(sum, 6, 1e9, "%.0f")
	rest = 0
	for (k in sum)
		rest += sum[k]
	if (rest > 0)
		out = out sprintf(" other,-,%.0f", rest * 1e9)
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
			if (windows != "")
				printf "%.6f %.6f %d\n", q[w], t, cpu() >windows
		}
		delete q[w]
	}
}
