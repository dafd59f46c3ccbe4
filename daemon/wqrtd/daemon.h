/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's state: the configuration in force, the workqueues and
 * kworkers it tracks, and what to do on a scan, a new task, a new
 * workqueue, a reload and at exit. No event loop here (see main.c).
 * Applying is plan -> record and save the originals once -> apply
 * (apply.c), for a scan, a uevent and a FORK alike; a stop and wqrtctl
 * restore are plan the put-back -> apply; --dry-run and wqrtctl status are
 * plan -> report (report.c), over the same plans, and --dry-run goes on
 * with the put-back a stop would plan then.
 *
 * Lifetime and owner of the fields of struct daemon and of the trackers
 * (plan.h), as kernel/workqueue.c annotates what guards its fields:
 *
 *   I: set by daemon_init(), fixed after
 *   C: from the configuration: set at start and on a good reload
 *   S: refreshed on each scan (and on a new kworker or workqueue)
 *   P: persisted by state.c, taken over from a previous instance
 *   A: written by apply.c when it changes something, until put back
 *   T: fixed for the life of the tracker
 *
 * followed by the file that writes the field where it is not daemon.c.
 */
#ifndef WQRT_DAEMON_H
#define WQRT_DAEMON_H

#include "apply.h"
#include "config.h"
#include "htab.h"
#include "plan.h"
#include "report.h"
#include "state.h"

struct daemon {
	const char *root; /* I: "/" or a fake root */
	struct apply_ctx ax; /* I: */
	bool sysfs_mode; /* I: the kernel has the policy/rtprio attributes */
	struct config *cfg; /* C: owned */
	/*
	 * C: the trial of a wqrtctl try laid over cfg by trial_apply(), again
	 * over each reloaded cfg; owned, or NULL (trial.h)
	 */
	struct config *trial;
	struct wq_track *wqs; /* S: profiled, or with originals to put back */
	size_t nwqs;
	struct kw_track *kws; /* S: kworkers a rule covers */
	size_t nkws;
	int *shared; /* S: pools of workqueues without a policy rule */
	size_t nshared;
	struct pool_owners owners; /* S, plan.c: who owns each pool */
	bool owners_ok; /* S: owners is up to date */
	unsigned int failures; /* S: permanent failures of the last pass */
	pid_t *warned; /* S: kworkers told about (ambiguous rescuer name) */
	size_t nwarned;
	unsigned long scans; /* full scans so far (what they cost: tests) */
	unsigned long kw_scans; /* kworker-only scans so far */
	struct htab wq_ix; /* S: wqs by name */
	struct htab kw_ix; /* S: kws by pid */
	/*
	 * S: a pass in progress: the writes wait in the jobs until every
	 * original they guard is recorded and saved, in one write.
	 */
	struct wq_job *wq_jobs;
	size_t nwq_jobs, wq_jobs_cap;
	struct kw_job *kw_jobs;
	size_t nkw_jobs, kw_jobs_cap;
	struct state state; /* P, state.c: originals, and where they go */
	bool dirty; /* P: the originals shrank since the last save */
	int save_err; /* P: the last save's -errno, 0 */
	/*
	 * I: told of each kworker a rule covers once it has been judged:
	 * result 1 (changed and read back), 0 (already so), -errno (-ESRCH:
	 * gone). NULL: nobody asks (wqrtd --timing does, timing.h).
	 */
	void (*kw_judged)(void *arg, pid_t pid, const char *comm, int result);
	void *kw_judged_arg;
};

/* Takes ownership of cfg. */
void daemon_init(struct daemon *d, const char *root, const struct sys_ops *ops,
		 struct config *cfg);
void daemon_free(struct daemon *d);
/*
 * Keep originals in path (a file in the service's runtime directory), and
 * take over those a previous instance left there. 0 or -errno (see
 * state_load(): -EPERM untrusted, -ESTALE another boot's, refused).
 */
int daemon_use_state(struct daemon *d, const char *path);
/* "sysfs mode" or "fallback mode" */
const char *daemon_mode_name(const struct daemon *d);

/* Scan every workqueue and kworker and apply; returns the failures. */
int daemon_scan(struct daemon *d);
/*
 * The plans a scan would carry out, changing nothing (--dry-run, wqrtctl
 * status). A workqueue whose plan would fail does not own kworkers, as
 * after a failed apply. Free ps with plan_set_free().
 */
int daemon_plan(struct daemon *d, struct plan_set *ps);
/* daemon_plan(), printed */
void daemon_report(struct daemon *d, struct report *r);
/*
 * wqrtd --dry-run: daemon_report(), then what a stop would put back once
 * that plan is carried out (report_stop()), workqueue attributes and
 * kworkers, from the plans daemon_restore() would make then.
 */
void daemon_dry_run(struct daemon *d, struct report *r);
/*
 * Workqueues appeared (uevents): apply their rules, in one pass (one save
 * of the originals). Their rescuers were forked before they showed up in
 * sysfs: call daemon_scan_kworkers() after a burst of them, once.
 */
int daemon_wqs_added(struct daemon *d, const char *const *names, size_t n);
int daemon_wq_added(struct daemon *d, const char *name);
int daemon_scan_kworkers(struct daemon *d);
int daemon_task_new(struct daemon *d, pid_t pid);
/* A child of kthreadd exited: forget it (its pid may come back). */
void daemon_task_exit(struct daemon *d, pid_t pid);
/*
 * A child of kthreadd that is not ready to be judged yet: it has no name
 * ("kthreadd": older kernels name it after the fork, without a proc
 * connector event), or it has not yet run through kthread(), which resets
 * its policy to SCHED_NORMAL and would undo a change made now. Look again
 * shortly.
 */
bool daemon_task_unsettled(struct daemon *d, pid_t pid);
/*
 * Load path. Errors: logged, the old configuration stays, returns their
 * count. Good: the new one is applied as a diff (what is no longer
 * covered is put back), returns 0.
 */
int daemon_reload(struct daemon *d, const char *path);
/*
 * Put back everything wqrtd changed, and what a previous instance left.
 * Returns the number of failures; what could not be put back, or whose
 * workqueue or kworker could not be looked at, stays in the file.
 */
int daemon_restore(struct daemon *d);

#endif
