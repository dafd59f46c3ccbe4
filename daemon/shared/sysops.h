/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The system calls wqrtd makes on other tasks and on sysfs, behind a table
 * so unit tests can inject them and their failures.
 */
#ifndef WQRT_SYSOPS_H
#define WQRT_SYSOPS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

struct sched_val {
	int policy; /* SCHED_OTHER, SCHED_FIFO, SCHED_RR, ... */
	int rtprio;
	int nice;
	/*
	 * SCHED_FLAG_RESET_ON_FORK: set on every policy wqrtd sets (as
	 * rtkit does), so that a task that took the pid in the window and
	 * forks passes no real-time policy on. Not compared.
	 */
	unsigned int flags;
};

#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif

struct sys_ops {
	/* 0 or -errno */
	int (*sched_get)(void *ctx, pid_t pid, struct sched_val *v);
	int (*sched_set)(void *ctx, pid_t pid, const struct sched_val *v);
	int (*write_attr)(void *ctx, const char *path, const char *val);
	/*
	 * A pidfd for pid (-errno), and whether its task has exited since
	 * (1, 0, or -errno). NULL where there are no real tasks (--root).
	 */
	int (*pidfd_open)(void *ctx, pid_t pid);
	int (*pidfd_exited)(void *ctx, int fd);
	/*
	 * Replace path with the len bytes of text, durably: written to
	 * path.new, synced, renamed over path, the directory synced; text
	 * NULL removes path. 0 or -errno; on an error path is as it was and
	 * no path.new is left behind.
	 */
	int (*save_file)(void *ctx, const char *path, const char *text,
			 size_t len);
	/* lstat(2) and readdir(3) while listing /sys and /proc */
	int (*lstat)(void *ctx, const char *path, struct stat *st);
	struct dirent *(*readdir)(void *ctx, DIR *dir);
	/*
	 * tracefs (tracedir.h): append text to the file at path, in one
	 * write, as a trigger or event is added ("!..." takes one out); and
	 * rmdir(2), as an instance is taken out. 0 or -errno.
	 */
	int (*trace_write)(void *ctx, const char *path, const char *text);
	int (*rmdir)(void *ctx, const char *path);
	void *ctx;
};

/*
 * The system calls of sys_save_file(), each as its libc function (-1 and
 * errno): the tests give theirs, to see each call and fail any of them.
 */
struct file_calls {
	int (*open)(const char *path, int flags, mode_t mode);
	ssize_t (*write)(int fd, const void *buf, size_t n);
	int (*fsync)(int fd);
	int (*close)(int fd);
	int (*rename)(const char *from, const char *to);
	int (*unlink)(const char *path);
};

/*
 * The real save_file (ctx: a struct file_calls, NULL for the real ones),
 * lstat and readdir (0 or -errno; NULL, errno)
 */
int sys_save_file(void *ctx, const char *path, const char *text, size_t len);
int sys_lstat(void *ctx, const char *path, struct stat *st);
struct dirent *sys_readdir(void *ctx, DIR *dir);


/* sched_getattr()/sched_setattr() and write(2). */
extern const struct sys_ops sys_ops_real;

/*
 * For --root: tasks under a fake /proc are not real tasks, so scheduling
 * is read from and written to the policy/rt_priority/nice fields of
 * ROOT/proc/PID/stat; and a fake tracing directory is plain files, so
 * tracefs's manners are played: "!LINE" written to a trigger file takes
 * that line out (-ENOENT when there is none), "!NAME" written to
 * synthetic_events takes the event out with its directories (-EBUSY
 * while a trigger names it), anything else is appended as a line; an
 * instance's rmdir takes its files with it. ctx is the root directory.
 */
extern const struct sys_ops sys_ops_fake_root;

/* The real calls for "/", the stat-file ones for a fake root. */
void sys_ops_for_root(struct sys_ops *o, const char *root);

bool sched_val_equal(const struct sched_val *a, const struct sched_val *b);

#endif
