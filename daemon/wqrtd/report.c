// SPDX-License-Identifier: GPL-2.0-only
#include "report.h"
#include "json.h"

#include <sched.h>
#include <string.h>

static void report_begin(struct report *r)
{
	r->drift = r->nwq = r->nkw = 0;
	if (r->style == REPORT_JSON)
		fprintf(r->f, "{\"schema\": %d, %s\"workqueues\": [",
			WQRT_JSON_SCHEMA, r->json_head ? r->json_head : "");
}

static const char *rule_desc(const struct rule *rule, char *buf, size_t size)
{
	if (!rule)
		snprintf(buf, size, "no rule, originals go back");
	else if (rule->profile)
		snprintf(buf, size, "[%s], profile %s", rule->section,
			 rule->profile);
	else
		snprintf(buf, size, "[%s]", rule->section);
	return buf;
}

static bool item_drifts(const struct plan_item *it)
{
	return it->status == PLAN_CHANGE || it->status == PLAN_READONLY ||
	       it->status == PLAN_UNSUPPORTED;
}

static void wq_json(struct report *r, const struct wq_plan *p)
{
	const struct plan_item *it;
	int i;

	fprintf(r->f, "%s\n  {\"name\": ", r->nwq ? "," : "");
	json_str(r->f, p->name);
	fprintf(r->f, ", \"rule\": ");
	if (p->rule)
		json_str(r->f, p->rule->section);
	else
		fprintf(r->f, "null");
	fprintf(r->f, ", \"drift\": %s, \"attributes\": {",
		p->drift ? "true" : "false");
	for (i = 0; i < p->nitems; i++) {
		it = &p->items[i];
		fprintf(r->f, "%s\"%s\": {\"desired\": ", i ? ", " : "",
			attr_name(it->attr));
		/* unsupported: the rule's value, which is not in target */
		json_attr(r->f, it->attr,
			  it->status == PLAN_UNSUPPORTED && p->rule ?
				  &p->rule->s :
				  &p->target);
		fprintf(r->f, ", \"actual\": ");
		if (it->status == PLAN_MISSING ||
		    it->status == PLAN_UNSUPPORTED)
			fprintf(r->f, "null");
		else
			json_attr(r->f, it->attr, &p->st.cur);
		fprintf(r->f, "%s%s}", it->restore ? ", \"original\": true" : "",
			it->status == PLAN_UNSUPPORTED ?
				", \"unsupported\": true" :
				"");
	}
	fprintf(r->f, "}}");
}

static void wq_table(struct report *r, const struct wq_plan *p,
		     const char *desc)
{
	const struct plan_item *it;
	int i;

	fprintf(r->f, "%s%s  %s%s\n", r->nwq ? "\n" : "", p->name, desc,
		p->drift ? "  DRIFT" : "");
	for (i = 0; i < p->nitems; i++) {
		it = &p->items[i];
		fprintf(r->f, "  %-16s desired %-12s actual %s%s%s\n",
			attr_name(it->attr), it->want,
			it->status == PLAN_MISSING     ? "(none)" :
			it->status == PLAN_UNSUPPORTED ? "(unsupported)" :
							 it->cur,
			item_drifts(it) ? "  *" : "",
			it->restore ? "  (original)" : "");
	}
}

static void wq_diff(struct report *r, const struct wq_plan *p,
		    const char *desc)
{
	const struct plan_item *it;
	const char *name;
	int i;

	fprintf(r->f, "@@ wq %s: %s @@\n", p->name, desc);
	for (i = 0; i < p->nitems; i++) {
		it = &p->items[i];
		name = attr_name(it->attr);
		if (it->status == PLAN_SAME)
			fprintf(r->f, " %s = %s\n", name, it->cur);
		else if (it->status == PLAN_MISSING)
			fprintf(r->f, "!%s = %s: no such attribute, skipped\n",
				name, it->want);
		else if (it->status == PLAN_UNSUPPORTED)
			fprintf(r->f,
				"!%s = %s: not supported by this kernel (no workqueue policy attribute): only the rescuer gets it\n",
				name, it->want);
		else
			fprintf(r->f, "-%s = %s\n+%s = %s%s%s\n", name, it->cur,
				name, it->want,
				it->restore ? "  (original)" : "",
				it->status == PLAN_READONLY ?
					"  (read-only: will fail)" :
					"");
	}
}

static void report_wq(struct report *r, const struct wq_plan *p)
{
	char desc[600];

	r->drift += p->drift;
	rule_desc(p->rule, desc, sizeof(desc));
	if (r->style == REPORT_JSON)
		wq_json(r, p);
	else if (r->style == REPORT_TABLE)
		wq_table(r, p, desc);
	else
		wq_diff(r, p, desc);
	r->nwq++;
}

static void kw_json(struct report *r, const struct kw_plan *p)
{
	if (!r->nkw)
		fprintf(r->f, "\n], \"kworkers\": [");
	fprintf(r->f, "%s\n  {\"pid\": %d, \"comm\": ", r->nkw ? "," : "",
		(int)p->pid);
	json_str(r->f, p->comm);
	fprintf(r->f, ", \"owner\": ");
	json_str(r->f, p->owner);
	fprintf(r->f,
		", \"policy\": \"%s\", \"rtprio\": %d, \"nice\": %d, \"desired_policy\": \"%s\", \"desired_rtprio\": %d, \"drift\": %s%s}",
		sched_policy_name(p->cur.policy), p->cur.rtprio, p->cur.nice,
		sched_policy_name(p->target.policy), p->target.rtprio,
		p->drift ? "true" : "false",
		p->restore ? ", \"original\": true" : "");
}

static void kw_table(struct report *r, const struct kw_plan *p)
{
	if (!r->nkw)
		fprintf(r->f, "%s%-8s %-24s %-28s %s\n", r->nwq ? "\n" : "",
			"PID", "KWORKER", "FOR", "POLICY (DESIRED)");
	fprintf(r->f, "%-8d %-24s %-28s %s %d (%s %d)%s\n", (int)p->pid,
		p->comm, p->owner, sched_policy_name(p->cur.policy),
		p->cur.rtprio, sched_policy_name(p->target.policy),
		p->target.rtprio, p->drift ? "  DRIFT" : "");
}

static void kw_diff(struct report *r, const struct kw_plan *p)
{
	const struct sched_val *cur = &p->cur, *target = &p->target;

	if (!p->drift)
		return;
	fprintf(r->f, "@@ %s (pid %d): %s @@\n", p->comm, (int)p->pid,
		p->owner);
	fprintf(r->f, "-policy = %s %d\n+policy = %s %d%s\n",
		sched_policy_name(cur->policy), cur->rtprio,
		sched_policy_name(target->policy), target->rtprio,
		p->restore ? "  (original)" : "");
	if (target->nice != cur->nice && target->policy == SCHED_OTHER)
		fprintf(r->f, "-nice = %d\n+nice = %d%s\n", cur->nice,
			target->nice, p->restore ? "  (original)" : "");
}

static void report_kw(struct report *r, const struct kw_plan *p)
{
	r->drift += p->drift;
	if (r->style == REPORT_JSON)
		kw_json(r, p);
	else if (r->style == REPORT_TABLE)
		kw_table(r, p);
	else
		kw_diff(r, p);
	r->nkw++;
}

static void report_end(struct report *r)
{
	if (r->style == REPORT_JSON) {
		if (!r->nkw)
			fprintf(r->f, "\n], \"kworkers\": [");
		fprintf(r->f, "\n], \"drift\": %u}\n", r->drift);
	} else if (r->style == REPORT_TABLE) {
		fprintf(r->f,
			"\n%u workqueue(s) profiled, %u kworker(s), %u drifting\n",
			r->nwq, r->nkw, r->drift);
	} else if (!r->nwq && !r->nkw) {
		fprintf(r->f, "# nothing matches the configuration\n");
	}
}

void report_plans(struct report *r, const struct plan_set *ps)
{
	size_t i;

	report_begin(r);
	for (i = 0; i < ps->nwqs; i++)
		report_wq(r, &ps->wqs[i]);
	for (i = 0; i < ps->nkws; i++)
		report_kw(r, &ps->kws[i]);
	report_end(r);
}

void report_stop(struct report *r, const struct plan_set *ps,
		 bool restore_on_exit)
{
	size_t i;

	if (r->style != REPORT_DIFF)
		return;
	if (!ps->nwqs && !ps->nkws) {
		fprintf(r->f, "# at stop: nothing to put back\n");
		return;
	}
	if (restore_on_exit)
		fprintf(r->f,
			"# at stop (restore_on_exit = yes), the originals go back:\n");
	else
		fprintf(r->f,
			"# at stop nothing goes back (restore_on_exit = no); wqrtctl restore would put back:\n");
	for (i = 0; i < ps->nwqs; i++)
		wq_diff(r, &ps->wqs[i], "at stop, originals go back");
	for (i = 0; i < ps->nkws; i++)
		kw_diff(r, &ps->kws[i]);
}
