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
 * What a run leaves when it is killed (SIGKILL, the OOM killer), the next
 * wqrtctl and wqrtd take out (shared/tracedir.h); a session takes its own
 * out through the same code, and says each failure with its path.
 */
#ifndef WQRT_TRACE_H
#define WQRT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sysops.h"
#include "tracedir.h"
#include "util.h"

struct tracefs_instance;

struct trace_sess {
	struct tracefs_instance *inst;
	char name[64]; /* the instance, "wqrtctl-PID" */
	char synth_prefix[64]; /* "wqrtctl_PID_" */
	char dir[WQRT_PATH_MAX]; /* the tracing directory */
	struct sys_ops ops; /* how it is taken out (a fake root's manners) */
};

/*
 * Can this kernel do it: tracefs under dir (the tracing directory) with
 * the workqueue events, synthetic events and histogram triggers. 0, or
 * -ENOTSUP with what is missing, by kernel option, in why.
 */
int trace_check(const char *dir, char *why, size_t size);

/*
 * Can this process trace here: the tracing directory found (mounted if
 * need be) and its own to read and write? 0, or -EACCES (not root, with
 * what to do in why) or -ENOTSUP (no tracefs), so that a command can say
 * so before it changes or waits for anything.
 */
int trace_usable(const char *root, char *why, size_t size);

/*
 * A session in a tracefs instance of its own: the tracing directory
 * (under root: a fake root's, given to libtracefs; else libtracefs's,
 * mounted if need be), what gone runs left there taken out first, the
 * kernel checked (trace_check()), the instance made. 0, or -errno with
 * why filled (-ENOTSUP: something is missing).
 */
int trace_start(struct trace_sess *s, const char *root, char *why,
		size_t size);
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
/*
 * Take out the triggers, the instance and the synthetic events; each
 * failure said on stderr with its path. Returns the failures.
 */
int trace_close(struct trace_sess *s);
/*
 * The tracefs removals that failed in this process (its own, and what
 * gone runs left): the exit status says so.
 */
unsigned int trace_failures(void);

#endif
