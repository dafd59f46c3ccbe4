// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl list (issue 13): kinds from sysfs, what is out of reach found in
 * /proc, the matching sections, and the warning for a [wq:] section that
 * matches nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "config_load.h"
#include "ctl.h"
#include "faketree.h"
#include "inventory.h"

static struct faketree ft;

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_capture_logs();
	/* unbound, with the series */
	ft_wq(&ft, "ttyS-serial_8250", true);
	/* ordered: the series makes max_active read-only */
	ft_wq(&ft, "vkms_composer", true);
	ft_set(&ft, "vkms_composer", "max_active", "1");
	ft_readonly(&ft, "vkms_composer", "max_active");
	/* a per-cpu workqueue with WQ_SYSFS: per_cpu and max_active only */
	ft_set(&ft, "percpu_sysfs", "per_cpu", "1");
	ft_set(&ft, "percpu_sysfs", "max_active", "16");
	/* rescuers: of one out of sysfs, of one in it (name cut to 15) */
	ft_task(&ft, 50, 2, "kworker/R-netns", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 51, 2, "kworker/R-ttyS-", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 52, 2, "kworker/R-mm_pe", SCHED_OTHER, 0, 0, 1);
	/* what kworkers ran last */
	ft_task(&ft, 60, 2, "kworker/0:1-events", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 61, 2, "kworker/u9:0+netns", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 62, 2, "kworker/u9:1-ttyS-serial_8250", SCHED_OTHER, 0, 0,
		1);
	ft_task(&ft, 63, 2, "kworker/u9:2-kvfree_rcu_reclaim", SCHED_OTHER, 0,
		0, 1);
	ft_task(&ft, 64, 2, "kworker/1:0", SCHED_OTHER, 0, 0, 1);
	/* not a kworker at all */
	ft_task(&ft, 70, 1, "kworker/u9:3-fake", SCHED_OTHER, 0, 0, 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_clear_logs();
	ft_cleanup(&ft);
	return 0;
}

static const struct inv_wq *find(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (!strcmp(inv->v[i].name, name))
			return &inv->v[i];
	return NULL;
}

static struct config *load(const char *text)
{
	struct strlist errs = { 0 };
	struct config *c;

	assert_int_equal(config_load(ft_conf(&ft, text), ft.root, &c, &errs),
			 0);
	strlist_free(&errs);
	return c;
}

static void test_kinds_from_sysfs(void **state)
{
	struct inventory inv;
	const struct inv_wq *w;

	(void)state;
	assert_int_equal(inventory_scan(ft.root, false, &inv), 0);
	assert_int_equal(inv.n, 3);
	/* sorted by name */
	assert_string_equal(inv.v[0].name, "percpu_sysfs");
	w = find(&inv, "ttyS-serial_8250");
	assert_non_null(w);
	assert_int_equal(w->kind, WQK_UNBOUND);
	assert_true(inv_reachable(w));
	assert_true(w->st.present & WA_BIT(WA_POLICY));
	assert_string_equal(w->pool_ids, "0:5");
	w = find(&inv, "vkms_composer");
	assert_int_equal(w->kind, WQK_ORDERED);
	assert_true(inv_reachable(w));
	w = find(&inv, "percpu_sysfs");
	assert_int_equal(w->kind, WQK_PERCPU);
	assert_false(inv_reachable(w));
	inventory_free(&inv);
}

/*
 * Issue 28.4: an unbound workqueue that only workqueue.sysfs= put in sysfs
 * has a read-only max_active too, of the value its driver chose: it is not
 * an ordered one, whose max_active is 1.
 */
static void test_param_unbound_is_unbound(void **state)
{
	struct inventory inv;
	const struct inv_wq *w;

	(void)state;
	ft_wq(&ft, "wqrt_reach_unbound", true);
	ft_set(&ft, "wqrt_reach_unbound", "max_active", "256");
	ft_readonly(&ft, "wqrt_reach_unbound", "max_active");
	assert_int_equal(inventory_scan(ft.root, false, &inv), 0);
	w = find(&inv, "wqrt_reach_unbound");
	assert_non_null(w);
	assert_int_equal(w->kind, WQK_UNBOUND);
	assert_true(inv_reachable(w));
	assert_int_equal(find(&inv, "vkms_composer")->kind, WQK_ORDERED);
	inventory_free(&inv);
}

static void test_out_of_reach_from_proc(void **state)
{
	struct inventory inv;
	const struct inv_wq *w;
	char why[300];

	(void)state;
	assert_int_equal(inventory_scan(ft.root, true, &inv), 0);
	/* the rescuer said "unknown", the kworker that ran it "unbound" */
	w = find(&inv, "netns");
	assert_non_null(w);
	assert_false(w->in_sysfs);
	assert_int_equal(w->kind, WQK_UNBOUND);
	assert_string_equal(w->seen_as, "kworker/R-netns");
	assert_non_null(strstr(inv_reason(w, why, sizeof(why)),
			       "boot with workqueue.sysfs=netns"));
	w = find(&inv, "events");
	assert_non_null(w);
	assert_int_equal(w->kind, WQK_PERCPU);
	assert_non_null(strstr(inv_reason(w, why, sizeof(why)), "per-cpu"));
	/* a rescuer alone: the name may be cut, the kind is not known */
	w = find(&inv, "mm_pe");
	assert_non_null(w);
	assert_int_equal(w->kind, WQK_UNKNOWN);
	assert_true(w->truncated);
	assert_non_null(strstr(inv_reason(w, why, sizeof(why)),
			       "workqueue.sysfs=mm_pe*"));
	assert_non_null(find(&inv, "kvfree_rcu_reclaim"));
	/* in sysfs already, by its whole name or cut: not again */
	assert_null(find(&inv, "ttyS-"));
	assert_int_equal(inv.n, 7);
	/* not kthreadd's child: not a kworker, not a source */
	assert_null(find(&inv, "fake"));
	inventory_free(&inv);
}

/*
 * Without the series there is no workqueue.sysfs=: the advice does not
 * send the user to it (issue 47.8)
 */
static void test_no_series_no_sysfs_param_advice(void **state)
{
	static const char *const wqs[] = { "ttyS-serial_8250", "vkms_composer" };
	struct inventory inv;
	const struct inv_wq *w;
	char why[256], path[600];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(wqs); i++) {
		snprintf(path, sizeof(path),
			 "%s/sys/devices/virtual/workqueue/%s/policy", ft.root,
			 wqs[i]);
		assert_int_equal(unlink(path), 0);
	}
	assert_int_equal(inventory_scan(ft.root, true, &inv), 0);
	w = find(&inv, "netns");
	assert_non_null(w);
	assert_null(strstr(inv_reason(w, why, sizeof(why)), "workqueue.sysfs="));
	assert_non_null(strstr(why, "only a kernel with the wqrt series can"));
	w = find(&inv, "mm_pe");
	assert_null(strstr(inv_reason(w, why, sizeof(why)), "workqueue.sysfs="));
	inventory_free(&inv);
}

static char *print(const struct config *c, bool json, bool all)
{
	struct inventory inv;
	size_t len;
	char *out;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(inventory_scan(ft.root, all, &inv), 0);
	list_print(f, json, &inv, c, all);
	fclose(f);
	inventory_free(&inv);
	return out;
}

static void test_matching_section(void **state)
{
	struct config *c =
		load("[wq:ttys-*]\nnice = -5\n[wq:netns]\nnice = 1\n");
	char *out;

	(void)state;
	out = print(c, false, true);
	assert_non_null(strstr(out, "\nttyS-serial_8250         unbound  [wq:ttys-*]  "));
	assert_non_null(strstr(out, "\nvkms_composer            ordered  -  "));
	/* a section that names what is out of reach shows there */
	assert_non_null(strstr(out, "\nnetns                    unbound  [wq:netns]  "));
	free(out);
	config_free(c);
}

static void test_list_table(void **state)
{
	struct config *c =
		load("[wq:ttyS-serial_8250]\npolicy = fifo\nrtprio = 20\n");
	char *out;

	(void)state;
	out = print(c, false, false);
	assert_non_null(strstr(
		out,
		"ttyS-serial_8250         unbound  [wq:ttys-serial_8250]    policy=normal rtprio=0 nice=0 cpumask=0-3 affinity_scope=default affinity_strict=0 max_active=256 nr_idle_extra=0 private=0 pool_ids=\"0:5\"\n"));
	assert_non_null(strstr(out, "\nvkms_composer            ordered  -  "));
	assert_null(strstr(out, "percpu_sysfs  "));
	assert_non_null(strstr(
		out,
		"1 more the kernel does not let wqrtd reach: wqrtctl list --all"));
	free(out);
	out = print(c, false, true);
	assert_non_null(strstr(out, "Out of reach (5):"));
	assert_non_null(strstr(
		out,
		"netns                    unbound  -                        not in sysfs: boot with workqueue.sysfs=netns (seen as kworker/R-netns)\n"));
	assert_non_null(strstr(out, "\npercpu_sysfs             per-cpu  "));
	free(out);
	config_free(c);
}

static void test_list_json(void **state)
{
	char *out;

	(void)state;
	out = print(NULL, true, true);
	assert_true(!strncmp(out, "{\"schema\": 1, \"workqueues\": [", 29));
	assert_non_null(strstr(
		out,
		"{\"name\": \"vkms_composer\", \"kind\": \"ordered\", \"in_sysfs\": true, \"reachable\": true, \"section\": null, \"attributes\": {\"policy\": \"normal\", \"rtprio\": 0, \"nice\": 0, \"cpumask\": \"0-3\", \"affinity_scope\": \"default\", \"affinity_strict\": false, \"max_active\": 1, \"nr_idle_extra\": 0, \"private\": false, \"pool_ids\": \"0:5\"}}"));
	assert_non_null(strstr(
		out,
		"{\"name\": \"events\", \"kind\": \"per-cpu\", \"in_sysfs\": false, \"reachable\": false, \"section\": null, \"reason\": "));
	free(out);
	out = print(NULL, true, false);
	assert_null(strstr(out, "\"events\""));
	free(out);
}

/*
 * Issue 13: a [wq:] section that matches nothing is a warning; issue 33:
 * so is a [kworker:] section
 */
static void test_unmatched_section_warns(void **state)
{
	struct config *c = load("[wq:ttyS-*]\nnice = 1\n"
				"[wq:tty_flip]\nnice = 2\n"
				"[wq:gpu_submit*]\nnice = 3\n"
				"[kworker:kworker/nothing*]\nnice = 4\n");
	char want[600];

	(void)state;
	assert_int_equal(c->warnings.n, 3);
	snprintf(
		want, sizeof(want),
		"%s/wqrt.conf:3: [wq:tty_flip]: matches no workqueue in /sys/devices/virtual/workqueue now (not loaded yet, or out of reach: see wqrtctl list --all)",
		ft.root);
	assert_string_equal(c->warnings.v[0], want);
	assert_non_null(strstr(c->warnings.v[1],
			       ":5: [wq:gpu_submit*]: matches no workqueue"));
	assert_non_null(strstr(
		c->warnings.v[2],
		":7: [kworker:kworker/nothing*]: matches no kworker now"));
	config_free(c);
}

/* No sysfs to look at (a build machine): nothing to warn about */
static void test_unmatched_without_sysfs(void **state)
{
	struct strlist errs = { 0 };
	struct config *c;

	(void)state;
	assert_int_equal(config_load(ft_conf(&ft, "[wq:x]\nnice = 1\n"),
				     "/nonexistent", &c, &errs),
			 0);
	assert_int_equal(c->warnings.n, 0);
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_kinds_from_sysfs),
		T(test_param_unbound_is_unbound),
		T(test_out_of_reach_from_proc),
		T(test_no_series_no_sysfs_param_advice),
		T(test_matching_section),
		T(test_list_table),
		T(test_list_json),
		T(test_unmatched_section_warns),
		T(test_unmatched_without_sysfs),
#undef T
	};

	return cmocka_run_group_tests_name("list", tests, NULL, NULL);
}
