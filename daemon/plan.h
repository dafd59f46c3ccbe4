/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The plan: desired against actual, per workqueue attribute and per
 * kworker, written as a diff (--dry-run), a table or JSON (wqrtctl status).
 */
#ifndef WQRT_PLAN_H
#define WQRT_PLAN_H

#include <stdio.h>

#include "apply.h"
#include "config.h"

enum plan_status {
	PLAN_SAME,
	PLAN_CHANGE,
	PLAN_MISSING, /* no such attribute on this workqueue */
	PLAN_READONLY, /* differs, and the attribute cannot be written */
};

struct plan_item {
	enum wq_attr attr;
	enum plan_status status;
	char cur[300];
	char want[300];
};

/* One item per attribute in target, in apply order; returns the count. */
int plan_wq(const struct settings *target, const struct wq_state *st,
	    struct plan_item *items);

enum report_style { REPORT_DIFF, REPORT_TABLE, REPORT_JSON };

struct report {
	enum report_style style;
	FILE *f;
	unsigned int drift; /* workqueue attributes and kworkers off target */
	unsigned int nwq;
	unsigned int nkw;
};

void report_begin(struct report *r);
void report_wq(struct report *r, const char *wq, const struct rule *rule,
	       const struct settings *target, const struct wq_state *st);
void report_kw(struct report *r, const struct kw_track *k, const char *owner,
	       const struct sched_val *cur, const struct sched_val *target);
void report_end(struct report *r);

#endif
