#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# cost-stats.py counts DIR KERNEL...: make bench-cost's counting tables
# (markdown on stdout) from one boot per kernel under the wqcount plugin
# (selftests/bench/cost/wqcount.c): DIR/cost-KERNEL.plugin (its W and H
# lines), DIR/cost-KERNEL.log (the guest's B and K lines) and
# DIR/cost-KERNEL.map (the kernel's System.map). The first KERNEL is the
# baseline every other is compared with.
#
# cost-stats.py sweep DIR BASE "KERNEL..." "N...": make bench-flush-sweep's
# tables, from one counting boot per kernel and number N of possible CPUs,
# DIR/cost-KERNEL-nN.{plugin,log,map} as above: per flush case the
# medians per window (both vCPUs) at each N, every KERNEL against BASE,
# and how each grows with N (a least-squares line).
#
# cost-stats.py price PRICES DIR KERNEL...: the counts of a counts run
# (DIR/cost-KERNEL.{plugin,log}; no System.map needed) priced with the
# published ranges of PRICES (selftests/bench/cost/prices), per machine:
# each KERNEL's cost per operation and its ratio to the first, as ranges.
#
# cost-stats.py mapsubset DIR KERNEL: the part of DIR/cost-KERNEL.map that
# the plugin's H lines need, which a result commits beside them.
#
# cost-stats.py times RAW ENQ_KERNEL ENQ_KERNEL [ENQ_KERNEL]: the timed
# tables from the raw lines run.sh collects, "KERNEL ROUND METRIC VALUE";
# by pairs (time_pairs: the enqueue kernels, then the flush kernels the
# raw lines hold), each pair's second kernel against its first, by
# per-round ratios (both booted in the same round), with a 95 % interval
# from resampling the rounds (SEED, BOOT resamples: 2000), and every
# round's ratio.
#
# Python's standard library only.
import bisect
import os
import random
import re
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
# benchstats.py: one folder up in the source tree, beside this script
# where wqrt-selftests installs them
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
from benchstats import quantile, resample  # noqa: E402

METRICS = ("insns", "atomics", "fences", "wlines", "rlines", "apic", "halts")
NR_BUCKETS = 4096  # wqcount.c: local windows are numbered from here
# the functions whose atomic is a lock acquisition
LOCK_FN = re.compile(r"(^|_)(raw_)?spin_(lock|trylock)|_lock_irq|_lock_bh|"
		     r"rq_lock|queued_spin_lock|^rt_spin_lock|^rt_mutex|"
		     r"^mutex_lock|^__mutex_lock|down_read|down_write|_lock_nested")


class Symbols:
	def __init__(self, mapfile, modlines):
		ents = []
		with open(mapfile) as f:
			for line in f:
				w = line.split()
				if len(w) >= 3 and w[1] in "tTwW":
					ents.append((int(w[0], 16), w[2]))
		for w in modlines:
			if len(w) >= 3 and w[1] in "tT":
				ents.append((int(w[0], 16), w[2]))
		ents.sort()
		self.addr = [a for a, _ in ents]
		self.name = [n for _, n in ents]

	def fn(self, pc):
		i = bisect.bisect_right(self.addr, pc) - 1
		return self.name[i] if i >= 0 and pc else "?"


def read_kernel(d, k):
	windows = {}   # bucket: {side: [ {metric: n} per window ]}
	hist = {}      # (bucket, side, metric, pc, callsite): n
	with open(os.path.join(d, "cost-%s.plugin" % k)) as f:
		for line in f:
			w = line.split()
			if not w:
				continue
			if w[0] == "W":
				vals = {w[i]: int(w[i + 1]) for i in range(3, len(w) - 1, 2)}
				windows.setdefault(int(w[1]), {}).setdefault(w[2], []).append(vals)
			elif w[0] == "H":
				hist[(int(w[1]), w[2], w[3], int(w[4], 16), int(w[5], 16))] = int(w[6])
	buckets, mod = {}, []
	with open(os.path.join(d, "cost-%s.log" % k)) as f:
		for line in f:
			w = line.split()
			if w and w[0] == "B" and len(w) >= 6:
				# "B BUCKET CASE WINDOW RUNS OPS": a local window's
				# bucket is the caller side (wqcount numbers it apart)
				b = int(w[1]) + (NR_BUCKETS if w[3] == "caller" else 0)
				buckets[b] = (w[2], w[3], int(w[4]), int(w[5]))
			elif w and w[0] == "K":
				mod.append(w[1:])
	# the price model needs no symbols: a result's committed plugin and
	# log regenerate it without the kernel's System.map
	mapfile = os.path.join(d, "cost-%s.map" % k)
	syms = Symbols(mapfile, mod) if os.path.exists(mapfile) else None
	return windows, hist, buckets, syms


def fmt(x):
	if x is None:
		return "-"
	if abs(x - round(x)) < 0.05:
		return "%d" % round(x)
	return "%.1f" % x


def all_buckets(data, kernels):
	"""every kernel's cases: one that only some kernels run (the reserve
	cases need nr_idle_extra) is shown for those"""
	buckets = {}
	for k in kernels:
		for b, v in data[k][2].items():
			buckets.setdefault(b, v)
	return buckets


def having(data, kernels, b):
	"""the kernels with windows of bucket B, in order"""
	return [k for k in kernels if data[k][0].get(b)]


def counts(d, kernels):
	data = {k: read_kernel(d, k) for k in kernels}
	base = kernels[0]
	buckets = all_buckets(data, kernels)
	out = []
	out.append("### Per operation: medians over the windows\n")
	out.append("op: on the CPU that queued or flushed; other: on the other "
		   "vCPU (workers woken there, IPIs). Lines written/read: cache "
		   "lines another CPU wrote (or held) last, moved to this one. "
		   "APIC writes: WRMSR and local APIC stores (IPIs, timer "
		   "programming). Halts: the vCPU went idle. In brackets the "
		   "difference from %s.\n" % base)
	hdr = "| case | window | kernel | insns op / other | atomics op / other | fences op / other | lines written op / other | lines read op / other | APIC writes op / other | halts op / other |"
	out.append(hdr)
	out.append("|" + "---|" * 10)
	for b in sorted(buckets, key=lambda b: (b % NR_BUCKETS, b)):
		case, win, runs, ops = buckets[b]
		for k in having(data, kernels, b):
			wins = data[k][0].get(b, {})
			cells = []
			for m in METRICS:
				vs = []
				for side in ("op", "other"):
					rows = wins.get(side)
					if not rows:
						vs.append(None)
						continue
					v = statistics.median(r[m] for r in rows) / ops
					if k != base:
						brows = data[base][0].get(b, {}).get(side)
						if brows:
							bv = statistics.median(r[m] for r in brows) / ops
							vs.append((v, v - bv))
							continue
					vs.append((v, None))
				cell = []
				for x in vs:
					if x is None:
						cell.append("-")
					elif x[1] is None or abs(x[1]) < 0.05:
						cell.append(fmt(x[0]))
					else:
						cell.append("%s (%+g)" % (fmt(x[0]), round(x[1], 1)))
				cells.append(" / ".join(cell))
			out.append("| %s | %s%s | %s | %s |" % (
				case, win, " (per item of %d)" % ops if ops > 1 else "",
				k, " | ".join(cells)))
	out.append("")
	out.append(totals(data, kernels, buckets))
	out.append("### Where: atomics, fences and moved lines per operation, by function\n")
	out.append("Means over the windows (a timer tick in some windows shows as a "
		   "fraction); `f <- caller`: the function the instruction is in, "
		   "entered from the caller's call site; lock: an atomic of a lock "
		   "acquisition. Only rows where some kernel reaches 0.1 per "
		   "operation.\n")
	for b in sorted(buckets, key=lambda b: (b % NR_BUCKETS, b)):
		case, win, runs, ops = buckets[b]
		ks = having(data, kernels, b)
		table = hist_means(data, ks, b, ops,
				   lambda metric: metric != "insns",
				   lambda syms, metric, side, pc, cs:
				   (metric, side, syms.fn(pc), syms.fn(cs)))
		rows = [(key, v) for key, v in table.items()
			if max(v.values()) >= 0.1]
		if not rows:
			continue
		rows.sort(key=lambda r: (METRICS.index(r[0][0]), r[0][1],
					 -max(r[1].values())))
		out.append("#### %s, %s%s\n" % (case, win,
			" (per item of %d)" % ops if ops > 1 else ""))
		out.append("| what | side | where | " + " | ".join(ks) + " |")
		out.append("|" + "---|" * (3 + len(ks)))
		for (metric, side, f, c), v in rows:
			what = {"atomics": "atomic", "fences": "fence",
				"wlines": "line written", "rlines": "line read",
				"apic": "APIC write", "halts": "halt"}[metric]
			if metric == "atomics" and LOCK_FN.search(f):
				what = "atomic (lock)"
			cells = []
			for k in ks:
				x = v.get(k, 0.0)
				cells.append("%.2f" % x)
			out.append("| %s | %s | `%s <- %s` | %s |" % (
				what, side, f, c, " | ".join(cells)))
		out.append("")
	out.append(insns_by_function(data, kernels, buckets))
	return "\n".join(out)


def totals(data, kernels, buckets):
	"""Per case, the instructions and atomics of both vCPUs added, means
	over the windows: what a workload of many items costs in all, where
	the medians above split it by vCPU (on which a worker ran varies
	from boot to boot)."""
	base = kernels[0]
	out = ["### Per operation: means over the windows, both vCPUs added\n",
	       "In brackets the difference from %s, and in percent of it. "
	       "Means include the timer ticks that land in windows.\n" % base,
	       "| case | window | " + " | ".join(
		       "%s insns | %s atomics" % (k, k) for k in kernels) + " |",
	       "|" + "---|" * (2 + 2 * len(kernels))]
	for b in sorted(buckets, key=lambda b: (b % NR_BUCKETS, b)):
		case, win, runs, ops = buckets[b]
		mean = {}
		for k in kernels:
			# a local window has the caller's side alone, which
			# window_totals() adds nothing to
			wins = window_totals(data[k][0], b)
			if wins:
				mean[k] = {m: statistics.fmean(w[m] for w in wins) / ops
					   for m in ("insns", "atomics")}
		if not mean:
			continue
		cells = []
		for k in kernels:
			for m in ("insns", "atomics"):
				if k not in mean:
					cells.append("-")
					continue
				v = mean[k][m]
				bv = mean[base][m] if base in mean else 0
				if k == base or not bv:
					cells.append("%.1f" % v)
				else:
					cells.append("%.1f (%+.1f, %+.1f %%)" % (
						v, v - bv, 100 * (v - bv) / bv))
		out.append("| %s | %s%s | %s |" % (
			case, win, " (per item of %d)" % ops if ops > 1 else "",
			" | ".join(cells)))
	out.append("")
	return "\n".join(out)


def hist_means(data, kernels, bucket, ops, keep, key):
	"""{key: {kernel: mean per operation}} of the plugin's H counts of
	BUCKET whose metric KEEP accepts, summed under KEY(syms, metric,
	side, pc, callsite) and divided by the windows of their side."""
	table = {}
	for k in kernels:
		windows, hist, _, syms = data[k]
		nwin = {s: len(windows.get(bucket, {}).get(s, [])) for s in ("op", "other")}
		for (hb, side, metric, pc, cs), n in hist.items():
			if hb != bucket or not nwin.get(side) or not keep(metric):
				continue
			v = table.setdefault(key(syms, metric, side, pc, cs), {})
			v[k] = v.get(k, 0.0) + n / nwin[side] / ops
	return table


def insns_by_function(data, kernels, buckets):
	"""Where the instructions go: the functions whose mean instructions
	per operation differ from the baseline's by INSNS_MIN (20) or more in
	some kernel, largest difference first, at most INSNS_ROWS (12) a
	case. Means include the timer ticks that land in windows, which is
	why the tick's functions show as differences too."""
	base = kernels[0]
	lim = float(os.environ.get("INSNS_MIN", "20"))
	nrows = int(os.environ.get("INSNS_ROWS", "12"))
	out = ["### Where the instructions go, by function\n",
	       "Mean instructions per operation in each function (a "
	       "translation block counted in the function of its first "
	       "instruction), the rows that differ from %s by %g or more in "
	       "some kernel, the largest difference first, at most %d a case. "
	       "The means include the timer ticks that land in a window." % (
		       base, lim, nrows), ""]
	for b in sorted(buckets, key=lambda b: (b % NR_BUCKETS, b)):
		case, win, runs, ops = buckets[b]
		# a case not every kernel runs: against the first that does
		ks = having(data, kernels, b)
		if len(ks) < 2:
			continue
		base = ks[0]
		table = hist_means(data, ks, b, ops,
				   lambda metric: metric == "insns",
				   lambda syms, metric, side, pc, cs:
				   (side, syms.fn(pc)))
		rows = []
		for key, v in table.items():
			d = max(abs(v.get(k, 0.0) - v.get(base, 0.0)) for k in ks)
			if d >= lim:
				rows.append((d, key, v))
		if not rows:
			continue
		rows.sort(key=lambda r: -r[0])
		out.append("#### %s, %s%s%s\n" % (case, win,
			" (per item of %d)" % ops if ops > 1 else "",
			"" if base == kernels[0] else
			" (against %s, the first kernel that runs it)" % base))
		out.append("| side | function | " + " | ".join(ks) + " |")
		out.append("|" + "---|" * (2 + len(ks)))
		for d, (side, f), v in rows[:nrows]:
			cells = ["%.0f" % v.get(base, 0.0)]
			for k in ks[1:]:
				cells.append("%.0f (%+.0f)" % (v.get(k, 0.0),
					v.get(k, 0.0) - v.get(base, 0.0)))
			out.append("| %s | `%s` | %s |" % (side, f, " | ".join(cells)))
		out.append("")
	return "\n".join(out)


def time_pairs(enq, kernels):
	"""the pairs a timed run is tabled by: each enqueue kernel (ENQ_KERNELS)
	against the first, a third against the second; prod-flush against
	prod-flush-plain when the run booted them (KERNELS), and the spinning
	flusher against both when it booted that too"""
	pairs = [(enq[0], k) for k in enq[1:]]
	if len(enq) == 3:
		pairs.append((enq[1], enq[2]))
	if "prod-flush" in kernels:
		pairs.append(("prod-flush-plain", "prod-flush"))
	if "prod-flush-spin" in kernels:
		pairs += [("prod-flush-plain", "prod-flush-spin"),
			  ("prod-flush", "prod-flush-spin")]
	return pairs


def times(raw, enq, seed, boot):
	rng = random.Random(seed)
	vals = {}  # (kernel, metric): {round: value}
	env = {}
	with open(raw) as f:
		for line in f:
			w = line.split()
			if len(w) < 4:
				continue
			if w[2] == "H":
				env[(w[0], int(w[1]))] = " ".join(w[3:])
				continue
			if w[2] == "R":
				# a boot's raw sample or layout, kept for the record
				continue
			vals.setdefault((w[0], w[2]), {})[int(w[1])] = float(w[3])
	out = []
	metrics = []
	for (k, m) in vals:
		if m not in metrics:
			metrics.append(m)
	pairs = time_pairs(enq, set(k for k, _ in vals))
	out.append("| metric | lower is better | kernel A | kernel B | A: median [95 %] | B: median [95 %] | B / A per round: median [95 %] | rounds B better | smallest cost detectable |")
	out.append("|" + "---|" * 9)
	per_round = []  # (metric, A, B, {round: ratio})
	for a, b in pairs:
		for m in metrics:
			va, vb = vals.get((a, m)), vals.get((b, m))
			if not va or not vb:
				continue
			rounds = sorted(set(va) & set(vb))
			if not rounds:
				continue
			lower = m.endswith(("_ns", "_per_1000"))
			ratios = [vb[r] / va[r] for r in rounds if va[r]]
			ci = lambda xs: _boot(xs, boot, rng)
			ra, rb = [va[r] for r in rounds], [vb[r] for r in rounds]
			med = statistics.median(ratios)
			lo, hi = ci(ratios)
			better = sum(1 for x in ratios if (x < 1 if lower else x > 1))
			# a cost smaller than half the interval's width leaves 1
			# inside an interval this wide: the run cannot see it
			mde = (hi - lo) / 2 * 100
			out.append("| %s | %s | %s | %s | %s [%s, %s] | %s [%s, %s] | %.3f [%.3f, %.3f] | %d of %d | %.1f %% |" % (
				m, "yes" if lower else "no", a, b,
				g(statistics.median(ra)), *map(g, ci(ra)),
				g(statistics.median(rb)), *map(g, ci(rb)),
				med, lo, hi, better, len(ratios), mde))
			per_round.append((m, a, b, {r: vb[r] / va[r]
						    for r in rounds if va[r]}))
	# every round's ratio, so that a reader sees what the median and
	# the interval were made of (a round where one kernel's boot went
	# wrong, a drift along the run)
	nr = sorted(set(r for *_, rs in per_round for r in rs))
	if nr:
		out.append("")
		out.append("B / A in each round (both kernels booted in that round, in the order above):")
		out.append("")
		out.append("| metric | kernel A | kernel B | " +
			   " | ".join("%d" % r for r in nr) + " |")
		out.append("|" + "---|" * (3 + len(nr)))
		for m, a, b, rs in per_round:
			out.append("| %s | %s | %s | %s |" % (m, a, b, " | ".join(
				"%.3f" % rs[r] if r in rs else "-" for r in nr)))
	return "\n".join(out)


def g(x):
	if x != x:
		return "nan"
	if abs(x) >= 1000:
		return "%.0f" % x
	return "%.3g" % x


def _boot(xs, boot, rng):
	if len(xs) < 2:
		return (float("nan"), float("nan"))
	est = sorted(statistics.median(rng.choices(xs, k=len(xs)))
		     for _ in range(boot))
	return (quantile(est, 0.025), quantile(est, 0.975))


# make bench-flush-sweep: what a column is, per flush window, both vCPUs
SWEEP_COLS = (
	("insns", "instructions"),
	("insns_op", "instructions, flushing vCPU"),
	("atomics", "atomics"),
	("locks", "locks (mean)"),
	("lines", "cache lines moved"),
)


def window_totals(windows, bucket):
	"""each window of BUCKET: its counts on both sides added, and the
	flushing vCPU's instructions alone (insns_op), lines written and
	read added (lines)"""
	sides = windows.get(bucket, {})
	other = sides.get("other", [])
	out = []
	for i, w in enumerate(sides.get("op", [])):
		o = other[i] if i < len(other) else {}
		t = {m: w[m] + o.get(m, 0) for m in METRICS}
		t["insns_op"] = w["insns"]
		t["lines"] = t["wlines"] + t["rlines"]
		out.append(t)
	return out


def lock_site(syms, metric, side, pc, cs):
	"""hist_means' key: the lock's function and caller, or None"""
	f = syms.fn(pc)
	return (f, syms.fn(cs)) if LOCK_FN.search(f) else None


def sweep(d, base, others, ns):
	kernels = [base] + others
	data = {}
	for k in kernels:
		for n in ns:
			data["%s-n%d" % (k, n)] = read_kernel(d, "%s-n%d" % (k, n))
	buckets = data["%s-n%d" % (base, ns[0])][2]
	atomics = lambda metric: metric == "atomics"
	fig = {}  # (case, kernel, n): {column: figure}
	cases = []
	for b in sorted(buckets, key=lambda b: (b % NR_BUCKETS, b)):
		case, win, runs, ops = buckets[b]
		# a case with two windows (queue-*): both, named apart
		cases.append((b, case if win == "all" else "%s, %s" % (case, win)))
		for k in kernels:
			for n in ns:
				name = "%s-n%d" % (k, n)
				tot = window_totals(data[name][0], b)
				if not tot:
					sys.exit("cost-stats.py: no windows of %s in %s" % (cases[-1][1], name))
				f = {c: statistics.median(t[c] for t in tot) / ops
				     for c, _ in SWEEP_COLS if c != "locks"}
				locks = hist_means(data, [name], b, ops, atomics, lock_site)
				f["locks"] = sum(v.get(name, 0.0) for key, v in locks.items()
						 if key is not None)
				fig[(cases[-1][1], k, n)] = f
	out = ["## Counts per flush, by possible CPUs\n",
	       "Medians over the %d windows of a case (a flush, or queue_work() "
	       "and a flush), both vCPUs added; \"flushing vCPU\": its own "
	       "instructions alone. Locks: the atomics in lock functions, "
	       "which the counts tables of make bench-cost call \"atomic "
	       "(lock)\" (LOCK_FN: raw spinlocks, rt_mutex, mutex; a mutex "
	       "cycle on PREEMPT_RT counts two, mutex_lock()'s and "
	       "rt_mutex_unlock()'s), a mean over the windows, so that a "
	       "timer tick in some windows shows as a fraction. Cache lines moved: lines another vCPU "
	       "wrote or held last that this one wrote or read, both vCPUs. "
	       "Each cell: %s%s." % (
		       buckets[cases[0][0]][2], base,
		       ", then %s, and in brackets each against %s" % (
			       " / ".join(others), base) if others else ""), ""]
	for b, case in cases:
		out.append("### %s\n" % case)
		out.append("| possible CPUs | " + " | ".join(
			t for _, t in SWEEP_COLS) + " |")
		out.append("|" + "---|" * (1 + len(SWEEP_COLS)))
		for n in ns:
			cells = []
			for c, _ in SWEEP_COLS:
				a = fig[(case, base, n)][c]
				vals = [fmt(a)] + [fmt(fig[(case, k, n)][c]) for k in others]
				ratios = ["%.2f" % (fig[(case, k, n)][c] / a) if a else "-"
					  for k in others]
				cells.append(" / ".join(vals) + (" (%s)" % ", ".join(ratios)
								 if ratios else ""))
			out.append("| %d | %s |" % (n, " | ".join(cells)))
		out.append("")
	if len(ns) > 1:
		out.append("## How each grows with the possible CPUs\n")
		out.append("A least-squares line through each kernel's %d figures "
			   "above (N = %s): its slope, the count per extra possible "
			   "CPU, and what the line changes over the sweep (the slope "
			   "x %d). For scale: two boots of one kernel differed by up "
			   "to 100 instructions and 3 atomics at a case's median on "
			   "the vCPU that flushed, and up to 420 instructions on the "
			   "other (cost-2026-12-02-repro.md); every figure here is "
			   "from a boot of its own.\n" % (
				   len(ns), ", ".join(map(str, ns)), ns[-1] - ns[0]))
		out.append("| case | kernel | " + " | ".join(
			"%s: per CPU (over the sweep)" % t for _, t in SWEEP_COLS) + " |")
		out.append("|" + "---|" * (2 + len(SWEEP_COLS)))
		for b, case in cases:
			for k in kernels:
				cells = []
				for c, _ in SWEEP_COLS:
					slope = statistics.linear_regression(
						ns, [fig[(case, k, n)][c] for n in ns]).slope
					cells.append("%+.2f (%+.0f)" % (slope, slope * (ns[-1] - ns[0])))
				out.append("| %s | %s | %s |" % (case, k, " | ".join(cells)))
		out.append("")
	ends = sorted({ns[0], ns[-1]})
	names = ["%s-n%d" % (k, n) for k in kernels for n in ends]
	out.append("## Locks by function, smallest and largest N\n")
	out.append("Mean lock acquisitions per window, `function <- caller`, "
		   "both vCPUs; the rows where some boot reaches 0.1.\n")
	for b, case in cases:
		table = hist_means(data, names, b, buckets[b][3], atomics, lock_site)
		table.pop(None, None)
		rows = sorted(((key, v) for key, v in table.items()
			       if max(v.values()) >= 0.1),
			      key=lambda r: -max(r[1].values()))
		out.append("### %s\n" % case)
		out.append("| where | " + " | ".join(
			"%s, N = %d" % (k, n) for k in kernels for n in ends) + " |")
		out.append("|" + "---|" * (1 + len(names)))
		for (f, cs), v in rows:
			out.append("| `%s <- %s` | %s |" % (f, cs, " | ".join(
				"%.2f" % v.get(nm, 0.0) for nm in names)))
		out.append("")
	return "\n".join(out)


# The price model's metrics, in the order of the prices file's lines
PRICED = ("insns", "atomics", "fences", "wlines", "rlines", "apic")


def read_prices(path):
	"""the prices file: "price MACHINE METRIC LOW HIGH REF..." (ns per
	event) and "ref ID TEXT"; returns ({machine: {metric: (low, high,
	refs)}}, {id: text}, [machine...] in file order)"""
	prices, refs, order = {}, {}, []
	with open(path) as f:
		for n, line in enumerate(f, 1):
			w = line.split()
			if not w or w[0].startswith("#"):
				continue
			if w[0] == "ref" and len(w) >= 3:
				refs[w[1]] = " ".join(w[2:])
			elif w[0] == "price" and len(w) >= 6:
				lo, hi = float(w[3]), float(w[4])
				if not 0 <= lo <= hi:
					sys.exit("%s:%d: LOW %s HIGH %s: 0 <= LOW <= HIGH, please" % (path, n, w[3], w[4]))
				if w[2] not in PRICED:
					sys.exit("%s:%d: %s is not a priced metric (%s)" % (path, n, w[2], " ".join(PRICED)))
				if w[1] not in prices:
					order.append(w[1])
				prices.setdefault(w[1], {})[w[2]] = (lo, hi, w[5:])
			else:
				sys.exit("%s:%d: neither a price nor a ref line: %s" % (path, n, line.strip()))
	for m in order:
		missing = [x for x in PRICED if x not in prices[m]]
		if missing:
			sys.exit("%s: %s has no price for %s" % (path, m, " ".join(missing)))
		for x in PRICED:
			for r in prices[m][x][2]:
				if r not in refs:
					sys.exit("%s: %s %s cites [%s], which no ref line gives" % (path, m, x, r))
	return prices, refs, order


def corners(p):
	"""every price vector at a corner of the box [low, high] per metric"""
	vecs = [{}]
	for m in PRICED:
		lo, hi = p[m][0], p[m][1]
		vecs = [dict(v, **{m: x}) for v in vecs for x in ((lo,) if lo == hi else (lo, hi))]
	return vecs


def priced_median(wins, vec, ops):
	"""the median over the windows of each window's priced cost (both
	vCPUs added), per operation, in ns"""
	return statistics.median(sum(vec[m] * w[m] for m in PRICED) for w in wins) / ops


def price(prices_path, d, kernels):
	prices, refs, order = read_prices(prices_path)
	data = {k: read_kernel(d, k) for k in kernels}
	base = kernels[0]
	buckets = data[base][2]
	out = ["### Priced: what the counts cost on hardware, as a range\n",
	       "Each window's counts (both vCPUs added) priced per event with the "
	       "published ranges below, the median over the windows, per "
	       "operation. A kernel's ratio to %s is taken at every corner of the "
	       "price box (each metric at its low or its high price, the same "
	       "prices for both kernels: one machine); the range is the least and "
	       "the greatest of those ratios. **Changes sign**: the range holds "
	       "1, so whether the kernel is cheaper or dearer than %s depends on "
	       "where in the published ranges the machine sits; the counts "
	       "cannot settle it. APIC writes are priced as IPI sends, their "
	       "upper bound (some are timer programming); halts are not priced "
	       "(an idle vCPU costs latency, not CPU time). The counts' own "
	       "boot-to-boot variation (up to 100 instructions and 3 atomics at "
	       "a case's median, cost-2026-12-02-repro.md) is not in the "
	       "ranges.\n" % (base, base)]
	for mach in order:
		p = prices[mach]
		out.append("#### %s\n" % mach)
		out.append("| metric | ns per event, low to high | sources |")
		out.append("|---|---|---|")
		for m in PRICED:
			out.append("| %s | %g to %g | %s |" % (
				m, p[m][0], p[m][1], ", ".join("[%s]" % r for r in p[m][2])))
		out.append("")
		vecs = corners(p)
		low = {m: p[m][0] for m in PRICED}
		high = {m: p[m][1] for m in PRICED}
		out.append("| case | window | %s ns | " % base + " | ".join(
			"%s ns | %s / %s" % (k, k, base) for k in kernels[1:]) + " |")
		out.append("|" + "---|" * (3 + 2 * (len(kernels) - 1)))
		for b in sorted(buckets, key=lambda b: (b % NR_BUCKETS, b)):
			case, win, runs, ops = buckets[b]
			wins = {k: window_totals(data[k][0], b) for k in kernels}
			if not wins[base]:
				continue
			# each kernel at every low and every high price, and the
			# baseline at every corner, once
			span = lambda k: "%s to %s" % tuple(g(priced_median(wins[k], ends, ops))
							    for ends in (low, high))
			base_at = [priced_median(wins[base], v, ops) for v in vecs]
			cells = [span(base)]
			for k in kernels[1:]:
				if not wins[k]:
					cells += ["-", "-"]
					continue
				ratios = [priced_median(wins[k], v, ops) / b for v, b in zip(vecs, base_at)]
				lo, hi = min(ratios), max(ratios)
				sign = " **changes sign**" if lo < 1 < hi else ""
				cells.append(span(k))
				cells.append("%.3f to %.3f%s" % (lo, hi, sign))
			out.append("| %s | %s%s | %s |" % (
				case, win, " (per item of %d)" % ops if ops > 1 else "",
				" | ".join(cells)))
		out.append("")
	out.append("Sources:\n")
	for r in sorted(refs, key=lambda r: (len(r), r)):
		out.append("- [%s] %s" % (r, refs[r]))
	out.append("")
	return "\n".join(out)


def mapsubset(d, k):
	"""the lines of DIR/cost-K.map that the H lines of DIR/cost-K.plugin
	resolve to: for each PC and call site, the symbol that contains it.
	Symbols.fn() on this subset names every one of them as on the whole
	map (the symbol below an address in the subset is the one below it
	in the map), at a few kilobytes where the map is megabytes: what a
	result commits so that its tables regenerate."""
	ents = []
	with open(os.path.join(d, "cost-%s.map" % k)) as f:
		for line in f:
			w = line.split()
			if len(w) >= 3 and w[1] in "tTwW":
				ents.append((int(w[0], 16), line.rstrip("\n")))
	ents.sort()
	addr = [a for a, _ in ents]
	keep = set()
	with open(os.path.join(d, "cost-%s.plugin" % k)) as f:
		for line in f:
			w = line.split()
			if len(w) >= 6 and w[0] == "H":
				for a in (int(w[4], 16), int(w[5], 16)):
					i = bisect.bisect_right(addr, a) - 1
					if a and i >= 0:
						keep.add(i)
	return "\n".join(ents[i][1] for i in sorted(keep))


def main():
	if len(sys.argv) >= 4 and sys.argv[1] == "counts":
		print(counts(sys.argv[2], sys.argv[3:]))
	elif len(sys.argv) == 6 and sys.argv[1] == "sweep" and sys.argv[5].split():
		print(sweep(sys.argv[2], sys.argv[3], sys.argv[4].split(),
			    sorted(int(n) for n in sys.argv[5].split())))
	elif len(sys.argv) in (5, 6) and sys.argv[1] == "times":
		print(times(sys.argv[2], sys.argv[3:], int(os.environ.get("SEED", "1")),
			    int(os.environ.get("BOOT", "2000"))))
	elif len(sys.argv) == 4 and sys.argv[1] == "mapsubset":
		print(mapsubset(sys.argv[2], sys.argv[3]))
	elif len(sys.argv) >= 5 and sys.argv[1] == "price":
		print(price(sys.argv[2], sys.argv[3], sys.argv[4:]))
	else:
		sys.exit("usage: cost-stats.py counts DIR KERNEL... | "
			 "sweep DIR BASE \"KERNEL...\" \"N...\" | times RAW A B [A B ...] | "
			 "price PRICES DIR KERNEL... | mapsubset DIR KERNEL")


if __name__ == "__main__":
	main()
