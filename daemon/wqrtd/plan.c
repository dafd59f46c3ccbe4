// SPDX-License-Identifier: GPL-2.0-only
#include "plan.h"
#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WA_ALL ((1u << WA_NR) - 1)

/*
 * The values t should end up with, of the attributes in sysfs: want, then
 * orig for what is no longer wanted, and the rtprio a policy change moves.
 */
static void wq_target(const struct wq_track *t, unsigned int sysfs,
		      const struct wq_state *st, struct settings *target)
{
	int a;

	memset(target, 0, sizeof(*target));
	for (a = 0; a < WA_NR; a++) {
		if (!(sysfs & WA_BIT(a)))
			continue;
		if (t->want.set & WA_BIT(a))
			settings_copy_attr(target, &t->want, a);
		else if (t->orig.set & WA_BIT(a))
			settings_copy_attr(target, &t->orig, a);
	}
	/*
	 * Writing policy moves rtprio (normal: 0, rt: at least 1). When the
	 * rule sets policy alone, rtprio follows it rather than any original;
	 * when putting policy back, rtprio goes back too (it is in orig).
	 */
	if ((target->set & WA_BIT(WA_POLICY)) &&
	    !(t->want.set & WA_BIT(WA_RTPRIO)) &&
	    ((t->want.set & WA_BIT(WA_POLICY)) ||
	     !(target->set & WA_BIT(WA_RTPRIO))) &&
	    (st->present & WA_BIT(WA_RTPRIO))) {
		long prio = st->cur.val[WA_RTPRIO];

		if (target->val[WA_POLICY] == POLICY_NORMAL)
			prio = 0;
		else if (!prio)
			prio = 1;
		target->val[WA_RTPRIO] = prio;
		target->set |= WA_BIT(WA_RTPRIO);
	}
}

/*
 * cpumask = irq:NAME: the CPUs those interrupts are delivered to now. Each
 * scan resolves it again, so the workqueue follows them when they move
 * (irqbalance, an affinity written, a CPU gone) within rescan_interval.
 * When they are not there (the driver not loaded yet, a wrong name, their
 * CPUs offline) the cpumask is not wanted in this scan: a cpumask wqrtd
 * set goes back to its original, none is set; said once until it changes.
 */
void plan_wq_follow_irq(const char *root, struct wq_track *t)
{
	char why[256];
	int err;

	err = attr_resolve_irq(root, &t->want, why, sizeof(why));
	if (!err) {
		if (t->irq_err)
			log_notice("%s: cpumask = irq:%s: found again", t->name,
				   t->want.irq);
		t->irq_err = 0;
		return;
	}
	t->want.set &= ~WA_BIT(WA_CPUMASK);
	if (t->irq_err != err)
		log_warn("%s: cpumask = irq:%s: %s; its cpumask stays as the kernel has it until they are there",
			 t->name, t->want.irq, why);
	t->irq_err = err;
}

/* Attributes wq_target() takes from orig: going back to the original */
static unsigned int restoring(const struct wq_track *t, unsigned int sysfs)
{
	unsigned int m = t->orig.set & ~t->want.set & sysfs;

	if (t->want.set & WA_BIT(WA_POLICY))
		m &= ~WA_BIT(WA_RTPRIO);
	return m;
}

int plan_attrs(const struct settings *target, const struct wq_state *st,
	       struct plan_item *items)
{
	int a, n = 0;

	for (a = 0; a < WA_NR; a++) {
		struct plan_item *it = &items[n];

		if (!(target->set & WA_BIT(a)))
			continue;
		it->attr = a;
		it->restore = false;
		attr_format_human(a, target, it->want, sizeof(it->want));
		if (!(st->present & WA_BIT(a))) {
			it->status = PLAN_MISSING;
			it->cur[0] = '\0';
		} else {
			attr_format_human(a, &st->cur, it->cur,
					  sizeof(it->cur));
			if (attr_equal(a, target, &st->cur))
				it->status = PLAN_SAME;
			else if (st->writable & WA_BIT(a))
				it->status = PLAN_CHANGE;
			else
				it->status = PLAN_READONLY;
		}
		n++;
	}
	return n;
}

/* The plan for t against what sysfs shows, p->st: plan_wq()'s decisions */
static void plan_wq_decide(const struct wq_track *t, struct wq_plan *p)
{
	unsigned int sysfs = WA_ALL;
	int i;

	/*
	 * Without a policy attribute (a kernel without the series, or a
	 * workqueue it does not cover), policy and rtprio go to the
	 * workqueue's kworkers with sched_setattr() instead.
	 */
	if (!(p->st.present & WA_BIT(WA_POLICY)))
		sysfs &= ~(WA_BIT(WA_POLICY) | WA_BIT(WA_RTPRIO));
	wq_target(t, sysfs, &p->st, &p->target);
	p->restore = restoring(t, sysfs);
	/* an rtprio that follows a policy going back goes back with it */
	if ((p->restore & WA_BIT(WA_POLICY)) &&
	    !(t->want.set & WA_BIT(WA_RTPRIO)) &&
	    (p->target.set & WA_BIT(WA_RTPRIO)))
		p->restore |= WA_BIT(WA_RTPRIO);
	p->missing = p->target.set & ~p->st.present;
	p->todo = wq_differing(&p->target, &p->st);
	/* a policy write moves rtprio: always follow it with rtprio */
	if ((p->todo & WA_BIT(WA_POLICY)) &&
	    (p->target.set & WA_BIT(WA_RTPRIO)) &&
	    (p->st.present & WA_BIT(WA_RTPRIO)))
		p->todo |= WA_BIT(WA_RTPRIO);
	p->blocked = p->todo & ~p->st.writable;
	p->nitems = plan_attrs(&p->target, &p->st, p->items);
	/*
	 * A kernel without the series: the rule's policy and rtprio reach
	 * the rescuer only, never the pool workers that run the work. Say
	 * so in the plan, as drift, rather than show nothing.
	 */
	if (!(sysfs & WA_BIT(WA_POLICY)))
		p->unsupported = t->want.set &
				 (WA_BIT(WA_POLICY) | WA_BIT(WA_RTPRIO));
	for (i = WA_POLICY; i <= WA_RTPRIO; i++) {
		struct plan_item *it = &p->items[p->nitems];

		if (!(p->unsupported & WA_BIT(i)))
			continue;
		memset(it, 0, sizeof(*it));
		it->attr = i;
		it->status = PLAN_UNSUPPORTED;
		attr_format_human(i, &t->want, it->want, sizeof(it->want));
		p->nitems++;
	}
	for (i = 0; i < p->nitems; i++) {
		struct plan_item *it = &p->items[i];

		it->restore = p->restore & WA_BIT(it->attr);
		if (it->status == PLAN_CHANGE || it->status == PLAN_READONLY ||
		    it->status == PLAN_UNSUPPORTED)
			p->drift = true;
	}
}

int plan_wq(const struct apply_ctx *ax, const struct wq_track *t,
	    const struct rule *rule, struct wq_plan *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", t->name);
	p->rule = rule;
	err = wq_read_state(ax->root, t->name, &p->st);
	if (err)
		return err;
	plan_wq_decide(t, p);
	return 0;
}

void plan_wq_putback(const struct wq_track *t, const struct wq_state *st,
		     struct wq_plan *p)
{
	struct wq_track back = *t;

	/* no rule: every original goes back */
	memset(&back.want, 0, sizeof(back.want));
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", t->name);
	p->st = *st;
	plan_wq_decide(&back, p);
}

int plan_wq_restore(const struct apply_ctx *ax, const struct wq_track *t,
		    struct wq_plan *p)
{
	struct wq_state st;
	int err;

	memset(p, 0, sizeof(*p));
	if (!t->orig.set)
		return 0;
	err = wq_read_state(ax->root, t->name, &st);
	if (err)
		return err;
	plan_wq_putback(t, &st, p);
	return 1;
}

/* Target scheduling for a kworker given its current values */
static void kw_target(const struct settings *want, const struct sched_val *cur,
		      struct sched_val *target)
{
	*target = *cur;
	if (want->set & WA_BIT(WA_POLICY))
		target->policy = policy_to_sched(want->val[WA_POLICY]);
	if (want->set & WA_BIT(WA_RTPRIO))
		target->rtprio = want->val[WA_RTPRIO];
	if (want->set & WA_BIT(WA_NICE))
		target->nice = want->val[WA_NICE];
	if (target->policy != SCHED_FIFO && target->policy != SCHED_RR)
		target->rtprio = 0;
	else if (!target->rtprio)
		target->rtprio = 1;
}

int plan_kw_sched(const struct apply_ctx *ax, pid_t pid,
		  const struct settings *want, struct kw_plan *p)
{
	int err;

	p->pid = pid;
	p->want = *want;
	err = ax->ops->sched_get(ax->ops->ctx, pid, &p->cur);
	if (err)
		return err;
	kw_target(want, &p->cur, &p->target);
	p->drift = !sched_val_equal(&p->cur, &p->target);
	return 0;
}

static void want_sched(struct settings *want, const struct settings *from)
{
	int a;

	memset(want, 0, sizeof(*want));
	for (a = 0; a < WA_NR; a++)
		if ((from->set & WA_BIT(a)) && (WA_BIT(a) & WA_SCHED_MASK))
			settings_copy_attr(want, from, a);
}

static int owner_cmp(const void *a, const void *b)
{
	const struct pool_owner *x = a, *y = b;

	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	/* shared first, then the first workqueue in the trackers */
	return (x->wq > y->wq) - (x->wq < y->wq);
}

int pool_owners_build(struct pool_owners *po, const struct wq_track *wqs,
		      size_t nwqs, const int *shared, size_t nshared)
{
	struct pool_owner *v;
	size_t i, n = nshared, k;
	int j;

	for (i = 0; i < nwqs; i++)
		n += wqs[i].npools;
	v = realloc(po->v, (n ? n : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	po->v = v;
	n = 0;
	for (i = 0; i < nshared; i++)
		v[n++] = (struct pool_owner){ shared[i], -1 };
	for (i = 0; i < nwqs; i++) {
		const struct wq_track *t = &wqs[i];

		if (t->failed || !(t->want.set & WA_BIT(WA_POLICY)))
			continue;
		for (j = 0; j < t->npools; j++)
			v[n++] = (struct pool_owner){ t->pools[j], (int)i };
	}
	qsort(v, n, sizeof(*v), owner_cmp);
	/* one per pool: the first of its run decides */
	for (i = 0, k = 0; i < n; i++)
		if (!k || v[k - 1].pool != v[i].pool)
			v[k++] = v[i];
	po->n = k;
	return 0;
}

int pool_owner(const struct pool_owners *po, int pool)
{
	size_t lo = 0, hi = po->n, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (po->v[mid].pool == pool)
			return po->v[mid].wq;
		if (po->v[mid].pool < pool)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

void pool_owners_free(struct pool_owners *po)
{
	free(po->v);
	memset(po, 0, sizeof(*po));
}

/*
 * The profiled workqueue whose rescuer c is: the longest name wins
 * ("kworker/R-nvme-wq" is nvme-wq's, not nvme's). A name cut to 15 bytes
 * ("kworker/R-nvme-") that two profiled workqueues could own (nvme-wq,
 * nvme-reset-wq) is nobody's: p->ambiguous names them.
 */
static const struct wq_track *rescuer_of(const struct kw_scope *sc,
					 const struct kw_class *c,
					 struct kw_plan *p)
{
	const struct wq_track *best = NULL, *t;
	size_t i, n = 0, len = 0;

	if (c->kind != KW_RESCUER)
		return NULL;
	for (i = 0; i < sc->nwqs; i++) {
		t = &sc->wqs[i];
		if (t->failed || !(t->want.set & WA_BIT(WA_POLICY)) ||
		    !kworker_rescues(c, t->name))
			continue;
		n++;
		if (len < sizeof(p->ambiguous))
			len += snprintf(p->ambiguous + len,
					sizeof(p->ambiguous) - len, "%s%s",
					len ? ", " : "", t->name);
		if (!best || strlen(t->name) > strlen(best->name))
			best = t;
	}
	if (n > 1 && c->truncated)
		return NULL;
	p->ambiguous[0] = '\0';
	return best;
}

/*
 * Which settings does this kworker get, and for whom? A kworker that
 * belongs to a profiled workqueue follows it: its rescuer, then the
 * workers of its unbound pools (pool_ids, sysfs mode), unless a workqueue
 * without a policy rule shares the pool: those workers run its work too,
 * and the kernel gives the profiled one pools of its own once its policy
 * is written. [kworker:] sections apply to the rest. A [wq:] rule
 * reaches kworkers only when it sets a policy: a nice-only rule is the
 * workqueue's nice attribute alone.
 */
static bool kw_owner(const struct kw_scope *sc, const struct task_info *ti,
		     struct kw_plan *p, struct settings *want)
{
	const struct wq_track *best, *t;
	const struct rule *r;
	struct kw_class c;
	int w;

	kworker_classify(ti->comm, &c);
	if (c.kind == KW_NONE || c.kind == KW_DYING)
		return false;
	best = rescuer_of(sc, &c, p);
	if (best) {
		want_sched(want, &best->want);
		snprintf(p->owner, sizeof(p->owner), "rescuer of %s",
			 best->name);
		return true;
	}
	if (p->ambiguous[0])
		return false;
	w = c.kind == KW_UNBOUND ? pool_owner(sc->owners, c.pool) : -1;
	if (w >= 0) {
		t = &sc->wqs[w];
		want_sched(want, &t->want);
		p->keep = true;
		snprintf(p->owner, sizeof(p->owner), "pool %d of %s", c.pool,
			 t->name);
		return true;
	}
	r = config_match_kworker(sc->cfg, c.base);
	if (r) {
		want_sched(want, &r->s);
		snprintf(p->owner, sizeof(p->owner), "[%s]", r->section);
		return want->set != 0;
	}
	return false;
}

int plan_kw(const struct apply_ctx *ax, const struct kw_scope *sc,
	    const struct task_info *ti, const struct kw_track *k,
	    struct kw_plan *p)
{
	struct settings want;
	int err;

	memset(p, 0, sizeof(*p));
	snprintf(p->comm, sizeof(p->comm), "%s", ti->comm);
	if (!kw_owner(sc, ti, p, &want)) {
		if (!k || !k->changed)
			return 0;
		/* changed by wqrtd, and no rule covers it now */
		p->pid = ti->pid;
		p->restore = true;
		snprintf(p->owner, sizeof(p->owner),
			 "no rule, original goes back");
		err = ax->ops->sched_get(ax->ops->ctx, ti->pid, &p->cur);
		if (err)
			return err;
		p->target = k->orig;
		p->drift = !sched_val_equal(&p->cur, &p->target);
		return 1;
	}
	err = plan_kw_sched(ax, ti->pid, &want, p);
	return err ? err : 1;
}

void plan_kw_putback(const struct kw_track *k, const struct sched_val *cur,
		     struct kw_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->pid = k->pid;
	snprintf(p->comm, sizeof(p->comm), "%s", k->comm);
	snprintf(p->owner, sizeof(p->owner), "at stop, original goes back");
	p->restore = true;
	p->cur = *cur;
	p->target = k->orig;
	p->drift = !sched_val_equal(&p->cur, &p->target);
}

int plan_kw_restore(const struct apply_ctx *ax, const struct kw_track *k,
		    struct kw_plan *p)
{
	struct sched_val cur;
	struct task_info t;
	int err;

	memset(p, 0, sizeof(*p));
	if (!k->changed)
		return 0;
	/* gone, or the pid now belongs to someone else: nothing to do */
	if (!task_same_kthread(ax->root, k->pid, k->start, &t))
		return -ESRCH;
	err = ax->ops->sched_get(ax->ops->ctx, k->pid, &cur);
	if (err)
		return err;
	plan_kw_putback(k, &cur, p);
	return 1;
}

/* base with item appended (NULL when out of memory: base is kept) */
static void *append(void *base, size_t *n, const void *item, size_t size)
{
	char *v = realloc(base, (*n + 1) * size);

	if (v)
		memcpy(v + (*n)++ * size, item, size);
	return v;
}

int plan_set_add_wq(struct plan_set *ps, const struct wq_plan *p)
{
	void *v = append(ps->wqs, &ps->nwqs, p, sizeof(*p));

	if (v)
		ps->wqs = v;
	return v ? 0 : -ENOMEM;
}

int plan_set_add_kw(struct plan_set *ps, const struct kw_plan *p)
{
	void *v = append(ps->kws, &ps->nkws, p, sizeof(*p));

	if (v)
		ps->kws = v;
	return v ? 0 : -ENOMEM;
}

void plan_set_free(struct plan_set *ps)
{
	free(ps->wqs);
	free(ps->kws);
	memset(ps, 0, sizeof(*ps));
}
