// SPDX-License-Identifier: GPL-2.0-only
#include "watch.h"
#include "log.h"

#include <string.h>

void watch_init(struct watch *w, struct daemon *d)
{
	memset(w, 0, sizeof(*w));
	w->d = d;
	w->retry_at = WATCH_NEVER;
	w->rescan_at = WATCH_NEVER;
	w->settle_at = WATCH_NEVER;
}

/*
 * A full rescan, delay from now, and never sooner than
 * WATCH_OVERRUN_GAP_USEC after the last one: whoever floods the system
 * cannot make wqrtd walk /proc without end. One already coming sees
 * these events too, and is not put off: a steady flood cannot keep it
 * from happening.
 */
static void rescan_soon(struct watch *w, uint64_t now, uint64_t delay)
{
	uint64_t at = now + delay;

	if (w->rescan_at != WATCH_NEVER)
		return;
	if (w->rescanned && at < w->last_rescan + WATCH_OVERRUN_GAP_USEC)
		at = w->last_rescan + WATCH_OVERRUN_GAP_USEC;
	w->rescan_at = at;
	log_warn(
		"events lost (receive buffer overrun or too many new kernel threads); rescanning in %llu ms",
		(unsigned long long)(at - now) / 1000);
}

void watch_overrun(struct watch *w, uint64_t now)
{
	rescan_soon(w, now, 0);
}

/* The next look at a pending one: the soonest of theirs */
static void arm_retry(struct watch *w)
{
	unsigned int i;

	w->retry_at = WATCH_NEVER;
	for (i = 0; i < w->npending; i++)
		if (w->pending[i].at < w->retry_at)
			w->retry_at = w->pending[i].at;
}

void watch_task(struct watch *w, pid_t pid, uint64_t now)
{
	if (!daemon_task_unsettled(w->d, pid)) {
		daemon_task_new(w->d, pid);
		return;
	}
	if (w->npending == WATCH_PENDING_MAX) {
		/* not dropped in silence: a rescan will see it */
		if (!w->pending_full)
			log_notice(
				"more than %d new kernel threads waiting to settle; rescanning instead",
				WATCH_PENDING_MAX);
		w->pending_full = true;
		rescan_soon(w, now, WATCH_UNSETTLED_USEC);
		return;
	}
	/*
	 * Its own clock: one retry timer re-armed at every fork put off the
	 * look at the older ones for as long as a stream of forks lasted.
	 */
	w->pending[w->npending].pid = pid;
	w->pending[w->npending].tries = 0;
	w->pending[w->npending++].at = now + WATCH_RETRY_USEC;
	if (now + WATCH_RETRY_USEC < w->retry_at)
		w->retry_at = now + WATCH_RETRY_USEC;
}

void watch_exit(struct watch *w, pid_t pid)
{
	unsigned int i;

	/* it will not settle: its place goes to the next one */
	for (i = 0; i < w->npending; i++) {
		if (w->pending[i].pid == pid) {
			w->pending[i] = w->pending[--w->npending];
			arm_retry(w);
			break;
		}
	}
	daemon_task_exit(w->d, pid);
}

void watch_wq(struct watch *w, const char *name, uint64_t now)
{
	if (!config_match_wq(w->d->cfg, name))
		return;
	/*
	 * The first of a burst at once; the rest in one pass when it is
	 * over, and the rescuers, forked before their workqueues showed up
	 * in sysfs, in one kworker scan: not a save and a scan each.
	 */
	if (w->settle_at == WATCH_NEVER) {
		daemon_wq_added(w->d, name);
		w->settle_at = now + WATCH_WQ_SETTLE_USEC;
		return;
	}
	strlist_add(&w->new_wqs, "%s", name);
}

/* Look again at kthreadd's children that were not settled at FORK time */
static void retry(struct watch *w, uint64_t now)
{
	unsigned int i, keep = 0, late = 0;

	for (i = 0; i < w->npending; i++) {
		struct watch_pending p = w->pending[i];

		if (p.at > now) {
			w->pending[keep++] = p; /* not its time yet */
		} else if (!daemon_task_unsettled(w->d, p.pid)) {
			daemon_task_new(w->d, p.pid);
		} else if (++p.tries < WATCH_RETRY_MAX) {
			p.at = now + (WATCH_RETRY_USEC << p.tries);
			w->pending[keep++] = p;
		} else {
			/* kept, never dropped: each scan looks again */
			p.at = WATCH_NEVER;
			p.late = true;
			w->pending[keep++] = p;
			late++;
		}
	}
	w->npending = keep;
	arm_retry(w);
	if (late)
		log_notice(
			"%u new kernel thread(s) still unsettled %llu ms after their fork (no name yet, or not yet through kthread(), which resets the policy): looked at again at each scan",
			late,
			(unsigned long long)(WATCH_RETRY_USEC
					     << WATCH_RETRY_MAX) /
				1000);
}

void watch_scanned(struct watch *w)
{
	unsigned int i, keep = 0;

	for (i = 0; i < w->npending; i++) {
		struct watch_pending p = w->pending[i];

		if (p.late && !daemon_task_unsettled(w->d, p.pid))
			daemon_task_new(w->d, p.pid);
		else
			w->pending[keep++] = p;
	}
	w->npending = keep;
}

static void rescan(struct watch *w, uint64_t now)
{
	int fails;

	w->rescan_at = WATCH_NEVER;
	w->last_rescan = now;
	w->rescanned = true;
	w->pending_full = false;
	/* it sees the new workqueues, and their rescuers */
	w->settle_at = WATCH_NEVER;
	strlist_free(&w->new_wqs);
	log_debug("scan (events lost)");
	fails = daemon_scan(w->d);
	if (fails)
		log_warn(
			"%d change(s) failed during the rescan for lost events",
			fails);
	watch_scanned(w);
}

bool watch_run(struct watch *w, uint64_t now)
{
	bool did = false;

	if (now >= w->rescan_at) {
		rescan(w, now);
		did = true;
	}
	if (now >= w->retry_at) {
		retry(w, now);
		did = true;
	}
	if (now >= w->settle_at) {
		w->settle_at = WATCH_NEVER;
		if (w->new_wqs.n)
			daemon_wqs_added(w->d, (const char *const *)w->new_wqs.v,
					 w->new_wqs.n);
		strlist_free(&w->new_wqs);
		daemon_scan_kworkers(w->d);
		did = true;
	}
	return did;
}

void watch_free(struct watch *w)
{
	strlist_free(&w->new_wqs);
}

uint64_t watch_next(const struct watch *w)
{
	uint64_t at = w->rescan_at;

	if (w->retry_at < at)
		at = w->retry_at;
	if (w->settle_at < at)
		at = w->settle_at;
	return at;
}
