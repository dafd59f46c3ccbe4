/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A tracefs session of wqrtctl latency, who and try: a tracefs instance
 * of its own ("wqrtctl-PID"), synthetic events ("wqrtctl_PID_*"), and the
 * histogram triggers it adds on the workqueue events there; read back
 * with their hist files; all of it removed at the end.
 *
 * Through libtracefs (what rtla and trace-cmd use): the tracing directory
 * and its mount, the instance, its files, the dynamic events. The
 * triggers are written as text: libtracefs 1.6 (Debian 12) builds a
 * synthetic event's start and end histograms in the top-level instance
 * only and chains two events, where wqrtctl needs three (queued, started,
 * ended) in an instance of its own, and histograms with filters on the
 * synthetic event.
 *
 * A run killed with SIGKILL leaves its instance, triggers and synthetic
 * events behind: trace_clean_stale() removes those of every wqrtctl that
 * is gone, and every session starts with it.
 */
#ifndef WQRT_TRACE_H
#define WQRT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "util.h"

#define TRACE_PREFIX "wqrtctl"

struct tracefs_instance;

struct trace_sess {
	struct tracefs_instance *inst;
	char name[64]; /* the instance, "wqrtctl-PID" */
	char synth_prefix[64]; /* "wqrtctl_PID_" */
	struct strlist synths; /* synthetic events created, by name */
	/* "SYSTEM/EVENT\tTRIGGER" added, removed in reverse order */
	struct strlist triggers;
};

/*
 * Can this kernel do it: tracefs under dir (the tracing directory) with
 * the workqueue events, synthetic events and histogram triggers. 0, or
 * -ENOTSUP with what is missing, by kernel option, in why.
 */
int trace_check(const char *dir, char *why, size_t size);

/*
 * The tracing directory, mounted if need be; NULL with why filled when
 * there is none.
 */
const char *trace_dir(char *why, size_t size);

/*
 * Remove the instances, triggers and synthetic events that wqrtctl runs
 * no longer running left under dir (those of a live wqrtctl stay).
 * Returns how many instances and events were removed.
 */
int trace_clean_stale(const char *dir);

/* A live wqrtctl: pid runs and is called wqrtctl */
bool trace_owner_alive(const char *root, pid_t pid);

/* Create this process's instance. 0 or -errno (why filled). */
int trace_open(struct trace_sess *s, char *why, size_t size);
/*
 * A synthetic event SYNTH_PREFIX + suffix with fields ("char wq[];
 * u64 lat"). The full name goes to name. 0 or -errno (why filled).
 */
int trace_synth(struct trace_sess *s, const char *suffix, const char *fields,
		char *name, size_t name_size, char *why, size_t size);
/* Add a trigger to SYSTEM/EVENT of the instance. 0 or -errno (why). */
int trace_trigger(struct trace_sess *s, const char *system, const char *event,
		  const char *trigger, char *why, size_t size);
/* The hist file of SYSTEM/EVENT of the instance (free it), or NULL */
char *trace_hist(struct trace_sess *s, const char *system, const char *event);
/*
 * The part of a hist file that the trigger named name= prints (a pointer
 * into text, its length in *len), or NULL.
 */
const char *trace_hist_named(const char *text, const char *name, size_t *len);
/* Remove the triggers, the instance and the synthetic events. */
void trace_close(struct trace_sess *s);

#endif
