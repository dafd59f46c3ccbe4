// SPDX-License-Identifier: GPL-2.0-only
/* Applying to one workqueue or kworker of a fake tree, with failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "apply.h"
#include "faketree.h"

static struct faketree ft;
static struct fake_ops fo;
static struct apply_ctx ax;

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	ax.root = ft.root;
	ax.ops = &fo.ops;
	ft_capture_logs();
	ft_clear_logs();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	strlist_free(&fo.writes);
	ft_clear_logs();
	ft_cleanup(&ft);
	return 0;
}

static void want(struct wq_track *t, const char *name, const char *conf)
{
	const char *why;
	char key[64], val[64];
	const char *p = conf;
	int a, n;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	while (sscanf(p, " %63[a-z_]=%63[^ ]%n", key, val, &n) == 2) {
		for (a = 0; a < WA_NR; a++)
			if (!strcmp(key, attr_name(a)))
				assert_int_equal(
					attr_parse_conf(a, val, &t->want, &why),
					0);
		p += n;
	}
}

/* Plan, then apply: what a scan does with one workqueue */
static int wq_go(struct wq_track *t)
{
	struct wq_plan p;
	int err = plan_wq(&ax, t, NULL, &p);

	return err ? err : wq_apply_recorded(&ax, t, &p, wq_record(t, &p));
}

/* Plan putting every original back, then apply: what a stop does */
static int wq_back(struct wq_track *t)
{
	struct wq_plan p;
	int err = plan_wq_restore(&ax, t, &p);

	return err > 0 ? wq_apply_recorded(&ax, t, &p, 0) : err;
}

static void test_order_and_values(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "tty_flip", true);
	want(&t, "tty_flip",
	     "rtprio=20 policy=fifo nice=-5 max_active=4 affinity_strict=1 "
	     "affinity_scope=numa cpumask=0-1 nr_idle_extra=2 private=1");
	assert_int_equal(wq_go(&t), 0);
	/* private, reserve, affinity, max_active, nice, policy, rtprio */
	assert_string_equal(ft_writes(&fo),
			    "tty_flip/private=1 tty_flip/nr_idle_extra=2 "
			    "tty_flip/cpumask=00000003 "
			    "tty_flip/affinity_scope=numa "
			    "tty_flip/affinity_strict=1 tty_flip/max_active=4 "
			    "tty_flip/nice=-5 tty_flip/policy=fifo "
			    "tty_flip/rtprio=20");
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "20");
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), "00000003");
	/* originals remembered for every attribute changed */
	assert_int_equal(t.orig.set, (1u << WA_NR) - 1);
	assert_int_equal(t.orig.val[WA_MAX_ACTIVE], 256);
	assert_true(ft_logged("tty_flip: policy = fifo"));
}

static void test_second_apply_writes_nothing(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "a", true);
	want(&t, "a", "nice=3 policy=rr rtprio=5");
	assert_int_equal(wq_go(&t), 0);
	strlist_free(&fo.writes);
	assert_int_equal(wq_go(&t), 0);
	assert_string_equal(ft_writes(&fo), "");
}

static void test_readonly_attribute_rolls_back(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "ordered", true);
	ft_readonly(&ft, "ordered", "max_active");
	want(&t, "ordered", "private=1 nice=-5 max_active=8");
	assert_int_equal(wq_go(&t), -EACCES);
	/* private was written, then put back; nice never reached */
	assert_string_equal(ft_writes(&fo),
			    "ordered/private=1 ordered/private=0");
	assert_string_equal(ft_get(&ft, "ordered", "private"), "0");
	assert_string_equal(ft_get(&ft, "ordered", "nice"), "0");
	assert_true(ft_logged(
		"error: ordered: writing max_active = 8: Permission denied (read-only attribute)"));
	assert_true(t.failed);
	assert_int_equal(t.orig.set, 0);
}

/*
 * Issue 18.7: a workqueue destroyed while it is being set (make
 * bench-reaction's short-lived ones): no error, no "missing attribute",
 * no put-back of a workqueue that is not there, no original left.
 */
static void test_workqueue_gone_during_write(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "ws01f", true);
	want(&t, "ws01f", "private=1 policy=fifo rtprio=30");
	fo.vanish_from = 2;
	assert_int_equal(wq_go(&t), -ENOENT);
	assert_string_equal(ft_writes(&fo), "ws01f/private=1 ws01f/policy=fifo");
	assert_false(ft_logged("error"));
	assert_false(ft_logged("warning"));
	assert_int_equal(t.orig.set, 0);
	/* and planned again, it is gone */
	assert_int_equal(wq_go(&t), -ENOENT);
}

/* ... or sysfs refuses the write: the node is being removed (kernfs) */
static void test_workqueue_going_enodev(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "ws020", true);
	want(&t, "ws020", "private=1 policy=fifo rtprio=30");
	fo.fail_attr = "ws020/policy";
	fo.fail_err = -ENODEV;
	assert_int_equal(wq_go(&t), -ENOENT);
	/* no put-back of private: the workqueue is on its way out */
	assert_string_equal(ft_writes(&fo), "ws020/private=1 ws020/policy=fifo");
	assert_false(ft_logged("error"));
	assert_int_equal(t.orig.set, 0);
}

static void test_einval_rolls_back_only_that_wq(void **state)
{
	struct wq_track a, b;

	(void)state;
	ft_wq(&ft, "a", true);
	ft_wq(&ft, "b", true);
	fo.fail_attr = "a/rtprio";
	fo.fail_err = -EINVAL;
	want(&a, "a", "cpumask=1 policy=fifo rtprio=30");
	want(&b, "b", "cpumask=1 policy=fifo rtprio=30");
	assert_int_equal(wq_go(&a), -EINVAL);
	assert_string_equal(ft_get(&ft, "a", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "a", "cpumask"), "0000000f");
	assert_true(
		ft_logged("error: a: writing rtprio = 30: Invalid argument"));
	assert_int_equal(wq_go(&b), 0);
	assert_string_equal(ft_get(&ft, "b", "policy"), "fifo");
	assert_string_equal(ft_get(&ft, "b", "rtprio"), "30");
}

static void test_readback_mismatch_rolls_back(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "a", true);
	fo.fail_attr = "a/nr_idle_extra";
	fo.fail_err = 1; /* accepted, but the value does not stick */
	want(&t, "a", "nice=2 nr_idle_extra=4");
	assert_int_equal(wq_go(&t), -EIO);
	assert_true(ft_logged("a: nr_idle_extra reads back 0, wanted 4"));
	assert_string_equal(ft_get(&ft, "a", "nice"), "0");
}

static void test_missing_attribute_skipped(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "plain", false); /* a 6.12 kernel without the series */
	want(&t, "plain", "nice=-3 nr_idle_extra=2");
	assert_int_equal(wq_go(&t), 0);
	assert_string_equal(ft_get(&ft, "plain", "nice"), "-3");
	assert_true(ft_logged(
		"plain: no nr_idle_extra attribute on this workqueue; skipped"));
	ft_clear_logs();
	assert_int_equal(wq_go(&t), 0);
	assert_false(ft_logged("no nr_idle_extra")); /* said once */
}

static void test_restore(void **state)
{
	struct wq_track t;

	(void)state;
	ft_wq(&ft, "a", true);
	ft_set(&ft, "a", "nice", "4");
	want(&t, "a", "nice=-10 policy=fifo rtprio=40 cpumask=2-3");
	assert_int_equal(wq_go(&t), 0);
	assert_int_equal(wq_back(&t), 0);
	assert_string_equal(ft_get(&ft, "a", "nice"), "4");
	assert_string_equal(ft_get(&ft, "a", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "a", "rtprio"), "0");
	assert_string_equal(ft_get(&ft, "a", "cpumask"), "0000000f");
	assert_int_equal(t.orig.set, 0);
}

static void test_policy_change_restores_rtprio(void **state)
{
	struct wq_track t;

	(void)state;
	/* was fifo 50; the profile asks for normal: rtprio must come back */
	ft_wq(&ft, "a", true);
	ft_set(&ft, "a", "policy", "fifo");
	ft_set(&ft, "a", "rtprio", "50");
	want(&t, "a", "policy=normal");
	assert_int_equal(wq_go(&t), 0);
	assert_string_equal(ft_get(&ft, "a", "rtprio"), "0");
	assert_int_equal(wq_back(&t), 0);
	assert_string_equal(ft_get(&ft, "a", "policy"), "fifo");
	assert_string_equal(ft_get(&ft, "a", "rtprio"), "50");
}

static struct settings kw_want; /* what kw() asks for */

static void kw(struct kw_track *k, pid_t pid, const char *conf_policy, int prio)
{
	const char *why;

	memset(k, 0, sizeof(*k));
	memset(&kw_want, 0, sizeof(kw_want));
	k->pid = pid;
	k->start = 1000 + pid;
	snprintf(k->comm, sizeof(k->comm), "kworker/u5:%d", pid);
	attr_parse_conf(WA_POLICY, conf_policy, &kw_want, &why);
	kw_want.val[WA_RTPRIO] = prio;
	kw_want.set |= WA_BIT(WA_RTPRIO);
}

/* Plan, then apply; a task that is gone gets an empty plan */
static int kw_go(struct kw_track *k)
{
	struct kw_plan p = { 0 };

	plan_kw_sched(&ax, k->pid, &kw_want, &p);
	return kw_apply_recorded(&ax, k, &p, kw_record(k, &p));
}

/* Plan putting the original back, then apply: what a stop does */
static int kw_back(struct kw_track *k)
{
	struct kw_plan p;
	int err = plan_kw_restore(&ax, k, &p);

	return err > 0 ? kw_apply_recorded(&ax, k, &p, false) : err;
}

static void test_kworker_apply_and_restore(void **state)
{
	struct sched_val v;
	struct kw_track k;

	(void)state;
	ft_task(&ft, 100, 2, "kworker/u5:100", SCHED_OTHER, 0, 0, 1100);
	kw(&k, 100, "fifo", 20);
	assert_int_equal(kw_go(&k), 1);
	fo.ops.sched_get(fo.ops.ctx, 100, &v);
	assert_int_equal(v.policy, SCHED_FIFO);
	assert_int_equal(v.rtprio, 20);
	assert_true(ft_logged("kworker/u5:100 (pid 100): normal 0 -> fifo 20"));
	assert_int_equal(kw_go(&k), 0); /* already in line */
	assert_int_equal(kw_back(&k), 1);
	assert_false(k.changed);
	fo.ops.sched_get(fo.ops.ctx, 100, &v);
	assert_int_equal(v.policy, SCHED_OTHER);
	assert_int_equal(v.rtprio, 0);
}

static void test_kworker_vanished(void **state)
{
	struct kw_track k;

	(void)state;
	ft_task(&ft, 101, 2, "kworker/u5:101", SCHED_OTHER, 0, 0, 1101);
	kw(&k, 101, "fifo", 20);
	ft_task_rm(&ft, 101);
	assert_int_equal(kw_go(&k), -ESRCH);
	assert_int_equal(fo.sched_sets, 0);
	assert_false(ft_logged("error"));
}

static void test_kworker_pid_reused(void **state)
{
	struct kw_track k;

	(void)state;
	ft_task(&ft, 102, 2, "kworker/u5:102", SCHED_OTHER, 0, 0, 1102);
	kw(&k, 102, "fifo", 20);
	assert_int_equal(kw_go(&k), 1);
	/* the kworker exits; its pid goes to a new task */
	ft_task(&ft, 102, 1, "bash", SCHED_FIFO, 20, 0, 99999);
	assert_int_equal(kw_go(&k), -ESRCH);
	fo.sched_sets = 0;
	/* not the kworker any more: nothing to put back */
	assert_int_equal(kw_back(&k), -ESRCH);
	assert_int_equal(fo.sched_sets, 0); /* bash is left alone */
}

static void test_kworker_setattr_fails(void **state)
{
	struct sched_val v;
	struct kw_track k;

	(void)state;
	ft_task(&ft, 103, 2, "kworker/u5:103", SCHED_OTHER, 0, 0, 1103);
	kw(&k, 103, "rr", 7);
	fo.fail_pid = 103;
	fo.fail_sched_err = -EPERM;
	assert_int_equal(kw_go(&k), -EPERM);
	assert_true(ft_logged(
		"error: kworker/u5:103 (pid 103): setting rr 7: Operation not permitted"));
	assert_false(k.changed);
	fo.ops.sched_get(fo.ops.ctx, 103, &v);
	assert_int_equal(v.policy, SCHED_OTHER);
}

/*
 * A sched_setattr() that says yes and changes nothing: the read-back
 * says so (EIO, logged as a failure)
 */
static void test_kworker_set_does_not_stick(void **state)
{
	struct sched_val v;
	struct kw_track k;

	(void)state;
	ft_task(&ft, 103, 2, "kworker/u5:103", SCHED_OTHER, 0, 0, 1103);
	kw(&k, 103, "fifo", 7);
	fo.fail_pid = 103;
	fo.fail_sched_err = 1;
	assert_int_equal(kw_go(&k), -EIO);
	assert_true(ft_logged(
		"error: kworker/u5:103 (pid 103): setting fifo 7: Input/output error"));
	/* said yes: it may have half-taken it, so a stop puts it back */
	assert_true(k.changed);
	fo.ops.sched_get(fo.ops.ctx, 103, &v);
	assert_int_equal(v.policy, SCHED_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_order_and_values),
		T(test_second_apply_writes_nothing),
		T(test_readonly_attribute_rolls_back),
		T(test_workqueue_gone_during_write),
		T(test_workqueue_going_enodev),
		T(test_einval_rolls_back_only_that_wq),
		T(test_readback_mismatch_rolls_back),
		T(test_missing_attribute_skipped),
		T(test_restore),
		T(test_policy_change_restores_rtprio),
		T(test_kworker_apply_and_restore),
		T(test_kworker_vanished),
		T(test_kworker_pid_reused),
		T(test_kworker_setattr_fails),
		T(test_kworker_set_does_not_stick),
#undef T
	};

	return cmocka_run_group_tests_name("apply", tests, NULL, NULL);
}
