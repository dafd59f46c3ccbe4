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
	else if (!w->series)
		snprintf(
			buf, size,
			"not in sysfs: its driver does not put it there (WQ_SYSFS), and only a kernel with the wqrt series can (wqrtctl check-kernel)");
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
	struct inventory *inv;
	bool series; /* sysfs_series_present() */
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
	char path[WQRT_PATH_MAX];
	struct inv_wq *w = inv_add(a->inv, name);

	if (!w)
		return -ENOMEM;
	w->in_sysfs = true;
	w->kind = sysfs_kind(a->root, name);
	wq_read_state(a->root, name, &w->st);
	if (!wq_path(path, sizeof(path), a->root, name, "pool_ids"))
		read_text_alloc(path, &w->pool_ids);
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
	w->series = a->series;
	snprintf(w->seen_as, sizeof(w->seen_as), "%s", comm);
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

int inventory_scan(const char *root, bool hidden, struct inventory *inv)
{
	struct scan_arg a = { root, inv, sysfs_series_present(root) };
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
	size_t i;

	for (i = 0; i < inv->n; i++)
		free(inv->v[i].pool_ids);
	free(inv->v);
	memset(inv, 0, sizeof(*inv));
}
