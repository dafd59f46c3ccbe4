// SPDX-License-Identifier: GPL-2.0-only
#include "state.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct saved_wq *saved_find(const struct state *s, const char *wq)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, wq))
			return &s->v[i];
	return NULL;
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
	return v;
}

/* One line per changed attribute: "WORKQUEUE ATTRIBUTE VALUE" (sysfs's) */
int state_load(struct state *s, const char *path)
{
	char name[WQ_NAME_MAX], attr[32], val[256];
	struct saved_wq *w;
	FILE *f;
	int a;

	s->path = path;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fscanf(f, "%63s %31s %255s", name, attr, val) == 3) {
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
	if (s->n)
		log_notice("%s: originals of %zu workqueue(s) from a previous run",
			   path, s->n);
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
	*w = s->v[--s->n];
	return true;
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

void state_save(const struct state *s, const struct wq_track *wqs, size_t n)
{
	char tmp[WQRT_PATH_MAX + 8];
	size_t i, lines = 0;
	FILE *f;

	if (!s->path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.new", s->path);
	f = fopen(tmp, "we");
	if (!f) {
		log_warn("cannot write %s: %s", tmp, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++)
		write_orig(f, wqs[i].name, &wqs[i].orig, &lines);
	for (i = 0; i < s->n; i++)
		write_orig(f, s->v[i].name, &s->v[i].orig, &lines);
	if (fclose(f) || (lines ? rename(tmp, s->path) :
				  (unlink(tmp), unlink(s->path))) < 0) {
		if (errno != ENOENT)
			log_warn("cannot write %s: %s", s->path,
				 strerror(errno));
	}
}

void state_forget(struct state *s)
{
	s->n = 0;
}

void state_free(struct state *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
