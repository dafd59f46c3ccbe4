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
 * Bringing a workqueue to p->target takes two steps, so that a pass saves
 * the originals of all its writes once, before any of them: wq_record()
 * puts the originals of what p changes in t->orig and returns the
 * attributes it added; the caller saves them, then wq_apply_recorded()
 * writes. A failing write or a read-back that differs puts back every
 * attribute written in this call and returns -errno; what it added and
 * did not change is taken back. When the save fails, wq_unrecord() takes
 * back what was added, and nothing is written.
 */
unsigned int wq_record(struct wq_track *t, const struct wq_plan *p);
void wq_unrecord(struct wq_track *t, unsigned int added);
int wq_apply_recorded(const struct apply_ctx *ax, struct wq_track *t,
		      const struct wq_plan *p, unsigned int added);

/*
 * The same for a kworker: kw_record() records k's original (true when it
 * did), the caller saves it, kw_apply_recorded() brings the kworker to
 * p->target if it is still the task k was made for: 0 when nothing was
 * to do, 1 when it was changed, -ESRCH when it is gone or its pid
 * reused, other -errno. A plan that puts the original back (p->restore,
 * plan_kw_restore() for a stop) forgets it once it is confirmed.
 * kw_unrecord() takes a record back.
 */
bool kw_record(struct kw_track *k, const struct kw_plan *p);
void kw_unrecord(struct kw_track *k, bool recorded);
int kw_apply_recorded(const struct apply_ctx *ax, struct kw_track *k,
		      const struct kw_plan *p, bool recorded);

#endif
