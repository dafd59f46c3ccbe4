// SPDX-License-Identifier: GPL-2.0-only
#include "daemon.h"
#include "log.h"
#include "common.h"
#include "config_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/*
 * One pipeline for a full scan, a new workqueue (uevent) and a new
 * kworker (FORK): every object of the pass is planned (plan.c); the
 * originals of every write the plans hold are recorded and saved in one
 * write; then the writes are made (apply.c). When the originals cannot be
 * saved, nothing they guard is written. Workqueues go first, kworkers
 * after: writing a workqueue's attributes gives it the pools whose
 * workers the kworker plans look at.
 */

/* A workqueue's writes, waiting for the originals of the pass */
struct wq_job {
	struct wq_plan p;
	const struct rule *r;
	unsigned int added; /* originals recorded for it */
};

struct kw_job {
	struct kw_plan p;
	bool recorded;
};

/* apply.c: the originals shrank; saved at the end of the pass */
static void originals_changed(void *arg)
{
	struct daemon *d = arg;

	d->dirty = true;
}

/*
 * Save the originals of every tracker. 0, or -errno: a failure is said
 * at LOG_ERR when it is new, at debug level while it lasts.
 */
static int save(struct daemon *d)
{
	struct log_ctx lc = { 0 };
	int err;

	err = state_save(&d->state, d->wqs, d->nwqs, d->kws, d->nkws);
	if (!err) {
		if (d->save_err)
			log_notice("%s: the originals are saved again",
				   d->state.path);
		d->dirty = false;
		d->save_err = 0;
		return 0;
	}
	lc.err = -err;
	log_full(err == d->save_err ? LOG_DEBUG : LOG_ERR, &lc,
		 "cannot save the originals to %s: %s; what they guard is not changed until they can be",
		 d->state.path, strerror(-err));
	d->save_err = err;
	return err;
}

/* What shrank (put back, gone) needs no hurry: saved once a pass */
static void flush(struct daemon *d)
{
	if (d->dirty)
		save(d);
}

static bool wq_eq(const void *ctx, int idx, const void *key)
{
	const struct daemon *d = ctx;

	return !strcmp(d->wqs[idx].name, key);
}

static bool kw_eq(const void *ctx, int idx, const void *key)
{
	const struct daemon *d = ctx;

	return d->kws[idx].pid == *(const pid_t *)key;
}

static uint32_t kw_hash(pid_t pid)
{
	return htab_hash_int((uint32_t)pid);
}

/* After the arrays were rebuilt in place */
static void reindex(struct daemon *d)
{
	size_t i;

	htab_clear(&d->wq_ix);
	htab_clear(&d->kw_ix);
	for (i = 0; i < d->nwqs; i++)
		htab_add(&d->wq_ix, htab_hash_str(d->wqs[i].name), i);
	for (i = 0; i < d->nkws; i++)
		htab_add(&d->kw_ix, kw_hash(d->kws[i].pid), i);
}

void daemon_init(struct daemon *d, const char *root, const struct sys_ops *ops,
		 struct config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->root = root;
	d->ax.root = root;
	d->ax.ops = ops;
	d->ax.originals_changed = originals_changed;
	d->ax.arg = d;
	d->cfg = cfg;
	d->sysfs_mode = sysfs_series_present(root);
}

void daemon_free(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nwqs; i++)
		free(d->wqs[i].pools);
	free(d->wqs);
	free(d->kws);
	free(d->shared);
	free(d->warned);
	pool_owners_free(&d->owners);
	free(d->wq_jobs);
	free(d->kw_jobs);
	htab_free(&d->wq_ix);
	htab_free(&d->kw_ix);
	state_free(&d->state);
	config_free(d->cfg);
	config_free(d->trial);
	memset(d, 0, sizeof(*d));
}

const char *daemon_mode_name(const struct daemon *d)
{
	return d->sysfs_mode ? "sysfs mode" : "fallback mode";
}

int daemon_use_state(struct daemon *d, const char *path)
{
	return state_load(&d->state, path, d->root, d->ax.ops);
}

/* Count a failure: not a workqueue or task that went away, not a retry */
static void count(struct daemon *d, int err)
{
	if (err < 0 && err != -ENOENT && err != -ESRCH &&
	    !apply_err_transient(err))
		d->failures++;
}

static struct wq_track *wq_find(struct daemon *d, const char *name)
{
	int ix = htab_lookup(&d->wq_ix, htab_hash_str(name), wq_eq, d, name,
			     d->nwqs);

	return ix < 0 ? NULL : &d->wqs[ix];
}

static struct wq_track *wq_add(struct daemon *d, const char *name)
{
	struct wq_track *v = realloc(d->wqs, (d->nwqs + 1) * sizeof(*v));

	if (!v)
		return NULL;
	d->wqs = v;
	v += d->nwqs++;
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	htab_add(&d->wq_ix, htab_hash_str(v->name), d->nwqs - 1);
	d->owners_ok = false;
	/* a previous instance changed it: its originals are the real ones */
	state_take(&d->state, name, &v->orig);
	return v;
}

static void wq_drop(struct daemon *d, struct wq_track *t)
{
	int i = t - d->wqs, last = d->nwqs - 1;

	if (t->orig.set)
		d->dirty = true;
	free(t->pools);
	htab_swap_remove(&d->wq_ix, htab_hash_str(t->name), i,
			 htab_hash_str(d->wqs[last].name), last);
	*t = d->wqs[last];
	d->nwqs--;
	d->owners_ok = false;
}

/* The pools of a workqueue without a policy rule: no kworker of theirs
 * is a profiled workqueue's alone */
static void note_shared(struct daemon *d, const char *name,
			const struct rule *r)
{
	int *ids, n;
	int *v;

	if (r && (r->s.set & WA_BIT(WA_POLICY)))
		return;
	n = wq_read_pool_ids(d->root, name, &ids);
	if (n <= 0)
		return;
	v = realloc(d->shared, (d->nshared + n) * sizeof(*v));
	if (!v) {
		free(ids);
		return;
	}
	memcpy(v + d->nshared, ids, n * sizeof(*ids));
	free(ids);
	d->shared = v;
	d->nshared += n;
	d->owners_ok = false;
}

/*
 * The tracker of workqueue name in this scan, and in *rp the rule that
 * covers it now. A workqueue is tracked while a rule covers it or while
 * it has originals to put back (a rule dropped, or left by a previous
 * instance); NULL when it is none of wqrtd's business.
 */
static struct wq_track *wq_visit(struct daemon *d, const char *name,
				 const struct rule **rp)
{
	const struct rule *r = config_match_wq(d->cfg, name);
	struct wq_track *t = wq_find(d, name);

	*rp = r;
	note_shared(d, name, r);
	if (!t && (r || state_has(&d->state, name)))
		t = wq_add(d, name);
	if (!t)
		return NULL;
	t->seen = true;
	if (r)
		t->want = r->s;
	else
		memset(&t->want, 0, sizeof(t->want));
	if ((t->want.set & WA_BIT(WA_CPUMASK)) && t->want.irq[0])
		plan_wq_follow_irq(d->root, t);
	if (r || t->orig.set)
		return t;
	wq_drop(d, t);
	return NULL;
}

/* After its plan: all put back and no rule, or read its pools again */
static void wq_settle(struct daemon *d, struct wq_track *t,
		      const struct rule *r)
{
	int n;

	if (!r && !t->orig.set) {
		wq_drop(d, t);
		return;
	}
	free(t->pools);
	n = wq_read_pool_ids(d->root, t->name, &t->pools);
	t->npools = n > 0 ? n : 0;
	d->owners_ok = false;
}

static int queue_wq(struct daemon *d, const struct wq_plan *p,
		    const struct rule *r)
{
	struct wq_job *v = d->wq_jobs;

	if (d->nwq_jobs == d->wq_jobs_cap) {
		size_t cap = d->wq_jobs_cap ? 2 * d->wq_jobs_cap : 16;

		v = realloc(d->wq_jobs, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->wq_jobs = v;
		d->wq_jobs_cap = cap;
	}
	v += d->nwq_jobs++;
	v->p = *p;
	v->r = r;
	v->added = 0;
	return 0;
}

static int queue_kw(struct daemon *d, const struct kw_plan *p)
{
	struct kw_job *v = d->kw_jobs;

	if (d->nkw_jobs == d->kw_jobs_cap) {
		size_t cap = d->kw_jobs_cap ? 2 * d->kw_jobs_cap : 16;

		v = realloc(d->kw_jobs, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		d->kw_jobs = v;
		d->kw_jobs_cap = cap;
	}
	v += d->nkw_jobs++;
	v->p = *p;
	v->recorded = false;
	return 0;
}

/* Plan workqueue name into the pass: a job when it has writes to make */
static void plan_wq_into(struct daemon *d, const char *name)
{
	const struct rule *r;
	struct wq_track *t = wq_visit(d, name, &r);
	struct wq_plan p;
	int err;

	if (!t)
		return;
	err = plan_wq(&d->ax, t, r, &p);
	if (!err && p.todo && !queue_wq(d, &p, r))
		return;
	if (!err && p.todo)
		err = -ENOMEM; /* no room for the job: again next scan */
	else if (!err)
		err = wq_apply_recorded(&d->ax, t, &p, 0); /* what is back */
	count(d, err);
	wq_settle(d, t, r);
}

/*
 * The writes of the pass: the originals they guard recorded and saved in
 * one write (a save per workqueue made a pass over 1000 of them
 * quadratic), then the writes. When the save fails, no workqueue whose
 * originals it held is written: each is a failure of the pass, and its
 * kworkers are left alone as after a failed write.
 */
static void run_wq_jobs(struct daemon *d)
{
	bool grew = false, saved;
	struct wq_track *t;
	struct wq_job *j;
	size_t i;

	for (i = 0; i < d->nwq_jobs; i++) {
		j = &d->wq_jobs[i];
		t = wq_find(d, j->p.name);
		j->added = t ? wq_record(t, &j->p) : 0;
		grew |= j->added != 0;
	}
	saved = !grew || !save(d);
	for (i = 0; i < d->nwq_jobs; i++) {
		j = &d->wq_jobs[i];
		t = wq_find(d, j->p.name);
		if (!t)
			continue;
		if (!saved && j->added) {
			wq_unrecord(t, j->added);
			t->failed = true;
			d->failures++;
		} else {
			count(d, wq_apply_recorded(&d->ax, t, &j->p, j->added));
		}
		wq_settle(d, t, j->r);
	}
	d->nwq_jobs = 0;
}

static struct kw_track *kw_find(struct daemon *d, pid_t pid)
{
	int ix = htab_lookup(&d->kw_ix, kw_hash(pid), kw_eq, d, &pid, d->nkws);

	return ix < 0 ? NULL : &d->kws[ix];
}

static struct kw_track *kw_add(struct daemon *d, const struct task_info *ti)
{
	struct kw_track *v = realloc(d->kws, (d->nkws + 1) * sizeof(*v));

	if (!v)
		return NULL;
	d->kws = v;
	v += d->nkws++;
	memset(v, 0, sizeof(*v));
	v->pid = ti->pid;
	v->start = ti->start;
	htab_add(&d->kw_ix, kw_hash(v->pid), d->nkws - 1);
	snprintf(v->comm, sizeof(v->comm), "%s", ti->comm);
	/* a previous instance changed it: its original is the real one */
	if (state_has_kw(&d->state, ti->pid)) {
		v->changed = state_take_kw(&d->state, ti->pid, ti->start,
					   &v->orig);
		/* else the pid of a kworker that is gone: forgotten */
		if (!v->changed)
			d->dirty = true;
	}
	return v;
}

static void kw_drop(struct daemon *d, struct kw_track *k)
{
	int i = k - d->kws, last = d->nkws - 1;

	if (k->changed)
		d->dirty = true;
	htab_swap_remove(&d->kw_ix, kw_hash(k->pid), i,
			 kw_hash(d->kws[last].pid), last);
	*k = d->kws[last];
	d->nkws--;
}

/* Say once per kworker that its rescuer name is ambiguous */
static void warn_ambiguous(struct daemon *d, const struct task_info *ti,
			   const struct kw_plan *p)
{
	struct log_ctx lc = { .pid = ti->pid };
	size_t i;
	pid_t *v;

	for (i = 0; i < d->nwarned; i++)
		if (d->warned[i] == ti->pid)
			return;
	v = realloc(d->warned, (d->nwarned + 1) * sizeof(*v));
	if (v) {
		d->warned = v;
		v[d->nwarned++] = ti->pid;
	}
	log_full(LOG_WARNING, &lc,
		 "%s (pid %d): ambiguous: the name is cut to 15 bytes and could be the rescuer of %s; left alone",
		 ti->comm, (int)ti->pid, p->ambiguous);
}

static void judged(struct daemon *d, pid_t pid, const char *comm, int result)
{
	if (d->kw_judged)
		d->kw_judged(d->kw_judged_arg, pid, comm, result);
}

/*
 * Put kworker k's original back: planned (plan.c), then carried out
 * (apply.c). 0, or -errno (k keeps its original for a later try); gone,
 * or its pid another task's: forgotten, nothing to put back.
 */
static int put_back_kw(struct daemon *d, struct kw_track *k)
{
	struct kw_plan p;
	int err = plan_kw_restore(&d->ax, k, &p);

	if (err > 0)
		err = kw_apply_recorded(&d->ax, k, &p, false);
	if (err == -ESRCH) {
		k->changed = false;
		d->dirty = true;
		return 0;
	}
	return err < 0 ? err : 0;
}

/*
 * The tracker of kworker ti, if it has one or a previous instance left
 * its original: what a pid named before its reuse is forgotten.
 */
static struct kw_track *kw_visit(struct daemon *d, const struct task_info *ti)
{
	struct kw_track *k = kw_find(d, ti->pid);

	if (k && k->start != ti->start) {
		/* the pid was reused: what we remembered is for a dead task */
		kw_drop(d, k);
		k = NULL;
	}
	if (!k && state_has_kw(&d->state, ti->pid))
		k = kw_add(d, ti);
	return k;
}

/* The plan of kworker ti; k its tracker, if any */
static int plan_one_kw(struct daemon *d, const struct task_info *ti,
		       const struct kw_track *k, struct kw_plan *p)
{
	struct kw_scope sc = { d->cfg, d->wqs, d->nwqs, &d->owners };

	if (!d->owners_ok)
		d->owners_ok = !pool_owners_build(&d->owners, d->wqs, d->nwqs,
						  d->shared, d->nshared);
	return plan_kw(&d->ax, &sc, ti, k, p);
}

/* Plan kworker ti into the pass: a job when it is to change */
static void plan_kw_into(struct daemon *d, const struct task_info *ti)
{
	struct kw_track *k = kw_visit(d, ti);
	struct kw_plan p;
	int err;

	err = plan_one_kw(d, ti, k, &p);
	if (p.ambiguous[0])
		warn_ambiguous(d, ti, &p);
	if (err <= 0) {
		/* gone, unreadable, or no business of wqrtd's (any more) */
		if (err)
			judged(d, ti->pid, ti->comm, err);
		if (err != -ESRCH)
			count(d, err);
		if (k && (err == -ESRCH || !k->changed))
			kw_drop(d, k);
		else if (k)
			k->seen = true;
		return;
	}
	if (!k)
		k = kw_add(d, ti);
	if (!k) {
		count(d, -ENOMEM);
		judged(d, ti->pid, ti->comm, -ENOMEM);
		return;
	}
	snprintf(k->comm, sizeof(k->comm), "%s", ti->comm);
	k->keep = p.keep;
	k->seen = true;
	if (p.drift || p.restore) {
		/*
		 * A change waits for its original in the pass's one save: no
		 * room for the job, no change (again on the next scan)
		 */
		err = queue_kw(d, &p);
		if (err) {
			count(d, err);
			judged(d, ti->pid, ti->comm, err);
		}
		return;
	}
	err = kw_apply_recorded(&d->ax, k, &p, false);
	judged(d, ti->pid, ti->comm, err);
	if (err == -ESRCH)
		kw_drop(d, k);
	else
		count(d, err);
}

/* The kworkers' changes: their originals saved at once, then the sets */
static void run_kw_jobs(struct daemon *d)
{
	bool grew = false, saved;
	struct kw_track *k;
	struct kw_job *j;
	size_t i;
	int err;

	for (i = 0; i < d->nkw_jobs; i++) {
		j = &d->kw_jobs[i];
		k = kw_find(d, j->p.pid);
		j->recorded = k && kw_record(k, &j->p);
		grew |= j->recorded;
	}
	saved = !grew || !save(d);
	for (i = 0; i < d->nkw_jobs; i++) {
		j = &d->kw_jobs[i];
		k = kw_find(d, j->p.pid);
		if (!k)
			continue;
		if (!saved && j->recorded) {
			kw_unrecord(k, true);
			d->failures++;
			judged(d, j->p.pid, j->p.comm, d->save_err);
			continue;
		}
		err = kw_apply_recorded(&d->ax, k, &j->p, j->recorded);
		judged(d, j->p.pid, j->p.comm, err);
		if (err == -ESRCH)
			kw_drop(d, k);
		else
			count(d, err);
	}
	d->nkw_jobs = 0;
}

static int plan_wq_cb(const char *name, void *arg)
{
	plan_wq_into(arg, name);
	return 0;
}

static int plan_kw_cb(const struct task_info *ti, void *arg)
{
	plan_kw_into(arg, ti);
	return 0;
}

/*
 * Visit every workqueue with cb; forget those that are gone. A listing
 * that fails forgets nothing: what it did not see is not gone.
 */
static void scan_wqs(struct daemon *d, wq_visit_fn cb, void *arg)
{
	size_t i;
	int err;

	d->nshared = 0;
	d->owners_ok = false;
	for (i = 0; i < d->nwqs; i++)
		d->wqs[i].seen = false;
	err = for_each_workqueue_ops(d->root, d->ax.ops, cb, arg);
	if (err) {
		log_err("cannot list workqueues under %s" WQ_SYSFS_DIR ": %s",
			strcmp(d->root, "/") ? d->root : "", strerror(-err));
		d->failures++;
		return;
	}
	for (i = 0; i < d->nwqs;) {
		if (d->wqs[i].seen) {
			i++;
			continue;
		}
		/* the workqueue is gone (module unloaded): nothing to restore */
		wq_drop(d, &d->wqs[i]);
	}
}

static void scan_kworkers(struct daemon *d)
{
	size_t i;
	int err;

	for (i = 0; i < d->nkws; i++)
		d->kws[i].seen = false;
	err = for_each_kworker_ops(d->root, d->ax.ops, plan_kw_cb, d);
	run_kw_jobs(d);
	if (err) {
		/* a listing cut short: the kworkers it did not see are not gone */
		log_err("cannot list tasks: %s", strerror(-err));
		d->failures++;
		return;
	}
	for (i = 0; i < d->nkws;) {
		if (d->kws[i].seen) {
			i++;
			continue;
		}
		/* gone, or no longer a kworker */
		count(d, put_back_kw(d, &d->kws[i]));
		if (d->kws[i].changed) {
			i++;
			continue;
		}
		kw_drop(d, &d->kws[i]);
	}
}

int daemon_scan(struct daemon *d)
{
	d->scans++;
	d->failures = 0;
	scan_wqs(d, plan_wq_cb, d);
	run_wq_jobs(d);
	scan_kworkers(d);
	flush(d);
	return d->failures;
}

int daemon_scan_kworkers(struct daemon *d)
{
	d->kw_scans++;
	d->failures = 0;
	scan_kworkers(d);
	flush(d);
	return d->failures;
}

struct planner {
	struct daemon *d;
	struct plan_set *ps;
};

/* A workqueue's plan for the report, its tracker left as an apply would */
static int report_wq_cb(const char *name, void *arg)
{
	struct planner *pl = arg;
	struct daemon *d = pl->d;
	const struct rule *r;
	struct wq_track *t = wq_visit(d, name, &r);
	struct wq_plan p;

	if (!t)
		return 0;
	if (plan_wq(&d->ax, t, r, &p))
		p.todo = 0;
	else {
		t->failed = p.blocked; /* as the apply would leave it */
		plan_set_add_wq(pl->ps, &p);
	}
	wq_settle(d, t, r);
	/*
	 * Writing the pools' attributes gives the workqueue new pools, whose
	 * workers the kernel creates with them: the workers of the pools it
	 * uses now (shared ones, before its first policy) are not its own.
	 */
	if (wq_find(d, name) == t && (p.todo & ~WA_BIT(WA_MAX_ACTIVE))) {
		t->npools = 0;
		d->owners_ok = false;
	}
	return 0;
}

static int report_kw_cb(const struct task_info *ti, void *arg)
{
	struct planner *pl = arg;
	struct kw_track *k = kw_visit(pl->d, ti);
	struct kw_plan p;

	if (plan_one_kw(pl->d, ti, k, &p) > 0)
		plan_set_add_kw(pl->ps, &p);
	return 0;
}

int daemon_plan(struct daemon *d, struct plan_set *ps)
{
	struct planner pl = { d, ps };

	scan_wqs(d, report_wq_cb, &pl);
	return for_each_kworker_ops(d->root, d->ax.ops, report_kw_cb, &pl);
}

void daemon_report(struct daemon *d, struct report *r)
{
	struct plan_set ps = { 0 };

	daemon_plan(d, &ps);
	report_plans(r, &ps);
	plan_set_free(&ps);
}

/*
 * What a stop puts back once the plans of ps are carried out: each
 * tracker as carrying them out leaves it (the originals recorded before
 * the writes, those put back), its originals going back against the
 * values the plans leave. A plan that would fail leaves the workqueue as
 * it was.
 */
static void plan_stop(struct daemon *d, const struct plan_set *ps,
		      struct plan_set *stop)
{
	struct wq_plan wp;
	struct kw_plan kp;
	size_t i;
	int a;

	for (i = 0; i < ps->nwqs; i++) {
		const struct wq_plan *p = &ps->wqs[i];
		struct wq_track *t = wq_find(d, p->name), after;
		struct wq_state st = p->st;

		if (!t)
			continue;
		after = *t;
		if (!p->blocked) {
			wq_record(&after, p);
			after.orig.set &= ~p->restore;
			for (a = 0; a < WA_NR; a++)
				if (p->todo & WA_BIT(a))
					settings_copy_attr(&st.cur, &p->target,
							   a);
		}
		if (!after.orig.set)
			continue;
		plan_wq_putback(&after, &st, &wp);
		if (wp.todo)
			plan_set_add_wq(stop, &wp);
	}
	for (i = 0; i < ps->nkws; i++) {
		const struct kw_plan *p = &ps->kws[i];
		struct kw_track *k = kw_find(d, p->pid), after = { 0 };

		if (k)
			after = *k;
		after.pid = p->pid;
		snprintf(after.comm, sizeof(after.comm), "%s", p->comm);
		after.keep = p->keep;
		kw_record(&after, p);
		if (p->restore)
			after.changed = false;
		if (!after.changed)
			continue;
		plan_kw_putback(&after, p->drift ? &p->target : &p->cur, &kp);
		if (kp.drift)
			plan_set_add_kw(stop, &kp);
	}
}

void daemon_dry_run(struct daemon *d, struct report *r)
{
	struct plan_set ps = { 0 }, stop = { 0 };

	daemon_plan(d, &ps);
	report_plans(r, &ps);
	plan_stop(d, &ps, &stop);
	report_stop(r, &stop, d->cfg->restore_on_exit);
	plan_set_free(&stop);
	plan_set_free(&ps);
}

int daemon_wqs_added(struct daemon *d, const char *const *names, size_t n)
{
	const struct rule *r;
	size_t i;

	d->failures = 0;
	for (i = 0; i < n; i++) {
		r = config_match_wq(d->cfg, names[i]);
		if (!r || strchr(names[i], '/') || names[i][0] == '.')
			continue;
		log_info("new workqueue %s matches [%s]", names[i],
			 r->section);
		plan_wq_into(d, names[i]);
	}
	run_wq_jobs(d);
	flush(d);
	return d->failures;
}

int daemon_wq_added(struct daemon *d, const char *name)
{
	return daemon_wqs_added(d, &name, 1);
}

int daemon_task_new(struct daemon *d, pid_t pid)
{
	struct task_info ti;

	if (task_read(d->root, pid, &ti) || !task_is_kworker(&ti))
		return 0;
	d->failures = 0;
	plan_kw_into(d, &ti);
	run_kw_jobs(d);
	flush(d);
	return d->failures;
}

void daemon_task_exit(struct daemon *d, pid_t pid)
{
	struct kw_track *k = kw_find(d, pid);
	size_t i;

	for (i = 0; i < d->nwarned; i++)
		if (d->warned[i] == pid)
			d->warned[i] = d->warned[--d->nwarned];
	if (!k)
		return;
	/* nothing to put back on a task that is gone */
	kw_drop(d, k);
	flush(d);
}

bool daemon_task_unsettled(struct daemon *d, pid_t pid)
{
	struct task_info ti;

	if (task_read(d->root, pid, &ti) || ti.ppid != KTHREADD_PID)
		return false;
	return !strcmp(ti.comm, "kthreadd") || !task_has_slept(d->root, pid);
}

int daemon_reload(struct daemon *d, const char *path)
{
	struct config *cfg;
	int n;

	n = config_load_report(path, d->root, &cfg,
			       "the old profiles stay in force");
	if (n)
		return n;
	/* the trial stays laid over what the files say now */
	if (d->trial && config_set_trial(cfg, &d->trial->rules[0]))
		log_err("%s: out of memory: its trial is not in force",
			d->trial->path);
	config_free(d->cfg);
	d->cfg = cfg;
	log_set_level(cfg->log_level);
	log_info("reloaded %s", path);
	daemon_scan(d);
	return 0;
}

/*
 * The originals a previous instance left that no scan has met (the
 * daemon stops before its first one, no rule covers them now, or the
 * listing failed): take over those whose workqueue or kernel thread is
 * still there, to put them back; forget those that are surely gone (no
 * such workqueue; the pid is free or another task's); keep the rest for a
 * next try, in the file.
 */
static void take_saved(struct daemon *d)
{
	char path[WQRT_PATH_MAX];
	struct task_info ti;
	struct stat st;
	bool listed;
	size_t i;
	int err;

	/* without the workqueues' directory, no workqueue is known gone */
	listed = !path_fmt(path, sizeof(path), d->root, WQ_SYSFS_DIR) &&
		 !d->ax.ops->lstat(d->ax.ops->ctx, path, &st);
	for (i = 0; i < d->state.n;) {
		const char *name = d->state.v[i].name;

		err = wq_path(path, sizeof(path), d->root, name, NULL);
		if (!err)
			err = d->ax.ops->lstat(d->ax.ops->ctx, path, &st);
		if (err == -ENOENT && !listed)
			err = -EIO;
		if (!err && !wq_find(d, name)) {
			/* wq_add() takes it out of the list */
			if (!wq_add(d, name))
				break;
		} else if (err == -ENOENT) {
			state_drop(&d->state, name);
			d->dirty = true;
		} else {
			i++;
		}
	}
	for (i = 0; i < d->state.nk;) {
		pid_t pid = d->state.kv[i].pid;

		err = task_read(d->root, pid, &ti);
		if (!err && task_is_kworker(&ti) &&
		    ti.start == d->state.kv[i].start && !kw_find(d, pid)) {
			/* kw_add() takes it out of the list */
			if (!kw_add(d, &ti))
				break;
		} else if (err == -ENOENT || !err) {
			/* gone, or the pid is another task's now */
			state_drop_kw(&d->state, pid);
			d->dirty = true;
		} else {
			i++;
		}
	}
}

/*
 * Put every original of workqueue t back: planned as for a workqueue no
 * rule covers any more, then carried out. 0 or -errno.
 */
static int put_back_wq(struct daemon *d, struct wq_track *t)
{
	struct wq_plan p;
	int err;

	memset(&t->want, 0, sizeof(t->want));
	err = plan_wq_restore(&d->ax, t, &p);
	/* nothing to record: every value written is an original */
	if (err > 0)
		err = wq_apply_recorded(&d->ax, t, &p, 0);
	if (err == -ENOENT)
		return 0; /* the workqueue went away with its module */
	return err < 0 ? err : 0;
}

int daemon_restore(struct daemon *d)
{
	int fails = 0;
	size_t i, keep;

	take_saved(d);
	for (i = 0, keep = 0; i < d->nwqs; i++) {
		if (put_back_wq(d, &d->wqs[i]))
			fails++;
		/* what could not be put back stays, for a next instance */
		if (d->wqs[i].orig.set)
			d->wqs[keep++] = d->wqs[i];
		else
			free(d->wqs[i].pools);
	}
	d->nwqs = keep;
	d->owners_ok = false;
	for (i = 0, keep = 0; i < d->nkws; i++) {
		if (put_back_kw(d, &d->kws[i]))
			fails++;
		if (d->kws[i].changed)
			d->kws[keep++] = d->kws[i];
	}
	d->nkws = keep;
	reindex(d);
	/* what the file keeps: what could not be put back, or not found */
	if (save(d))
		fails++;
	return fails;
}
