#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# imu-stats.py RAW OUTDIR: make bench-imu's tables (markdown on stdout) and
# the survival curves for its plot (OUTDIR/surv-MODE-VARIANT.dat) from the
# raw lines run.sh collects, each the guest's line (vm-imu.sh) behind the
# name of the QEMU mode it was measured in: "MODE F VARIANT ROUND SEQ
# WRITER_LATE_NS LATENCY_NS", "MODE X ...", "MODE T VARIANT ROUND NS QCPU
# XCPU", ...
#
# Counted as an IMU's user counts, from the reader's side: a frame is late
# when it reached the reader more than LIMIT_US after its write(), or never
# (lost frames are late); the longest gap is the longest time between two
# consecutive frames at the reader. The writer's own wake-up (the guest's
# timer floor: scheduled send time to write()) is shown beside, never
# counted against a variant; so is the latency from the scheduled send
# time, which includes it. Intervals: bootstrap 95 %, each
# resample drawing as many rounds as there were, with replacement, then
# circular blocks of BLOCK (50) frames within each drawn round
# (benchstats.resample), so they include the differences between rounds;
# a variant's ratio to the default draws the same rounds for both (they
# ran in the same rounds). Longest gaps: one per round, the median of the
# rounds, the rounds resampled. SEED (1), BOOT (2000 resamples; BOOT_Q,
# 400, for the medians, which sort every resample) from the environment;
# MODES and VARIANTS name the rows in order. Python's standard library
# only.
import lzma
import math
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
# benchstats.py: one folder up in the source tree, beside this script
# where wqrt-selftests installs them
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
from benchstats import quantile, resample  # noqa: E402

BLOCK = 50


class Run:
	def __init__(self):
		self.frames = {}	# seq: (writer late ns, latency ns or -1)
		self.x = {}		# the X line's counters
		self.trace = []		# (ns, queue cpu, run cpu)
		self.w = []		# W lines
		self.gaps = []		# -R (host-clock mode): gap ns per frame read
		self.late = []		# D lines: (start, wake, switch-in, preempted, asleep, waited, idle) ns
		self.ran = []		# B lines: (start ns, cpu, [(task, prio, ns)])
		self.ticks = []		# S lines: (start ns, task, [(where, count)])

	def seq_lat(self):
		return [self.frames[k][1] for k in sorted(self.frames)]

	def seq_path(self):
		"""write() to read() per frame in order, -1 for a lost one"""
		return [lat - wl if lat >= 0 else -1
			for wl, lat in (self.frames[k] for k in sorted(self.frames))]


def read(path):
	runs = {}	# (mode, variant): {round: Run}
	info = {}	# mode: [lines]
	hist = {}	# mode: {round: [(us, count)]}
	op = lzma.open if path.endswith(".xz") else open
	with op(path, "rt") as f:
		for line in f:
			w = line.split()
			if len(w) < 2:
				continue
			mode, t = w[0], w[1]
			if t == "H" and len(w) >= 6:
				# rtla timerlat's histogram: us, count
				hist.setdefault(mode, {}).setdefault(int(w[3]), []).append(
					(int(w[4]), int(w[5])))
			elif t in ("F", "X", "T", "W", "G", "D", "B", "S") and len(w) >= 4:
				try:
					rnd = int(w[3])
				except ValueError:
					continue
				r = runs.setdefault((mode, w[2]), {}).setdefault(rnd, Run())
				if t == "F" and len(w) >= 7:
					r.frames[int(w[4])] = (int(w[5]), int(w[6]))
				elif t == "X":
					r.x = {w[i]: int(w[i + 1]) for i in range(4, len(w) - 1, 2)}
				elif t == "T" and len(w) >= 7:
					r.trace.append((int(w[4]), int(w[5]), int(w[6])))
				elif t == "W":
					r.w.append(" ".join(w[4:]))
				elif t == "D" and len(w) >= 7:
					# preempted and asleep since 2026-12-05's
					# second run, waited and idle since its
					# third (-1: not recorded)
					ext = [int(x) for x in w[8:12]]
					ext += [-1] * (4 - len(ext))
					r.late.append((int(w[4]), int(w[5]), int(w[6]), *ext))
				elif t == "B" and len(w) >= 6:
					# SWITCHES=all: TASK,PRIO,NS each (a comm's
					# spaces and commas made _)
					tasks = [x.rsplit(",", 2) for x in w[6:]]
					r.ran.append((int(w[4]), int(w[5]),
						      [(a, b, int(c)) for a, b, c in tasks]))
				elif t == "S" and len(w) >= 6:
					# WHERE,COUNT each
					r.ticks.append((int(w[4]), w[5], [
						(a, int(b)) for a, b in (x.rsplit(",", 1) for x in w[6:])]))
				elif t == "G" and len(w) >= 7 and int(w[6]) >= 0:
					r.gaps.append(int(w[6]))
			else:
				info.setdefault(mode, []).append(" ".join(w[1:]))
	# a run counts once it finished: its X line
	for key in list(runs):
		runs[key] = {r: run for r, run in runs[key].items()
			     if run.x and (run.frames or run.gaps)}
		if not runs[key]:
			del runs[key]
	return runs, info, hist


def late_flags(lats, ns):
	return [1 if x < 0 or x > ns else 0 for x in lats]


class Counter:
	"""circular block sums of a round's 0/1 flags, drawn in O(1)"""

	def __init__(self, flags, block):
		n = len(flags)
		ring = flags + flags[:block]
		self.pre = [0]
		for x in ring:
			self.pre.append(self.pre[-1] + x)
		self.n, self.block = n, block

	def draw(self, rng):
		n, b, pre = self.n, self.block, self.pre
		if b <= 1 or n <= b:
			return sum(pre[i + 1] - pre[i] for i in
				   (rng.randrange(n) for _ in range(n)))
		s, k = 0, 0
		while k < n:
			st = rng.randrange(n)
			take = min(b, n - k)
			s += pre[st + take] - pre[st]
			k += take
		return s


def ci(xs):
	xs = sorted(xs)
	if not xs:
		return None
	return (quantile(xs, 0.025), quantile(xs, 0.975))


def arrivals_gap(run, period_ns):
	"""the longest time between consecutive frames at the reader (ns)"""
	arr = sorted(k * period_ns + lat for k, (_, lat) in run.frames.items()
		     if lat >= 0)
	if len(arr) < 2:
		return None
	return max(b - a for a, b in zip(arr, arr[1:]))


def pct(n, d):
	return 100.0 * n / d if d else float("nan")


def fmt_ci(c, f="%.2f"):
	return "[" + f % c[0] + ", " + f % c[1] + "]" if c else "-"


def us(ns):
	return "%.0f" % (ns / 1000.0)


def feed_tables(rows, limit_ns, rng, nboot):
	"""a host-clock mode: the frames came from imu_sender on the host, the
	guest's reader saw only the gaps between them (G lines)"""
	lim_ms = "%g" % (limit_ns / 1e6)
	table_head("""The frames came from outside the guest (imu_sender on the host, one a
period on the host's clock), so no guest writer and no guest timer is
on their path; what the reader sees is the gap between one frame's
read() and the next one's. Per variant (gaps > %s ms: the share of
frames read more than %s ms after the one before, the rounds
resampled for the interval):""" % (lim_ms, lim_ms),
		["variant", "rounds", "frames read", "lost", "out of order",
		 "gaps > %s ms %% [interval]" % lim_ms, "p99 gap us",
		 "longest gap ms (per round)", "queue_work -> start p50 / p99 us (n)"])
	for v, rr in rows:
		rounds = [rr[r] for r in sorted(rr)]
		gaps = sorted(g for run in rounds for g in run.gaps)
		over = [sum(1 for g in run.gaps if g > limit_ns) for run in rounds]
		sizes = [len(run.gaps) for run in rounds]
		est = []
		if len(rounds) > 1:
			for _ in range(nboot):
				idx = rng.choices(range(len(rounds)), k=len(rounds))
				n = sum(sizes[i] for i in idx)
				if n:
					est.append(100.0 * sum(over[i] for i in idx) / n)
			est.sort()
		c = "[%.2f, %.2f]" % (quantile(est, 0.025), quantile(est, 0.975)) if est else ""
		trs = sorted(t[0] for run in rounds for t in run.trace)
		print("| %s | %d | %d | %d | %d | %.2f %s | %s | %s | %s |" % (
			v, len(rounds), sum(run.x.get("received", 0) for run in rounds),
			sum(run.x.get("lost", 0) for run in rounds),
			sum(run.x.get("dup", 0) for run in rounds),
			pct(sum(over), len(gaps)), c,
			us(quantile(gaps, 0.99)) if gaps else "-",
			", ".join("%.2f" % (max(run.gaps) / 1e6) if run.gaps else "-" for run in rounds),
			"%s / %s (%d)" % (us(quantile(trs, 0.5)), us(quantile(trs, 0.99)), len(trs))
			if trs else "not measured"))
	print()


def table_head(intro, cols):
	"""a table's introduction, a blank line, its header and the markdown
	rule under it"""
	print(intro)
	print()
	print("| %s |" % " | ".join(cols))
	print("|%s" % ("---|" * len(cols)))


def each_run(rows, what):
	"""(variant, round, its WHAT list) for every run of ROWS, in order,
	that has some"""
	for v, rr in rows:
		for r in sorted(rr):
			items = getattr(rr[r], what)
			if items:
				yield v, r, items


def late_tables(rows):
	"""the tables of the late starts, each when the raw file has its
	lines: D (late_starts), B and S (SWITCHES=all)"""
	runs = [run for _, rr in rows for run in rr.values()]
	if any(run.late for run in runs):
		late_starts(rows)
	if any(run.ran for run in runs):
		ran_meanwhile(rows)
	if any(run.ticks for run in runs):
		ticks_where(rows)


def late_starts(rows):
	"""the flip work's starts over 10 ms after its queue_work(), split by
	what the worker that ran it was doing (D lines: its first wakeup
	after the queueing, its last switch-in, its time off the CPU since
	the queueing: preempted, asleep, or woken and waiting for a CPU, and
	how long that CPU sat idle meanwhile)"""
	table_head("""Starts of the flip work over 10 ms after its queue_work(), by what
held up the worker that ran it: woken late (the workqueue had no
worker to wake), asleep over 10 ms (blocked: for one, a worker
must create a worker before it may work), preempted over 10 ms
(switched out runnable), woken and waiting over 10 ms for the CPU
it was woken onto, with how many of those that CPU ran its idle
task for most of the wait (a wakeup that did not reach it), or busy
before the queueing; - where the trace did not say:""",
		["variant", "round", "late starts", "woken > 10 ms late", "asleep > 10 ms",
		 "preempted > 10 ms", "waited > 10 ms (CPU idle)", "busy before the queueing",
		 "start p50 / max ms"])
	ms10 = 10 * 1000 * 1000
	for v, r, d in each_run(rows, "late"):
		starts = sorted(x[0] for x in d)
		split = any(x[3] >= 0 for x in d)
		waited = any(x[5] >= 0 for x in d)
		print("| %s | %d | %d | %d | %s | %s | %s | %d | %.1f / %.1f |" % (
			v, r, len(d),
			sum(1 for x in d if x[1] > ms10),
			sum(1 for x in d if x[4] > ms10) if split else "-",
			sum(1 for x in d if x[3] > ms10) if split else "-",
			"%d (%d)" % (sum(1 for x in d if x[5] > ms10),
				     sum(1 for x in d if x[5] > ms10 and 2 * x[6] > x[5]))
			if waited else "-",
			sum(1 for x in d if x[1] < 0),
			starts[(len(starts) - 1) // 2] / 1e6, starts[-1] / 1e6))
	print()


def policy(prio):
	"""sched_switch's prio as a policy: below 0 deadline, below 100
	real-time (99 - rtprio), else SCHED_OTHER at 120 + nice"""
	try:
		p = int(prio)
	except ValueError:
		return prio
	if p < 0:
		return "deadline"
	if p < 100:
		return "rt %d" % (99 - p)
	return "nice %d" % (p - 120)


def ran_meanwhile(rows):
	"""SWITCHES=all: what ran on the CPU each late start ran on, from
	its queueing to its start (B lines), summed over a run's late
	starts: the tasks that held it longest"""
	table_head("""What ran on the CPU the late flip work started on, from its
queue_work() to its start (every switch traced: SWITCHES=all), over
the run's starts over 10 ms: the tasks that held that CPU longest,
their policy as sched_switch printed it, their time and share:""",
		["variant", "round", "late starts", "their windows, ms",
		 "longest on the CPU: task (policy) ms, share"])
	for v, r, b in each_run(rows, "ran"):
		tot = sum(x[0] for x in b)
		by = {}
		for _, _, tasks in b:
			for task, prio, ns in tasks:
				key = (task, policy(prio) if task != "other" else "the rest")
				by[key] = by.get(key, 0) + ns
		top = sorted(by.items(), key=lambda kv: -kv[1])[:5]
		print("| %s | %d | %d | %.1f | %s |" % (
			v, r, len(b), tot / 1e6, "; ".join(
				"%s (%s) %.1f, %.0f %%" % (t, pol, ns / 1e6, 100.0 * ns / tot)
				for (t, pol), ns in top)))
	print()


def ticks_where(rows):
	"""SWITCHES=all: where the timer interrupts of the late starts'
	windows found imu_uart's threads on that CPU (S lines), summed over
	a run's windows: the innermost interrupted frames, most often
	first"""
	table_head("""Where the timer interrupts in those windows found imu_uart's
threads on that CPU (the three innermost frames interrupted,
innermost first; user: in user space), ticks summed over the run:""",
		["variant", "round", "thread", "ticks", "where: ticks"])
	for v, r, ticks in each_run(rows, "ticks"):
		by = {}
		for _, task, wh in ticks:
			d = by.setdefault(task, {})
			for where, n in wh:
				d[where] = d.get(where, 0) + n
		for task in sorted(by, key=lambda t: -sum(by[t].values())):
			d = by[task]
			print("| %s | %d | %s | %d | %s |" % (
				v, r, task, sum(d.values()), "; ".join(
					"%s: %d" % (where.replace("<", " < "), n)
					for where, n in sorted(d.items(), key=lambda kv: -kv[1])[:4])))
	print()


def main():
	raw, outdir = sys.argv[1], sys.argv[2]
	limit_ns = int(os.environ.get("LIMIT_US", "2000")) * 1000
	far_ns = int(os.environ.get("FAR_US", "5000")) * 1000
	period_ns = int(os.environ.get("PERIOD_US", "1000")) * 1000
	seed = int(os.environ.get("SEED", "1"))
	nboot = int(os.environ.get("BOOT", "2000"))
	nboot_q = int(os.environ.get("BOOT_Q", "400"))
	runs, info, hist = read(raw)
	modes = os.environ.get("MODES", "").split() or sorted({m for m, _ in runs})
	variants = os.environ.get("VARIANTS", "").split() or sorted({v for _, v in runs})
	base = variants[0]
	lim_ms = "%g" % (limit_ns / 1e6)
	far_ms = "%g" % (far_ns / 1e6)
	print("Statistics: selftests/bench/imu/imu-stats.py (SEED=%d BOOT=%d BOOT_Q=%d)," % (seed, nboot, nboot_q))
	print("late = read more than %s ms after its write(), or lost (the" % lim_ms)
	print("writer's own wake-up not counted: it is the guest's timer floor);")
	print("intervals: bootstrap 95 %%, the rounds resampled, then blocks of %d" % BLOCK)
	print("frames within each drawn round; ratio: the variant's late share over")
	print("%s's, the same rounds drawn for both." % base)
	print()
	for mode in modes:
		rng = random.Random(seed)
		rows = [(v, runs.get((mode, v), {})) for v in variants]
		rows = [(v, rr) for v, rr in rows if rr]
		if not rows:
			continue
		print("## %s" % mode)
		print()
		if all(run.gaps and not run.frames for _, rr in rows for run in rr.values()):
			feed_tables(rows, limit_ns, rng, nboot)
			late_tables(rows)
			continue
		# the rounds every variant ran in: the pairs of the ratios
		common = sorted(set.intersection(*(set(rr) for _, rr in rows)))
		cnt = {}
		cnt_far = {}
		for v, rr in rows:
			cnt[v] = {r: Counter(late_flags(rr[r].seq_path(), limit_ns), BLOCK) for r in rr}
			cnt_far[v] = {r: Counter(late_flags(rr[r].seq_path(), far_ns), BLOCK) for r in rr}
		# the share and the ratio, each resample drawing the same rounds
		# for every variant
		share_b = {v: [] for v, _ in rows}
		far_b = {v: [] for v, _ in rows}
		ratio_b = {v: [] for v, _ in rows}
		for _ in range(nboot):
			draw = [rng.choice(common) for _ in common]
			sh = {}
			for v, rr in rows:
				n = sum(cnt[v][r].n for r in draw)
				sh[v] = pct(sum(cnt[v][r].draw(rng) for r in draw), n)
				far_b[v].append(pct(sum(cnt_far[v][r].draw(rng) for r in draw), n))
				share_b[v].append(sh[v])
			for v, _ in rows:
				if base in sh and sh[base] > 0:
					ratio_b[v].append(sh[v] / sh[base])
		# medians: whole resamples of the write() -> read() times
		p50_b = {}
		for v, rr in rows:
			lats = {r: [x for x in rr[r].seq_path() if x >= 0] for r in rr}
			keys = sorted(lats)
			est = []
			for _ in range(nboot_q if any(lats.values()) else 0):
				s = sorted(resample([lats[rng.choice(keys)] for _ in keys], BLOCK, rng))
				est.append(quantile(s, 0.5))
			p50_b[v] = ci(est) if est else None
		table_head("""What an IMU's user counts at the reader, per variant (%d rounds in common;
late: write() to read() over %s ms, or lost; the writer's wake-up beside):""" % (len(common), lim_ms),
			["variant", "rounds", "frames", "lost", "late > %s ms %%" % lim_ms,
			 "ratio to %s" % base, "> %s ms %%" % far_ms,
			 "write -> read p99 us (per round)",
			 "longest gap at the reader, ms: median of rounds [interval] (per round)",
			 "writer late p99 us"])
		for v, rr in rows:
			sent = sum(len(rr[r].frames) for r in rr)
			paths = [x for r in rr for x in rr[r].seq_path()]
			lost = sum(1 for x in paths if x < 0)
			late = sum(1 for x in paths if x < 0 or x > limit_ns)
			far = sum(1 for x in paths if x < 0 or x > far_ns)
			okp = sorted(x for x in paths if x >= 0)
			p99r = []
			for r in sorted(rr):
				sp = sorted(x for x in rr[r].seq_path() if x >= 0)
				p99r.append(us(quantile(sp, 0.99)) if sp else "-")
			wl = sorted(w for r in rr for w, _ in rr[r].frames.values())
			gaps = [arrivals_gap(rr[r], period_ns) for r in sorted(rr)]
			gaps = [g for g in gaps if g is not None]
			gmed = sorted(gaps)[(len(gaps) - 1) // 2] if gaps else None
			gb = []
			for _ in range(nboot):
				d = sorted(rng.choice(gaps) for _ in gaps)
				gb.append(d[(len(d) - 1) // 2])
			# the ratio's point estimate from the rounds in common
			ln = sum(cnt[v][r].pre[cnt[v][r].n] for r in common)
			bn = sum(cnt[base][r].pre[cnt[base][r].n] for r in common) if base in cnt else 0
			nv = sum(cnt[v][r].n for r in common)
			nb = sum(cnt[base][r].n for r in common) if base in cnt else 0
			ratio = "-" if v == base else (
				"%.2f %s" % (pct(ln, nv) / pct(bn, nb), fmt_ci(ci(ratio_b[v])))
				if bn else "- (%s had no late frame)" % base)
			print("| %s | %d | %d | %d | %.2f %s | %s | %.2f %s | %s (%s) | %s %s (%s) | %s |" % (
				v, len(rr), sent, lost, pct(late, sent), fmt_ci(ci(share_b[v])),
				ratio, pct(far, sent), fmt_ci(ci(far_b[v])),
				us(quantile(okp, 0.99)) if okp else "-", " ".join(p99r),
				"%.1f" % (gmed / 1e6) if gmed is not None else "-",
				fmt_ci(tuple(x / 1e6 for x in ci(gb)), "%.1f") if gb else "",
				" ".join("%.1f" % (g / 1e6) for g in gaps),
				us(quantile(wl, 0.99)) if wl else "-"))
		print()
		table_head("""Where the time goes (write -> read: write() to read(), the headline's
time; latency: scheduled send time to read(), the writer's wake-up
included; queue_work -> start: flush_to_ldisc on the flip workqueue,
from the trace events; other CPU: the work items run on another CPU
than the one that queued them, the UART's IRQ thread's; writer late:
the writer's own wake-up, the guest's timer floor):""",
			["variant", "write -> read p50 us [interval]", "p99 us",
			 "latency p50 / p99 us", "queue_work -> start p50 / p99 us (n)",
			 "other CPU %", "writer late p50 / p99 us"])
		for v, rr in rows:
			lat = sorted(x for r in rr for x in rr[r].seq_lat() if x >= 0)
			path = sorted(x for r in rr for x in rr[r].seq_path() if x >= 0)
			wl = sorted(w for r in rr for w, _ in rr[r].frames.values())
			tr = [t for r in rr for t in rr[r].trace]
			trs = sorted(t[0] for t in tr)
			other = sum(1 for t in tr if t[1] != t[2])
			cell_t = "%s / %s (%d)" % (us(quantile(trs, 0.5)), us(quantile(trs, 0.99)), len(trs)) if trs else "not measured"
			print("| %s | %s %s | %s | %s / %s | %s | %s | %s / %s |" % (
				v, us(quantile(path, 0.5)) if path else "-",
				fmt_ci(tuple(x / 1000 for x in p50_b[v]), "%.0f") if p50_b[v] else "",
				us(quantile(path, 0.99)) if path else "-",
				us(quantile(lat, 0.5)) if lat else "-",
				us(quantile(lat, 0.99)) if lat else "-", cell_t,
				"%.1f" % pct(other, len(tr)) if tr else "-",
				us(quantile(wl, 0.5)) if wl else "-", us(quantile(wl, 0.99)) if wl else "-"))
		print()
		late_tables(rows)
		if mode in hist:
			h = hist[mode]
			tot = sum(c for r in h for _, c in h[r])

			def hq(pairs, q):
				n = sum(c for _, c in pairs)
				acc = 0
				for u, c in sorted(pairs):
					acc += c
					if acc >= math.ceil(q * n):
						return u
				return None
			allp = [p for r in h for p in h[r]]
			over = sum(c for u, c in allp if u * 1000 > limit_ns)
			print("The floor: rtla timerlat, its FIFO 50 thread woken every %d us on" % (period_ns // 1000))
			print("every CPU for a while after each round, under the same load: %d" % tot)
			print("wake-ups, p50 %s us, p99 %s us (per round: %s), max %s us, later" % (
				hq(allp, 0.5), hq(allp, 0.99),
				" ".join(str(hq(h[r], 0.99)) for r in sorted(h)),
				max(u for u, _ in allp)))
			print("than %s ms %.2f %%." % (lim_ms, pct(over, tot)))
			print()
		table_head("Per round:",
			["variant", "round", "frames", "lost", "UART overruns",
			 "late > %s ms %%" % lim_ms, "> %s ms %%" % far_ms,
			 "longest gap ms", "write -> read p50 us", "p99 us", "max us",
			 "writer late p99 us", "queue_work -> start p99 us",
			 "other CPU %", "kworkers (before; after)"])
		for v, rr in rows:
			for r in sorted(rr):
				run = rr[r]
				lats = run.seq_path()
				n = len(lats)
				ok = sorted(x for x in lats if x >= 0)
				wl = sorted(w for w, _ in run.frames.values())
				g = arrivals_gap(run, period_ns)
				trs = sorted(t[0] for t in run.trace)
				other = sum(1 for t in run.trace if t[1] != t[2])
				kw = "; ".join(w.split(" irq_thread")[0].split()[-1] for w in run.w)
				print("| %s | %d | %d | %d | %s | %.2f | %.2f | %s | %s | %s | %s | %s | %s | %s | %s |" % (
					v, r, n, sum(1 for x in lats if x < 0),
					run.x.get("overrun", "-"),
					pct(sum(late_flags(lats, limit_ns)), n),
					pct(sum(late_flags(lats, far_ns)), n),
					"%.1f" % (g / 1e6) if g is not None else "-",
					us(quantile(ok, 0.5)) if ok else "-",
					us(quantile(ok, 0.99)) if ok else "-",
					us(ok[-1]) if ok else "-",
					us(quantile(wl, 0.99)) if wl else "-",
					us(quantile(trs, 0.99)) if trs else "-",
					"%.1f" % pct(other, len(run.trace)) if run.trace else "-", kw))
		print()
		# survival curves: the share of frames at least this late from
		# write() to read() (lost ones beyond any latency)
		for v, rr in rows:
			lats = [x for r in rr for x in rr[r].seq_path()]
			n = len(lats)
			ok = sorted(x for x in lats if x >= 0)
			with open(os.path.join(outdir, "surv-%s-%s.dat" % (mode, v)), "w") as f:
				step = max(1, len(ok) // 4000)
				for i in range(0, len(ok), 1):
					# thin the body, keep the tail
					if i % step and len(ok) - i > 2000:
						continue
					f.write("%.1f %.6g\n" % (ok[i] / 1000.0, (n - i) / n))
	return 0


if __name__ == "__main__":
	sys.exit(main())
