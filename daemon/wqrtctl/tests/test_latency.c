// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl latency (issue 31) without a kernel: the operands sorted into
 * workqueues and functions on a fake tree, the first trigger's filter,
 * the named histograms of the tiers folded into rows, the JSON writer,
 * and what trace_check() says of a kernel that lacks the options.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "faketree.h"
#include "latency.h"
#include "trace.h"

static struct faketree ft;

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_wq(&ft, "ttyS-serial_8250", true);
	ft_write(&ft, "/proc/kallsyms",
		 "ffffffff81000000 T _stext\n"
		 "ffffffff8149f6a0 t flush_to_ldisc\n"
		 "ffffffff8149f000 d flush_to_ldisc_data\n"
		 "ffffffffc0012340 t vkms_vblank_simulate\t[vkms]\n"
		 "ffffffffc0099990 t flush_to_ldisc\t[other]\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_cleanup(&ft);
	return 0;
}

static void test_select_sorts_operands(void **state)
{
	char *names[] = { "ttyS-serial_8250", "flush_to_ldisc", "events*" };
	struct lat_sel sel = { 0 };
	char why[512], filter[512];

	(void)state;
	assert_int_equal(lat_select(ft.root, names, 3, &sel, why, sizeof(why)),
			 0);
	assert_int_equal(sel.wqs.n, 2);
	assert_string_equal(sel.wqs.v[0], "ttyS-serial_8250");
	assert_string_equal(sel.wqs.v[1], "events*");
	assert_int_equal(sel.funcs.n, 1);
	/* both functions of that name, text symbols only */
	assert_int_equal(sel.naddrs, 2);
	assert_true(sel.by_function);
	lat_filter(&sel, filter, sizeof(filter));
	assert_string_equal(
		filter,
		"workqueue == \"ttyS-serial_8250\" || workqueue ~ \"events*\" || function == 0xffffffff8149f6a0 || function == 0xffffffffc0099990");
	lat_sel_free(&sel);
}

static void test_select_rejects_unknown(void **state)
{
	char *bad[] = { "no_such_thing" }, *quote[] = { "a\"b" };
	struct lat_sel sel = { 0 };
	char why[512];

	(void)state;
	assert_int_equal(lat_select(ft.root, bad, 1, &sel, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "'no_such_thing' is neither a workqueue"));
	assert_non_null(strstr(why, "kallsyms"));
	lat_sel_free(&sel);
	/* nothing that would break the trigger's filter gets into it */
	assert_int_equal(lat_select(ft.root, quote, 1, &sel, why, sizeof(why)),
			 -EINVAL);
	lat_sel_free(&sel);
	/*
	 * kptr_restrict: addresses all zero, a permission (exit 77), not a
	 * usage error (issue 47)
	 */
	ft_write(&ft, "/proc/kallsyms",
		 "0000000000000000 t flush_to_ldisc\n");
	{
		char *fn[] = { "flush_to_ldisc" };

		assert_int_equal(lat_select(ft.root, fn, 1, &sel, why,
					    sizeof(why)),
				 -EPERM);
		assert_non_null(strstr(why, "kptr_restrict"));
	}
	lat_sel_free(&sel);
}

/*
 * A hist file with one named section per trigger, as 6.12 prints it: the
 * name is kept as written, "name=NAME" (parse_assignment()).
 */
static void section(FILE *f, const char *name, const char *keys)
{
	fprintf(f,
		"# event histogram\n#\n# trigger info: hist:name=%s:keys=%s:vals=hitcount:sort=hitcount:size=2048 [active]\n#\n\n",
		name, keys);
}

#define TTY "{ wq: ttyS-serial_8250                                  , function: [ffffffff8149f6a0] flush_to_ldisc                                , "
#define EVT "{ wq: events                                            , function: [ffffffff81111110] vmstat_update                                 , "
#define EVT2 "{ wq: events                                            , function: [ffffffff81111220] kfree_rcu_work                                , "

static char *lat_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	section(f, "wqrtctl_7_lat0", "wq,function.sym,lat");
	/* 98 tty items at 10 us, 1 at 999 */
	fprintf(f, TTY "lat:         10 } hitcount:         98\n");
	fprintf(f, TTY "lat:        999 } hitcount:          1\n");
	fprintf(f, EVT "lat:          5 } hitcount:          4\n");
	fprintf(f, EVT2 "lat:          7 } hitcount:          2\n");
	fprintf(f, "\nTotals:\n    Hits: 105\n    Entries: 4\n    Dropped: 0\n\n");
	section(f, "wqrtctl_7_lat1", "wq,function.sym,lat.buckets=10");
	fprintf(f, TTY "lat: ~ 4560-4569 } hitcount:          1\n");
	fprintf(f, "\nTotals:\n    Hits: 1\n    Entries: 1\n    Dropped: 2\n\n");
	section(f, "wqrtctl_7_lat2", "wq,function.sym,lat.buckets=100");
	section(f, "wqrtctl_7_lat3", "wq,function.sym,lat.buckets=1000");
	section(f, "wqrtctl_7_lat4", "wq,function.sym,lat.buckets=10000");
	section(f, "wqrtctl_7_latall", "wq,function.sym");
	fprintf(f, TTY "} hitcount:        100  lat:       6549\n");
	fprintf(f, EVT "} hitcount:          4  lat:         20\n");
	fprintf(f, EVT2 "} hitcount:          2  lat:         14\n");
	section(f, "wqrtctl_7_over", "wq,function.sym");
	fprintf(f, TTY "} hitcount:          1\n");
	fclose(f);
	return text;
}

static char *run_text(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int i;

	for (i = 0; i < 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "wqrtctl_7_run%d", i);
		section(f, name, "wq,function.sym,run");
		if (!i)
			fprintf(f, TTY "run:          3 } hitcount:        100\n");
	}
	fclose(f);
	return text;
}

static void test_fold_rows(void **state)
{
	struct lat_sel sel = { .has_deadline = true, .deadline_us = 1000 };
	struct lat_result r = { 0 };
	char *lat = lat_text(), *run = run_text();
	char why[512];

	(void)state;
	assert_int_equal(lat_fold("wqrtctl_7_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 0);
	/* by workqueue: events' two functions in one row; largest first */
	assert_int_equal(r.n, 2);
	assert_string_equal(r.rows[0].wq, "ttyS-serial_8250");
	assert_string_equal(r.rows[0].func, "");
	assert_int_equal(r.rows[0].count, 100);
	assert_int_equal(r.rows[0].lat.count, 100);
	assert_int_equal(lat_quantile(&r.rows[0].lat, 0.5), 10);
	assert_int_equal(lat_quantile(&r.rows[0].lat, 0.99), 999);
	assert_int_equal(lat_max(&r.rows[0].lat), 4560);
	assert_int_equal(r.rows[0].over, 1);
	assert_int_equal(lat_quantile(&r.rows[0].run, 0.99), 3);
	assert_string_equal(r.rows[1].wq, "events");
	assert_int_equal(r.rows[1].count, 6);
	assert_int_equal(r.dropped, 2);
	lat_result_free(&r);
	/* by function: one row each */
	sel.by_function = true;
	assert_int_equal(lat_fold("wqrtctl_7_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.rows[0].func, "flush_to_ldisc");
	assert_string_equal(r.rows[1].func, "vmstat_update");
	assert_string_equal(r.rows[2].func, "kfree_rcu_work");
	lat_result_free(&r);
	/* a histogram that is not there is an error, not an empty row */
	assert_int_equal(lat_fold("wqrtctl_8_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "wqrtctl_8_lat0"));
	lat_result_free(&r);
	free(lat);
	free(run);
}

/*
 * A work queued again while its start was recorded: the u64 difference is
 * negative and lands in the top tier, its bucket's end wrapped past zero
 * (as a TCG guest printed it). Counted, at 0 us; never over the deadline.
 */
static void test_negative_difference(void **state)
{
	struct lat_sel sel = { .has_deadline = true, .deadline_us = 1000 };
	struct lat_result r = { 0 };
	char *lat = NULL, *run = run_text();
	size_t len = 0;
	char why[512];
	FILE *f = open_memstream(&lat, &len);
	int i;

	(void)state;
	for (i = 0; i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "wqrtctl_7_lat%d", i);
		section(f, name, "wq,function.sym,lat");
		if (!i)
			fprintf(f, TTY "lat:         10 } hitcount:         93\n");
	}
	section(f, "wqrtctl_7_lat4", "wq,function.sym,lat.buckets=10000");
	fprintf(f, TTY "lat: ~ 18446744073709550000-8383 } hitcount:          7\n");
	section(f, "wqrtctl_7_latall", "wq,function.sym");
	fprintf(f, TTY "} hitcount:        100  lat:        930\n");
	section(f, "wqrtctl_7_over", "wq,function.sym");
	fclose(f);
	assert_int_equal(lat_fold("wqrtctl_7_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 0);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.rows[0].count, 100);
	assert_int_equal(r.rows[0].lat.count, 100);
	assert_int_equal(lat_max(&r.rows[0].lat), 10);
	assert_int_equal(lat_quantile(&r.rows[0].lat, 0.05), 0);
	assert_int_equal(r.rows[0].over, 0);
	lat_result_free(&r);
	free(lat);
	free(run);
}

/*
 * The starts counted on their own: a row whose function is on one
 * workqueue gets the starts no queueing matched; one on two gets nothing
 * it cannot attribute; the JSON mean is over the matched starts only.
 */
static void test_fold_starts(void **state)
{
	struct lat_sel sel = { .by_function = true };
	struct lat_result r = { 0 };
	char *lat = lat_text(), *run = run_text(), *starts = NULL, *out = NULL;
	size_t len = 0, olen = 0;
	char why[512];
	FILE *f = open_memstream(&starts, &len);

	(void)state;
	section(f, "wqrtctl_7_whatever", "work");
	fprintf(f, "{ work: ffff888003c4a000 } hitcount:        999\n");
	section(f, "wqrtctl_7_starts", "function.sym");
	fprintf(f, "{ function: [ffffffff8149f6a0] flush_to_ldisc                                } hitcount:        105\n");
	fprintf(f, "{ function: [ffffffff81111110] vmstat_update                                 } hitcount:          4\n");
	fprintf(f, "{ function: [ffffffff81111330] never_matched                                 } hitcount:          9\n");
	fclose(f);
	assert_int_equal(lat_fold("wqrtctl_7_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 0);
	assert_int_equal(lat_fold_starts("wqrtctl_7_", starts, &r, why,
					 sizeof(why)),
			 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.rows[0].func, "flush_to_ldisc");
	assert_int_equal(r.rows[0].count, 105);
	assert_int_equal(r.rows[0].unmatched, 5);
	/* the latencies are the matched starts' */
	assert_int_equal(r.rows[0].lat.count, 100);
	/* as many starts as matched: nothing unmatched */
	assert_string_equal(r.rows[1].func, "vmstat_update");
	assert_int_equal(r.rows[1].count, 4);
	assert_int_equal(r.rows[1].unmatched, 0);
	f = open_memstream(&out, &olen);
	lat_print_json(f, &r, &sel);
	fclose(f);
	/* 6549 us over the 100 matched starts */
	assert_non_null(strstr(out, "\"count\": 105, "));
	assert_non_null(strstr(out, "\"unmatched\": 5, \"mean_us\": 65.5,"));
	free(out);
	/* no starts histogram: said by name */
	assert_int_equal(lat_fold_starts("wqrtctl_8_", starts, &r, why,
					 sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "wqrtctl_8_starts"));
	lat_result_free(&r);
	free(lat);
	free(run);
	free(starts);
}

static void test_json(void **state)
{
	struct lat_sel sel = { .has_deadline = true, .deadline_us = 1000 };
	struct lat_result r = { 0 };
	char *lat = lat_text(), *run = run_text(), *out = NULL;
	char why[512];
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(lat_fold("wqrtctl_7_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 0);
	r.seconds = 5;
	f = open_memstream(&out, &len);
	lat_print_json(f, &r, &sel);
	fclose(f);
	assert_non_null(strstr(out, "{\"schema\": 1, \"seconds\": 5.0, \"by\": \"workqueue\", \"deadline_us\": 1000, \"dropped\": 2, \"rows\": ["));
	assert_non_null(strstr(
		out,
		"{\"workqueue\": \"ttyS-serial_8250\", \"count\": 100, \"p50_us\": 10, \"p99_us\": 999, \"p99_9_us\": 4560, \"max_us\": 4560, \"unmatched\": 0, \"mean_us\": 65.5, \"over_deadline\": 1, \"run_p50_us\": 3, \"run_p99_us\": 3, \"run_max_us\": 3, \"histogram\": [[0, 1, 0], [2, 3, 0], [4, 7, 0], [8, 15, 98]"));
	/* no function member when grouped by workqueue */
	assert_null(strstr(out, "\"function\""));
	free(out);
	out = NULL;
	/* by function, without a deadline: null, and the function named */
	lat_result_free(&r);
	sel.by_function = true;
	sel.has_deadline = false;
	assert_int_equal(lat_fold("wqrtctl_7_", lat, run, &sel, &r, why,
				  sizeof(why)),
			 0);
	f = open_memstream(&out, &len);
	lat_print_json(f, &r, &sel);
	fclose(f);
	assert_non_null(strstr(out, "\"by\": \"function\", \"deadline_us\": null"));
	assert_non_null(strstr(out, "\"workqueue\": \"events\", \"function\": \"vmstat_update\", \"count\": 4"));
	assert_non_null(strstr(out, "\"over_deadline\": null"));
	/* a row with no run time: nulls, not zeros */
	assert_non_null(strstr(out, "\"run_p50_us\": null"));
	free(out);
	lat_result_free(&r);
	free(lat);
	free(run);
}

static void test_trace_check_names_missing_options(void **state)
{
	char dir[300], why[1024];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tracing", ft.root);
	/* nothing at all: the events first */
	mkdir(dir, 0755);
	assert_int_equal(trace_check(dir, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "CONFIG_EVENT_TRACING"));
	assert_non_null(strstr(why, "CONFIG_SYNTH_EVENTS"));
	/* the events, no synthetic events, no hist files */
	ft_write(&ft, "/tracing/events/workqueue/workqueue_queue_work/format",
		 "");
	assert_int_equal(trace_check(dir, why, sizeof(why)), -ENOTSUP);
	assert_null(strstr(why, "CONFIG_EVENT_TRACING"));
	assert_non_null(strstr(why, "this kernel lacks CONFIG_SYNTH_EVENTS ("));
	assert_non_null(strstr(why, ") and CONFIG_HIST_TRIGGERS ("));
	assert_non_null(strstr(why, "need them (kernel/configs/board.config"));
	ft_write(&ft, "/tracing/synthetic_events", "");
	assert_int_equal(trace_check(dir, why, sizeof(why)), -ENOTSUP);
	assert_null(strstr(why, "CONFIG_SYNTH_EVENTS"));
	assert_non_null(strstr(why, "CONFIG_HIST_TRIGGERS"));
	ft_write(&ft, "/tracing/events/workqueue/workqueue_queue_work/hist",
		 "");
	assert_int_equal(trace_check(dir, why, sizeof(why)), 0);
}

static void test_hist_named(void **state)
{
	char *lat = lat_text();
	const char *p;
	size_t len;

	(void)state;
	p = trace_hist_named(lat, "wqrtctl_7_lat1", &len);
	assert_non_null(p);
	/* up to the next histogram only */
	assert_non_null(strstr(p, "4560-4569"));
	assert_true(strstr(p, "4560-4569") < p + len);
	assert_true(strstr(p, "wqrtctl_7_lat2") > p + len);
	/* a prefix of another name is not that name */
	assert_null(trace_hist_named(lat, "wqrtctl_7_lat", &len));
	free(lat);
	/* the bare form, hist:NAME:keys= */
	p = trace_hist_named("# trigger info: hist:wqrtctl_7_run0:keys=wq [active]\n",
			     "wqrtctl_7_run0", &len);
	assert_non_null(p);
	assert_null(trace_hist_named("# trigger info: hist:wqrtctl_7_run0:keys=wq [active]\n",
				     "wqrtctl_7_run", &len));
}

static void test_parse_seconds(void **state)
{
	double s;

	(void)state;
	assert_int_equal(parse_seconds("5", &s), 0);
	assert_true(s == 5);
	assert_int_equal(parse_seconds("0.5", &s), 0);
	assert_int_equal(parse_seconds("0", &s), -EINVAL);
	assert_int_equal(parse_seconds("-1", &s), -EINVAL);
	assert_int_equal(parse_seconds("5s", &s), -EINVAL);
	assert_int_equal(parse_seconds("nan", &s), -EINVAL);
	assert_int_equal(parse_seconds("1e9", &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_select_sorts_operands,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_select_rejects_unknown,
						setup, teardown),
		cmocka_unit_test(test_fold_rows),
		cmocka_unit_test(test_negative_difference),
		cmocka_unit_test(test_fold_starts),
		cmocka_unit_test(test_json),
		cmocka_unit_test_setup_teardown(
			test_trace_check_names_missing_options, setup,
			teardown),
		cmocka_unit_test(test_hist_named),
		cmocka_unit_test(test_parse_seconds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
