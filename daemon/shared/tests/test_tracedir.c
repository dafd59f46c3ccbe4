// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a killed wqrtctl leaves in tracefs, and taking it out (issue
 * 46.4), on a fake tracing directory with tracefs's manners: a trigger
 * or event taken out by writing it with '!', an event busy while a
 * trigger names it, an instance gone with its files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faketree.h"
#include "tracedir.h"

static struct faketree ft;
static struct fake_ops fo;
static char dir[300];
static struct strlist errs;
/* no process has it: above any pid_max */
#define GONE 0x3ffffff0

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	snprintf(dir, sizeof(dir), "%s", ft_tracefs(&ft));
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	/* what was said, for a test that failed */
	for (i = 0; i < errs.n; i++)
		fprintf(stderr, "  said: %s\n", errs.v[i]);
	strlist_free(&errs);
	ft_ops_cleanup(&fo, &ft);
	return 0;
}

static bool instance_there(pid_t pid)
{
	char path[400];
	struct stat st;

	snprintf(path, sizeof(path), "%s/instances/wqrtctl-%d", dir, (int)pid);
	return !stat(path, &st);
}

/* The synthetic events of pid still listed */
static int synths_of(pid_t pid)
{
	char path[400], want[64], *text, *p;
	int n = 0;

	snprintf(path, sizeof(path), "%s/synthetic_events", dir);
	snprintf(want, sizeof(want), "wqrtctl_%d_", (int)pid);
	if (read_text_alloc(path, &text))
		return -1;
	for (p = text; (p = strstr(p, want)); p++)
		n++;
	free(text);
	return n;
}

/* A process called wqrtctl, alive until killed */
static pid_t live_wqrtctl(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "wqrtctl");
		pause();
		_exit(0);
	}
	assert_true(pid > 0);
	/* until it has its name */
	for (int i = 0; i < 500 && !tracedir_owner_alive(pid); i++)
		usleep(2000);
	assert_true(tracedir_owner_alive(pid));
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_owner(void **state)
{
	(void)state;
	assert_int_equal(tracedir_owner("wqrtctl-123"), 123);
	assert_int_equal(tracedir_owner("wqrtctl_123_lat"), 123);
	assert_int_equal(tracedir_owner("wqrtctl_123_"), 123);
	assert_int_equal(tracedir_owner("wqrtctl-12x"), 0);
	assert_int_equal(tracedir_owner("wqrtctl_123"), 0);
	assert_int_equal(tracedir_owner("wqrtctl-123_lat"), 0);
	assert_int_equal(tracedir_owner("wqrtctlx-1"), 0);
	assert_int_equal(tracedir_owner("wqrtctl-0"), 0);
	assert_int_equal(tracedir_owner("wqrtctl--5"), 0);
	assert_int_equal(tracedir_owner("wqrtctl-"), 0);
	assert_int_equal(tracedir_owner("wqrtctl-99999999999"), 0);
	assert_int_equal(tracedir_owner("rtla-123"), 0);
	assert_false(tracedir_owner_alive(GONE));
	assert_false(tracedir_owner_alive(getpid()));
}

static void test_find(void **state)
{
	char d[400], want[400];

	(void)state;
	assert_int_equal(tracedir_find(ft.root, d, sizeof(d)), 0);
	assert_string_equal(d, dir);
	snprintf(want, sizeof(want), "%s/instances", dir);
	rmdir(want);
	assert_int_equal(tracedir_find(ft.root, d, sizeof(d)), -ENOENT);
	ft_write(&ft, "/sys/kernel/debug/tracing/instances/x", "");
	assert_int_equal(tracedir_find(ft.root, d, sizeof(d)), 0);
	snprintf(want, sizeof(want), "%s/sys/kernel/debug/tracing", ft.root);
	assert_string_equal(d, want);
}

/* A dead wqrtctl's instance, triggers and events: all taken out */
static void test_clean_dead_owner(void **state)
{
	int removed;

	(void)state;
	ft_trace_leak(&ft, GONE);
	assert_true(instance_there(GONE));
	assert_int_equal(synths_of(GONE), 2);
	assert_int_equal(tracedir_clean(&fo.ops, dir, 0, &removed, &errs), 0);
	assert_int_equal(errs.n, 0);
	/* the instance, the two synthetic events */
	assert_int_equal(removed, 3);
	assert_false(instance_there(GONE));
	assert_int_equal(synths_of(GONE), 0);
	/* nothing left: nothing to do */
	fo.trace_writes = 0;
	assert_int_equal(tracedir_clean(&fo.ops, dir, 0, &removed, &errs), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(fo.trace_writes, 0);
}

/* A live wqrtctl's stay; what a pid's earlier process left goes */
static void test_clean_keeps_live_owner(void **state)
{
	pid_t live = live_wqrtctl();
	int removed;

	(void)state;
	ft_trace_leak(&ft, live);
	ft_trace_leak(&ft, GONE);
	assert_int_equal(tracedir_clean(&fo.ops, dir, 0, &removed, &errs), 0);
	assert_true(instance_there(live));
	assert_int_equal(synths_of(live), 2);
	assert_false(instance_there(GONE));
	/* the live one is self: the pid was an earlier process's */
	assert_int_equal(tracedir_clean(&fo.ops, dir, live, &removed, &errs),
			 0);
	assert_int_equal(removed, 3);
	assert_false(instance_there(live));
	assert_int_equal(synths_of(live), 0);
	reap(live);
}

/* A session's own: its instance and the events of its prefix only */
static void test_remove_session(void **state)
{
	char prefix[64], name[64];

	(void)state;
	ft_trace_leak(&ft, 4242);
	ft_trace_leak(&ft, 4243);
	snprintf(name, sizeof(name), "wqrtctl-%d", 4242);
	snprintf(prefix, sizeof(prefix), "wqrtctl_%d_", 4242);
	assert_int_equal(tracedir_remove(&fo.ops, dir, name, prefix, &errs), 0);
	assert_false(instance_there(4242));
	assert_int_equal(synths_of(4242), 0);
	assert_true(instance_there(4243));
	assert_int_equal(synths_of(4243), 2);
}

/*
 * A trigger that cannot be taken out is said with its path, and so is
 * the event it keeps busy; the count says so.
 */
static void test_failures_named(void **state)
{
	char path[700];
	int removed;

	(void)state;
	ft_trace_leak(&ft, GONE);
	fo.fail_trace_err = -EINVAL;
	fo.fail_trace = "/synthetic/wqrtctl_1073741808_lat/trigger";
	assert_int_equal(tracedir_clean(&fo.ops, dir, 0, &removed, &errs), 1);
	snprintf(path, sizeof(path),
		 "%s/instances/wqrtctl-%d/events/synthetic/wqrtctl_%d_lat/trigger: cannot remove the trigger 'hist:name=wqrtctl_%d_lat0:",
		 dir, GONE, GONE, GONE);
	assert_non_null(errs.n ? strstr(errs.v[0], path) : NULL);
	/* the instance went (its files with it), the event then too */
	assert_false(instance_there(GONE));
	strlist_free(&errs);
	/* an instance that cannot be removed */
	ft_trace_leak(&ft, GONE);
	fo.fail_trace = "/instances/wqrtctl-1073741808";
	fo.fail_trace_err = -EBUSY;
	assert_int_equal(tracedir_clean(&fo.ops, dir, 0, &removed, &errs), 1);
	snprintf(path, sizeof(path),
		 "%s/instances/wqrtctl-%d: cannot remove the tracefs instance: Device or resource busy",
		 dir, GONE);
	assert_string_equal(errs.v[0], path);
	/* its triggers went: no longer busy, the events go */
	assert_true(instance_there(GONE));
	assert_int_equal(synths_of(GONE), 0);
	assert_int_equal(removed, 2);
	/* an event a trigger still names is busy: said, with the path */
	strlist_free(&errs);
	fo.fail_trace = NULL;
	tracedir_clean(&fo.ops, dir, 0, &removed, &errs);
	ft_trace_leak(&ft, GONE);
	snprintf(path, sizeof(path),
		 "/sys/kernel/tracing/events/workqueue/workqueue_execute_end/trigger");
	ft_write(&ft, path, "hist:keys=work:onmatch(x).trace(wqrtctl_1073741808_lat,$y)\n");
	assert_int_equal(tracedir_clean(&fo.ops, dir, 0, &removed, &errs), 1);
	snprintf(path, sizeof(path),
		 "%s/synthetic_events: cannot remove the synthetic event wqrtctl_%d_lat: Device or resource busy",
		 dir, GONE);
	assert_string_equal(errs.v[0], path);
	assert_int_equal(synths_of(GONE), 1);
	strlist_free(&errs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_owner),
		T(test_find),
		T(test_clean_dead_owner),
		T(test_clean_keeps_live_owner),
		T(test_remove_session),
		T(test_failures_named),
#undef T
	};

	return cmocka_run_group_tests_name("tracedir", tests, NULL, NULL);
}
