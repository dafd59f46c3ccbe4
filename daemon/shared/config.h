/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The configuration wqrtd holds: the [global] settings and the [wq:] and
 * [kworker:] rules with their profiles merged in, the files it was read
 * from, and which rule matches a workqueue or a kworker. Loading it from
 * /etc/wqrt.conf and its drop-ins is config_load.h's.
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
	/*
	 * A trial of wqrtctl try over this configuration, or NULL: its
	 * workqueue matches it before any rule (config_set_trial()).
	 */
	struct rule *trial;
};

/* The directories the drop-ins of c came from: "A" or "A and B" */
const char *config_dropin_dirs(const struct config *c, char *buf,
			       size_t size);

/* A configuration with no rules (what wqrtctl restore applies), or NULL */
struct config *config_empty(const char *path);
void config_free(struct config *c);

bool pattern_is_glob(const char *p);
/* Whether the rule's pattern names this workqueue or kworker */
bool config_rule_matches(const struct rule *r, const char *name);
const struct rule *config_match_wq(const struct config *c, const char *name);
/*
 * Lay the [wq:] rule t of a trial (wqrtctl try) over c: its workqueue
 * gets the settings of the rule of c that matches it, if any, with the
 * keys t gives in their place; policy and rtprio go together (t setting
 * either sets both: policy = normal alone means rtprio 0, rtprio = 0
 * alone means policy normal). Nothing else
 * of c changes. t NULL takes the trial out. 0 or -ENOMEM (c unchanged).
 */
int config_set_trial(struct config *c, const struct rule *t);
const struct rule *config_match_kworker(const struct config *c,
					const char *comm);

#endif
