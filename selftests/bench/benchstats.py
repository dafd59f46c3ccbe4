# SPDX-License-Identifier: GPL-2.0
#
# What the statistics scripts of make bench share: the nearest-rank
# quantile and the circular block resampling of a round. Imported by
# latency-stats.py, rounds-ci.py, enqueue-stats.py and cost-stats.py,
# which put this directory on sys.path first. Python's standard library
# only.
import math


def quantile(sorted_xs, q):
	"""nearest rank: the smallest value with at least q of them at or below"""
	n = len(sorted_xs)
	return sorted_xs[min(n - 1, max(0, math.ceil(q * n) - 1))]


def resample(rounds, block, rng):
	"""each round resampled on its own in circular blocks of block values
	(every value as likely to be drawn as another), the rounds pooled"""
	out = []
	for xs in rounds:
		n = len(xs)
		if block <= 1 or n <= block:
			out.extend(rng.choices(xs, k=n))
			continue
		ring = xs + xs[:block]
		k = 0
		while k < n:
			s = rng.randrange(n)
			take = min(block, n - k)
			out.extend(ring[s:s + take])
			k += take
	return out
