#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# rounds-ci.py RAW...: the workqueue's own part (queue_work() to start)
# and the bursts of make bench-latency's raw files, with bootstrap 95 %
# intervals that resample whole rounds too. latency-stats.py and
# scenarios-stats.py resample each round on its own and pool the rounds,
# so their intervals leave out how much the rounds differ; here each
# resample first draws as many rounds as there are, with replacement,
# then blocks within each drawn round as those scripts do (50 periods;
# whole bursts of 8 items). Wider intervals: a comparison is told apart
# here only if the rounds agree. PAIRS ("A:B ..."): the differences A - B
# too, each resample drawing the same rounds for both (the rounds both
# ran): a difference is told apart when its interval leaves out 0.
# Python's standard library only; SEED (1), BOOT (1000), BURST_K (8, the
# items of a burst) and PAIRS from the environment.
import lzma
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchstats import quantile, resample  # noqa: E402

# nearest rank, as latency-stats.py's
q = quantile


def read(path):
	own, burst = {}, {}
	op = lzma.open if path.endswith(".xz") else open
	with op(path, "rt") as f:
		for line in f:
			w = line.split()
			if len(w) >= 5 and w[0] == "S" and w[3] != "skip":
				own.setdefault(w[1], {}).setdefault(int(w[2]), []).append(
					(float(w[3]) - float(w[4]), float(w[3])))
			elif len(w) >= 4 and w[0] == "B":
				burst.setdefault(w[1], {}).setdefault(int(w[2]), []).append(
					(float(w[3]), None))
	return own, burst


def stats(pairs):
	"""p50, p99, % > 1 ms, % > 300 us, max of the first of each pair, and
	% > 1 ms of the second (end to end), None for bursts"""
	s = sorted(x for x, _ in pairs)
	n = len(s)
	e2e = None
	if pairs[0][1] is not None:
		e2e = 100.0 * sum(1 for _, y in pairs if y > 1e6) / n
	return (q(s, 0.5), q(s, 0.99),
		100.0 * sum(1 for x in s if x > 1e6) / n,
		100.0 * sum(1 for x in s if x > 3e5) / n, s[-1], e2e)


def boot(rounds, block, nboot, rng):
	keys = sorted(rounds)
	est = [[] for _ in range(6)]
	for _ in range(nboot):
		out = []
		for k in [rng.choice(keys) for _ in keys]:
			out.extend(resample([rounds[k]], block, rng))
		st = stats(out)
		for i in (0, 1, 2, 3, 5):
			if st[i] is not None:
				est[i].append(st[i])
	return [(q(sorted(e), 0.025), q(sorted(e), 0.975)) if e else None
		for e in est]


def boot_pair(ra, rb, block, nboot, rng):
	"""95 % intervals of stats(a) - stats(b) (p50, p99, % > 1 ms, % > 300
	us), the same rounds drawn for both"""
	keys = sorted(set(ra) & set(rb))
	est = [[] for _ in range(4)]
	for _ in range(nboot):
		a, b = [], []
		for k in [rng.choice(keys) for _ in keys]:
			a.extend(resample([ra[k]], block, rng))
			b.extend(resample([rb[k]], block, rng))
		sa, sb = stats(a), stats(b)
		for i in range(4):
			est[i].append(sa[i] - sb[i])
	return [(q(sorted(e), 0.025), q(sorted(e), 0.975)) for e in est]


def us(ns):
	return "%.1f" % (ns / 1000)


def pairs(data, spec, block, nboot, rng):
	print("### Differences, the rounds drawn together")
	print()
	print("A - B over the rounds both ran, [95 %] with the same rounds drawn")
	print("for A and B in each resample; apart: the interval leaves out 0.")
	print()
	print("| A - B | rounds | > 1000 us, points | > 300 us, points | p50 us | p99 us | per round: > 1000 us % of A / of B |")
	print("|---|---|---|---|---|---|---|")
	for pair in spec.split():
		a, b = pair.split(":")
		if a not in data or b not in data:
			continue
		ra, rb = data[a], data[b]
		keys = sorted(set(ra) & set(rb))
		if not keys:
			continue
		sa = stats([x for k in keys for x in ra[k]])
		sb = stats([x for k in keys for x in rb[k]])
		ci = boot_pair(ra, rb, block, nboot, rng)
		cells = []
		for i, scale in ((2, 1), (3, 1), (0, 1000), (1, 1000)):
			lo, hi = ci[i][0] / scale, ci[i][1] / scale
			cells.append("%+.1f [%+.1f, %+.1f]%s" % (
				(sa[i] - sb[i]) / scale, lo, hi,
				" apart" if lo > 0 or hi < 0 else ""))
		per = " ".join("%.0f/%.0f" % (stats(ra[k])[2], stats(rb[k])[2])
			       for k in keys)
		print("| %s - %s | %d | %s | %s |" % (
			a, b, len(keys), " | ".join(cells), per))
	print()


def table(title, data, block, nboot, rng):
	print("### %s" % title)
	print()
	print("| variant | rounds | n | > 1000 us % | > 300 us % | p50 us | p99 us | max us | per round: p99 us | end to end > 1000 us % |")
	print("|---|---|---|---|---|---|---|---|---|---|")
	for v in sorted(data):
		rounds = data[v]
		allx = [x for r in sorted(rounds) for x in rounds[r]]
		p50, p99, m1, m3, mx, e2e = stats(allx)
		ci = boot(rounds, block, nboot, rng)
		per = " ".join("%.0f" % (stats(rounds[r])[1] / 1000)
			       for r in sorted(rounds))
		e2e_cell = "-" if e2e is None else "%.2f [%.2f, %.2f]" % (
			e2e, ci[5][0], ci[5][1])
		print("| %s | %d | %d | %.2f [%.2f, %.2f] | %.2f [%.2f, %.2f] | %s [%s, %s] | %s [%s, %s] | %s | %s | %s |" % (
			v, len(rounds), len(allx), m1, ci[2][0], ci[2][1],
			m3, ci[3][0], ci[3][1], us(p50), us(ci[0][0]), us(ci[0][1]),
			us(p99), us(ci[1][0]), us(ci[1][1]), us(mx), per, e2e_cell))
	print()


def main():
	seed = int(os.environ.get("SEED", "1"))
	nboot = int(os.environ.get("BOOT", "1000"))
	k = int(os.environ.get("BURST_K", "8"))
	print("# Intervals with the rounds resampled")
	print()
	print("Generated by selftests/bench/rounds-ci.py from the raw files below")
	print("(SEED=%d BOOT=%d). Each bootstrap resample draws the rounds with" % (seed, nboot))
	print("replacement, then blocks within each drawn round (50 periods; one")
	print("burst of %d items), so the intervals include the differences between" % k)
	print("rounds, which the intervals of the runs' own tables leave out.")
	print("Own part: queue_work() (the timer callback's stamp) to the work")
	print("function's first line, periods not skipped; bursts: the stamp to")
	print("each item's start. max: the slowest single sample, no interval.")
	print("End to end: the timer's programmed expiry to the work function's")
	print("first line (the runs' miss %, no period was skipped).")
	print()
	for path in sys.argv[1:]:
		rng = random.Random(seed)
		own, burst = read(path)
		print("## %s" % os.path.basename(path))
		print()
		if own:
			table("The workqueue's own part", own, 50, nboot, rng)
		if burst:
			table("Bursts", burst, k, nboot, rng)
		if burst and os.environ.get("PAIRS"):
			pairs(burst, os.environ["PAIRS"], k, nboot, rng)


main()
