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
};

/* Every plan of ps, workqueues then kworkers; counts into r. */
void report_plans(struct report *r, const struct plan_set *ps);

#endif
