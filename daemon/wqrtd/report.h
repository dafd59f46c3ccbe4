/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Printing plans (plan.h): as a diff (--dry-run), a table or JSON
 * (wqrtctl status). Only prints: what the plans say is decided in plan.c.
 */
#ifndef WQRT_REPORT_H
#define WQRT_REPORT_H

#include <stdio.h>

#include "plan.h"

enum report_style { REPORT_DIFF, REPORT_TABLE, REPORT_JSON };

struct report {
	enum report_style style;
	FILE *f;
	unsigned int drift; /* workqueues and kworkers off target */
	unsigned int nwq;
	unsigned int nkw;
	/* JSON: members put before "workqueues", each followed by ", " */
	const char *json_head;
};

/*
 * Every plan of ps, workqueues then kworkers; counts into r. JSON: one
 * object, "schema", then json_head, then "workqueues", "kworkers" and
 * "drift".
 */
void report_plans(struct report *r, const struct plan_set *ps);

/*
 * --dry-run, after report_plans(): what a stop puts back (ps: the plans of
 * the put-back), as a diff after a line that says whether a stop does it
 * (restore_on_exit) or wqrtctl restore would. Nothing in other styles.
 */
void report_stop(struct report *r, const struct plan_set *ps,
		 bool restore_on_exit);

#endif
