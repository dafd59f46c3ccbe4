// SPDX-License-Identifier: GPL-2.0-only
#include "plan.h"

#include <sched.h>
#include <string.h>

int plan_wq(const struct settings *target, const struct wq_state *st,
	    struct plan_item *items)
{
	int a, n = 0;

	for (a = 0; a < WA_NR; a++) {
		struct plan_item *it = &items[n];

		if (!(target->set & WA_BIT(a)))
			continue;
		it->attr = a;
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

static const char *sched_word(int policy)
{
	return policy == SCHED_FIFO  ? "fifo" :
	       policy == SCHED_RR    ? "rr" :
	       policy == SCHED_OTHER ? "normal" :
				       "other";
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void report_begin(struct report *r)
{
	r->drift = r->nwq = r->nkw = 0;
	if (r->style == REPORT_JSON)
		fprintf(r->f, "{\"workqueues\": [");
}

static const char *rule_desc(const struct rule *rule, char *buf, size_t size)
{
	if (rule->profile)
		snprintf(buf, size, "[%s], profile %s", rule->section,
			 rule->profile);
	else
		snprintf(buf, size, "[%s]", rule->section);
	return buf;
}

void report_wq(struct report *r, const char *wq, const struct rule *rule,
	       const struct settings *target, const struct wq_state *st)
{
	struct plan_item items[WA_NR];
	int i, n = plan_wq(target, st, items);
	char desc[600];
	bool drift = false;

	for (i = 0; i < n; i++)
		if (items[i].status == PLAN_CHANGE ||
		    items[i].status == PLAN_READONLY)
			drift = true;
	r->drift += drift;
	rule_desc(rule, desc, sizeof(desc));
	if (r->style == REPORT_JSON) {
		fprintf(r->f, "%s\n  {\"name\": ", r->nwq ? "," : "");
		json_str(r->f, wq);
		fprintf(r->f, ", \"rule\": ");
		json_str(r->f, rule->section);
		fprintf(r->f, ", \"drift\": %s, \"attributes\": {",
			drift ? "true" : "false");
		for (i = 0; i < n; i++) {
			fprintf(r->f, "%s\"%s\": {\"desired\": ", i ? ", " : "",
				attr_name(items[i].attr));
			json_str(r->f, items[i].want);
			fprintf(r->f, ", \"actual\": ");
			if (items[i].status == PLAN_MISSING)
				fprintf(r->f, "null");
			else
				json_str(r->f, items[i].cur);
			fprintf(r->f, "}");
		}
		fprintf(r->f, "}}");
	} else if (r->style == REPORT_TABLE) {
		fprintf(r->f, "%s%s  %s%s\n", r->nwq ? "\n" : "", wq, desc,
			drift ? "  DRIFT" : "");
		for (i = 0; i < n; i++)
			fprintf(r->f, "  %-16s desired %-12s actual %s%s\n",
				attr_name(items[i].attr), items[i].want,
				items[i].status == PLAN_MISSING ? "(none)" :
								  items[i].cur,
				items[i].status == PLAN_CHANGE ||
						items[i].status ==
							PLAN_READONLY ?
					"  *" :
					"");
	} else {
		fprintf(r->f, "@@ wq %s: %s @@\n", wq, desc);
		for (i = 0; i < n; i++) {
			const struct plan_item *it = &items[i];
			const char *name = attr_name(it->attr);

			if (it->status == PLAN_SAME)
				fprintf(r->f, " %s = %s\n", name, it->cur);
			else if (it->status == PLAN_MISSING)
				fprintf(r->f,
					"!%s = %s: no such attribute, skipped\n",
					name, it->want);
			else
				fprintf(r->f, "-%s = %s\n+%s = %s%s\n", name,
					it->cur, name, it->want,
					it->status == PLAN_READONLY ?
						"  (read-only: will fail)" :
						"");
		}
	}
	r->nwq++;
}

static void kw_json(struct report *r, const struct kw_track *k,
		    const char *owner, const struct sched_val *cur,
		    const struct sched_val *target, bool drift)
{
	fprintf(r->f, "%s\n  {\"pid\": %d, \"comm\": ", r->nkw ? "," : "",
		(int)k->pid);
	json_str(r->f, k->comm);
	fprintf(r->f, ", \"owner\": ");
	json_str(r->f, owner);
	fprintf(r->f,
		", \"policy\": \"%s\", \"rtprio\": %d, \"nice\": %d, \"desired_policy\": \"%s\", \"desired_rtprio\": %d, \"drift\": %s}",
		sched_word(cur->policy), cur->rtprio, cur->nice,
		sched_word(target->policy), target->rtprio,
		drift ? "true" : "false");
}

void report_kw(struct report *r, const struct kw_track *k, const char *owner,
	       const struct sched_val *cur, const struct sched_val *target)
{
	bool drift = !sched_val_equal(cur, target);

	r->drift += drift;
	if (r->style == REPORT_JSON) {
		if (!r->nkw)
			fprintf(r->f, "\n], \"kworkers\": [");
		kw_json(r, k, owner, cur, target, drift);
	} else if (r->style == REPORT_TABLE) {
		if (!r->nkw)
			fprintf(r->f, "%s%-8s %-24s %-28s %s\n",
				r->nwq ? "\n" : "", "PID", "KWORKER", "FOR",
				"POLICY (DESIRED)");
		fprintf(r->f, "%-8d %-24s %-28s %s %d (%s %d)%s\n", (int)k->pid,
			k->comm, owner, sched_word(cur->policy), cur->rtprio,
			sched_word(target->policy), target->rtprio,
			drift ? "  DRIFT" : "");
	} else if (drift) {
		fprintf(r->f, "@@ %s (pid %d): %s @@\n", k->comm, (int)k->pid,
			owner);
		fprintf(r->f, "-policy = %s %d\n+policy = %s %d\n",
			sched_word(cur->policy), cur->rtprio,
			sched_word(target->policy), target->rtprio);
		if (target->nice != cur->nice && target->policy == SCHED_OTHER)
			fprintf(r->f, "-nice = %d\n+nice = %d\n", cur->nice,
				target->nice);
	}
	r->nkw++;
}

void report_end(struct report *r)
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
