/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plan: the one place where what the rules (and the originals wqrtd
 * must put back) ask for is set against what the system shows. plan_wq()
 * and plan_kw() decide the target, what differs and what to write for a
 * scan, plan_wq_restore() and plan_kw_restore() what a stop (and wqrtctl
 * restore) puts back; they never write. apply.c carries a plan out,
 * report.c prints it (--dry-run, wqrtctl status), so the two cannot
 * disagree.
 */
#ifndef WQRT_PLAN_H
#define WQRT_PLAN_H

#include "attr.h"
#include "config.h"
#include "discover.h"
#include "sysops.h"

struct apply_ctx {
	const char *root;
	const struct sys_ops *ops;
	/*
	 * The originals (the trackers' orig and changed) shrank: a confirmed
	 * put-back, a change that did not happen. They are saved at the end
	 * of the pass (daemon.c); what grows is saved before the writes it
	 * guards, by whoever recorded it. NULL: nobody keeps them.
	 */
	void (*originals_changed)(void *arg);
	void *arg;
};

/*
 * The trackers: what wqrtd remembers of one workqueue or kworker between
 * scans. Lifetime and owner of each field as in the legend of daemon.h.
 */
struct wq_track {
	char name[WQ_NAME_MAX]; /* T: */
	struct settings want; /* C: the rule's settings; none: restore only */
	/* P, apply.c: .set: attributes wqrtd changed; their old values */
	struct settings orig;
	unsigned int warned; /* T, apply.c: missing attributes reported */
	int *pools; /* S, daemon.c: pool_ids after the last apply (owned) */
	int npools;
	int err; /* S, apply.c: the permanent error logged, 0 */
	/* S, daemon.c: why cpumask = irq: found no CPUs, logged; 0 */
	int irq_err;
	bool failed; /* S: the last apply failed (a plan: would fail) */
	bool seen; /* S, daemon.c: found in this scan */
};

struct kw_track {
	pid_t pid; /* T: */
	unsigned long long start; /* T: the PID reuse guard */
	char comm[COMM_MAX]; /* S, daemon.c: */
	struct sched_val orig; /* A, apply.c: what to put back */
	int err; /* S, apply.c: the permanent error logged, 0 */
	bool changed; /* A, apply.c: orig holds what to put back */
	bool keep; /* S, plan: a pool's worker, the kernel owns its policy */
	bool seen; /* S, daemon.c: found in this scan */
};

enum plan_status {
	PLAN_SAME,
	PLAN_CHANGE,
	PLAN_MISSING, /* no such attribute on this workqueue */
	PLAN_READONLY, /* differs, and the attribute cannot be written */
	PLAN_UNSUPPORTED, /* policy/rtprio without the series: not applied */
};

struct plan_item {
	enum wq_attr attr;
	enum plan_status status;
	bool restore; /* the value is the original, going back */
	char cur[300];
	char want[300];
};

struct wq_plan {
	char name[WQ_NAME_MAX];
	const struct rule *rule; /* NULL: no rule now, originals go back */
	struct wq_state st; /* what sysfs showed */
	struct settings target; /* what the workqueue should end up with */
	unsigned int todo; /* attributes to write, in enum wq_attr order */
	unsigned int restore; /* attributes taken from the originals */
	unsigned int missing; /* in target, not on this workqueue */
	struct plan_item items[WA_NR]; /* one per attribute of target */
	int nitems;
	bool drift; /* an attribute is off target */
	bool blocked; /* one to write is read-only: apply will fail */
	/* the rule's policy/rtprio, which this kernel cannot give it */
	unsigned int unsupported;
};

/*
 * The plan for tracked workqueue t, matched by rule (NULL: none). Policy
 * and rtprio go through sysfs only where the workqueue has a policy
 * attribute; elsewhere they go to its kworkers. 0, or -ENOENT when the
 * workqueue is gone.
 */
/*
 * t's rule wants cpumask = irq:NAME: its CPUs now into t->want, or no
 * cpumask wanted while there are none (said once until that changes)
 */
void plan_wq_follow_irq(const char *root, struct wq_track *t);
int plan_wq(const struct apply_ctx *ax, const struct wq_track *t,
	    const struct rule *rule, struct wq_plan *p);
/*
 * Putting back every original of tracked workqueue t (a stop, wqrtctl
 * restore): the plan as for a workqueue no rule covers any more, against
 * st, what sysfs shows (plan_wq_restore() reads it; --dry-run passes what
 * a scan's plan leaves). plan_wq_restore(): 1 and the plan, 0 when t has
 * no originals, -ENOENT when the workqueue is gone.
 */
void plan_wq_putback(const struct wq_track *t, const struct wq_state *st,
		     struct wq_plan *p);
int plan_wq_restore(const struct apply_ctx *ax, const struct wq_track *t,
		    struct wq_plan *p);
/* The items of a plan: one per attribute in target; returns the count */
int plan_attrs(const struct settings *target, const struct wq_state *st,
	       struct plan_item *items);

struct kw_plan {
	pid_t pid;
	char comm[COMM_MAX];
	/* "[kworker:..]", "rescuer of W", "pool N of W", no rule, at stop */
	char owner[128];
	struct settings want; /* WA_POLICY, WA_RTPRIO, WA_NICE */
	bool keep; /* a pool's worker: the kernel gives it its policy */
	/* no rule covers it now: its original goes back (target) */
	bool restore;
	struct sched_val cur;
	struct sched_val target;
	bool drift;
	/* a truncated rescuer name more than one workqueue could own */
	char ambiguous[128];
};

/*
 * Which profiled workqueue owns the workers of each unbound pool: decided
 * here, once per change of the workqueues or their pools, for every
 * kworker's plan to look up. A pool is owned by the first tracked
 * workqueue with a policy rule (and no failure) that lists it in
 * pool_ids, unless a workqueue without a policy rule lists it too: those
 * workers run that one's work as well (shared), and the kernel gives the
 * profiled workqueue pools of its own once its policy is written.
 */
struct pool_owner {
	int pool;
	int wq; /* index in the trackers, or -1: shared */
};

struct pool_owners {
	struct pool_owner *v; /* by pool id */
	size_t n;
};

/* shared: the pools of workqueues without a policy rule */
int pool_owners_build(struct pool_owners *po, const struct wq_track *wqs,
		      size_t nwqs, const int *shared, size_t nshared);
/* The index in the trackers of the workqueue that owns pool, or -1 */
int pool_owner(const struct pool_owners *po, int pool);
void pool_owners_free(struct pool_owners *po);

/* Who may own a kworker: the rules and the workqueues tracked now */
struct kw_scope {
	const struct config *cfg;
	const struct wq_track *wqs;
	size_t nwqs;
	const struct pool_owners *owners;
};

/*
 * The plan for kworker ti; k: its tracker, if any, whose original goes
 * back when no rule covers it any more. 1 when there is a plan (a rule,
 * or an original to put back), 0 when wqrtd has no business with it,
 * -ESRCH when it is gone, other -errno reading its scheduling.
 */
int plan_kw(const struct apply_ctx *ax, const struct kw_scope *sc,
	    const struct task_info *ti, const struct kw_track *k,
	    struct kw_plan *p);
/*
 * Putting kworker k's original back (a stop, wqrtctl restore, or k is no
 * kworker a rule covers any more): the plan from cur, what it has (read
 * by plan_kw_restore(); --dry-run passes what a scan's plan leaves), to
 * k->orig. plan_kw_restore(): 1 and the plan, 0 when wqrtd did not change
 * k, -ESRCH when it is gone or its pid another task's, other -errno.
 */
void plan_kw_putback(const struct kw_track *k, const struct sched_val *cur,
		     struct kw_plan *p);
int plan_kw_restore(const struct apply_ctx *ax, const struct kw_track *k,
		    struct kw_plan *p);
/* The scheduling half of plan_kw(): want against what pid has now */
int plan_kw_sched(const struct apply_ctx *ax, pid_t pid,
		  const struct settings *want, struct kw_plan *p);

/* A scan's plans, for printing */
struct plan_set {
	struct wq_plan *wqs;
	size_t nwqs;
	struct kw_plan *kws;
	size_t nkws;
};

int plan_set_add_wq(struct plan_set *ps, const struct wq_plan *p);
int plan_set_add_kw(struct plan_set *ps, const struct kw_plan *p);
void plan_set_free(struct plan_set *ps);

#endif
