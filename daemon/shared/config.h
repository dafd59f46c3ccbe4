/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * /etc/wqrt.conf: load with iniparser, validate everything, merge profiles
 * into the [wq:] and [kworker:] rules.
 */
#ifndef WQRT_CONFIG_H
#define WQRT_CONFIG_H

#include "attr.h"
#include "util.h"

/* rtprio at or above this on a glob needs allow_high_priority = yes */
#define HIGH_PRIO_THRESHOLD 90

enum rule_kind { RULE_WQ, RULE_KWORKER };

struct rule {
	enum rule_kind kind;
	char *section; /* "wq:tty_flip", as folded by iniparser */
	const char *pattern; /* points after the ':' in section */
	bool glob;
	char *profile; /* or NULL */
	char *file; /* the file that holds the section */
	int line;
	struct settings s; /* the profile, then this section's keys */
};

/* A file of the configuration, as it was read */
struct config_source {
	char *path;
	char *text;
	size_t len;
};

struct config {
	char *path; /* the main file; its drop-ins are PATH.d/ *.conf */
	struct config_source *sources; /* path, then the drop-ins read */
	size_t nsources;
	int log_level;
	bool restore_on_exit;
	unsigned int rescan_interval;
	bool allow_high_priority;
	struct rule *rules; /* in file order */
	size_t nrules;
	size_t nprofiles;
	struct strlist warnings;
};

/*
 * The vendor directory, read with every configuration: dir (NULL: none)
 * from now on; by default WQRT_VENDOR_DIR from the environment, else the
 * built-in one (PREFIX/lib/wqrt/conf.d)
 */
void config_use_vendor_dir(const char *dir);
const char *config_vendor_dir(void);
/* The directories the drop-ins of c came from: "A" or "A and B" */
const char *config_dropin_dirs(const struct config *c, char *buf,
			       size_t size);

/*
 * Load and validate path, then the drop-ins PATH.d/ *.conf and those of
 * the vendor directory in the byte order of their names (a name in both:
 * PATH.d's, and a link to /dev/null there hides the vendor's), as one
 * configuration: [global] keys of a later
 * file win, a profile of any file can be used in any other, a section
 * may be defined in one file only. sysfs/proc paths under root are
 * consulted for warnings only. Returns 0 and *out, or the number of
 * errors (> 0) of all files, each appended to errors as
 * "FILE:LINE: [section] key = value: reason".
 */
int config_load(const char *path, const char *root, struct config **out,
		struct strlist *errors);
/*
 * config_load() for wqrtd and wqrtctl: every error and warning is logged,
 * and on errors a last line "PATH has N error(s)" and then, if set, what
 * that means ("nothing changed"). Returns the number of errors.
 */
int config_load_report(const char *path, const char *root,
		       struct config **out, const char *then);
/* A configuration with no rules (what wqrtctl restore applies), or NULL */
struct config *config_empty(const char *path);
void config_free(struct config *c);

bool pattern_is_glob(const char *p);
/* Whether the rule's pattern names this workqueue or kworker */
bool config_rule_matches(const struct rule *r, const char *name);
const struct rule *config_match_wq(const struct config *c, const char *name);
const struct rule *config_match_kworker(const struct config *c,
					const char *comm);

#endif
