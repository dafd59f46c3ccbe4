/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wqrtd --timing FILE: how long a new kworker ran without its profile.
 * The proc connector stamps every FORK with the kernel's CLOCK_MONOTONIC
 * time; once the daemon has judged a kworker a rule covers (set and read
 * back, or read back already right), one line goes to FILE:
 *
 *   PID FORK_NS DONE_NS RESULT COMM
 *
 * RESULT: "set" (wqrtd changed it and read the change back), "ok" (it
 * already had the policy: a pool's worker born with it on a kernel with
 * the series), "gone" (it exited while wqrtd was setting it). DONE_NS is
 * CLOCK_MONOTONIC after the read-back, so DONE_NS - FORK_NS is the
 * kernel's fork to the verified policy. A kworker judged only by a rescan
 * long after its fork still has its line; one that exits before it is
 * judged has none. Off (no FILE), nothing is remembered and nothing costs
 * more than a test of a pointer.
 */
#ifndef WQRT_TIMING_H
#define WQRT_TIMING_H

#include "htab.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* forks not judged yet, at most; the oldest is forgotten past that */
#define TIMING_MAX 4096

struct timing_fork {
	pid_t pid;
	uint64_t fork_ns;
};

struct timing {
	FILE *f; /* NULL: off */
	bool own; /* f is timing_open()'s, closed by timing_close() */
	struct timing_fork *v; /* ring of TIMING_MAX, by age */
	size_t head, n; /* oldest at head */
	struct htab ix; /* pid -> slot in v */
	unsigned long lines, forgotten;
	uint64_t (*now_ns)(void); /* CLOCK_MONOTONIC; tests set their own */
};

/* Append to path (created 0644). 0 or -errno. */
int timing_open(struct timing *t, const char *path);
/* Off, for f (tests: a memstream); the caller closes f. 0 or -ENOMEM */
int timing_init(struct timing *t, FILE *f);
void timing_close(struct timing *t);
static inline bool timing_on(const struct timing *t)
{
	return t->f;
}
/* kthreadd forked pid at fork_ns (the proc connector's timestamp) */
void timing_fork(struct timing *t, pid_t pid, uint64_t fork_ns);
/* pid exited: it will not be judged */
void timing_exit(struct timing *t, pid_t pid);
/*
 * wqrtd judged kworker pid, which a rule covers: result 1 (changed, read
 * back), 0 (already so), -ESRCH (gone) write its line; another -errno
 * keeps it for a later try.
 */
void timing_done(struct timing *t, pid_t pid, const char *comm, int result);

#endif
