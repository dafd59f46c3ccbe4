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

/*
 * The names of interrupt handlers a cpumask follows (cpumask =
 * irq:NAME[,NAME...]), as /proc/interrupts and /proc/irq/N/NAME/ show
 * them: at most this long, comma-separated.
 */
#define IRQ_NAMES_MAX 64

struct settings {
	unsigned int set; /* WA_BIT()s that carry a value */
	long val[WA_NR];
	struct cpubits mask; /* value of WA_CPUMASK */
	/*
	 * Not empty: WA_CPUMASK follows the CPUs of these interrupts, and
	 * mask holds them once attr_resolve_irq() found them (a rule's
	 * settings only; sysfs values never follow anything)
	 */
	char irq[IRQ_NAMES_MAX];
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
/*
 * The CPUs of the interrupts an irq-following cpumask of s names, into
 * s->mask: the union of /proc/irq/N/effective_affinity_list (else
 * smp_affinity_list) of every IRQ N with a handler of one of those names,
 * without the CPUs offline. 0; -ENOENT when no such handler is
 * registered, -ERANGE when none of its CPUs is online, with why said.
 */
int attr_resolve_irq(const char *root, struct settings *s, char *why,
		     size_t size);
/*
 * The CPUs interrupt irq (a /proc/irq/ entry) is delivered to:
 * effective_affinity_list, else smp_affinity_list. false: neither read.
 */
bool irq_affinity(const char *root, const char *irq, struct cpubits *cpus);
/* cpus without the CPUs offline (as it is when that cannot be read) */
void cpubits_online_only(const char *root, struct cpubits *cpus);
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
