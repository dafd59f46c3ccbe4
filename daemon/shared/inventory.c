// SPDX-License-Identifier: GPL-2.0-only
#include "inventory.h"
#include "common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The kernel's WORKER_DESC_LEN - 1: a longer description is cut */
#define WORKER_DESC_MAX 31

static const char *const kind_names[] = {
	[WQK_UNBOUND] = "unbound",
	[WQK_ORDERED] = "ordered",
	[WQK_PERCPU] = "per-cpu",
	[WQK_UNKNOWN] = "unknown",
};

const char *wq_kind_name(enum wq_kind k)
{
	return k <= WQK_UNKNOWN ? kind_names[k] : "?";
}

bool inv_reachable(const struct inv_wq *w)
{
	return w->in_sysfs && w->kind != WQK_PERCPU;
}

const char *inv_reason(const struct inv_wq *w, char *buf, size_t size)
{
	if (w->kind == WQK_PERCPU)
		snprintf(
			buf, size,
			"per-cpu: its work runs in the CPUs' shared kworkers, which no workqueue attribute reaches");
	else if (inv_reachable(w))
		snprintf(buf, size, "reachable");
	else if (w->kind == WQK_UNKNOWN)
		snprintf(
			buf, size,
			"not in sysfs; if it is unbound or ordered, boot with workqueue.sysfs=%s%s",
			w->name, w->truncated ? "*" : "");
	else
		snprintf(buf, size,
			 "not in sysfs: boot with workqueue.sysfs=%s%s",
			 w->name, w->truncated ? "*" : "");
	return buf;
}

static struct inv_wq *inv_add(struct inventory *inv, const char *name)
{
	struct inv_wq *v = realloc(inv->v, (inv->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	inv->v = v;
	v += inv->n++;
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", name);
	return v;
}

struct scan_arg {
	const char *root;
	const struct config *cfg;
	struct inventory *inv;
};

/*
 * The kind sysfs shows: per_cpu says per-cpu or not; of the others, an
 * ordered workqueue's max_active is read-only and 1 (the series makes it
 * so, and a kernel without it keeps ordered workqueues out of sysfs). An
 * unbound workqueue that only workqueue.sysfs= put there has a read-only
 * max_active too, but the one its driver chose.
 */
static enum wq_kind sysfs_kind(const char *root, const char *name)
{
	char path[WQRT_PATH_MAX], buf[16];
	struct stat st;

	if (!wq_path(path, sizeof(path), root, name, "per_cpu") &&
	    !read_text(path, buf, sizeof(buf)) && !strcmp(buf, "1"))
		return WQK_PERCPU;
	if (!wq_path(path, sizeof(path), root, name, "max_active") &&
	    !stat(path, &st) && !(st.st_mode & 0222) &&
	    !read_text(path, buf, sizeof(buf)) && !strcmp(buf, "1"))
		return WQK_ORDERED;
	return WQK_UNBOUND;
}

static int add_sysfs(const char *name, void *arg)
{
	struct scan_arg *a = arg;
	struct apply_ctx ax = { .root = a->root };
	char path[WQRT_PATH_MAX];
	struct inv_wq *w = inv_add(a->inv, name);

	if (!w)
		return -ENOMEM;
	w->in_sysfs = true;
	w->kind = sysfs_kind(a->root, name);
	wq_read_state(&ax, name, &w->st);
	if (!wq_path(path, sizeof(path), a->root, name, "pool_ids"))
		read_text(path, w->pool_ids, sizeof(w->pool_ids));
	w->rule = a->cfg ? config_match_wq(a->cfg, name) : NULL;
	return 0;
}

/* A name already listed, or (cut short) the start of one that is */
static struct inv_wq *inv_find(struct inventory *inv, const char *name,
			       bool truncated)
{
	size_t i, len = strlen(name);

	for (i = 0; i < inv->n; i++) {
		struct inv_wq *w = &inv->v[i];

		if (!strcmp(w->name, name))
			return w;
		if (truncated && !strncmp(w->name, name, len))
			return w;
		if (w->truncated && !strncmp(name, w->name, strlen(w->name)))
			return w;
	}
	return NULL;
}

static void add_hidden(struct scan_arg *a, const char *name, bool truncated,
		       enum wq_kind kind, const char *comm)
{
	struct inv_wq *w = inv_find(a->inv, name, truncated);

	if (w) {
		/* what a kworker ran on tells more than a rescuer's name */
		if (!w->in_sysfs && w->kind == WQK_UNKNOWN &&
		    kind != WQK_UNKNOWN)
			w->kind = kind;
		/* the whole name rather than the cut one */
		if (!w->in_sysfs && w->truncated && !truncated) {
			snprintf(w->name, sizeof(w->name), "%s", name);
			w->truncated = false;
		}
		return;
	}
	w = inv_add(a->inv, name);
	if (!w)
		return;
	w->kind = kind;
	w->truncated = truncated;
	snprintf(w->seen_as, sizeof(w->seen_as), "%s", comm);
	w->rule = a->cfg ? config_match_wq(a->cfg, name) : NULL;
}

static int add_from_kworker(const struct task_info *t, void *arg)
{
	struct scan_arg *a = arg;
	const char *desc;
	struct kw_class c;

	kworker_classify(t->comm, &c);
	if (c.kind == KW_RESCUER) {
		add_hidden(a, c.rescued, c.truncated, WQK_UNKNOWN, t->comm);
		return 0;
	}
	if (c.kind != KW_PERCPU && c.kind != KW_UNBOUND)
		return 0;
	desc = t->comm + strlen(c.base);
	if (*desc != '+' && *desc != '-')
		return 0;
	desc++;
	if (!*desc)
		return 0;
	/* work of a per-cpu workqueue runs in per-cpu pools, the rest not */
	add_hidden(a, desc, strlen(desc) >= WORKER_DESC_MAX,
		   c.kind == KW_PERCPU ? WQK_PERCPU : WQK_UNBOUND, t->comm);
	return 0;
}

static int by_name(const void *x, const void *y)
{
	const struct inv_wq *a = x, *b = y;

	return strcmp(a->name, b->name);
}

int inventory_scan(const char *root, const struct config *cfg, bool hidden,
		   struct inventory *inv)
{
	struct scan_arg a = { root, cfg, inv };
	int err;

	memset(inv, 0, sizeof(*inv));
	err = for_each_workqueue(root, add_sysfs, &a);
	if (err)
		return err;
	/* /proc unreadable: what sysfs showed is still right */
	if (hidden)
		for_each_kworker(root, add_from_kworker, &a);
	if (inv->n)
		qsort(inv->v, inv->n, sizeof(*inv->v), by_name);
	return 0;
}

void inventory_free(struct inventory *inv)
{
	free(inv->v);
	memset(inv, 0, sizeof(*inv));
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

void inventory_warn_unmatched(const char *root, const struct config *cfg,
			      struct strlist *out)
{
	struct kw_names k = { 0 };
	struct inventory inv;
	bool kworkers = false;
	size_t i;

	if (inventory_scan(root, NULL, true, &inv))
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
