/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wqrtctl latency --why US: for each work item that started more than US
 * after its queue_work(), what ran on the CPU it started on in between:
 * tasks (with their policy and priority), hard and soft interrupts,
 * summed per culprit over the items, and the latest such item in full.
 *
 * The same tracefs instance as the histograms records sched_switch, the
 * workqueue events and the interrupt events into its own ring buffer,
 * which overwrites its oldest events: nothing is streamed while it
 * measures; at the end the buffer is read once and analysed here (as
 * rtla's auto analysis reads its trace when a threshold is crossed). The
 * histograms count every late item of the run; this analysis covers those
 * whose events are still in the buffer, and says how many that is.
 */
#ifndef WQRT_WHY_H
#define WQRT_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "discover.h"
#include "trace.h"
#include "util.h"

enum why_kind {
	WHY_SWITCH, /* sched_switch: pid, prio, comm of next; prev_* too */
	WHY_QUEUE, /* workqueue_queue_work: work, func, wq */
	WHY_START, /* workqueue_execute_start: work, func */
	WHY_IRQ_IN, /* irq_handler_entry: irq, name */
	WHY_IRQ_OUT,
	WHY_SOFT_IN, /* softirq_entry: vec */
	WHY_SOFT_OUT,
};

#define WHY_COMM_MAX 16

/* One event of the ring buffer, as the analysis needs it */
struct why_ev {
	uint64_t ts; /* ns */
	int cpu;
	enum why_kind kind;
	uint64_t work, func;
	int pid, prio; /* WHY_SWITCH: the next task; prev_* below */
	int prev_pid, prev_prio;
	int irq; /* WHY_IRQ_*: the irq; WHY_SOFT_*: the vector */
	char comm[WHY_COMM_MAX]; /* WHY_SWITCH: next_comm; WHY_IRQ_IN: name */
	char prev_comm[WHY_COMM_MAX];
	char wq[WQ_NAME_MAX]; /* WHY_QUEUE */
};

/* Who held a CPU: a task, an interrupt handler, a softirq, or nobody */
struct why_culprit {
	/*
	 * "RT 50 hog[812]", "nice 0 kworker/u9:2[110]", "idle", "irq 4
	 * ttyS2", "softirq TIMER". A task is one culprit per pid, named
	 * by the last the buffer shows of it: chrt at nice 0 that made
	 * itself FIFO 50 and exec'ed sh is "RT 50 sh[pid]"
	 */
	char what[64];
	uint64_t ns; /* summed over the late items */
	unsigned int items; /* of the late items, how many it delayed */
	int pid; /* a task's; -1: an interrupt handler or a softirq */
	int prio; /* a task's, as sched_switch shows it */
	char comm[WHY_COMM_MAX];
};

/* A stretch of the latest late item's wait */
struct why_step {
	uint64_t from_ns; /* after its queue_work() */
	uint64_t ns;
	int culprit;
};

struct why_result {
	uint64_t threshold_ns;
	unsigned int late; /* late items found in the buffer */
	unsigned int analysed; /* of those, with their CPU's tasks known */
	struct why_culprit *culprits; /* by ns, the most first */
	size_t nculprits;
	/* the latest late item */
	bool have_last;
	char last_wq[WQ_NAME_MAX];
	uint64_t last_func;
	int last_cpu;
	uint64_t last_queue_ts, last_wait_ns;
	struct why_step *steps;
	size_t nsteps;
	uint64_t first_ts, last_ts; /* what the buffer held */
};

/*
 * The late items among ev (in any order; sorted here by time) of the
 * workqueues wqs names (globs) and the work functions at addrs (all when
 * both are empty), and what ran on their CPU while they waited. 0, or
 * -ENOMEM.
 */
int why_analyse(struct why_ev *ev, size_t n, const struct strlist *wqs,
		const uint64_t *addrs, size_t naddrs, uint64_t threshold_us,
		struct why_result *r);
void why_result_free(struct why_result *r);
/* The culprits and the latest item in full; func names from root's kallsyms */
void why_print(FILE *f, const struct why_result *r, const char *root);

/*
 * Record the events of the analysis in the session's instance, in a ring
 * buffer of buffer_kb per CPU. 0 or -errno (why filled).
 */
int why_start(struct trace_sess *s, size_t buffer_kb, char *why, size_t size);
/*
 * Stop recording and read the instance's buffer: *ev (free it), *n.
 * 0 or -errno (why filled).
 */
int why_collect(struct trace_sess *s, struct why_ev **ev, size_t *n, char *why,
		size_t size);

#endif
