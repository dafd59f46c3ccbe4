/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A task as /proc shows it: its stat file read into a struct task_info,
 * whether it is a kworker, whether it has slept yet.
 */
#ifndef WQRT_TASK_H
#define WQRT_TASK_H

#include <stdbool.h>
#include <sys/types.h>

#define COMM_MAX 64
#define KTHREADD_PID 2

struct task_info {
	pid_t pid;
	pid_t ppid;
	char state; /* R, S, D, Z (exited, not reaped yet), X, ... */
	unsigned int flags;
	unsigned long long start; /* clock ticks after boot: PID reuse guard */
	int nice;
	int rtprio;
	int policy; /* SCHED_* */
	char comm[COMM_MAX];
};

#define PF_KTHREAD 0x00200000

/* Parse ROOT/proc/PID/stat. -ENOENT if the task is gone. */
int task_read(const char *root, pid_t pid, struct task_info *t);
int task_parse_stat(const char *stat, struct task_info *t);
/*
 * Is the task at pid the kernel thread (a child of kthreadd) that started
 * at start, and not another task that has the pid now? t: what was read.
 */
bool task_same_kthread(const char *root, pid_t pid, unsigned long long start,
		       struct task_info *t);
/* A kernel thread forked by kthreadd whose name starts with "kworker/" */
bool task_is_kworker(const struct task_info *t);
/*
 * Has the task ever given up the CPU of its own accord (ROOT/proc/PID/status
 * voluntary_ctxt_switches > 0)? A new kernel thread first runs kthread(),
 * which resets its scheduling policy to SCHED_NORMAL and then sleeps until
 * its creator wakes it; a policy set before that sleep is lost. True when
 * the count cannot be read (a fake tree without status files).
 */
bool task_has_slept(const char *root, pid_t pid);

#endif
