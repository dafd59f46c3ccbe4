/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wqrtctl check-kernel: what the running kernel offers wqrtd and what it
 * lacks. Its configuration comes from /proc/config.gz (CONFIG_IKCONFIG_PROC)
 * or /boot/config-RELEASE; the workqueue series from the attributes sysfs
 * shows; without a configuration, what the running system shows.
 */
#ifndef WQRT_KCHECK_H
#define WQRT_KCHECK_H

#include <stdbool.h>
#include <stdio.h>

#include "util.h"

enum kc_state { KC_OK, KC_MISSING, KC_UNKNOWN };

struct kc_item {
	const char *name; /* CONFIG_X, or a workqueue attribute */
	bool required; /* else recommended */
	const char *why; /* what it is for */
	enum kc_state state;
	char found[128]; /* what was found, and where from */
};

#define KC_ITEMS_MAX 12

struct kcheck {
	char release[128];
	char config[WQRT_PATH_MAX]; /* the configuration read, or "" */
	char config_error[2 * WQRT_PATH_MAX + 128]; /* why none was read */
	char cmdline_sysfs[256]; /* workqueue.sysfs= on the command line */
	struct kc_item items[KC_ITEMS_MAX];
	int n;
	int missing_required, missing_recommended, unknown;
};

/* Look at the kernel under root ("/": the running one) */
void kcheck_run(const char *root, struct kcheck *kc);
/* 0, EX_UNAVAILABLE (a required item missing) or EX_NOINPUT (no config) */
int kcheck_exit_status(const struct kcheck *kc);
void kcheck_print(FILE *f, const struct kcheck *kc, bool json);

#endif
