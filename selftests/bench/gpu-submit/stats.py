#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# stats.py LOG [BOUND_US]: the tables of make bench-gpu-submit (markdown on
# stdout) from the guest's lines (vm.sh): per variant, the frames counted,
# the dropped ones, and what the seed counts: the submit work's dispatch
# (queue_work() to its first line) over BOUND_US (1000), its p50, p99 and
# the worst, the free work's p99 and worst, each with a 95 % interval that
# resamples whole rounds (SEED, BOOT resamples: 2000), and per round, so
# that a round unlike the others shows. A dropped frame counts as over the
# bound. Python's standard library only.
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchstats import quantile  # noqa: E402

DROP = None


def read(path):
	"""{variant: {round: [(submit_ns or DROP, free_ns, timer_ns, policy)]}},
	the variants in the order they first appear, and the skipped ones"""
	data, order, skipped = {}, [], []
	with open(path, errors="replace") as f:
		for line in f:
			w = line.split()
			if len(w) >= 5 and w[0] == "F":
				v, r = w[1], int(w[2])
				if v not in data:
					data[v] = {}
					order.append(v)
				if w[4] == "drop":
					rec = (DROP, None, None, None)
				elif len(w) >= 8:
					rec = (int(w[4]), int(w[5]), int(w[6]), int(w[7]))
				else:
					continue
				data[v].setdefault(r, []).append(rec)
			elif len(w) >= 3 and w[0] == "V":
				skipped.append(" ".join(w[1:]))
	return data, order, skipped


def metrics(frames, bound_ns):
	"""the metrics of a pool of frames"""
	sub = sorted(f[0] for f in frames if f[0] is not DROP)
	free = sorted(f[1] for f in frames if f[0] is not DROP)
	drops = sum(1 for f in frames if f[0] is DROP)
	over = drops + sum(1 for x in sub if x > bound_ns)
	m = {"frames": len(frames), "drops": drops,
	     "over": 100.0 * over / len(frames) if frames else float("nan")}
	if sub:
		m.update(p50=quantile(sub, 0.5), p99=quantile(sub, 0.99),
			 max=sub[-1], free_p99=quantile(free, 0.99),
			 free_max=free[-1])
	return m


def interval(rounds, key, bound_ns, rng, boot):
	"""95 % interval of KEY over resamples of whole rounds"""
	if len(rounds) < 2:
		return None
	est = []
	for _ in range(boot):
		pool = []
		for r in rng.choices(rounds, k=len(rounds)):
			pool.extend(r)
		v = metrics(pool, bound_ns).get(key)
		if v is not None:
			est.append(v)
	est.sort()
	return (quantile(est, 0.025), quantile(est, 0.975))


def us(ns):
	return "%.0f" % (ns / 1000.0) if ns is not None else "-"


def main():
	if len(sys.argv) not in (2, 3):
		sys.exit("usage: stats.py LOG [BOUND_US]")
	bound_us = int(sys.argv[2]) if len(sys.argv) == 3 else 1000
	bound_ns = bound_us * 1000
	rng = random.Random(int(os.environ.get("SEED", "1")))
	boot = int(os.environ.get("BOOT", "2000"))
	data, order, skipped = read(sys.argv[1])
	if not data:
		sys.exit("stats.py: no F lines in %s" % sys.argv[1])
	out = ["| variant | frames (dropped) | submit over %d us, %% [95 %%] | "
	       "submit p50 us | submit p99 us [95 %%] | worst submit us | "
	       "free p99 us | worst free us |" % bound_us,
	       "|---|---|---|---|---|---|---|---|"]
	for v in order:
		rounds = [data[v][r] for r in sorted(data[v])]
		pool = [f for r in rounds for f in r]
		m = metrics(pool, bound_ns)
		ci_over = interval(rounds, "over", bound_ns, rng, boot)
		ci_p99 = interval(rounds, "p99", bound_ns, rng, boot)
		out.append("| %s | %d (%d) | %.2f %s | %s | %s %s | %s | %s | %s |" % (
			v, m["frames"], m["drops"], m["over"],
			"[%.2f, %.2f]" % ci_over if ci_over else "",
			us(m.get("p50")), us(m.get("p99")),
			"[%s, %s]" % (us(ci_p99[0]), us(ci_p99[1])) if ci_p99 else "",
			us(m.get("max")), us(m.get("free_p99")), us(m.get("free_max"))))
	out.append("")
	out.append("Per round: frames over %d us, %% (the worst submit, us)\n" % bound_us)
	nr = max(len(data[v]) for v in order)
	out.append("| variant | " + " | ".join("round %d" % (i + 1) for i in range(nr)) + " |")
	out.append("|" + "---|" * (nr + 1))
	for v in order:
		cells = []
		for r in sorted(data[v]):
			m = metrics(data[v][r], bound_ns)
			cells.append("%.2f (%s)" % (m["over"], us(m.get("max"))))
		out.append("| %s | %s |" % (v, " | ".join(cells)))
	if skipped:
		out.append("")
		out.append("Skipped: " + "; ".join(skipped))
	print("\n".join(out))


if __name__ == "__main__":
	main()
