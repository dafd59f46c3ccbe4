// SPDX-License-Identifier: GPL-2.0-only
#include "faketree.h"
#include "common.h"
#include "discover.h"
#include "log.h"
#include "tracefake.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void die(const char *what)
{
	perror(what);
	abort();
}

void ft_init(struct faketree *ft)
{
	snprintf(ft->root, sizeof(ft->root), "/tmp/wqrt-test.XXXXXX");
	if (!mkdtemp(ft->root))
		die("mkdtemp");
	ft_write(ft, "/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

void ft_cleanup(struct faketree *ft)
{
	nftw(ft->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkparents(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			die(path);
		*p = '/';
	}
}

void ft_write(struct faketree *ft, const char *rel, const char *content)
{
	char path[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", ft->root, rel);
	mkparents(path);
	f = fopen(path, "w");
	if (!f)
		die(path);
	fputs(content, f);
	fclose(f);
}

void ft_wq(struct faketree *ft, const char *name, bool series)
{
	static const char *const base[][2] = {
		{ "nice", "0" },
		{ "cpumask", "0000000f" },
		{ "affinity_scope", "default (cache)" },
		{ "affinity_strict", "0" },
		{ "max_active", "256" },
		{ "per_cpu", "0" },
	};
	static const char *const more[][2] = {
		{ "policy", "normal" },	  { "rtprio", "0" },
		{ "nr_idle_extra", "0" }, { "private", "0" },
		{ "pool_ids", "0:5" },
	};
	size_t i;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		ft_set(ft, name, base[i][0], base[i][1]);
	for (i = 0; series && i < sizeof(more) / sizeof(more[0]); i++)
		ft_set(ft, name, more[i][0], more[i][1]);
	if (series)
		ft_readonly(ft, name, "pool_ids");
}

void ft_set(struct faketree *ft, const char *wq, const char *attr,
	    const char *val)
{
	char rel[300], text[FT_ATTR_MAX];

	snprintf(rel, sizeof(rel), WQ_SYSFS_DIR "/%s/%s", wq, attr);
	snprintf(text, sizeof(text), "%s\n", val);
	ft_write(ft, rel, text);
}

const char *ft_get(struct faketree *ft, const char *wq, const char *attr)
{
	static char buf[FT_ATTR_MAX];
	char path[600];

	snprintf(path, sizeof(path), "%s" WQ_SYSFS_DIR "/%s/%s", ft->root, wq, attr);
	if (read_text(path, buf, sizeof(buf)))
		return "(missing)";
	return buf;
}

void ft_readonly(struct faketree *ft, const char *wq, const char *attr)
{
	char path[600];

	snprintf(path, sizeof(path), "%s" WQ_SYSFS_DIR "/%s/%s", ft->root, wq, attr);
	if (chmod(path, 0444))
		die(path);
}

void ft_task(struct faketree *ft, pid_t pid, pid_t ppid, const char *comm,
	     int policy, int rtprio, int nice, unsigned long long start)
{
	ft_task_sched(ft, pid, ppid,
		      ppid == KTHREADD_PID ? PF_KTHREAD | 0x40 : 0x40, comm,
		      policy, rtprio, nice, start);
}

void ft_task_flags(struct faketree *ft, pid_t pid, pid_t ppid,
		   unsigned int flags, const char *comm,
		   unsigned long long start)
{
	ft_task_sched(ft, pid, ppid, flags | 0x40, comm, SCHED_OTHER, 0, 0,
		      start);
}

void ft_task_sched(struct faketree *ft, pid_t pid, pid_t ppid,
		   unsigned int flags, const char *comm, int policy,
		   int rtprio, int nice, unsigned long long start)
{
	char rel[64], stat[600];

	/* fields 1..52 of proc(5) */
	snprintf(stat, sizeof(stat),
		 "%d (%s) S %d 0 0 0 -1 %u 0 0 0 0 0 0 0 0 %d %d 1 0 %llu "
		 "0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 "
		 "0 17 1 %d %d 0 0 0 0 0 0 0 0 0 0 0\n",
		 (int)pid, comm, (int)ppid, flags,
		 policy ? -1 - rtprio : 20 + nice, nice, start, rtprio, policy);
	snprintf(rel, sizeof(rel), "/proc/%d/stat", (int)pid);
	ft_write(ft, rel, stat);
}

void ft_task_switches(struct faketree *ft, pid_t pid, unsigned long n)
{
	char rel[64], status[200];

	snprintf(status, sizeof(status),
		 "Name:\tx\nState:\tD (disk sleep)\n"
		 "voluntary_ctxt_switches:\t%lu\n"
		 "nonvoluntary_ctxt_switches:\t0\n", n);
	snprintf(rel, sizeof(rel), "/proc/%d/status", (int)pid);
	ft_write(ft, rel, status);
}

void ft_task_rm(struct faketree *ft, pid_t pid)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/proc/%d/stat", ft->root, (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/%d/status", ft->root, (int)pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/proc/%d", ft->root, (int)pid);
	rmdir(path);
}

const char *ft_tracefs(struct faketree *ft)
{
	static const char *const events[] = { "workqueue_queue_work",
					      "workqueue_execute_start",
					      "workqueue_execute_end" };
	static char dir[300];
	char rel[200];
	size_t i;

	snprintf(dir, sizeof(dir), "%s/sys/kernel/tracing/instances",
		 ft->root);
	/* made once: a second call keeps what is there */
	if (!mkdir(dir, 0755) || errno != EEXIST) {
		for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
			snprintf(rel, sizeof(rel),
				 "/sys/kernel/tracing/events/workqueue/%s/trigger",
				 events[i]);
			ft_write(ft, rel, "");
			snprintf(rel, sizeof(rel),
				 "/sys/kernel/tracing/events/workqueue/%s/hist",
				 events[i]);
			ft_write(ft, rel, "");
		}
		ft_write(ft, "/sys/kernel/tracing/synthetic_events", "");
		mkdir(dir, 0755);
	}
	*strrchr(dir, '/') = '\0';
	return dir;
}

void ft_trace_leak(struct faketree *ft, pid_t owner)
{
	static const char *const events[] = { "workqueue_queue_work",
					      "workqueue_execute_start",
					      "workqueue_execute_end" };
	char dir[300], path[600], cmd[300];
	size_t i;

	snprintf(dir, sizeof(dir), "%s", ft_tracefs(ft));
	snprintf(path, sizeof(path), "%s/instances/wqrtctl-%d/events/workqueue",
		 dir, (int)owner);
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		snprintf(cmd, sizeof(cmd),
			 "/sys/kernel/tracing/instances/wqrtctl-%d/events/workqueue/%s/trigger",
			 (int)owner, events[i]);
		ft_write(ft, cmd, "");
	}
	snprintf(path, sizeof(path), "%s/synthetic_events", dir);
	snprintf(cmd, sizeof(cmd), "wqrtctl_%d_lat char wq[32]; u64 lat",
		 (int)owner);
	fake_trace_write(NULL, path, cmd);
	snprintf(cmd, sizeof(cmd), "wqrtctl_%d_run char wq[32]; u64 run",
		 (int)owner);
	fake_trace_write(NULL, path, cmd);
	snprintf(path, sizeof(path),
		 "%s/instances/wqrtctl-%d/events/synthetic/wqrtctl_%d_lat/trigger",
		 dir, (int)owner, (int)owner);
	snprintf(cmd, sizeof(cmd),
		 "hist:name=wqrtctl_%d_lat0:keys=wq,lat:vals=hitcount:sort=hitcount:size=2048 if lat < 1000 [active]",
		 (int)owner);
	fake_trace_write(NULL, path, cmd);
	snprintf(path, sizeof(path),
		 "%s/instances/wqrtctl-%d/events/workqueue/workqueue_queue_work/trigger",
		 dir, (int)owner);
	fake_trace_write(NULL, path,
			 "hist:keys=work:vals=hitcount:qts=common_timestamp.usecs:sort=hitcount:size=2048 [active]");
	snprintf(path, sizeof(path),
		 "%s/instances/wqrtctl-%d/events/workqueue/workqueue_execute_start/trigger",
		 dir, (int)owner);
	snprintf(cmd, sizeof(cmd),
		 "hist:keys=work:vals=hitcount:lat=common_timestamp.usecs-$qts:sort=hitcount:size=2048:onmatch(workqueue.workqueue_queue_work).trace(wqrtctl_%d_lat,$lat) [active]",
		 (int)owner);
	fake_trace_write(NULL, path, cmd);
}

const char *ft_conf(struct faketree *ft, const char *text)
{
	static char path[300];

	ft_write(ft, "/wqrt.conf", text);
	snprintf(path, sizeof(path), "%s/wqrt.conf", ft->root);
	/* what wqrtd trusts: root's (ours), written by no one else */
	if (chmod(path, 0644))
		die(path);
	return path;
}

static struct strlist logs;
/* the priority of each line of logs */
static int *log_prios;

/* The message, then the journal fields tests look for, if any */
static void sink(int prio, const struct log_ctx *c, const char *msg)
{
	const char *id = log_msgid(prio, c);
	char extra[128] = "";
	size_t n = 0;

	if (id)
		n += snprintf(extra + n, sizeof(extra) - n, " MESSAGE_ID=%s",
			      id);
	if (c && c->pid && n < sizeof(extra))
		snprintf(extra + n, sizeof(extra) - n, " OBJECT_PID=%d",
			 (int)c->pid);
	strlist_add(&logs, "%s%s%s%s", prio <= LOG_ERR ? "error: " : "", msg,
		    *extra ? " |" : "", extra);
	log_prios = realloc(log_prios, logs.n * sizeof(*log_prios));
	if (!log_prios)
		die("realloc");
	log_prios[logs.n - 1] = prio;
}

void ft_capture_logs(void)
{
	log_set_sink(sink);
	log_set_level(LOG_DEBUG);
}

bool ft_logged(const char *substr)
{
	size_t i;

	for (i = 0; i < logs.n; i++)
		if (strstr(logs.v[i], substr))
			return true;
	return false;
}

bool ft_logged_at(int prio, const char *substr)
{
	size_t i;

	for (i = 0; i < logs.n; i++)
		if (log_prios[i] == prio && strstr(logs.v[i], substr))
			return true;
	return false;
}

void ft_clear_logs(void)
{
	strlist_free(&logs);
	free(log_prios);
	log_prios = NULL;
}

void ft_dump_logs(void)
{
	size_t i;

	for (i = 0; i < logs.n; i++)
		fprintf(stderr, "  log: %s\n", logs.v[i]);
}

static void snap(struct fake_ops *fo, const char *what)
{
	char buf[4096];

	if (!fo->snap_path)
		return;
	if (read_text(fo->snap_path, buf, sizeof(buf)))
		buf[0] = '\0';
	strlist_add(&fo->snaps, "%s|%s", what, buf);
}

/* The kernel gives a workqueue new pools when their attributes change */
static void renumber_pools(const char *path)
{
	static const char *const pool_attrs[] = {
		"/policy", "/rtprio", "/nice", "/cpumask", "/private",
		"/affinity_scope", "/affinity_strict", "/nr_idle_extra",
	};
	char ids_path[600], buf[300], out[300];
	const char *slash = strrchr(path, '/');
	size_t i, len = 0;
	int pod, pool, used;
	const char *p = buf;

	for (i = 0; i < sizeof(pool_attrs) / sizeof(pool_attrs[0]); i++)
		if (!strcmp(slash, pool_attrs[i]))
			break;
	if (i == sizeof(pool_attrs) / sizeof(pool_attrs[0]))
		return;
	snprintf(ids_path, sizeof(ids_path), "%.*s/pool_ids",
		 (int)(slash - path), path);
	if (read_text(ids_path, buf, sizeof(buf)))
		return;
	out[0] = '\0';
	while (sscanf(p, "%d:%d%n", &pod, &pool, &used) == 2) {
		len += snprintf(out + len, sizeof(out) - len, "%s%d:%d",
				len ? " " : "", pod, pool + 100);
		p += used;
	}
	strcat(out, "\n");
	chmod(ids_path, 0644);
	write_text(ids_path, out);
	chmod(ids_path, 0444);
}

static int fo_write(void *ctx, const char *path, const char *val)
{
	struct fake_ops *fo = ctx;
	const char *wq = strstr(path, WQ_SYSFS_DIR "/");
	size_t lp = strlen(path);
	char what[400];
	int err;

	wq = wq ? wq + strlen(WQ_SYSFS_DIR "/") : path;
	strlist_add(&fo->writes, "%s=%s", wq, val);
	snprintf(what, sizeof(what), "%s=%s", wq, val);
	snap(fo, what);
	if (fo->fail_from && fo->writes.n >= fo->fail_from)
		return fo->fail_err;
	if (fo->vanish_from && fo->writes.n >= fo->vanish_from) {
		char dir[600];

		/* the workqueue is destroyed: its directory goes */
		snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path),
			 path);
		nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		return -ENOENT;
	}
	/* fail_err > 0: the write "succeeds" but changes nothing */
	if (fo->fail_attr && lp >= strlen(fo->fail_attr) &&
	    !strcmp(path + lp - strlen(fo->fail_attr), fo->fail_attr))
		return fo->fail_err > 0 ? 0 : fo->fail_err;
	err = sys_ops_fake_root.write_attr(NULL, path, val);
	if (!err && fo->new_pools)
		renumber_pools(path);
	return err;
}

static int fo_get(void *ctx, pid_t pid, struct sched_val *v)
{
	struct fake_ops *fo = ctx;

	return sys_ops_fake_root.sched_get((void *)fo->root, pid, v);
}

static int fo_set(void *ctx, pid_t pid, const struct sched_val *v)
{
	struct fake_ops *fo = ctx;

	char what[32];

	fo->sched_sets++;
	if (!(v->flags & SCHED_FLAG_RESET_ON_FORK))
		fo->sched_sets_inherit++;
	snprintf(what, sizeof(what), "pid %d", (int)pid);
	snap(fo, what);
	/* fail_sched_err > 0: sched_setattr() "succeeds", nothing changes */
	if (fo->fail_pid && pid == fo->fail_pid)
		return fo->fail_sched_err > 0 ? 0 : fo->fail_sched_err;
	if (fo->reuse_pid && pid == fo->reuse_pid) {
		struct faketree ft;

		/* the kworker exits, another task gets its pid */
		snprintf(ft.root, sizeof(ft.root), "%s", fo->root);
		if (!fo->reuse_comm)
			ft_task(&ft, pid, 1000, "evil", SCHED_OTHER, 0, 0,
				99999);
		else
			ft_task_flags(&ft, pid, KTHREADD_PID,
				      fo->reuse_kthread ? PF_KTHREAD : 0,
				      fo->reuse_comm, 99999);
		fo->reuse_pid = 0;
	}
	return sys_ops_fake_root.sched_set((void *)fo->root, pid, v);
}

/* A real fd (the caller closes it), standing for pid */
static int fo_pidfd_open(void *ctx, pid_t pid)
{
	struct fake_ops *fo = ctx;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	fo->pidfd_pid = pid;
	return fd < 0 ? -errno : fd;
}

static int fo_pidfd_exited(void *ctx, int fd)
{
	struct fake_ops *fo = ctx;

	(void)fd;
	return fo->exiting_pid && fo->pidfd_pid == fo->exiting_pid;
}

/* The originals are saved as wqrtd saves them, unless told to fail */
static int fo_save_file(void *ctx, const char *path, const char *text,
			size_t len)
{
	struct fake_ops *fo = ctx;

	fo->saves++;
	if (fo->fail_save)
		return fo->fail_save;
	return sys_save_file(NULL, path, text, len);
}

static int fo_lstat(void *ctx, const char *path, struct stat *st)
{
	struct fake_ops *fo = ctx;
	size_t lp = strlen(path);

	if (fo->fail_lstat && lp >= strlen(fo->fail_lstat) &&
	    !strcmp(path + lp - strlen(fo->fail_lstat), fo->fail_lstat))
		return fo->fail_lstat_err;
	return sys_lstat(NULL, path, st);
}

static struct dirent *fo_readdir(void *ctx, DIR *dir)
{
	struct fake_ops *fo = ctx;
	char link[64], path[600];
	ssize_t n;

	if (fo->fail_readdir) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd(dir));
		n = readlink(link, path, sizeof(path) - 1);
		path[n > 0 ? n : 0] = '\0';
		n = strlen(path) - strlen(fo->fail_readdir);
		if (n >= 0 && !strcmp(path + n, fo->fail_readdir)) {
			errno = EIO;
			return NULL;
		}
	}
	return sys_readdir(NULL, dir);
}

static bool fails_trace(struct fake_ops *fo, const char *path)
{
	size_t lp = strlen(path);

	return fo->fail_trace && lp >= strlen(fo->fail_trace) &&
	       !strcmp(path + lp - strlen(fo->fail_trace), fo->fail_trace);
}

static int fo_trace_write(void *ctx, const char *path, const char *text)
{
	struct fake_ops *fo = ctx;

	fo->trace_writes++;
	if (fails_trace(fo, path))
		return fo->fail_trace_err;
	return fake_trace_write(NULL, path, text);
}

static int fo_rmdir(void *ctx, const char *path)
{
	struct fake_ops *fo = ctx;

	if (fails_trace(fo, path))
		return fo->fail_trace_err;
	return fake_rmdir(NULL, path);
}

void ft_ops_init(struct fake_ops *fo, struct faketree *ft)
{
	memset(fo, 0, sizeof(*fo));
	fo->root = ft->root;
	fo->ops.sched_get = fo_get;
	fo->ops.sched_set = fo_set;
	fo->ops.write_attr = fo_write;
	fo->ops.pidfd_open = fo_pidfd_open;
	fo->ops.pidfd_exited = fo_pidfd_exited;
	fo->ops.save_file = fo_save_file;
	fo->ops.lstat = fo_lstat;
	fo->ops.readdir = fo_readdir;
	fo->ops.trace_write = fo_trace_write;
	fo->ops.rmdir = fo_rmdir;
	fo->ops.ctx = fo;
}

void ft_ops_cleanup(struct fake_ops *fo, struct faketree *ft)
{
	strlist_free(&fo->writes);
	strlist_free(&fo->snaps);
	ft_clear_logs();
	ft_cleanup(ft);
}

const char *ft_writes(struct fake_ops *fo)
{
	static char buf[2048];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < fo->writes.n && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? " " : "", fo->writes.v[i]);
	return buf;
}
