// SPDX-License-Identifier: GPL-2.0-only
#include "config_warn.h"
#include "common.h"
#include "inventory.h"

#include <stdio.h>
#include <string.h>

static void throttle_warning(const char *root, struct config *c)
{
	char path[WQRT_PATH_MAX], buf[32];
	size_t i;

	if (path_fmt(path, sizeof(path), root,
		     "/proc/sys/kernel/sched_rt_runtime_us") ||
	    read_text(path, buf, sizeof(buf)) || strcmp(buf, "-1"))
		return;
	for (i = 0; i < c->nrules; i++) {
		const struct rule *r = &c->rules[i];

		if (r->glob && (r->s.set & WA_BIT(WA_RTPRIO)) &&
		    r->s.val[WA_RTPRIO] >= HIGH_PRIO_THRESHOLD)
			strlist_add(
				&c->warnings,
				"%s:%d: [%s]: rtprio %ld on a glob while RT throttling is off (sched_rt_runtime_us = -1): a runaway work item can lock up its CPUs",
				r->file, r->line, r->section,
				r->s.val[WA_RTPRIO]);
	}
}

/* The name of inv closest to pattern, if it is a likely typo of it */
static const char *closest(const struct inventory *inv, const char *pattern)
{
	unsigned int best = 3, d;
	const char *pick = NULL;
	size_t i;

	for (i = 0; i < inv->n; i++) {
		d = edit_distance(pattern, inv->v[i].name);
		if (d < best) {
			best = d;
			pick = inv->v[i].name;
		}
	}
	return pick && best < strlen(pattern) ? pick : NULL;
}

static void warn_wq(const struct inventory *inv, const struct rule *r,
		    struct strlist *out)
{
	const struct inv_wq *hidden = NULL;
	const char *typo;
	size_t i;

	for (i = 0; i < inv->n; i++) {
		const struct inv_wq *w = &inv->v[i];

		if (!config_rule_matches(r, w->name))
			continue;
		if (w->in_sysfs)
			return;
		if (!hidden)
			hidden = w;
	}
	if (hidden && hidden->kind == WQK_PERCPU)
		strlist_add(
			out,
			"%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			": %s is per-cpu (its work runs in the CPUs' shared kworkers, which no workqueue attribute reaches)",
			r->file, r->line, r->section, hidden->name);
	else if (hidden)
		strlist_add(
			out,
			"%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			": %s is not in sysfs: it needs workqueue.sysfs=%s%s on the kernel command line (a kernel with the wqrt series)%s",
			r->file, r->line, r->section, hidden->name,
			hidden->name, hidden->truncated ? "*" : "",
			hidden->kind == WQK_UNKNOWN ?
				", if it is unbound or ordered" :
				"");
	else if (!r->glob && (typo = closest(inv, r->pattern)))
		strlist_add(out,
			    "%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			    " (did you mean `%s`?)",
			    r->file, r->line, r->section, typo);
	else
		strlist_add(
			out,
			"%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			" now (not loaded yet, or out of reach: see wqrtctl list --all)",
			r->file, r->line, r->section);
}

struct kw_names {
	struct strlist names; /* the kworkers' names, without "+desc" */
};

static int add_kw_name(const struct task_info *t, void *arg)
{
	struct kw_names *k = arg;
	struct kw_class c;

	kworker_classify(t->comm, &c);
	if (c.kind != KW_NONE)
		strlist_add(&k->names, "%s", c.base);
	return 0;
}

static void warn_kworker(const struct kw_names *k, const struct rule *r,
			 struct strlist *out)
{
	size_t i;

	for (i = 0; i < k->names.n; i++)
		if (config_rule_matches(r, k->names.v[i]))
			return;
	strlist_add(
		out,
		"%s:%d: [%s]: matches no kworker now (their names: kworker/CPU:N, kworker/CPU:NH, kworker/uPOOL:N, kworker/R-WORKQUEUE; ps -e -o comm | grep kworker)",
		r->file, r->line, r->section);
}

/*
 * A [wq:] section that matches no workqueue in sysfs now: a typo, a
 * workqueue the kernel keeps out of sysfs, or one whose module is not
 * loaded yet; a [kworker:] section that matches no kworker. Warnings, not
 * errors: the module may come later. Nothing where sysfs cannot be listed
 * (a build machine).
 */
static void unmatched_warning(const char *root, const struct config *cfg,
			      struct strlist *out)
{
	struct kw_names k = { 0 };
	struct inventory inv;
	bool kworkers = false;
	size_t i;

	if (inventory_scan(root, true, &inv))
		return;
	for (i = 0; i < cfg->nrules; i++) {
		const struct rule *r = &cfg->rules[i];

		if (r->kind == RULE_WQ) {
			warn_wq(&inv, r, out);
			continue;
		}
		/* /proc unreadable: nothing can be said */
		if (!kworkers && for_each_kworker(root, add_kw_name, &k))
			break;
		kworkers = true;
		warn_kworker(&k, r, out);
	}
	strlist_free(&k.names);
	inventory_free(&inv);
}

void config_warn(const char *root, struct config *c)
{
	throttle_warning(root, c);
	unmatched_warning(root, c, &c->warnings);
}
