#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# gpu-stats.py RAW: the tables of make bench-gpu from vm-gpu.sh's lines
# (F: one per vblank, R: one per run; vm-gpu.sh says what each field
# is). A run is VARIANT-HZ. Per run: the share of late frames (the
# composition that covered a vblank ended after the next vblank's
# programmed time), the vblank's timer callback (which queues the work)
# to the start of that composition p50 and p99, the programmed time to
# that start p99, with bootstrap 95 %
# intervals that draw whole rounds with replacement and then blocks of
# one second of vblanks within each drawn round (benchstats.resample), so
# they include how much the rounds differ. Per rate, default against the
# RT variant with the same rounds drawn for both (they ran in the same
# rounds). Python's standard library only; SEED (1) and BOOT (1000) from
# the environment.
import lzma
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
# benchstats.py: one folder up in the source tree, beside this script
# where wqrt-selftests installs them
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
from benchstats import quantile, resample  # noqa: E402


def read(path):
	"""frames {run: {round: [(cb, s, e, q, n)]}}, runs {(run, round): {key: int}},
	kworkers {run: set((policy, rtprio, nice))}, skipped runs"""
	frames, runs, kw, skips = {}, {}, {}, []
	op = lzma.open if path.endswith(".xz") else open
	with op(path, "rt") as f:
		for line in f:
			w = line.split()
			if len(w) == 9 and w[0] == "F":
				frames.setdefault(w[1], {}).setdefault(int(w[2]), []).append(
					tuple(float(x) for x in w[4:9]))
			elif w and w[0] == "R" and len(w) >= 5:
				kv = w[3:]
				runs[(w[1], int(w[2]))] = {kv[i]: int(kv[i + 1])
							   for i in range(0, len(kv) - 1, 2)}
			elif w and w[0] == "K" and len(w) >= 10:
				kw.setdefault(w[1], set()).add((w[5], w[7], w[9]))
			elif w and w[0] == "V":
				skips.append(" ".join(w[1:]))
	return frames, runs, kw, skips


def split(run):
	v, hz = run.rsplit("-", 1)
	return v, int(hz)


def period_us(runs, run):
	ps = {kv.get("period_ns", 0) for (r, _), kv in runs.items() if r == run}
	ps.discard(0)
	if not ps:
		return 1e6 / split(run)[1]
	return max(ps) / 1000.0


def stats(xs, per):
	"""late %, callback -> start p50, p99, programmed vblank -> start p99
	(us), late from the callback %"""
	n = len(xs)
	late = 100.0 * sum(1 for x in xs if x[2] > per) / n
	w = sorted(x[1] - x[0] for x in xs)
	s = sorted(x[1] for x in xs)
	own = 100.0 * sum(1 for x in xs if x[2] - x[0] > per) / n
	return (late, quantile(w, 0.5), quantile(w, 0.99), quantile(s, 0.99), own)


def draw(rounds, keys, block, rng):
	return resample([rounds[k] for k in keys], block, rng)


def ci(vals):
	vals = sorted(v for v in vals if v is not None)
	if not vals:
		return None
	return quantile(vals, 0.025), quantile(vals, 0.975)


def fmt(x, iv, f="%.1f"):
	if x is None:
		return "-"
	if iv is None:
		return f % x
	return (f + " [" + f + ", " + f + "]") % (x, iv[0], iv[1])


def main():
	frames, runs, kw, skips = read(sys.argv[1])
	rng = random.Random(int(os.environ.get("SEED", "1")))
	nboot = int(os.environ.get("BOOT", "1000"))
	if not frames:
		print("No frames were traced.")
		return
	order = sorted(frames, key=lambda r: (split(r)[1], split(r)[0] != "default", r))
	print("## Per variant and rate")
	print()
	print("Late: the composition that covered a vblank ended after the next")
	print("vblank's programmed time (the frame's CRC, its composed image, was")
	print("not ready for the next scan-out). Queued to start: from the vblank's")
	print("timer callback, which queue_work()s the composition (or finds it still")
	print("pending: then the next composition to start covers this vblank too), to")
	print("the start of the composition that covered it: the workqueue's part.")
	print("Late from the callback: that composition ended more than a period after")
	print("the vblank's callback, the timer's lateness left out.")
	print("Vblank to start: the same from the vblank's programmed time (vkms's")
	print("hrtimer expiry, the drm vblank timestamp), the timer's lateness")
	print("included. Intervals: bootstrap 95 %% (%d resamples), whole rounds" % nboot)
	print("drawn with replacement, then one-second blocks of vblanks within each.")
	print("Skipped: vblanks the timer itself never signalled (its callback ran more")
	print("than a period late and hrtimer_forward_now() stepped over them), as a")
	print("share of the vblanks the mode had in the window; not in the other")
	print("columns. Compose: the composition's own time (start to end), p50 / p99")
	print("over compositions. Timer: programmed time to the timer callback, p99:")
	print("vkms's vblank hrtimer is a soft hrtimer, which on 6.12 PREEMPT_RT runs")
	print("in softirq context, in ksoftirqd (SCHED_NORMAL) under load; the -sirq50")
	print("variants make ksoftirqd SCHED_FIFO 50, as a threaded vblank interrupt")
	print("handler would be on an RT board.")
	print()
	print("| variant | Hz | period us | rounds | vblanks | late % | late from the callback % | queued to start p50 us | queued to start p99 us | vblank to start p99 us | skipped % | compose p50 / p99 us | timer p99 us | late % per round |")
	print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for run in order:
		v, hz = split(run)
		per = period_us(runs, run)
		rounds = frames[run]
		keys = sorted(rounds)
		allx = [x for k in keys for x in rounds[k]]
		late, p50, p99, s99, own = stats(allx, per)
		boots = [stats(draw(rounds, [rng.choice(keys) for _ in keys], hz, rng), per)
			 for _ in range(nboot)]
		ivs = [ci([b[i] for b in boots]) for i in range(5)]
		comps = {}
		for k in keys:
			for x in rounds[k]:
				comps[(k, x[1])] = x[2] - x[1]
		cd = sorted(comps.values())
		cb = sorted(x[0] for x in allx)
		skipped = sum(kv.get("skipped", 0) for (r, _), kv in runs.items() if r == run)
		traced = sum(kv.get("vblanks", 0) for (r, _), kv in runs.items() if r == run)
		per_round = " ".join("%.1f" % stats(rounds[k], per)[0] for k in keys)
		print("| %s | %d | %.0f | %d | %d | %s | %s | %s | %s | %s | %.2f | %.0f / %.0f | %.0f | %s |" % (
			v, hz, per, len(keys), len(allx), fmt(late, ivs[0], "%.2f"),
			fmt(own, ivs[4], "%.2f"),
			fmt(p50, ivs[1], "%.0f"), fmt(p99, ivs[2], "%.0f"),
			fmt(s99, ivs[3], "%.0f"),
			100.0 * skipped / (skipped + traced) if skipped + traced else 0,
			quantile(cd, 0.5), quantile(cd, 0.99), quantile(cb, 0.99), per_round))
	print()

	print("## Default against the RT workqueue, per rate")
	print()
	print("The same rounds drawn for both (each round ran both, in its own order),")
	print("then one-second blocks within each: the difference of the late shares")
	print("(default minus the other, percentage points) and the ratio of the")
	print("queued-to-start p99s (the other over default).")
	print()
	print("| Hz | default | other | late % default - other | late from the callback % default - other | queued to start p99 other / default |")
	print("|---|---|---|---|---|---|")
	for hz in sorted({split(r)[1] for r in frames}):
		for run in order:
			v, h = split(run)
			if h != hz or v.startswith("default"):
				continue
			# the default with the same suffix: fifo50-sirq50 against
			# default-sirq50
			suffix = v[len(v.split("-")[0]):]
			base = "default%s-%d" % (suffix, hz)
			if base not in frames:
				continue
			keys = sorted(set(frames[base]) & set(frames[run]))
			if not keys:
				continue
			pb, po = period_us(runs, base), period_us(runs, run)
			d, dn, rt = [], [], []
			for _ in range(nboot):
				ks = [rng.choice(keys) for _ in keys]
				sb = stats(draw(frames[base], ks, hz, rng), pb)
				so = stats(draw(frames[run], ks, hz, rng), po)
				d.append(sb[0] - so[0])
				dn.append(sb[4] - so[4])
				rt.append(so[2] / sb[2] if sb[2] else None)
			xb = [x for k in keys for x in frames[base][k]]
			xo = [x for k in keys for x in frames[run][k]]
			sb, so = stats(xb, pb), stats(xo, po)
			print("| %d | %s | %s | %s | %s | %s |" % (
				hz, base.rsplit("-", 1)[0], v, fmt(sb[0] - so[0], ci(d), "%.2f"),
				fmt(sb[4] - so[4], ci(dn), "%.2f"),
				fmt(so[2] / sb[2] if sb[2] else None, ci(rt), "%.2f")))
	print()

	print("## Per round")
	print()
	print("| variant | Hz | round | vblanks | late % | queued to start p50 us | queued to start p99 us | skipped | unfinished at the window's end |")
	print("|---|---|---|---|---|---|---|---|---|")
	for run in order:
		v, hz = split(run)
		per = period_us(runs, run)
		for k in sorted(frames[run]):
			late, p50, p99, _, _ = stats(frames[run][k], per)
			kv = runs.get((run, k), {})
			print("| %s | %d | %d | %d | %.2f | %.0f | %.0f | %d | %d |" % (
				v, hz, k, len(frames[run][k]), late, p50, p99,
				kv.get("skipped", 0), kv.get("unfinished", 0)))
	print()
	print("## Who composed")
	print()
	print("The kworkers that ran vkms_composer_worker in each run, as read after")
	print("it (policy: 0 SCHED_NORMAL, 1 SCHED_FIFO; rtprio; nice):")
	print()
	for run in order:
		seen = ", ".join("policy %s rtprio %s nice %s" % p for p in sorted(kw.get(run, ())))
		print("- %s: %s" % (run, seen or "not read"))
	if skips:
		print()
		print("Runs not made: " + "; ".join(skips))
	print()


if __name__ == "__main__":
	main()
