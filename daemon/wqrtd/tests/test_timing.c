// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtd --timing: the fork -> verified lines (timing.c) on a memstream and
 * a fake clock, and the daemon telling who it judged (kw_judged) on a
 * fake tree without the series, where [kworker:] rules are the only way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "daemon.h"
#include "faketree.h"
#include "timing.h"

static char *buf;
static size_t len;
static FILE *mem;
static struct timing tm;
static uint64_t clock_ns;

static uint64_t fake_now(void)
{
	return clock_ns;
}

static int setup(void **state)
{
	(void)state;
	buf = NULL;
	len = 0;
	mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	assert_int_equal(timing_init(&tm, mem), 0);
	tm.now_ns = fake_now;
	clock_ns = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	timing_close(&tm);
	fclose(mem);
	free(buf);
	return 0;
}

static const char *out(void)
{
	fflush(mem);
	return buf ? buf : "";
}

static void test_fork_to_verified_line(void **state)
{
	(void)state;
	timing_fork(&tm, 300, 1000);
	timing_fork(&tm, 301, 2000);
	clock_ns = 15000;
	timing_done(&tm, 301, "kworker/R-wqs1", 1);
	clock_ns = 16000;
	timing_done(&tm, 300, "kworker/u5:3", 0);
	assert_string_equal(out(), "301 2000 15000 set kworker/R-wqs1\n"
				   "300 1000 16000 ok kworker/u5:3\n");
	assert_int_equal(tm.lines, 2);
	/* once per fork: the periodic rescan judges it again, no line */
	timing_done(&tm, 301, "kworker/R-wqs1", 0);
	assert_int_equal(tm.lines, 2);
}

static void test_unknown_failed_and_exited(void **state)
{
	(void)state;
	/* forked before wqrtd listened */
	timing_done(&tm, 42, "kworker/0:1", 1);
	/* a failure is no verification: kept for the next try */
	timing_fork(&tm, 310, 500);
	timing_done(&tm, 310, "kworker/R-wqs2", -EPERM);
	assert_string_equal(out(), "");
	clock_ns = 900;
	timing_done(&tm, 310, "kworker/R-wqs2", 1);
	assert_string_equal(out(), "310 500 900 set kworker/R-wqs2\n");
	/* gone while being set: said so */
	timing_fork(&tm, 311, 600);
	timing_done(&tm, 311, "kworker/R-wqs3", -ESRCH);
	assert_non_null(strstr(out(), "311 600 900 gone kworker/R-wqs3\n"));
	/* exited before it was judged: forgotten, its pid may come back */
	timing_fork(&tm, 312, 700);
	timing_exit(&tm, 312);
	timing_done(&tm, 312, "kworker/R-wqs4", 1);
	assert_null(strstr(out(), "312 "));
	timing_fork(&tm, 312, 800);
	timing_done(&tm, 312, "kworker/R-wqs5", 1);
	assert_non_null(strstr(out(), "312 800 900 set kworker/R-wqs5\n"));
}

/* The ring keeps the last TIMING_MAX forks; older ones are forgotten */
static void test_ring_bounded(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < TIMING_MAX + 10; i++)
		timing_fork(&tm, 1000 + i, i);
	assert_int_equal(tm.forgotten, 10);
	timing_done(&tm, 1000, "kworker/R-a", 1);
	timing_done(&tm, 1009, "kworker/R-a", 1);
	assert_string_equal(out(), "");
	clock_ns = 99999;
	timing_done(&tm, 1010, "kworker/R-b", 1);
	timing_done(&tm, 1000 + TIMING_MAX + 9, "kworker/R-c", 0);
	assert_int_equal(tm.lines, 2);
	/* holes left by exits are reused, not counted as forgotten */
	for (i = 0; i < 2 * TIMING_MAX; i++) {
		timing_fork(&tm, 20000 + i, i);
		timing_exit(&tm, 20000 + i);
	}
	timing_fork(&tm, 7, 1);
	timing_done(&tm, 7, "kworker/R-d", 1);
	assert_int_equal(tm.lines, 3);
}

/* The same pid forked again without an EXIT (events lost): the new fork */
static void test_pid_again_without_exit(void **state)
{
	(void)state;
	timing_fork(&tm, 400, 10);
	timing_fork(&tm, 400, 20);
	clock_ns = 30;
	timing_done(&tm, 400, "kworker/R-x", 1);
	timing_done(&tm, 400, "kworker/R-x", 1);
	assert_string_equal(out(), "400 20 30 set kworker/R-x\n");
}

static void test_off_costs_nothing(void **state)
{
	struct timing off = { 0 };

	(void)state;
	assert_false(timing_on(&off));
	timing_fork(&off, 1, 2);
	timing_done(&off, 1, "kworker/R-x", 1);
	timing_exit(&off, 1);
	assert_null(off.v);
	timing_close(&off);
}

/* The daemon's side: kw_judged for each kworker a rule covers */
static struct faketree ft;
static struct fake_ops fo;
static struct daemon d;
static pid_t j_pid[16];
static int j_res[16];
static int nj;

static void on_judged(void *arg, pid_t pid, const char *comm, int result)
{
	(void)arg, (void)comm;
	if (nj < 16) {
		j_pid[nj] = pid;
		j_res[nj++] = result;
	}
}

static int setup_daemon(void **state)
{
	struct strlist errs = { 0 };
	struct config *c;

	(void)state;
	nj = 0;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	ft_capture_logs();
	ft_clear_logs();
	/* the plain kernel: no policy attribute */
	ft_wq(&ft, "wqs1", false);
	ft_task(&ft, 100, 2, "kworker/R-wqs1", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 101, 2, "kworker/0:1", SCHED_OTHER, 0, 0, 2);
	assert_int_equal(config_load(ft_conf(&ft, "[kworker:kworker/R-wqs*]\n"
						  "policy = fifo\nrtprio = 30\n"),
				     ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
	d.kw_judged = on_judged;
	return 0;
}

static int teardown_daemon(void **state)
{
	(void)state;
	daemon_free(&d);
	ft_ops_cleanup(&fo, &ft);
	return 0;
}

static void test_daemon_tells_judged(void **state)
{
	(void)state;
	/* a scan's batch: written after the pass, told then; 101 no rule */
	assert_int_equal(daemon_scan(&d), 0);
	assert_int_equal(nj, 1);
	assert_int_equal(j_pid[0], 100);
	assert_int_equal(j_res[0], 1);
	/* a new kworker from a FORK: set and read back */
	ft_task(&ft, 102, 2, "kworker/R-wqs2", SCHED_OTHER, 0, 0, 3);
	daemon_task_new(&d, 102);
	assert_int_equal(nj, 2);
	assert_int_equal(j_pid[1], 102);
	assert_int_equal(j_res[1], 1);
	/* one born with the policy: read back, already so */
	ft_task(&ft, 103, 2, "kworker/R-wqs3", SCHED_FIFO, 30, 0, 4);
	daemon_task_new(&d, 103);
	assert_int_equal(nj, 3);
	assert_int_equal(j_pid[2], 103);
	assert_int_equal(j_res[2], 0);
	/* a kworker no rule covers is nobody's business */
	ft_task(&ft, 104, 2, "kworker/1:2", SCHED_OTHER, 0, 0, 5);
	daemon_task_new(&d, 104);
	assert_int_equal(nj, 3);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define TD(f) cmocka_unit_test_setup_teardown(f, setup_daemon, teardown_daemon)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fork_to_verified_line),
		T(test_unknown_failed_and_exited),
		T(test_ring_bounded),
		T(test_pid_again_without_exit),
		T(test_off_costs_nothing),
		TD(test_daemon_tells_judged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
