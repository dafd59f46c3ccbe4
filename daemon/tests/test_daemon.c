// SPDX-License-Identifier: GPL-2.0-only
/* The daemon core on a fake tree: scans, new tasks, reload, restore. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "faketree.h"

static struct faketree ft;
static struct fake_ops fo;
static struct daemon d;

static const char *conf_rt = "[profile:rt]\npolicy = fifo\nrtprio = 50\n"
			     "nr_idle_extra = 2\n"
			     "[wq:tty_flip]\nprofile = rt\nrtprio = 20\n"
			     "[wq:gpu*]\nnice = -5\n";

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	ft_capture_logs();
	ft_clear_logs();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	daemon_free(&d);
	strlist_free(&fo.writes);
	ft_clear_logs();
	ft_cleanup(&ft);
	return 0;
}

static void start(const char *conf)
{
	struct strlist errs = { 0 };
	struct config *c;

	assert_int_equal(config_load(ft_conf(&ft, conf), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
}

static struct sched_val sched_of(pid_t pid)
{
	struct sched_val v = { -1, -1, -1 };

	fo.ops.sched_get(fo.ops.ctx, pid, &v);
	return v;
}

static void series_tree(void)
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

static void test_scan_sysfs_mode(void **state)
{
	(void)state;
	series_tree();
	start(conf_rt);
	assert_true(d.sysfs_mode);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "20");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "2");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "-5");
	assert_string_equal(ft_get(&ft, "events_unbound", "policy"), "normal");
	/* the pools' workers and the (truncated) rescuer are in line */
	assert_int_equal(sched_of(100).policy, SCHED_FIFO);
	assert_int_equal(sched_of(100).rtprio, 20);
	assert_int_equal(sched_of(101).policy, SCHED_FIFO);
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	/* another pool, and a user process named like a kworker: untouched */
	assert_int_equal(sched_of(103).policy, SCHED_OTHER);
	assert_int_equal(sched_of(104).policy, SCHED_OTHER);
	assert_int_equal(d.nwqs, 2);
	assert_int_equal(d.nkws, 3);
}

static void test_scan_fallback_mode(void **state)
{
	(void)state;
	ft_wq(&ft, "tty_flip", false);
	ft_task(&ft, 102, 2, "kworker/R-tty_f", SCHED_OTHER, 0, 0, 3);
	ft_task(&ft, 105, 2, "kworker/u3:0", SCHED_OTHER, 0, 0, 6);
	ft_task(&ft, 106, 2, "kworker/1:0H", SCHED_OTHER, 0, -20, 7);
	start("[wq:tty_flip]\npolicy = fifo\nrtprio = 20\nnice = -1\n"
	      "[kworker:kworker/u*]\npolicy = rr\nrtprio = 5\n");
	assert_false(d.sysfs_mode);
	assert_int_equal(daemon_scan(&d), 0);
	/* no policy attribute: no write; the rescuer gets it directly */
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "-1");
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "(missing)");
	assert_false(ft_logged("no policy attribute"));
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	assert_int_equal(sched_of(102).rtprio, 20);
	assert_int_equal(sched_of(105).policy, SCHED_RR);
	assert_int_equal(sched_of(105).rtprio, 5);
	assert_int_equal(sched_of(106).policy, SCHED_OTHER);
}

static void test_one_failure_others_proceed(void **state)
{
	(void)state;
	series_tree();
	fo.fail_attr = "tty_flip/rtprio";
	fo.fail_err = -EINVAL;
	start(conf_rt);
	assert_int_equal(daemon_scan(&d), 1);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "-5");
	/* a workqueue that failed does not push its policy on its kworkers */
	assert_int_equal(sched_of(100).policy, SCHED_OTHER);
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
}

/*
 * Since 6.2 a kernel thread has its name from the fork on, but it still
 * resets its own policy to SCHED_NORMAL in kthread() before its first
 * sleep: a FORK handled at once was undone (wqrtd_kworker.sh failed 2 of
 * 3 runs). A named child of kthreadd that has not slept yet is unsettled.
 */
static void test_new_kthread_waits_for_its_policy_reset(void **state)
{
	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	ft_task(&ft, 210, 2, "kworker/u5:8", SCHED_OTHER, 0, 0, 70);
	ft_task_switches(&ft, 210, 0);
	assert_true(daemon_task_unsettled(&d, 210));
	/* through kthread()'s reset and asleep until its creator wakes it */
	ft_task_switches(&ft, 210, 1);
	assert_false(daemon_task_unsettled(&d, 210));
	daemon_task_new(&d, 210);
	assert_int_equal(sched_of(210).policy, SCHED_FIFO);
	/* a user process is never held back, whatever its switches */
	ft_task(&ft, 211, 1, "kworker/u5:9", SCHED_OTHER, 0, 0, 71);
	ft_task_switches(&ft, 211, 0);
	assert_false(daemon_task_unsettled(&d, 211));
}

static void test_new_kworker_and_pid_reuse(void **state)
{
	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	/* a FORK from kthreadd: new worker of pool 5 */
	ft_task(&ft, 200, 2, "kworker/u5:7", SCHED_OTHER, 0, 0, 50);
	daemon_task_new(&d, 200);
	assert_int_equal(sched_of(200).policy, SCHED_FIFO);
	/* kthreadd's child is still called kthreadd at FORK time */
	ft_task(&ft, 201, 2, "kthreadd", SCHED_OTHER, 0, 0, 51);
	assert_true(daemon_task_unsettled(&d, 201));
	daemon_task_new(&d, 201);
	assert_int_equal(sched_of(201).policy, SCHED_OTHER);
	/* named a moment later, without a COMM event: the retry finds it */
	ft_task(&ft, 201, 2, "kworker/u6:4", SCHED_OTHER, 0, 0, 51);
	assert_false(daemon_task_unsettled(&d, 201));
	daemon_task_new(&d, 201);
	assert_int_equal(sched_of(201).policy, SCHED_FIFO);
	/* pid 200 exits and comes back as another pool's worker */
	ft_task(&ft, 200, 2, "kworker/u2:3", SCHED_OTHER, 0, 0, 60);
	daemon_scan(&d);
	assert_int_equal(sched_of(200).policy, SCHED_OTHER);
}

static void test_new_workqueue(void **state)
{
	(void)state;
	start(conf_rt);
	daemon_scan(&d);
	assert_int_equal(d.nwqs, 0);
	/* module load: the workqueue and its rescuer appear */
	ft_wq(&ft, "tty_flip", true);
	ft_task(&ft, 102, 2, "kworker/R-tty_f", SCHED_OTHER, 0, 0, 3);
	assert_int_equal(daemon_wq_added(&d, "tty_flip"), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	assert_true(ft_logged("new workqueue tty_flip matches [wq:tty_flip]"));
	assert_int_equal(daemon_wq_added(&d, "unrelated"), 0);
	assert_int_equal(d.nwqs, 1);
}

static void test_rescuer_longest_name(void **state)
{
	(void)state;
	ft_wq(&ft, "nvme", true);
	ft_wq(&ft, "nvme-wq", true);
	ft_task(&ft, 300, 2, "kworker/R-nvme-wq", SCHED_OTHER, 0, 0, 9);
	start("[wq:nvme]\npolicy = fifo\nrtprio = 3\n"
	      "[wq:nvme-wq]\npolicy = fifo\nrtprio = 9\n");
	daemon_scan(&d);
	assert_int_equal(sched_of(300).rtprio, 9);
}

static void test_reload_good_applies_diff(void **state)
{
	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	ft_clear_logs();
	/* gpu* is dropped, tty_flip loses nr_idle_extra and changes rtprio */
	ft_conf(&ft, "[wq:tty_flip]\npolicy = fifo\nrtprio = 30\n");
	assert_int_equal(
		daemon_reload(
			&d,
			ft_conf(&ft,
				"[wq:tty_flip]\npolicy = fifo\nrtprio = 30\n")),
		0);
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "0");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "30");
	assert_int_equal(sched_of(102).rtprio, 30);
	assert_int_equal(d.nwqs, 1);
	/* and at exit the originals come back */
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "0");
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
}

static void test_reload_bad_keeps_old(void **state)
{
	struct config *before;

	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	before = d.cfg;
	strlist_free(&fo.writes);
	assert_int_equal(
		daemon_reload(&d, ft_conf(&ft, "[wq:tty_flip]\nrtpri = 30\n")),
		1);
	assert_ptr_equal(d.cfg, before);
	assert_string_equal(ft_writes(&fo), "");
	assert_true(
		ft_logged("rtpri = 30: unknown key (did you mean `rtprio`?)"));
	assert_true(
		ft_logged("has 1 error(s); the old profiles stay in force"));
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "20");
	/* the old profiles are still enforced on the next scan */
	ft_set(&ft, "tty_flip", "rtprio", "1");
	daemon_scan(&d);
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "20");
}

static void test_restore_all(void **state)
{
	(void)state;
	series_tree();
	ft_set(&ft, "gpu_submit", "nice", "7");
	start(conf_rt);
	daemon_scan(&d);
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "7");
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_int_equal(d.nwqs, 0);
	assert_int_equal(d.nkws, 0);
}

/*
 * The watchdog restarts a hung wqrtd: the new instance finds the profile
 * already in sysfs, and must still put the values from before the first
 * instance back on stop, from the originals file the first one kept.
 */
static void test_restart_keeps_originals(void **state)
{
	char path[300];
	struct strlist errs = { 0 };
	struct config *c;

	(void)state;
	series_tree();
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	start(conf_rt);
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_int_equal(access(path, F_OK), 0);
	/* the first instance dies without restoring anything */
	daemon_free(&d);

	assert_int_equal(config_load(ft_conf(&ft, conf_rt), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_true(ft_logged("originals of 2 workqueue(s)"));
	assert_int_equal(daemon_scan(&d), 0);
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "0");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "0");
	/* all put back: nothing left for a next instance */
	assert_int_equal(access(path, F_OK), -1);
}

/* EBUSY: no failure, tried again on the next scan, which succeeds */
static void test_transient_error_retried(void **state)
{
	(void)state;
	series_tree();
	fo.fail_attr = "gpu_submit/nice";
	fo.fail_err = -EBUSY;
	start(conf_rt);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "0");
	assert_false(ft_logged("error: "));
	assert_true(ft_logged("again on the next scan"));
	fo.fail_attr = NULL;
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "-5");
}

/* A permanent error counts on every scan, and is logged once */
static void test_permanent_error_logged_once(void **state)
{
	(void)state;
	series_tree();
	fo.fail_attr = "gpu_submit/nice";
	fo.fail_err = -EINVAL;
	start(conf_rt);
	assert_int_equal(daemon_scan(&d), 1);
	assert_true(ft_logged(
		"error: gpu_submit: writing nice = -5: Invalid argument"));
	ft_clear_logs();
	assert_int_equal(daemon_scan(&d), 1);
	assert_false(ft_logged("error: "));
	fo.fail_attr = NULL;
	assert_int_equal(daemon_scan(&d), 0);
	fo.fail_attr = "gpu_submit/max_active";
	assert_int_equal(
		daemon_reload(&d, ft_conf(&ft, "[wq:gpu*]\nmax_active = 9\n")),
		0);
	/* a new error of the same workqueue is said again */
	assert_true(ft_logged("error: gpu_submit: writing max_active = 9"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_scan_sysfs_mode),
		T(test_scan_fallback_mode),
		T(test_one_failure_others_proceed),
		T(test_new_kworker_and_pid_reuse),
		T(test_new_kthread_waits_for_its_policy_reset),
		T(test_new_workqueue),
		T(test_rescuer_longest_name),
		T(test_reload_good_applies_diff),
		T(test_reload_bad_keeps_old),
		T(test_restore_all),
		T(test_restart_keeps_originals),
		T(test_transient_error_retried),
		T(test_permanent_error_logged_once),
#undef T
	};

	return cmocka_run_group_tests_name("daemon", tests, NULL, NULL);
}
