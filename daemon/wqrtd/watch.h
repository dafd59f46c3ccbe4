/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What wqrtd does about the events it hears, and when: a new kernel
 * thread (proc connector FORK), one that exited (EXIT), a workqueue added
 * (uevent), events lost (ENOBUFS). Everything here is paced: a new
 * kthread is looked at once its name and policy have settled, a burst of
 * new workqueues costs one pass (one save of the originals) and one
 * kworker scan, a flood of lost events one full rescan per
 * WATCH_OVERRUN_GAP_USEC.
 *
 * No clock and no event loop: the caller says what time it is (the
 * monotonic clock, in microseconds) and arms a single timer for
 * watch_next(); main.c does that with sd-event, the tests with a fake
 * clock.
 */
#ifndef WQRT_WATCH_H
#define WQRT_WATCH_H

#include "daemon.h"

#include <stdint.h>

#define WATCH_USEC_PER_SEC 1000000ULL
#define WATCH_NEVER UINT64_MAX
/* kthreads waiting for their name and policy to settle */
#define WATCH_PENDING_MAX 64
/*
 * Each kthread is looked at again 10 ms after its fork, then after 20,
 * 40 ... 640 ms, on its own clock: a stream of new ones does not put off
 * the look at the older ones.
 */
#define WATCH_RETRY_USEC 10000ULL
#define WATCH_RETRY_MAX 7
/* at most one rescan for lost events per second, however many are lost */
#define WATCH_OVERRUN_GAP_USEC WATCH_USEC_PER_SEC
/*
 * A kthread that did not fit in the pending list is seen by a rescan:
 * not before it had time to settle (the retries' first steps).
 */
#define WATCH_UNSETTLED_USEC (WATCH_USEC_PER_SEC / 10)
/*
 * New workqueues come in bursts (a module load): the first is profiled
 * at once, those that follow within WATCH_WQ_SETTLE_USEC in one pass at
 * its end (1000 of them cost two saves of the originals, not 1000), and
 * then one kworker scan finds their rescuers.
 */
#define WATCH_WQ_SETTLE_USEC (WATCH_USEC_PER_SEC / 10)

struct watch_pending {
	pid_t pid;
	unsigned int tries; /* looks at it so far */
	uint64_t at; /* the next one; WATCH_NEVER: at the next scan */
	bool late; /* still unsettled after WATCH_RETRY_MAX looks */
};

struct watch {
	struct daemon *d;
	/* kthreads not settled yet */
	struct watch_pending pending[WATCH_PENDING_MAX];
	unsigned int npending;
	uint64_t retry_at; /* the next look at one of them; WATCH_NEVER */
	uint64_t rescan_at; /* a full rescan for lost events; WATCH_NEVER */
	uint64_t last_rescan; /* when the last one ran */
	bool rescanned; /* ... if one did */
	bool pending_full; /* said so, and a rescan is coming */
	uint64_t settle_at; /* the pass and kworker scan after new workqueues */
	struct strlist new_wqs; /* ... the workqueues of that pass */
};

void watch_init(struct watch *w, struct daemon *d);
/* A child of kthreadd was forked: maybe a new kworker */
void watch_task(struct watch *w, pid_t pid, uint64_t now);
/* A child of kthreadd exited */
void watch_exit(struct watch *w, pid_t pid);
/* A workqueue appeared in sysfs */
void watch_wq(struct watch *w, const char *name, uint64_t now);
/* The socket overran: events were lost */
void watch_overrun(struct watch *w, uint64_t now);
/* Do what is due at now. True when it scanned (the counts changed). */
bool watch_run(struct watch *w, uint64_t now);
/* A full scan ran: look again at the kthreads still unsettled */
void watch_scanned(struct watch *w);
void watch_free(struct watch *w);
/* When watch_run() has something to do next; WATCH_NEVER for nothing */
uint64_t watch_next(const struct watch *w);

#endif
