// SPDX-License-Identifier: GPL-2.0-only
#include "why.h"
#include "common.h"
#include "hist.h"

#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

/* -------- the analysis: events in, culprits out -------- */

/* What a CPU did from t0 to t1: culprit c */
struct seg {
	uint64_t t0, t1;
	int c;
};

struct cpu_segs {
	struct seg *v;
	size_t n, cap;
	int task; /* the culprit running, -1 unknown (before its first switch) */
	int stack[8]; /* interrupt handlers and softirqs over it */
	int depth;
	uint64_t since;
	bool seen;
};

struct an {
	struct why_result *r;
	size_t cap;
	struct cpu_segs *cpus;
	int ncpus;
	unsigned int *last_item; /* per culprit: the item that counted it */
	size_t last_cap;
};

static const char *const softirq_names[] = { "HI",	"TIMER", "NET_TX",
					     "NET_RX",	"BLOCK", "IRQ_POLL",
					     "TASKLET", "SCHED", "HRTIMER",
					     "RCU" };

/* The culprit pid (a task), or named what (pid -1), made if new */
static int culprit(struct an *a, int pid, const char *what)
{
	struct why_result *r = a->r;
	struct why_culprit *v;
	size_t i;

	for (i = 0; i < r->nculprits; i++)
		if (pid >= 0 ? r->culprits[i].pid == pid :
			       r->culprits[i].pid < 0 &&
				       !strcmp(r->culprits[i].what, what))
			return (int)i;
	if (r->nculprits == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;

		v = realloc(r->culprits, cap * sizeof(*v));
		if (!v)
			return -1;
		r->culprits = v;
		a->cap = cap;
	}
	v = &r->culprits[r->nculprits];
	memset(v, 0, sizeof(*v));
	v->pid = pid;
	snprintf(v->what, sizeof(v->what), "%s", what);
	return (int)r->nculprits++;
}

/*
 * A task as sched_switch shows it now: its pid's culprit, whose class,
 * priority and name are the last seen
 */
static int task_culprit(struct an *a, int pid, int prio, const char *comm)
{
	int c = culprit(a, pid, "");

	if (c >= 0) {
		a->r->culprits[c].prio = prio;
		snprintf(a->r->culprits[c].comm, sizeof(a->r->culprits[c].comm),
			 "%s", comm);
	}
	return c;
}

/* What a task is called in the report */
static void name_tasks(struct why_result *r)
{
	struct why_culprit *c;
	size_t i;

	for (i = 0; i < r->nculprits; i++) {
		c = &r->culprits[i];
		if (c->pid < 0)
			continue;
		if (c->pid == 0)
			snprintf(c->what, sizeof(c->what), "idle");
		else if (c->prio < 0)
			snprintf(c->what, sizeof(c->what), "DEADLINE %s[%d]",
				 c->comm, c->pid);
		else if (c->prio < 100)
			snprintf(c->what, sizeof(c->what), "RT %d %s[%d]",
				 99 - c->prio, c->comm, c->pid);
		else
			snprintf(c->what, sizeof(c->what), "nice %d %s[%d]",
				 c->prio - 120, c->comm, c->pid);
	}
}

static int add_seg(struct cpu_segs *cs, uint64_t t0, uint64_t t1, int c)
{
	struct seg *v;

	if (t1 <= t0 || c < 0)
		return 0;
	if (cs->n && cs->v[cs->n - 1].c == c && cs->v[cs->n - 1].t1 == t0) {
		cs->v[cs->n - 1].t1 = t1;
		return 0;
	}
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 256;

		v = realloc(cs->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		cs->v = v;
		cs->cap = cap;
	}
	cs->v[cs->n++] = (struct seg){ t0, t1, c };
	return 0;
}

/* Pass 1: who held each CPU, from one event to the next */
static int build_segs(struct an *a, const struct why_ev *ev, size_t n)
{
	char what[64];
	size_t i;

	for (i = 0; i < n; i++) {
		const struct why_ev *e = &ev[i];
		struct cpu_segs *cs;
		int who;

		if (e->cpu < 0 || e->cpu >= a->ncpus)
			continue;
		cs = &a->cpus[e->cpu];
		who = cs->depth ? cs->stack[cs->depth - 1] : cs->task;
		if (cs->seen && add_seg(cs, cs->since, e->ts, who))
			return -ENOMEM;
		cs->seen = true;
		cs->since = e->ts;
		switch (e->kind) {
		case WHY_SWITCH:
			/*
			 * A hard interrupt never spans a task switch; a
			 * softirq does on PREEMPT_RT, where it runs in the
			 * task that raised it and is preempted with it: from
			 * here the CPU is the next task's (the rest of the
			 * softirq, when its task is back, is charged to that
			 * task, and its exit finds nothing to pop)
			 */
			cs->depth = 0;
			/* what the task leaving is now (a policy, an exec) */
			if (e->prev_pid >= 0 && e->prev_comm[0] &&
			    task_culprit(a, e->prev_pid, e->prev_prio,
					 e->prev_comm) < 0)
				return -ENOMEM;
			cs->task = task_culprit(a, e->pid, e->prio, e->comm);
			if (cs->task < 0)
				return -ENOMEM;
			break;
		case WHY_IRQ_IN:
		case WHY_SOFT_IN:
			if (e->kind == WHY_IRQ_IN)
				snprintf(what, sizeof(what), "irq %d %s",
					 e->irq, e->comm);
			else if (e->irq >= 0 &&
				 e->irq < (int)ARRAY_SIZE(softirq_names))
				snprintf(what, sizeof(what), "softirq %s",
					 softirq_names[e->irq]);
			else
				snprintf(what, sizeof(what), "softirq %d",
					 e->irq);
			who = culprit(a, -1, what);
			if (who < 0)
				return -ENOMEM;
			if (cs->depth < (int)ARRAY_SIZE(cs->stack))
				cs->stack[cs->depth++] = who;
			break;
		case WHY_IRQ_OUT:
		case WHY_SOFT_OUT:
			if (cs->depth)
				cs->depth--;
			break;
		default:
			break;
		}
	}
	return 0;
}

/* What is asked about: workqueues by glob, functions by address */
struct why_sel {
	const struct strlist *wqs;
	const uint64_t *addrs;
	size_t naddrs;
};

/* Is the item of workqueue wq and function func one sel asks about */
static bool selected(const struct why_sel *sel, const char *wq, uint64_t func)
{
	size_t i;

	if ((!sel->wqs || !sel->wqs->n) && !sel->naddrs)
		return true;
	for (i = 0; sel->wqs && i < sel->wqs->n; i++)
		if (!fnmatch(sel->wqs->v[i], wq, 0))
			return true;
	for (i = 0; i < sel->naddrs; i++)
		if (sel->addrs[i] == func)
			return true;
	return false;
}

/* Work pointer -> its pending queue_work(): open addressing */
struct pending {
	uint64_t work; /* 0: free */
	size_t ev; /* the WHY_QUEUE event */
};

static struct pending *pending_slot(struct pending *t, size_t mask,
				    uint64_t work)
{
	size_t i = (work >> 4) * 0x9e3779b97f4a7c15ULL & mask;

	while (t[i].work && t[i].work != work)
		i = (i + 1) & mask;
	return &t[i];
}

/* Remove the entry at s, keeping the probe chains whole */
static void pending_remove(struct pending *t, size_t mask, struct pending *s)
{
	size_t i = s - t, j = i, k;

	t[i].work = 0;
	for (;;) {
		j = (j + 1) & mask;
		if (!t[j].work)
			return;
		k = (t[j].work >> 4) * 0x9e3779b97f4a7c15ULL & mask;
		/* k cyclically in (i, j]: it stays */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		t[i] = t[j];
		t[j].work = 0;
		i = j;
	}
}

/* The first segment of cs that ends after q */
static size_t seg_after(const struct cpu_segs *cs, uint64_t q)
{
	size_t lo = 0, hi = cs->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (cs->v[mid].t1 <= q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * One late item (number item): its wait on cpu, from q to s, charged to
 * whoever held the CPU. False when the CPU's story starts after q.
 */
static bool charge(struct an *a, unsigned int item, int cpu, uint64_t q,
		   uint64_t s)
{
	const struct cpu_segs *cs = &a->cpus[cpu];
	size_t i;

	if (!cs->n || cs->v[0].t0 > q)
		return false;
	for (i = seg_after(cs, q); i < cs->n && cs->v[i].t0 < s; i++) {
		uint64_t t0 = cs->v[i].t0 > q ? cs->v[i].t0 : q;
		uint64_t t1 = cs->v[i].t1 < s ? cs->v[i].t1 : s;
		struct why_culprit *c = &a->r->culprits[cs->v[i].c];

		c->ns += t1 - t0;
		if (a->last_item[cs->v[i].c] != item + 1) {
			a->last_item[cs->v[i].c] = item + 1;
			c->items++;
		}
	}
	return true;
}

/* The latest item's wait, step by step */
static int steps_of(struct an *a, int cpu, uint64_t q, uint64_t s)
{
	const struct cpu_segs *cs = &a->cpus[cpu];
	struct why_result *r = a->r;
	size_t i;

	for (i = seg_after(cs, q); i < cs->n && cs->v[i].t0 < s; i++) {
		uint64_t t0 = cs->v[i].t0 > q ? cs->v[i].t0 : q;
		uint64_t t1 = cs->v[i].t1 < s ? cs->v[i].t1 : s;
		struct why_step *v;

		v = realloc(r->steps, (r->nsteps + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->steps = v;
		v[r->nsteps++] =
			(struct why_step){ t0 - q, t1 - t0, cs->v[i].c };
	}
	return 0;
}

static int by_ts(const void *x, const void *y)
{
	const struct why_ev *a = x, *b = y;

	return (a->ts > b->ts) - (a->ts < b->ts);
}

struct rank {
	uint64_t ns;
	size_t idx;
};

static int by_ns_desc(const void *x, const void *y)
{
	const struct rank *a = x, *b = y;

	return (a->ns < b->ns) - (a->ns > b->ns);
}

/* The culprits by the time they held the CPUs, the steps following */
static int rank_culprits(struct why_result *r)
{
	struct why_culprit *sorted;
	struct rank *rk;
	size_t i, n = r->nculprits;
	int *remap;

	rk = calloc(n + 1, sizeof(*rk));
	remap = calloc(n + 1, sizeof(*remap));
	sorted = calloc(n + 1, sizeof(*sorted));
	if (!rk || !remap || !sorted) {
		free(rk);
		free(remap);
		free(sorted);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		rk[i] = (struct rank){ r->culprits[i].ns, i };
	qsort(rk, n, sizeof(*rk), by_ns_desc);
	for (i = 0; i < n; i++) {
		sorted[i] = r->culprits[rk[i].idx];
		remap[rk[i].idx] = (int)i;
	}
	for (i = 0; i < r->nsteps; i++)
		r->steps[i].culprit = remap[r->steps[i].culprit];
	free(r->culprits);
	r->culprits = sorted;
	/* who delayed no late item is no culprit */
	while (r->nculprits && !r->culprits[r->nculprits - 1].ns)
		r->nculprits--;
	free(rk);
	free(remap);
	return 0;
}

int why_analyse(struct why_ev *ev, size_t n, const struct strlist *wqs,
		const uint64_t *addrs, size_t naddrs, uint64_t threshold_us,
		struct why_result *r)
{
	struct why_sel sel = { wqs, addrs, naddrs };
	struct an a = { .r = r };
	struct pending *pend = NULL;
	size_t i, mask = 0;
	unsigned int item = 0;
	int err = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->threshold_ns = threshold_us * 1000;
	if (!n)
		return 0;
	qsort(ev, n, sizeof(*ev), by_ts);
	r->first_ts = ev[0].ts;
	r->last_ts = ev[n - 1].ts;
	for (i = 0; i < n; i++)
		if (ev[i].cpu >= a.ncpus)
			a.ncpus = ev[i].cpu + 1;
	a.cpus = calloc(a.ncpus + 1, sizeof(*a.cpus));
	if (!a.cpus)
		goto out;
	for (i = 0; i < (size_t)a.ncpus; i++)
		a.cpus[i].task = -1;
	if (build_segs(&a, ev, n))
		goto out;
	a.last_item = calloc(r->nculprits + 1, sizeof(*a.last_item));
	while (mask + 1 < 2 * n)
		mask = 2 * mask + 1;
	pend = calloc(mask + 1, sizeof(*pend));
	if (!a.last_item || !pend)
		goto out;
	/* pass 2: each start matched with its queueing */
	for (i = 0; i < n; i++) {
		const struct why_ev *q, *e = &ev[i];
		struct pending *p;

		if (e->kind == WHY_QUEUE && e->work) {
			p = pending_slot(pend, mask, e->work);
			p->work = e->work;
			p->ev = i;
			continue;
		}
		if (e->kind != WHY_START || !e->work)
			continue;
		p = pending_slot(pend, mask, e->work);
		if (!p->work)
			continue; /* queued before the buffer's start */
		q = &ev[p->ev];
		pending_remove(pend, mask, p);
		if (e->ts - q->ts <= r->threshold_ns ||
		    !selected(&sel, q->wq, q->func) || e->cpu < 0 ||
		    e->cpu >= a.ncpus)
			continue;
		r->late++;
		if (!charge(&a, item++, e->cpu, q->ts, e->ts))
			continue;
		r->analysed++;
		r->have_last = true;
		r->last_queue_ts = q->ts;
		r->last_wait_ns = e->ts - q->ts;
		snprintf(r->last_wq, sizeof(r->last_wq), "%s", q->wq);
		r->last_func = q->func;
		r->last_cpu = e->cpu;
	}
	if (r->have_last && steps_of(&a, r->last_cpu, r->last_queue_ts,
				     r->last_queue_ts + r->last_wait_ns))
		goto out;
	name_tasks(r);
	if (rank_culprits(r))
		goto out;
	err = 0;
out:
	for (i = 0; a.cpus && i < (size_t)a.ncpus; i++)
		free(a.cpus[i].v);
	free(a.cpus);
	free(a.last_item);
	free(pend);
	if (err)
		why_result_free(r);
	return err;
}

void why_result_free(struct why_result *r)
{
	free(r->culprits);
	free(r->steps);
	memset(r, 0, sizeof(*r));
}

/* -------- what is printed -------- */

/* The name of the text symbol at addr in ROOT/proc/kallsyms, or "" */
static void ksyms_name(const char *root, uint64_t addr, char *buf, size_t size)
{
	char path[WQRT_PATH_MAX], line[512], name[256];
	unsigned long long a;
	FILE *f;

	buf[0] = '\0';
	if (!addr || path_fmt(path, sizeof(path), root, "/proc/kallsyms"))
		return;
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %*c %255s", &a, name) == 2 &&
		    a == addr) {
			snprintf(buf, size, "%.*s", (int)size - 1, name);
			break;
		}
	fclose(f);
}

void why_print(FILE *f, const struct why_result *r, const char *root)
{
	char func[HIST_STR_MAX] = "";
	size_t i;

	fprintf(f,
		"\nwhy: %u work item(s) started more than %" PRIu64
		" us after queue_work() in the %.1f s the trace buffer held",
		r->late, r->threshold_ns / 1000,
		(r->last_ts - r->first_ts) / 1e9);
	if (r->late != r->analysed)
		fprintf(f,
			" (%u of them before their CPU's first task switch in it: not analysed)",
			r->late - r->analysed);
	fprintf(f, "\n");
	if (!r->analysed)
		return;
	fprintf(f,
		"what ran on their CPU while they waited, summed over them:\n\n");
	fprintf(f, "%12s %7s  %s\n", "us", "items", "what");
	for (i = 0; i < r->nculprits && i < 15; i++)
		fprintf(f, "%12" PRIu64 " %7u  %s\n", r->culprits[i].ns / 1000,
			r->culprits[i].items, r->culprits[i].what);
	if (r->nculprits > 15)
		fprintf(f, "%12s %7s  (%zu more)\n", "", "", r->nculprits - 15);
	if (!r->have_last)
		return;
	ksyms_name(root, r->last_func, func, sizeof(func));
	fprintf(f,
		"\nthe latest: %s %s, started %" PRIu64
		" us after its queue_work() on CPU %d; meanwhile on CPU %d:\n\n",
		r->last_wq, func[0] ? func : "?", r->last_wait_ns / 1000,
		r->last_cpu, r->last_cpu);
	fprintf(f, "%12s %10s  %s\n", "from us", "for us", "what");
	for (i = 0; i < r->nsteps && i < 40; i++)
		fprintf(f, "%12" PRIu64 " %10" PRIu64 "  %s\n",
			r->steps[i].from_ns / 1000, r->steps[i].ns / 1000,
			r->culprits[r->steps[i].culprit].what);
	if (r->nsteps > 40)
		fprintf(f, "%12s %10s  (%zu more)\n", "", "", r->nsteps - 40);
}

/* -------- the ring buffer -------- */

static const struct {
	const char *system, *event;
	bool required;
} why_events[] = {
	{ "sched", "sched_switch", true },
	{ "workqueue", "workqueue_queue_work", true },
	{ "workqueue", "workqueue_execute_start", true },
	{ "irq", "irq_handler_entry", false },
	{ "irq", "irq_handler_exit", false },
	{ "irq", "softirq_entry", false },
	{ "irq", "softirq_exit", false },
};

int why_start(struct trace_sess *s, size_t buffer_kb, char *why, size_t size)
{
	size_t i;

	if (tracefs_instance_set_buffer_size(s->inst, buffer_kb, -1) < 0) {
		int err = errno ? errno : EIO;

		snprintf(why, size,
			 "%s: cannot give the trace buffer %zu KiB a CPU: %s",
			 s->name, buffer_kb, strerror(err));
		return -err;
	}
	for (i = 0; i < ARRAY_SIZE(why_events); i++) {
		if (!tracefs_event_enable(s->inst, why_events[i].system,
					  why_events[i].event))
			continue;
		if (why_events[i].required) {
			int err = errno ? errno : EIO;

			snprintf(why, size, "%s: cannot record %s/%s: %s",
				 s->name, why_events[i].system,
				 why_events[i].event, strerror(err));
			return -err;
		}
		fprintf(stderr,
			"wqrtctl: no %s/%s events: interrupts are not told apart from the task they hit\n",
			why_events[i].system, why_events[i].event);
	}
	return 0;
}

struct collect {
	struct why_ev *v;
	size_t n, cap;
	bool oom;
};

static unsigned long long num(struct tep_event *e, struct tep_record *rec,
			      const char *name)
{
	unsigned long long v = 0;

	tep_get_field_val(NULL, e, name, rec, &v, 0);
	return v;
}

static void str(struct tep_event *e, struct tep_record *rec, const char *name,
		char *buf, size_t size)
{
	int len = 0;
	const char *p = tep_get_field_raw(NULL, e, name, rec, &len, 0);

	if (!p || len <= 0) {
		buf[0] = '\0';
		return;
	}
	snprintf(buf, size, "%.*s", (int)strnlen(p, len), p);
}

static int on_event(struct tep_event *e, struct tep_record *rec, int cpu,
		    void *arg)
{
	struct collect *c = arg;
	struct why_ev *v;

	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;

		v = realloc(c->v, cap * sizeof(*v));
		if (!v) {
			c->oom = true;
			return 1; /* stop */
		}
		c->v = v;
		c->cap = cap;
	}
	v = &c->v[c->n];
	memset(v, 0, sizeof(*v));
	v->ts = rec->ts;
	v->cpu = cpu;
	if (!strcmp(e->name, "sched_switch")) {
		v->kind = WHY_SWITCH;
		v->pid = num(e, rec, "next_pid");
		v->prio = num(e, rec, "next_prio");
		str(e, rec, "next_comm", v->comm, sizeof(v->comm));
		v->prev_pid = num(e, rec, "prev_pid");
		v->prev_prio = num(e, rec, "prev_prio");
		str(e, rec, "prev_comm", v->prev_comm, sizeof(v->prev_comm));
	} else if (!strcmp(e->name, "workqueue_queue_work")) {
		v->kind = WHY_QUEUE;
		v->work = num(e, rec, "work");
		v->func = num(e, rec, "function");
		str(e, rec, "workqueue", v->wq, sizeof(v->wq));
	} else if (!strcmp(e->name, "workqueue_execute_start")) {
		v->kind = WHY_START;
		v->work = num(e, rec, "work");
		v->func = num(e, rec, "function");
	} else if (!strcmp(e->name, "irq_handler_entry")) {
		v->kind = WHY_IRQ_IN;
		v->irq = num(e, rec, "irq");
		str(e, rec, "name", v->comm, sizeof(v->comm));
	} else if (!strcmp(e->name, "irq_handler_exit")) {
		v->kind = WHY_IRQ_OUT;
	} else if (!strcmp(e->name, "softirq_entry")) {
		v->kind = WHY_SOFT_IN;
		v->irq = num(e, rec, "vec");
	} else if (!strcmp(e->name, "softirq_exit")) {
		v->kind = WHY_SOFT_OUT;
	} else {
		return 0;
	}
	c->n++;
	return 0;
}

int why_collect(struct trace_sess *s, struct why_ev **ev, size_t *n, char *why,
		size_t size)
{
	static const char *const systems[] = { "sched", "workqueue", "irq",
					       NULL };
	struct collect c = { 0 };
	struct tep_handle *tep;
	int err = 0;

	*ev = NULL;
	*n = 0;
	tracefs_trace_off(s->inst);
	tep = tracefs_local_events_system(NULL, systems);
	if (!tep) {
		err = errno ? errno : EIO;
		snprintf(why, size, "cannot read the event formats: %s",
			 strerror(err));
		return -err;
	}
	if (tracefs_iterate_raw_events(tep, s->inst, NULL, 0, on_event, &c) <
	    0) {
		err = errno ? errno : EIO;
		snprintf(why, size, "%s: cannot read the trace buffer: %s",
			 s->name, strerror(err));
	} else if (c.oom) {
		err = ENOMEM;
		snprintf(why, size, "%s: out of memory reading %zu events",
			 s->name, c.n);
	}
	tep_free(tep);
	if (err) {
		free(c.v);
		return -err;
	}
	*ev = c.v;
	*n = c.n;
	return 0;
}
