/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding workqueues (sysfs) and kworkers (/proc), and telling kworkers
 * apart by name.
 */
#ifndef WQRT_DISCOVER_H
#define WQRT_DISCOVER_H

#include "attr.h"
#include "task.h"
#include "util.h"

#define TASK_COMM_LEN 16
#define WQ_NAME_MAX 64

enum kw_kind {
	KW_NONE, /* not a kworker */
	KW_PERCPU, /* kworker/3:1, kworker/3:1H */
	KW_UNBOUND, /* kworker/u5:2 */
	KW_RESCUER, /* kworker/R-name */
	KW_DYING, /* kworker/dying */
	KW_OTHER, /* kworker/... we cannot read (truncated) */
};

struct kw_class {
	enum kw_kind kind;
	int cpu; /* KW_PERCPU */
	int pool; /* KW_UNBOUND */
	int id; /* worker id in its pool */
	bool highpri; /* "H" suffix */
	char base[COMM_MAX]; /* the name without a "+desc"/"-desc" suffix */
	const char *rescued; /* KW_RESCUER: into base, after "kworker/R-" */
	bool truncated; /* KW_RESCUER: base is a 15-byte task comm */
};

void kworker_classify(const char *comm, struct kw_class *c);
/* Could this rescuer belong to workqueue wq (allowing truncation)? */
bool kworker_rescues(const struct kw_class *c, const char *wq);

struct sys_ops;

/*
 * Visit every kworker of ROOT/proc, every workqueue of ROOT/sys (a
 * directory with a max_active attribute); cb's non-zero return stops
 * the walk and is returned. A listing that fails (readdir, an lstat or a
 * read other than ENOENT: the entry went away) returns -errno: what it
 * did not visit is not gone. A task whose stat cannot be read is said
 * (logged, with its path) and left out, the others visited, and the
 * listing returns its -errno at the end. The _ops variants list through
 * ops.
 */
typedef int (*task_visit_fn)(const struct task_info *t, void *arg);
int for_each_kworker(const char *root, task_visit_fn cb, void *arg);
int for_each_kworker_ops(const char *root, const struct sys_ops *ops,
			 task_visit_fn cb, void *arg);

typedef int (*wq_visit_fn)(const char *name, void *arg);
int for_each_workqueue(const char *root, wq_visit_fn cb, void *arg);
int for_each_workqueue_ops(const char *root, const struct sys_ops *ops,
			   wq_visit_fn cb, void *arg);

/* ROOT/sys/devices/virtual/workqueue/WQ[/ATTR]: 0 or -ENAMETOOLONG */
int wq_path(char *buf, size_t size, const char *root, const char *wq,
	    const char *attr);

/* What sysfs shows for one workqueue */
struct wq_state {
	struct settings cur; /* the values read */
	unsigned int present; /* attributes that exist and could be read */
	unsigned int writable; /* ... and can be written */
};

/*
 * Read the attributes of workqueue wq under root into st. 0, or -ENOENT
 * when the workqueue is gone.
 */
int wq_read_state(const char *root, const char *wq, struct wq_state *st);
/* Attributes of s that exist in st and differ from it */
unsigned int wq_differing(const struct settings *s, const struct wq_state *st);

/* The workqueue series is present: "policy" exists for some workqueue. */
bool sysfs_series_present(const char *root);

/*
 * pool_ids: "0:5 1:7" -> {5, 7}, as many as there are (512 pods with
 * affinity_scope = cpu on a large machine), in *ids (free it; NULL for
 * none); returns the count or -errno (-EINVAL: not pool_ids).
 */
int parse_pool_ids(const char *text, int **ids);
int wq_read_pool_ids(const char *root, const char *wq, int **ids);

#endif
