// SPDX-License-Identifier: GPL-2.0-only
#include "latency.h"
#include "why.h"
#include "common.h"
#include "config.h"
#include "ctl.h"
#include "inventory.h"
#include "json.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Field lists of the synthetic events: what the triggers pass them. The
 * workqueue name is a dynamic string: only those take a string variable
 * of another size (check_synth_field()).
 */
#define SYNTH_LAT_FIELDS "char wq[]; unsigned long function; u64 lat"
#define SYNTH_RUN_FIELDS "char wq[]; unsigned long function; u64 run"

/* Size of each histogram (entries; the kernel rounds to a power of 2) */
#define HIST_SIZE_TIER0 8192
#define HIST_SIZE 2048

int ksyms_find(const char *root, const char *name, uint64_t **addrs,
	       size_t *n)
{
	char path[WQRT_PATH_MAX], line[512], sym[256], type;
	unsigned long long addr;
	int found = 0;
	FILE *f;

	if (path_fmt(path, sizeof(path), root, "/proc/kallsyms"))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		uint64_t *v;

		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) != 3 ||
		    (type != 't' && type != 'T') || strcmp(sym, name))
			continue;
		if (!addr) {
			/* kptr_restrict hides them from this reader */
			fclose(f);
			return -EPERM;
		}
		v = realloc(*addrs, (*n + 1) * sizeof(*v));
		if (!v)
			break;
		*addrs = v;
		v[(*n)++] = addr;
		found++;
	}
	fclose(f);
	return found;
}

/* Is name a workqueue root shows: in sysfs, or named by a kernel thread */
static bool known_wq(const char *root, const char *name,
		     const struct inventory *inv)
{
	char path[WQRT_PATH_MAX];
	struct stat st;
	size_t i;

	if (!wq_path(path, sizeof(path), root, name, "") && !stat(path, &st))
		return true;
	for (i = 0; i < inv->n; i++) {
		const struct inv_wq *w = &inv->v[i];

		if (!strcmp(w->name, name) ||
		    (w->truncated && !strncmp(w->name, name, strlen(w->name))))
			return true;
	}
	return false;
}

int lat_select(const char *root, char *const *names, size_t n,
	       struct lat_sel *sel, char *why, size_t size)
{
	struct inventory inv = { 0 };
	bool scanned = false;
	size_t i;
	int r = 0;

	for (i = 0; i < n && !r; i++) {
		const char *name = names[i];
		int found;

		if (!name[0] || strlen(name) >= WQ_NAME_MAX ||
		    strpbrk(name, "\"\\ \t\n")) {
			snprintf(why, size,
				 "'%s' is not a workqueue or function name",
				 name);
			r = -EINVAL;
			break;
		}
		if (pattern_is_glob(name)) {
			strlist_add(&sel->wqs, "%s", name);
			continue;
		}
		if (!scanned) {
			inventory_scan(root, true, &inv);
			scanned = true;
		}
		if (known_wq(root, name, &inv)) {
			strlist_add(&sel->wqs, "%s", name);
			continue;
		}
		found = ksyms_find(root, name, &sel->addrs, &sel->naddrs);
		if (found > 0) {
			strlist_add(&sel->funcs, "%s", name);
			sel->by_function = true;
			continue;
		}
		if (found == -EPERM)
			snprintf(why, size,
				 "'%s': /proc/kallsyms shows no addresses to this user (run as root; kernel.kptr_restrict)",
				 name);
		else if (found < 0)
			snprintf(why, size,
				 "'%s' is no workqueue here, and /proc/kallsyms cannot be read to look for a function: %s",
				 name, strerror(-found));
		else
			snprintf(why, size,
				 "'%s' is neither a workqueue (none by that name in sysfs or among the kernel threads' names) nor a kernel function (/proc/kallsyms)",
				 name);
		r = found == -EPERM ? -EPERM : -EINVAL;
	}
	inventory_free(&inv);
	return r;
}

void lat_sel_free(struct lat_sel *sel)
{
	strlist_free(&sel->wqs);
	strlist_free(&sel->funcs);
	free(sel->addrs);
	sel->addrs = NULL;
	sel->naddrs = 0;
}

/* " || function == 0x..." for each address, after len bytes of buf */
static size_t filter_addrs(const struct lat_sel *sel, char *buf, size_t size,
			   size_t len)
{
	size_t i;

	for (i = 0; i < sel->naddrs; i++)
		len += snprintf(buf + len, len < size ? size - len : 0,
				"%sfunction == 0x%" PRIx64, len ? " || " : "",
				sel->addrs[i]);
	return len;
}

void lat_filter(const struct lat_sel *sel, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sel->wqs.n; i++)
		len += snprintf(buf + len, len < size ? size - len : 0,
				"%sworkqueue %s \"%s\"", len ? " || " : "",
				pattern_is_glob(sel->wqs.v[i]) ? "~" : "==",
				sel->wqs.v[i]);
	filter_addrs(sel, buf, size, len);
}

void lat_result_free(struct lat_result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		lat_free(&r->rows[i].lat);
		lat_free(&r->rows[i].run);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

static struct lat_row *row_for(struct lat_result *r, const char *wq,
			       const char *func)
{
	struct lat_row *rows;
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->rows[i].wq, wq) &&
		    !strcmp(r->rows[i].func, func))
			return &r->rows[i];
	rows = realloc(r->rows, (r->n + 1) * sizeof(*rows));
	if (!rows)
		return NULL;
	r->rows = rows;
	rows += r->n++;
	memset(rows, 0, sizeof(*rows));
	snprintf(rows->wq, sizeof(rows->wq), "%.*s", (int)sizeof(rows->wq) - 1,
		 wq);
	snprintf(rows->func, sizeof(rows->func), "%s", func);
	return rows;
}

/* From here up a u64 latency is a negative difference (see fold_entry()) */
#define LAT_NEGATIVE (UINT64_C(1) << 63)

enum fold_what { FOLD_LAT, FOLD_RUN, FOLD_TOTAL, FOLD_OVER };

struct fold_arg {
	struct lat_result *r;
	const struct lat_sel *sel;
	enum fold_what what;
	uint64_t width; /* of the tier's buckets */
};

static void fold_entry(const struct hist_entry *e, void *arg)
{
	struct fold_arg *a = arg;
	struct lat_row *row =
		row_for(a->r, e->key[0], a->sel->by_function ? e->key[1] : "");

	if (!row)
		return;
	/*
	 * lat = execute_start - queue_work of the same work: when the work
	 * is queued again on another CPU after the start event took its
	 * timestamp but before its trigger ran, the match takes the newer
	 * queueing and the u64 difference is negative. That start came with
	 * no wait to measure: count it as 0 us.
	 */
	if ((a->what == FOLD_LAT || a->what == FOLD_RUN) &&
	    e->num[2] >= LAT_NEGATIVE) {
		lat_add(a->what == FOLD_LAT ? &row->lat : &row->run, 0, 1,
			e->hitcount);
		return;
	}
	switch (a->what) {
	case FOLD_LAT:
		lat_add(&row->lat, e->num[2], e->width[2], e->hitcount);
		break;
	case FOLD_RUN:
		lat_add(&row->run, e->num[2], e->width[2], e->hitcount);
		break;
	case FOLD_TOTAL:
		row->count += e->hitcount;
		row->sum_us += e->val[0];
		break;
	case FOLD_OVER:
		row->over += e->hitcount;
		break;
	}
}

/*
 * The named histogram of text, parsed: each entry to cb (hist_parse()).
 * The entry count, -EINVAL when text has no such histogram (why), or
 * -ENOMEM.
 */
static int parse_named(const char *text, const char *name,
		       const char *const *keys, size_t nkeys,
		       const char *const *vals, size_t nvals, hist_entry_cb cb,
		       void *arg, uint64_t *dropped, char *why, size_t size)
{
	const char *part;
	size_t len;
	char *copy;
	int n;

	part = text ? trace_hist_named(text, name, &len) : NULL;
	if (!part) {
		snprintf(why, size, "histogram %s: not in its hist file",
			 name);
		return -EINVAL;
	}
	copy = strndup(part, len);
	if (!copy)
		return -ENOMEM;
	n = hist_parse(copy, keys, nkeys, vals, nvals, cb, arg, dropped, why,
		       size);
	free(copy);
	return n;
}

/* One named histogram of text into r */
static int fold_one(const char *text, const char *name, const char *field,
		    struct fold_arg *a, char *why, size_t size)
{
	const char *keys[3] = { "wq", "function", field };
	const char *vals[1] = { field };
	uint64_t dropped = 0;
	int n;

	n = parse_named(text, name, keys,
			a->what == FOLD_LAT || a->what == FOLD_RUN ? 3 : 2,
			vals, a->what == FOLD_TOTAL ? 1 : 0, fold_entry, a,
			&dropped, why, size);
	a->r->dropped += dropped;
	return n < 0 ? n : 0;
}

static int row_cmp(const void *x, const void *y)
{
	const struct lat_row *a = x, *b = y;
	int c;

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	c = strcmp(a->wq, b->wq);
	return c ? c : strcmp(a->func, b->func);
}

int lat_fold(const char *prefix, const char *lat_text, const char *run_text,
	     const struct lat_sel *sel, struct lat_result *r, char *why,
	     size_t size)
{
	struct fold_arg a = { .r = r, .sel = sel };
	char name[128];
	int i, err = 0;

	for (i = 0; i < HIST_NTIERS && !err; i++) {
		a.what = FOLD_LAT;
		snprintf(name, sizeof(name), "%slat%d", prefix, i);
		err = fold_one(lat_text, name, "lat", &a, why, size);
		if (!err) {
			a.what = FOLD_RUN;
			snprintf(name, sizeof(name), "%srun%d", prefix, i);
			err = fold_one(run_text, name, "run", &a, why, size);
		}
	}
	if (!err) {
		a.what = FOLD_TOTAL;
		snprintf(name, sizeof(name), "%slatall", prefix);
		err = fold_one(lat_text, name, "lat", &a, why, size);
	}
	if (!err && sel->has_deadline) {
		a.what = FOLD_OVER;
		snprintf(name, sizeof(name), "%sover", prefix);
		err = fold_one(lat_text, name, "lat", &a, why, size);
	}
	if (r->n)
		qsort(r->rows, r->n, sizeof(*r->rows), row_cmp);
	return err;
}

struct starts_arg {
	struct lat_result *r;
};

static void fold_start(const struct hist_entry *e, void *arg)
{
	struct lat_result *r = ((struct starts_arg *)arg)->r;
	struct lat_row *row = NULL;
	size_t i;

	for (i = 0; i < r->n; i++) {
		if (strcmp(r->rows[i].func, e->key[0]))
			continue;
		if (row)
			return; /* on two workqueues: whose the rest is, unknown */
		row = &r->rows[i];
	}
	if (row && e->hitcount > row->count) {
		row->unmatched = e->hitcount - row->count;
		row->count = e->hitcount;
	}
}

/*
 * Each start is matched with the last queueing of its work, and a cross-
 * event variable is read once: a work queued again between
 * process_one_work() clearing its pending bit and its start event gives
 * that start the newer queueing, and the start that follows finds none and
 * is not in the latencies (the flip work under a stream, some per cent of
 * its starts). The starts are counted on their own, by function, and the
 * difference goes to the row as unmatched.
 */
int lat_fold_starts(const char *prefix, const char *start_text,
		    struct lat_result *r, char *why, size_t size)
{
	const char *keys[1] = { "function" };
	struct starts_arg a = { .r = r };
	char name[128];
	int n;

	snprintf(name, sizeof(name), "%sstarts", prefix);
	n = parse_named(start_text, name, keys, 1, NULL, 0, fold_start, &a,
			NULL, why, size);
	if (n < 0)
		return n;
	if (r->n)
		qsort(r->rows, r->n, sizeof(*r->rows), row_cmp);
	return 0;
}

/* The tier's filter on field: "if lat >= 1000 && lat < 10000" */
static void tier_filter(char *buf, size_t size, const char *field, int i)
{
	if (i == 0)
		snprintf(buf, size, " if %s < %" PRIu64, field,
			 hist_tier_lo[1]);
	else if (i == HIST_NTIERS - 1)
		snprintf(buf, size, " if %s >= %" PRIu64, field,
			 hist_tier_lo[i]);
	else
		snprintf(buf, size, " if %s >= %" PRIu64 " && %s < %" PRIu64,
			 field, hist_tier_lo[i], field, hist_tier_lo[i + 1]);
}

static int synth_hists(struct lat_meas *m, const char *event,
		       const char *field, char *why, size_t size)
{
	char t[512], filter[128], key[64];
	int i, err = 0;

	for (i = 0; i < HIST_NTIERS && !err; i++) {
		if (hist_tier_width[i] == 1)
			snprintf(key, sizeof(key), "%s", field);
		else
			snprintf(key, sizeof(key), "%s.buckets=%" PRIu64, field,
				 hist_tier_width[i]);
		tier_filter(filter, sizeof(filter), field, i);
		snprintf(t, sizeof(t),
			 "hist:name=%s%s%d:keys=wq,function.sym,%s:vals=hitcount:size=%d%s",
			 m->s.synth_prefix, field, i, key,
			 i ? HIST_SIZE : HIST_SIZE_TIER0, filter);
		err = trace_trigger(&m->s, "synthetic", event, t, why, size);
	}
	return err;
}

int lat_start(struct lat_meas *m, const char *root,
	      const struct lat_sel *sel, char *why, size_t size)
{
	char t[4096], filter[3000];
	int err;

	memset(m, 0, sizeof(*m));
	err = trace_start(&m->s, root, why, size);
	if (err)
		return err;
	err = trace_synth(&m->s, "lat", SYNTH_LAT_FIELDS, m->lat_ev,
			  sizeof(m->lat_ev), why, size);
	if (!err)
		err = trace_synth(&m->s, "run", SYNTH_RUN_FIELDS, m->run_ev,
				  sizeof(m->run_ev), why, size);
	/* the histograms first: the chain below starts feeding them */
	if (!err)
		err = synth_hists(m, m->lat_ev, "lat", why, size);
	if (!err)
		err = synth_hists(m, m->run_ev, "run", why, size);
	if (!err) {
		snprintf(t, sizeof(t),
			 "hist:name=%slatall:keys=wq,function.sym:vals=hitcount,lat:size=%d",
			 m->s.synth_prefix, HIST_SIZE);
		err = trace_trigger(&m->s, "synthetic", m->lat_ev, t, why,
				    size);
	}
	if (!err && sel->has_deadline) {
		snprintf(t, sizeof(t),
			 "hist:name=%sover:keys=wq,function.sym:vals=hitcount:size=%d if lat > %" PRIu64
			 " && lat < %" PRIu64,
			 m->s.synth_prefix, HIST_SIZE, sel->deadline_us,
			 LAT_NEGATIVE);
		err = trace_trigger(&m->s, "synthetic", m->lat_ev, t, why,
				    size);
	}
	if (!err) {
		lat_filter(sel, filter, sizeof(filter));
		snprintf(t, sizeof(t),
			 "hist:keys=work:qts=common_timestamp.usecs,qwq=workqueue%s%s",
			 filter[0] ? " if " : "", filter);
		err = trace_trigger(&m->s, "workqueue", "workqueue_queue_work",
				    t, why, size);
	}
	if (!err) {
		snprintf(t, sizeof(t),
			 "hist:keys=work:lat=common_timestamp.usecs-$qts,swq=$qwq,sts=common_timestamp.usecs:onmatch(workqueue.workqueue_queue_work).trace(%s,$swq,function,$lat)",
			 m->lat_ev);
		err = trace_trigger(&m->s, "workqueue",
				    "workqueue_execute_start", t, why, size);
	}
	if (!err) {
		snprintf(t, sizeof(t),
			 "hist:keys=work:run=common_timestamp.usecs-$sts:onmatch(workqueue.workqueue_execute_start).trace(%s,$swq,function,$run)",
			 m->run_ev);
		err = trace_trigger(&m->s, "workqueue", "workqueue_execute_end",
				    t, why, size);
	}
	/* the starts on their own, for the exact count (lat_fold_starts()) */
	if (!err && sel->by_function) {
		filter[0] = '\0';
		filter_addrs(sel, filter, sizeof(filter), 0);
		snprintf(t, sizeof(t),
			 "hist:name=%sstarts:keys=function.sym:vals=hitcount:size=%d%s%s",
			 m->s.synth_prefix, HIST_SIZE, filter[0] ? " if " : "",
			 filter);
		err = trace_trigger(&m->s, "workqueue",
				    "workqueue_execute_start", t, why, size);
	}
	if (err)
		trace_close(&m->s);
	return err;
}

int lat_read(struct lat_meas *m, const struct lat_sel *sel,
	     struct lat_result *r, char *why, size_t size)
{
	char *lat = trace_hist(&m->s, "synthetic", m->lat_ev);
	char *run = trace_hist(&m->s, "synthetic", m->run_ev);
	int err;

	memset(r, 0, sizeof(*r));
	err = lat_fold(m->s.synth_prefix, lat, run, sel, r, why, size);
	free(lat);
	free(run);
	if (!err && sel->by_function) {
		char *starts = trace_hist(&m->s, "workqueue",
					  "workqueue_execute_start");

		err = lat_fold_starts(m->s.synth_prefix, starts, r, why, size);
		free(starts);
	}
	return err;
}

int lat_stop(struct lat_meas *m)
{
	return trace_close(&m->s);
}

static void print_row_name(FILE *f, const struct lat_row *row, int width)
{
	char name[WQ_NAME_MAX + HIST_STR_MAX + 4];

	if (row->func[0])
		snprintf(name, sizeof(name), "%s %s", row->wq, row->func);
	else
		snprintf(name, sizeof(name), "%s", row->wq);
	fprintf(f, "%-*s", width, name);
}

void lat_print_table(FILE *f, const struct lat_result *r,
		     const struct lat_sel *sel, bool histograms)
{
	int width = sel->by_function ? 44 : 24;
	uint64_t unmatched = 0;
	char over[64];
	size_t i;

	fprintf(f,
		"%.1f s; queue -> start latency and run time of the work function, in us\n\n",
		r->seconds);
	fprintf(f, "%-*s %8s %7s %7s %7s %7s", width,
		sel->by_function ? "WORKQUEUE FUNCTION" : "WORKQUEUE", "COUNT",
		"P50", "P99", "P99.9", "MAX");
	if (sel->has_deadline) {
		snprintf(over, sizeof(over), ">%" PRIu64 "us", sel->deadline_us);
		fprintf(f, " %15s", over);
	}
	fprintf(f, " %8s %8s %8s\n", "RUN P50", "RUN P99", "RUN MAX");
	if (!r->n)
		fprintf(f, "(no work item queued and started in that time)\n");
	for (i = 0; i < r->n; i++) {
		const struct lat_row *row = &r->rows[i];

		print_row_name(f, row, width);
		fprintf(f,
			" %8" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			" %7" PRIu64,
			row->count, lat_quantile(&row->lat, 0.5),
			lat_quantile(&row->lat, 0.99),
			lat_quantile(&row->lat, 0.999), lat_max(&row->lat));
		if (sel->has_deadline) {
			snprintf(over, sizeof(over), "%" PRIu64 " (%.2f%%)",
				 row->over,
				 row->count ? 100.0 * row->over / row->count :
					      0.0);
			fprintf(f, " %15s", over);
		}
		fprintf(f, " %8" PRIu64 " %8" PRIu64 " %8" PRIu64 "\n",
			lat_quantile(&row->run, 0.5),
			lat_quantile(&row->run, 0.99), lat_max(&row->run));
	}
	if (r->dropped)
		fprintf(f,
			"\n%" PRIu64
			" work item(s) not in the percentiles: a histogram was full (name fewer workqueues)\n",
			r->dropped);
	for (i = 0; i < r->n; i++)
		unmatched += r->rows[i].unmatched;
	if (unmatched)
		fprintf(f,
			"\n%" PRIu64
			" start(s) counted but not in the percentiles: no queueing of theirs to match (queued before the start, or again as they started: wqrtctl(8))\n",
			unmatched);
	if (!histograms)
		return;
	for (i = 0; i < r->n; i++) {
		const struct lat_row *row = &r->rows[i];

		fprintf(f, "\n");
		print_row_name(f, row, 0);
		fprintf(f, ": queue -> start, log scale\n");
		lat_print_log2(f, &row->lat, "  ", 40);
	}
}

static void json_u64_or_null(FILE *f, bool have, uint64_t v)
{
	if (have)
		fprintf(f, "%" PRIu64, v);
	else
		fputs("null", f);
}

void lat_print_json_row(FILE *f, const struct lat_row *row,
			const struct lat_sel *sel)
{
	uint64_t n[40];
	size_t i, top;
	bool any = row->lat.count > 0, run = row->run.count > 0;

	fprintf(f, "{\"workqueue\": ");
	json_str(f, row->wq);
	if (sel->by_function) {
		fprintf(f, ", \"function\": ");
		json_str(f, row->func);
	}
	fprintf(f, ", \"count\": %" PRIu64 ", \"p50_us\": ", row->count);
	json_u64_or_null(f, any, lat_quantile(&row->lat, 0.5));
	fprintf(f, ", \"p99_us\": ");
	json_u64_or_null(f, any, lat_quantile(&row->lat, 0.99));
	fprintf(f, ", \"p99_9_us\": ");
	json_u64_or_null(f, any, lat_quantile(&row->lat, 0.999));
	fprintf(f, ", \"max_us\": ");
	json_u64_or_null(f, any, lat_max(&row->lat));
	fprintf(f, ", \"unmatched\": %" PRIu64 ", \"mean_us\": ",
		row->unmatched);
	if (row->count > row->unmatched)
		fprintf(f, "%.1f",
			(double)row->sum_us / (row->count - row->unmatched));
	else
		fputs("null", f);
	fprintf(f, ", \"over_deadline\": ");
	json_u64_or_null(f, sel->has_deadline, row->over);
	fprintf(f, ", \"run_p50_us\": ");
	json_u64_or_null(f, run, lat_quantile(&row->run, 0.5));
	fprintf(f, ", \"run_p99_us\": ");
	json_u64_or_null(f, run, lat_quantile(&row->run, 0.99));
	fprintf(f, ", \"run_max_us\": ");
	json_u64_or_null(f, run, lat_max(&row->run));
	/* the log-scale histogram: [from_us, to_us, count] */
	fprintf(f, ", \"histogram\": [");
	top = lat_log2(&row->lat, n, ARRAY_SIZE(n));
	for (i = 0; i < top; i++)
		fprintf(f, "%s[%" PRIu64 ", %" PRIu64 ", %" PRIu64 "]",
			i ? ", " : "", i ? (uint64_t)1 << i : 0,
			((uint64_t)1 << (i + 1)) - 1, n[i]);
	fprintf(f, "]}");
}

void lat_print_json(FILE *f, const struct lat_result *r,
		    const struct lat_sel *sel)
{
	size_t i;

	fprintf(f, "{\"schema\": %d, \"seconds\": %.1f, \"by\": \"%s\", ",
		WQRT_JSON_SCHEMA, r->seconds,
		sel->by_function ? "function" : "workqueue");
	fprintf(f, "\"deadline_us\": ");
	json_u64_or_null(f, sel->has_deadline, sel->deadline_us);
	fprintf(f, ", \"dropped\": %" PRIu64 ", \"rows\": [", r->dropped);
	for (i = 0; i < r->n; i++) {
		fprintf(f, "%s\n  ", i ? "," : "");
		lat_print_json_row(f, &r->rows[i], sel);
	}
	fprintf(f, "\n]}\n");
}

int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || v > 86400 || isnan(v))
		return -EINVAL;
	*out = v;
	return 0;
}

int opt_seconds(const char *opt, const char *arg, double *out)
{
	if (!parse_seconds(arg, out))
		return 0;
	fprintf(stderr,
		"wqrtctl: --%s %s: seconds, more than 0 and at most 86400\n",
		opt, arg);
	return -EINVAL;
}

int opt_deadline(const char *arg, struct lat_sel *sel)
{
	long v;

	if (parse_long(arg, 0, 100000000, &v)) {
		fprintf(stderr,
			"wqrtctl: --deadline %s: microseconds, 0 to 100000000\n",
			arg);
		return -EINVAL;
	}
	sel->has_deadline = true;
	sel->deadline_us = (uint64_t)v;
	return 0;
}

/*
 * latency --why's ring buffer, per CPU: 8 MiB (some seconds of a busy
 * CPU's task switches and work items), at most 256 MiB over all CPUs
 */
static size_t why_buffer_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	size_t kb = 8192;

	if (cpus > 0 && (size_t)cpus * kb > 262144)
		kb = 262144 / cpus;
	return kb < 1024 ? 1024 : kb;
}

/* --why US: what made the late items late, from the ring buffer */
static int why_report(struct lat_meas *m, const struct lat_sel *sel,
		      uint64_t us, struct why_result *wr, char *why, size_t size)
{
	struct why_ev *ev;
	size_t n;
	int err = why_collect(&m->s, &ev, &n, why, size);

	if (err)
		return err;
	err = why_analyse(ev, n, &sel->wqs, sel->addrs, sel->naddrs, us, wr);
	free(ev);
	if (err)
		snprintf(why, size, "out of memory analysing %zu events", n);
	return err;
}

/*
 * wqrtctl latency [WQ|FUNC ...] [--duration S] [--deadline US] [--json]
 * [--why US] [--root DIR]. The summary goes to stdout; a reader that goes away
 * (latency | head) ends the measurement as Ctrl-C does, and the session
 * is taken out all the same.
 */
int cmd_latency(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "by", required_argument, NULL, 'b' },
		{ "interval", required_argument, NULL, 'i' },
		{ "root", required_argument, NULL, 'r' },
		{ "why", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct why_result wr = { 0 };
	struct lat_sel sel = { 0 };
	bool want_why = false;
	uint64_t why_us = 0;
	double duration = 0, interval = 1, start;
	bool json = false, live, tty = isatty(STDOUT_FILENO);
	struct lat_result r = { 0 };
	const char *root = "/";
	struct lat_meas m;
	char why[4096];
	int c, err, rc = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (opt_seconds("duration", optarg, &duration))
				return EX_USAGE;
			break;
		case 'i':
			if (opt_seconds("interval", optarg, &interval))
				return EX_USAGE;
			break;
		case 'D':
			if (opt_deadline(optarg, &sel))
				return EX_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'b':
			if (!strcmp(optarg, "function"))
				sel.by_function = true;
			else if (strcmp(optarg, "workqueue")) {
				fprintf(stderr,
					"wqrtctl: --by %s: workqueue or function\n",
					optarg);
				return EX_USAGE;
			}
			break;
		case 'r':
			root = root_canon(optarg);
			break;
		case 'w': {
			struct lat_sel w = { 0 };

			if (opt_deadline(optarg, &w))
				return EX_USAGE;
			want_why = true;
			why_us = w.deadline_us;
			break;
		}
		default:
			ctl_trace_usage(stderr);
			return EX_USAGE;
		}
	}
	if (want_why && json) {
		fprintf(stderr,
			"wqrtctl: --why prints its analysis as text: not with --json\n");
		return EX_USAGE;
	}
	/* the late items are counted over the whole run, as --deadline does */
	if (want_why && !sel.has_deadline) {
		sel.has_deadline = true;
		sel.deadline_us = why_us;
	}
	err = lat_select(root, argv + optind, argc - optind, &sel, why,
			 sizeof(why));
	if (err) {
		fprintf(stderr, "wqrtctl: %s\n", why);
		lat_sel_free(&sel);
		return err == -EPERM ? EX_NOPERM : EX_USAGE;
	}
	ctl_catch_signals();
	err = lat_start(&m, root, &sel, why, sizeof(why));
	if (err) {
		lat_sel_free(&sel);
		return ctl_trace_error(why, err);
	}
	if (want_why) {
		err = why_start(&m.s, why_buffer_kb(), why, sizeof(why));
		if (err) {
			lat_stop(&m);
			lat_sel_free(&sel);
			return ctl_trace_error(why, err);
		}
	}
	live = !duration;
	start = ctl_now();
	fprintf(stderr,
		"wqrtctl: measuring in the kernel (tracefs instance %s)%s\n",
		m.s.name,
		live ? "; Ctrl-C ends with the summary" : "");
	fflush(stderr);
	while (!ctl_stop) {
		if (!live) {
			ctl_sleep(duration);
			break;
		}
		if (!ctl_sleep(interval))
			break;
		if (json)
			continue;
		err = lat_read(&m, &sel, &r, why, sizeof(why));
		if (err)
			break;
		r.seconds = ctl_now() - start;
		if (tty)
			printf("\033[H\033[2J");
		lat_print_table(stdout, &r, &sel, false);
		lat_result_free(&r);
		/* no one reads any more: stop as for Ctrl-C */
		if (ctl_output())
			break;
	}
	if (!err)
		err = lat_read(&m, &sel, &r, why, sizeof(why));
	/* the window ends here: reading the ring buffer is not in it */
	r.seconds = ctl_now() - start;
	if (!err && want_why)
		err = why_report(&m, &sel, why_us, &wr, why, sizeof(why));
	if (lat_stop(&m))
		rc = EX_IOERR;
	if (err) {
		lat_sel_free(&sel);
		fprintf(stderr, "wqrtctl: %s\n", why);
		return EX_SOFTWARE;
	}
	if (json) {
		lat_print_json(stdout, &r, &sel);
	} else {
		if (live && tty)
			printf("\033[H\033[2J");
		lat_print_table(stdout, &r, &sel,
				argc > optind || r.n <= 4);
		if (argc == optind && r.n > 4)
			printf("\n(a log-scale histogram per row: name the workqueues or functions)\n");
		if (want_why)
			why_print(stdout, &wr, root);
	}
	why_result_free(&wr);
	lat_result_free(&r);
	lat_sel_free(&sel);
	return rc ? rc : ctl_output() < 0 ? EX_IOERR : 0;
}
