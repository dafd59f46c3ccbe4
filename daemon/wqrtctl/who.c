// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl who FUNC... [--duration S] [-c FILE]: which workqueues and
 * kworkers ran the work functions FUNC, counted in the kernel by
 * histogram triggers on the workqueue events, and what would profile them.
 */
#include "common.h"
#include "config.h"
#include "config_load.h"
#include "ctl.h"
#include "discover.h"
#include "hist.h"
#include "inventory.h"
#include "latency.h"
#include "log.h"
#include "sysops.h"
#include "trace.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct who_q { /* a (function, workqueue) pair queued */
	char func[HIST_STR_MAX];
	char wq[WQ_NAME_MAX];
	uint64_t n;
};

struct who_x { /* a (function, kworker, CPU) triple executed */
	char func[HIST_STR_MAX];
	pid_t pid;
	int cpu;
	uint64_t n;
};

struct who_data {
	struct who_q *q;
	size_t nq;
	struct who_x *x;
	size_t nx;
};

static void who_q_entry(const struct hist_entry *e, void *arg)
{
	struct who_data *d = arg;
	struct who_q *q = realloc(d->q, (d->nq + 1) * sizeof(*q));

	if (!q)
		return;
	d->q = q;
	q += d->nq++;
	snprintf(q->func, sizeof(q->func), "%s", e->key[0]);
	snprintf(q->wq, sizeof(q->wq), "%.*s", (int)sizeof(q->wq) - 1, e->key[1]);
	q->n = e->hitcount;
}

static void who_x_entry(const struct hist_entry *e, void *arg)
{
	struct who_data *d = arg;
	struct who_x *x = realloc(d->x, (d->nx + 1) * sizeof(*x));

	if (!x)
		return;
	d->x = x;
	x += d->nx++;
	snprintf(x->func, sizeof(x->func), "%s", e->key[0]);
	x->pid = (pid_t)e->num[1];
	x->cpu = (int)e->num[2];
	x->n = e->hitcount;
}

/* What sysfs says of wq, and what would profile it */
static void who_wq(const struct inventory *inv, const struct config *cfg,
		   const char *cfg_path, const char *wq, const char *root)
{
	static const char *const attrs[] = { "policy",	 "rtprio",  "nice",
					     "cpumask", "pool_ids", NULL };
	const struct inv_wq *w = NULL;
	char path[WQRT_PATH_MAX], *val, reason[256];
	const struct rule *rule;
	struct stat st;
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (!strcmp(inv->v[i].name, wq))
			w = &inv->v[i];
	if (!wq_path(path, sizeof(path), root, wq, "") && !stat(path, &st)) {
		printf("    in sysfs, %s:", w ? wq_kind_name(w->kind) :
						    "unbound or ordered");
		for (i = 0; attrs[i]; i++)
			if (!wq_path(path, sizeof(path), root, wq, attrs[i]) &&
			    !read_text_alloc(path, &val)) {
				printf(" %s %s", attrs[i], val);
				free(val);
			}
		printf("\n");
	} else {
		/* inv_reason() says "not in sysfs: why" itself */
		printf("    %s\n",
		       w ? inv_reason(w, reason, sizeof(reason)) :
			   "not in sysfs: per-cpu, or unbound/ordered without WQ_SYSFS (boot with workqueue.sysfs=NAME on the series)");
		return;
	}
	if (w && !inv_reachable(w)) {
		printf("    %s\n", inv_reason(w, reason, sizeof(reason)));
		return;
	}
	rule = cfg ? config_match_wq(cfg, wq) : NULL;
	if (rule)
		printf("    profiled by [%s] (%s:%d)\n", rule->section,
		       rule->file, rule->line);
	else
		printf("    no section of %s profiles it: [wq:%s] would\n",
		       cfg ? cfg_path : "the configuration", wq);
}

/* The pool a kworker's name says it serves */
static void pool_of(const char *comm, char *buf, size_t size)
{
	int pool, cpu, n;
	char c = 0;

	if (sscanf(comm, "kworker/u%d:%d", &pool, &n) == 2)
		snprintf(buf, size, "unbound pool %d", pool);
	else if (sscanf(comm, "kworker/%d:%d%c", &cpu, &n, &c) >= 2)
		snprintf(buf, size, "CPU %d's %spool", cpu,
			 c == 'H' ? "highpri " : "");
	else if (!strncmp(comm, "kworker/R-", 10))
		snprintf(buf, size, "rescuer");
	else
		snprintf(buf, size, "?");
}

static void who_print(const struct who_data *d, const char *func,
		      double seconds, const struct inventory *inv,
		      const struct config *cfg, const char *cfg_path,
		      const char *root)
{
	struct sys_ops ops;
	uint64_t total = 0;
	size_t i, j;

	sys_ops_for_root(&ops, root);
	for (i = 0; i < d->nx; i++)
		if (!strcmp(d->x[i].func, func))
			total += d->x[i].n;
	for (i = 0; i < d->nq; i++)
		if (!strcmp(d->q[i].func, func) && !total)
			total = 1; /* queued, not run yet */
	if (!total) {
		printf("%s: not queued in %.1f s; run it while the device is busy, or longer (--duration)\n\n",
		       func, seconds);
		return;
	}
	printf("%s, in %.1f s:\n", func, seconds);
	for (i = 0; i < d->nq; i++) {
		if (strcmp(d->q[i].func, func))
			continue;
		printf("  workqueue %s: %" PRIu64 " work item(s) queued\n",
		       d->q[i].wq, d->q[i].n);
		who_wq(inv, cfg, cfg_path, d->q[i].wq, root);
	}
	printf("  kworkers that ran it:\n");
	for (i = 0; i < d->nx; i++) {
		const struct who_x *x = &d->x[i];
		char path[WQRT_PATH_MAX], comm[COMM_MAX] = "(gone)";
		char pool[64], sched[64] = "";
		struct sched_val sv;

		if (strcmp(x->func, func))
			continue;
		/* one line per kworker: its CPUs together */
		for (j = 0; j < i; j++)
			if (!strcmp(d->x[j].func, func) && d->x[j].pid == x->pid)
				break;
		if (j < i)
			continue;
		if (!path_fmt(path, sizeof(path), root, "/proc/%d/comm",
			      (int)x->pid))
			read_text(path, comm, sizeof(comm));
		pool_of(comm, pool, sizeof(pool));
		if (!ops.sched_get(ops.ctx, x->pid, &sv))
			snprintf(sched, sizeof(sched), "%s %d",
				 sched_policy_name(sv.policy),
				 sv.policy == SCHED_OTHER ? sv.nice :
							    sv.rtprio);
		printf("    pid %d %s (%s, %s), on CPU", (int)x->pid, comm,
		       pool, sched[0] ? sched : "?");
		for (j = i; j < d->nx; j++)
			if (!strcmp(d->x[j].func, func) &&
			    d->x[j].pid == x->pid)
				printf(" %d: %" PRIu64, d->x[j].cpu,
				       d->x[j].n);
		printf("\n");
	}
	printf("\n");
}

int cmd_who(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "config", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "/";
	const char *cfg_path = WQRT_DEFAULT_CONF;
	const char *qkeys[] = { "function", "workqueue" };
	const char *xkeys[] = { "function", "common_pid", "common_cpu" };
	char why[4096], t[4096], filter[3000], *text;
	struct who_data d = { 0 };
	struct lat_sel sel = { 0 };
	struct inventory inv = { 0 };
	struct config *cfg = NULL;
	struct trace_sess s;
	double duration = 3, start;
	bool cfg_given = false;
	int c, i, err, found, fails;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (opt_seconds("duration", optarg, &duration))
				return EX_USAGE;
			break;
		case 'c':
			cfg_path = optarg;
			cfg_given = true;
			break;
		case 'r':
			root = root_canon(optarg);
			break;
		default:
			ctl_trace_usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind == argc) {
		ctl_trace_usage(stderr);
		return EX_USAGE;
	}
	for (i = optind; i < argc; i++) {
		found = ksyms_find(root, argv[i], &sel.addrs, &sel.naddrs);
		if (found <= 0) {
			fprintf(stderr, "wqrtctl: %s: %s\n", argv[i],
				found == -EPERM ?
					"/proc/kallsyms shows no addresses to this user (run as root)" :
				found < 0 ? strerror(-found) :
					    "no such kernel function (/proc/kallsyms)");
			lat_sel_free(&sel);
			return found == -EPERM ? EX_NOPERM : EX_USAGE;
		}
	}
	if (cfg_given || !access(cfg_path, F_OK)) {
		if (config_load_report(cfg_path, root, &cfg, NULL)) {
			lat_sel_free(&sel);
			return EX_CONFIG;
		}
	}
	ctl_catch_signals();
	err = trace_start(&s, root, why, sizeof(why));
	if (err) {
		lat_sel_free(&sel);
		config_free(cfg);
		return ctl_trace_error(why, err);
	}
	lat_filter(&sel, filter, sizeof(filter));
	snprintf(t, sizeof(t),
		 "hist:name=%swhoq:keys=function.sym,workqueue:vals=hitcount:size=2048 if %s",
		 s.synth_prefix, filter);
	err = trace_trigger(&s, "workqueue", "workqueue_queue_work", t, why,
			    sizeof(why));
	if (!err) {
		snprintf(t, sizeof(t),
			 "hist:name=%swhox:keys=function.sym,common_pid,common_cpu:vals=hitcount:size=2048 if %s",
			 s.synth_prefix, filter);
		err = trace_trigger(&s, "workqueue", "workqueue_execute_start",
				    t, why, sizeof(why));
	}
	if (err) {
		trace_close(&s);
		lat_sel_free(&sel);
		config_free(cfg);
		return ctl_trace_error(why, err);
	}
	fprintf(stderr, "wqrtctl: watching for %.1f s (tracefs instance %s)\n",
		duration, s.name);
	fflush(stderr);
	start = ctl_now();
	ctl_sleep(duration);
	text = trace_hist(&s, "workqueue", "workqueue_queue_work");
	if (text)
		err = hist_parse(text, qkeys, 2, NULL, 0, who_q_entry, &d, NULL,
				 why, sizeof(why));
	free(text);
	text = trace_hist(&s, "workqueue", "workqueue_execute_start");
	if (text && err >= 0)
		err = hist_parse(text, xkeys, 3, NULL, 0, who_x_entry, &d, NULL,
				 why, sizeof(why));
	free(text);
	fails = trace_close(&s);
	if (err < 0) {
		fprintf(stderr, "wqrtctl: %s\n", why);
		err = EX_SOFTWARE;
	} else {
		inventory_scan(root, true, &inv);
		for (i = optind; i < argc; i++)
			who_print(&d, argv[i], ctl_now() - start, &inv, cfg,
				  cfg_path, root);
		inventory_free(&inv);
		/* a session that could not be taken out: said, and here */
		err = fails ? EX_IOERR : ctl_output() < 0 ? EX_IOERR : 0;
	}
	free(d.q);
	free(d.x);
	lat_sel_free(&sel);
	config_free(cfg);
	return err;
}
