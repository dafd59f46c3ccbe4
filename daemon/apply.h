/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Applying settings to one workqueue (sysfs) or one kworker
 * (sched_setattr), verifying them, and putting the originals back.
 */
#ifndef WQRT_APPLY_H
#define WQRT_APPLY_H

#include "attr.h"
#include "discover.h"
#include "sysops.h"

struct apply_ctx {
	const char *root;
	const struct sys_ops *ops;
};

struct wq_state {
	struct settings cur; /* what sysfs shows now */
	unsigned int present; /* attributes that exist */
	unsigned int writable; /* attributes that exist and can be written */
};

struct wq_track {
	char name[WQ_NAME_MAX];
	struct settings want; /* what the rule asks for */
	struct settings orig; /* .set: attributes wqrtd changed; the old values */
	unsigned int warned; /* missing attributes already reported */
	unsigned int sysfs; /* attributes handled through sysfs */
	int pools[MAX_POOLS];
	int npools;
	bool failed;
	bool seen; /* found in the last scan */
};

struct kw_track {
	pid_t pid;
	unsigned long long start;
	char comm[COMM_MAX];
	struct settings want; /* WA_POLICY, WA_RTPRIO, WA_NICE */
	struct sched_val orig;
	bool changed; /* orig holds what to put back */
	bool keep; /* kernel-managed: never put back */
	bool seen;
};

int wq_read_state(const struct apply_ctx *ax, const char *wq,
		  struct wq_state *st);
/* The values t should end up with: want, then orig for what is no longer
 * wanted, and the rtprio implied by a policy change. */
void wq_target(const struct wq_track *t, const struct wq_state *st,
	       struct settings *target);
/*
 * Bring the workqueue to wq_target(). A failing write or a read-back that
 * differs puts back every attribute changed in this call and returns
 * -errno; t->orig only grows with what was really changed.
 */
int wq_apply(const struct apply_ctx *ax, struct wq_track *t);
/* Put every attribute wqrtd changed back; forget them. */
int wq_restore(const struct apply_ctx *ax, struct wq_track *t);

/* Target scheduling for a kworker given its current values. */
void kw_target(const struct settings *want, const struct sched_val *cur,
	       struct sched_val *target);
/* 0, 1 when it was changed, -ESRCH when gone or reused, other -errno. */
int kw_apply(const struct apply_ctx *ax, struct kw_track *k);
int kw_restore(const struct apply_ctx *ax, struct kw_track *k);

#endif
