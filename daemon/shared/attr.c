// SPDX-License-Identifier: GPL-2.0-only
#include "attr.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

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

/*
 * "ttyS0" or "ttyS0,ttyS1": the names of interrupt handlers, each as the
 * kernel names the directory /proc/irq/N/NAME/ ('/' shows as '!').
 */
static int parse_irq_names(const char *text, char *buf, size_t size,
			   const char **why)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789_.:!+-@[]";
	const char *p = text;

	*why = "irq: takes the names of interrupt handlers as /proc/interrupts shows them, comma-separated (irq:ttyS0 or irq:ttyS0,ttyS1)";
	if (strlen(text) >= size)
		return -EINVAL;
	for (;;) {
		size_t n = strspn(p, ok);

		if (!n || (p[n] && p[n] != ','))
			return -EINVAL;
		if (!p[n])
			break;
		p += n + 1;
	}
	snprintf(buf, size, "%s", text);
	return 0;
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
		s->irq[0] = '\0';
		if (!sysfs && !strncmp(text, "irq:", 4)) {
			if (parse_irq_names(text + 4, s->irq, sizeof(s->irq),
					    why))
				return -EINVAL;
			memset(&s->mask, 0, sizeof(s->mask));
			v = 0;
			break;
		}
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
	if (attrs[a].kind == K_CPUMASK && s->irq[0]) {
		char list[ATTR_TEXT_MAX];

		if (cpubits_empty(&s->mask)) {
			snprintf(buf, size, "irq:%s", s->irq);
		} else {
			cpulist_format(&s->mask, list, sizeof(list));
			snprintf(buf, size, "%s (irq:%s)", list, s->irq);
		}
	} else if (attrs[a].kind == K_CPUMASK)
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
	if (a == WA_CPUMASK) {
		dst->mask = src->mask;
		memcpy(dst->irq, src->irq, sizeof(dst->irq));
	}
	dst->set |= WA_BIT(a);
}

/* Is there a handler called one of names (comma-separated) in dir */
static bool irq_has_handler(const char *dir, const char *names)
{
	char path[WQRT_PATH_MAX];
	const char *p = names;
	struct stat st;

	while (*p) {
		size_t n = strcspn(p, ",");

		if (snprintf(path, sizeof(path), "%s/%.*s", dir, (int)n, p) <
			    (int)sizeof(path) &&
		    !stat(path, &st) && S_ISDIR(st.st_mode))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

bool irq_affinity(const char *root, const char *irq, struct cpubits *cpus)
{
	static const char *const files[] = { "effective_affinity_list",
					     "smp_affinity_list" };
	char path[WQRT_PATH_MAX], buf[1024];
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++)
		if (!path_fmt(path, sizeof(path), root, "/proc/irq/%s/%s", irq,
			      files[i]) &&
		    !read_text(path, buf, sizeof(buf)) && buf[0] &&
		    !cpulist_parse(buf, cpus, &why))
			return true;
	return false;
}

void cpubits_online_only(const char *root, struct cpubits *cpus)
{
	char path[WQRT_PATH_MAX], buf[1024];
	struct cpubits online;
	const char *why;

	if (!path_fmt(path, sizeof(path), root,
		      "/sys/devices/system/cpu/online") &&
	    !read_text(path, buf, sizeof(buf)) &&
	    !cpulist_parse(buf, &online, &why))
		cpubits_and(cpus, &online);
}

int attr_resolve_irq(const char *root, struct settings *s, char *why,
		     size_t size)
{
	char path[WQRT_PATH_MAX], dir[WQRT_PATH_MAX];
	struct cpubits cpus, one;
	struct dirent *de;
	unsigned int found = 0;
	DIR *d;

	memset(&cpus, 0, sizeof(cpus));
	if (path_fmt(path, sizeof(path), root, "/proc/irq") ||
	    !(d = opendir(path))) {
		snprintf(why, size, "cannot read %s/proc/irq", root);
		return -ENOENT;
	}
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    path_fmt(dir, sizeof(dir), root, "/proc/irq/%s",
			     de->d_name) ||
		    !irq_has_handler(dir, s->irq) ||
		    !irq_affinity(root, de->d_name, &one))
			continue;
		found++;
		cpubits_or(&cpus, &one);
	}
	closedir(d);
	if (!found) {
		snprintf(why, size,
			 "no interrupt has a handler called %s (/proc/interrupts)",
			 s->irq);
		return -ENOENT;
	}
	cpubits_online_only(root, &cpus);
	if (cpubits_empty(&cpus)) {
		snprintf(why, size, "the CPUs of interrupt(s) %s are offline",
			 s->irq);
		return -ERANGE;
	}
	s->mask = cpus;
	return 0;
}
