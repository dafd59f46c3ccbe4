// SPDX-License-Identifier: GPL-2.0-only
#include "attr.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum attr_kind { K_INT, K_BOOL, K_POLICY, K_SCOPE, K_CPUMASK };

/*
 * min..max: what a configuration may ask; kmin..kmax: what the kernel
 * takes (the series' WQ_MAX_IDLE_EXTRA, WQ_MAX_ACTIVE of the newest
 * kernels, MAX_RT_PRIO - 1, MIN_NICE..MAX_NICE), which an original must
 * be in to be put back.
 */
static const struct {
	const char *name;
	enum attr_kind kind;
	long min, max;
	const char *range;
	long kmin, kmax;
	const char *krange;
} attrs[WA_NR] = {
	[WA_PRIVATE] = { "private", K_BOOL, 0, 1, NULL, 0, 1, NULL },
	[WA_NR_IDLE_EXTRA] = { "nr_idle_extra", K_INT, 0, 64, "expected 0..64",
			       0, 64, "the kernel takes 0..64" },
	[WA_CPUMASK] = { "cpumask", K_CPUMASK, 0, 0, NULL, 0, 0, NULL },
	[WA_AFFINITY_SCOPE] = { "affinity_scope", K_SCOPE, 0, 0, NULL, 0, 0,
				NULL },
	[WA_AFFINITY_STRICT] = { "affinity_strict", K_BOOL, 0, 1, NULL, 0, 1,
				 NULL },
	[WA_MAX_ACTIVE] = { "max_active", K_INT, 1, 512, "expected 1..512", 1,
			    2048, "the kernel takes 1..2048" },
	[WA_NICE] = { "nice", K_INT, -20, 19, "expected -20..19", -20, 19,
		      "the kernel takes -20..19" },
	[WA_POLICY] = { "policy", K_POLICY, 0, 0, NULL, 0, 0, NULL },
	[WA_RTPRIO] = { "rtprio", K_INT, 0, 99, "expected 0..99", 0, 99,
			"the kernel takes 0..99" },
};

static const char *const policies[] = { "normal", "fifo", "rr" };
static const char *const scopes[] = { "default", "cpu",	 "smt",
				      "cache",	 "numa", "system" };

const char *attr_name(enum wq_attr a)
{
	return attrs[a].name;
}

int attr_lookup(const char *name)
{
	int a;

	for (a = 0; a < WA_NR; a++)
		if (!strcmp(name, attrs[a].name))
			return a;
	return -1;
}

const char *policy_name(int policy)
{
	if (policy < 0 || policy >= (int)ARRAY_SIZE(policies))
		return "?";
	return policies[policy];
}

int policy_to_sched(int policy)
{
	return policy == POLICY_FIFO ? SCHED_FIFO :
	       policy == POLICY_RR   ? SCHED_RR :
				       SCHED_OTHER;
}

int policy_from_sched(int sched_policy)
{
	return sched_policy == SCHED_FIFO ? POLICY_FIFO :
	       sched_policy == SCHED_RR	  ? POLICY_RR :
					    POLICY_NORMAL;
}

const char *sched_policy_name(int sched_policy)
{
	if (sched_policy != SCHED_OTHER && sched_policy != SCHED_FIFO &&
	    sched_policy != SCHED_RR)
		return "other";
	return policy_name(policy_from_sched(sched_policy));
}

static int lookup(const char *const *names, size_t n, const char *text,
		  size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strlen(names[i]) == len &&
		    !strncasecmp(names[i], text, len))
			return (int)i;
	return -1;
}

static int parse_value(enum wq_attr a, const char *text, struct settings *s,
		       bool sysfs, const char **why)
{
	long v;
	bool b;
	int i;

	switch (attrs[a].kind) {
	case K_INT:
		/*
		 * The config's ranges are wqrtd's choice; what sysfs shows
		 * is the kernel's (6.12's max_active is at most 512, newer
		 * kernels default to 1024): any number is read as it is.
		 */
		i = sysfs ? parse_long(text, LONG_MIN, LONG_MAX, &v) :
			    parse_long(text, attrs[a].min, attrs[a].max, &v);
		if (i) {
			*why = i == -ERANGE ? attrs[a].range : "not a number";
			return -EINVAL;
		}
		break;
	case K_BOOL:
		if (parse_bool(text, &b)) {
			*why = "expected yes or no";
			return -EINVAL;
		}
		v = b;
		break;
	case K_POLICY:
		i = lookup(policies, ARRAY_SIZE(policies), text, strlen(text));
		if (i < 0) {
			*why = "expected normal, fifo or rr";
			return -EINVAL;
		}
		v = i;
		break;
	case K_SCOPE:
		/* sysfs shows "default (cache)" for the default scope */
		i = lookup(scopes, ARRAY_SIZE(scopes), text,
			   sysfs ? strcspn(text, " ") : strlen(text));
		if (i < 0) {
			*why = "expected default, cpu, smt, cache, numa or system";
			return -EINVAL;
		}
		v = i;
		break;
	case K_CPUMASK:
		if (sysfs ? cpumask_hex_parse(text, &s->mask) :
			    cpulist_parse(text, &s->mask, why)) {
			if (sysfs)
				*why = "not a hex cpumask";
			return -EINVAL;
		}
		v = 0;
		break;
	default:
		return -EINVAL;
	}
	s->val[a] = v;
	s->set |= WA_BIT(a);
	return 0;
}

int attr_parse_conf(enum wq_attr a, const char *text, struct settings *s,
		    const char **why)
{
	return parse_value(a, text, s, false, why);
}

int attr_parse_sysfs(enum wq_attr a, const char *text, struct settings *s)
{
	const char *why;

	return parse_value(a, text, s, true, &why);
}

int attr_parse_kernel(enum wq_attr a, const char *text, struct settings *s,
		      const char **why)
{
	struct settings v = { 0 };

	if (parse_value(a, text, &v, true, why))
		return -EINVAL;
	if ((attrs[a].kind == K_INT || attrs[a].kind == K_BOOL) &&
	    (v.val[a] < attrs[a].kmin || v.val[a] > attrs[a].kmax)) {
		*why = attrs[a].krange ? attrs[a].krange : "expected 0 or 1";
		return -ERANGE;
	}
	if (attrs[a].kind == K_CPUMASK && cpubits_empty(&v.mask)) {
		*why = "an empty cpumask, which the kernel refuses";
		return -ERANGE;
	}
	settings_copy_attr(s, &v, a);
	return 0;
}

void attr_format_sysfs(enum wq_attr a, const struct settings *s, char *buf,
		       size_t size)
{
	switch (attrs[a].kind) {
	case K_POLICY:
		snprintf(buf, size, "%s", policy_name(s->val[a]));
		break;
	case K_SCOPE:
		snprintf(buf, size, "%s", scopes[s->val[a]]);
		break;
	case K_CPUMASK:
		cpumask_hex_format(&s->mask, buf, size);
		break;
	default:
		snprintf(buf, size, "%ld", s->val[a]);
		break;
	}
}

void attr_format_human(enum wq_attr a, const struct settings *s, char *buf,
		       size_t size)
{
	if (attrs[a].kind == K_CPUMASK)
		cpulist_format(&s->mask, buf, size);
	else
		attr_format_sysfs(a, s, buf, size);
}

bool attr_equal(enum wq_attr a, const struct settings *x,
		const struct settings *y)
{
	if (attrs[a].kind == K_CPUMASK)
		return cpubits_equal(&x->mask, &y->mask);
	return x->val[a] == y->val[a];
}

void settings_copy_attr(struct settings *dst, const struct settings *src,
			enum wq_attr a)
{
	dst->val[a] = src->val[a];
	if (a == WA_CPUMASK)
		dst->mask = src->mask;
	dst->set |= WA_BIT(a);
}
