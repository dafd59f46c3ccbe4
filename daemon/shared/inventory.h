/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What workqueues there are, for wqrtctl list: those in sysfs (what wqrtd
 * can reach) with their kind and attributes, and those the kernel keeps
 * out of reach, with the reason.
 *
 * No interface lists every workqueue of a running kernel (the kernel's
 * tools/workqueue/wq_dump.py reads its memory with drgn). Workqueues that
 * are not in sysfs are found where their names show in /proc, as comms of
 * kernel threads: the rescuer "kworker/R-NAME" of a WQ_MEM_RECLAIM
 * workqueue (cut to 15 bytes where only the task name shows), and the
 * "+NAME"/"-NAME" a kworker carries after running work of NAME (cut to 31
 * bytes). A workqueue that has run nothing since boot and has no rescuer
 * is not found; a work function may
 * set its own description (writeback's "flush-8:0"), so those names are
 * hints, marked with the kworker that showed them.
 */
#ifndef WQRT_INVENTORY_H
#define WQRT_INVENTORY_H

#include "discover.h"

enum wq_kind {
	WQK_UNBOUND,
	WQK_ORDERED,
	WQK_PERCPU,
	WQK_UNKNOWN, /* only its rescuer was seen */
};

struct inv_wq {
	char name[WQ_NAME_MAX];
	enum wq_kind kind;
	bool in_sysfs;
	bool truncated; /* a name from a comm that may be cut short */
	struct wq_state st; /* in sysfs: the attributes read */
	char *pool_ids; /* in sysfs, with the series: as read (owned) */
	char seen_as[COMM_MAX]; /* not in sysfs: the kworker that named it */
	/*
	 * not in sysfs: the kernel has the wqrt series, whose
	 * workqueue.sysfs= can put it there (a kernel without it cannot)
	 */
	bool series;
};

struct inventory {
	struct inv_wq *v; /* sorted by name */
	size_t n;
};

/*
 * Every workqueue in ROOT's sysfs; with hidden, also those seen in
 * ROOT/proc only. 0 or -errno (sysfs cannot be listed).
 */
int inventory_scan(const char *root, bool hidden, struct inventory *inv);
void inventory_free(struct inventory *inv);

/* "unbound", "ordered", "per-cpu", "unknown" */
const char *wq_kind_name(enum wq_kind k);
/* Can wqrtd give it a profile: in sysfs, and not per-cpu */
bool inv_reachable(const struct inv_wq *w);
/* Why it cannot be reached, and what to do about it */
const char *inv_reason(const struct inv_wq *w, char *buf, size_t size);

#endif
