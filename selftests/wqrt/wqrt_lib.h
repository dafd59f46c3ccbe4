/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the wqrt kselftests: sysfs access, attribute snapshots
 * and their restore, fresh pools, the wqrt_test module's debugfs
 * interface, kworker enumeration and sched_getattr().
 *
 * Header-only (static functions) so each test is a single translation
 * unit, as tools/testing/selftests/lib.mk builds them.
 */
#ifndef WQRT_LIB_H
#define WQRT_LIB_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define WQ_DIR		"/sys/devices/virtual/workqueue"
#define DBG_DIR		"/sys/kernel/debug/wqrt_test"
#define WQPARAM_DIR	"/sys/module/workqueue/parameters"
/* the unbound cpumask, which cpuset isolation rewrites */
#define WQ_UNBOUND_CPUMASK	WQ_DIR "/cpumask"
#define CPU_DIR		"/sys/devices/system/cpu"

#define WQ_UNBOUND_NAME	"wqrt_test_unbound"
#define WQ_ORDERED_NAME	"wqrt_test_ordered"
#define WQ_RECLAIM_NAME	"wqrt_test_reclaim"
#define WQ_TWIN_NAME	"wqrt_test_twin"
#define WQ_CULL_NAME	"wqrt_test_cull"

#define WQRT_RESULT_MAX	16384

/* ------------------------------------------------------------------ */
/* time                                                                */

static inline double wqrt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void wqrt_msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* files                                                               */

/* Read a file; strip one trailing newline.  Returns length or -errno. */
static inline int wqrt_read(const char *path, char *buf, size_t len)
{
	ssize_t n, off = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)off < len - 1) {
		n = read(fd, buf + off, len - 1 - off);
		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		off += n;
	}
	close(fd);
	buf[off] = '\0';
	if (off && buf[off - 1] == '\n')
		buf[--off] = '\0';
	return off;
}

/*
 * Write exactly @n bytes of @val in one write(2) (sysfs takes the whole
 * value from the first write).  Returns 0 when the whole buffer was
 * accepted, -errno on failure, -EMSGSIZE on a short write.
 */
static inline int wqrt_write_n(const char *path, const char *val, size_t n)
{
	ssize_t w;
	int fd, e;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	w = write(fd, val, n);
	e = errno;
	close(fd);
	if (w < 0)
		return -e;
	return (size_t)w == n ? 0 : -EMSGSIZE;
}

static inline int wqrt_write(const char *path, const char *val)
{
	return wqrt_write_n(path, val, strlen(val));
}

static inline bool wqrt_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static inline const char *wq_path(char *buf, size_t len, const char *wq,
				  const char *attr)
{
	snprintf(buf, len, WQ_DIR "/%s/%s", wq, attr);
	return buf;
}

static inline int wq_get(const char *wq, const char *attr, char *buf,
			 size_t len)
{
	char p[PATH_MAX];

	return wqrt_read(wq_path(p, sizeof(p), wq, attr), buf, len);
}

static inline int wq_set(const char *wq, const char *attr, const char *val)
{
	char p[PATH_MAX];

	return wqrt_write(wq_path(p, sizeof(p), wq, attr), val);
}

static inline int wq_set_n(const char *wq, const char *attr, const char *val,
			   size_t n)
{
	char p[PATH_MAX];

	return wqrt_write_n(wq_path(p, sizeof(p), wq, attr), val, n);
}

static inline bool wq_has(const char *wq, const char *attr)
{
	char p[PATH_MAX];

	return wqrt_exists(wq_path(p, sizeof(p), wq, attr));
}

/* Integer attribute, or INT_MIN when unreadable. */
static inline int wq_get_int(const char *wq, const char *attr)
{
	char buf[64];

	if (wq_get(wq, attr, buf, sizeof(buf)) < 0)
		return INT_MIN;
	return atoi(buf);
}

static inline int wq_set_int(const char *wq, const char *attr, int v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d", v);
	return wq_set(wq, attr, buf);
}

/* ------------------------------------------------------------------ */
/* attribute snapshots: every attribute of a workqueue directory       */

#define WQ_SNAP_MAX 16

struct wq_snap {
	int n;
	char name[WQ_SNAP_MAX][32];
	char val[WQ_SNAP_MAX][256];
};

static const char * const wq_all_attrs[] = {
	"per_cpu", "max_active", "nice", "cpumask", "affinity_scope",
	"affinity_strict", "policy", "rtprio", "nr_idle_extra", "private",
	"pool_ids",
};

static inline int wq_snapshot(const char *wq, struct wq_snap *s)
{
	unsigned int i;

	s->n = 0;
	for (i = 0; i < sizeof(wq_all_attrs) / sizeof(wq_all_attrs[0]); i++) {
		if (!wq_has(wq, wq_all_attrs[i]))
			continue;
		snprintf(s->name[s->n], sizeof(s->name[0]), "%s", wq_all_attrs[i]);
		if (wq_get(wq, wq_all_attrs[i], s->val[s->n], sizeof(s->val[0])) < 0)
			return -1;
		s->n++;
	}
	return 0;
}

/*
 * Compare two snapshots; on a difference, describe it in @why and return
 * false.
 */
static inline bool wq_snap_equal(const struct wq_snap *a,
				 const struct wq_snap *b, char *why, size_t len)
{
	int i;

	if (a->n != b->n) {
		snprintf(why, len, "attribute count %d != %d", a->n, b->n);
		return false;
	}
	for (i = 0; i < a->n; i++) {
		if (strcmp(a->val[i], b->val[i])) {
			snprintf(why, len, "%s: '%s' -> '%s'", a->name[i],
				 a->val[i], b->val[i]);
			return false;
		}
	}
	return true;
}

/* The value of @attr in @s, or NULL when @s has no such attribute. */
static inline const char *wq_snap_get(const struct wq_snap *s,
				      const char *attr)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], attr))
			return s->val[i];
	return NULL;
}

/*
 * Write the attributes @attrs of snapshot @s back to @wq, in the order of
 * @attrs (NULL-terminated).  Without a list (@attrs NULL): policy, rtprio,
 * private, nr_idle_extra, nice, cpumask, affinity_scope, affinity_strict;
 * max_active only when listed (it is read-only on ordered workqueues).
 * The policy comes before rtprio because writing it resets rtprio, and
 * nr_idle_extra before affinity_scope because their product is capped.
 * Attributes @s has not got are left
 * alone; a value is written as its first word ("default (cache)" is
 * shown, "default" is written).  Every attribute is tried; returns 0 or
 * the first error.  Compare a new snapshot with @s to tell what did not
 * come back.
 */
static inline int wq_snap_restore(const char *wq, const struct wq_snap *s,
				  const char * const *attrs)
{
	static const char * const all[] = {
		"policy", "rtprio", "private", "nr_idle_extra", "nice",
		"cpumask", "affinity_scope", "affinity_strict", NULL,
	};
	char val[sizeof(s->val[0])];
	const char *v;
	int ret = 0, err;

	if (!attrs)
		attrs = all;
	for (; *attrs; attrs++) {
		v = wq_snap_get(s, *attrs);
		if (!v)
			continue;
		snprintf(val, sizeof(val), "%s", v);
		val[strcspn(val, " ")] = '\0';
		err = wq_set(wq, *attrs, val);
		if (err && !ret)
			ret = err;
	}
	return ret;
}

/* ------------------------------------------------------------------ */
/* fresh pools                                                         */

/* wq_fresh_pool() nice value: leave nice alone. */
#define WQ_NICE_KEEP	INT_MIN

/*
 * Move @wq to a pool created now, so that its idle timer and workers start
 * from the current settings (workqueue.debug_idle_timeout_ms, the pool's
 * policy): a new private key where the series has one (private=0, then
 * private=1: a key is never reused, so nobody else's pool), then nice
 * @nice unless it is WQ_NICE_KEEP (an otherwise unused nice value is a
 * new pool on a kernel without "private").  Returns 0, the error of the
 * first write that failed, or -ENOENT when there is neither a private
 * attribute nor a nice value to move @wq with.
 */
static inline int wq_fresh_pool(const char *wq, int nice)
{
	int ret;

	if (wq_has(wq, "private")) {
		ret = wq_set(wq, "private", "0");
		if (!ret)
			ret = wq_set(wq, "private", "1");
		if (ret)
			return ret;
	} else if (nice == WQ_NICE_KEEP) {
		return -ENOENT;
	}
	if (nice == WQ_NICE_KEEP)
		return 0;
	return wq_set_int(wq, "nice", nice);
}

/*
 * What the kernel under test must have, as the test's runner declares it
 * on the kernel command line: wqrt.series=1 (the whole series), 0 (none of
 * it). Returns 1 or 0, or -1 when nothing is declared (a board, a prefix
 * of the series): then the test can only go by what the kernel shows, and
 * says so. A test that chose what to check by what the kernel shows alone
 * would pass on a kernel that lost a feature.
 */
static inline int wqrt_series_expected(void)
{
	char buf[4096], *p;

	if (wqrt_read("/proc/cmdline", buf, sizeof(buf)) < 0)
		return -1;
	for (p = strstr(buf, "wqrt.series="); p; p = strstr(p + 1, "wqrt.series="))
		if (p == buf || isspace((unsigned char)p[-1]))
			return p[12] == '1';
	return -1;
}

/* ------------------------------------------------------------------ */
/* the wqrt_test module                                                */

/* The running kernel's release, for messages */
static inline const char *wqrt_release(void)
{
	static struct utsname u;

	return u.release[0] || !uname(&u) ? u.release : "$(uname -r)";
}

static inline int wqrt_finit_module(const char *path)
{
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	ret = ret ? -errno : 0;
	close(fd);
	return ret == -EEXIST ? 0 : ret;
}

/*
 * Make sure test module @name (without .ko) is loaded and its debugfs file
 * @probe exists: mount debugfs if needed, then modprobe @name (DKMS, the
 * wqrt-selftests-dkms package), then insmod @name.ko from next to this
 * binary, modules/ beside it (where "make -C tools/testing/selftests
 * TARGETS=wqrt install" puts TEST_GEN_MODS_DIR) or ../modules/ (the
 * project's build tree).  Returns 0, or -1 with the reason in @why.
 */
static inline int wqrt_load_test_module(const char *name, const char *probe,
					char *why, size_t len)
{
	char exe[PATH_MAX], p[PATH_MAX + 64], cmd[128], *slash;
	const char *rel[] = { "", "modules/", "../modules/" };
	ssize_t n;
	unsigned int i;
	int ret;

	if (wqrt_exists(probe))
		return 0;
	if (!wqrt_exists("/sys/kernel/debug/kprobes") &&
	    access("/sys/kernel/debug", F_OK) == 0)
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);

	snprintf(cmd, sizeof(cmd), "modprobe -q %s >/dev/null 2>&1", name);
	if (system(cmd) == 0 && wqrt_exists(probe))
		return 0;

	ret = -ENOENT;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s%s.ko", exe, rel[i], name);
			if (!wqrt_exists(p))
				continue;
			ret = wqrt_finit_module(p);
			if (!ret)
				break;
		}
	}
	if (!ret && wqrt_exists(probe))
		return 0;
	if (!ret)
		snprintf(why, len, "%s loaded but %s missing (debugfs not mounted?)",
			 name, probe);
	else
		snprintf(why, len,
			 "%s module not available (modprobe failed, insmod: %s): DKMS builds it (wqrt-selftests-dkms) for a kernel whose headers are installed, /lib/modules/%s/build",
			 name, strerror(-ret), wqrt_release());
	return -1;
}

/*
 * main() of every wqrt kselftest. Every test drives module @name, so
 * without it the program exits KSFT_SKIP with the reason (run_kselftest.sh
 * then reports "# SKIP" and why) instead of passing with every test
 * skipped one by one; so it does as a user, who can load no module and
 * write no workqueue attribute, saying so first. @disrupts, when set, says
 * what the program does to the machine, for whoever runs it on a board
 * that does real work. -h and -l need no module.
 */
static inline int wqrt_main(int argc, char **argv, const char *name,
			    const char *probe, const char *disrupts)
{
	char why[256];
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "-l"))
			return test_harness_run(argc, argv);
	if (geteuid() != 0) {
		ksft_print_header();
		ksft_exit_skip("run as root: the wqrt kselftests load test modules, write workqueue attributes and set real-time policies\n");
	}
	if (wqrt_load_test_module(name, probe, why, sizeof(why))) {
		ksft_print_header();
		ksft_exit_skip("%s\n", why);
	}
	if (disrupts)
		ksft_print_msg("not for a board in production: %s\n", disrupts);
	return test_harness_run(argc, argv);
}

#define WQRT_HARNESS_MAIN(name, probe)					\
	int main(int argc, char **argv)					\
	{								\
		return wqrt_main(argc, argv, name, probe, NULL);	\
	}

/* The same, for a program that takes CPUs offline or starves them */
#define WQRT_HARNESS_MAIN_DISRUPTIVE(name, probe, disrupts)		\
	int main(int argc, char **argv)					\
	{								\
		return wqrt_main(argc, argv, name, probe, disrupts);	\
	}

/* The wqrt_test module, which every test but wq_flush drives. */
static inline int wqrt_load_module(char *why, size_t len)
{
	return wqrt_load_test_module("wqrt_test", DBG_DIR "/info", why, len);
}

static inline int dbg_read(const char *file, char *buf, size_t len)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), DBG_DIR "/%s", file);
	return wqrt_read(p, buf, len);
}

/* Run a command: write @args to @file (blocks until done), read result. */
static inline int dbg_run(const char *file, const char *args, char *out,
			  size_t len)
{
	char p[PATH_MAX];
	int ret;

	snprintf(p, sizeof(p), DBG_DIR "/%s", file);
	ret = wqrt_write(p, args);
	if (ret)
		return ret;
	ret = wqrt_read(p, out, len);
	return ret < 0 ? ret : 0;
}

/* "key=value" lookup in a line of "k=v k=v" pairs. */
static inline bool kv_find(const char *s, const char *key, char *out,
			   size_t len)
{
	size_t kl = strlen(key);
	const char *p = s;

	while ((p = strstr(p, key)) != NULL) {
		if ((p == s || isspace((unsigned char)p[-1])) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " \t\n");

			if (n >= len)
				n = len - 1;
			memcpy(out, p + kl + 1, n);
			out[n] = '\0';
			return true;
		}
		p += kl;
	}
	return false;
}

static inline long kv_long(const char *s, const char *key, long dflt)
{
	char v[64];

	if (!kv_find(s, key, v, sizeof(v)))
		return dflt;
	return strtol(v, NULL, 0);
}

static inline bool kv_pass(const char *s)
{
	char v[16];

	return kv_find(s, "result", v, sizeof(v)) && !strcmp(v, "PASS");
}

struct wid {
	int pid;
	char comm[64];
	int policy;
	int rtprio;
	int nice;
	int cpu;
};

static inline int wid_parse(const char *line, struct wid *w)
{
	if (!kv_find(line, "comm", w->comm, sizeof(w->comm)))
		return -1;
	w->pid = kv_long(line, "pid", -1);
	w->policy = kv_long(line, "policy", -1);
	w->rtprio = kv_long(line, "rtprio", -1);
	w->nice = kv_long(line, "nice", 99);
	w->cpu = kv_long(line, "cpu", -1);
	return w->pid > 0 ? 0 : -1;
}

/* Queue one item on the module's workqueue @key, report who ran it. */
static inline int wqrt_probe(const char *key, struct wid *w)
{
	char file[64], buf[512];

	snprintf(file, sizeof(file), "probe_%s", key);
	if (dbg_read(file, buf, sizeof(buf)) < 0)
		return -1;
	return wid_parse(buf, w);
}

/* ------------------------------------------------------------------ */
/* kworkers                                                            */

/* "kworker/u<pool>:<id>[suffix]" -> pool id, or -1. */
static inline int kworker_upool(const char *comm)
{
	int pool, id;

	if (sscanf(comm, "kworker/u%d:%d", &pool, &id) == 2)
		return pool;
	return -1;
}

/* per-cpu worker: "kworker/<cpu>:<id>[H][suffix]" */
static inline bool kworker_is_percpu(const char *comm)
{
	int cpu, id;

	return sscanf(comm, "kworker/%d:%d", &cpu, &id) == 2;
}

struct kthr {
	int pid;
	char comm[64];
};

static inline int proc_comm(int pid, char *buf, size_t len)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%d/comm", pid);
	return wqrt_read(p, buf, len);
}

/*
 * List the threads whose /proc comm starts with @prefix (workers show
 * "kworker/u9:2-wq_name" there).  Returns the count (may exceed @max; only
 * @max are stored).
 */
static inline int list_threads(const char *prefix, struct kthr *out, int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d)) != NULL) {
		char comm[64];
		int pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = atoi(de->d_name);
		if (proc_comm(pid, comm, sizeof(comm)) < 0)
			continue;
		if (strncmp(comm, prefix, strlen(prefix)))
			continue;
		if (n < max) {
			out[n].pid = pid;
			snprintf(out[n].comm, sizeof(out[n].comm), "%s", comm);
		}
		n++;
	}
	closedir(d);
	return n;
}

#define MAX_KTHR 4096

/* Workers of unbound pool @pool; returns count, pids in @pids (if any). */
static inline int pool_workers(int pool, int *pids, int max)
{
	static struct kthr t[MAX_KTHR];
	int i, n, c = 0;

	n = list_threads("kworker/u", t, MAX_KTHR);
	if (n > MAX_KTHR)
		n = MAX_KTHR;
	for (i = 0; i < n; i++) {
		if (kworker_upool(t[i].comm) != pool)
			continue;
		if (pids && c < max)
			pids[c] = t[i].pid;
		c++;
	}
	return c;
}

/*
 * The state letter of @pid in /proc/PID/stat ('R', 'S', 'D', 'I', ...), or
 * 0 when it is gone. An idle kworker waits in worker_thread() as TASK_IDLE,
 * shown as 'I'; a work item that sleeps shows 'D' or 'S', a worker that
 * runs or manages (creates workers) anything but 'I'.
 */
static inline char task_state(int pid)
{
	char p[64], buf[512], *rp;

	snprintf(p, sizeof(p), "/proc/%d/stat", pid);
	if (wqrt_read(p, buf, sizeof(buf)) < 0)
		return 0;
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

/*
 * Workers of unbound pool @pool, and in @idle how many of them are idle
 * (waiting for work in worker_thread()).
 */
static inline int pool_workers_idle(int pool, int *idle)
{
	int pids[1024], n, i;

	n = pool_workers(pool, pids, 1024);
	*idle = 0;
	for (i = 0; i < n && i < 1024; i++)
		*idle += task_state(pids[i]) == 'I';
	return n;
}

/*
 * "pod:N pod:N ..." (pool_ids, nr_idle_extra_effective) -> the Ns, at most
 * @max of them, in order; with @distinct each N once. Returns how many were
 * stored, or -1 if a pair is malformed.
 */
static inline int parse_pod_values(const char *s, int *vals, int max,
				   bool distinct)
{
	int n = 0, pod, val, used, i;

	while (*s) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (sscanf(s, "%d:%d%n", &pod, &val, &used) != 2)
			return -1;
		s += used;
		for (i = 0; distinct && i < n; i++)
			if (vals[i] == val)
				break;
		if ((!distinct || i == n) && n < max)
			vals[n++] = val;
	}
	return n;
}

/* "pod:pool pod:pool ..." -> distinct pool ids; returns count or -1. */
static inline int parse_pool_ids(const char *s, int *ids, int max)
{
	return parse_pod_values(s, ids, max, true);
}

static inline int wq_pool_ids(const char *wq, int *ids, int max)
{
	char buf[1024];

	if (wq_get(wq, "pool_ids", buf, sizeof(buf)) < 0)
		return -1;
	return parse_pool_ids(buf, ids, max);
}

/* The pool of pod @pod in @wq's pool_ids ("pod:pool ..."), or -1. */
static inline int wq_pod_pool(const char *wq, int pod)
{
	char buf[1024], *p = buf;
	int d, pool, used;

	if (wq_get(wq, "pool_ids", buf, sizeof(buf)) < 0)
		return -1;
	while (sscanf(p, " %d:%d%n", &d, &pool, &used) == 2) {
		if (d == pod)
			return pool;
		p += used;
	}
	return -1;
}

/* Run the calling thread on @cpu only. */
static inline int wqrt_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

/* ------------------------------------------------------------------ */
/* scheduling                                                          */

struct wqrt_sched_attr {
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

static inline int wqrt_getattr(int pid, struct wqrt_sched_attr *a)
{
	memset(a, 0, sizeof(*a));
	if (syscall(SYS_sched_getattr, pid, a, sizeof(*a), 0))
		return -errno;
	return 0;
}

static inline int policy_from_name(const char *s)
{
	if (!strcasecmp(s, "normal"))
		return SCHED_OTHER;
	if (!strcasecmp(s, "fifo"))
		return SCHED_FIFO;
	if (!strcasecmp(s, "rr"))
		return SCHED_RR;
	return -1;
}

/* ------------------------------------------------------------------ */
/* CPUs and workqueue module parameters                                */

/*
 * Drop capability @cap from the effective, permitted and inheritable sets of
 * the calling process (no libcap: the raw syscalls). The uid stays 0, so
 * only a capability check can refuse what the process does next.
 */
static inline int wqrt_drop_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int i = CAP_TO_INDEX(cap);

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[i].effective &= ~CAP_TO_MASK(cap);
	data[i].permitted &= ~CAP_TO_MASK(cap);
	data[i].inheritable &= ~CAP_TO_MASK(cap);
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

static inline int cpu_count_possible(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (int)n : 1;
}

static inline int cpu_set_online(int cpu, bool on)
{
	char p[128];

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/online", cpu);
	return wqrt_write(p, on ? "1" : "0");
}

static inline bool cpu_hotpluggable(int cpu)
{
	char p[128];

	snprintf(p, sizeof(p), CPU_DIR "/cpu%d/online", cpu);
	return wqrt_exists(p);
}

/* ------------------------------------------------------------------ */
/* The kernel log                                                      */

/*
 * The text of the next record of /dev/kmsg opened on fd (O_NONBLOCK), in
 * rec: after the "level,seq,time,flags;" prefix. NULL at the end. Records
 * overwritten before they were read (EPIPE) are passed over.
 */
static inline char *wqrt_kmsg_next(int fd, char *rec, size_t size)
{
	for (;;) {
		ssize_t r = read(fd, rec, size - 1);
		char *text;

		if (r < 0 && errno == EPIPE)
			continue;
		if (r <= 0)
			return NULL;
		rec[r] = '\0';
		text = strchr(rec, ';');
		return text ? text + 1 : rec;
	}
}

/*
 * Open /dev/kmsg positioned after the last record, so that
 * kmsg_reports() sees only what the kernel logs from now on.
 */
static inline int kmsg_open_at_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Read the records logged since @fd was opened and copy the BUG, WARNING,
 * lockdep and watchdog (hung task, RCU stall, soft and workqueue lockup)
 * reports among them to @out (one per line, as many as fit).
 * Returns how many there were.
 */
static inline int kmsg_reports(int fd, char *out, size_t len)
{
	static const char *const marks[] = {
		"WARNING:", "BUG:", "possible circular locking",
		"inconsistent lock state", "INFO: task", "detected stall",
		"soft lockup", "workqueue lockup",
	};
	char rec[2048], *text;
	size_t used = 0;
	int found = 0;
	unsigned int i;

	if (len)
		out[0] = '\0';
	while ((text = wqrt_kmsg_next(fd, rec, sizeof(rec)))) {
		for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++) {
			if (!strstr(text, marks[i]))
				continue;
			found++;
			if (used < len)
				used += snprintf(out + used, len - used, "%.*s",
						 (int)strcspn(text, "\n") + 1, text);
			break;
		}
	}
	return found;
}

static inline bool wqparam_exists(const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), WQPARAM_DIR "/%s", name);
	return wqrt_exists(p);
}

static inline int wqparam_get(const char *name, char *buf, size_t len)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), WQPARAM_DIR "/%s", name);
	return wqrt_read(p, buf, len);
}

static inline int wqparam_set(const char *name, const char *val)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), WQPARAM_DIR "/%s", name);
	return wqrt_write(p, val);
}

#endif /* WQRT_LIB_H */
