/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the tests of the daemon core share (test_daemon.c, test_originals.c):
 * a fake tree, its system calls, a daemon on it, and the steps they start
 * from.
 */
#ifndef WQRT_DAEMON_FIXTURE_H
#define WQRT_DAEMON_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "config_load.h"
#include "daemon.h"
#include "faketree.h"
#include "log.h"

static struct faketree ft;
static struct fake_ops fo;
static struct daemon d;

static const char *conf_rt = "[profile:rt]\npolicy = fifo\nrtprio = 50\n"
			     "nr_idle_extra = 2\n"
			     "[wq:tty_flip]\nprofile = rt\nrtprio = 20\n"
			     "[wq:gpu*]\nnice = -5\n";

static inline int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	ft_capture_logs();
	ft_clear_logs();
	return 0;
}

static inline int teardown(void **state)
{
	(void)state;
	daemon_free(&d);
	ft_ops_cleanup(&fo, &ft);
	return 0;
}

static inline void start(const char *conf)
{
	struct strlist errs = { 0 };
	struct config *c;

	assert_int_equal(config_load(ft_conf(&ft, conf), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
}

static inline struct sched_val sched_of(pid_t pid)
{
	struct sched_val v = { -1, -1, -1, 0 };

	fo.ops.sched_get(fo.ops.ctx, pid, &v);
	return v;
}

static inline void series_tree(void)
{
	ft_wq(&ft, "tty_flip", true);
	ft_set(&ft, "tty_flip", "pool_ids", "0:5 1:6");
	ft_wq(&ft, "gpu_submit", true);
	ft_set(&ft, "gpu_submit", "pool_ids", "0:9");
	ft_wq(&ft, "events_unbound", true);
	ft_set(&ft, "events_unbound", "pool_ids", "0:2");
	ft_task(&ft, 100, 2, "kworker/u5:0", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 101, 2, "kworker/u6:1+tty_flip", SCHED_OTHER, 0, 0, 2);
	ft_task(&ft, 102, 2, "kworker/R-tty_f", SCHED_OTHER, 0, 0, 3);
	ft_task(&ft, 103, 2, "kworker/u2:0", SCHED_OTHER, 0, 0, 4);
	ft_task(&ft, 104, 1, "kworker/u5:9", SCHED_OTHER, 0, 0, 5);
}

/* series_tree(), conf_rt, originals kept in *path, a first scan */
static inline void start_saved(char *path, size_t size)
{
	series_tree();
	snprintf(path, size, "%s/originals", ft.root);
	start(conf_rt);
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
}

static inline const struct wq_track *wq_find_name(const struct daemon *dm,
					   const char *name)
{
	size_t i;

	for (i = 0; i < dm->nwqs; i++)
		if (!strcmp(dm->wqs[i].name, name))
			return &dm->wqs[i];
	return NULL;
}

static inline void restart(const char *conf, const char *path)
{
	struct strlist errs = { 0 };
	struct config *c;

	daemon_free(&d);
	assert_int_equal(config_load(ft_conf(&ft, conf), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
	assert_int_equal(daemon_use_state(&d, path), 0);
}

#endif
