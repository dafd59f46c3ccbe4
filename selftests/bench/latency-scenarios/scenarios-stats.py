#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# scenarios-stats.py RAW DATDIR: the tables of the latency scenarios that
# latency-stats.py does not make, from the raw lines of vm-scenarios.sh
# (and of vm-burst.sh, make bench-burst's):
# which pools the noisy-neighbour variants ran on (P), the policy and age
# of the task that ran each item (S and B lines' last two fields), the
# workers of the burst pools across the idle cull (W), and wqrtd's window:
# a new kworker's fork to its verified FIFO policy (K). The workqueue's own
# part of each period (queue_work() to start) is latency-stats.py's.
# `scenarios-stats.py relabel LOG` prints LOG with the bursts after an idle
# wait that no cull ended renamed -notculled. Also one survival
# curve per burst variant (DATDIR/surv-VARIANT.dat), as latency-stats.py
# writes them for the periodic variants. Python's standard library only;
# DEADLINE_US as for latency-stats.py.
import math
import os
import sys

POLICY = {0: "normal", 1: "fifo", 2: "rr"}
# a task created less than this before it ran an item counts as new
NEW_NS = 1e9


def quantile(sorted_xs, q):
	n = len(sorted_xs)
	return sorted_xs[min(n - 1, max(0, math.ceil(q * n) - 1))]


def pcts(xs, scale):
	if not xs:
		return "-"
	s = sorted(xs)
	return "%s / %s / %s" % tuple("%.1f" % (x / scale) for x in (
		quantile(s, 0.5), quantile(s, 0.99), s[-1]))


def relabel(path):
	"""The log again, with the bursts after the idle wait of a pool that
	had not been culled (no fewer workers before them than the bursts
	left it with: W's BEFORE not below AFTER) renamed VARIANT-notculled.
	vm-burst.sh (vm-scenarios.sh until 2026-12-01) prints, per pool, a P
	line, its bursts, a W line."""
	held = []
	with open(path) as f:
		for line in f:
			w = line.split()
			if w and w[0] == "B" and w[1].endswith("-culled"):
				held.append(w)
				continue
			if w and w[0] == "W" and len(w) >= 6:
				culled = int(w[4]) < int(w[5])
				for b in held:
					if not culled:
						b[1] = b[1][:-len("culled")] + "notculled"
					print(" ".join(b))
				held = []
			print(line, end="")
	for b in held:
		print(" ".join(b))


def main():
	if sys.argv[1] == "relabel":
		relabel(sys.argv[2])
		return
	raw, datdir = sys.argv[1], sys.argv[2]
	deadline_ns = float(os.environ.get("DEADLINE_US", "1000")) * 1000
	items = {}	# (kind, variant): [(latency ns, policy, age ns)]
	pools = {}	# (variant, round): {wq: ids}
	workers = []	# (variant, round, wq, before, after)
	window = {}	# variant: [fork -> verified ns]
	results = {}	# variant: {result: n}
	with open(raw) as f:
		for line in f:
			w = line.split()
			if len(w) < 3:
				continue
			if w[0] == "S" and len(w) >= 7 and w[3] != "skip":
				items.setdefault(("S", w[1]), []).append(
					(float(w[3]), int(w[5]), float(w[6])))
			elif w[0] == "B" and len(w) >= 6:
				items.setdefault(("B", w[1]), []).append(
					(float(w[3]), int(w[4]), float(w[5])))
			elif w[0] == "P" and len(w) >= 5:
				pools.setdefault((w[1], w[2]), {})[w[3]] = " ".join(w[4:])
			elif w[0] == "W" and len(w) >= 6:
				workers.append(tuple(w[1:7]))
			elif w[0] == "K" and len(w) >= 8:
				# K VARIANT ROUND PID FORK_NS DONE_NS RESULT COMM
				window.setdefault(w[1], []).append(
					float(w[5]) - float(w[4]))
				r = results.setdefault(w[1], {})
				r[w[6]] = r.get(w[6], 0) + 1

	# make bench-burst's raw file has no neighbour
	if any("wqrt_bench_nb" in p for p in pools.values()):
		print("## Pools of the noisy-neighbour variants")
		print()
		print("pool_ids of wqrt_bench and of the neighbour wqrt_bench_nb as each")
		print("run started (\"pod:pool\"; the same pool ID means a shared pool).")
		print()
		print("| variant | round | wqrt_bench | wqrt_bench_nb | shared |")
		print("|---|---|---|---|---|")
		for (v, r), p in sorted(pools.items()):
			if "wqrt_bench_nb" not in p:
				continue
			a = {x.split(":")[-1] for x in p.get("wqrt_bench", "").split()}
			b = {x.split(":")[-1] for x in p["wqrt_bench_nb"].split()}
			print("| %s | %s | %s | %s | %s |" % (
				v, r, p.get("wqrt_bench", "-"), p["wqrt_bench_nb"],
				"yes" if a & b else "no"))
		print()

	print("## Who ran the items")
	print()
	print("The policy of the task that ran each item when it started, and")
	print("whether it was new (created less than %g s before). On a stock" %
	      (NEW_NS / 1e9))
	print("kernel with kworkers chrt'ed by name, an item run by a normal")
	print("task ran on a kworker wqrtd had not yet reached. Latency p50 /")
	print("p99 / max in us, no intervals. -first: the first burst on a")
	print("new workqueue, before the rounds (on the stock kernel, before")
	print("wqrtd ran), in no other table. irqthread50's thread is created")
	print("for each run, so it is never counted as new.")
	print()
	print("| variant | items | by policy | on new tasks | latency on normal tasks | latency on new tasks | % > deadline on new tasks |")
	print("|---|---|---|---|---|---|---|")
	for (kind, v), xs in sorted(items.items(), key=lambda kv: (kv[0][0] != "B", kv[0][1])):
		by = {}
		for _, p, _ in xs:
			by[POLICY.get(p, str(p))] = by.get(POLICY.get(p, str(p)), 0) + 1
		normal = [x for x, p, _ in xs if p == 0]
		# irqthread50's thread is created for each run: always new
		new = [x for x, _, a in xs if a < NEW_NS and
		       not v.endswith("irqthread50")]
		late = sum(1 for x in new if x > deadline_ns)
		print("| %s%s | %d | %s | %d | %s | %s | %s |" % (
			v, " (burst)" if kind == "B" else "", len(xs),
			", ".join("%s %d" % kv for kv in sorted(by.items())),
			len(new), pcts(normal, 1000), pcts(new, 1000),
			"%.1f" % (100.0 * late / len(new)) if new else "-"))
	print()

	if workers:
		print("## Burst pools across the idle cull")
		print()
		print("Workers of the workqueue's pools (kworker/uN:M of its pool_ids;")
		print("every unbound kworker on a kernel without pool_ids) before the")
		print("first burst after the idle wait, and after the warm bursts;")
		print("culled: fewer before than the bursts left (the previous row's")
		print("after). The bursts after a wait that no cull ended are the")
		print("-notculled rows, not the -culled ones.")
		print()
		print("| variant | round | workqueue | workers before | after | idle s before | culled |")
		print("|---|---|---|---|---|---|---|")
		for w in workers:
			print("| %s | %s | %s | %s | %s | %s | %s |" % (
				w[:5] + (w[5] if len(w) > 5 else "-",
					 "yes" if int(w[3]) < int(w[4]) else "no")))
		print()

	if window:
		print("## wqrtd's window: a new kworker still SCHED_NORMAL")
		print()
		print("wqrtd --timing: for each kworker forked while wqrtd ran, the")
		print("kernel's fork timestamp to wqrtd's verified FIFO 50, ms.")
		print()
		print("| variant | kworkers | results | p50 / p99 / max ms |")
		print("|---|---|---|---|")
		for v in sorted(window):
			print("| %s | %d | %s | %s |" % (
				v, len(window[v]),
				", ".join("%s %d" % kv for kv in sorted(results[v].items())),
				pcts(window[v], 1e6)))
		print()
	else:
		print("wqrtd's window: no kworker was forked while wqrtd ran (no K lines).")
		print()

	for (kind, v), xs in items.items():
		if kind != "B":
			continue
		s = sorted(x for x, _, _ in xs)
		n = len(s)
		with open(os.path.join(datdir, "surv-%s.dat" % v), "w") as f:
			last = None
			for i, x in enumerate(s):
				if x != last:
					f.write("%.3f %.6g\n" % (x / 1000, (n - i) / n))
				last = x


if __name__ == "__main__":
	main()
