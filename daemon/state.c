// SPDX-License-Identifier: GPL-2.0-only
#include "state.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * One line per changed attribute: "WORKQUEUE ATTRIBUTE VALUE" (sysfs's),
 * and per changed kworker "kworker PID START POLICY RTPRIO NICE".
 */
int state_load(struct state *s, const char *path)
{
	char name[WQ_NAME_MAX], attr[32], val[256], line[512];
	unsigned long long start;
	struct sched_val orig;
	struct saved_wq *w;
	FILE *f;
	int a, pid, end;

	s->path = path;
	free(s->last);
	s->last = strdup("");
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		end = 0;
		if (sscanf(line, "kworker %d %llu %d %d %d %n", &pid, &start,
			   &orig.policy, &orig.rtprio, &orig.nice, &end) == 5 &&
		    end && !line[end]) {
			saved_kw_add(s, pid, start, &orig);
			continue;
		}
		if (sscanf(line, "%63s %31s %255s", name, attr, val) != 3) {
			log_warn("%s: ignoring '%.*s'", path,
				 (int)strcspn(line, "\n"), line);
			continue;
		}
		w = saved_find(s, name);
		if (!w)
			w = saved_add(s, name);
		if (!w)
			break;
		a = attr_lookup(attr);
		if (a < 0 || attr_parse_sysfs(a, val, &w->orig))
			log_warn("%s: ignoring '%s %s %s'", path, name, attr,
				 val);
	}
	fclose(f);
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
	char val[256];
	int a;

	for (a = 0; a < WA_NR; a++) {
		if (!(orig->set & WA_BIT(a)))
			continue;
		attr_format_sysfs(a, orig, val, sizeof(val));
		fprintf(f, "%s %s %s\n", wq, attr_name(a), val);
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

void state_save(struct state *s, const struct wq_track *wqs, size_t n,
		const struct kw_track *kws, size_t nk)
{
	char tmp[WQRT_PATH_MAX + 8], *text = NULL;
	size_t i, lines = 0, len = 0;
	FILE *f;

	if (!s->path)
		return;
	s->saves++;
	f = open_memstream(&text, &len);
	if (!f)
		return;
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
		return;
	}
	if (s->last && !strcmp(s->last, text)) {
		free(text);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s.new", s->path);
	if (!lines) {
		if (unlink(s->path) && errno != ENOENT) {
			log_warn("cannot remove %s: %s", s->path,
				 strerror(errno));
			free(text);
			return;
		}
	} else {
		int bad;

		f = fopen(tmp, "we");
		bad = !f;
		if (f) {
			bad = fputs(text, f) < 0;
			bad |= fclose(f) != 0;
		}
		if (bad || rename(tmp, s->path)) {
			log_warn("cannot write %s: %s", s->path,
				 strerror(errno));
			free(text);
			return;
		}
	}
	free(s->last);
	s->last = text;
}

void state_forget(struct state *s)
{
	s->n = 0;
	s->nk = 0;
	htab_clear(&s->v_ix);
	htab_clear(&s->kv_ix);
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
