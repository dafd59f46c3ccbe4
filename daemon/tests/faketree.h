/* SPDX-License-Identifier: GPL-2.0-only */
/* A fake /sys and /proc in a temp dir, for the unit tests. */
#ifndef WQRT_FAKETREE_H
#define WQRT_FAKETREE_H

#include <stdbool.h>
#include <sys/types.h>

/* an attribute's text: pool_ids of 512 pods is some 5000 bytes */
#define FT_ATTR_MAX 8192

struct faketree {
	char root[256];
};

void ft_init(struct faketree *ft);
void ft_cleanup(struct faketree *ft);
/* Write a file under the root (parents made). */
void ft_write(struct faketree *ft, const char *rel, const char *content);
/* A workqueue with 6.12's attributes, and the series' when series. */
void ft_wq(struct faketree *ft, const char *name, bool series);
void ft_set(struct faketree *ft, const char *wq, const char *attr,
	    const char *val);
/* The attribute's content without the newline (static buffer). */
const char *ft_get(struct faketree *ft, const char *wq, const char *attr);
void ft_readonly(struct faketree *ft, const char *wq, const char *attr);
/* ROOT/proc/PID/status with voluntary_ctxt_switches = N */
void ft_task_switches(struct faketree *ft, pid_t pid, unsigned long n);
/* A task: ROOT/proc/PID/stat; ppid 2 + PF_KTHREAD makes it a kworker. */
void ft_task(struct faketree *ft, pid_t pid, pid_t ppid, const char *comm,
	     int policy, int rtprio, int nice, unsigned long long start);
/* A task with these flags (PF_KTHREAD or not), SCHED_OTHER nice 0 */
void ft_task_flags(struct faketree *ft, pid_t pid, pid_t ppid,
		   unsigned int flags, const char *comm,
		   unsigned long long start);
void ft_task_sched(struct faketree *ft, pid_t pid, pid_t ppid,
		   unsigned int flags, const char *comm, int policy,
		   int rtprio, int nice, unsigned long long start);
void ft_task_rm(struct faketree *ft, pid_t pid);
/*
 * A tracing directory, ROOT/sys/kernel/tracing, with the workqueue events
 * and synthetic_events; its path (static buffer)
 */
const char *ft_tracefs(struct faketree *ft);
/*
 * What a wqrtctl of pid owner leaves when it is killed: its instance
 * with histogram triggers, its two synthetic events
 */
void ft_trace_leak(struct faketree *ft, pid_t owner);
/* A temp config file holding text; returns its path (static buffer). */
const char *ft_conf(struct faketree *ft, const char *text);

/* Log lines are captured, not printed, once this is called. */
void ft_capture_logs(void);
/* Was a line containing substr logged since the last ft_clear_logs()? */
bool ft_logged(const char *substr);
/* ... at priority prio (LOG_NOTICE, ...)? */
bool ft_logged_at(int prio, const char *substr);
void ft_clear_logs(void);
void ft_dump_logs(void);

#include "sysops.h"
#include "util.h"

/* The --root ops, with failures injected and writes recorded. */
struct fake_ops {
	struct sys_ops ops;
	const char *root;
	const char *fail_attr; /* path suffix, e.g. "tty_flip/rtprio" */
	int fail_err; /* -errno, or > 0: silently ignored */
	pid_t fail_pid; /* sched_setattr on it fails */
	int fail_sched_err;
	struct strlist writes; /* "wq/attr=value", in order */
	unsigned int sched_sets;
	/* ... of which without SCHED_FLAG_RESET_ON_FORK */
	unsigned int sched_sets_inherit;
	/* the n-th write and every one after it fails with fail_err (0: off) */
	unsigned int fail_from;
	/* before each write and sched_set: snap = the content of snap_path */
	const char *snap_path;
	struct strlist snaps; /* "wq/attr=value|CONTENT" or "pid N|CONTENT" */
	/*
	 * sched_set on reuse_pid: first the pid goes to another task, a
	 * user process ("evil"); with reuse_comm, a task of that name,
	 * forked by kthreadd: a kernel thread with reuse_kthread, else a
	 * usermode helper (no PF_KTHREAD)
	 */
	pid_t reuse_pid;
	const char *reuse_comm;
	bool reuse_kthread;
	/* its pidfd says exiting_pid exited (it is still in /proc) */
	pid_t exiting_pid;
	pid_t pidfd_pid; /* the pid of the last pidfd opened */
	/* the n-th write to a workqueue removes its directory (destroyed) */
	unsigned int vanish_from;
	/* a write of a pool attribute gives the workqueue new pool_ids */
	bool new_pools;
	/* saving the originals fails with it (-ENOSPC, -EIO, -EROFS) */
	int fail_save;
	unsigned int saves; /* the originals files written */
	/* lstat of a path ending so fails with fail_lstat_err */
	const char *fail_lstat;
	int fail_lstat_err;
	/* readdir of a directory whose path ends so fails (EIO) */
	const char *fail_readdir;
	/* a tracefs write or rmdir whose path ends so fails with it */
	const char *fail_trace;
	int fail_trace_err;
	unsigned int trace_writes;
};
void ft_ops_init(struct fake_ops *fo, struct faketree *ft);
/* A test's teardown: what the ops recorded, the captured logs, the tree. */
void ft_ops_cleanup(struct fake_ops *fo, struct faketree *ft);
/* The writes joined with spaces (static buffer). */
const char *ft_writes(struct fake_ops *fo);

#endif
