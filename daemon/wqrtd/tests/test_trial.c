// SPDX-License-Identifier: GPL-2.0-only
/*
 * The trial of wqrtctl try (issue 46.1): a file that names its owner,
 * kept only while that process lives, one [wq:] section of given keys.
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
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faketree.h"
#include "task.h"
#include "trial.h"

static struct faketree ft;
static char dir[300];

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_write(&ft, "/run/wqrtd/.keep", "");
	snprintf(dir, sizeof(dir), "%s/run/wqrtd", ft.root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_cleanup(&ft);
	return 0;
}

static unsigned long long start_of(pid_t pid)
{
	struct task_info t;

	assert_int_equal(task_read("/", pid, &t), 0);
	return t.start;
}

/* A pid that was a process and is none now, with the start it had */
static pid_t dead_pid(unsigned long long *start)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	*start = start_of(pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return pid;
}

static void put(const char *name, const char *text)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "/run/wqrtd/%s", name);
	ft_write(&ft, rel, text);
}

static void rm(const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

static bool exists(const char *name)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !access(path, F_OK);
}

static void test_names(void **state)
{
	unsigned long long start;
	char buf[TRIAL_NAME_MAX];
	bool pending;
	pid_t pid;

	(void)state;
	trial_name(buf, sizeof(buf), 1234, 5678, false);
	assert_string_equal(buf, "trial-1234-5678.conf");
	assert_true(trial_parse_name(buf, &pid, &start, &pending));
	assert_int_equal(pid, 1234);
	assert_int_equal(start, 5678);
	assert_false(pending);
	trial_name(buf, sizeof(buf), 7, 0, true);
	assert_string_equal(buf, ".trial-7-0.conf");
	assert_true(trial_parse_name(buf, &pid, &start, &pending));
	assert_true(pending);
	/* one spelling only */
	assert_false(trial_parse_name("trial-01234-5678.conf", &pid, &start,
				      &pending));
	assert_false(
		trial_parse_name("trial-+1-5.conf", &pid, &start, &pending));
	assert_false(
		trial_parse_name("trial-1- 5.conf", &pid, &start, &pending));
	assert_false(
		trial_parse_name("trial-0-5.conf", &pid, &start, &pending));
	assert_false(
		trial_parse_name("trial-1-5.conf.new", &pid, &start, &pending));
	assert_false(trial_parse_name("trial-1.conf", &pid, &start, &pending));
	assert_false(trial_parse_name("trial-99999999999-1.conf", &pid, &start,
				      &pending));
	assert_false(trial_parse_name("originals", &pid, &start, &pending));
	assert_false(trial_parse_name(TRIAL_HELD, &pid, &start, &pending));
}

/*
 * A trial whose owner is gone (SIGKILL, OOM, a dropped session) is
 * removed at the next look; a live one is found; a pending one is never
 * in force, and removed with its owner too; a reused pid is not the owner
 */
static void test_scan_removes_the_dead(void **state)
{
	struct strlist removed = { 0 }, errors = { 0 };
	char live[TRIAL_NAME_MAX], mine[TRIAL_NAME_MAX], dead[TRIAL_NAME_MAX];
	char deadp[TRIAL_NAME_MAX], reused[TRIAL_NAME_MAX];
	unsigned long long start;
	pid_t pid, owner;

	(void)state;
	pid = dead_pid(&start);
	trial_name(dead, sizeof(dead), pid, start, false);
	trial_name(deadp, sizeof(deadp), pid, start, true);
	trial_name(mine, sizeof(mine), getpid(), start_of(getpid()), false);
	/* this very pid, another start: the pid was handed on */
	trial_name(reused, sizeof(reused), getpid(), start_of(getpid()) + 1,
		   false);
	put(dead, "[wq:a]\nnice = 1\n");
	put(deadp, "[wq:a]\nnice = 1\n");
	put(reused, "[wq:a]\nnice = 1\n");
	put("originals", "x\n");
	assert_int_equal(trial_scan(dir, live, sizeof(live), &owner, &removed,
				    &errors),
			 0);
	assert_string_equal(live, "");
	assert_int_equal(removed.n, 3);
	assert_int_equal(errors.n, 0);
	assert_false(exists(dead));
	assert_false(exists(deadp));
	assert_false(exists(reused));
	assert_true(exists("originals"));
	strlist_free(&removed);
	/* a live owner's: found, kept; its pending file is not in force */
	put(mine, "[wq:a]\nnice = 1\n");
	assert_int_equal(trial_scan(dir, live, sizeof(live), &owner, &removed,
				    &errors),
			 1);
	assert_string_equal(live, mine);
	assert_int_equal(owner, getpid());
	assert_true(exists(mine));
	assert_int_equal(removed.n, 0);
	rm(mine);
	trial_name(mine, sizeof(mine), getpid(), start_of(getpid()), true);
	put(mine, "[wq:a]\nnice = 1\n");
	assert_int_equal(trial_scan(dir, live, sizeof(live), &owner, &removed,
				    &errors),
			 0);
	assert_true(exists(mine));
	/* no directory: nothing */
	assert_int_equal(trial_scan("/nonexistent/wqrtd", live, sizeof(live),
				    &owner, &removed, &errors),
			 -ENOENT);
}

/*
 * A try SIGKILLed whose parent has not reaped it yet is a zombie: gone
 * (its /proc/PID/stat is still there, with its start time)
 */
static void test_zombie_owner_is_gone(void **state)
{
	struct strlist removed = { 0 }, errors = { 0 };
	char live[TRIAL_NAME_MAX], name[TRIAL_NAME_MAX];
	unsigned long long start;
	siginfo_t si;
	pid_t pid, owner;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		pause();
		_exit(0);
	}
	start = start_of(pid);
	kill(pid, SIGKILL);
	/* exited, not reaped */
	assert_int_equal(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	assert_false(trial_owner_alive(pid, start));
	trial_name(name, sizeof(name), pid, start, false);
	put(name, "[wq:a]\nnice = 1\n");
	assert_int_equal(trial_scan(dir, live, sizeof(live), &owner, &removed,
				    &errors),
			 0);
	assert_false(exists(name));
	strlist_free(&removed);
	waitpid(pid, NULL, 0);
}

static int load(const char *text, struct strlist *errors)
{
	char path[600];
	struct config *c;
	int n;

	put("trial-1-1.conf", text);
	snprintf(path, sizeof(path), "%s/trial-1-1.conf", dir);
	n = trial_load(path, ft.root, &c, errors);
	config_free(c);
	return n;
}

/* One [wq:NAME] of given keys; anything else is said and refused */
static void test_load(void **state)
{
	struct strlist errors = { 0 };
	size_t i;
	static const char *const bad[] = {
		"[wq:a*]\nnice = 1\n",
		"[wq:a]\nnice = 1\n[wq:b]\nnice = 1\n",
		"[kworker:kworker/u*]\nnice = 1\n",
		"[profile:p]\nnice = 1\n[wq:a]\nprofile = p\n",
		"[wq:a]\nrtpri = 5\n",
		"",
	};

	(void)state;
	assert_int_equal(
		load("; comment\n[wq:tty_flip]\npolicy = fifo\nrtprio = 20\n",
		     &errors),
		0);
	assert_int_equal(errors.n, 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(load(bad[i], &errors), 0);
		assert_true(errors.n > 0);
		assert_non_null(strstr(errors.v[0], "trial-1-1.conf"));
		strlist_free(&errors);
	}
}

/* Read alone: a drop-in directory beside it is not its (issue 46.5) */
static void test_load_reads_no_dropins(void **state)
{
	struct strlist errors = { 0 };

	(void)state;
	ft_write(&ft, "/run/wqrtd/trial-1-1.conf.d/x.conf",
		 "[wq:b]\nrtpri = 5\n");
	assert_int_equal(load("[wq:a]\nnice = 1\n", &errors), 0);
	assert_int_equal(errors.n, 0);
}

static void test_held(void **state)
{
	char buf[TRIAL_NAME_MAX + 8];

	(void)state;
	assert_int_equal(trial_held_read(dir, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(trial_held_write(dir, "trial-5-6.conf"), 0);
	assert_int_equal(trial_held_read(dir, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "trial-5-6.conf");
	assert_int_equal(trial_held_write(dir, NULL), 0);
	assert_int_equal(trial_held_read(dir, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(trial_held_write(dir, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_names),
		T(test_scan_removes_the_dead),
		T(test_zombie_owner_is_gone),
		T(test_load),
		T(test_load_reads_no_dropins),
		T(test_held),
#undef T
	};

	return cmocka_run_group_tests_name("trial", tests, NULL, NULL);
}
