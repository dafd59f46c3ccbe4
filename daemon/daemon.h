/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's state: the configuration in force, the workqueues and
 * kworkers it has changed, and what to do on a scan, a new task, a new
 * workqueue, a reload and at exit. No event loop here (see main.c).
 */
#ifndef WQRT_DAEMON_H
#define WQRT_DAEMON_H

#include "apply.h"
#include "config.h"
#include "plan.h"

struct daemon {
	const char *root;
	struct apply_ctx ax;
	struct config *cfg;
	bool sysfs_mode; /* the kernel has the policy/rtprio attributes */
	struct wq_track *wqs;
	size_t nwqs;
	struct kw_track *kws;
	size_t nkws;
	unsigned int failures; /* in the last pass */
	/*
	 * Where the original values of the workqueue attributes wqrtd changed
	 * are kept across a restart (a crash, the watchdog), so that a later
	 * stop still puts back what was there before wqrtd: NULL for none.
	 */
	const char *state_path;
	struct wq_track *saved; /* originals read from state_path at start */
	size_t nsaved;
};

/* Takes ownership of cfg. */
void daemon_init(struct daemon *d, const char *root, const struct sys_ops *ops,
		 struct config *cfg);
void daemon_free(struct daemon *d);
/*
 * Keep originals in path (a file in the service's runtime directory), and
 * take over those a previous instance left there. 0 or -errno.
 */
int daemon_use_state(struct daemon *d, const char *path);
/* "sysfs mode" or "fallback mode" */
const char *daemon_mode_name(const struct daemon *d);

/*
 * Scan every workqueue and kworker. rep NULL: apply, and return the number
 * of failures. rep set: only report the plan against the system.
 */
int daemon_scan(struct daemon *d, struct report *rep);
int daemon_wq_added(struct daemon *d, const char *name);
int daemon_task_new(struct daemon *d, pid_t pid);
/*
 * A child of kthreadd that has no name yet ("kthreadd"): the creator names
 * it right after the fork, without a proc connector event, so look again
 * shortly.
 */
bool daemon_task_unnamed(struct daemon *d, pid_t pid);
/*
 * Load path. Errors: logged, the old configuration stays, returns their
 * count. Good: the new one is applied as a diff (what is no longer
 * covered is put back), returns 0.
 */
int daemon_reload(struct daemon *d, const char *path);
/* Put back everything wqrtd changed. Returns the number of failures. */
int daemon_restore(struct daemon *d);

#endif
