#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# enqueue-stats.py RAW: the tables of make bench-enqueue (markdown on
# stdout) from the raw lines run.sh collects, "KERNEL ROUND POS KIND ...":
#   L SCOPE PARTITION ...   the pools the scope gave the workqueue
#   R SCOPE ITEMS_PER_SEC P50_NS P99_NS HOLD_AVG_NS ACQ
#   S SCOPE NAME VALUE ...  lock_stat's pool->lock columns (lock_stat kernels)
#   H LOADAVG...            the host's /proc/loadavg before the boot
#   A ACCEL                 the accelerator of the boot
# Python's standard library only; the nearest-rank quantile is
# latency-stats.py's. Settings from the environment:
#   KERNELS  the order of the kernels (run.sh's)
#   FAMILY   prod or perf: names the comparisons (FAMILY-plain, FAMILY@2, ...)
#   SEED     the bootstrap's seed (run.sh records it)
#   BOOT     bootstrap resamples (2000)
#
# Scopes that gave the workqueue the same pools in every boot (the same
# partition of the CPUs into pools) are one experiment run several times in
# one boot, not separate data: they form one group, whose value in a boot
# is the median of its scopes' values. A group's figure is the median over
# the rounds (one boot of each kernel per round) with a bootstrap 95 %
# interval from resampling the rounds; a comparison of two kernels is the
# median of the per-round ratios (both kernels booted in the same round),
# its interval from resampling the rounds, and how many rounds went which
# way.
import os
import random
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
# benchstats.py: one folder up in the source tree, beside this script
# where wqrt-selftests installs them
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
from benchstats import quantile, resample  # noqa: E402

SCOPES = ("cpu", "smt", "cache", "numa", "system")
# lock_stat columns shown, the time ones in ns
LOCK_COLS = ("contentions", "con-bounces", "waittime-avg", "waittime-max",
	     "waittime-total", "acquisitions", "holdtime-avg", "holdtime-max")


def read(path):
	res = {}      # (kernel, round): {scope: [items/s, p50, p99]}
	lock = {}     # (kernel, round): {scope: {column: value}}
	layout = {}   # (kernel, round): {scope: (partition, detail)}
	skipped = []  # (kernel, round, scope, why)
	load, accel, info, clock = {}, {}, {}, {}
	with open(path) as f:
		for line in f:
			w = line.split()
			if len(w) < 4:
				continue
			k, r, kind = w[0], int(w[1]), w[3]
			key = (k, r)
			if kind == "R" and len(w) >= 8 and w[5] != "":
				res.setdefault(key, {})[w[4]] = [float(x) for x in w[5:8]]
			elif kind == "S":
				kv = w[5:]
				lock.setdefault(key, {})[w[4]] = {
					kv[i]: float(kv[i + 1]) for i in range(0, len(kv) - 1, 2)}
			elif kind == "L":
				layout.setdefault(key, {})[w[4]] = (w[5], " ".join(w[6:]))
			elif kind == "V":
				skipped.append((k, r, w[4], " ".join(w[5:])))
			elif kind == "H":
				load[key] = " ".join(w[4:7])
			elif kind == "A":
				accel[key] = w[4]
			elif kind == "I" and len(w) > 5 and w[4] == "clocksource":
				clock[key] = w[5]  # the last one: where the boot ended
			elif kind == "I":
				info.setdefault(" ".join(w[4:6]), set()).add(" ".join(w[6:]))
	return res, lock, layout, skipped, load, accel, info, clock


def median(xs):
	return statistics.median(xs)


def boot_ci(xs, stat, boot, rng):
	"""95 % bootstrap interval of stat(xs), resampling xs"""
	if len(xs) < 2:
		return (float("nan"), float("nan"))
	est = sorted(stat(rng.choices(xs, k=len(xs))) for _ in range(boot))
	return (quantile(est, 0.025), quantile(est, 0.975))


def groups_of(layout):
	"""[(scopes, partition)]: scopes with one partition in every boot
	grouped by it, a scope whose partition varied on its own"""
	seen = {}
	for per in layout.values():
		for scope, (part, _) in per.items():
			seen.setdefault(scope, set()).add(part)
	by_part, out = {}, []
	for scope in SCOPES:
		parts = seen.get(scope)
		if not parts:
			continue
		if len(parts) == 1:
			by_part.setdefault(next(iter(parts)), []).append(scope)
		else:
			out.append(([scope], "varied: " + "/".join(sorted(parts))))
	out = [(scopes, part) for part, scopes in by_part.items()] + out
	out.sort(key=lambda g: SCOPES.index(g[0][0]))
	return out


def describe(part):
	if part.startswith("varied"):
		return part
	n = len(set(part))
	if n == 1:
		return "%s: one pool for all %d CPUs" % (part, len(part))
	if n == len(part):
		return "%s: one pool per CPU" % part
	return "%s: %d pools" % (part, n)


def fmt(v, nd=0):
	if v != v:  # nan
		return "-"
	return "%.*f" % (nd, v)


def cell(v, ci, nd=0):
	return "%s [%s, %s]" % (fmt(v, nd), fmt(ci[0], nd), fmt(ci[1], nd))


def main():
	raw = sys.argv[1]
	seed = int(os.environ.get("SEED", "1"))
	boot = int(os.environ.get("BOOT", "2000"))
	family = os.environ.get("FAMILY", "prod")
	res, lock, layout, skipped, load, accel, info, clock = read(raw)
	# Every item is timed with two ktime_get_ns(): a boot whose clocksource
	# the watchdog moved off the TSC (to the HPET, an MMIO exit per read
	# under QEMU) measured a slower clock from then on, in whichever scope
	# that happened. Such boots are left out of the statistics (every
	# boot's row below still has them).
	counts = {}
	for c in clock.values():
		counts[c] = counts.get(c, 0) + 1
	main_clock = max(counts, key=counts.get) if counts else None
	dropped = sorted(key for key, c in clock.items() if c != main_clock)
	res_all, lock_all = res, lock
	res = {key: v for key, v in res_all.items() if key not in dropped}
	lock = {key: v for key, v in lock_all.items() if key not in dropped}
	kernels = os.environ.get("KERNELS", "").split() or sorted({k for k, _ in res})
	rounds = sorted({r for _, r in res})
	rng = random.Random(seed)
	groups = groups_of(layout) or [([s], "not probed") for s in SCOPES]

	def group_value(table, k, r, scopes, get):
		vs = [get(table[(k, r)][s]) for s in scopes
		      if (k, r) in table and s in table[(k, r)]]
		return median(vs) if vs else None

	def per_round(table, k, scopes, get):
		"""{round: value} of the group in each round's boot of k"""
		out = {}
		for r in rounds:
			v = group_value(table, k, r, scopes, get)
			if v is not None:
				out[r] = v
		return out

	print("## The pools each scope gave the workqueue")
	print()
	print("Probed in every boot before the scope's run: one item queued on each")
	print("CPU in turn (queue_work_on(): the pool of that CPU's pod), and the")
	print("worker that ran it; unbound workers are kworker/uPOOL_ID:N, so CPUs")
	print("whose items ran in the same POOL_ID share a pool. The partition names")
	print("the pools A, B, ... in CPU order. Scopes with the same partition in")
	print("every boot of every kernel are the same experiment repeated within a")
	print("boot, and are one row below (the group's value in a boot is the median")
	print("of its scopes').")
	print()
	print("| scopes | layout | example (first boot) |")
	print("|---|---|---|")
	first = min(layout) if layout else None
	for scopes, part in groups:
		ex = layout[first].get(scopes[0], ("", ""))[1] if first else ""
		print("| %s | %s | %s |" % (" = ".join(scopes), describe(part), ex))
	topo = ["%s %s" % (key.split()[1], " / ".join(sorted(info[key])))
		for key in sorted(info) if key.startswith("topology ")]
	if topo:
		print()
		print("Guest topology (sysfs, every boot): " + "; ".join(topo) + ".")
	print()
	if skipped:
		print("Skipped: " + "; ".join("%s round %d %s: %s" % s for s in skipped))
		print()

	if dropped:
		print("Left out of the statistics: %s (the clocksource ended on %s, not %s:"
		      " see every boot's row)." % (
			", ".join("%s round %d" % (k, r) for k, r in dropped),
			"/".join(sorted({clock[d] for d in dropped})), main_clock))
		print()
	metrics = (("items/s", 0, True), ("p50 enqueue ns", 1, False),
		   ("p99 enqueue ns", 2, False))
	print("## Medians over the rounds, bootstrap 95 % intervals")
	print()
	print("| scopes | kernel | rounds | items/s | p50 enqueue ns | p99 enqueue ns |")
	print("|---|---|---|---|---|---|")
	for scopes, _ in groups:
		for k in kernels:
			cells = []
			n = 0
			for _, i, _ in metrics:
				xs = list(per_round(res, k, scopes, lambda v, i=i: v[i]).values())
				n = len(xs)
				cells.append(cell(median(xs), boot_ci(xs, median, boot, rng))
					     if xs else "-")
			print("| %s | %s | %d | %s |" % (" = ".join(scopes), k, n, " | ".join(cells)))
	print()

	f = family
	comparisons = [
		(f + "-plain", f + "@2", "patches 1-2"),
		(f + "@2", f + "@3", "patch 3 alone (deferred wakeup, task pointer)"),
		(f + "@3", f, "patches 4-13"),
		(f + "-plain", f, "the whole series"),
		(f, f + "-alt", "wake_q instead of the task pointer (whole series)"),
	]
	comparisons = [c for c in comparisons if c[0] in kernels and c[1] in kernels]

	def ratio_rows(title, table, cols):
		print(title)
		print()
		if not comparisons:
			print("No pair of the kernels %s to compare." % " ".join(kernels))
			print()
			return
		print("| scopes | B / A | what | " + " | ".join(
			"%s ratio [95 %%] (rounds B > A)" % c[0] for c in cols) + " |")
		print("|---|---|---|" + "---|" * len(cols))
		for scopes, _ in groups:
			for a, b, what in comparisons:
				cells = []
				for _, get in cols:
					pa = per_round(table, a, scopes, get)
					pb = per_round(table, b, scopes, get)
					rs = [pb[r] / pa[r] for r in rounds
					      if r in pa and r in pb and pa[r] > 0]
					if not rs:
						cells.append("-")
						continue
					up = sum(1 for x in rs if x > 1)
					cells.append("%s (%d of %d)" % (
						cell(median(rs), boot_ci(rs, median, boot, rng), 3),
						up, len(rs)))
				print("| %s | %s / %s | %s | %s |" % (
					" = ".join(scopes), b, a, what, " | ".join(cells)))
		print()

	ratio_rows("## Ratios, per round (both kernels booted in the same round)\n\n"
		   "The median of the per-round ratios B / A, its bootstrap 95 % "
		   "interval over the rounds,\nand in how many rounds B was above A "
		   "(items/s: more is better; latencies: less is better).",
		   res, [(m[0], (lambda v, i=m[1]: v[i])) for m in metrics])

	if lock:
		print("## pool->lock (lock_stat), medians over the rounds, bootstrap 95 % intervals")
		print()
		print("Summed over the pool->lock classes of /proc/lock_stat, reset after")
		print("the warm-up, for the measured run of each scope; times in ns.")
		print()
		print("| scopes | kernel | rounds | " + " | ".join(LOCK_COLS) + " |")
		print("|---|---|---|" + "---|" * len(LOCK_COLS))
		for scopes, _ in groups:
			for k in kernels:
				cells, n = [], 0
				for c in LOCK_COLS:
					xs = list(per_round(lock, k, scopes,
							    lambda v, c=c: v.get(c, float("nan"))).values())
					n = len(xs)
					cells.append(cell(median(xs), boot_ci(xs, median, boot, rng))
						     if xs else "-")
				print("| %s | %s | %d | %s |" % (" = ".join(scopes), k, n,
							      " | ".join(cells)))
		print()
		ratio_rows("### pool->lock ratios, per round", lock,
			   [(c, (lambda v, c=c: v.get(c, float("nan"))))
			    for c in ("contentions", "waittime-total", "holdtime-avg")])

	print("## Every boot")
	print()
	print("| round | pos | kernel | accel | clocksource at the end | host load | scope | layout | items/s | p50 ns | p99 ns |%s" % (
		" contentions | wait total ns | hold avg ns |" if lock_all else ""))
	print("|---|---|---|---|---|---|---|---|---|---|---|%s" % ("---|---|---|" if lock_all else ""))
	order = {}
	with open(raw) as fh:
		for line in fh:
			w = line.split()
			if len(w) >= 4:
				order.setdefault((int(w[1]), int(w[2])), w[0])
	for (r, pos), k in sorted(order.items()):
		for s in SCOPES:
			v = res_all.get((k, r), {}).get(s)
			if not v:
				continue
			row = "| %d | %d | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f |" % (
				r, pos, k, accel.get((k, r), "?"), clock.get((k, r), "?"),
				load.get((k, r), "?"), s,
				layout.get((k, r), {}).get(s, ("?",))[0], v[0], v[1], v[2])
			if lock_all:
				lv = lock_all.get((k, r), {}).get(s, {})
				row += " %s | %s | %s |" % tuple(
					fmt(lv.get(c, float("nan"))) for c in
					("contentions", "waittime-total", "holdtime-avg"))
			print(row)


if __name__ == "__main__":
	main()
