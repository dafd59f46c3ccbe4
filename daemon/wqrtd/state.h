/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What wqrtd persists: the original values of the workqueue attributes it
 * changed and the original scheduling of the kworkers it changed (by pid
 * and start time), kept in a file of the service's runtime directory so
 * that a later stop still puts back what was there before wqrtd, across a
 * restart by the watchdog or a crash. They are written before the change
 * they guard (durably: synced, and the directory too) and cleared only
 * once the value is confirmed back. The file names the boot it was
 * written in: pids and start times of another boot mean nothing. The
 * single owner of that file.
 */
#ifndef WQRT_STATE_H
#define WQRT_STATE_H

#include "htab.h"
#include "plan.h"

struct saved_wq {
	char name[WQ_NAME_MAX];
	struct settings orig;
};

struct saved_kw {
	pid_t pid;
	unsigned long long start;
	struct sched_val orig;
};

struct state {
	const char *path; /* NULL: nothing is persisted */
	const struct sys_ops *ops; /* how the file is saved */
	char boot[40]; /* this boot's id ("" unknown: not recorded) */
	struct saved_wq *v; /* originals left by a previous instance */
	size_t n; /* ... and not taken over by a tracker yet */
	struct saved_kw *kv; /* the same for kworkers */
	size_t nk;
	struct htab v_ix; /* v by name */
	struct htab kv_ix; /* kv by pid */
	char *last; /* what the file holds now: written only on change */
	unsigned long saves; /* state_save() calls that built the file */
};

/*
 * Read the originals a previous instance left in path, and save there
 * from now on through ops. 0 (also when there is no file); -EPERM: the
 * file or its directory cannot be trusted (another owner than root, or
 * others can write it); -ESTALE: written during another boot, refused
 * (nothing of it is taken, and the next save replaces it); other -errno.
 * Said in the log, with the path. The boot id is read under root.
 */
int state_load(struct state *s, const char *path, const char *root,
	       const struct sys_ops *ops);
/*
 * The originals saved for wq, handed over to its tracker: the tracker's
 * orig is what is persisted from now on. False when there are none.
 */
bool state_take(struct state *s, const char *wq, struct settings *orig);
bool state_has(const struct state *s, const char *wq);
bool state_has_kw(const struct state *s, pid_t pid);
/* Forget what was saved for wq, for kworker pid: they are gone */
void state_drop(struct state *s, const char *wq);
void state_drop_kw(struct state *s, pid_t pid);
/* The same for the kworker pid started at start */
bool state_take_kw(struct state *s, pid_t pid, unsigned long long start,
		   struct sched_val *orig);
/*
 * Persist the originals of the trackers and those not taken over yet, in
 * one rename: a crash never leaves half a file. No file when none. Does
 * nothing when the content is what the file already holds. 0, or -errno
 * when they could not be saved (full disk, EIO, read-only): the file is
 * then as it was.
 */
int state_save(struct state *s, const struct wq_track *wqs, size_t n,
	       const struct kw_track *kws, size_t nk);
void state_free(struct state *s);

#endif
