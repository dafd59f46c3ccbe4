/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The workqueue attributes wqrtd manages, in the order they are applied,
 * and the codecs between config text, sysfs text and values.
 */
#ifndef WQRT_ATTR_H
#define WQRT_ATTR_H

#include "util.h"

enum wq_attr {
	WA_PRIVATE,
	WA_NR_IDLE_EXTRA,
	WA_CPUMASK,
	WA_AFFINITY_SCOPE,
	WA_AFFINITY_STRICT,
	WA_MAX_ACTIVE,
	WA_NICE,
	WA_POLICY,
	WA_RTPRIO,
	WA_NR
};

#define WA_BIT(a) (1u << (a))
/* What a kworker can be given with sched_setattr(). */
#define WA_SCHED_MASK (WA_BIT(WA_NICE) | WA_BIT(WA_POLICY) | WA_BIT(WA_RTPRIO))

enum wq_policy {
	POLICY_NORMAL,
	POLICY_FIFO,
	POLICY_RR,
};

/*
 * Room for any attribute as sysfs writes it: a cpumask of WQRT_MAX_CPUS
 * in hex, a comma every 32 bits. (A person's cpulist can be longer; it is
 * only shown, cut where it must be.)
 */
#define ATTR_TEXT_MAX (WQRT_MAX_CPUS / 4 + WQRT_MAX_CPUS / 32 + 64)

struct settings {
	unsigned int set; /* WA_BIT()s that carry a value */
	long val[WA_NR];
	struct cpubits mask; /* value of WA_CPUMASK */
};

const char *attr_name(enum wq_attr a);
/* The attribute called name, or -1 */
int attr_lookup(const char *name);
/* Config text -> value. Returns 0, or -EINVAL with *why set. */
int attr_parse_conf(enum wq_attr a, const char *text, struct settings *s,
		    const char **why);
/* sysfs text -> value. */
int attr_parse_sysfs(enum wq_attr a, const char *text, struct settings *s);
/*
 * sysfs text -> value, only if the kernel would take it back (an
 * original to put back): 0, or -EINVAL/-ERANGE with *why set.
 */
int attr_parse_kernel(enum wq_attr a, const char *text, struct settings *s,
		      const char **why);
/* value -> what to write to sysfs. */
void attr_format_sysfs(enum wq_attr a, const struct settings *s, char *buf,
		       size_t size);
/* value -> what a person reads (cpulist instead of hex mask). */
void attr_format_human(enum wq_attr a, const struct settings *s, char *buf,
		       size_t size);
bool attr_equal(enum wq_attr a, const struct settings *x,
		const struct settings *y);
void settings_copy_attr(struct settings *dst, const struct settings *src,
			enum wq_attr a);

const char *policy_name(int policy);
/* SCHED_* -> "normal", "fifo", "rr", or "other" for the classes wqrtd
 * does not set (batch, idle, deadline) */
const char *sched_policy_name(int sched_policy);
/* enum wq_policy <-> SCHED_* */
int policy_to_sched(int policy);
int policy_from_sched(int sched_policy);

#endif
