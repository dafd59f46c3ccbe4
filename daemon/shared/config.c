// SPDX-License-Identifier: GPL-2.0-only
#include "config.h"
#include "common.h"
#include "discover.h"
#include "htab.h"
#include "inventory.h"
#include "log.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <iniparser/iniparser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/*
 * iniparser keeps no line numbers and folds section and key names to lower
 * case. The line map below is a scan of the file for "[section]" and
 * "key =" lines, used only to point error messages at the right line.
 * Indexed by (section, key): a look-up per error and per section, not a
 * walk over the file (32k sections took 30 s to check).
 */
struct line_ent {
	char *section;
	char *key; /* NULL for the section header itself */
	int line; /* a header's first line, a key's last (the value kept) */
};

struct line_map {
	struct line_ent *v;
	size_t n;
	struct htab ix; /* v by (section, key) */
};

struct line_key {
	const char *section;
	const char *key;
};

/*
 * v, an array of n elements of size bytes, with room for one more: its
 * room doubles when n reaches a power of two (a realloc per element made
 * a file of 32k sections quadratic to read). NULL when out of memory; v
 * is kept.
 */
static void *grow(void *v, size_t n, size_t size)
{
	if (n && (n & (n - 1)))
		return v;
	return realloc(v, (n ? 2 * n : 1) * size);
}

static uint32_t line_hash(const char *sec, const char *key)
{
	uint32_t h = htab_hash_str(sec);

	return key ? h * 31 + htab_hash_str(key) : h;
}

static bool line_eq(const void *ctx, int idx, const void *key)
{
	const struct line_ent *e = &((const struct line_map *)ctx)->v[idx];
	const struct line_key *k = key;

	if (strcmp(e->section, k->section))
		return false;
	return k->key ? e->key && !strcmp(e->key, k->key) : !e->key;
}

static int line_find(const struct line_map *m, const char *sec,
		     const char *key)
{
	struct line_key k = { sec, key };

	return htab_lookup(&m->ix, line_hash(sec, key), line_eq, m, &k, m->n);
}

static char *trim_lower(const char *s, size_t len)
{
	char *out;
	size_t i;

	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	out = strndup(s, len);
	for (i = 0; out && out[i]; i++)
		out[i] = tolower((unsigned char)out[i]);
	return out;
}

/* A key seen again keeps its last line, which holds the value kept */
static void line_map_add(struct line_map *m, const char *sec, char *key,
			 int line)
{
	struct line_ent *v;
	int i = line_find(m, sec, key);

	if (i >= 0) {
		if (key)
			m->v[i].line = line;
		free(key);
		return;
	}
	v = grow(m->v, m->n, sizeof(*v));
	if (!v) {
		free(key);
		return;
	}
	m->v = v;
	v[m->n].section = strdup(sec);
	v[m->n].key = key;
	v[m->n].line = line;
	if (!v[m->n].section) {
		free(key);
		return;
	}
	htab_add(&m->ix, line_hash(sec, key), m->n);
	m->n++;
}

/*
 * Map every "[section]" and "key =" line of text. Also the errors
 * iniparser cannot report: a section that appears twice (iniparser merges
 * [wq:x] and [wq:X] silently) and, to empty_errors unless NULL, a file
 * with no section at all.
 */
static void line_map_build(struct line_map *m, const char *text, size_t len,
			   const char *path, struct strlist *empty_errors,
			   struct strlist *errors)
{
	const char *p = text, *end = text + len, *eol, *close;
	char *sec = strdup("");
	int nr = 0, sections = 0, first;

	while (sec && p < end) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		nr++;
		while (p < eol && isspace((unsigned char)*p))
			p++;
		if (p < eol && *p == '[' &&
		    (close = memrchr(p, ']', eol - p))) {
			free(sec);
			sec = trim_lower(p + 1, close - p - 1);
			if (!sec)
				break;
			sections++;
			first = line_find(m, sec, NULL);
			if (first >= 0)
				strlist_add(
					errors,
					"%s:%d: [%s]: the section appears again (first on line %d; names are folded to lower case)",
					path, nr, sec, m->v[first].line);
			else
				line_map_add(m, sec, NULL, nr);
		} else if (p < eol && *p != ';' && *p != '#' &&
			   (close = memchr(p, '=', eol - p))) {
			line_map_add(m, sec, trim_lower(p, close - p), nr);
		}
		p = eol + 1;
	}
	if (!sections && empty_errors)
		strlist_add(empty_errors,
			    "%s:1: the file has no section: nothing to apply",
			    path);
	free(sec);
}

/* Section header: first line. Key: last line (the value iniparser kept). */
static int line_of(const struct line_map *m, const char *sec, const char *key)
{
	int i = line_find(m, sec, key);

	return i < 0 ? 0 : m->v[i].line;
}

static void line_map_free(struct line_map *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].section);
		free(m->v[i].key);
	}
	free(m->v);
	htab_free(&m->ix);
}

/* An entry iniparser read: "section:key" (folded) and its value */
struct conf_ent {
	const char *key;
	const char *val;
};

/*
 * A section of one file and its keys, in file order; keys before any
 * section are in the one named "" (iniparser's ":key").
 */
struct conf_sec {
	const char *name;
	size_t *keys; /* indices into the file's ents */
	size_t nkeys;
};

/*
 * One file of the configuration, parsed. iniparser finds a key by walking
 * its whole dictionary, so a file is read into one dictionary per chunk
 * of CHUNK_LINES lines (cut at section lines), and its entries are indexed
 * here: checking a file takes time linear in its size.
 */
struct conf_file {
	char *path;
	char *text; /* as read: what wqrtd holds, for wqrtctl status */
	size_t len;
	bool parsed; /* false: it could not be parsed */
	dictionary **dicts;
	size_t ndicts;
	struct conf_ent *ents;
	size_t nents;
	struct conf_sec *secs; /* in the order they first appear */
	size_t nsecs;
	struct htab sec_ix; /* secs by name */
	struct line_map lines;
};

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

static bool sec_eq(const void *ctx, int idx, const void *key)
{
	return !strcmp(((const struct conf_file *)ctx)->secs[idx].name, key);
}

static struct conf_sec *sec_find(const struct conf_file *f, const char *name)
{
	int i = htab_lookup(&f->sec_ix, htab_hash_str(name), sec_eq, f, name,
			    f->nsecs);

	return i < 0 ? NULL : &f->secs[i];
}

/* The key of entry e of section s: what follows "section:" */
static const char *ent_key(const struct conf_sec *s, const struct conf_ent *e)
{
	return e->key + strlen(s->name) + 1;
}

/* The value of key in section sec of the file being read, or NULL */
static const char *conf_value(const struct loader *ld, const char *sec,
			      const char *key)
{
	const struct conf_sec *s = sec_find(ld->f, sec);
	size_t i;

	for (i = 0; s && i < s->nkeys; i++)
		if (!strcmp(ent_key(s, &ld->f->ents[s->keys[i]]), key))
			return ld->f->ents[s->keys[i]].val;
	return NULL;
}

static void error_at(struct loader *ld, const char *sec, const char *key,
		     const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* One line: FILE:LINE: [section] key = value: reason */
static void error_at(struct loader *ld, const char *sec, const char *key,
		     const char *fmt, ...)
{
	char why[256], what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (key && sec && *sec) {
		const char *val = conf_value(ld, sec, key);

		snprintf(what, sizeof(what), "[%s] %s = %s", sec, key,
			 val ? val : "");
	} else if (key) {
		/* a key before any section: iniparser stores it as ":key" */
		const char *val = conf_value(ld, "", key);

		snprintf(what, sizeof(what), "%s = %s", key, val ? val : "");
	} else {
		snprintf(what, sizeof(what), "[%s]", sec);
	}
	strlist_add(ld->errors, "%s:%d: %s: %s", ld->path,
		    line_of(&ld->f->lines, sec ? sec : "", key), what, why);
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
#define for_each_key(ld, s, i, k, v)                                   \
	for (i = 0; (s) && i < (s)->nkeys &&                           \
		    ((k) = ent_key((s), &(ld)->f->ents[(s)->keys[i]]), \
		    (v) = (ld)->f->ents[(s)->keys[i]].val, true);          \
	     i++)

static void load_global(struct loader *ld, const char *sec)
{
	const struct conf_sec *s = sec_find(ld->f, sec);
	struct config *c = ld->c;
	const char *key, *val;
	char h[64];
	size_t i;
	long v;
	bool b;

	for_each_key(ld, s, i, key, val)
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
	const struct conf_sec *s = sec_find(ld->f, r->section);
	const char *key, *why, *val;
	char h[64];
	size_t i;
	int a;

	for_each_key(ld, s, i, key, val)
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
	return conf_value(ld, r->section, attr_name(a)) ? attr_name(a) :
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
	struct rule *r = grow(*v, *n, sizeof(*r));

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

bool pattern_is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
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
		     line_of(&ld->f->lines, sec, NULL));
	if (!r || !r->section)
		return;
	htab_add(&ld->rule_ix, htab_hash_str(r->section), c->nrules - 1);
	r->file = strdup(ld->path);
	pname = conf_value(ld, sec, "profile");
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
	const struct conf_sec *s = sec_find(ld->f, "");
	size_t i;

	/* keys before the first section */
	for (i = 0; s && i < s->nkeys; i++)
		error_at(ld, NULL, ent_key(s, &ld->f->ents[s->keys[i]]),
			 "key outside of any section");
	for (i = 0; i < ld->f->nsecs; i++)
		if (*ld->f->secs[i].name)
			check_section_name(ld, ld->f->secs[i].name);
	/* a later file's [global] keys win over an earlier one's */
	if (sec_find(ld->f, "global"))
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
			     line_of(&ld->f->lines, name, NULL));
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

/* iniparser reports syntax errors through this callback */
static struct strlist *syntax_errors;
static const char *syntax_path;
/* the line of the file before the chunk iniparser reads */
static int syntax_line_offset;

/* One call per error: "iniparser: syntax error in FILE (LINE):\n-> TEXT\n" */
static int syntax_cb(const char *fmt, ...)
{
	const char *why = "syntax error";
	char msg[1200], *text;
	va_list ap;
	int line;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!syntax_errors ||
	    sscanf(msg, "iniparser: syntax error in %*[^(](%d)", &line) != 1)
		return 0;
	text = strstr(msg, "\n-> ");
	text = text ? text + 4 : msg;
	text[strcspn(text, "\n")] = '\0';
	if (text[0] == '[' && strchr(text, ']'))
		why = "syntax error: nothing may follow `]` on a section line, not even a comment";
	else if (!strchr(text, '='))
		why = "syntax error: expected `key = value` or `[section]`";
	strlist_add(syntax_errors, "%s:%d: %s: %s", syntax_path,
		    line + syntax_line_offset, text, why);
	return 0;
}

bool config_rule_matches(const struct rule *r, const char *name)
{
	return r->glob ? !fnmatch(r->pattern, name, FNM_CASEFOLD) :
			 !strcasecmp(r->pattern, name);
}

static void throttle_warning(const char *root, struct config *c)
{
	char path[WQRT_PATH_MAX], buf[32];
	size_t i;

	if (path_fmt(path, sizeof(path), root,
		     "/proc/sys/kernel/sched_rt_runtime_us") ||
	    read_text(path, buf, sizeof(buf)) || strcmp(buf, "-1"))
		return;
	for (i = 0; i < c->nrules; i++) {
		const struct rule *r = &c->rules[i];

		if (r->glob && (r->s.set & WA_BIT(WA_RTPRIO)) &&
		    r->s.val[WA_RTPRIO] >= HIGH_PRIO_THRESHOLD)
			strlist_add(
				&c->warnings,
				"%s:%d: [%s]: rtprio %ld on a glob while RT throttling is off (sched_rt_runtime_us = -1): a runaway work item can lock up its CPUs",
				r->file, r->line, r->section,
				r->s.val[WA_RTPRIO]);
	}
}

/* The name of inv closest to pattern, if it is a likely typo of it */
static const char *closest(const struct inventory *inv, const char *pattern)
{
	unsigned int best = 3, d;
	const char *pick = NULL;
	size_t i;

	for (i = 0; i < inv->n; i++) {
		d = edit_distance(pattern, inv->v[i].name);
		if (d < best) {
			best = d;
			pick = inv->v[i].name;
		}
	}
	return pick && best < strlen(pattern) ? pick : NULL;
}

static void warn_wq(const struct inventory *inv, const struct rule *r,
		    struct strlist *out)
{
	const struct inv_wq *hidden = NULL;
	const char *typo;
	size_t i;

	for (i = 0; i < inv->n; i++) {
		const struct inv_wq *w = &inv->v[i];

		if (!config_rule_matches(r, w->name))
			continue;
		if (w->in_sysfs)
			return;
		if (!hidden)
			hidden = w;
	}
	if (hidden && hidden->kind == WQK_PERCPU)
		strlist_add(
			out,
			"%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			": %s is per-cpu (its work runs in the CPUs' shared kworkers, which no workqueue attribute reaches)",
			r->file, r->line, r->section, hidden->name);
	else if (hidden)
		strlist_add(
			out,
			"%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			": %s is not in sysfs: it needs workqueue.sysfs=%s%s on the kernel command line (a kernel with the wqrt series)%s",
			r->file, r->line, r->section, hidden->name,
			hidden->name, hidden->truncated ? "*" : "",
			hidden->kind == WQK_UNKNOWN ?
				", if it is unbound or ordered" :
				"");
	else if (!r->glob && (typo = closest(inv, r->pattern)))
		strlist_add(out,
			    "%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			    " (did you mean `%s`?)",
			    r->file, r->line, r->section, typo);
	else
		strlist_add(
			out,
			"%s:%d: [%s]: matches no workqueue in " WQ_SYSFS_DIR
			" now (not loaded yet, or out of reach: see wqrtctl list --all)",
			r->file, r->line, r->section);
}

struct kw_names {
	struct strlist names; /* the kworkers' names, without "+desc" */
};

static int add_kw_name(const struct task_info *t, void *arg)
{
	struct kw_names *k = arg;
	struct kw_class c;

	kworker_classify(t->comm, &c);
	if (c.kind != KW_NONE)
		strlist_add(&k->names, "%s", c.base);
	return 0;
}

static void warn_kworker(const struct kw_names *k, const struct rule *r,
			 struct strlist *out)
{
	size_t i;

	for (i = 0; i < k->names.n; i++)
		if (config_rule_matches(r, k->names.v[i]))
			return;
	strlist_add(
		out,
		"%s:%d: [%s]: matches no kworker now (their names: kworker/CPU:N, kworker/CPU:NH, kworker/uPOOL:N, kworker/R-WORKQUEUE; ps -e -o comm | grep kworker)",
		r->file, r->line, r->section);
}

/*
 * A [wq:] section that matches no workqueue in sysfs now: a typo, a
 * workqueue the kernel keeps out of sysfs, or one whose module is not
 * loaded yet; a [kworker:] section that matches no kworker. Warnings, not
 * errors: the module may come later. Nothing where sysfs cannot be listed
 * (a build machine).
 */
static void unmatched_warning(const char *root, const struct config *cfg,
			      struct strlist *out)
{
	struct kw_names k = { 0 };
	struct inventory inv;
	bool kworkers = false;
	size_t i;

	if (inventory_scan(root, true, &inv))
		return;
	for (i = 0; i < cfg->nrules; i++) {
		const struct rule *r = &cfg->rules[i];

		if (r->kind == RULE_WQ) {
			warn_wq(&inv, r, out);
			continue;
		}
		/* /proc unreadable: nothing can be said */
		if (!kworkers && for_each_kworker(root, add_kw_name, &k))
			break;
		kworkers = true;
		warn_kworker(&k, r, out);
	}
	strlist_free(&k.names);
	inventory_free(&inv);
}

/* What the system under root says about a good configuration */
static void config_warn(const char *root, struct config *c)
{
	throttle_warning(root, c);
	unmatched_warning(root, c, &c->warnings);
}

/* iniparser's line buffer: longer lines are an error it reports badly */
#define LINE_MAX_BYTES 1022
#define FILE_MAX_BYTES (1 << 20)

/*
 * The directory that holds path (symbolic links followed), checked as
 * the file is: whoever can write it can put another file in its place.
 * 0, or -1 (error added). A path that does not resolve is left to open(),
 * which says why.
 */
static int check_dir_of(const char *path, struct strlist *errors)
{
	char *real = realpath(path, NULL), *slash, why[WQRT_PATH_MAX + 160];
	struct stat st;
	int err = 0;

	if (!real)
		return 0;
	slash = strrchr(real, '/');
	if (slash)
		*(slash == real ? slash + 1 : slash) = '\0';
	if (stat(real, &st)) {
		strlist_add(errors, "%s: cannot stat: %s", real,
			    strerror(errno));
		err = -1;
	} else if (trust_check(real, &st, why, sizeof(why))) {
		strlist_add(errors, "%s: %s", real, why);
		err = -1;
	}
	free(real);
	return err;
}

/*
 * Open path once and check it can be trusted: in a directory that can be
 * trusted, a regular file, owned by root (or by whoever runs this, for
 * tests as a user), that neither group nor others can write. Opened
 * without blocking: a FIFO is refused, not waited on. Its text in *text.
 * 0, or an error added.
 */
static int read_trusted(const char *path, char **text, size_t *len,
			struct strlist *errors)
{
	char why[WQRT_PATH_MAX + 160];
	struct stat st;
	ssize_t n;
	int fd;

	if (check_dir_of(path, errors))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		strlist_add(errors, "%s: cannot open: %s", path,
			    strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		strlist_add(errors, "%s: cannot stat: %s", path,
			    strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		strlist_add(errors, "%s: not a regular file; refusing it",
			    path);
	} else if (trust_check(path, &st, why, sizeof(why))) {
		strlist_add(errors, "%s: %s", path, why);
	} else if (st.st_size > FILE_MAX_BYTES) {
		strlist_add(errors, "%s: larger than %d bytes; refusing it",
			    path, FILE_MAX_BYTES);
	} else {
		*text = malloc(st.st_size + 1);
		n = *text ? read(fd, *text, st.st_size) : -1;
		if (n >= 0) {
			*len = n;
			(*text)[n] = '\0';
			close(fd);
			return 0;
		}
		strlist_add(errors, "%s: cannot read: %s", path,
			    strerror(errno));
		free(*text);
		*text = NULL;
	}
	close(fd);
	return -1;
}

/*
 * Blank line nr (1-based) of text, keeping the line count; of a section
 * line with something after its ']', only that something, so that the
 * keys below stay in their section.
 */
static void blank_line(char *text, int nr)
{
	char *p = text, *end;

	while (--nr > 0 && (p = strchr(p, '\n')))
		p++;
	if (!p)
		return;
	end = p + strcspn(p, "\n");
	p += strspn(p, " \t");
	if (*p == '[' && memchr(p, ']', end - p))
		p = (char *)memchr(p, ']', end - p) + 1;
	for (; p < end; p++)
		*p = ' ';
}

/*
 * Parse text (lines offset + 1 ... of the file) with iniparser, through a
 * memfd: the bytes checked are the bytes parsed. On syntax errors (each
 * one reported) the bad lines are blanked and the rest parsed again, so
 * that every other error of the file is reported too.
 */
static dictionary *parse_text(int fd, char *text, size_t len,
			      struct strlist *errors, int offset)
{
	char fdpath[64];
	dictionary *d = NULL;
	size_t i, nsyntax;
	int pass, line;

	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
	syntax_line_offset = offset;
	for (pass = 0; pass < 2 && !d; pass++) {
		if (ftruncate(fd, 0) || pwrite(fd, text, len, 0) != (ssize_t)len)
			break;
		nsyntax = errors->n;
		syntax_errors = pass ? NULL : errors;
		iniparser_set_error_callback(syntax_cb);
		d = iniparser_load(fdpath);
		iniparser_set_error_callback(NULL);
		syntax_errors = NULL;
		if (d || errors->n == nsyntax)
			break;
		/* "PATH:LINE: ..." for each syntax error: blank those lines */
		for (i = nsyntax; i < errors->n; i++)
			if (sscanf(errors->v[i] + strlen(syntax_path), ":%d:",
				   &line) == 1)
				blank_line(text, line - offset);
	}
	return d;
}

/*
 * Lines per iniparser dictionary, cut at a section line: iniparser finds
 * a key by walking its whole dictionary, which made loading a file of 32k
 * sections take 30 s.
 */
#define CHUNK_LINES 256

static bool section_line(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p < end && *p == '[';
}

static void add_dict(struct conf_file *f, dictionary *d)
{
	dictionary **v = realloc(f->dicts, (f->ndicts + 1) * sizeof(*v));

	if (!v) {
		iniparser_freedict(d);
		f->parsed = false;
		return;
	}
	f->dicts = v;
	v[f->ndicts++] = d;
}

/*
 * Parse work (the file's text, bad lines blanked) chunk by chunk; before:
 * the errors there were before the file's own.
 */
static void parse_chunks(struct conf_file *f, char *work,
			 struct strlist *errors, size_t before)
{
	char *p = work, *end = work + f->len, *start = work, *eol;
	int nr = 1, first = 1, lines = 0, fd;
	dictionary *d;

	fd = memfd_create("wqrt.conf", MFD_CLOEXEC);
	if (fd < 0)
		return;
	f->parsed = true;
	syntax_path = f->path;
	for (;;) {
		if (p == end ||
		    (lines >= CHUNK_LINES && section_line(p, end))) {
			d = parse_text(fd, start, p - start, errors, first - 1);
			if (d)
				add_dict(f, d);
			else if (errors->n == before && f->parsed)
				strlist_add(errors, "%s: cannot be parsed",
					    f->path);
			if (!d)
				f->parsed = false;
			if (p == end)
				break;
			start = p;
			first = nr;
			lines = 0;
		}
		eol = memchr(p, '\n', end - p);
		p = eol ? eol + 1 : end;
		nr++;
		lines++;
	}
	close(fd);
}

static bool sec_add(struct conf_file *f, const char *name)
{
	struct conf_sec *v;

	if (sec_find(f, name))
		return true;
	v = grow(f->secs, f->nsecs, sizeof(*v));
	if (!v)
		return false;
	f->secs = v;
	v += f->nsecs;
	memset(v, 0, sizeof(*v));
	v->name = name;
	htab_add(&f->sec_ix, htab_hash_str(name), f->nsecs++);
	return true;
}

static bool sec_add_key(struct conf_sec *s, size_t ent)
{
	size_t *v;

	v = grow(s->keys, s->nkeys, sizeof(*v));
	if (!v)
		return false;
	s->keys = v;
	s->keys[s->nkeys++] = ent;
	return true;
}

/*
 * The section of entry "a:b:c": the longest prefix that names a section
 * ("wq:a:b" could be key b of [wq:a] or key a:b of [wq]), or "" for a key
 * before any section.
 */
static struct conf_sec *sec_of_key(struct conf_file *f, const char *key)
{
	char name[1100];
	struct conf_sec *s;
	char *colon;

	if (snprintf(name, sizeof(name), "%s", key) >= (int)sizeof(name))
		return NULL;
	while ((colon = strrchr(name, ':'))) {
		*colon = '\0';
		s = sec_find(f, name);
		if (s || !*name)
			return s;
	}
	return NULL;
}

/* Index the entries of every dictionary of f, in file order */
static bool index_entries(struct conf_file *f)
{
	struct conf_ent *e;
	struct conf_sec *s;
	dictionary *d;
	size_t i;
	ssize_t j;

	for (i = 0; i < f->ndicts; i++) {
		d = f->dicts[i];
		/* a chunk's sections before its keys; "" holds the orphans */
		if (!sec_add(f, ""))
			return false;
		for (j = 0; j < d->size; j++)
			if (d->key[j] && !d->val[j] && !sec_add(f, d->key[j]))
				return false;
		for (j = 0; j < d->size; j++) {
			if (!d->key[j] || !d->val[j])
				continue;
			s = sec_of_key(f, d->key[j]);
			if (!s)
				continue;
			e = grow(f->ents, f->nents, sizeof(*e));
			if (!e)
				return false;
			f->ents = e;
			e[f->nents].key = d->key[j];
			e[f->nents].val = d->val[j];
			if (!sec_add_key(s, f->nents++))
				return false;
		}
	}
	return true;
}

/*
 * Read and parse one file into f; every error of it goes to errors. A
 * drop-in with no section at all is allowed (a package may ship one
 * commented out); the main file must have one.
 */
static void parse_file(struct conf_file *f, bool dropin,
		       struct strlist *errors)
{
	size_t before = errors->n;
	char *work, *p;
	int nr;

	if (read_trusted(f->path, &f->text, &f->len, errors))
		return;
	/* parsing blanks bad lines: f->text stays as read */
	work = malloc(f->len + 1);
	if (!work) {
		strlist_add(errors, "%s: out of memory", f->path);
		return;
	}
	memcpy(work, f->text, f->len + 1);
	/* lines iniparser cannot hold: each is an error, then ignored */
	for (p = work, nr = 1; *p; nr++) {
		size_t l = strcspn(p, "\n");

		if (l > LINE_MAX_BYTES) {
			strlist_add(errors, "%s:%d: line longer than %d bytes",
				    f->path, nr, LINE_MAX_BYTES);
			memset(p, ' ', l);
			p[0] = ';';
		}
		p += l + (p[l] == '\n');
	}
	parse_chunks(f, work, errors, before);
	if (f->parsed && !index_entries(f)) {
		strlist_add(errors, "%s: out of memory", f->path);
		f->parsed = false;
	}
	if (f->parsed)
		line_map_build(&f->lines, work, f->len, f->path,
			       dropin ? NULL : errors, errors);
	free(work);
}

static int conf_name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int conf_name_filter(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return de->d_name[0] != '.' && len > 5 &&
	       !strcmp(de->d_name + len - 5, ".conf");
}

/* The vendor directory: unset (the default), or what was asked for */
static bool vendor_dir_set;
static const char *vendor_dir_asked;

void config_use_vendor_dir(const char *dir)
{
	vendor_dir_set = true;
	vendor_dir_asked = dir;
}

const char *config_vendor_dir(void)
{
	const char *env;

	if (vendor_dir_set)
		return vendor_dir_asked;
	env = secure_getenv("WQRT_VENDOR_DIR");
	return env && *env ? env : WQRT_VENDOR_DIR;
}

/* A drop-in: its name, and the directory it is read from */
struct dropin {
	char *name;
	const char *dir;
	bool masked; /* a link to /dev/null: hides the vendor's, read never */
};

/*
 * An administrator's drop-in that masks the vendor's file of its name, as
 * systemd's do: a link to /dev/null (or /dev/null itself, bind-mounted).
 */
static bool is_mask(const char *dir, const char *name)
{
	char path[WQRT_PATH_MAX * 2], target[16];
	struct stat st;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	n = readlink(path, target, sizeof(target) - 1);
	if (n == 9 && !memcmp(target, "/dev/null", 9))
		return true;
	return !stat(path, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(1, 3);
}

/*
 * Add the *.conf of dir to v (n of them), a name already there (from a
 * directory that wins) skipped. A missing directory is no error; one that
 * others can write is, as for the files. 0, or -1 (errors added).
 */
static int scan_dropins(const char *dir, bool masks, struct dropin **v,
			size_t *n, struct strlist *errors)
{
	struct dirent **names = NULL;
	struct dropin *grown;
	struct stat st;
	int i, m, err = 0;
	size_t j;

	if (stat(dir, &st)) {
		if (errno == ENOENT)
			return 0;
		strlist_add(errors, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		strlist_add(errors, "%s: not a directory; refusing it", dir);
		return -1;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		strlist_add(errors,
			    "%s: owned by uid %u, not root; refusing it (chown root %s)",
			    dir, (unsigned int)st.st_uid, dir);
		return -1;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		strlist_add(errors,
			    "%s: group or others can write it (mode %04o); refusing it (chmod go-w %s)",
			    dir, (unsigned int)(st.st_mode & 07777), dir);
		return -1;
	}
	m = scandir(dir, &names, conf_name_filter, conf_name_cmp);
	if (m < 0) {
		strlist_add(errors, "%s: %s", dir, strerror(errno));
		return -1;
	}
	for (i = 0; i < m; i++) {
		for (j = 0; j < *n && strcmp((*v)[j].name, names[i]->d_name);
		     j++)
			;
		if (j < *n || err)
			continue;
		grown = realloc(*v, (*n + 1) * sizeof(**v));
		if (!grown || !(grown[*n].name = strdup(names[i]->d_name))) {
			if (grown)
				*v = grown;
			strlist_add(errors, "%s: out of memory", dir);
			err = -1;
			continue;
		}
		*v = grown;
		grown[*n].dir = dir;
		grown[*n].masked = masks && is_mask(dir, names[i]->d_name);
		(*n)++;
	}
	for (i = 0; i < m; i++)
		free(names[i]);
	free(names);
	return err;
}

static int dropin_cmp(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name,
		      ((const struct dropin *)b)->name);
}

/*
 * The files of the configuration: path, then the drop-ins of PATH.d/ and
 * of the vendor directory (config_vendor_dir()) together, in the byte
 * order of their names, as systemd and sysctl.d order drop-ins: a name in
 * both is read from PATH.d only, and a link to /dev/null there hides the
 * vendor's file. The count, or -1 (errors added).
 */
static int list_files(const char *path, struct conf_file **files,
		      struct strlist *errors)
{
	const char *vendor = config_vendor_dir();
	struct dropin *d = NULL;
	char dir[WQRT_PATH_MAX];
	struct conf_file *v;
	size_t nd = 0, i, n = 0;
	int err;

	*files = NULL;
	if (snprintf(dir, sizeof(dir), "%s.d", path) >= (int)sizeof(dir)) {
		strlist_add(errors, "%s: name too long", path);
		return -1;
	}
	err = scan_dropins(dir, true, &d, &nd, errors);
	if (!err && vendor && strcmp(vendor, dir))
		err = scan_dropins(vendor, false, &d, &nd, errors);
	if (nd)
		qsort(d, nd, sizeof(*d), dropin_cmp);
	v = err ? NULL : calloc(nd + 1, sizeof(*v));
	if (v)
		v[n++].path = strdup(path);
	for (i = 0; i < nd; i++) {
		if (v && !d[i].masked &&
		    asprintf(&v[n++].path, "%s/%s", d[i].dir, d[i].name) < 0)
			v[n - 1].path = NULL;
		free(d[i].name);
	}
	free(d);
	if (err)
		return -1;
	for (i = 0; v && i < n; i++)
		if (!v[i].path)
			break;
	if (!v || i < n) {
		strlist_add(errors, "%s: out of memory", path);
		while (v && n > 0)
			free(v[--n].path);
		free(v);
		return -1;
	}
	*files = v;
	return n;
}

static void free_files(struct conf_file *files, int n)
{
	size_t j;
	int i;

	for (i = 0; i < n; i++) {
		free(files[i].path);
		free(files[i].text);
		for (j = 0; j < files[i].ndicts; j++)
			iniparser_freedict(files[i].dicts[j]);
		free(files[i].dicts);
		free(files[i].ents);
		for (j = 0; j < files[i].nsecs; j++)
			free(files[i].secs[j].keys);
		free(files[i].secs);
		htab_free(&files[i].sec_ix);
		line_map_free(&files[i].lines);
	}
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

int config_load(const char *path, const char *root, struct config **out,
		struct strlist *errors)
{
	struct loader ld = { .path = path, .errors = errors };
	size_t before = errors->n;
	struct conf_file *files;
	struct config *c;
	int i, n;

	*out = NULL;
	n = list_files(path, &files, errors);
	if (n < 0)
		return errors->n - before;
	/* every file, so that every error of every file is reported */
	for (i = 0; i < n; i++)
		parse_file(&files[i], i > 0, errors);
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

void config_free(struct config *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nrules; i++) {
		free(c->rules[i].section);
		free(c->rules[i].profile);
		free(c->rules[i].file);
	}
	free(c->rules);
	for (i = 0; i < c->nsources; i++) {
		free(c->sources[i].path);
		free(c->sources[i].text);
	}
	free(c->sources);
	free(c->path);
	strlist_free(&c->warnings);
	free(c);
}

static const struct rule *match(const struct config *c, enum rule_kind kind,
				const char *name)
{
	size_t i;

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
