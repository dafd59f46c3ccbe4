// SPDX-License-Identifier: GPL-2.0-only
#include "config_ini.h"

#include <ctype.h>
#include <iniparser/iniparser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* iniparser's line buffer: longer lines are an error it reports badly */
#define LINE_MAX_BYTES 1022

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

const struct conf_sec *conf_sec_find(const struct conf_file *f,
				     const char *name)
{
	return sec_find(f, name);
}

static struct conf_key *key_find(const struct conf_sec *s, const char *name)
{
	size_t i;

	for (i = 0; s && i < s->nkeys; i++)
		if (!strcmp(s->keys[i].name, name))
			return &s->keys[i];
	return NULL;
}

/*
 * Key name of s: keys are scanned in the order iniparser keeps them, so
 * first at *next, the one after the last found
 */
static struct conf_key *key_next(const struct conf_sec *s, const char *name,
				 size_t *next)
{
	struct conf_key *k = *next < s->nkeys &&
					     !strcmp(s->keys[*next].name, name) ?
				     &s->keys[*next] :
				     key_find(s, name);

	if (k)
		*next = k - s->keys + 1;
	return k;
}

const struct conf_key *conf_key(const struct conf_file *f, const char *sec,
			       const char *key)
{
	return key_find(sec_find(f, sec), key);
}

const char *conf_value(const struct conf_file *f, const char *sec,
		       const char *key)
{
	const struct conf_key *k = conf_key(f, sec, key);

	return k ? k->val : NULL;
}

int conf_line(const struct conf_file *f, const char *sec)
{
	const struct conf_sec *s = sec_find(f, sec);

	return s ? s->line : 0;
}

static bool sec_add(struct conf_file *f, const char *name)
{
	struct conf_sec *v;

	if (sec_find(f, name))
		return true;
	v = array_grow(f->secs, f->nsecs, sizeof(*v));
	if (!v)
		return false;
	f->secs = v;
	v += f->nsecs;
	memset(v, 0, sizeof(*v));
	v->name = name;
	htab_add(&f->sec_ix, htab_hash_str(name), f->nsecs++);
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
	struct conf_key *k;
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
			k = array_grow(s->keys, s->nkeys, sizeof(*k));
			if (!k)
				return false;
			s->keys = k;
			k += s->nkeys++;
			k->name = d->key[j] + strlen(s->name) + 1;
			k->val = d->val[j];
			k->line = 0;
		}
	}
	return true;
}

/* Only blanks between p and end */
static bool blank(const char *p, const char *end)
{
	while (p < end && isspace((unsigned char)*p))
		p++;
	return p == end;
}

/* The length of p..end without the blanks that end it */
static int trimmed_len(const char *p, const char *end)
{
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	return (int)(end - p);
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

/*
 * The lines of f's sections and keys, from one scan of work (its text, the
 * bad lines blanked), names folded as iniparser folds them: a section's
 * first header line, a key's last line (the value iniparser kept). Also
 * the errors iniparser cannot report: a section that appears twice
 * (iniparser merges [wq:x] and [wq:X] silently), a key given twice in a
 * section (it keeps the last), a section line with more after the `]`
 * that ends its name ("[wq:a]b]" is [wq:a] to iniparser) and, to
 * empty_errors unless NULL, a file with no section at all.
 */
static void scan_lines(struct conf_file *f, const char *work,
		       struct strlist *empty_errors, struct strlist *errors)
{
	const char *p = work, *end = work + f->len, *eol, *close;
	struct conf_sec *s = sec_find(f, "");
	struct conf_key *k;
	int nr = 0, sections = 0;
	bool again = false;
	size_t next = 0;
	char *name;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		nr++;
		while (p < eol && isspace((unsigned char)*p))
			p++;
		/* a section's name ends at its first ']', as iniparser's */
		if (p < eol && *p == '[' &&
		    (close = memchr(p, ']', eol - p))) {
			name = trim_lower(p + 1, close - p - 1);
			if (!name)
				break;
			sections++;
			/* iniparser takes "[wq:a]b]" as [wq:a]: say so */
			if (!blank(close + 1, eol))
				strlist_add(
					errors,
					"%s:%d: %.*s: a section name ends at its first `]`: nothing may follow it",
					f->path, nr, trimmed_len(p, eol), p);
			s = sec_find(f, name);
			next = 0;
			/* its keys merged with the first's: said once, above */
			again = s && s->line;
			if (again)
				strlist_add(
					errors,
					"%s:%d: [%s]: the section appears again (first on line %d; names are folded to lower case)",
					f->path, nr, name, s->line);
			else if (s)
				s->line = nr;
			free(name);
		} else if (s && p < eol && *p != ';' && *p != '#' &&
			   (close = memchr(p, '=', eol - p))) {
			name = trim_lower(p, close - p);
			k = name ? key_next(s, name, &next) : NULL;
			if (k && k->line && !again)
				strlist_add(
					errors,
					"%s:%d: [%s] %s = %s: the key is given again (first on line %d; names are folded to lower case)",
					f->path, nr, s->name, name, k->val,
					k->line);
			if (k)
				k->line = nr;
			free(name);
		}
	}
	if (!sections && empty_errors)
		strlist_add(empty_errors,
			    "%s:1: the file has no section: nothing to apply",
			    f->path);
}

void conf_parse(struct conf_file *f, bool dropin, struct strlist *errors)
{
	size_t before = errors->n;
	char *work, *p;
	int nr;

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
		scan_lines(f, work, dropin ? NULL : errors, errors);
	free(work);
}

void conf_free(struct conf_file *f)
{
	size_t j;

	free(f->path);
	free(f->text);
	for (j = 0; j < f->ndicts; j++)
		iniparser_freedict(f->dicts[j]);
	free(f->dicts);
	for (j = 0; j < f->nsecs; j++)
		free(f->secs[j].keys);
	free(f->secs);
	htab_free(&f->sec_ix);
}
