// SPDX-License-Identifier: GPL-2.0-only
#include "apply.h"
#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	char path[WQRT_PATH_MAX], val[ATTR_TEXT_MAX];
	int err;

	if (!(st->writable & WA_BIT(a)))
		return -EACCES;
	err = wq_path(path, sizeof(path), ax->root, wq, attr_name(a));
	if (err)
		return err;
	attr_format_sysfs(a, s, val, sizeof(val));
	return ax->ops->write_attr(ax->ops->ctx, path, val);
}

static void shrank(const struct apply_ctx *ax)
{
	if (ax->originals_changed)
		ax->originals_changed(ax->arg);
}

/* Put back what was written; returns the attributes that could not be */
static unsigned int put_back(const struct apply_ctx *ax, const char *wq,
			     unsigned int done, const struct wq_state *before)
{
	struct log_ctx lc = { .wq = wq };
	unsigned int stuck = 0;
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
			stuck |= WA_BIT(a);
		}
	}
	return stuck;
}

/*
 * err says the workqueue went away (destroyed): nothing to say or undo.
 * -ENODEV is sysfs refusing an attribute whose node is being removed;
 * -ENOENT counts when the directory is gone.
 */
static bool wq_gone(const struct apply_ctx *ax, const char *wq, int err)
{
	char path[WQRT_PATH_MAX];
	struct stat sb;

	if (err == -ENODEV)
		return true;
	return err == -ENOENT &&
	       !wq_path(path, sizeof(path), ax->root, wq, NULL) &&
	       stat(path, &sb) && errno == ENOENT;
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
	missing = p->unsupported & ~t->warned;
	if (missing) {
		lc.attr = "policy";
		log_full(LOG_WARNING, &lc,
			 "%s: policy and rtprio are not supported by this kernel (this workqueue lacks a policy attribute): only its rescuer gets them; name its kworkers in a [kworker:] section",
			 t->name);
	}
	t->warned |= p->unsupported;
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

	err = wq_read_state(ax->root, t->name, &after);
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

unsigned int wq_record(struct wq_track *t, const struct wq_plan *p)
{
	unsigned int added = 0;
	int a;

	for (a = 0; a < WA_NR; a++) {
		if (!(p->todo & WA_BIT(a)) || (t->orig.set & WA_BIT(a)) ||
		    (p->restore & WA_BIT(a)))
			continue;
		settings_copy_attr(&t->orig, &p->st.cur, a);
		added |= WA_BIT(a);
	}
	return added;
}

void wq_unrecord(struct wq_track *t, unsigned int added)
{
	t->orig.set &= ~added;
}

int wq_apply_recorded(const struct apply_ctx *ax, struct wq_track *t,
		      const struct wq_plan *p, unsigned int added)
{
	struct log_ctx lc = { .wq = t->name };
	unsigned int done = 0, stuck;
	char want[300];
	int a, err = 0;

	warn_missing(t, p);
	for (a = 0; a < WA_NR && !err; a++) {
		if (!(p->todo & WA_BIT(a)))
			continue;
		err = write_attr(ax, t->name, a, &p->target, &p->st);
		if (wq_gone(ax, t->name, err))
			break;
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
	if (wq_gone(ax, t->name, err)) {
		/*
		 * Destroyed under the write (a short-lived workqueue): there
		 * is nothing to put back, and nothing failed that anyone can
		 * fix. Its tracker goes with the next scan.
		 */
		log_full(LOG_DEBUG, &lc, "%s: gone while being set (%s)",
			 t->name, strerror(-err));
		t->orig.set &= ~added;
		if (added)
			shrank(ax);
		return -ENOENT;
	}
	if (err) {
		/* what is back, or was never written, needs no restoring;
		 * what could not be put back keeps its original */
		stuck = put_back(ax, t->name, done, &p->st);
		t->orig.set &= ~(added & ~stuck);
		if (added & ~stuck)
			shrank(ax);
		t->failed = true;
		return err;
	}
	for (a = 0; a < WA_NR; a++) {
		if (!(done & WA_BIT(a)))
			continue;
		attr_format_human(a, &p->target, want, sizeof(want));
		lc.attr = attr_name(a);
		lc.msgid = p->restore & WA_BIT(a) ? MSGID_RESTORED :
						    MSGID_APPLIED;
		log_full(LOG_INFO, &lc, "%s: %s = %s", t->name, attr_name(a),
			 want);
	}
	/* what is back at its original value (read back) needs no restoring */
	if (t->orig.set & p->restore) {
		t->orig.set &= ~p->restore;
		shrank(ax);
	}
	t->failed = false;
	t->err = 0;
	return 0;
}

/* Is the task at k->pid the kernel thread k was made for? */
static bool kw_same(const struct apply_ctx *ax, const struct kw_track *k,
		    struct task_info *t)
{
	return task_same_kthread(ax->root, k->pid, k->start, t);
}

/* Same task as when we first saw it? */
static int kw_check(const struct apply_ctx *ax, const struct kw_track *k)
{
	struct task_info t;

	return kw_same(ax, k, &t) ? 0 : -ESRCH;
}

/*
 * The pid changed hands while it was being set: whoever has it now may
 * have got a real-time policy meant for a kworker. Put it back to
 * SCHED_OTHER at the nice it was born with: 0 for a process or a
 * usermode helper, -20 for a CPU's highpri kworker ("kworker/N:MH"); a
 * kworker is planned as a new one by the next scan, which its FORK event
 * brings (a pool's worker gets its workqueue's policy then). Unless the
 * task at the pid is still the kworker, on its way out: its pidfd
 * reports the exit before its pid is free, and a rescuer destroyed with
 * its workqueue while it was being set is no stranger (make
 * bench-reaction logged it at LOG_CRIT and "put back" the dying kworker).
 */
static void kw_disown(const struct apply_ctx *ax, const struct kw_track *k,
		      const struct sched_val *target)
{
	struct log_ctx lc = { .pid = k->pid, .attr = "policy" };
	struct sched_val other = { SCHED_OTHER, 0, 0,
				   SCHED_FLAG_RESET_ON_FORK };
	struct kw_class c;
	struct task_info t;
	int err;

	if (task_read(ax->root, k->pid, &t))
		return; /* no one has it: nothing was given away */
	if (t.start == k->start && (t.flags & PF_KTHREAD) &&
	    t.ppid == KTHREADD_PID) {
		log_full(LOG_DEBUG, &lc, "%s (pid %d) exited while being set",
			 k->comm, (int)k->pid);
		return;
	}
	kworker_classify(t.comm, &c);
	if (task_is_kworker(&t) && c.kind == KW_PERCPU && c.highpri)
		other.nice = -20;
	err = ax->ops->sched_set(ax->ops->ctx, k->pid, &other);
	lc.err = err < 0 ? -err : 0;
	log_full(LOG_CRIT, &lc,
		 "pid %d changed hands while %s (pid %d) was being set to %s %d: its new owner (%s) was put back to SCHED_OTHER nice %d%s%s",
		 (int)k->pid, k->comm, (int)k->pid,
		 sched_policy_name(target->policy), target->rtprio, t.comm,
		 other.nice, err ? ": failed: " : "", err ? strerror(-err) : "");
}

/*
 * Set k to target as rtkit does: hold a pidfd, check start time and
 * PF_KTHREAD, set, then confirm that the same task is still there (the
 * pidfd has not seen it exit, the start time is the same). wqrtd runs
 * SCHED_OTHER and can be preempted between the check and the set for
 * long enough that the pid goes to someone else.
 */
static int kw_set(const struct apply_ctx *ax, struct kw_track *k,
		  const struct sched_val *want)
{
	const struct sys_ops *o = ax->ops;
	struct log_ctx lc = { .pid = k->pid, .attr = "policy" };
	struct sched_val now, set = *want;
	const struct sched_val *target = &set;
	struct task_info t;
	int fd = -1, err;
	bool gone;

	if (o->pidfd_open) {
		fd = o->pidfd_open(o->ctx, k->pid);
		if (fd == -ESRCH)
			return -ESRCH;
	}
	if (!kw_same(ax, k, &t)) {
		err = -ESRCH;
		goto out;
	}
	set.flags |= SCHED_FLAG_RESET_ON_FORK;
	err = o->sched_set(o->ctx, k->pid, target);
	gone = fd >= 0 && o->pidfd_exited(o->ctx, fd) == 1;
	if (gone || !kw_same(ax, k, &t)) {
		if (!err)
			kw_disown(ax, k, target);
		err = -ESRCH;
		goto out;
	}
	if (!err)
		err = o->sched_get(o->ctx, k->pid, &now);
	if (!err && !sched_val_equal(&now, target))
		err = -EIO;
	if (err && err != -ESRCH) {
		lc.err = -err;
		log_failure(&k->err, &lc, "%s (pid %d): setting %s %d: %s",
			    k->comm, (int)k->pid,
			    sched_policy_name(target->policy), target->rtprio,
			    strerror(-err));
	}
out:
	if (fd >= 0)
		close(fd);
	return err;
}

bool kw_record(struct kw_track *k, const struct kw_plan *p)
{
	if (!p->drift || k->changed || k->keep)
		return false;
	k->orig = p->cur;
	k->changed = true;
	return true;
}

void kw_unrecord(struct kw_track *k, bool recorded)
{
	if (recorded)
		k->changed = false;
}

/* What was recorded for a change that did not happen goes again */
static void kw_forget(const struct apply_ctx *ax, struct kw_track *k,
		      bool recorded)
{
	if (recorded) {
		kw_unrecord(k, recorded);
		shrank(ax);
	}
}

static int kw_change(const struct apply_ctx *ax, struct kw_track *k,
		     const struct kw_plan *p, bool recorded)
{
	struct log_ctx lc = { .pid = k->pid, .attr = "policy" };
	int err = kw_set(ax, k, &p->target);

	if (err) {
		/* not changed (or gone): nothing to put back; a change that
		 * did not read back (-EIO) keeps its original */
		if (err != -EIO)
			kw_forget(ax, k, recorded);
		return err;
	}
	k->err = 0;
	if (p->restore) {
		lc.msgid = MSGID_RESTORED;
		log_full(LOG_INFO, &lc, "%s (pid %d): back to %s %d", k->comm,
			 (int)k->pid, sched_policy_name(p->target.policy),
			 p->target.rtprio);
		k->changed = false;
		shrank(ax);
		return 1;
	}
	lc.msgid = MSGID_APPLIED;
	log_full(LOG_INFO, &lc, "%s (pid %d): %s %d -> %s %d", k->comm,
		 (int)k->pid, sched_policy_name(p->cur.policy), p->cur.rtprio,
		 sched_policy_name(p->target.policy), p->target.rtprio);
	return 1;
}

int kw_apply_recorded(const struct apply_ctx *ax, struct kw_track *k,
		      const struct kw_plan *p, bool recorded)
{
	int err = kw_check(ax, k);

	if (err) {
		kw_forget(ax, k, recorded);
		return err;
	}
	if (p->drift)
		return kw_change(ax, k, p, recorded);
	/* already back: nothing to keep */
	if (p->restore) {
		k->changed = false;
		shrank(ax);
	}
	return 0;
}
