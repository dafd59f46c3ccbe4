/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Carrying out a plan (plan.h): write what it says, read back, put back
 * what was written when anything fails. Nothing here decides what to
 * change. Errors are sorted as irqbalance does: transient ones (EBUSY,
 * EAGAIN) are retried on the next scan and are no failure; a permanent
 * one is logged once per workqueue or kworker, until it goes away.
 */
#ifndef WQRT_APPLY_H
#define WQRT_APPLY_H

#include "plan.h"

/* -EBUSY, -EAGAIN: try again on the next scan */
bool apply_err_transient(int err);

/*
 * Bring the workqueue to p->target. A failing write or a read-back that
 * differs puts back every attribute written in this call and returns
 * -errno; t->orig only grows with what was really changed.
 */
int wq_apply(const struct apply_ctx *ax, struct wq_track *t,
	     const struct wq_plan *p);
/*
 * wq_apply() in two steps, for a pass that persists once for many
 * workqueues: wq_record() puts the originals of what p changes in
 * t->orig and returns the attributes it added; the caller persists them,
 * then wq_apply_recorded() writes (and takes back what it added and did
 * not change).
 */
unsigned int wq_record(struct wq_track *t, const struct wq_plan *p);
int wq_apply_recorded(const struct apply_ctx *ax, struct wq_track *t,
		      const struct wq_plan *p, unsigned int added);
/* Plan putting back every attribute wqrtd changed, and apply it. */
int wq_restore(const struct apply_ctx *ax, struct wq_track *t);

/*
 * Bring the kworker to p->target, if it is still the task k was made
 * for. 0 when nothing was to do, 1 when it was changed, -ESRCH when it is
 * gone or its pid reused, other -errno.
 */
int kw_apply(const struct apply_ctx *ax, struct kw_track *k,
	     const struct kw_plan *p);
/* The same in two steps: true when kw_record() recorded k's original */
bool kw_record(struct kw_track *k, const struct kw_plan *p);
int kw_apply_recorded(const struct apply_ctx *ax, struct kw_track *k,
		      const struct kw_plan *p, bool recorded);
int kw_restore(const struct apply_ctx *ax, struct kw_track *k);

#endif
