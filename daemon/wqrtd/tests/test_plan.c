// SPDX-License-Identifier: GPL-2.0-only
/* The plan: statuses, the --dry-run diff, wqrtctl's JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "daemon.h"
#include "faketree.h"

static struct faketree ft;
static struct fake_ops fo;

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	ft_capture_logs();
	ft_wq(&ft, "tty_flip", true);
	ft_readonly(&ft, "tty_flip", "max_active");
	ft_task(&ft, 102, 2, "kworker/R-tty_flip", SCHED_OTHER, 0, 0, 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_clear_logs();
	ft_cleanup(&ft);
	return 0;
}

/* Run a report over the fake tree; return what it printed (malloc'd). */
static char *run(enum report_style style, const char *conf, unsigned int *drift)
{
	struct strlist errs = { 0 };
	struct report rep = { .style = style };
	struct config *c;
	struct daemon d;
	size_t len;
	char *out;

	assert_int_equal(config_load(ft_conf(&ft, conf), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
	rep.f = open_memstream(&out, &len);
	daemon_report(&d, &rep);
	fclose(rep.f);
	daemon_free(&d);
	*drift = rep.drift;
	return out;
}

static void test_plan_statuses(void **state)
{
	struct settings target = { 0 };
	struct plan_item it[WA_NR];
	struct wq_state st;
	const char *why;

	(void)state;
	assert_int_equal(wq_read_state(ft.root, "tty_flip", &st), 0);
	attr_parse_conf(WA_NICE, "0", &target, &why);
	attr_parse_conf(WA_MAX_ACTIVE, "4", &target, &why);
	attr_parse_conf(WA_CPUMASK, "0-1", &target, &why);
	st.present &= ~WA_BIT(WA_CPUMASK);
	assert_int_equal(plan_attrs(&target, &st, it), 3);
	assert_int_equal(it[0].attr, WA_CPUMASK);
	assert_int_equal(it[0].status, PLAN_MISSING);
	assert_int_equal(it[1].attr, WA_MAX_ACTIVE);
	assert_int_equal(it[1].status, PLAN_READONLY);
	assert_string_equal(it[1].cur, "256");
	assert_string_equal(it[1].want, "4");
	assert_int_equal(it[2].status, PLAN_SAME);
}

static void test_dry_run_diff(void **state)
{
	unsigned int drift;
	char *out;

	(void)state;
	out = run(REPORT_DIFF,
		  "[profile:rt]\npolicy = fifo\nrtprio = 50\n"
		  "[wq:tty_flip]\nprofile = rt\ncpumask = 0-1\nnice = 0\n",
		  &drift);
	assert_string_equal(
		out, "@@ wq tty_flip: [wq:tty_flip], profile rt @@\n"
		     "-cpumask = 0-3\n+cpumask = 0-1\n"
		     " nice = 0\n"
		     "-policy = normal\n+policy = fifo\n"
		     "-rtprio = 0\n+rtprio = 50\n"
		     "@@ kworker/R-tty_flip (pid 102): rescuer of tty_flip @@\n"
		     "-policy = normal 0\n+policy = fifo 50\n");
	assert_int_equal(drift, 2);
	/* nothing was changed */
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_int_equal(fo.writes.n, 0);
	assert_int_equal(fo.sched_sets, 0);
	free(out);
}

static void test_status_json(void **state)
{
	unsigned int drift;
	char *out;

	(void)state;
	out = run(REPORT_JSON, "[wq:tty*]\nnice = -2\n", &drift);
	assert_string_equal(
		out,
		"{\"schema\": 1, \"workqueues\": [\n"
		"  {\"name\": \"tty_flip\", \"rule\": \"wq:tty*\", \"drift\": true, "
		"\"attributes\": {\"nice\": {\"desired\": -2, \"actual\": 0}}}\n"
		"], \"kworkers\": [\n], \"drift\": 1}\n");
	free(out);
	ft_set(&ft, "tty_flip", "nice", "-2");
	out = run(REPORT_JSON, "[wq:tty*]\nnice = -2\n", &drift);
	assert_int_equal(drift, 0);
	assert_non_null(strstr(out, "\"drift\": false"));
	free(out);
}

/* Issue 17.9: numbers as numbers, booleans as booleans, the rest strings */
static void test_status_json_typed(void **state)
{
	unsigned int drift;
	char *out;

	(void)state;
	out = run(
		REPORT_JSON,
		"[wq:tty_flip]\npolicy = fifo\nrtprio = 20\nprivate = yes\ncpumask = 0-1\n",
		&drift);
	assert_non_null(strstr(
		out,
		"\"private\": {\"desired\": true, \"actual\": false}, "
		"\"cpumask\": {\"desired\": \"0-1\", \"actual\": \"0-3\"}, "
		"\"policy\": {\"desired\": \"fifo\", \"actual\": \"normal\"}, "
		"\"rtprio\": {\"desired\": 20, \"actual\": 0}"));
	assert_non_null(strstr(
		out, "\"rtprio\": 0, \"nice\": 0, "
		     "\"desired_policy\": \"fifo\", \"desired_rtprio\": 20"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_plan_statuses),
		T(test_dry_run_diff),
		T(test_status_json),
		T(test_status_json_typed),
#undef T
	};

	return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
