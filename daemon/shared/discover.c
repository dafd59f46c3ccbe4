// SPDX-License-Identifier: GPL-2.0-only
#include "discover.h"
#include "common.h"
#include "log.h"
#include "sysops.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Read "digits" at *p; advance. */
static bool number(const char **p, int *out)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return false;
	v = strtol(*p, &end, 10);
	if (v > 1000000)
		return false;
	*out = (int)v;
	*p = end;
	return true;
}

/*
 * Names the kernel gives (kernel/workqueue.c, format_worker_id() and
 * wq_worker_comm()): "kworker/%d:%d" plus "H" for highpri pools,
 * "kworker/u%d:%d" for unbound pools, "kworker/R-%s" for rescuers and
 * "kworker/dying". /proc may append "+desc" (running work) or "-desc"
 * (last work). The rescuer's task->comm is cut at 15 bytes.
 */
void kworker_classify(const char *comm, struct kw_class *c)
{
	const char *p;
	size_t len;

	memset(c, 0, sizeof(*c));
	c->cpu = c->pool = c->id = -1;
	snprintf(c->base, sizeof(c->base), "%s", comm);
	if (strncmp(comm, "kworker/", 8)) {
		c->kind = KW_NONE;
		return;
	}
	p = comm + 8;
	if (!strcmp(p, "dying")) {
		c->kind = KW_DYING;
		return;
	}
	if (!strncmp(p, "R-", 2)) {
		c->kind = KW_RESCUER;
		/* wq names may hold '-': only a '+' surely starts a desc */
		c->base[strcspn(c->base, "+")] = '\0';
		c->rescued = c->base + 10;
		c->truncated = strlen(c->base) == TASK_COMM_LEN - 1;
		if (!*c->rescued)
			c->kind = KW_OTHER;
		return;
	}
	c->kind = KW_OTHER;
	if (*p == 'u') {
		p++;
		if (!number(&p, &c->pool) || *p++ != ':' || !number(&p, &c->id))
			return;
		c->kind = KW_UNBOUND;
	} else {
		if (!number(&p, &c->cpu) || *p++ != ':' || !number(&p, &c->id))
			return;
		if (*p == 'H') {
			c->highpri = true;
			p++;
		}
		c->kind = KW_PERCPU;
	}
	if (*p && *p != '+' && *p != '-') {
		c->kind = KW_OTHER;
		return;
	}
	len = p - comm;
	/* leading zeros can make a number longer than base holds */
	if (len < sizeof(c->base))
		c->base[len] = '\0';
}

bool kworker_rescues(const struct kw_class *c, const char *wq)
{
	size_t len, wlen = strlen(wq);

	if (c->kind != KW_RESCUER)
		return false;
	len = strlen(c->rescued);
	if (c->truncated && wlen >= len)
		return !strncmp(c->rescued, wq, len);
	/* "kworker/R-nvme-wq-desc": the name, then maybe "-desc" */
	return len >= wlen && !strncmp(c->rescued, wq, wlen) &&
	       (c->rescued[wlen] == '\0' || c->rescued[wlen] == '-');
}

/*
 * The next entry of dir, or NULL at its end; a listing cut short (readdir
 * failing) is an error, not an end: *err then holds it.
 */
static struct dirent *next_entry(const struct sys_ops *ops, DIR *dir,
				 int *err)
{
	struct dirent *de;

	errno = 0;
	de = ops->readdir(ops->ctx, dir);
	if (!de && errno)
		*err = -errno;
	return de;
}

/*
 * Visit pid if it is a kworker: the callback's result. A task gone since
 * it was listed is no error. One that cannot be read stops nothing: it is
 * left out, said, and *bad keeps the first such error, so that the listing
 * is said to be incomplete.
 */
static int visit_if_kworker(const char *root, pid_t pid, task_visit_fn cb,
			    void *arg, int *bad)
{
	struct task_info t;
	int r;

	r = task_read(root, pid, &t);
	if (r == -ENOENT || r == -ESRCH)
		return 0;
	if (r) {
		log_warn("%s/proc/%d/stat: %s; that task is left out", root,
			 (int)pid,
			 r == -EINVAL ? "cannot be parsed" : strerror(-r));
		if (!*bad)
			*bad = r;
		return 0;
	}
	return task_is_kworker(&t) ? cb(&t, arg) : 0;
}

/*
 * Every kernel thread is kthreadd's child, and /proc/2/task/2/children
 * (CONFIG_PROC_CHILDREN) lists them: one file instead of the stat file of
 * every task on the system, so that a scan opens the /proc entries of
 * kernel threads only. 1 when the list was walked (*stop the callback's
 * result that ended it, *err a list that could not be read to its end),
 * 0 when this kernel has no such file.
 */
static int for_each_kthread(const char *root, task_visit_fn cb, void *arg,
			    int *stop, int *err, int *bad)
{
	char path[WQRT_PATH_MAX];
	int pid, n = EOF;
	FILE *f;

	if (path_fmt(path, sizeof(path), root, "/proc/%d/task/%d/children",
		     KTHREADD_PID, KTHREADD_PID))
		return 0;
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (!*stop && (n = fscanf(f, "%d", &pid)) == 1)
		*stop = visit_if_kworker(root, pid, cb, arg, bad);
	if (!*stop && (n != EOF || ferror(f)))
		*err = ferror(f) ? -EIO : -EINVAL;
	fclose(f);
	return 1;
}

int for_each_kworker_ops(const char *root, const struct sys_ops *ops,
			 task_visit_fn cb, void *arg)
{
	char path[WQRT_PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int err = 0, bad = 0, stop = 0;

	if (!ops)
		ops = &sys_ops_real;
	if (for_each_kthread(root, cb, arg, &stop, &err, &bad))
		return stop ? stop : err ? err : bad;
	/* no list of kthreadd's children: every task, then */
	if (path_fmt(path, sizeof(path), root, "/proc"))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!stop && (de = next_entry(ops, dir, &err)))
		if (isdigit((unsigned char)de->d_name[0]))
			stop = visit_if_kworker(root, atoi(de->d_name), cb,
						arg, &bad);
	closedir(dir);
	return stop ? stop : err ? err : bad;
}

int for_each_kworker(const char *root, task_visit_fn cb, void *arg)
{
	return for_each_kworker_ops(root, NULL, cb, arg);
}

/*
 * Is ROOT/sys/.../NAME a workqueue? 1, 0, or -errno when lstat fails
 * otherwise than for an entry that is gone.
 */
static int is_workqueue(const struct sys_ops *ops, const char *path,
			const char *name)
{
	char sub[WQRT_PATH_MAX];
	struct stat st;
	int err;

	if (name[0] == '.' ||
	    snprintf(sub, sizeof(sub), "%s/%s", path, name) >= (int)sizeof(sub))
		return 0;
	err = ops->lstat(ops->ctx, sub, &st);
	if (!err && !S_ISDIR(st.st_mode))
		return 0;
	if (!err &&
	    snprintf(sub, sizeof(sub), "%s/%s/max_active", path, name) >=
		    (int)sizeof(sub))
		return 0;
	if (!err)
		err = ops->lstat(ops->ctx, sub, &st);
	if (err)
		return err == -ENOENT ? 0 : err;
	return S_ISREG(st.st_mode);
}

int for_each_workqueue_ops(const char *root, const struct sys_ops *ops,
			   wq_visit_fn cb, void *arg)
{
	char path[WQRT_PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int err = 0, r;

	if (!ops)
		ops = &sys_ops_real;
	if (path_fmt(path, sizeof(path), root, WQ_SYSFS_DIR))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	/*
	 * A workqueue is a directory (not a link: "power" and the like
	 * live here too) with a max_active attribute, which every workqueue
	 * in sysfs has.
	 */
	while ((de = next_entry(ops, dir, &err))) {
		r = is_workqueue(ops, path, de->d_name);
		if (r < 0) {
			err = r;
			break;
		}
		if (!r)
			continue;
		err = cb(de->d_name, arg);
		if (err)
			break;
	}
	closedir(dir);
	return err;
}

int for_each_workqueue(const char *root, wq_visit_fn cb, void *arg)
{
	return for_each_workqueue_ops(root, NULL, cb, arg);
}

int wq_path(char *buf, size_t size, const char *root, const char *wq,
	    const char *attr)
{
	return path_fmt(buf, size, root, WQ_SYSFS_DIR "/%s%s%s", wq,
			attr ? "/" : "", attr ? attr : "");
}

int wq_read_state(const char *root, const char *wq, struct wq_state *st)
{
	char path[WQRT_PATH_MAX], buf[ATTR_TEXT_MAX];
	struct log_ctx lc = { .wq = wq };
	struct stat sb;
	int a, err;

	memset(st, 0, sizeof(*st));
	if (wq_path(path, sizeof(path), root, wq, NULL) ||
	    stat(path, &sb))
		return -ENOENT;
	for (a = 0; a < WA_NR; a++) {
		if (wq_path(path, sizeof(path), root, wq, attr_name(a)) ||
		    stat(path, &sb))
			continue;
		lc.attr = attr_name(a);
		err = read_text(path, buf, sizeof(buf));
		if (err == -EFBIG)
			log_full(LOG_WARNING, &lc,
				 "%s: longer than %zu bytes (a cpumask of more than %d CPUs?); left alone",
				 path, sizeof(buf) - 1, WQRT_MAX_CPUS);
		if (err)
			continue;
		if (attr_parse_sysfs(a, buf, &st->cur)) {
			log_full(LOG_WARNING, &lc, "%s: %s reads \"%s\"?", wq,
				 attr_name(a), buf);
			continue;
		}
		st->present |= WA_BIT(a);
		if (sb.st_mode & 0222)
			st->writable |= WA_BIT(a);
	}
	/*
	 * Gone while it was read (destroyed with its module): the attributes
	 * that could not be read are not missing, and nothing is to be done.
	 */
	if (wq_path(path, sizeof(path), root, wq, NULL) || stat(path, &sb))
		return -ENOENT;
	return 0;
}

unsigned int wq_differing(const struct settings *s, const struct wq_state *st)
{
	unsigned int diff = 0;
	int a;

	for (a = 0; a < WA_NR; a++)
		if ((s->set & WA_BIT(a)) && (st->present & WA_BIT(a)) &&
		    !attr_equal(a, s, &st->cur))
			diff |= WA_BIT(a);
	return diff;
}

static int has_policy(const char *name, void *arg)
{
	char path[WQRT_PATH_MAX];
	struct stat st;

	if (!wq_path(path, sizeof(path), arg, name, "policy") &&
	    !stat(path, &st))
		return 1;
	return 0;
}

bool sysfs_series_present(const char *root)
{
	return for_each_workqueue(root, has_policy, (void *)root) == 1;
}

int parse_pool_ids(const char *text, int **ids)
{
	const char *p = text;
	int n = 0, pod, pool, used;
	int *v;

	*ids = NULL;
	while (*p) {
		while (*p == ' ' || *p == '\n')
			p++;
		if (!*p)
			break;
		if (sscanf(p, "%d:%d%n", &pod, &pool, &used) != 2) {
			free(*ids);
			*ids = NULL;
			return -EINVAL;
		}
		p += used;
		v = array_grow(*ids, n, sizeof(*v));
		if (!v) {
			free(*ids);
			*ids = NULL;
			return -ENOMEM;
		}
		*ids = v;
		v[n++] = pool;
	}
	return n;
}

int wq_read_pool_ids(const char *root, const char *wq, int **ids)
{
	char path[WQRT_PATH_MAX], *text;
	int err;

	*ids = NULL;
	err = wq_path(path, sizeof(path), root, wq, "pool_ids");
	if (!err)
		err = read_text_alloc(path, &text);
	if (err)
		return err;
	err = parse_pool_ids(text, ids);
	free(text);
	return err;
}
