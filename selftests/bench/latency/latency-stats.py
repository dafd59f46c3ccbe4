#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# latency-stats.py RAW DATDIR: the tables of make bench-latency from the raw
# lines of vm-latency.sh (S, H, B), with bootstrap 95 % confidence
# intervals, and one survival curve per variant (DATDIR/surv-VARIANT.dat:
# latency in us, share of periods at least that late). Python's standard
# library only; settings from the environment:
#   DEADLINE_US  a period later than this is a miss (so is a skipped one)
#   SEED         the bootstrap's seed (run.sh records it)
#   BOOT         bootstrap resamples (1000)
#   BLOCK        periods per bootstrap block (50)
#   VARIANTS, BURSTS   the order of the rows
#
# The bootstrap resamples each round on its own, in blocks of BLOCK
# consecutive periods, and pools the rounds: latencies come in bursts (a
# load spike delays several periods in a row), which resampling single
# periods would treat as independent and so give too narrow an interval.
# rtla's histogram has no period order: timerlat's rows are resampled
# period by period, and say so. A skipped period (its slot was still in
# flight) counts as infinitely late: it is in every percentile's
# denominator and is a miss.
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

INF = math.inf


def read(path):
	"""{kind: {variant: {round: [latency ns, in period order]}}}, and the
	periods whose timer lateness was measured"""
	data = {"S": {}, "B": {}}
	# variant: {round: [(latency, timer late) ns]} where measured
	timer = {}
	hist = set()
	with open(path) as f:
		for line in f:
			w = line.split()
			if len(w) < 4 or w[0] not in ("S", "H", "B"):
				continue
			kind = "B" if w[0] == "B" else "S"
			rounds = data[kind].setdefault(w[1], {})
			xs = rounds.setdefault(int(w[2]), [])
			if w[0] == "H":
				hist.add(w[1])
				xs.extend([float(w[3]) * 1000] * int(w[4]))
			else:
				xs.append(INF if w[3] == "skip" else float(w[3]))
				if kind == "S" and len(w) > 4:
					timer.setdefault(w[1], {}).setdefault(
						int(w[2]), []).append(
						(float(w[3]), float(w[4])))
	return data, hist, timer


QS = (0.5, 0.99, 0.999)


def stats(xs, deadline_ns):
	s = sorted(xs)
	miss = sum(1 for x in s if x > deadline_ns)
	return [quantile(s, q) for q in QS] + [100.0 * miss / len(s), s[-1]]


def bootstrap(rounds, deadline_ns, block, boot, rng):
	"""95 % intervals of p50, p99, p99.9, miss %"""
	est = [[] for _ in range(4)]
	for _ in range(boot):
		st = stats(resample(rounds, block, rng), deadline_ns)
		for i in range(4):
			est[i].append(st[i])
	ci = []
	for e in est:
		e.sort()
		ci.append((quantile(e, 0.025), quantile(e, 0.975)))
	return ci


def us(ns):
	return "inf" if ns == INF else "%.1f" % (ns / 1000)


def cell(v, ci):
	return "%s [%s, %s]" % (us(v), us(ci[0]), us(ci[1]))


def pct_cell(v, ci):
	return "%.2f [%.2f, %.2f]" % (v, ci[0], ci[1])


def own_part(timer, order, deadline_ns, block, boot, seed):
	"""The workqueue's own part of each period, queue_work() (the timer
	callback's stamp) to the work's start, with the same block bootstrap
	(its own generator, seeded as the main tables'): the part that the
	timer's lateness under TCG leaves out of the end-to-end figures.
	timer: read()'s, periods not skipped."""
	rng = random.Random(seed)
	print("## The workqueue's own part: queue_work() to start")
	print()
	print("The timer callback's stamp, just before it queues the item, to the")
	print("work function's first line: the latency minus the timer's own")
	print("lateness, which under TCG is milliseconds at p99 in every variant")
	print("(the timer-late column above) and hides what the workqueue does.")
	print("Periods not skipped; the same block bootstrap as above, [95 %].")
	print("Rounds disagree when the host was busy: read the per-round rows.")
	print()
	print("| variant | periods | > %g us %% | > 300 us %% | p50 us | p99 us | per round: > %g us %% |" % (
		deadline_ns / 1000, deadline_ns / 1000))
	print("|---|---|---|---|---|---|---|")
	for v in order:
		if v not in timer:
			continue
		rounds = [[x - t for x, t in timer[v][r]] for r in sorted(timer[v])]
		allx = [x for xs in rounds for x in xs]
		st = stats(allx, deadline_ns)
		ci = bootstrap(rounds, deadline_ns, block, boot, rng)
		st3 = stats(allx, 300e3)
		ci3 = bootstrap(rounds, 300e3, block, boot, rng)
		per = " ".join("%.1f" % stats(xs, deadline_ns)[3] for xs in rounds)
		print("| %s | %d | %s | %s | %s | %s | %s |" % (
			v, len(allx), pct_cell(st[3], ci[3]), pct_cell(st3[3], ci3[3]),
			cell(st[0], ci[0]), cell(st[1], ci[1]), per))
	print()


def main():
	raw, datdir = sys.argv[1], sys.argv[2]
	deadline_ns = float(os.environ.get("DEADLINE_US", "1000")) * 1000
	period_ns = float(os.environ.get("PERIOD_US", "1000")) * 1000
	seed = int(os.environ.get("SEED", "1"))
	boot = int(os.environ.get("BOOT", "1000"))
	block = int(os.environ.get("BLOCK", "50"))
	data, hist, timer = read(raw)
	order = os.environ.get("VARIANTS", "").split() or sorted(data["S"])
	order += [v for v in sorted(data["S"]) if v not in order]
	rng = random.Random(seed)
	res = {}

	print("## All rounds, pooled")
	print()
	print("Periods: every period of every round, skips included. Miss: later")
	print("than %g us, or skipped. [95 %% bootstrap interval], %d resamples" %
	      (deadline_ns / 1000, boot))
	print("of each round in blocks of %d consecutive periods (single periods" % block)
	print("for timerlat50, whose histogram has no order), seed %d." % seed)
	print()
	print("| variant | rounds | periods | skipped | miss % | p50 us | p99 us | p99.9 us | max us | timer late p99 / max us | queue_work -> start p50 / p99 us, % > deadline | timer on time: periods, p50 / p99 us |")
	print("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for v in order:
		if v not in data["S"]:
			print("| %s | 0 | | | | | | | | | | |" % v)
			continue
		rounds = [data["S"][v][r] for r in sorted(data["S"][v])]
		allx = [x for xs in rounds for x in xs]
		st = stats(allx, deadline_ns)
		ci = bootstrap(rounds, deadline_ns, 1 if v in hist else block, boot, rng)
		res[v] = (st, ci)
		skips = sum(1 for x in allx if x == INF)
		if v in timer:
			pairs = [xt for r in sorted(timer[v]) for xt in timer[v][r]]
			tl = sorted(t for _, t in pairs)
			qs = sorted(x - t for x, t in pairs)
			ot = sorted(x for x, t in pairs if t < period_ns)
			split = "%s / %s | %s / %s, %.2f | %d, %s / %s" % (
				us(quantile(tl, 0.99)), us(tl[-1]),
				us(quantile(qs, 0.5)), us(quantile(qs, 0.99)),
				100.0 * sum(1 for q in qs if q > deadline_ns) / len(qs),
				len(ot), us(quantile(ot, 0.5)) if ot else "-",
				us(quantile(ot, 0.99)) if ot else "-")
		else:
			split = "- | - | -"
		print("| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s |" % (
			v, len(rounds), len(allx), skips, pct_cell(st[3], ci[3]),
			cell(st[0], ci[0]), cell(st[1], ci[1]), cell(st[2], ci[2]),
			us(st[4]), split))
	print()
	print("Timer late: the programmed expiry to the callback queueing the")
	print("item, the part of the latency that is the timer's (and the VM's),")
	print("not the workqueue's; queue_work -> start: the rest, and the share")
	print("of periods in which that part alone exceeded the deadline. Both")
	print("over the periods not skipped, without intervals here (the")
	print("workqueue's own part, below the bursts, has them). p99.9 rests on the")
	print("slowest 0.1 % of the periods, a handful per round: read its")
	print("interval before its value. rtla timerlat and cyclictest, like")
	print("most periodic tools, set their next wakeup past a period they")
	print("overran and so do not count the periods a stall swallows;")
	print("wqrt_bench.ko fires every one of them late: after a stall of")
	print("the VM their tails are not comparable period for period. Timer on")
	print("time: only the periods whose callback ran less than one period")
	print("late, none of a stall's catch-up; closer to what those tools")
	print("count, and no measure of the workqueue on its own (it drops the")
	print("periods a stall made late).")
	print()

	# Only what the intervals support: a variant is below another where
	# its whole interval is below the other's.
	print("### What the intervals support")
	print()
	names = ("p50", "p99", "p99.9", "miss %")
	vs = [v for v in order if v in res]
	for i, name in enumerate(names):
		below, apart = [], []
		for a in vs:
			for b in vs:
				if a >= b:
					continue
				ca, cb = res[a][1][i], res[b][1][i]
				if ca[1] < cb[0]:
					below.append("%s < %s" % (a, b))
				elif cb[1] < ca[0]:
					below.append("%s < %s" % (b, a))
				else:
					apart.append("%s ~ %s" % (a, b))
		print("- %s: %s; intervals overlap (not told apart): %s." % (
			name, ", ".join(below) or "no pair separated",
			", ".join(apart) or "none"))
	print()

	print("## Per round")
	print()
	print("| variant | round | periods | skipped | miss % | p50 us | p99 us | p99.9 us | max us |")
	print("|---|---|---|---|---|---|---|---|---|")
	for v in order:
		for r in sorted(data["S"].get(v, {})):
			xs = data["S"][v][r]
			st = stats(xs, deadline_ns)
			print("| %s | %d | %d | %d | %.2f | %s | %s | %s | %s |" % (
				v, r, len(xs), sum(1 for x in xs if x == INF), st[3],
				us(st[0]), us(st[1]), us(st[2]), us(st[4])))
	print()

	if data["B"]:
		bursts = os.environ.get("BURSTS", "").split() or sorted(data["B"])
		print("## Burst")
		print()
		# BURST_DESC: what the bursts were, where a caller's differ
		print(os.environ.get("BURST_DESC",
				     "K items queued at once, each blocking 2 ms; queue_work() to the\n"
				     "start of each item, policy fifo 50;"))
		print("intervals resample whole bursts of K. Miss: later than %g us." %
		      (deadline_ns / 1000))
		print()
		print("| variant | rounds | items | miss % | p50 us | p99 us | p99.9 us | max us |")
		print("|---|---|---|---|---|---|---|---|")
		k = int(os.environ.get("BURST_K", "8"))
		for v in bursts:
			if v not in data["B"]:
				continue
			rounds = [data["B"][v][r] for r in sorted(data["B"][v])]
			allx = [x for xs in rounds for x in xs]
			st = stats(allx, deadline_ns)
			ci = bootstrap(rounds, deadline_ns, k, boot, rng)
			print("| %s | %d | %d | %s | %s | %s | %s | %s |" % (
				v, len(rounds), len(allx), pct_cell(st[3], ci[3]),
				cell(st[0], ci[0]), cell(st[1], ci[1]),
				cell(st[2], ci[2]), us(st[4])))
		print()

	if timer:
		own_part(timer, order, deadline_ns, block, boot, seed)

	# survival: share of periods at least this late; skipped periods stay
	# in the denominator, so a curve with skips ends above zero
	for v in order:
		if v not in data["S"]:
			continue
		allx = sorted(x for xs in data["S"][v].values() for x in xs)
		n = len(allx)
		with open(os.path.join(datdir, "surv-%s.dat" % v), "w") as f:
			last = None
			for i, x in enumerate(allx):
				if x == INF:
					break
				if x != last:
					f.write("%.3f %.6g\n" % (x / 1000, (n - i) / n))
				last = x


if __name__ == "__main__":
	main()
