// SPDX-License-Identifier: GPL-2.0-only
#include "apply.h"
#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool apply_err_transient(int err)
{
	return err == -EBUSY || err == -EAGAIN;
}

/*
 * Log the failure c->err of one workqueue or kworker: a transient one as
 * a notice, a permanent one as an error the first time (*last keeps it)
 * and at debug level while it stays the same.
 */
static void log_failure(int *last, const struct log_ctx *c, const char *fmt,
			...) __attribute__((format(printf, 3, 4)));

static void log_failure(int *last, const struct log_ctx *c, const char *fmt,
			...)
{
	int prio = LOG_ERR;
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (apply_err_transient(-c->err)) {
		log_full(LOG_NOTICE, c, "%s; again on the next scan", msg);
		return;
	}
	if (*last == c->err)
		prio = LOG_DEBUG;
	*last = c->err;
	log_full(prio, c, "%s", msg);
}

static int write_attr(const struct apply_ctx *ax, const char *wq,
		      enum wq_attr a, const struct settings *s,
		      const struct wq_state *st)
{
	char path[WQRT_PATH_MAX], val[300];
	int err;

	if (!(st->writable & WA_BIT(a)))
		return -EACCES;
	err = wq_path(path, sizeof(path), ax->root, wq, attr_name(a));
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

static void warn_missing(struct wq_track *t, const struct wq_plan *p)
{
	unsigned int missing = p->missing & ~t->warned;
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

/* Read back what was written; 0, or -EIO (logged) when it did not stick */
static int read_back(const struct apply_ctx *ax, struct wq_track *t,
		     const struct wq_plan *p, unsigned int done)
{
	struct log_ctx lc = { .wq = t->name, .err = EIO };
	char want[300], got[300];
	struct wq_state after;
	unsigned int bad;
	int a, err;

	err = wq_read_state(ax, t->name, &after);
	if (err)
		return err;
	bad = wq_differing(&p->target, &after) | (done & ~after.present);
	for (a = 0; a < WA_NR; a++) {
		if (!(bad & WA_BIT(a)))
			continue;
		attr_format_human(a, &p->target, want, sizeof(want));
		attr_format_human(a, &after.cur, got, sizeof(got));
		lc.attr = attr_name(a);
		log_failure(&t->err, &lc, "%s: %s reads back %s, wanted %s",
			    t->name, attr_name(a), got, want);
		return -EIO;
	}
	return 0;
}

int wq_apply(const struct apply_ctx *ax, struct wq_track *t,
	     const struct wq_plan *p)
{
	struct log_ctx lc = { .wq = t->name };
	unsigned int done = 0;
	char want[300];
	int a, err = 0;

	warn_missing(t, p);
	for (a = 0; a < WA_NR && !err; a++) {
		if (!(p->todo & WA_BIT(a)))
			continue;
		err = write_attr(ax, t->name, a, &p->target, &p->st);
		if (err) {
			attr_format_sysfs(a, &p->target, want, sizeof(want));
			lc.attr = attr_name(a);
			lc.err = -err;
			log_failure(&t->err, &lc, "%s: writing %s = %s: %s%s",
				    t->name, attr_name(a), want,
				    strerror(-err),
				    err == -EACCES ? " (read-only attribute)" :
						     "");
			break;
		}
		done |= WA_BIT(a);
	}
	if (!err && done)
		err = read_back(ax, t, p, done);
	if (err) {
		put_back(ax, t->name, done, &p->st);
		t->failed = true;
		return err;
	}
	for (a = 0; a < WA_NR; a++) {
		if (!(done & WA_BIT(a)))
			continue;
		if (!(t->orig.set & WA_BIT(a)) && !(p->restore & WA_BIT(a)))
			settings_copy_attr(&t->orig, &p->st.cur, a);
		attr_format_human(a, &p->target, want, sizeof(want));
		lc.attr = attr_name(a);
		log_full(LOG_INFO, &lc, "%s: %s = %s", t->name, attr_name(a),
			 want);
	}
	/* what is back at its original value needs no restoring */
	t->orig.set &= ~p->restore;
	t->failed = false;
	t->err = 0;
	return 0;
}

int wq_restore(const struct apply_ctx *ax, struct wq_track *t)
{
	struct wq_plan p;
	int err;

	memset(&t->want, 0, sizeof(t->want));
	if (!t->orig.set)
		return 0;
	err = plan_wq(ax, t, NULL, &p);
	if (!err)
		err = wq_apply(ax, t, &p);
	if (err == -ENOENT)
		return 0; /* the workqueue went away with its module */
	return err;
}

/* Same task as when we first saw it? */
static int kw_check(const struct apply_ctx *ax, const struct kw_track *k)
{
	struct task_info t;

	if (task_read(ax->root, k->pid, &t) || t.start != k->start)
		return -ESRCH;
	return 0;
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
		log_failure(&k->err, &lc, "%s (pid %d): setting %s %d: %s",
			    k->comm, (int)k->pid,
			    sched_policy_name(target->policy), target->rtprio,
			    strerror(-err));
	}
	return err;
}

int kw_apply(const struct apply_ctx *ax, struct kw_track *k,
	     const struct kw_plan *p)
{
	struct log_ctx lc = { .pid = k->pid, .attr = "policy" };
	int err;

	err = kw_check(ax, k);
	if (err || !p->drift)
		return err;
	err = kw_set(ax, k, &p->target);
	if (err)
		return err;
	k->err = 0;
	if (!k->changed && !k->keep) {
		k->orig = p->cur;
		k->changed = true;
	}
	log_full(LOG_INFO, &lc, "%s (pid %d): %s %d -> %s %d", k->comm,
		 (int)k->pid, sched_policy_name(p->cur.policy), p->cur.rtprio,
		 sched_policy_name(p->target.policy), p->target.rtprio);
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
