// SPDX-License-Identifier: GPL-2.0-only
#include "config.h"
#include "log.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct config *config_empty(const char *path)
{
	struct config *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->path = strdup(path);
	c->log_level = LOG_INFO;
	c->restore_on_exit = true;
	if (!c->path) {
		free(c);
		return NULL;
	}
	return c;
}

/* What a rule owns: its section, profile and file names */
static void rule_strings_free(struct rule *r)
{
	free(r->section);
	free(r->profile);
	free(r->file);
}

void config_free(struct config *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nrules; i++)
		rule_strings_free(&c->rules[i]);
	free(c->rules);
	for (i = 0; i < c->nsources; i++) {
		free(c->sources[i].path);
		free(c->sources[i].text);
	}
	free(c->sources);
	free(c->path);
	strlist_free(&c->warnings);
	config_set_trial(c, NULL);
	free(c);
}

static void rule_free(struct rule *r)
{
	if (!r)
		return;
	rule_strings_free(r);
	free(r);
}

int config_set_trial(struct config *c, const struct rule *t)
{
	const struct rule *base;
	struct rule *r;
	int a;

	if (!t) {
		rule_free(c->trial);
		c->trial = NULL;
		return 0;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->kind = RULE_WQ;
	r->section = strdup(t->section);
	r->file = strdup(t->file ? t->file : "");
	if (!r->section || !r->file) {
		rule_free(r);
		return -ENOMEM;
	}
	r->pattern = r->section + (t->pattern - t->section);
	r->line = t->line;
	/* what c gives the workqueue, without a trial already laid over */
	rule_free(c->trial);
	c->trial = NULL;
	base = config_match_wq(c, r->pattern);
	if (base)
		r->s = base->s;
	/*
	 * One of the two is both: a section that passed config_load() gives
	 * rtprio with an RT policy, and rtprio 0 or nothing with normal
	 */
	if (t->s.set & (WA_BIT(WA_POLICY) | WA_BIT(WA_RTPRIO))) {
		r->s.set |= WA_BIT(WA_POLICY) | WA_BIT(WA_RTPRIO);
		r->s.val[WA_POLICY] = t->s.set & WA_BIT(WA_POLICY) ?
					      t->s.val[WA_POLICY] :
					      POLICY_NORMAL;
		r->s.val[WA_RTPRIO] =
			t->s.set & WA_BIT(WA_RTPRIO) ? t->s.val[WA_RTPRIO] : 0;
	}
	for (a = 0; a < WA_NR; a++)
		if ((t->s.set & WA_BIT(a)) && a != WA_POLICY && a != WA_RTPRIO)
			settings_copy_attr(&r->s, &t->s, a);
	c->trial = r;
	return 0;
}

bool pattern_is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

bool config_rule_matches(const struct rule *r, const char *name)
{
	return r->glob ? !fnmatch(r->pattern, name, FNM_CASEFOLD) :
			 !strcasecmp(r->pattern, name);
}

static const struct rule *match(const struct config *c, enum rule_kind kind,
				const char *name)
{
	size_t i;

	if (kind == RULE_WQ && c->trial && !strcasecmp(c->trial->pattern, name))
		return c->trial;
	for (i = 0; i < c->nrules; i++) {
		const struct rule *r = &c->rules[i];

		if (r->kind == kind && !r->glob &&
		    !strcasecmp(r->pattern, name))
			return r;
	}
	for (i = 0; i < c->nrules; i++) {
		const struct rule *r = &c->rules[i];

		if (r->kind == kind && r->glob &&
		    !fnmatch(r->pattern, name, FNM_CASEFOLD))
			return r;
	}
	return NULL;
}

const char *config_dropin_dirs(const struct config *c, char *buf, size_t size)
{
	size_t i, j, len = 0;

	buf[0] = '\0';
	for (i = 1; i < c->nsources; i++) {
		const char *p = c->sources[i].path, *slash = strrchr(p, '/');
		size_t dlen = slash ? (size_t)(slash - p) : 0;

		/* said already, with an earlier drop-in of that directory */
		for (j = 1; j < i; j++) {
			const char *q = c->sources[j].path;
			const char *qslash = strrchr(q, '/');

			if (qslash && (size_t)(qslash - q) == dlen &&
			    !strncmp(p, q, dlen))
				break;
		}
		if (j < i)
			continue;
		len += snprintf(buf + len, len < size ? size - len : 0,
				"%s%.*s", len ? " and " : "", (int)dlen, p);
	}
	return buf;
}

const struct rule *config_match_wq(const struct config *c, const char *name)
{
	return match(c, RULE_WQ, name);
}

const struct rule *config_match_kworker(const struct config *c,
					const char *comm)
{
	return match(c, RULE_KWORKER, comm);
}
