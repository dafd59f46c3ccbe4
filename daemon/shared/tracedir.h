/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What wqrtctl latency, who and try leave in tracefs, and taking it out:
 * a tracefs instance of their own ("wqrtctl-PID") with histogram
 * triggers on the workqueue and synthetic events, and synthetic events
 * ("wqrtctl_PID_*") at the top. A run that ends takes its own out; one
 * that is killed (SIGKILL, the OOM killer) leaves them, and with them the
 * workqueue tracepoints live, which every work item of the system then
 * pays for: the next wqrtctl and wqrtd (at start and at every rescan)
 * take out those of every wqrtctl that is gone.
 *
 * Plain reads and writes of the tracing directory through the system
 * calls' table (sysops.h), which wqrtd has without libtracefs, and which
 * a fake root gives tracefs's manners (removing a trigger or an event by
 * writing it with a '!', an instance by rmdir). Every failure is said
 * with its path.
 */
#ifndef WQRT_TRACEDIR_H
#define WQRT_TRACEDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "sysops.h"
#include "util.h"

#define TRACE_PREFIX "wqrtctl"

/*
 * The tracing directory under root: ROOT/sys/kernel/tracing, else
 * ROOT/sys/kernel/debug/tracing, the first with an instances directory.
 * 0, or -ENOENT (no tracefs mounted there).
 */
int tracedir_find(const char *root, char *dir, size_t size);

/*
 * The pid in a name wqrtctl gives: "wqrtctl-PID" (an instance) or
 * "wqrtctl_PID_..." (a synthetic event); 0 for any other name.
 */
pid_t tracedir_owner(const char *name);
/*
 * Is pid a running wqrtctl? Asked of the real /proc: the owner of a
 * tracefs instance is a real process, also under --root.
 */
bool tracedir_owner_alive(pid_t pid);

/*
 * Take out instance (its triggers of the synthetic and workqueue events,
 * then itself; NULL: none) and every synthetic event whose name starts
 * with prefix (NULL: none), under dir, through ops. Each failure is added
 * to errors as "PATH: cannot remove WHAT: why". Returns the failures.
 */
int tracedir_remove(const struct sys_ops *ops, const char *dir,
		    const char *instance, const char *prefix,
		    struct strlist *errors);

/*
 * Take out what every wqrtctl that runs no longer left under dir, and
 * what a process of pid self left (it has not made its own yet: the
 * pid was another's before; 0: none). *removed: the instances and events
 * taken out. Returns the failures, each in errors.
 */
int tracedir_clean(const struct sys_ops *ops, const char *dir, pid_t self,
		   int *removed, struct strlist *errors);

#endif
