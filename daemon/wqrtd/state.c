// SPDX-License-Identifier: GPL-2.0-only
#include "state.h"
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool v_eq(const void *ctx, int idx, const void *key)
{
	const struct state *s = ctx;

	return !strcmp(s->v[idx].name, key);
}

static bool kv_eq(const void *ctx, int idx, const void *key)
{
	const struct state *s = ctx;

	return s->kv[idx].pid == *(const pid_t *)key;
}

static uint32_t kv_hash(pid_t pid)
{
	return htab_hash_int((uint32_t)pid);
}

static struct saved_wq *saved_find(const struct state *s, const char *wq)
{
	int ix = htab_lookup(&s->v_ix, htab_hash_str(wq), v_eq, s, wq, s->n);

	return ix < 0 ? NULL : &s->v[ix];
}

static struct saved_wq *saved_add(struct state *s, const char *wq)
{
	struct saved_wq *v = realloc(s->v, (s->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	s->v = v;
	v += s->n++;
	memset(v, 0, sizeof(*v));
	snprintf(v->name, sizeof(v->name), "%s", wq);
	htab_add(&s->v_ix, htab_hash_str(v->name), s->n - 1);
	return v;
}

static void saved_drop(struct state *s, struct saved_wq *w)
{
	int i = w - s->v, last = s->n - 1;

	htab_swap_remove(&s->v_ix, htab_hash_str(w->name), i,
			 htab_hash_str(s->v[last].name), last);
	*w = s->v[last];
	s->n--;
}

static struct saved_kw *saved_kw_find(const struct state *s, pid_t pid)
{
	int ix = htab_lookup(&s->kv_ix, kv_hash(pid), kv_eq, s, &pid, s->nk);

	return ix < 0 ? NULL : &s->kv[ix];
}

static void saved_kw_drop(struct state *s, struct saved_kw *k)
{
	int i = k - s->kv, last = s->nk - 1;

	htab_swap_remove(&s->kv_ix, kv_hash(k->pid), i,
			 kv_hash(s->kv[last].pid), last);
	*k = s->kv[last];
	s->nk--;
}

static void saved_kw_add(struct state *s, pid_t pid, unsigned long long start,
			 const struct sched_val *orig)
{
	struct saved_kw *v;

	/* one original per pid: a file with two keeps the first */
	if (saved_kw_find(s, pid))
		return;
	v = realloc(s->kv, (s->nk + 1) * sizeof(*v));
	if (!v)
		return;
	s->kv = v;
	v += s->nk++;
	v->pid = pid;
	v->start = start;
	v->orig = *orig;
	htab_add(&s->kv_ix, kv_hash(pid), s->nk - 1);
}

/* This boot's id, from ROOT/proc/sys/kernel/random/boot_id; "" unknown */
static void read_boot_id(struct state *s, const char *root)
{
	char path[WQRT_PATH_MAX], buf[64];
	size_t len;

	s->boot[0] = '\0';
	if (path_fmt(path, sizeof(path), root,
		     "/proc/sys/kernel/random/boot_id") ||
	    read_text(path, buf, sizeof(buf)) || strchr(buf, ' '))
		return;
	len = strlen(buf);
	if (len < sizeof(s->boot))
		memcpy(s->boot, buf, len + 1);
}

/*
 * The file and the directory it is in, held to the configuration's rule:
 * whoever else could write them could make wqrtd "put back" values of
 * their choosing. 0, or -EPERM (said).
 */
static int check_trusted(const char *path, int fd)
{
	char dir[WQRT_PATH_MAX], why[WQRT_PATH_MAX + 160], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (!stat(dir, &st) && trust_check(dir, &st, why, sizeof(why))) {
		log_err("%s: %s", dir, why);
		return -EPERM;
	}
	if (fd < 0)
		return 0;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode)) {
		log_err("%s: not a regular file; refusing it", path);
		return -EPERM;
	}
	if (trust_check(path, &st, why, sizeof(why))) {
		log_err("%s: %s", path, why);
		return -EPERM;
	}
	return 0;
}

/*
 * The format: "wqrtd-originals 2" first, then "boot ID" when the boot id
 * is known, then one line per changed attribute, "wq NAME ATTRIBUTE
 * VALUE" (sysfs's value), and per changed kworker "kworker PID START
 * POLICY RTPRIO NICE". NAME and VALUE are escaped: every byte that is not
 * printable ASCII, the blank and the backslash as \xHH, so that any name
 * the kernel gives a workqueue round-trips. Version 1, before it, had no
 * version line and wrote "NAME ATTRIBUTE VALUE" unescaped; it is still
 * read. Lines are as long as they need (a cpumask of 4096 CPUs is 1151
 * bytes).
 */
#define STATE_MAGIC "wqrtd-originals"
#define STATE_VERSION 2

/* blanks: the blank is escaped too (a field), or kept (a message) */
static void escape_to(FILE *f, const char *s, bool blanks)
{
	const unsigned char *p;

	for (p = (const unsigned char *)s; *p; p++)
		if (*p < ' ' || (*p == ' ' && blanks) || *p >= 0x7f ||
		    *p == '\\')
			fprintf(f, "\\x%02x", *p);
		else
			fputc(*p, f);
}

static void escape(FILE *f, const char *s)
{
	escape_to(f, s, true);
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' :
	       c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 :
				      -1;
}

/* Undo escape() in place: 0, or -EINVAL (a bad or NUL escape) */
static int unescape(char *s)
{
	char *in = s, *out = s;
	int hi, lo;

	while (*in) {
		if (*in != '\\') {
			*out++ = *in++;
			continue;
		}
		if (in[1] != 'x' || (hi = hexval(in[2])) < 0 ||
		    (lo = hexval(in[3])) < 0 || !(hi | lo))
			return -EINVAL;
		*out++ = (char)(hi << 4 | lo);
		in += 4;
	}
	*out = '\0';
	return 0;
}

/* The next blank-separated field of *p, or NULL */
static char *field(char **p)
{
	char *f = *p;

	if (!*f)
		return NULL;
	*p += strcspn(*p, " ");
	if (**p)
		*(*p)++ = '\0';
	return f;
}

/*
 * One workqueue attribute's original: name, attribute and value already
 * split; the value must be one the kernel takes back. 0, or -EINVAL with
 * why set.
 */
static int load_wq(struct state *s, const char *name, const char *attr,
		   const char *val, const char **why)
{
	struct settings one = { 0 };
	struct saved_wq *w;
	int a = attr_lookup(attr);

	if (!*name || strlen(name) >= WQ_NAME_MAX) {
		*why = "not a workqueue name";
		return -EINVAL;
	}
	if (a < 0) {
		*why = "no such attribute";
		return -EINVAL;
	}
	if (attr_parse_kernel(a, val, &one, why))
		return -EINVAL;
	w = saved_find(s, name);
	if (!w)
		w = saved_add(s, name);
	if (!w) {
		*why = "out of memory";
		return -EINVAL;
	}
	settings_copy_attr(&w->orig, &one, a);
	return 0;
}

/*
 * "kworker PID START POLICY RTPRIO NICE" (after "kworker "): a
 * scheduling the kernel takes back. 0, or -EINVAL with why set.
 */
static int load_kw(struct state *s, const char *rest, const char **why)
{
	unsigned long long start;
	struct sched_val v = { 0 };
	int pid, end = 0;
	bool rt;

	if (sscanf(rest, "%d %llu %d %d %d%n", &pid, &start, &v.policy,
		   &v.rtprio, &v.nice, &end) != 5 ||
	    rest[end] || pid <= 0) {
		*why = "expected kworker PID START POLICY RTPRIO NICE";
		return -EINVAL;
	}
	rt = v.policy == SCHED_FIFO || v.policy == SCHED_RR;
	if (!rt && v.policy != SCHED_OTHER && v.policy != SCHED_BATCH &&
	    v.policy != SCHED_IDLE) {
		*why = "no scheduling policy wqrtd puts back";
		return -EINVAL;
	}
	if (rt ? v.rtprio < 1 || v.rtprio > 99 : v.rtprio != 0) {
		*why = "a priority its policy does not take";
		return -EINVAL;
	}
	if (v.nice < -20 || v.nice > 19) {
		*why = "nice out of -20..19";
		return -EINVAL;
	}
	saved_kw_add(s, pid, start, &v);
	return 0;
}

/* One line of version (1 or 2): 0, or -EINVAL with why set */
static int load_line(struct state *s, int version, char *line,
		     const char **why)
{
	char *p = line, *kind, *name, *attr;

	if (!strncmp(line, "kworker ", 8))
		return load_kw(s, line + 8, why);
	if (version == 1) {
		/* "NAME ATTR VALUE", unescaped: the value is the rest */
		name = field(&p);
		attr = field(&p);
		if (!name || !attr || !*p) {
			*why = "expected NAME ATTRIBUTE VALUE";
			return -EINVAL;
		}
		return load_wq(s, name, attr, p, why);
	}
	kind = field(&p);
	name = field(&p);
	attr = field(&p);
	if (!kind || strcmp(kind, "wq") || !name || !attr || !*p ||
	    strchr(p, ' ')) {
		*why = "expected wq NAME ATTRIBUTE VALUE";
		return -EINVAL;
	}
	if (unescape(name) || unescape(p)) {
		*why = "a bad \\x escape";
		return -EINVAL;
	}
	return load_wq(s, name, attr, p, why);
}

/*
 * The version line: 1 (none, the file of before: the line is a record),
 * 2, or -EINVAL for a version this wqrtd does not know
 */
static int load_version(const char *line)
{
	int v, end = 0;

	if (strncmp(line, STATE_MAGIC " ", sizeof(STATE_MAGIC)))
		return 1;
	if (sscanf(line + sizeof(STATE_MAGIC), "%d%n", &v, &end) != 1 ||
	    line[sizeof(STATE_MAGIC) + end] || v < 1 || v > STATE_VERSION)
		return -EINVAL;
	return v;
}

/* A line that cannot be read: said with its line, and its text escaped */
static void bad_line(const char *path, int nr, const char *line,
		     const char *why)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f) {
		escape_to(f, line, false);
		fclose(f);
	}
	log_err("%s:%d: '%s': %s; the file is kept as it is, and nothing is put back from it: fix or remove that line (wqrtd(8), FILES)",
		path, nr, text ? text : "", why);
	free(text);
}

int state_load(struct state *s, const char *path, const char *root,
	       const struct sys_ops *ops)
{
	char *line = NULL, *copy;
	const char *why;
	size_t cap = 0;
	ssize_t len;
	int fd, err, nr = 0, version = 1;
	bool records = false;
	FILE *f;

	s->path = path;
	s->ops = ops;
	read_boot_id(s, root);
	free(s->last);
	s->last = strdup("");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
	if (fd < 0 && errno == ELOOP) {
		log_err("%s: a symbolic link; refusing it", path);
		return -EPERM;
	}
	if (fd < 0 && errno != ENOENT)
		return -errno;
	err = check_trusted(path, fd);
	if (err || fd < 0) {
		if (fd >= 0)
			close(fd);
		return err;
	}
	f = fdopen(fd, "re");
	if (!f) {
		close(fd);
		return -errno;
	}
	while (!err && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		nr++;
		if (nr == 1) {
			version = load_version(line);
			if (version < 0) {
				bad_line(path, nr, line,
					 "written by a wqrtd of another version (this one reads versions 1 and 2)");
				err = -EBADMSG;
				break;
			}
			if (version > 1)
				continue;
		}
		if (!records && !strncmp(line, "boot ", 5)) {
			records = true;
			if (s->boot[0] && strcmp(line + 5, s->boot)) {
				log_err("%s: written during another boot (boot id %s; this one is %s): its pids and values mean nothing now; refusing it",
					path, line + 5, s->boot);
				err = -ESTALE;
			}
			continue;
		}
		records = true;
		/* the fields are cut out of a copy: the message shows all */
		copy = strdup(line);
		if (!copy) {
			err = -ENOMEM;
		} else if (load_line(s, version, copy, &why)) {
			bad_line(path, nr, line, why);
			err = -EBADMSG;
		}
		free(copy);
	}
	free(line);
	fclose(f);
	if (err) {
		/* nothing of it is taken; another boot's: the next save
		 * replaces it; one that cannot be read is never written */
		s->n = s->nk = 0;
		htab_clear(&s->v_ix);
		htab_clear(&s->kv_ix);
		if (err == -EBADMSG)
			s->path = NULL;
		return err;
	}
	/* unknown: the next save writes the file whatever it holds */
	free(s->last);
	s->last = NULL;
	if (s->n || s->nk)
		log_notice(
			"%s: originals of %zu workqueue(s) and %zu kworker(s) from a previous run",
			path, s->n, s->nk);
	return 0;
}

bool state_has(const struct state *s, const char *wq)
{
	return saved_find(s, wq) != NULL;
}

bool state_take(struct state *s, const char *wq, struct settings *orig)
{
	struct saved_wq *w = saved_find(s, wq);

	if (!w)
		return false;
	*orig = w->orig;
	saved_drop(s, w);
	return true;
}

void state_drop(struct state *s, const char *wq)
{
	struct saved_wq *w = saved_find(s, wq);

	if (w)
		saved_drop(s, w);
}

void state_drop_kw(struct state *s, pid_t pid)
{
	struct saved_kw *k = saved_kw_find(s, pid);

	if (k)
		saved_kw_drop(s, k);
}

bool state_has_kw(const struct state *s, pid_t pid)
{
	return saved_kw_find(s, pid) != NULL;
}

bool state_take_kw(struct state *s, pid_t pid, unsigned long long start,
		   struct sched_val *orig)
{
	struct saved_kw *k = saved_kw_find(s, pid);
	bool same;

	if (!k)
		return false;
	/* else the pid of a kworker that is gone: nothing to put back */
	same = k->start == start;
	if (same)
		*orig = k->orig;
	saved_kw_drop(s, k);
	return same;
}

static void write_orig(FILE *f, const char *wq, const struct settings *orig,
		       size_t *n)
{
	char val[ATTR_TEXT_MAX];
	int a;

	for (a = 0; a < WA_NR; a++) {
		if (!(orig->set & WA_BIT(a)))
			continue;
		attr_format_sysfs(a, orig, val, sizeof(val));
		fprintf(f, "wq ");
		escape(f, wq);
		fprintf(f, " %s ", attr_name(a));
		escape(f, val);
		fprintf(f, "\n");
		(*n)++;
	}
}

static void write_kw(FILE *f, pid_t pid, unsigned long long start,
		     const struct sched_val *v, size_t *n)
{
	fprintf(f, "kworker %d %llu %d %d %d\n", (int)pid, start, v->policy,
		v->rtprio, v->nice);
	(*n)++;
}

int state_save(struct state *s, const struct wq_track *wqs, size_t n,
	       const struct kw_track *kws, size_t nk)
{
	char *text = NULL;
	size_t i, lines = 0, len = 0;
	FILE *f;
	int err;

	if (!s->path)
		return 0;
	s->saves++;
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	fprintf(f, STATE_MAGIC " %d\n", STATE_VERSION);
	if (s->boot[0])
		fprintf(f, "boot %s\n", s->boot);
	for (i = 0; i < n; i++)
		write_orig(f, wqs[i].name, &wqs[i].orig, &lines);
	for (i = 0; i < s->n; i++)
		write_orig(f, s->v[i].name, &s->v[i].orig, &lines);
	for (i = 0; i < nk; i++)
		if (kws[i].changed)
			write_kw(f, kws[i].pid, kws[i].start, &kws[i].orig,
				 &lines);
	for (i = 0; i < s->nk; i++)
		write_kw(f, s->kv[i].pid, s->kv[i].start, &s->kv[i].orig,
			 &lines);
	if (fclose(f)) {
		free(text);
		return -ENOMEM;
	}
	/* nothing to keep: no file */
	if (!lines)
		text[len = 0] = '\0';
	if (s->last && !strcmp(s->last, text)) {
		free(text);
		return 0;
	}
	err = s->ops->save_file(s->ops->ctx, s->path, lines ? text : NULL,
				len);
	if (err) {
		free(text);
		return err;
	}
	free(s->last);
	s->last = text;
	return 0;
}

void state_free(struct state *s)
{
	free(s->v);
	free(s->kv);
	free(s->last);
	htab_free(&s->v_ix);
	htab_free(&s->kv_ix);
	memset(s, 0, sizeof(*s));
}
