// SPDX-License-Identifier: GPL-2.0-only
#include "sysops.h"
#include "task.h"
#include "tracefake.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sched_attr (SCHED_ATTR_SIZE_VER1); glibc 2.36 lacks it */
struct kernel_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
	uint32_t sched_util_min;
	uint32_t sched_util_max;
};

static int real_get(void *ctx, pid_t pid, struct sched_val *v)
{
	struct kernel_sched_attr a;

	(void)ctx;
	memset(&a, 0, sizeof(a));
	if (syscall(SYS_sched_getattr, pid, &a, sizeof(a), 0) < 0)
		return -errno;
	v->policy = (int)a.sched_policy;
	v->rtprio = (int)a.sched_priority;
	v->nice = a.sched_nice;
	v->flags = a.sched_flags & SCHED_FLAG_RESET_ON_FORK;
	return 0;
}

static int real_set(void *ctx, pid_t pid, const struct sched_val *v)
{
	struct kernel_sched_attr a;

	(void)ctx;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = v->policy;
	a.sched_flags = v->flags & SCHED_FLAG_RESET_ON_FORK;
	a.sched_priority = v->rtprio;
	a.sched_nice = v->nice;
	if (syscall(SYS_sched_setattr, pid, &a, 0) < 0)
		return -errno;
	return 0;
}

static int real_write(void *ctx, const char *path, const char *val)
{
	(void)ctx;
	return write_text(path, val);
}

static int real_pidfd_open(void *ctx, pid_t pid)
{
	long fd;

	(void)ctx;
	fd = syscall(SYS_pidfd_open, pid, 0);
	return fd < 0 ? -errno : (int)fd;
}

/* A pidfd polls readable once its task has exited */
static int real_pidfd_exited(void *ctx, int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	(void)ctx;
	n = poll(&p, 1, 0);
	if (n < 0)
		return -errno;
	return n > 0;
}

static int real_open(const char *path, int flags, mode_t mode)
{
	return open(path, flags, mode);
}

/* The calls of a durable save: the real ones, or a test's (ctx) */
static const struct file_calls real_file_calls = {
	.open = real_open,
	.write = write,
	.fsync = fsync,
	.close = close,
	.rename = rename,
	.unlink = unlink,
};

/* fsync the directory that holds path: a rename in it is then durable */
static int sync_dir_of(const struct file_calls *fc, const char *path)
{
	char dir[WQRT_PATH_MAX];
	char *slash;
	int fd, err = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		*(slash == dir ? slash + 1 : slash) = '\0';
	fd = fc->open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (fc->fsync(fd))
		err = -errno;
	fc->close(fd);
	return err;
}

int sys_save_file(void *ctx, const char *path, const char *text, size_t len)
{
	const struct file_calls *fc = ctx ? ctx : &real_file_calls;
	char tmp[WQRT_PATH_MAX + 8];
	size_t done = 0;
	ssize_t n;
	int fd, err = 0;

	if (!text) {
		if (fc->unlink(path) && errno != ENOENT)
			return -errno;
		return sync_dir_of(fc, path);
	}
	if (snprintf(tmp, sizeof(tmp), "%s.new", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = fc->open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		      0600);
	if (fd < 0)
		return -errno;
	while (!err && done < len) {
		n = fc->write(fd, text + done, len - done);
		if (n < 0 && errno != EINTR)
			err = -errno;
		else if (n == 0)
			err = -EIO; /* no progress: never spin */
		else if (n > 0)
			done += n;
	}
	/* ENOSPC and EIO may only show here */
	if (!err && fc->fsync(fd))
		err = -errno;
	if (fc->close(fd) && !err)
		err = -errno;
	if (!err && fc->rename(tmp, path))
		err = -errno;
	if (err) {
		fc->unlink(tmp);
		return err;
	}
	return sync_dir_of(fc, path);
}

int sys_lstat(void *ctx, const char *path, struct stat *st)
{
	(void)ctx;
	return lstat(path, st) ? -errno : 0;
}

struct dirent *sys_readdir(void *ctx, DIR *dir)
{
	(void)ctx;
	return readdir(dir);
}

static int real_trace_write(void *ctx, const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd, err = 0;

	(void)ctx;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int real_rmdir(void *ctx, const char *path)
{
	(void)ctx;
	return rmdir(path) ? -errno : 0;
}

const struct sys_ops sys_ops_real = {
	.sched_get = real_get,
	.sched_set = real_set,
	.write_attr = real_write,
	.pidfd_open = real_pidfd_open,
	.pidfd_exited = real_pidfd_exited,
	.save_file = sys_save_file,
	.lstat = sys_lstat,
	.readdir = sys_readdir,
	.trace_write = real_trace_write,
	.rmdir = real_rmdir,
};

static int fake_get(void *ctx, pid_t pid, struct sched_val *v)
{
	struct task_info t;
	int err = task_read(ctx, pid, &t);

	if (err)
		return err == -ENOENT ? -ESRCH : err;
	v->policy = t.policy;
	v->rtprio = t.rtprio;
	v->nice = t.nice;
	return 0;
}

/* Rewrite fields 19 (nice), 40 (rt_priority), 41 (policy) of the stat file */
static int fake_set(void *ctx, pid_t pid, const struct sched_val *v)
{
	char path[WQRT_PATH_MAX], buf[1024], out[1200], *p, *tok, *save;
	size_t len;
	int field = 3;

	if (path_fmt(path, sizeof(path), ctx, "/proc/%d/stat", (int)pid))
		return -ENAMETOOLONG;
	if (read_text(path, buf, sizeof(buf)))
		return -ESRCH;
	p = strrchr(buf, ')');
	if (!p)
		return -EINVAL;
	*p++ = '\0';
	len = snprintf(out, sizeof(out), "%s)", buf);
	for (tok = strtok_r(p, " ", &save); tok && len < sizeof(out);
	     tok = strtok_r(NULL, " ", &save), field++) {
		if (field == 19)
			len += snprintf(out + len, sizeof(out) - len, " %d",
					v->nice);
		else if (field == 40)
			len += snprintf(out + len, sizeof(out) - len, " %d",
					v->rtprio);
		else if (field == 41)
			len += snprintf(out + len, sizeof(out) - len, " %d",
					v->policy);
		else
			len += snprintf(out + len, sizeof(out) - len, " %s",
					tok);
	}
	if (len >= sizeof(out) - 1)
		return -EOVERFLOW;
	strcat(out, "\n");
	return write_text(path, out);
}

/* ctx is the root: the real calls save */
static int fake_save_file(void *ctx, const char *path, const char *text,
			  size_t len)
{
	(void)ctx;
	return sys_save_file(NULL, path, text, len);
}

const struct sys_ops sys_ops_fake_root = {
	.sched_get = fake_get,
	.sched_set = fake_set,
	.write_attr = real_write,
	.save_file = fake_save_file,
	.lstat = sys_lstat,
	.readdir = sys_readdir,
	.trace_write = fake_trace_write,
	.rmdir = fake_rmdir,
};

void sys_ops_for_root(struct sys_ops *o, const char *root)
{
	if (root_is_real(root)) {
		*o = sys_ops_real;
	} else {
		*o = sys_ops_fake_root;
		o->ctx = (void *)root;
	}
}

bool sched_val_equal(const struct sched_val *a, const struct sched_val *b)
{
	if (a->policy != b->policy || a->rtprio != b->rtprio)
		return false;
	/* nice only means something for the fair classes */
	return a->policy == SCHED_FIFO || a->policy == SCHED_RR ||
	       a->nice == b->nice;
}
