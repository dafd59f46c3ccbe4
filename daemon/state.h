/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What wqrtd persists: the original values of the workqueue attributes it
 * changed, kept in a file of the service's runtime directory so that a
 * later stop still puts back what was there before wqrtd, across a
 * restart by the watchdog or a crash. The single owner of that file.
 */
#ifndef WQRT_STATE_H
#define WQRT_STATE_H

#include "plan.h"

struct saved_wq {
	char name[WQ_NAME_MAX];
	struct settings orig;
};

struct state {
	const char *path; /* NULL: nothing is persisted */
	struct saved_wq *v; /* originals left by a previous instance */
	size_t n; /* ... and not taken over by a tracker yet */
};

/* Read the originals a previous instance left in path. 0 or -errno. */
int state_load(struct state *s, const char *path);
/*
 * The originals saved for wq, handed over to its tracker: the tracker's
 * orig is what is persisted from now on. False when there are none.
 */
bool state_take(struct state *s, const char *wq, struct settings *orig);
bool state_has(const struct state *s, const char *wq);
/*
 * Persist the originals of the trackers and those not taken over yet, in
 * one rename: a crash never leaves half a file. No file when none.
 */
void state_save(const struct state *s, const struct wq_track *wqs, size_t n);
/* Everything is back: nothing for a next instance to take over. */
void state_forget(struct state *s);
void state_free(struct state *s);

#endif
