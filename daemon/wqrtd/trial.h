/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A trial of wqrtctl try, held by the running wqrtd for as long as the
 * wqrtctl process that asked for it lives, and never longer:
 *
 *   DIR/trial-PID-START.conf  one [wq:NAME] section with the keys given to
 *                             wqrtctl try, whose process is PID and started
 *                             at START (field 22 of /proc/PID/stat: a reused
 *                             pid is not the owner)
 *   DIR/.trial-PID-START.conf the same, being checked (not in force yet)
 *   DIR/trial-held            the name of the trial wqrtd has applied, or
 *                             no file: what wqrtctl try waits for
 *
 * DIR is wqrtd's runtime directory (/run/wqrtd, 0700): a trial never
 * reaches /etc and does not survive a reboot. wqrtd lays the trial over
 * the configuration it holds (config_set_trial()) when told (SIGUSR1), and
 * takes it out and removes the file as soon as the owner is gone (its
 * pidfd), on every rescan, and at start.
 */
#ifndef WQRT_TRIAL_H
#define WQRT_TRIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "config.h"
#include "daemon.h"
#include "util.h"

#define TRIAL_HELD "trial-held"
#define TRIAL_NAME_MAX 64

/* "trial-PID-START.conf"; pending: the ".trial-" name */
void trial_name(char *buf, size_t size, pid_t pid, unsigned long long start,
		bool pending);
/*
 * Is name a trial file (pending too: *pending set), and whose. Anything
 * else, even close to one, is not.
 */
bool trial_parse_name(const char *name, pid_t *pid, unsigned long long *start,
		      bool *pending);
/*
 * Does the process that started at start still have pid (real /proc),
 * and run: a zombie (killed, not reaped yet) is gone
 */
bool trial_owner_alive(pid_t pid, unsigned long long start);
/*
 * The trials in dir: those whose owner is gone are removed (each file
 * named in removed, each failure in errors); the name of the first one in
 * force (not pending) whose owner lives in live (or ""), and its owner in
 * *owner. Returns how many live trials in force there are, or -errno
 * when dir cannot be read (-ENOENT: none).
 */
int trial_scan(const char *dir, char *live, size_t size, pid_t *owner,
	       struct strlist *removed, struct strlist *errors);
/*
 * Load the trial file path: one [wq:NAME] section, NAME not a glob, no
 * [global], no profile, nothing else. 0 and *out, or the count of errors
 * (each in errors).
 */
int trial_load(const char *path, const char *root, struct config **out,
	       struct strlist *errors);
/*
 * Lay trial (a trial_load()ed configuration, taken) over the one d holds,
 * or take the trial out (NULL), and scan: only the trial's workqueue
 * changes, to the keys it gives over its profile, or back to the profile
 * or its originals. Returns the failures of the scan, or -ENOMEM (nothing
 * changed, trial freed).
 */
int trial_apply(struct daemon *d, struct config *trial);
/* DIR/trial-held: name, or removed (name NULL). 0 or -errno */
int trial_held_write(const char *dir, const char *name);
/* What DIR/trial-held names: 0, -ENOENT (nothing), -errno */
int trial_held_read(const char *dir, char *buf, size_t size);

#endif
