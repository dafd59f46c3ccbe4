// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon core on a fake tree: scans, new tasks, reload, restore. What
 * becomes of the originals: test_originals.c.
 */
#include "daemon_fixture.h"
#include "trial.h"

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
	assert_int_equal(daemon_scan_kworkers(&d), 0);
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

/*
 * Issue 17.10: applying and restoring say so with their MESSAGE_ID=, and
 * name the kworker (OBJECT_PID=); a failure has its own id
 */
static void test_apply_restore_ids(void **state)
{
	(void)state;
	ft_wq(&ft, "tty_flip", true);
	ft_task(&ft, 102, 2, "kworker/R-tty_flip", SCHED_OTHER, 0, 0, 3);
	start("[wq:tty_flip]\npolicy = fifo\nrtprio = 20\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_true(ft_logged(
		"tty_flip: policy = fifo | MESSAGE_ID=" WQRT_MSGID_APPLIED));
	assert_true(ft_logged(
		"kworker/R-tty_flip (pid 102): normal 0 -> fifo 20 | MESSAGE_ID=" WQRT_MSGID_APPLIED
		" OBJECT_PID=102"));
	ft_clear_logs();
	assert_int_equal(daemon_restore(&d), 0);
	assert_true(ft_logged(
		"tty_flip: policy = normal | MESSAGE_ID=" WQRT_MSGID_RESTORED));
	assert_true(ft_logged(
		"kworker/R-tty_flip (pid 102): back to normal 0 | MESSAGE_ID=" WQRT_MSGID_RESTORED
		" OBJECT_PID=102"));
	/* a failing write: the failure id, with the kworker's pid */
	ft_clear_logs();
	fo.fail_pid = 102;
	fo.fail_sched_err = -EPERM;
	assert_int_equal(daemon_scan(&d), 1);
	assert_true(
		ft_logged("| MESSAGE_ID=" WQRT_MSGID_FAILED " OBJECT_PID=102"));
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

/* Issue 16.2: the pid changed hands between the check and the set */
static void test_pid_reused_during_set(void **state)
{
	(void)state;
	series_tree();
	fo.reuse_pid = 102;
	start(conf_rt);
	daemon_scan(&d);
	/* the new owner of pid 102 is put back, loudly */
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_int_equal(sched_of(102).rtprio, 0);
	assert_true(ft_logged("pid 102 changed hands"));
}

/*
 * Issue 18.7: a kworker that exits while it is being set (its pidfd says
 * so, /proc still shows it: a rescuer destroyed with its workqueue) did
 * not change hands: no alarm, and the dying kworker is left as it is.
 */
static void test_exit_during_set_is_no_reuse(void **state)
{
	(void)state;
	series_tree();
	fo.exiting_pid = 102;
	start(conf_rt);
	daemon_scan(&d);
	assert_false(ft_logged("changed hands"));
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	/* the others are set as usual */
	assert_int_equal(sched_of(100).policy, SCHED_FIFO);
}

/*
 * Issue 30.7: every policy wqrtd sets carries SCHED_FLAG_RESET_ON_FORK,
 * the put-back of a pid that changed hands included: a task that took
 * the pid in the window and forks passes no real-time policy on.
 */
static void test_every_set_resets_on_fork(void **state)
{
	(void)state;
	series_tree();
	fo.reuse_pid = 102;
	start(conf_rt);
	daemon_scan(&d);
	assert_true(ft_logged("pid 102 changed hands"));
	daemon_restore(&d);
	assert_true(fo.sched_sets >= 4);
	assert_int_equal(fo.sched_sets_inherit, 0);
}

/* Issue 16.2: a pid whose task is no kernel thread is never set */
static void test_not_kthread_never_set(void **state)
{
	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	/* same start time, but now a user process (no PF_KTHREAD) that
	 * chose FIFO 1 for itself: the put-back must not reach it */
	ft_task(&ft, 102, 1, "kworker/R-tty_f", SCHED_FIFO, 1, 0, 3);
	daemon_scan(&d);
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	assert_int_equal(sched_of(102).rtprio, 1);
}

/* Issue 16.10: "power" and links are no workqueues */
static void test_non_workqueue_entries(void **state)
{
	char target[400], link[400];

	(void)state;
	ft_wq(&ft, "tty_flip", true);
	ft_write(&ft, WQ_SYSFS_DIR "/power/control", "auto\n");
	ft_write(&ft, WQ_SYSFS_DIR "/cpumask", "f\n");
	snprintf(target, sizeof(target), "%s" WQ_SYSFS_DIR "/tty_flip",
		 ft.root);
	snprintf(link, sizeof(link), "%s" WQ_SYSFS_DIR "/alias", ft.root);
	assert_int_equal(symlink(target, link), 0);
	start("[wq:*]\nnice = -1\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "-1");
	assert_string_equal(ft_writes(&fo), "tty_flip/nice=-1");
	assert_false(ft_logged("power"));
	assert_false(ft_logged("alias"));
}

/* Issue 16.11: newer kernels default max_active to 1024 */
static void test_max_active_1024(void **state)
{
	(void)state;
	ft_wq(&ft, "tty_flip", true);
	ft_set(&ft, "tty_flip", "max_active", "1024");
	start("[wq:tty_flip]\nnice = -1\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_false(ft_logged("reads"));
	daemon_restore(&d);
	assert_string_equal(ft_get(&ft, "tty_flip", "max_active"), "1024");
}

/* Issue 16.13: "kworker/R-nvme-" is nvme-wq's or nvme-reset-wq's */
static void test_truncated_rescuer_ambiguous(void **state)
{
	(void)state;
	ft_wq(&ft, "nvme-wq", true);
	ft_wq(&ft, "nvme-reset-wq", true);
	ft_task(&ft, 300, 2, "kworker/R-nvme-", SCHED_OTHER, 0, 0, 9);
	ft_task(&ft, 301, 2, "kworker/R-nvme-wq", SCHED_OTHER, 0, 0, 10);
	start("[wq:nvme-wq]\npolicy = fifo\nrtprio = 3\n"
	      "[wq:nvme-reset-wq]\npolicy = fifo\nrtprio = 9\n");
	daemon_scan(&d);
	assert_int_equal(sched_of(300).policy, SCHED_OTHER);
	assert_true(ft_logged("kworker/R-nvme- (pid 300): ambiguous"));
	/* untruncated, it is nvme-wq's alone */
	assert_int_equal(sched_of(301).rtprio, 3);
	/* said once, not on every scan */
	ft_clear_logs();
	daemon_scan(&d);
	assert_false(ft_logged("ambiguous"));
}

/* Issue 16.14: a kworker that exits is forgotten */
static void test_exit_forgets_kworker(void **state)
{
	size_t n;

	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	n = d.nkws;
	ft_task_rm(&ft, 102);
	daemon_task_exit(&d, 102);
	assert_int_equal(d.nkws, n - 1);
	daemon_task_exit(&d, 4242);
	assert_int_equal(d.nkws, n - 1);
}

/* Issue 16.17: a profiled workqueue's pool worker follows the workqueue */
static void test_pool_worker_follows_workqueue(void **state)
{
	(void)state;
	series_tree();
	start("[wq:tty_flip]\npolicy = fifo\nrtprio = 20\n"
	      "[kworker:kworker/u*]\npolicy = fifo\nrtprio = 5\n"
	      "[kworker:kworker/R-*]\npolicy = fifo\nrtprio = 5\n");
	daemon_scan(&d);
	assert_int_equal(sched_of(100).rtprio, 20);
	assert_int_equal(sched_of(101).rtprio, 20);
	assert_int_equal(sched_of(102).rtprio, 20);
	/* the rest are the [kworker:] rules' */
	assert_int_equal(sched_of(103).rtprio, 5);
}

/*
 * Issue 46.8: pool_ids was read through a 1024-byte buffer into at most
 * 64 pools, cut without a word. With 512 pods (affinity_scope = cpu on a
 * large machine) the workers of the pools past the cut were nobody's, and
 * a [kworker:kworker/u*] rule demoted them from the FIFO the kernel gave
 * them.
 */
static void test_pool_ids_512_pods(void **state)
{
	char ids[8192];
	size_t len = 0;
	int pod;

	(void)state;
	series_tree();
	for (pod = 0; pod < 512; pod++)
		len += snprintf(ids + len, sizeof(ids) - len, "%s%d:%d",
				pod ? " " : "", pod, 1000 + pod);
	ft_set(&ft, "tty_flip", "pool_ids", ids);
	/* the kernel made it FIFO 20, as its pool's workqueue asks */
	ft_task(&ft, 600, 2, "kworker/u1511:0", SCHED_FIFO, 20, 0, 60);
	start("[wq:tty_flip]\npolicy = fifo\nrtprio = 20\n"
	      "[kworker:kworker/u*]\npolicy = fifo\nrtprio = 5\n");
	ft_set(&ft, "tty_flip", "policy", "fifo");
	ft_set(&ft, "tty_flip", "rtprio", "20");
	assert_int_equal(daemon_scan(&d), 0);
	assert_int_equal(sched_of(600).policy, SCHED_FIFO);
	assert_int_equal(sched_of(600).rtprio, 20);
	/* the rest are the [kworker:] rule's */
	assert_int_equal(sched_of(103).rtprio, 5);
}

/*
 * Issue 46.9: one /proc/PID/stat that cannot be read stopped the whole
 * kworker pass: the kworkers the listing had not reached yet were left
 * as they were. Bad entries before and after the kworkers in creation
 * order, whatever order the directory lists them in.
 */
static void test_bad_stat_does_not_stop_the_pass(void **state)
{
	(void)state;
	ft_write(&ft, "/proc/90/stat", "90 (broken\n");
	series_tree();
	ft_write(&ft, "/proc/190/stat", "190 (broken\n");
	start(conf_rt);
	/* counted once per scan, and named */
	assert_true(daemon_scan(&d) >= 1);
	assert_true(ft_logged("/proc/90/stat"));
	assert_true(ft_logged("/proc/190/stat"));
	assert_int_equal(sched_of(100).policy, SCHED_FIFO);
	assert_int_equal(sched_of(101).policy, SCHED_FIFO);
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	assert_int_equal(d.nkws, 3);
	/* a listing cut short forgets nothing: 102 is gone, but unseen */
	ft_task_rm(&ft, 102);
	daemon_scan(&d);
	assert_int_equal(d.nkws, 3);
}

/*
 * Issue 46.7: the pid changes hands between the look and the set, to
 * another kworker or to a usermode helper (kthreadd's child without
 * PF_KTHREAD). Each is put back to what such a task is born with, said
 * at LOG_CRIT with its name; a kworker is then planned as any other.
 */
static void test_pid_handed_to_umh(void **state)
{
	(void)state;
	series_tree();
	fo.reuse_pid = 102;
	fo.reuse_comm = "modprobe";
	start(conf_rt);
	daemon_scan(&d);
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_int_equal(sched_of(102).rtprio, 0);
	assert_int_equal(sched_of(102).nice, 0);
	assert_true(ft_logged_at(LOG_CRIT, "its new owner (modprobe)"));
	/* no kworker: never touched again */
	fo.sched_sets = 0;
	daemon_scan(&d);
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
}

static void test_pid_handed_to_kworker(void **state)
{
	(void)state;
	series_tree();
	/* a CPU's highpri worker is born nice -20 */
	fo.reuse_pid = 102;
	fo.reuse_comm = "kworker/0:2H";
	fo.reuse_kthread = true;
	start(conf_rt);
	daemon_scan(&d);
	assert_true(ft_logged_at(LOG_CRIT, "its new owner (kworker/0:2H)"));
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_int_equal(sched_of(102).nice, -20);
	daemon_scan(&d);
	assert_int_equal(sched_of(102).nice, -20);
	/* a worker of the profiled workqueue's pool: the plan gives it FIFO */
	ft_task(&ft, 102, 2, "kworker/R-tty_f", SCHED_OTHER, 0, 0, 3);
	daemon_free(&d);
	fo.reuse_pid = 102;
	fo.reuse_comm = "kworker/u5:3";
	start(conf_rt);
	daemon_scan(&d);
	assert_true(ft_logged_at(LOG_CRIT, "its new owner (kworker/u5:3)"));
	assert_int_equal(sched_of(102).nice, 0);
	daemon_scan(&d);
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	assert_int_equal(sched_of(102).rtprio, 20);
}

/*
 * A kworker on its way out ("kworker/dying") runs no work any more: a
 * glob that matches its name leaves it alone
 */
static void test_dying_kworker_left_alone(void **state)
{
	(void)state;
	ft_task(&ft, 120, 2, "kworker/dying", SCHED_OTHER, 0, 0, 7);
	ft_task(&ft, 121, 2, "kworker/u7:1", SCHED_OTHER, 0, 0, 8);
	start("[kworker:kworker/*]\npolicy = fifo\nrtprio = 5\n");
	daemon_scan(&d);
	assert_int_equal(sched_of(121).policy, SCHED_FIFO);
	assert_int_equal(sched_of(120).policy, SCHED_OTHER);
}

static struct config *trial_of(const char *text)
{
	char rel[64], full[600];
	struct strlist errs = { 0 };
	struct config *t;

	snprintf(rel, sizeof(rel), "/run/wqrtd/trial-1-1.conf");
	ft_write(&ft, rel, text);
	snprintf(full, sizeof(full), "%s%s", ft.root, rel);
	assert_int_equal(config_load_one(full, ft.root, &t, &errs), 0);
	strlist_free(&errs);
	return t;
}

/*
 * wqrtctl try over a profile: only the trial's keys change, the profile
 * comes back when it ends; a reload meanwhile keeps it over the new files
 */
static void test_trial_over_profile_and_back(void **state)
{
	(void)state;
	series_tree();
	start(conf_rt);
	daemon_scan(&d);
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "20");
	assert_int_equal(trial_apply(&d, trial_of("[wq:tty_flip]\nrtprio = 40\npolicy = fifo\nnice = -3\n")), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "40");
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "-3");
	/* the profile's other keys stay, other workqueues are not touched */
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "2");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "-5");
	assert_int_equal(sched_of(102).rtprio, 40);
	/* a reload keeps the trial over what the files say now */
	assert_int_equal(daemon_reload(&d, ft_conf(&ft, "[wq:tty_flip]\npolicy = fifo\nrtprio = 30\n[wq:gpu*]\nnice = -6\n")), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "40");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "-6");
	/* taken out: the profile as the files say, nice back to its original */
	assert_int_equal(trial_apply(&d, NULL), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "30");
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "0");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_int_equal(sched_of(102).rtprio, 30);
	/* and a stop puts back what was found */
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "0");
}

/* A workqueue no rule covers: tried, then exactly as found */
static void test_trial_unprofiled_put_back(void **state)
{
	(void)state;
	series_tree();
	ft_set(&ft, "events_unbound", "nice", "4");
	start(conf_rt);
	daemon_scan(&d);
	assert_int_equal(trial_apply(&d, trial_of("[wq:events_unbound]\nnice = -10\n")), 0);
	assert_string_equal(ft_get(&ft, "events_unbound", "nice"), "-10");
	assert_int_equal(trial_apply(&d, NULL), 0);
	assert_string_equal(ft_get(&ft, "events_unbound", "nice"), "4");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "20");
}

/*
 * cpumask = irq:NAME (issue 43.4): each scan writes the CPUs that
 * interrupt is delivered to; when it moves, the next scan follows; when
 * it is not there (its CPUs offline, no such handler), wqrtd says so once
 * and puts back the cpumask it had changed; when it is back, it follows
 * it again.
 */
static void test_cpumask_follows_irq(void **state)
{
	(void)state;
	series_tree();
	ft_write(&ft, "/sys/devices/system/cpu/online", "0-3\n");
	/* IRQ 4's handler ttyS0 (a directory), and another interrupt */
	ft_write(&ft, "/proc/irq/4/ttyS0/.dir", "");
	ft_write(&ft, "/proc/irq/4/smp_affinity_list", "0-3\n");
	ft_write(&ft, "/proc/irq/4/effective_affinity_list", "1\n");
	ft_write(&ft, "/proc/irq/11/eth0/.dir", "");
	ft_write(&ft, "/proc/irq/11/effective_affinity_list", "3\n");
	start("[wq:tty_flip]\npolicy = fifo\nrtprio = 20\ncpumask = irq:ttyS0\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), "00000002");
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");

	/* moved by irqbalance: the next scan follows */
	ft_write(&ft, "/proc/irq/4/effective_affinity_list", "2\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), "00000004");

	/* its CPU offline: said once, the original cpumask back */
	ft_clear_logs();
	ft_write(&ft, "/sys/devices/system/cpu/online", "0-1\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_true(ft_logged_at(LOG_WARNING,
				 "tty_flip: cpumask = irq:ttyS0: the CPUs of interrupt(s) ttyS0 are offline"));
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), "0000000f");
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	ft_clear_logs();
	assert_int_equal(daemon_scan(&d), 0);
	assert_false(ft_logged("irq:ttyS0"));

	/* back: followed again */
	ft_write(&ft, "/proc/irq/4/effective_affinity_list", "0\n");
	assert_int_equal(daemon_scan(&d), 0);
	assert_true(ft_logged("tty_flip: cpumask = irq:ttyS0: found again"));
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), "00000001");

	/* no handler of that name: said, nothing written */
	ft_clear_logs();
	assert_int_equal(daemon_reload(&d, ft_conf(&ft, "[wq:gpu_submit]\ncpumask = irq:nosuch\n")),
			 0);
	assert_true(ft_logged("gpu_submit: cpumask = irq:nosuch: no interrupt has a handler called nosuch"));
	assert_string_equal(ft_get(&ft, "gpu_submit", "cpumask"), "0000000f");
	/* the reload put tty_flip's original cpumask back */
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), "0000000f");
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
		T(test_apply_restore_ids),
		T(test_reload_good_applies_diff),
		T(test_reload_bad_keeps_old),
		T(test_restore_all),
		T(test_transient_error_retried),
		T(test_permanent_error_logged_once),
		T(test_pid_reused_during_set),
		T(test_exit_during_set_is_no_reuse),
		T(test_every_set_resets_on_fork),
		T(test_not_kthread_never_set),
		T(test_non_workqueue_entries),
		T(test_max_active_1024),
		T(test_truncated_rescuer_ambiguous),
		T(test_exit_forgets_kworker),
		T(test_pool_worker_follows_workqueue),
		T(test_pool_ids_512_pods),
		T(test_bad_stat_does_not_stop_the_pass),
		T(test_pid_handed_to_umh),
		T(test_pid_handed_to_kworker),
		T(test_dying_kworker_left_alone),
		T(test_trial_over_profile_and_back),
		T(test_trial_unprofiled_put_back),
		T(test_cpumask_follows_irq),
#undef T
	};

	return cmocka_run_group_tests_name("daemon", tests, NULL, NULL);
}
