/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One file of the configuration as iniparser reads it: its sections and
 * their keys in file order, and what iniparser does not keep, the line of
 * each (for error messages) from one scan of the text with names folded
 * to lower case as iniparser folds them. Nothing here knows what a
 * section or a key means (config_load.c does).
 */
#ifndef WQRT_CONFIG_INI_H
#define WQRT_CONFIG_INI_H

#include <stdbool.h>
#include <stddef.h>

#include "htab.h"
#include "util.h"

/* A key of a section and the value iniparser kept */
struct conf_key {
	const char *name; /* what follows "section:" */
	const char *val;
	int line; /* the last line that sets it, 0 if unknown */
};

/*
 * A section and its keys, in file order; keys before any section are in
 * the one named "" (iniparser's ":key").
 */
struct conf_sec {
	const char *name;
	int line; /* its first header line, 0 if none */
	struct conf_key *keys;
	size_t nkeys;
};

struct _dictionary_;

/*
 * iniparser finds a key by walking its whole dictionary, so a file is
 * read into one dictionary per chunk of lines (cut at section lines) and
 * its sections are indexed here: reading a file takes time linear in its
 * number of sections.
 */
struct conf_file {
	char *path;
	char *text; /* as read: what wqrtd holds, for wqrtctl status */
	size_t len;
	bool parsed; /* false: it could not be parsed */
	struct _dictionary_ **dicts;
	size_t ndicts;
	struct conf_sec *secs; /* in the order they first appear */
	size_t nsecs;
	struct htab sec_ix; /* secs by name */
};

/*
 * Parse f->text (f->len bytes) into f; every error goes to errors, each
 * "PATH:LINE: ...": a line too long, a syntax error (the line is then
 * left out and the rest parsed), a section that appears twice, and, but
 * for a drop-in (a package may ship one all commented out), a file with
 * no section.
 */
void conf_parse(struct conf_file *f, bool dropin, struct strlist *errors);
const struct conf_sec *conf_sec_find(const struct conf_file *f,
				     const char *name);
/* Key key of section sec (its value and line), or NULL */
const struct conf_key *conf_key(const struct conf_file *f, const char *sec,
			       const char *key);
/* The value of key in section sec, or NULL */
const char *conf_value(const struct conf_file *f, const char *sec,
		       const char *key);
/* The first header line of section sec; 0 if unknown */
int conf_line(const struct conf_file *f, const char *sec);
void conf_free(struct conf_file *f);

#endif
