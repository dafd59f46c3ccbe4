/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wqrtctl latency, and the measurement wqrtctl try makes before and after
 * a profile: per workqueue (or per work function) the count of work items,
 * queue -> start latency (workqueue_queue_work to workqueue_execute_start
 * of the same work item) and the run time of the work function
 * (workqueue_execute_start to workqueue_execute_end), aggregated in the
 * kernel:
 *
 *   workqueue_queue_work     hist keyed by the work pointer saves the
 *                            time and the workqueue's name
 *   workqueue_execute_start  same key: lat = now - that time, then the
 *                            synthetic event wqrtctl_PID_lat(wq,
 *                            function, lat); saves its own time
 *   workqueue_execute_end    same key: run = now - that time, then
 *                            wqrtctl_PID_run(wq, function, run)
 *
 * and histograms on the two synthetic events: exact below 1 ms, then
 * buckets of 10, 100, 1000 and 10000 us (each a filter on the value, so
 * none is more than 1 % wide), a total per row, and the items over the
 * deadline, counted exactly. The selection (WQ|FUNC) filters the first
 * trigger, so other work items cost one hash lookup. User space only reads
 * the hist files.
 */
#ifndef WQRT_LATENCY_H
#define WQRT_LATENCY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "discover.h"
#include "hist.h"
#include "trace.h"

/* What to measure: workqueue names or globs, and work functions */
struct lat_sel {
	struct strlist wqs;
	struct strlist funcs;
	uint64_t *addrs; /* the functions' addresses (kallsyms) */
	size_t naddrs;
	bool by_function; /* one row per workqueue and function */
	bool has_deadline;
	uint64_t deadline_us;
};

/*
 * Sort names (the WQ|FUNC operands) into sel: a glob or a workqueue that
 * root shows (in sysfs, or by a kworker's or rescuer's name) is a
 * workqueue; else a kernel text symbol of ROOT/proc/kallsyms is a work
 * function. 0, -EINVAL with why naming the operand that is neither, or
 * -EPERM when kallsyms hides its addresses from this user.
 */
int lat_select(const char *root, char *const *names, size_t n,
	       struct lat_sel *sel, char *why, size_t size);
void lat_sel_free(struct lat_sel *sel);

/*
 * The addresses of the text symbol name in ROOT/proc/kallsyms (a static
 * function may have several); returns how many were added to *addrs, 0
 * when none, -errno when kallsyms cannot be read.
 */
int ksyms_find(const char *root, const char *name, uint64_t **addrs,
	       size_t *n);

/* The filter of the first trigger: "" for everything */
void lat_filter(const struct lat_sel *sel, char *buf, size_t size);

struct lat_row {
	char wq[WQ_NAME_MAX];
	char func[HIST_STR_MAX]; /* "" when grouped by workqueue */
	uint64_t count; /* from the total: exact even if a tier dropped */
	/*
	 * of count, the starts no queueing matched (queued before the
	 * measurement, or the requeue race of lat_fold_starts()): in count,
	 * not in the latencies
	 */
	uint64_t unmatched;
	uint64_t sum_us; /* of the latencies: the mean */
	uint64_t over; /* later than the deadline */
	struct lat_dist lat, run;
};

struct lat_result {
	struct lat_row *rows; /* by count, largest first */
	size_t n;
	uint64_t dropped; /* hits a full histogram had no room for */
	double seconds;
};

void lat_result_free(struct lat_result *r);

/*
 * Fold the hist files of the two synthetic events (lat_text, run_text)
 * into r by sel; prefix is the histograms' name prefix (trace_sess's
 * synth_prefix). 0 or -EINVAL (why).
 */
int lat_fold(const char *prefix, const char *lat_text, const char *run_text,
	     const struct lat_sel *sel, struct lat_result *r, char *why,
	     size_t size);

/*
 * By function: the starts of each function counted on their own
 * (start_text, workqueue_execute_start's hist file) make the count of the
 * function's row exact where one row has the function. 0 or -EINVAL.
 */
int lat_fold_starts(const char *prefix, const char *start_text,
		    struct lat_result *r, char *why, size_t size);

/* The live measurement */
struct lat_meas {
	struct trace_sess s;
	char lat_ev[96], run_ev[96];
};

/*
 * Set the triggers up in a session of its own (trace_start(): the
 * tracing directory under root, what dead wqrtctl runs left taken out
 * first). 0 or -errno (why).
 */
int lat_start(struct lat_meas *m, const char *root,
	      const struct lat_sel *sel, char *why, size_t size);
/* What was measured so far (seconds: the caller's) */
int lat_read(struct lat_meas *m, const struct lat_sel *sel,
	     struct lat_result *r, char *why, size_t size);
/* Take the session out: the removals that failed (said) */
int lat_stop(struct lat_meas *m);

/* The summary table; histograms: a log-scale histogram per row */
void lat_print_table(FILE *f, const struct lat_result *r,
		     const struct lat_sel *sel, bool histograms);
/* One JSON row (an object), as --json prints them */
void lat_print_json_row(FILE *f, const struct lat_row *row,
			const struct lat_sel *sel);
/* The whole --json document */
void lat_print_json(FILE *f, const struct lat_result *r,
		    const struct lat_sel *sel);

/* wqrtctl latency's and try's argument: seconds, 0 < S <= 86400 */
int parse_seconds(const char *s, double *out);
/*
 * An option's argument for wqrtctl latency, who and try: seconds as
 * parse_seconds() takes them, a deadline in microseconds (0 to 10^8) into
 * sel. 0, or -EINVAL after saying on stderr which option was wrong.
 */
int opt_seconds(const char *opt, const char *arg, double *out);
int opt_deadline(const char *arg, struct lat_sel *sel);

#endif
