// SPDX-License-Identifier: GPL-2.0-only
/*
 * Loading a configuration: its files (config_files.c), each parsed by
 * iniparser (config_ini.c), then their sections and keys checked and made
 * rules, every error said as FILE:LINE: [section] key = value: reason;
 * on a good one, what the system says about it (config_warn.c).
 */
#include "config_load.h"
#include "config_files.h"
#include "config_ini.h"
#include "config_warn.h"
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loader {
	/* the file being read */
	const char *path;
	const struct conf_file *f;
	struct strlist *errors;
	struct config *c;
	struct rule *profiles;
	size_t nprofiles;
	struct htab profile_ix; /* profiles by section */
	struct htab rule_ix; /* c->rules by section */
};

static void error_at(struct loader *ld, const char *sec, const char *key,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One line: FILE:LINE: [section] key = value: reason */
static void error_at(struct loader *ld, const char *sec, const char *key,
		     const char *fmt, ...)
{
	const struct conf_key *k = NULL;
	char why[256], what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* a key before any section: iniparser stores it as ":key" */
	if (key)
		k = conf_key(ld->f, sec && *sec ? sec : "", key);
	if (key && sec && *sec)
		snprintf(what, sizeof(what), "[%s] %s = %s", sec, key,
			 k ? k->val : "");
	else if (key)
		snprintf(what, sizeof(what), "%s = %s", key, k ? k->val : "");
	else
		snprintf(what, sizeof(what), "[%s]", sec);
	strlist_add(ld->errors, "%s:%d: %s: %s", ld->path,
		    key ? (k ? k->line : 0) : conf_line(ld->f, sec ? sec : ""),
		    what, why);
}

/* " (did you mean `x`?)" for the closest candidate within 2 edits */
static const char *hint(const char *word, const char *const *cands, size_t n,
			char *buf, size_t size)
{
	unsigned int best = 3, d;
	const char *pick = NULL;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		d = edit_distance(word, cands[i]);
		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	if (!pick || best >= strlen(word)) {
		buf[0] = '\0';
		return buf;
	}
	snprintf(buf, size, " (did you mean `%s`?)", pick);
	return buf;
}

static const char *const global_keys[] = { "log_level", "restore_on_exit",
					   "rescan_interval",
					   "allow_high_priority" };
static const char *const rule_keys[] = {
	"private",	   "nr_idle_extra", "cpumask", "affinity_scope",
	"affinity_strict", "max_active",    "nice",    "policy",
	"rtprio",	   "profile",
};
static const char *const section_types[] = { "global", "profile", "wq",
					     "kworker" };

static bool is_global_key(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(global_keys); i++)
		if (!strcmp(key, global_keys[i]))
			return true;
	return false;
}

/*
 * Iterate the keys of section s (a struct conf_sec *, or NULL): k is the
 * key, v its value.
 */
#define for_each_key(s, i, k, v)                               \
	for (i = 0; (s) && i < (s)->nkeys &&                   \
		    ((k) = (s)->keys[i].name, (v) = (s)->keys[i].val, \
		    true);                                         \
	     i++)

static void load_global(struct loader *ld, const char *sec)
{
	const struct conf_sec *s = conf_sec_find(ld->f, sec);
	struct config *c = ld->c;
	const char *key, *val;
	char h[64];
	size_t i;
	long v;
	bool b;

	for_each_key(s, i, key, val)
	{
		if (!strcmp(key, "log_level")) {
			int l = log_level_parse(val);

			if (l < 0)
				error_at(
					ld, sec, key,
					"expected err, warning, notice, info or debug");
			else
				c->log_level = l;
		} else if (!strcmp(key, "rescan_interval")) {
			if (parse_long(val, 0, 86400, &v))
				error_at(ld, sec, key,
					 "expected seconds, 0..86400 (0: off)");
			else
				c->rescan_interval = v;
		} else if (!strcmp(key, "restore_on_exit") ||
			   !strcmp(key, "allow_high_priority")) {
			if (parse_bool(val, &b))
				error_at(ld, sec, key, "expected yes or no");
			else if (key[0] == 'r')
				c->restore_on_exit = b;
			else
				c->allow_high_priority = b;
		} else if (attr_lookup(key) >= 0 || !strcmp(key, "profile")) {
			error_at(
				ld, sec, key,
				"not a [global] key: put it in a [profile:], [wq:] or [kworker:] section");
		} else {
			error_at(ld, sec, key, "unknown key%s",
				 hint(key, global_keys, ARRAY_SIZE(global_keys),
				      h, sizeof(h)));
		}
	}
}

static bool profile_eq(const void *ctx, int idx, const void *key)
{
	return !strcmp(((const struct loader *)ctx)->profiles[idx].section,
		       key);
}

static bool rule_eq(const void *ctx, int idx, const void *key)
{
	return !strcmp(((const struct loader *)ctx)->c->rules[idx].section,
		       key);
}

static const struct rule *find_profile(struct loader *ld, const char *name)
{
	char sec[512];
	int i;

	snprintf(sec, sizeof(sec), "profile:%s", name);
	i = htab_lookup(&ld->profile_ix, htab_hash_str(sec), profile_eq, ld,
			sec, ld->nprofiles);
	return i < 0 ? NULL : &ld->profiles[i];
}

static void profile_hint(struct loader *ld, const char *name, char *h,
			 size_t size)
{
	const char **names = calloc(ld->nprofiles + 1, sizeof(*names));
	size_t i;

	h[0] = '\0';
	if (!names)
		return;
	for (i = 0; i < ld->nprofiles; i++)
		names[i] = ld->profiles[i].pattern;
	hint(name, names, ld->nprofiles, h, size);
	free(names);
}

/* Read the attribute keys of one section into r->s (over what is there) */
static void load_keys(struct loader *ld, struct rule *r, bool is_profile)
{
	const struct conf_sec *s = conf_sec_find(ld->f, r->section);
	const char *key, *why, *val;
	char h[64];
	size_t i;
	int a;

	for_each_key(s, i, key, val)
	{
		if (!strcmp(key, "profile")) {
			if (is_profile)
				error_at(
					ld, r->section, key,
					"a profile cannot include another profile");
			continue;
		}
		a = attr_lookup(key);
		if (a < 0) {
			if (is_global_key(key))
				error_at(ld, r->section, key,
					 "only valid in [global]");
			else
				error_at(ld, r->section, key, "unknown key%s",
					 hint(key, rule_keys,
					      ARRAY_SIZE(rule_keys), h,
					      sizeof(h)));
			continue;
		}
		if (!*val) {
			error_at(ld, r->section, key, "empty value");
			continue;
		}
		if (attr_parse_conf(a, val, &r->s, &why))
			error_at(ld, r->section, key, "%s", why);
		else if (r->kind == RULE_KWORKER && !is_profile &&
			 !(WA_BIT(a) & WA_SCHED_MASK))
			error_at(
				ld, r->section, key,
				"not valid for kworkers: a [kworker:] section takes policy, rtprio and nice");
	}
}

/* The key that set attribute a in rule r, or "profile" if it came from there */
static const char *origin_key(struct loader *ld, const struct rule *r,
			      enum wq_attr a)
{
	return conf_value(ld->f, r->section, attr_name(a)) ? attr_name(a) :
							  "profile";
}

static void check_rule(struct loader *ld, struct rule *r)
{
	const struct settings *s = &r->s;
	bool has_pol = s->set & WA_BIT(WA_POLICY);
	bool has_prio = s->set & WA_BIT(WA_RTPRIO);
	bool rt = has_pol && s->val[WA_POLICY] != POLICY_NORMAL;
	const char *pk = origin_key(ld, r, WA_POLICY);
	const char *rk = origin_key(ld, r, WA_RTPRIO);

	if (rt && !has_prio)
		error_at(ld, r->section, pk, "policy %s needs rtprio = 1..99",
			 policy_name(s->val[WA_POLICY]));
	else if (rt && s->val[WA_RTPRIO] == 0)
		error_at(ld, r->section, rk,
			 "policy %s needs rtprio = 1..99 (0 is for normal)",
			 policy_name(s->val[WA_POLICY]));
	else if (has_prio && s->val[WA_RTPRIO] > 0 && !rt)
		error_at(ld, r->section, rk, "needs policy = fifo or rr");

	if (r->kind == RULE_KWORKER && r->profile && (s->set & ~WA_SCHED_MASK))
		error_at(
			ld, r->section, "profile",
			"profile `%s` sets attributes a kworker cannot take (only policy, rtprio and nice)",
			r->profile);

	if (rt && r->glob && s->val[WA_RTPRIO] >= HIGH_PRIO_THRESHOLD &&
	    !ld->c->allow_high_priority)
		error_at(
			ld, r->section, rk,
			"rtprio %d or more on a glob needs allow_high_priority = yes in [global]",
			HIGH_PRIO_THRESHOLD);
}

static struct rule *new_rule(struct rule **v, size_t *n, const char *sec,
			     enum rule_kind kind, int line)
{
	struct rule *r = array_grow(*v, *n, sizeof(*r));

	if (!r)
		return NULL;
	*v = r;
	r += (*n)++;
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->section = strdup(sec);
	r->pattern = r->section ? strchr(r->section, ':') + 1 : "";
	r->glob = pattern_is_glob(r->pattern);
	r->line = line;
	return r;
}

static void load_rule(struct loader *ld, const char *sec, enum rule_kind kind)
{
	struct config *c = ld->c;
	const struct rule *p;
	const char *pname;
	struct rule *r;
	char h[64];
	size_t before;

	r = new_rule(&c->rules, &c->nrules, sec, kind,
		     conf_line(ld->f, sec));
	if (!r || !r->section)
		return;
	htab_add(&ld->rule_ix, htab_hash_str(r->section), c->nrules - 1);
	r->file = strdup(ld->path);
	pname = conf_value(ld->f, sec, "profile");
	if (pname) {
		p = find_profile(ld, pname);
		if (!p) {
			profile_hint(ld, pname, h, sizeof(h));
			error_at(ld, sec, "profile",
				 "no [profile:%s] section%s", pname, h);
		} else {
			r->s = p->s;
			r->profile = strdup(pname);
		}
	}
	before = ld->errors->n;
	load_keys(ld, r, false);
	/* cross-key checks on a section with bad values only add noise */
	if (ld->errors->n == before)
		check_rule(ld, r);
}

static void check_section_name(struct loader *ld, const char *sec)
{
	const char *colon = strchr(sec, ':');
	char type[64], h[64];

	snprintf(type, sizeof(type), "%.*s",
		 (int)(colon ? colon - sec : (ptrdiff_t)strlen(sec)), sec);
	if (!strcmp(type, "global") && !colon)
		return;
	if (colon && (!strcmp(type, "profile") || !strcmp(type, "wq") ||
		      !strcmp(type, "kworker"))) {
		if (!colon[1])
			error_at(ld, sec, NULL, "empty name after `%s:`", type);
		return;
	}
	if (!colon && (!strcmp(type, "profile") || !strcmp(type, "wq") ||
		       !strcmp(type, "kworker"))) {
		error_at(ld, sec, NULL, "needs a name: [%s:NAME]", type);
		return;
	}
	error_at(
		ld, sec, NULL,
		"unknown section (expected global, profile:, wq: or kworker:)%s",
		hint(type, section_types, ARRAY_SIZE(section_types), h,
		     sizeof(h)));
}

static bool section_is(const char *sec, const char *type)
{
	size_t l = strlen(type);

	return !strncmp(sec, type, l) && sec[l] == ':' && sec[l + 1];
}

/* A section already defined in an earlier file: say where, and skip it */
static bool duplicate(struct loader *ld, const struct htab *ix,
		      htab_eq_fn eq, const struct rule *v, size_t n,
		      const char *sec)
{
	int i = htab_lookup(ix, htab_hash_str(sec), eq, ld, sec, n);
	const struct rule *first = i < 0 ? NULL : &v[i];

	if (!first)
		return false;
	error_at(ld, sec, NULL, "the section is already in %s:%d", first->file,
		 first->line);
	return true;
}

/* The current file's keys outside sections, section names and [global] */
static void load_header(struct loader *ld)
{
	const struct conf_sec *s = conf_sec_find(ld->f, "");
	size_t i;

	/* keys before the first section */
	for (i = 0; s && i < s->nkeys; i++)
		error_at(ld, NULL, s->keys[i].name,
			 "key outside of any section");
	for (i = 0; i < ld->f->nsecs; i++)
		if (*ld->f->secs[i].name)
			check_section_name(ld, ld->f->secs[i].name);
	/* a later file's [global] keys win over an earlier one's */
	if (conf_sec_find(ld->f, "global"))
		load_global(ld, "global");
}

static void load_profiles(struct loader *ld)
{
	const char *name;
	struct rule *p;
	size_t i;

	for (i = 0; i < ld->f->nsecs; i++) {
		name = ld->f->secs[i].name;
		if (!section_is(name, "profile") ||
		    duplicate(ld, &ld->profile_ix, profile_eq, ld->profiles,
			      ld->nprofiles, name))
			continue;
		p = new_rule(&ld->profiles, &ld->nprofiles, name, RULE_WQ,
			     conf_line(ld->f, name));
		if (p && p->section) {
			htab_add(&ld->profile_ix, htab_hash_str(p->section),
				 ld->nprofiles - 1);
			p->file = strdup(ld->path);
			load_keys(ld, p, true);
		}
	}
	ld->c->nprofiles = ld->nprofiles;
}

static void load_rules(struct loader *ld)
{
	const char *name;
	size_t i;

	for (i = 0; i < ld->f->nsecs; i++) {
		name = ld->f->secs[i].name;
		if (duplicate(ld, &ld->rule_ix, rule_eq, ld->c->rules,
			      ld->c->nrules, name))
			continue;
		if (section_is(name, "wq"))
			load_rule(ld, name, RULE_WQ);
		else if (section_is(name, "kworker"))
			load_rule(ld, name, RULE_KWORKER);
	}
}

static void free_files(struct conf_file *files, int n)
{
	int i;

	for (i = 0; i < n; i++)
		conf_free(&files[i]);
	free(files);
}

/* Make file f the one error_at() and the loaders speak of */
static void use_file(struct loader *ld, const struct conf_file *f)
{
	ld->path = f->path;
	ld->f = f;
}

/* What the configuration was read from, kept for wqrtd's snapshot */
static void keep_sources(struct config *c, struct conf_file *files, int n)
{
	int i;

	c->sources = calloc(n, sizeof(*c->sources));
	if (!c->sources)
		return;
	for (i = 0; i < n; i++) {
		c->sources[i].path = files[i].path;
		c->sources[i].text = files[i].text;
		c->sources[i].len = files[i].len;
		files[i].path = NULL;
		files[i].text = NULL;
	}
	c->nsources = n;
}

/*
 * The configuration of files[0..n-1] (path first), which it frees; the
 * errors are those added to errors after its first before
 */
static int load_files(const char *path, const char *root,
		      struct conf_file *files, int n, struct config **out,
		      struct strlist *errors, size_t before)
{
	struct loader ld = { .path = path, .errors = errors };
	struct config *c;
	int i;

	/* every file, so that every error of every file is reported */
	for (i = 0; i < n; i++)
		if (!config_read(files[i].path, &files[i].text, &files[i].len,
				 errors))
			conf_parse(&files[i], i > 0, errors);
	c = calloc(1, sizeof(*c));
	if (!c) {
		free_files(files, n);
		strlist_add(errors, "%s: out of memory", path);
		return errors->n - before;
	}
	c->path = strdup(path);
	c->log_level = LOG_INFO;
	c->restore_on_exit = true;
	c->rescan_interval = 30;
	ld.c = c;
	/*
	 * Profiles before rules, over all files: a drop-in may use a profile
	 * of the main file, and the main file one of a drop-in.
	 */
	for (i = 0; i < n; i++)
		if (files[i].parsed) {
			use_file(&ld, &files[i]);
			load_header(&ld);
		}
	for (i = 0; i < n; i++)
		if (files[i].parsed) {
			use_file(&ld, &files[i]);
			load_profiles(&ld);
		}
	for (i = 0; i < n; i++)
		if (files[i].parsed) {
			use_file(&ld, &files[i]);
			load_rules(&ld);
		}
	if (errors->n == before)
		config_warn(root, c);
	while (ld.nprofiles--) {
		free(ld.profiles[ld.nprofiles].section);
		free(ld.profiles[ld.nprofiles].profile);
		free(ld.profiles[ld.nprofiles].file);
	}
	free(ld.profiles);
	htab_free(&ld.profile_ix);
	htab_free(&ld.rule_ix);
	if (errors->n != before) {
		free_files(files, n);
		config_free(c);
		return errors->n - before;
	}
	keep_sources(c, files, n);
	free_files(files, n);
	*out = c;
	return 0;
}

int config_load(const char *path, const char *root, struct config **out,
		struct strlist *errors)
{
	size_t before = errors->n;
	struct conf_file *files;
	int n;

	*out = NULL;
	n = config_files(path, &files, errors);
	if (n < 0)
		return errors->n - before;
	return load_files(path, root, files, n, out, errors, before);
}

int config_load_one(const char *path, const char *root, struct config **out,
		    struct strlist *errors)
{
	size_t before = errors->n;
	struct conf_file *files = calloc(1, sizeof(*files));

	*out = NULL;
	if (files)
		files[0].path = strdup(path);
	if (!files || !files[0].path) {
		free(files);
		strlist_add(errors, "%s: out of memory", path);
		return errors->n - before;
	}
	return load_files(path, root, files, 1, out, errors, before);
}

int config_load_report(const char *path, const char *root,
		       struct config **out, const char *then)
{
	struct strlist errors = { 0 };
	size_t i;
	int n;

	n = config_load(path, root, out, &errors);
	for (i = 0; i < errors.n; i++)
		log_err("%s", errors.v[i]);
	strlist_free(&errors);
	if (n) {
		log_err("%s has %d error(s)%s%s", path, n, then ? "; " : "",
			then ? then : "");
		return n;
	}
	for (i = 0; i < (*out)->warnings.n; i++)
		log_warn("%s", (*out)->warnings.v[i]);
	return 0;
}
