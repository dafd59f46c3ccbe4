// SPDX-License-Identifier: GPL-2.0-only
#include "apply.h"
#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define WQ_SYSFS_DIR "/sys/devices/virtual/workqueue"

static int attr_path(const struct apply_ctx *ax, const char *wq, enum wq_attr a,
		     char *buf, size_t size)
{
	return path_fmt(buf, size, ax->root, WQ_SYSFS_DIR "/%s/%s", wq,
			attr_name(a));
}

int wq_read_state(const struct apply_ctx *ax, const char *wq,
		  struct wq_state *st)
{
	char path[WQRT_PATH_MAX], buf[512];
	struct log_ctx lc = { .wq = wq };
	struct stat sb;
	int a;

	memset(st, 0, sizeof(*st));
	if (path_fmt(path, sizeof(path), ax->root, WQ_SYSFS_DIR "/%s", wq) ||
	    stat(path, &sb))
		return -ENOENT;
	for (a = 0; a < WA_NR; a++) {
		if (attr_path(ax, wq, a, path, sizeof(path)) ||
		    stat(path, &sb) || read_text(path, buf, sizeof(buf)))
			continue;
		lc.attr = attr_name(a);
		if (attr_parse_sysfs(a, buf, &st->cur)) {
			log_full(LOG_WARNING, &lc, "%s: %s reads \"%s\"?", wq,
				 attr_name(a), buf);
			continue;
		}
		st->present |= WA_BIT(a);
		if (sb.st_mode & 0222)
			st->writable |= WA_BIT(a);
	}
	return 0;
}

void wq_target(const struct wq_track *t, const struct wq_state *st,
	       struct settings *target)
{
	int a;

	memset(target, 0, sizeof(*target));
	for (a = 0; a < WA_NR; a++) {
		if (!(t->sysfs & WA_BIT(a)))
			continue;
		if (t->want.set & WA_BIT(a))
			settings_copy_attr(target, &t->want, a);
		else if (t->orig.set & WA_BIT(a))
			settings_copy_attr(target, &t->orig, a);
	}
	/*
	 * Writing policy moves rtprio (normal: 0, rt: at least 1). When the
	 * rule sets policy alone, rtprio follows it rather than any original;
	 * when putting policy back, rtprio goes back too (it is in orig).
	 */
	if ((target->set & WA_BIT(WA_POLICY)) &&
	    !(t->want.set & WA_BIT(WA_RTPRIO)) &&
	    ((t->want.set & WA_BIT(WA_POLICY)) ||
	     !(target->set & WA_BIT(WA_RTPRIO))) &&
	    (st->present & WA_BIT(WA_RTPRIO))) {
		long prio = st->cur.val[WA_RTPRIO];

		if (target->val[WA_POLICY] == POLICY_NORMAL)
			prio = 0;
		else if (!prio)
			prio = 1;
		target->val[WA_RTPRIO] = prio;
		target->set |= WA_BIT(WA_RTPRIO);
	}
}

/* Attributes wq_target() takes from orig: going back to the original */
static unsigned int restoring(const struct wq_track *t)
{
	unsigned int m = t->orig.set & ~t->want.set & t->sysfs;

	if (t->want.set & WA_BIT(WA_POLICY))
		m &= ~WA_BIT(WA_RTPRIO);
	return m;
}

static int write_attr(const struct apply_ctx *ax, const char *wq,
		      enum wq_attr a, const struct settings *s,
		      const struct wq_state *st)
{
	char path[WQRT_PATH_MAX], val[300];
	int err;

	if (!(st->writable & WA_BIT(a)))
		return -EACCES;
	err = attr_path(ax, wq, a, path, sizeof(path));
	if (err)
		return err;
	attr_format_sysfs(a, s, val, sizeof(val));
	return ax->ops->write_attr(ax->ops->ctx, path, val);
}

static void put_back(const struct apply_ctx *ax, const char *wq,
		     unsigned int done, const struct wq_state *before)
{
	struct log_ctx lc = { .wq = wq };
	int a, err;

	for (a = 0; a < WA_NR; a++) {
		if (!(done & WA_BIT(a)))
			continue;
		err = write_attr(ax, wq, a, &before->cur, before);
		if (err) {
			lc.attr = attr_name(a);
			lc.err = -err;
			log_full(LOG_ERR, &lc, "%s: could not put %s back: %s",
				 wq, attr_name(a), strerror(-err));
		}
	}
}

/* Which attributes differ between s and the state read */
static unsigned int differing(const struct settings *s,
			      const struct wq_state *st)
{
	unsigned int diff = 0;
	int a;

	for (a = 0; a < WA_NR; a++)
		if ((s->set & WA_BIT(a)) && (st->present & WA_BIT(a)) &&
		    !attr_equal(a, s, &st->cur))
			diff |= WA_BIT(a);
	return diff;
}

static void warn_missing(struct wq_track *t, const struct settings *target,
			 const struct wq_state *st)
{
	unsigned int missing = target->set & ~st->present & ~t->warned;
	struct log_ctx lc = { .wq = t->name };
	int a;

	for (a = 0; a < WA_NR; a++) {
		if (!(missing & WA_BIT(a)))
			continue;
		lc.attr = attr_name(a);
		log_full(LOG_WARNING, &lc,
			 "%s: no %s attribute on this workqueue; skipped",
			 t->name, attr_name(a));
	}
	t->warned |= missing;
}

int wq_apply(const struct apply_ctx *ax, struct wq_track *t)
{
	struct log_ctx lc = { .wq = t->name };
	struct wq_state before, after;
	struct settings target;
	unsigned int todo, done = 0, bad, back = restoring(t);
	char want[300], got[300];
	int a, err = 0;

	err = wq_read_state(ax, t->name, &before);
	if (err)
		return err;
	wq_target(t, &before, &target);
	warn_missing(t, &target, &before);
	todo = differing(&target, &before);
	/* a policy write moves rtprio: always follow it with rtprio */
	if ((todo & WA_BIT(WA_POLICY)) && (target.set & WA_BIT(WA_RTPRIO)) &&
	    (before.present & WA_BIT(WA_RTPRIO)))
		todo |= WA_BIT(WA_RTPRIO);
	for (a = 0; a < WA_NR && !err; a++) {
		if (!(todo & WA_BIT(a)))
			continue;
		attr_format_sysfs(a, &target, want, sizeof(want));
		err = write_attr(ax, t->name, a, &target, &before);
		if (err) {
			lc.attr = attr_name(a);
			lc.err = -err;
			log_full(LOG_ERR, &lc, "%s: writing %s = %s: %s%s",
				 t->name, attr_name(a), want, strerror(-err),
				 err == -EACCES ? " (read-only attribute)" :
						  "");
			break;
		}
		done |= WA_BIT(a);
	}
	if (!err && done) {
		err = wq_read_state(ax, t->name, &after);
		bad = err ? done :
			    differing(&target, &after) |
				      (done & ~after.present);
		for (a = 0; a < WA_NR && !err && bad; a++) {
			if (!(bad & WA_BIT(a)))
				continue;
			attr_format_human(a, &target, want, sizeof(want));
			attr_format_human(a, &after.cur, got, sizeof(got));
			lc.attr = attr_name(a);
			lc.err = EIO;
			log_full(LOG_ERR, &lc,
				 "%s: %s reads back %s, wanted %s", t->name,
				 attr_name(a), got, want);
			err = -EIO;
		}
	}
	if (err) {
		put_back(ax, t->name, done, &before);
		t->failed = true;
		return err;
	}
	for (a = 0; a < WA_NR; a++) {
		if (!(done & WA_BIT(a)))
			continue;
		if (!(t->orig.set & WA_BIT(a)) && !(back & WA_BIT(a)))
			settings_copy_attr(&t->orig, &before.cur, a);
		attr_format_human(a, &target, want, sizeof(want));
		lc.attr = attr_name(a);
		log_full(LOG_INFO, &lc, "%s: %s = %s", t->name, attr_name(a),
			 want);
	}
	/* what is back at its original value needs no restoring */
	t->orig.set &= ~(back & (done | ~differing(&target, &before)));
	t->failed = false;
	return 0;
}

int wq_restore(const struct apply_ctx *ax, struct wq_track *t)
{
	int err;

	memset(&t->want, 0, sizeof(t->want));
	if (!t->orig.set)
		return 0;
	err = wq_apply(ax, t);
	if (err == -ENOENT)
		return 0; /* the workqueue went away with its module */
	return err;
}

void kw_target(const struct settings *want, const struct sched_val *cur,
	       struct sched_val *target)
{
	*target = *cur;
	if (want->set & WA_BIT(WA_POLICY))
		target->policy = policy_to_sched(want->val[WA_POLICY]);
	if (want->set & WA_BIT(WA_RTPRIO))
		target->rtprio = want->val[WA_RTPRIO];
	if (want->set & WA_BIT(WA_NICE))
		target->nice = want->val[WA_NICE];
	if (target->policy != SCHED_FIFO && target->policy != SCHED_RR)
		target->rtprio = 0;
	else if (!target->rtprio)
		target->rtprio = 1;
}

/* Same task as when we first saw it? */
static int kw_check(const struct apply_ctx *ax, const struct kw_track *k)
{
	struct task_info t;

	if (task_read(ax->root, k->pid, &t) || t.start != k->start)
		return -ESRCH;
	return 0;
}

static const char *sched_name(int policy)
{
	return policy == SCHED_FIFO  ? "fifo" :
	       policy == SCHED_RR    ? "rr" :
	       policy == SCHED_OTHER ? "normal" :
				       "other";
}

static int kw_set(const struct apply_ctx *ax, struct kw_track *k,
		  const struct sched_val *target)
{
	struct log_ctx lc = { .pid = k->pid, .attr = "policy" };
	struct sched_val now;
	int err;

	err = ax->ops->sched_set(ax->ops->ctx, k->pid, target);
	if (!err)
		err = ax->ops->sched_get(ax->ops->ctx, k->pid, &now);
	if (!err && !sched_val_equal(&now, target))
		err = -EIO;
	if (err && err != -ESRCH) {
		lc.err = -err;
		log_full(LOG_ERR, &lc, "%s (pid %d): setting %s %d: %s",
			 k->comm, (int)k->pid, sched_name(target->policy),
			 target->rtprio, strerror(-err));
	}
	return err;
}

int kw_apply(const struct apply_ctx *ax, struct kw_track *k)
{
	struct log_ctx lc = { .pid = k->pid, .attr = "policy" };
	struct sched_val cur, target;
	int err;

	err = kw_check(ax, k);
	if (!err)
		err = ax->ops->sched_get(ax->ops->ctx, k->pid, &cur);
	if (err)
		return err;
	kw_target(&k->want, &cur, &target);
	if (sched_val_equal(&cur, &target))
		return 0;
	err = kw_set(ax, k, &target);
	if (err)
		return err;
	if (!k->changed && !k->keep) {
		k->orig = cur;
		k->changed = true;
	}
	log_full(LOG_INFO, &lc, "%s (pid %d): %s %d -> %s %d", k->comm,
		 (int)k->pid, sched_name(cur.policy), cur.rtprio,
		 sched_name(target.policy), target.rtprio);
	return 1;
}

int kw_restore(const struct apply_ctx *ax, struct kw_track *k)
{
	int err;

	if (!k->changed)
		return 0;
	k->changed = false;
	if (kw_check(ax, k))
		return 0; /* gone, or the pid now belongs to someone else */
	err = kw_set(ax, k, &k->orig);
	return err == -ESRCH ? 0 : err;
}
