#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# reserve-stats.py RAW: the table of make bench-reserve from the raw lines
# "ROUND M STEP N WORKERS KEY KB" of vm-reserve.sh, one boot a round: for
# each step, the growth of each /proc/meminfo counter from the pool
# before any reserve (step 0) divided by the workers the step added, per
# round; the median over the rounds with a bootstrap 95 % interval that
# resamples the rounds, and the rounds' range. Python's standard library
# only; SEED (1) and BOOT (1000) from the environment.
import os
import random
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
# benchstats.py: one folder up in the source tree, beside this script
# where wqrt-selftests installs them
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
from benchstats import quantile  # noqa: E402

KEYS = ("KernelStack", "SUnreclaim", "SReclaimable", "Percpu", "MemAvailable")


def read(path):
	"""{round: {step: (n, workers, {key: kB})}}"""
	data = {}
	with open(path) as f:
		for line in f:
			w = line.split()
			if len(w) != 7 or w[1] != "M":
				continue
			r, step, n, workers = int(w[0]), int(w[2]), int(w[3]), int(w[4])
			_, _, kb = data.setdefault(r, {}).setdefault(step, (n, workers, {}))
			kb[w[5]] = int(w[6])
	return data


def per_worker(data, step, key):
	"""per round: (kB at step - kB at step 0) / workers added"""
	out = []
	for r in sorted(data):
		steps = data[r]
		if 0 not in steps or step not in steps:
			continue
		added = steps[step][1] - steps[0][1]
		if added <= 0 or key not in steps[step][2] or key not in steps[0][2]:
			continue
		grow = steps[step][2][key] - steps[0][2][key]
		# MemAvailable falls as memory is used: report the use
		if key == "MemAvailable":
			grow = -grow
		out.append(grow / added)
	return out


def interval(xs, boot, rng):
	meds = sorted(statistics.median(rng.choices(xs, k=len(xs)))
		      for _ in range(boot))
	return quantile(meds, 0.025), quantile(meds, 0.975)


def main():
	data = read(sys.argv[1])
	rng = random.Random(int(os.environ.get("SEED", "1")))
	boot = int(os.environ.get("BOOT", "1000"))
	steps = sorted({s for r in data.values() for s in r if s})
	print("kB per worker of the reserve: each step's growth of a "
	      "/proc/meminfo counter since the pool had no reserve, divided "
	      "by the workers it added; median over %d boots [bootstrap 95 %% "
	      "interval, the boots resampled] (range of the boots)."
	      % len(data))
	print()
	for step in steps:
		ns = {data[r][step][0] for r in data if step in data[r]}
		added = [data[r][step][1] - data[r][0][1] for r in sorted(data)
			 if step in data[r] and 0 in data[r]]
		print("### nr_idle_extra %s (workers added per boot: %s)" %
		      ("/".join(str(n) for n in sorted(ns)),
		       " ".join(str(a) for a in added)))
		print()
		print("| counter | kB per worker | range |")
		print("|---|---|---|")
		for key in KEYS:
			xs = per_worker(data, step, key)
			if not xs:
				print("| %s | - | - |" % key)
				continue
			lo, hi = interval(xs, boot, rng)
			print("| %s | %.1f [%.1f, %.1f] | %.1f - %.1f |" %
			      (key, statistics.median(xs), lo, hi, min(xs), max(xs)))
		print()


if __name__ == "__main__":
	main()
