// SPDX-License-Identifier: GPL-2.0-only
#include "daemon.h"
#include "log.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A write waiting for the originals of its pass to be on disk */
struct wq_job {
	struct wq_plan p;
	const struct rule *r;
	unsigned int added; /* originals recorded for it */
};

struct kw_job {
	struct kw_plan p;
	bool recorded;
};

static void save(struct daemon *d)
{
	d->dirty = false;
	state_save(&d->state, d->wqs, d->nwqs, d->kws, d->nkws);
}

/*
 * apply.c's persist(): the originals of every tracker, now; during a
 * pass, at its end, or before its writes when they grew (see run_jobs).
 */
static void persist(void *arg)
{
	struct daemon *d = arg;

	if (d->batch)
		d->dirty = true;
	else
		save(d);
}

static void flush(struct daemon *d)
{
	if (d->dirty)
		save(d);
}

/*
 * Outside the jobs of a pass (no memory for one): an original that grows
 * is on disk before the write it guards, pass or not.
 */
static int wq_apply_now(struct daemon *d, struct wq_track *t,
			const struct wq_plan *p)
{
	bool batch = d->batch;
	int err;

	d->batch = false;
	err = wq_apply(&d->ax, t, p);
	d->batch = batch;
	return err;
}

static int kw_apply_now(struct daemon *d, struct kw_track *k,
			const struct kw_plan *p)
{
	bool batch = d->batch;
	int err;

	d->batch = false;
	err = kw_apply(&d->ax, k, p);
	d->batch = batch;
	return err;
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
	d->ax.persist = persist;
	d->ax.arg = d;
	d->cfg = cfg;
	d->sysfs_mode = sysfs_series_present(root);
}

void daemon_free(struct daemon *d)
{
	free(d->wqs);
	free(d->kws);
	free(d->shared);
	free(d->warned);
	free(d->pool_map);
	free(d->wq_jobs);
	free(d->kw_jobs);
	htab_free(&d->wq_ix);
	htab_free(&d->kw_ix);
	state_free(&d->state);
	config_free(d->cfg);
	memset(d, 0, sizeof(*d));
}

const char *daemon_mode_name(const struct daemon *d)
{
	return d->sysfs_mode ? "sysfs mode" : "fallback mode";
}

int daemon_use_state(struct daemon *d, const char *path)
{
	return state_load(&d->state, path);
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
	d->pool_map_ok = false;
	/* a previous instance changed it: its originals are the real ones */
	state_take(&d->state, name, &v->orig);
	return v;
}

static void wq_drop(struct daemon *d, struct wq_track *t)
{
	int i = t - d->wqs, last = d->nwqs - 1;

	htab_swap_remove(&d->wq_ix, htab_hash_str(t->name), i,
			 htab_hash_str(d->wqs[last].name), last);
	*t = d->wqs[last];
	d->nwqs--;
	d->pool_map_ok = false;
}

/* The pools of a workqueue without a policy rule: no kworker of theirs
 * is a profiled workqueue's alone */
static void note_shared(struct daemon *d, const char *name,
			const struct rule *r)
{
	int ids[MAX_POOLS], n;
	int *v;

	if (r && (r->s.set & WA_BIT(WA_POLICY)))
		return;
	n = wq_read_pool_ids(d->root, name, ids, MAX_POOLS);
	if (n <= 0)
		return;
	v = realloc(d->shared, (d->nshared + n) * sizeof(*v));
	if (!v)
		return;
	memcpy(v + d->nshared, ids, n * sizeof(*ids));
	d->shared = v;
	d->nshared += n;
	d->pool_map_ok = false;
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
	n = wq_read_pool_ids(d->root, t->name, t->pools, MAX_POOLS);
	t->npools = n > 0 ? n : 0;
	d->pool_map_ok = false;
}

/* In a pass: the write waits for every original of the pass (run_jobs) */
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

static void apply_wq(struct daemon *d, const char *name)
{
	const struct rule *r;
	struct wq_track *t = wq_visit(d, name, &r);
	struct wq_plan p;
	int err;

	if (!t)
		return;
	err = plan_wq(&d->ax, t, r, &p);
	if (!err && d->batch && p.todo && !queue_wq(d, &p, r))
		return;
	if (!err && p.todo)
		err = wq_apply_now(d, t, &p);
	else if (!err)
		err = wq_apply(&d->ax, t, &p); /* what is back, if any */
	count(d, err);
	wq_settle(d, t, r);
}

static void plan_one_wq(struct daemon *d, const char *name,
			struct plan_set *ps)
{
	const struct rule *r;
	struct wq_track *t = wq_visit(d, name, &r);
	struct wq_plan p;

	if (!t)
		return;
	if (plan_wq(&d->ax, t, r, &p))
		p.todo = 0;
	else {
		t->failed = p.blocked; /* as the apply would leave it */
		plan_set_add_wq(ps, &p);
	}
	wq_settle(d, t, r);
	/*
	 * Writing the pools' attributes gives the workqueue new pools, whose
	 * workers the kernel creates with them: the workers of the pools it
	 * uses now (shared ones, before its first policy) are not its own.
	 */
	if (wq_find(d, name) == t && (p.todo & ~WA_BIT(WA_MAX_ACTIVE))) {
		t->npools = 0;
		d->pool_map_ok = false;
	}
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
	v->changed = state_take_kw(&d->state, ti->pid, ti->start, &v->orig);
	return v;
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

static void kw_drop(struct daemon *d, struct kw_track *k)
{
	int i = k - d->kws, last = d->nkws - 1;

	htab_swap_remove(&d->kw_ix, kw_hash(k->pid), i,
			 kw_hash(d->kws[last].pid), last);
	*k = d->kws[last];
	d->nkws--;
}

#define POOL_MAP_MAX (1 << 16)

/*
 * pool id -> the profiled workqueue whose worker it is: one lookup per
 * kworker, not a walk over every workqueue's pools (4000 kworkers times
 * 1000 workqueues on a big machine). Rebuilt after the workqueues or
 * their pools change; without it (pool ids past POOL_MAP_MAX) plan.c
 * walks the lists.
 */
static void pool_map_build(struct daemon *d)
{
	size_t i, need = 0;
	int j, *v;

	for (i = 0; i < d->nwqs; i++)
		for (j = 0; j < d->wqs[i].npools; j++)
			if ((size_t)d->wqs[i].pools[j] + 1 > need)
				need = d->wqs[i].pools[j] + 1;
	if (need > POOL_MAP_MAX)
		return;
	v = realloc(d->pool_map, (need ? need : 1) * sizeof(*v));
	if (!v)
		return;
	d->pool_map = v;
	d->npool_map = need;
	for (i = 0; i < need; i++)
		v[i] = -1;
	for (i = d->nwqs; i-- > 0;) {
		const struct wq_track *t = &d->wqs[i];

		if (t->failed || !(t->want.set & WA_BIT(WA_POLICY)))
			continue;
		for (j = 0; j < t->npools; j++)
			if (t->pools[j] >= 0)
				v[t->pools[j]] = i; /* the first in wqs wins */
	}
	/* a pool a workqueue without a policy rule uses is shared */
	for (i = 0; i < d->nshared; i++)
		if (d->shared[i] >= 0 && (size_t)d->shared[i] < need)
			v[d->shared[i]] = -1;
	d->pool_map_ok = true;
}

static int plan_one_kw(struct daemon *d, const struct task_info *ti,
		       struct kw_plan *p)
{
	struct kw_scope sc = { d->cfg, d->wqs, d->nwqs, d->shared, d->nshared,
			       NULL, 0 };

	if (!d->pool_map_ok)
		pool_map_build(d);
	if (d->pool_map_ok) {
		sc.pool_map = d->pool_map;
		sc.npool_map = d->npool_map;
	}
	return plan_kw(&d->ax, &sc, ti, p);
}

static void judged(struct daemon *d, pid_t pid, const char *comm, int result)
{
	if (d->kw_judged)
		d->kw_judged(d->kw_judged_arg, pid, comm, result);
}

static void apply_kw(struct daemon *d, const struct task_info *ti)
{
	struct kw_track *k = kw_find(d, ti->pid);
	struct kw_plan p;
	int err;

	if (k && k->start != ti->start) {
		/* the pid was reused: what we remembered is for a dead task */
		kw_drop(d, k);
		k = NULL;
	}
	/* changed by a previous instance: track it to put it back */
	if (!k && state_has_kw(&d->state, ti->pid))
		k = kw_add(d, ti);
	err = plan_one_kw(d, ti, &p);
	if (p.ambiguous[0])
		warn_ambiguous(d, ti, &p);
	if (!err || err == -ESRCH) {
		/* no rule covers it (any more), or it is gone */
		if (err)
			judged(d, ti->pid, ti->comm, err);
		if (k && !err)
			count(d, kw_restore(&d->ax, k));
		if (k && !k->changed)
			kw_drop(d, k);
		if (k && !err)
			persist(d);
		return;
	}
	if (!k && err > 0)
		k = kw_add(d, ti);
	if (!k || err < 0) {
		count(d, err);
		judged(d, ti->pid, ti->comm, err < 0 ? err : -ENOMEM);
		return;
	}
	snprintf(k->comm, sizeof(k->comm), "%s", ti->comm);
	k->keep = p.keep;
	k->seen = true;
	if (d->batch && p.drift && !queue_kw(d, &p))
		return;
	err = kw_apply_now(d, k, &p);
	judged(d, ti->pid, ti->comm, err);
	if (err == -ESRCH)
		kw_drop(d, k);
	else
		count(d, err);
}

/*
 * The writes of a pass: first every original they guard recorded and
 * persisted at once (a save per workqueue made a pass over 1000 of them
 * quadratic), then the writes.
 */
static void run_wq_jobs(struct daemon *d)
{
	struct wq_track *t;
	struct wq_job *j;
	size_t i;

	for (i = 0; i < d->nwq_jobs; i++) {
		j = &d->wq_jobs[i];
		t = wq_find(d, j->p.name);
		j->added = t ? wq_record(t, &j->p) : 0;
		if (j->added)
			d->dirty = true;
	}
	flush(d);
	for (i = 0; i < d->nwq_jobs; i++) {
		j = &d->wq_jobs[i];
		t = wq_find(d, j->p.name);
		if (!t)
			continue;
		count(d, wq_apply_recorded(&d->ax, t, &j->p, j->added));
		wq_settle(d, t, j->r);
	}
	d->nwq_jobs = 0;
}

static void run_kw_jobs(struct daemon *d)
{
	struct kw_track *k;
	struct kw_job *j;
	size_t i;
	int err;

	for (i = 0; i < d->nkw_jobs; i++) {
		j = &d->kw_jobs[i];
		k = kw_find(d, j->p.pid);
		j->recorded = k && kw_record(k, &j->p);
		if (j->recorded)
			d->dirty = true;
	}
	flush(d);
	for (i = 0; i < d->nkw_jobs; i++) {
		j = &d->kw_jobs[i];
		k = kw_find(d, j->p.pid);
		if (!k)
			continue;
		err = kw_apply_recorded(&d->ax, k, &j->p, j->recorded);
		judged(d, j->p.pid, j->p.comm, err);
		if (err == -ESRCH)
			kw_drop(d, k);
		else
			count(d, err);
	}
	d->nkw_jobs = 0;
}

static int apply_wq_cb(const char *name, void *arg)
{
	apply_wq(arg, name);
	return 0;
}

static int apply_kw_cb(const struct task_info *ti, void *arg)
{
	apply_kw(arg, ti);
	return 0;
}

struct planner {
	struct daemon *d;
	struct plan_set *ps;
};

static int plan_wq_cb(const char *name, void *arg)
{
	struct planner *pl = arg;

	plan_one_wq(pl->d, name, pl->ps);
	return 0;
}

static int plan_kw_cb(const struct task_info *ti, void *arg)
{
	struct planner *pl = arg;
	struct kw_plan p;

	if (plan_one_kw(pl->d, ti, &p) > 0)
		plan_set_add_kw(pl->ps, &p);
	return 0;
}

/* Visit every workqueue with cb; forget those that are gone */
static void scan_wqs(struct daemon *d, wq_visit_fn cb, void *arg)
{
	size_t i;
	int err;

	d->failures = 0;
	d->nshared = 0;
	d->pool_map_ok = false;
	for (i = 0; i < d->nwqs; i++)
		d->wqs[i].seen = false;
	err = for_each_workqueue(d->root, cb, arg);
	if (err) {
		/* a workqueue missing from a failed listing is not gone */
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
	err = for_each_kworker(d->root, apply_kw_cb, d);
	if (err) {
		log_err("cannot list tasks: %s", strerror(-err));
		d->failures++;
		return;
	}
	for (i = 0; i < d->nkws;) {
		if (d->kws[i].seen) {
			i++;
			continue;
		}
		/* gone, or no longer covered by any rule */
		count(d, kw_restore(&d->ax, &d->kws[i]));
		if (d->kws[i].changed) {
			i++;
			continue;
		}
		kw_drop(d, &d->kws[i]);
		persist(d);
	}
}

int daemon_scan(struct daemon *d)
{
	d->scans++;
	d->batch = true;
	scan_wqs(d, apply_wq_cb, d);
	run_wq_jobs(d);
	scan_kworkers(d);
	run_kw_jobs(d);
	d->batch = false;
	/* what shrank (put back, gone) needs no hurry */
	flush(d);
	return d->failures;
}

int daemon_scan_kworkers(struct daemon *d)
{
	d->kw_scans++;
	d->failures = 0;
	d->batch = true;
	scan_kworkers(d);
	run_kw_jobs(d);
	d->batch = false;
	flush(d);
	return d->failures;
}

int daemon_plan(struct daemon *d, struct plan_set *ps)
{
	struct planner pl = { d, ps };

	scan_wqs(d, plan_wq_cb, &pl);
	return for_each_kworker(d->root, plan_kw_cb, &pl);
}

void daemon_report(struct daemon *d, struct report *r)
{
	struct plan_set ps = { 0 };

	daemon_plan(d, &ps);
	report_plans(r, &ps);
	plan_set_free(&ps);
}

int daemon_wq_added(struct daemon *d, const char *name)
{
	const struct rule *r = config_match_wq(d->cfg, name);

	if (!r || strchr(name, '/') || name[0] == '.')
		return 0;
	log_info("new workqueue %s matches [%s]", name, r->section);
	d->failures = 0;
	apply_wq(d, name);
	return d->failures;
}

int daemon_task_new(struct daemon *d, pid_t pid)
{
	struct task_info ti;

	if (task_read(d->root, pid, &ti) || !task_is_kworker(&ti))
		return 0;
	d->failures = 0;
	apply_kw(d, &ti);
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
	persist(d);
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
	config_free(d->cfg);
	d->cfg = cfg;
	log_set_level(cfg->log_level);
	log_info("reloaded %s", path);
	daemon_scan(d);
	return 0;
}

/*
 * The kworkers a previous instance changed that no scan has met (the
 * daemon stops before its first one, or no rule covers them now): put
 * back those whose pid still names the same kernel thread.
 */
static void take_saved_kworkers(struct daemon *d)
{
	struct task_info ti;
	size_t i;

	i = 0;
	while (i < d->state.nk) {
		pid_t pid = d->state.kv[i].pid;

		if (task_read(d->root, pid, &ti) || !task_is_kworker(&ti) ||
		    ti.start != d->state.kv[i].start || kw_find(d, pid)) {
			i++;
			continue;
		}
		/* kw_add() takes it out of the list */
		if (!kw_add(d, &ti))
			break;
	}
}

int daemon_restore(struct daemon *d)
{
	int fails = 0;
	size_t i, keep;

	take_saved_kworkers(d);
	/* one save at the end: only what was confirmed back goes */
	d->batch = true;
	for (i = 0, keep = 0; i < d->nwqs; i++) {
		if (wq_restore(&d->ax, &d->wqs[i]))
			fails++;
		/* what could not be put back stays, for a next instance */
		if (d->wqs[i].orig.set)
			d->wqs[keep++] = d->wqs[i];
	}
	d->nwqs = keep;
	d->pool_map_ok = false;
	for (i = 0, keep = 0; i < d->nkws; i++) {
		if (kw_restore(&d->ax, &d->kws[i]))
			fails++;
		if (d->kws[i].changed)
			d->kws[keep++] = d->kws[i];
	}
	d->nkws = keep;
	d->batch = false;
	reindex(d);
	/* what is left of a previous instance is gone with its tasks */
	state_forget(&d->state);
	save(d);
	return fails;
}
