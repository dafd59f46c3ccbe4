// SPDX-License-Identifier: GPL-2.0-only
/*
 * The pacing of events (watch.c) on a fake tree and a fake clock: lost
 * events, kthreads that have not settled, bursts of new workqueues. The
 * clock is whatever the test says; no test waits for anything.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>

#include "config_load.h"
#include "faketree.h"
#include "log.h"
#include "watch.h"

static struct faketree ft;
static struct fake_ops fo;
static struct daemon d;
static struct watch w;

#define MS 1000ULL
#define T0 (5 * WATCH_USEC_PER_SEC)

/* tty_flip (pools 5 and 6) at FIFO 20, and its rescuer */
static const char *conf_rt = "[wq:tty_flip]\npolicy = fifo\nrtprio = 20\n"
			     "[wq:b*]\npolicy = fifo\nrtprio = 7\n";

static int setup(void **state)
{
	struct strlist errs = { 0 };
	struct config *c;

	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	ft_capture_logs();
	ft_clear_logs();
	ft_wq(&ft, "tty_flip", true);
	ft_set(&ft, "tty_flip", "pool_ids", "0:5 1:6");
	ft_task(&ft, 100, 2, "kworker/u5:0", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 102, 2, "kworker/R-tty_f", SCHED_OTHER, 0, 0, 3);
	assert_int_equal(config_load(ft_conf(&ft, conf_rt), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
	assert_int_equal(daemon_scan(&d), 0);
	watch_init(&w, &d);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	watch_free(&w);
	daemon_free(&d);
	ft_ops_cleanup(&fo, &ft);
	return 0;
}

static int policy_of(pid_t pid)
{
	struct sched_val v = { -1, -1, -1, 0 };

	fo.ops.sched_get(fo.ops.ctx, pid, &v);
	return v.policy;
}

/* Let the fake clock run from now until nothing is due; returns the end */
static uint64_t run_all(uint64_t now)
{
	uint64_t at;
	int i;

	for (i = 0; i < 100; i++) {
		at = watch_next(&w);
		if (at == WATCH_NEVER)
			return now;
		now = at > now ? at : now;
		watch_run(&w, now);
	}
	fail_msg("watch_next() never settles");
	return now;
}

/* A child of kthreadd that is still called kthreadd: not settled */
static void unsettled(pid_t pid)
{
	ft_task(&ft, pid, 2, "kthreadd", SCHED_OTHER, 0, 0, 1000 + pid);
	ft_task_switches(&ft, pid, 0);
}

/* ... that has its name now and has slept: a worker of pool 5 */
static void settle(pid_t pid)
{
	char comm[32];

	snprintf(comm, sizeof(comm), "kworker/u5:%d", (int)pid);
	ft_task(&ft, pid, 2, comm, SCHED_OTHER, 0, 0, 1000 + pid);
	ft_task_switches(&ft, pid, 1);
}

/*
 * Issue 16.3: a burst of overruns (ENOBUFS) costs one rescan per
 * WATCH_OVERRUN_GAP_USEC, and the events lost after a rescan are not
 * lost: another one follows once the gap is over.
 */
static void test_overrun_rescans_rate_limited(void **state)
{
	unsigned long scans = d.scans;
	uint64_t t;
	int i;

	(void)state;
	watch_overrun(&w, T0);
	assert_int_equal(watch_next(&w), T0);
	watch_run(&w, T0);
	assert_int_equal(d.scans, scans + 1);
	assert_true(ft_logged("events lost"));
	/* a flood: an overrun every 5 ms for most of the next second */
	for (i = 1; i < 190; i++) {
		t = T0 + i * 5 * MS;
		watch_overrun(&w, t);
		watch_run(&w, t);
	}
	assert_int_equal(d.scans, scans + 1);
	/* a kworker whose FORK was among the events lost */
	ft_task(&ft, 200, 2, "kworker/u5:7", SCHED_OTHER, 0, 0, 50);
	assert_int_equal(watch_next(&w), T0 + WATCH_OVERRUN_GAP_USEC);
	watch_run(&w, T0 + WATCH_OVERRUN_GAP_USEC - 1);
	assert_int_equal(d.scans, scans + 1);
	assert_int_equal(policy_of(200), SCHED_OTHER);
	watch_run(&w, T0 + WATCH_OVERRUN_GAP_USEC);
	assert_int_equal(d.scans, scans + 2);
	assert_int_equal(policy_of(200), SCHED_FIFO);
	/* nothing lost since: nothing more to do */
	assert_int_equal(watch_next(&w), WATCH_NEVER);
	watch_run(&w, T0 + 10 * WATCH_USEC_PER_SEC);
	assert_int_equal(d.scans, scans + 2);
	/* an overrun long after the last rescan is seen to at once */
	t = T0 + 20 * WATCH_USEC_PER_SEC;
	watch_overrun(&w, t);
	assert_int_equal(watch_next(&w), t);
}

/*
 * Issue 16.14: a kthread that does not fit in the pending list is not
 * dropped in silence: it is said, and a rescan sees it.
 */
static void test_pending_full_rescans(void **state)
{
	unsigned long scans = d.scans;
	pid_t pid, last = 1000 + WATCH_PENDING_MAX;

	(void)state;
	for (pid = 1000; pid <= last; pid++)
		unsettled(pid);
	for (pid = 1000; pid < last; pid++)
		watch_task(&w, pid, T0);
	assert_int_equal(w.npending, WATCH_PENDING_MAX);
	assert_false(ft_logged("rescanning instead"));
	watch_task(&w, last, T0);
	assert_int_equal(w.npending, WATCH_PENDING_MAX);
	assert_true(ft_logged(
		"more than 64 new kernel threads waiting to settle; rescanning instead"));
	/* the rescan waits for them to settle, and comes on its own */
	assert_true(w.rescan_at >= T0 + WATCH_UNSETTLED_USEC);
	assert_true(w.rescan_at != WATCH_NEVER);
	for (pid = 1000; pid <= last; pid++)
		settle(pid);
	run_all(T0);
	for (pid = 1000; pid <= last; pid++)
		assert_int_equal(policy_of(pid), SCHED_FIFO);
	assert_int_equal(d.scans, scans + 1);
	assert_int_equal(w.npending, 0);
	/* more of them while full: still one rescan per gap */
	ft_clear_logs();
	for (pid = 2000; pid <= 2000 + 3 * WATCH_PENDING_MAX; pid++) {
		unsettled(pid);
		watch_task(&w, pid, T0 + 2 * WATCH_USEC_PER_SEC);
	}
	assert_true(ft_logged("rescanning instead"));
	for (pid = 2000; pid <= 2000 + 3 * WATCH_PENDING_MAX; pid++)
		settle(pid);
	run_all(T0 + 2 * WATCH_USEC_PER_SEC);
	assert_int_equal(d.scans, scans + 2);
	for (pid = 2000; pid <= 2000 + 3 * WATCH_PENDING_MAX; pid++)
		assert_int_equal(policy_of(pid), SCHED_FIFO);
}

/*
 * Issue 18.7: under a steady stream of new kthreads (one every 5 ms,
 * each settled by the time the next comes), each is looked at about
 * WATCH_RETRY_USEC after its fork. Re-arming the retry at every FORK put
 * the look off for as long as the stream lasted (make bench-reaction:
 * at 100 and 1000 forks/s the pending list filled, and the kworkers
 * waited for the rate-limited rescan).
 */
static void test_stream_does_not_put_off_retry(void **state)
{
	pid_t pid;
	uint64_t t;

	(void)state;
	for (pid = 3000; pid < 3020; pid++) {
		t = T0 + (pid - 3000) * 5 * MS;
		watch_run(&w, t);
		if (pid - 3000 >= 2)
			assert_int_equal(policy_of(pid - 2), SCHED_FIFO);
		if (pid > 3000)
			settle(pid - 1);
		unsettled(pid);
		watch_task(&w, pid, t);
		assert_true(watch_next(&w) <= t + WATCH_RETRY_USEC);
	}
	assert_int_equal(d.scans, 1);
	assert_true(w.npending <= 2);
}

/*
 * Issue 16.14: a kthread that exits leaves the pending list (its place
 * goes to the next one) and a kworker that exits is forgotten.
 */
static void test_exit_frees_pending_and_tracker(void **state)
{
	size_t n = d.nkws;
	pid_t pid;

	(void)state;
	for (pid = 1000; pid < 1000 + WATCH_PENDING_MAX; pid++) {
		unsettled(pid);
		watch_task(&w, pid, T0);
	}
	assert_int_equal(w.npending, WATCH_PENDING_MAX);
	for (pid = 1000; pid < 1000 + WATCH_PENDING_MAX; pid++) {
		ft_task_rm(&ft, pid);
		watch_exit(&w, pid);
	}
	assert_int_equal(w.npending, 0);
	/* the next ones fit: no rescan needed */
	for (pid = 3000; pid < 3000 + WATCH_PENDING_MAX; pid++) {
		unsettled(pid);
		watch_task(&w, pid, T0);
	}
	assert_int_equal(w.npending, WATCH_PENDING_MAX);
	assert_false(ft_logged("rescanning instead"));
	assert_int_equal(w.rescan_at, WATCH_NEVER);
	/* a tracked kworker exits: its tracker goes */
	assert_true(n >= 2);
	ft_task_rm(&ft, 102);
	watch_exit(&w, 102);
	assert_int_equal(d.nkws, n - 1);
}

/*
 * Issue 16.9: a burst of new workqueues (a module load) costs one
 * kworker scan once the burst is over, not one per workqueue, and every
 * one of their rescuers is seen.
 */
static void test_wq_burst_one_kworker_scan(void **state)
{
	unsigned long kw_scans = d.kw_scans, scans = d.scans;
	char name[16], comm[32];
	int i;

	(void)state;
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		snprintf(comm, sizeof(comm), "kworker/R-%s", name);
		ft_wq(&ft, name, true);
		ft_task(&ft, 500 + i, 2, comm, SCHED_OTHER, 0, 0, 500 + i);
		watch_wq(&w, name, T0 + i * MS);
		/* the first at once; the rest with the burst, in one pass */
		assert_string_equal(ft_get(&ft, name, "policy"),
				    i ? "normal" : "fifo");
	}
	/* a workqueue no rule covers does not put the scan off */
	ft_wq(&ft, "other", true);
	watch_wq(&w, "other", T0 + 60 * MS);
	assert_int_equal(d.kw_scans, kw_scans);
	assert_int_equal(watch_next(&w), T0 + WATCH_WQ_SETTLE_USEC);
	run_all(T0 + 60 * MS);
	assert_int_equal(d.kw_scans, kw_scans + 1);
	assert_int_equal(d.scans, scans);
	for (i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "b%d", i);
		assert_string_equal(ft_get(&ft, name, "policy"), "fifo");
		assert_int_equal(policy_of(500 + i), SCHED_FIFO);
	}
}

/*
 * Issue 30.12: 1000 new workqueues in a burst (one uevent each) cost a
 * bounded number of originals writes, not one each; every one of them is
 * profiled once the burst is over.
 */
static void test_wq_burst_bounded_saves(void **state)
{
	char path[300], name[16];
	unsigned long saves;
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	assert_int_equal(daemon_use_state(&d, path), 0);
	saves = d.state.saves;
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "b%03d", i);
		ft_wq(&ft, name, true);
		watch_wq(&w, name, T0 + i * 10);
	}
	run_all(T0 + 10 * MS);
	print_message("1000 new workqueues: %lu save(s)\n",
		      d.state.saves - saves);
	assert_true(d.state.saves - saves <= 3);
	for (i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "b%03d", i);
		assert_string_equal(ft_get(&ft, name, "policy"), "fifo");
	}
}

/*
 * Issue 30.12: a kthread still unsettled after every retry is not
 * dropped at debug level: it is said at notice and kept.
 */
static void test_unsettled_kept(void **state)
{
	(void)state;
	unsettled(900);
	watch_task(&w, 900, T0);
	run_all(T0);
	assert_true(ft_logged_at(LOG_NOTICE, "still unsettled"));
	assert_int_equal(w.npending, 1);
	/* it settles: the next scan judges it, by the pending list too */
	settle(900);
	daemon_scan(&d);
	watch_scanned(&w);
	assert_int_equal(w.npending, 0);
	assert_int_equal(policy_of(900), SCHED_FIFO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_overrun_rescans_rate_limited),
		T(test_pending_full_rescans),
		T(test_stream_does_not_put_off_retry),
		T(test_exit_frees_pending_and_tracker),
		T(test_wq_burst_one_kworker_scan),
		T(test_wq_burst_bounded_saves),
		T(test_unsettled_kept),
#undef T
	};

	return cmocka_run_group_tests_name("watch", tests, NULL, NULL);
}
