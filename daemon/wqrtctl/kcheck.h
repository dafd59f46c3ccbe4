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

/*
 * What wqrtd can do on the kernel: everything (the series' attributes are
 * there), its fallback mode (none of them: policy and rtprio go to
 * kworkers by name), nothing (no sysfs), or it cannot be told (no unbound
 * workqueue in sysfs to look at).
 */
enum kc_mode { KC_MODE_SYSFS, KC_MODE_FALLBACK, KC_MODE_NONE, KC_MODE_UNKNOWN };

struct kc_item {
	const char *name; /* CONFIG_X, or a workqueue attribute */
	/*
	 * else recommended; an attribute of the series is required only
	 * where the series is (a kernel with part of it), and otherwise
	 * what sysfs mode needs
	 */
	bool required;
	bool series;
	const char *why; /* what it is for */
	enum kc_state state;
	char found[128]; /* what was found, and where from */
};

#define KC_ITEMS_MAX 16

/* "sysfs", "fallback", "none", "unknown" */
const char *kc_mode_name(enum kc_mode m);

struct kcheck {
	char release[128];
	char config[WQRT_PATH_MAX]; /* the configuration read, or "" */
	char config_error[2 * WQRT_PATH_MAX + 128]; /* why none was read */
	char cmdline_sysfs[256]; /* workqueue.sysfs= on the command line */
	struct kc_item items[KC_ITEMS_MAX];
	int n;
	int missing_required, missing_recommended, missing_series, unknown;
	enum kc_mode mode;
};

/* Look at the kernel under root ("/": the running one) */
void kcheck_run(const char *root, struct kcheck *kc);
/*
 * 0 (wqrtd works: sysfs or fallback mode), EX_UNAVAILABLE (a required item
 * missing: no sysfs, or part of the series only) or EX_NOINPUT (no config)
 */
int kcheck_exit_status(const struct kcheck *kc);
void kcheck_print(FILE *f, const struct kcheck *kc, bool json);

#endif
