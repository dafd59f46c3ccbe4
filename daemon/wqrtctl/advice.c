// SPDX-License-Identifier: GPL-2.0-only
#include "advice.h"
#include "common.h"
#include "discover.h"
#include "inventory.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* The default priority of threaded IRQ handlers (kernel/irq/manage.c) */
#define IRQ_THREAD_PRIO 50

/* Is a task called comm running under root */
static bool task_running(const char *root, const char *comm)
{
	char path[WQRT_PATH_MAX], buf[64];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (path_fmt(path, sizeof(path), root, "/proc"))
		return false;
	d = opendir(path);
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (!path_fmt(path, sizeof(path), root, "/proc/%s/comm",
			      de->d_name) &&
		    !read_text(path, buf, sizeof(buf)) && !strcmp(buf, comm))
			found = true;
	}
	closedir(d);
	return found;
}

static bool read_long(const char *root, const char *rel, long *v)
{
	char path[WQRT_PATH_MAX], buf[64];

	return !path_fmt(path, sizeof(path), root, "%s", rel) &&
	       !read_text(path, buf, sizeof(buf)) &&
	       !parse_long(buf, -1, 1L << 40, v);
}

/*
 * The CPUs isolated from the scheduler's balancing or the tick: the
 * kernel's own lists (sysfs), else the command line's isolcpus= and
 * nohz_full= ([flags,]cpulist).
 */
static void isolated_cpus(const char *root, struct cpubits *iso, char *from,
			  size_t size)
{
	static const char *const files[] = { "isolated", "nohz_full" };
	char path[WQRT_PATH_MAX], buf[1024], *p, *save = NULL;
	struct cpubits b;
	const char *why;
	size_t i, len = 0;

	memset(iso, 0, sizeof(*iso));
	from[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		if (path_fmt(path, sizeof(path), root,
			     "/sys/devices/system/cpu/%s", files[i]) ||
		    read_text(path, buf, sizeof(buf)) || !buf[0] ||
		    cpulist_parse(buf, &b, &why))
			continue;
		for (unsigned int c = 0; c < WQRT_MAX_CPUS; c++)
			if (cpubits_test(&b, c))
				cpubits_set(iso, c);
		len += snprintf(from + len, len < size ? size - len : 0,
				"%s%s %s", len ? ", " : "", files[i], buf);
	}
	if (len || path_fmt(path, sizeof(path), root, "/proc/cmdline") ||
	    read_text(path, buf, sizeof(buf)))
		return;
	for (p = strtok_r(buf, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		char *list;

		if (!strncmp(p, "isolcpus=", 9))
			list = p + 9;
		else if (!strncmp(p, "nohz_full=", 10))
			list = p + 10;
		else
			continue;
		/* isolcpus=domain,managed_irq,2-3: the flags first */
		while (isalpha((unsigned char)*list) && strchr(list, ','))
			list = strchr(list, ',') + 1;
		if (cpulist_parse(list, &b, &why))
			continue;
		for (unsigned int c = 0; c < WQRT_MAX_CPUS; c++)
			if (cpubits_test(&b, c))
				cpubits_set(iso, c);
		len += snprintf(from + len, len < size ? size - len : 0,
				"%s%s", len ? ", " : "", p);
	}
}

void advice_system(const char *root, struct strlist *out)
{
	long runtime, period = 1000000;
	bool stalld = task_running(root, "stalld");

	if (!read_long(root, "/proc/sys/kernel/sched_rt_runtime_us",
		       &runtime))
		return;
	read_long(root, "/proc/sys/kernel/sched_rt_period_us", &period);
	if (runtime < 0 && !stalld)
		strlist_add(
			out,
			"warning: RT throttling is off (sched_rt_runtime_us = -1) and stalld does not run: an RT work item that loops starves every other task of its CPUs; run stalld, or keep throttling on");
	else if (runtime >= 0 && runtime < period)
		strlist_add(
			out,
			"note: RT throttling is on (sched_rt_runtime_us %ld of %ld): once RT tasks used that much of a CPU in a period, an RT profile's kworkers wait up to %ld ms for the next one%s",
			runtime, period, (period - runtime) / 1000,
			stalld ? "" :
				 "; stalld (not running) boosts starved tasks instead, which lets throttling go off");
}

struct irq_thread {
	pid_t pid;
	char comm[COMM_MAX];
	char action[64];
	int rtprio;
	int policy;
};

struct irq_scan {
	struct irq_thread *v;
	size_t n;
};

/*
 * The threaded IRQ handlers: the kernel threads "irq/N-ACTION" (ACTION
 * cut to fit the 15 characters of a task's name), with their scheduling.
 */
static void irq_threads(const char *root, struct irq_scan *s)
{
	char path[WQRT_PATH_MAX];
	struct dirent *de;
	DIR *d;

	memset(s, 0, sizeof(*s));
	if (path_fmt(path, sizeof(path), root, "/proc"))
		return;
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct task_info t;
		struct irq_thread *v;
		char *dash;

		if (!isdigit((unsigned char)de->d_name[0]) ||
		    task_read(root, atoi(de->d_name), &t) ||
		    strncmp(t.comm, "irq/", 4) || !(dash = strchr(t.comm, '-')))
			continue;
		v = realloc(s->v, (s->n + 1) * sizeof(*v));
		if (!v)
			break;
		s->v = v;
		v += s->n++;
		v->pid = t.pid;
		snprintf(v->comm, sizeof(v->comm), "%s", t.comm);
		snprintf(v->action, sizeof(v->action), "%s", dash + 1);
		v->rtprio = t.rtprio;
		v->policy = t.policy;
	}
	closedir(d);
}

/*
 * The device part of a workqueue's name: what a tty flip workqueue
 * ("ttyS-serial_8250", "ttyAMA-ttyAMA") or a driver's own ("vkms_composer")
 * starts with, before the first '-' or '_' (or a glob's first special
 * character).
 */
static void device_prefix(const char *pattern, char *buf, size_t size)
{
	size_t n = strcspn(pattern, "-_*?[");

	snprintf(buf, size, "%.*s", (int)n, pattern);
}

static const char *sched_name(int policy)
{
	return policy == SCHED_FIFO ? "FIFO" :
	       policy == SCHED_RR   ? "RR" :
				      "normal";
}

/*
 * The CPUs that handle an interrupt, from its thread's name "irq/N-...":
 * /proc/irq/N/effective_affinity_list (the CPU the interrupt controller
 * delivers it to), else the affinity asked for. The thread follows them.
 */
static bool irq_cpus(const char *root, const char *comm, struct cpubits *cpus)
{
	char irq[16];
	int n;

	if (sscanf(comm, "irq/%d-", &n) != 1)
		return false;
	snprintf(irq, sizeof(irq), "%d", n);
	return irq_affinity(root, irq, cpus);
}

/*
 * The CPUs the kworkers of rule r's workqueue may run on: the rule's
 * cpumask, else the one in sysfs of the first workqueue it names, the
 * CPUs offline left out. Its name in wq.
 */
static bool rule_wq_cpus(const char *root, const struct rule *r,
			 struct cpubits *cpus, char *wq, size_t size)
{
	char path[WQRT_PATH_MAX], buf[1024];
	struct dirent *de;
	bool found = false;
	DIR *d;

	if (r->s.set & WA_BIT(WA_CPUMASK)) {
		*cpus = r->s.mask;
		snprintf(wq, size, "its cpumask");
		found = true;
	} else if (!path_fmt(path, sizeof(path), root, "%s", WQ_SYSFS_DIR) &&
		   (d = opendir(path))) {
		while (!found && (de = readdir(d))) {
			if (de->d_name[0] == '.' ||
			    !config_rule_matches(r, de->d_name) ||
			    path_fmt(path, sizeof(path), root, "%s/%s/cpumask",
				     WQ_SYSFS_DIR, de->d_name) ||
			    read_text(path, buf, sizeof(buf)) ||
			    cpumask_hex_parse(buf, cpus))
				continue;
			snprintf(wq, size, "%s's cpumask", de->d_name);
			found = true;
		}
		closedir(d);
	}
	if (found)
		cpubits_online_only(root, cpus);
	return found;
}

/*
 * Seed 004's recipe for the IMU over a UART: the flip workqueue RT and
 * bound to the CPUs of the port's threaded IRQ handler. Its kworkers on
 * other CPUs take the work with a wakeup from another CPU, and the
 * scheduler may run them where the load is; said when a [wq:] rule's
 * CPUs reach beyond those of its device's handlers.
 */
static void advice_irq_cpus(const char *root, const struct rule *r,
			    const struct cpubits *irq, const char *handlers,
			    const char *actions, struct strlist *out)
{
	char wq[NAME_MAX + 32], wq_list[256], irq_list[256];
	struct cpubits cpus, outside;

	if (r->kind != RULE_WQ || cpubits_empty(irq) ||
	    !rule_wq_cpus(root, r, &cpus, wq, sizeof(wq)))
		return;
	outside = cpus;
	cpubits_andnot(&outside, irq);
	if (cpubits_empty(&outside))
		return;
	cpulist_format(&cpus, wq_list, sizeof(wq_list));
	cpulist_format(irq, irq_list, sizeof(irq_list));
	strlist_add(
		out,
		"note: [%s] may run its work on CPU(s) %s (%s), its device's interrupts are handled on CPU(s) %s (%s): off those, a work item waits for a wakeup from another CPU; cpumask = %s binds it to them as seed 004's UART recipe did, cpumask = irq:%s follows them when they move",
		r->section, wq_list, wq, irq_list, handlers, irq_list, actions);
}

static void advice_irq(const char *root, const struct rule *r,
		       const struct irq_scan *irqs, struct strlist *out)
{
	long prio = r->s.val[WA_RTPRIO];
	char dev[WQ_NAME_MAX], handlers[256], actions[IRQ_NAMES_MAX];
	struct cpubits irq, one;
	size_t i, above = 0, len = 0, alen = 0;
	bool matched = false;

	memset(&irq, 0, sizeof(irq));
	handlers[0] = actions[0] = '\0';

	device_prefix(r->pattern, dev, sizeof(dev));
	for (i = 0; i < irqs->n; i++) {
		const struct irq_thread *t = &irqs->v[i];

		if (t->policy != SCHED_FIFO && t->policy != SCHED_RR)
			continue;
		if (prio >= t->rtprio)
			above++;
		/* iniparser folds section names to lower case */
		if (!dev[0] || strncasecmp(t->action, dev, strlen(dev)))
			continue;
		matched = true;
		if (irq_cpus(root, t->comm, &one)) {
			cpubits_or(&irq, &one);
			len += snprintf(handlers + len,
					len < sizeof(handlers) ?
						sizeof(handlers) - len :
						0,
					"%s%s", len ? ", " : "", t->comm);
			alen += snprintf(actions + alen,
					 alen < sizeof(actions) ?
						 sizeof(actions) - alen :
						 0,
					 "%s%s", alen ? "," : "", t->action);
		}
		if (prio >= t->rtprio)
			strlist_add(
				out,
				"warning: [%s] rtprio %ld is at or above %s (pid %d, %s %d), the threaded handler of its device: the work that handler queues could preempt it or tie with it; below %d the handler finishes first",
				r->section, prio, t->comm, (int)t->pid,
				sched_name(t->policy), t->rtprio, t->rtprio);
		else
			strlist_add(
				out,
				"note: [%s] rtprio %ld runs after %s (pid %d, %s %d), the threaded handler of its device",
				r->section, prio, t->comm, (int)t->pid,
				sched_name(t->policy), t->rtprio);
	}
	if (!matched && above)
		strlist_add(
			out,
			"note: [%s] rtprio %ld is at or above %zu threaded IRQ handler(s) (FIFO %d by default): on the CPUs it shares with them it delays their interrupts",
			r->section, prio, above, IRQ_THREAD_PRIO);
	advice_irq_cpus(root, r, &irq, handlers, actions, out);
}

/*
 * What an RT [kworker:] rule reaches (issue 47): a kworker runs the work
 * of every workqueue its pool serves, so a rule on the unbound pools'
 * kworkers (kworker/uPOOL:N) gives its policy to every unbound work item
 * of the system, writeback's and the filesystems' among them, and one on
 * a CPU's kworkers (kworker/CPU:N) to every per-CPU work item of that CPU.
 * A [wq:] section on a kernel with the series reaches its workqueue alone.
 */
static void advice_kworker(const char *root, const struct rule *r,
			   struct strlist *out)
{
	struct inventory inv = { 0 };
	char names[256];
	size_t i, n = 0, len = 0;

	if (!fnmatch(r->pattern, "kworker/u0:0", 0) ||
	    !fnmatch(r->pattern, "kworker/u9:1", 0)) {
		/* sorted by name; the reachable ones are the unbound ones */
		inventory_scan(root, false, &inv);
		for (i = 0; i < inv.n; i++) {
			if (!inv_reachable(&inv.v[i]))
				continue;
			if (n++ < 6)
				len += snprintf(names + len,
						len < sizeof(names) ?
							sizeof(names) - len :
							0,
						"%s%s", n > 1 ? ", " : "",
						inv.v[i].name);
		}
		inventory_free(&inv);
		strlist_add(
			out,
			"warning: [%s] makes the unbound pools' kworkers real-time, and with them every unbound work item of the system: %zu unbound workqueue(s) in sysfs (%s%s) and every other unbound one of the kernel; a [wq:] section (a kernel with the wqrt series) reaches one workqueue alone",
			r->section, n, n ? names : "none", n > 6 ? ", ..." : "");
	} else if (!fnmatch(r->pattern, "kworker/0:0", 0) ||
		   !fnmatch(r->pattern, "kworker/1:1", 0)) {
		strlist_add(
			out,
			"warning: [%s] makes per-CPU kworkers real-time, and with them every per-CPU work item of their CPUs (system_wq's, the timers', the drivers'): a loop in any of them starves that CPU",
			r->section);
	}
}

void advice_config(const char *root, const struct config *cfg,
		   struct strlist *out)
{
	struct irq_scan irqs;
	struct cpubits iso, overlap;
	char from[512], list[256];
	bool series;
	size_t i;

	if (!cfg)
		return;
	series = sysfs_series_present(root);
	irq_threads(root, &irqs);
	isolated_cpus(root, &iso, from, sizeof(from));
	for (i = 0; i < cfg->nrules; i++) {
		const struct rule *r = &cfg->rules[i];
		bool rt = (r->s.set & WA_BIT(WA_POLICY)) &&
			  r->s.val[WA_POLICY] != POLICY_NORMAL;

		if (rt && (r->s.set & WA_BIT(WA_RTPRIO)))
			advice_irq(root, r, &irqs, out);
		if (rt && r->kind == RULE_KWORKER)
			advice_kworker(root, r, out);
		if (r->s.set & WA_BIT(WA_CPUMASK)) {
			struct settings now = r->s;
			char why[256];
			bool known = true;

			/* an irq-following cpumask: the CPUs it has now */
			if (r->s.irq[0] &&
			    attr_resolve_irq(root, &now, why, sizeof(why))) {
				strlist_add(
					out,
					"warning: [%s] cpumask = irq:%s: %s: wqrtd sets no cpumask there until they are",
					r->section, r->s.irq, why);
				known = false;
			} else if (r->s.irq[0]) {
				cpulist_format(&now.mask, list, sizeof(list));
				strlist_add(
					out,
					"note: [%s] cpumask = irq:%s: CPU(s) %s now; wqrtd follows them at each scan (rescan_interval)",
					r->section, r->s.irq, list);
			}
			overlap = now.mask;
			cpubits_and(&overlap, &iso);
			if (known && !cpubits_empty(&overlap)) {
				cpulist_format(&overlap, list, sizeof(list));
				strlist_add(
					out,
					"warning: [%s] cpumask includes isolated CPU(s) %s (%s): its kworkers would run where isolated work was meant to run alone (and the kernel keeps unbound workqueues off isolated CPUs)",
					r->section, list, from);
			}
		}
		if (r->kind == RULE_WQ && !series &&
		    (r->s.set &
		     (WA_BIT(WA_NR_IDLE_EXTRA) | WA_BIT(WA_PRIVATE))))
			strlist_add(
				out,
				"warning: [%s] asks for %s, which only a kernel with the wqrt series gives: this one has no such attribute (fallback mode), so it is not applied",
				r->section,
				(r->s.set & WA_BIT(WA_NR_IDLE_EXTRA)) ?
					"a reserve (nr_idle_extra)" :
					"private pools");
	}
	free(irqs.v);
}

void advice_print(const char *root, const struct config *cfg, FILE *f)
{
	struct strlist out = { 0 };
	size_t i;

	advice_system(root, &out);
	advice_config(root, cfg, &out);
	if (!out.n)
		return;
	fprintf(f, "\nRT safety:\n");
	for (i = 0; i < out.n; i++)
		fprintf(f, "  %s\n", out.v[i]);
	strlist_free(&out);
}
