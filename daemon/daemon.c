// SPDX-License-Identifier: GPL-2.0-only
#include "daemon.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void daemon_init(struct daemon *d, const char *root, const struct sys_ops *ops,
		 struct config *cfg)
{
	memset(d, 0, sizeof(*d));
	d->root = root;
	d->ax.root = root;
	d->ax.ops = ops;
	d->cfg = cfg;
	d->sysfs_mode = sysfs_series_present(root);
}

void daemon_free(struct daemon *d)
{
	free(d->wqs);
	free(d->saved);
	free(d->kws);
	config_free(d->cfg);
	memset(d, 0, sizeof(*d));
}

const char *daemon_mode_name(const struct daemon *d)
{
	return d->sysfs_mode ? "sysfs mode" : "fallback mode";
}

static struct wq_track *track_find(struct wq_track *v, size_t n,
				   const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

static struct wq_track *wq_find(struct daemon *d, const char *name)
{
	return track_find(d->wqs, d->nwqs, name);
}

/* originals a previous instance left for @name */
static struct wq_track *saved_find(struct daemon *d, const char *name)
{
	return track_find(d->saved, d->nsaved, name);
}

static struct wq_track *wq_add(struct daemon *d, const char *name)
{
	struct wq_track *v = realloc(d->wqs, (d->nwqs + 1) * sizeof(*v));
	struct wq_track *saved = saved_find(d, name);

	if (!v)
		return NULL;
	d->wqs = v;
	v += d->nwqs++;
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	/* a previous instance changed it: its originals are the real ones */
	if (saved)
		v->orig = saved->orig;
	return v;
}

/*
 * One line per changed attribute: "WORKQUEUE ATTRIBUTE VALUE", the value as
 * sysfs takes it. Originals of saved workqueues not tracked now (a module
 * not loaded again yet) are kept. Written to a temporary file and renamed,
 * so that a crash never leaves half a file.
 */
static void save_state(struct daemon *d)
{
	char tmp[WQRT_PATH_MAX + 8], val[256];
	size_t i, n = 0;
	FILE *f;
	int a;

	if (!d->state_path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.new", d->state_path);
	f = fopen(tmp, "we");
	if (!f) {
		log_warn("cannot write %s: %s", tmp, strerror(errno));
		return;
	}
	for (i = 0; i < d->nwqs + d->nsaved; i++) {
		const struct wq_track *t = i < d->nwqs ? &d->wqs[i] :
							  &d->saved[i - d->nwqs];

		if (i >= d->nwqs && wq_find(d, t->name))
			continue;
		for (a = 0; a < WA_NR; a++) {
			if (!(t->orig.set & WA_BIT(a)))
				continue;
			attr_format_sysfs(a, &t->orig, val, sizeof(val));
			fprintf(f, "%s %s %s\n", t->name, attr_name(a), val);
			n++;
		}
	}
	if (fclose(f) || (n ? rename(tmp, d->state_path) :
			      (unlink(tmp), unlink(d->state_path))) < 0) {
		if (errno != ENOENT)
			log_warn("cannot write %s: %s", d->state_path,
				    strerror(errno));
	}
}

int daemon_use_state(struct daemon *d, const char *path)
{
	char name[WQ_NAME_MAX], attr[32], val[256];
	struct wq_track *t;
	FILE *f;
	int a;

	d->state_path = path;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fscanf(f, "%63s %31s %255s", name, attr, val) == 3) {
		for (a = 0; a < WA_NR; a++)
			if (!strcmp(attr, attr_name(a)))
				break;
		t = saved_find(d, name);
		if (!t) {
			t = realloc(d->saved, (d->nsaved + 1) * sizeof(*t));
			if (!t)
				break;
			d->saved = t;
			t += d->nsaved++;
			memset(t, 0, sizeof(*t));
			snprintf(t->name, sizeof(t->name), "%s", name);
		}
		if (a == WA_NR || attr_parse_sysfs(a, val, &t->orig))
			log_warn("%s: ignoring '%s %s %s'", path, name, attr,
				    val);
	}
	fclose(f);
	if (d->nsaved)
		log_notice("%s: originals of %zu workqueue(s) from a previous run",
			   path, d->nsaved);
	return 0;
}

static void wq_drop(struct daemon *d, struct wq_track *t)
{
	*t = d->wqs[--d->nwqs];
}

/*
 * Attributes written through sysfs. Where the workqueue has no policy
 * attribute (a kernel without the series, or a workqueue the series does
 * not cover), policy and rtprio go to its kworkers with sched_setattr().
 */
static void wq_set_want(struct daemon *d, struct wq_track *t,
			const struct rule *r)
{
	unsigned int all = (1u << WA_NR) - 1;
	char path[WQRT_PATH_MAX];

	t->want = r->s;
	t->sysfs = all;
	if (path_fmt(path, sizeof(path), d->root,
		     "/sys/devices/virtual/workqueue/%s/policy", t->name) ||
	    access(path, F_OK))
		t->sysfs &= ~(WA_BIT(WA_POLICY) | WA_BIT(WA_RTPRIO));
}

static void wq_refresh_pools(struct daemon *d, struct wq_track *t)
{
	int n = wq_read_pool_ids(d->root, t->name, t->pools, MAX_POOLS);

	t->npools = n > 0 ? n : 0;
}

/* Apply (rep NULL) or report one workqueue that matches rule r */
static int handle_wq(struct daemon *d, const char *name, const struct rule *r,
		     struct report *rep)
{
	struct wq_track *t = wq_find(d, name);
	int err = 0;

	if (!t)
		t = wq_add(d, name);
	if (!t)
		return -ENOMEM;
	wq_set_want(d, t, r);
	t->seen = true;
	if (rep) {
		struct wq_state st;
		struct settings target;

		if (wq_read_state(&d->ax, name, &st))
			return 0;
		wq_target(t, &st, &target);
		report_wq(rep, name, r, &target, &st);
	} else {
		err = wq_apply(&d->ax, t);
		if (err && err != -ENOENT)
			d->failures++;
		save_state(d);
	}
	wq_refresh_pools(d, t);
	return 0;
}

static struct kw_track *kw_find(struct daemon *d, pid_t pid)
{
	size_t i;

	for (i = 0; i < d->nkws; i++)
		if (d->kws[i].pid == pid)
			return &d->kws[i];
	return NULL;
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
	return v;
}

static void kw_drop(struct daemon *d, struct kw_track *k)
{
	*k = d->kws[--d->nkws];
}

static void want_sched(struct settings *want, const struct settings *from)
{
	int a;

	memset(want, 0, sizeof(*want));
	for (a = 0; a < WA_NR; a++)
		if ((from->set & WA_BIT(a)) && (WA_BIT(a) & WA_SCHED_MASK))
			settings_copy_attr(want, from, a);
}

/*
 * Which settings does this kworker get, and for whom? [kworker:] sections
 * first; then the rescuer of a profiled workqueue; then the workers of a
 * profiled workqueue's unbound pools (pool_ids, sysfs mode). A [wq:] rule
 * reaches kworkers only when it sets a policy: a nice-only rule is the
 * workqueue's nice attribute and nothing more.
 */
static bool kworker_want(struct daemon *d, const struct task_info *ti,
			 struct settings *want, bool *keep, char *owner,
			 size_t size)
{
	const struct wq_track *best;
	const struct rule *r;
	struct kw_class c;
	size_t i;
	int p;

	kworker_classify(ti->comm, &c);
	if (c.kind == KW_NONE || c.kind == KW_DYING)
		return false;
	r = config_match_kworker(d->cfg, c.base);
	if (r) {
		want_sched(want, &r->s);
		*keep = false;
		snprintf(owner, size, "[%s]", r->section);
		return want->set != 0;
	}
	/* the longest name wins: "kworker/R-nvme-wq" is nvme-wq's, not nvme's */
	best = NULL;
	for (i = 0; i < d->nwqs; i++) {
		const struct wq_track *t = &d->wqs[i];

		if (!t->failed && (t->want.set & WA_BIT(WA_POLICY)) &&
		    kworker_rescues(&c, t->name) &&
		    (!best || strlen(t->name) > strlen(best->name)))
			best = t;
	}
	if (best) {
		want_sched(want, &best->want);
		*keep = false;
		snprintf(owner, size, "rescuer of %s", best->name);
		return true;
	}
	for (i = 0; c.kind == KW_UNBOUND && i < d->nwqs; i++) {
		const struct wq_track *t = &d->wqs[i];

		if (t->failed || !(t->want.set & WA_BIT(WA_POLICY)))
			continue;
		for (p = 0; p < t->npools; p++) {
			if (t->pools[p] != c.pool)
				continue;
			want_sched(want, &t->want);
			*keep = true;
			snprintf(owner, size, "pool %d of %s", c.pool, t->name);
			return true;
		}
	}
	return false;
}

static int handle_kworker(struct daemon *d, const struct task_info *ti,
			  struct report *rep)
{
	struct kw_track *k = kw_find(d, ti->pid);
	struct settings want;
	char owner[128];
	bool keep;
	int err;

	if (k && k->start != ti->start) {
		/* the pid was reused: what we remembered is for a dead task */
		kw_drop(d, k);
		k = NULL;
	}
	if (!kworker_want(d, ti, &want, &keep, owner, sizeof(owner))) {
		if (k && !rep) {
			kw_restore(&d->ax, k);
			kw_drop(d, k);
		}
		return 0;
	}
	if (!k)
		k = kw_add(d, ti);
	if (!k)
		return -ENOMEM;
	snprintf(k->comm, sizeof(k->comm), "%s", ti->comm);
	k->want = want;
	k->keep = keep;
	k->seen = true;
	if (rep) {
		struct sched_val cur, target;

		if (d->ax.ops->sched_get(d->ax.ops->ctx, k->pid, &cur))
			return 0;
		kw_target(&k->want, k->changed ? &k->orig : &cur, &target);
		report_kw(rep, k, owner, &cur, &target);
		return 0;
	}
	err = kw_apply(&d->ax, k);
	if (err == -ESRCH)
		kw_drop(d, k);
	else if (err < 0)
		d->failures++;
	return 0;
}

struct scan_arg {
	struct daemon *d;
	struct report *rep;
};

static int wq_cb(const char *name, void *arg)
{
	struct scan_arg *sa = arg;
	const struct rule *r = config_match_wq(sa->d->cfg, name);
	struct wq_track *t;

	if (r)
		return handle_wq(sa->d, name, r, sa->rep);
	t = wq_find(sa->d, name);
	if (t && !sa->rep) {
		/* no longer covered: put it back */
		if (wq_restore(&sa->d->ax, t))
			sa->d->failures++;
		wq_drop(sa->d, t);
	}
	return 0;
}

static int kw_cb(const struct task_info *ti, void *arg)
{
	struct scan_arg *sa = arg;

	return handle_kworker(sa->d, ti, sa->rep);
}

static void scan_kworkers(struct daemon *d, struct report *rep)
{
	struct scan_arg sa = { d, rep };
	size_t i;

	for (i = 0; i < d->nkws; i++)
		d->kws[i].seen = false;
	for_each_kworker(d->root, kw_cb, &sa);
	for (i = 0; i < d->nkws;) {
		if (d->kws[i].seen) {
			i++;
			continue;
		}
		/* gone, or no longer covered by any rule */
		if (!rep)
			kw_restore(&d->ax, &d->kws[i]);
		kw_drop(d, &d->kws[i]);
	}
}

int daemon_scan(struct daemon *d, struct report *rep)
{
	struct scan_arg sa = { d, rep };
	size_t i;
	int err;

	d->failures = 0;
	for (i = 0; i < d->nwqs; i++)
		d->wqs[i].seen = false;
	err = for_each_workqueue(d->root, wq_cb, &sa);
	if (err)
		log_warn("cannot list workqueues: %s", strerror(-err));
	for (i = 0; i < d->nwqs;) {
		if (d->wqs[i].seen) {
			i++;
			continue;
		}
		/* the workqueue is gone (module unloaded): nothing to restore */
		wq_drop(d, &d->wqs[i]);
	}
	scan_kworkers(d, rep);
	return d->failures;
}

int daemon_wq_added(struct daemon *d, const char *name)
{
	const struct rule *r = config_match_wq(d->cfg, name);

	if (!r || strchr(name, '/') || name[0] == '.')
		return 0;
	log_info("new workqueue %s matches [%s]", name, r->section);
	d->failures = 0;
	handle_wq(d, name, r, NULL);
	/* its rescuer was forked before the workqueue showed up in sysfs */
	scan_kworkers(d, NULL);
	return d->failures;
}

int daemon_task_new(struct daemon *d, pid_t pid)
{
	struct task_info ti;

	if (task_read(d->root, pid, &ti) || !task_is_kworker(&ti))
		return 0;
	d->failures = 0;
	handle_kworker(d, &ti, NULL);
	return d->failures;
}

bool daemon_task_unnamed(struct daemon *d, pid_t pid)
{
	struct task_info ti;

	return !task_read(d->root, pid, &ti) && ti.ppid == KTHREADD_PID &&
	       !strcmp(ti.comm, "kthreadd");
}

int daemon_reload(struct daemon *d, const char *path)
{
	struct strlist errors = { 0 };
	struct config *cfg;
	size_t i;
	int n;

	n = config_load(path, d->root, &cfg, &errors);
	for (i = 0; i < errors.n; i++)
		log_err("%s", errors.v[i]);
	strlist_free(&errors);
	if (n) {
		log_err("reload: %s has %d error(s); the old profiles stay in force",
			path, n);
		return n;
	}
	for (i = 0; i < cfg->warnings.n; i++)
		log_warn("%s", cfg->warnings.v[i]);
	config_free(d->cfg);
	d->cfg = cfg;
	log_set_level(cfg->log_level);
	log_info("reloaded %s", path);
	daemon_scan(d, NULL);
	return 0;
}

int daemon_restore(struct daemon *d)
{
	int fails = 0;
	size_t i;

	for (i = 0; i < d->nwqs; i++)
		if (wq_restore(&d->ax, &d->wqs[i]))
			fails++;
	for (i = 0; i < d->nkws; i++)
		if (kw_restore(&d->ax, &d->kws[i]))
			fails++;
	d->nwqs = 0;
	d->nkws = 0;
	/* everything is back: nothing for a next instance to take over */
	d->nsaved = 0;
	save_state(d);
	return fails;
}
