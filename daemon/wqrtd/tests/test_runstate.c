// SPDX-License-Identifier: GPL-2.0-only
/*
 * What wqrtd publishes for wqrtctl status (issue 17.7): the copy of the
 * configuration it holds, who holds it and since when, and what changed
 * on disk since.
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
#include <unistd.h>

#include "config.h"
#include "config_load.h"
#include "faketree.h"
#include "runstate.h"

static struct faketree ft;
static char dir[300];

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_capture_logs();
	ft_wq(&ft, "tty_flip", true);
	snprintf(dir, sizeof(dir), "%s/run/wqrtd", ft.root);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_clear_logs();
	ft_cleanup(&ft);
	return 0;
}

static struct config *load(const char *path)
{
	struct strlist errs = { 0 };
	struct config *c;

	assert_int_equal(config_load(path, ft.root, &c, &errs), 0);
	strlist_free(&errs);
	return c;
}

static void dropin(const char *name, const char *text)
{
	char rel[300], full[600];

	snprintf(rel, sizeof(rel), "/wqrt.conf.d/%s", name);
	ft_write(&ft, rel, text);
	snprintf(full, sizeof(full), "%s%s", ft.root, rel);
	assert_int_equal(chmod(full, 0644), 0);
}

static void test_publish_and_read(void **state)
{
	const char *path = ft_conf(&ft, "[wq:tty_flip]\nnice = -5\n");
	struct config *held, *c;
	struct runstate rs;
	unsigned int gen = 0;
	char want[600];

	(void)state;
	dropin("10-a.conf", "[wq:other]\nnice = 1\n");
	c = load(path);
	assert_int_equal(runstate_publish(dir, c, &gen), 0);
	assert_int_equal(gen, 1);
	assert_int_equal(runstate_read(dir, &rs), 0);
	assert_int_equal(rs.pid, getpid());
	assert_string_equal(rs.config, path);
	assert_true(rs.loaded > 0);
	assert_int_equal(rs.nfiles, 2);
	assert_string_equal(rs.files[0], path);
	snprintf(want, sizeof(want), "%s/config.1/wqrt.conf", dir);
	assert_string_equal(rs.snapshot, want);
	/* the copy is the same configuration, drop-in included */
	held = load(rs.snapshot);
	assert_int_equal(held->nrules, 2);
	assert_string_equal(held->rules[1].section, "wq:other");
	assert_false(runstate_changed(&rs, held, &(struct strlist){ 0 }));
	config_free(held);
	runstate_free(&rs);

	/* a reload: a new copy, the old one gone */
	assert_int_equal(runstate_publish(dir, c, &gen), 0);
	assert_int_equal(gen, 2);
	snprintf(want, sizeof(want), "%s/config.1", dir);
	assert_int_equal(access(want, F_OK), -1);
	snprintf(want, sizeof(want), "%s/config.2/wqrt.conf.d/10-a.conf", dir);
	assert_int_equal(access(want, F_OK), 0);

	/* at exit: nothing published any more, no copy left */
	runstate_clear(dir);
	assert_int_equal(runstate_read(dir, &rs), -ENOENT);
	snprintf(want, sizeof(want), "%s/config.2", dir);
	assert_int_equal(access(want, F_OK), -1);
	config_free(c);
}

/* Edited, added or removed since the daemon loaded it: said, by file */
static void test_changed_since(void **state)
{
	const char *path = ft_conf(&ft, "[wq:tty_flip]\nnice = -5\n");
	struct strlist changed = { 0 };
	struct config *held, *c;
	struct runstate rs;
	unsigned int gen = 0;
	char extra[600];

	(void)state;
	c = load(path);
	assert_int_equal(runstate_publish(dir, c, &gen), 0);
	config_free(c);
	assert_int_equal(runstate_read(dir, &rs), 0);
	held = load(rs.snapshot);
	ft_conf(&ft, "[wq:tty_flip]\nnice = -6\n");
	assert_true(runstate_changed(&rs, held, &changed));
	assert_int_equal(changed.n, 1);
	assert_string_equal(changed.v[0], path);
	strlist_free(&changed);
	ft_conf(&ft, "[wq:tty_flip]\nnice = -5\n");
	assert_false(runstate_changed(&rs, held, &changed));
	dropin("50-new.conf", "[wq:x]\nnice = 1\n");
	assert_true(runstate_changed(&rs, held, &changed));
	snprintf(extra, sizeof(extra), "%s/wqrt.conf.d/50-new.conf", ft.root);
	assert_string_equal(changed.v[0], extra);
	strlist_free(&changed);
	unlink(extra);
	config_free(held);
	runstate_free(&rs);
	runstate_clear(dir);
}

/* A daemon that crashed left its file: it does not run */
static void test_stale(void **state)
{
	char rel[600];

	(void)state;
	snprintf(rel, sizeof(rel), "/run/wqrtd/" RUNSTATE_FILE);
	/* our own pid, but another start time: pid reuse */
	{
		char text[300];
		struct runstate rs;

		snprintf(
			text, sizeof(text),
			"pid=%d\nstart=1\nloaded=1\nconfig=/etc/wqrt.conf\nsnapshot=/x\n",
			(int)getpid());
		ft_write(&ft, rel, text);
		assert_int_equal(runstate_read(dir, &rs), -ESRCH);
		runstate_free(&rs);
		ft_write(&ft, rel, "pid=x\n");
		assert_int_equal(runstate_read(dir, &rs), -EINVAL);
		runstate_free(&rs);
	}
	snprintf(rel, sizeof(rel), "%s/run/wqrtd/" RUNSTATE_FILE, ft.root);
	unlink(rel);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_publish_and_read),
		cmocka_unit_test(test_changed_since),
		cmocka_unit_test(test_stale),
	};

	return cmocka_run_group_tests_name("runstate", tests, setup, teardown);
}
