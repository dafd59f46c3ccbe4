// SPDX-License-Identifier: GPL-2.0-only
/*
 * RT-safety advice of wqrtctl check and check-kernel (issue 31.4), on a
 * fake tree: a profile at or above its device's threaded IRQ handler, RT
 * throttling with and without stalld, a cpumask on isolated CPUs, a
 * reserve asked of a kernel without the series, a [kworker:] rule that
 * makes every unbound work item RT.
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

#include "advice.h"
#include "config_load.h"
#include "faketree.h"

static struct faketree ft;

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_capture_logs();
	ft_wq(&ft, "ttyS-serial_8250", true);
	ft_wq(&ft, "writeback", true);
	/* the 8250's threaded handler of ttyS0 and another device's */
	ft_task(&ft, 95, 2, "irq/4-ttyS0", SCHED_FIFO, 50, 0, 10);
	ft_task(&ft, 96, 2, "irq/11-eth0", SCHED_FIFO, 50, 0, 10);
	ft_write(&ft, "/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
	ft_write(&ft, "/proc/sys/kernel/sched_rt_period_us", "1000000\n");
	ft_write(&ft, "/proc/cmdline", "console=ttyS0\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_cleanup(&ft);
	return 0;
}

static struct config *load(const char *text)
{
	struct strlist errors = { 0 };
	struct config *cfg = NULL;

	assert_int_equal(config_load(ft_conf(&ft, text), ft.root, &cfg,
				     &errors),
			 0);
	strlist_free(&errors);
	return cfg;
}

/* The one line of out that contains what, or NULL */
static const char *line_with(const struct strlist *out, const char *what)
{
	size_t i;

	for (i = 0; i < out->n; i++)
		if (strstr(out->v[i], what))
			return out->v[i];
	return NULL;
}

static void test_irq_thread_priority(void **state)
{
	struct config *cfg = load("[wq:ttyS-*]\npolicy = fifo\nrtprio = 50\n"
				  "[wq:writeback]\npolicy = fifo\nrtprio = 60\n");
	struct strlist out = { 0 };
	const char *l;

	(void)state;
	advice_config(ft.root, cfg, &out);
	l = line_with(&out, "[wq:ttys-*]");
	assert_non_null(l);
	assert_non_null(strstr(l, "warning:"));
	/* it names the handler and its priority */
	assert_non_null(strstr(l, "irq/4-ttyS0 (pid 95, FIFO 50)"));
	/* no device of its own: the handlers it is above, as a note */
	l = line_with(&out, "[wq:writeback]");
	assert_non_null(l);
	assert_non_null(strstr(l, "note:"));
	assert_non_null(strstr(l, "2 threaded IRQ handler(s)"));
	strlist_free(&out);
	config_free(cfg);

	/* below the handler: said, and no warning */
	cfg = load("[wq:ttyS-serial_8250]\npolicy = fifo\nrtprio = 20\n");
	advice_config(ft.root, cfg, &out);
	assert_null(line_with(&out, "warning:"));
	l = line_with(&out, "runs after irq/4-ttyS0");
	assert_non_null(l);
	strlist_free(&out);
	config_free(cfg);

	/* a normal profile has no priority to compare */
	cfg = load("[wq:ttyS-serial_8250]\nnice = -10\n");
	advice_config(ft.root, cfg, &out);
	assert_int_equal(out.n, 0);
	strlist_free(&out);
	config_free(cfg);
}

/*
 * Issue 43.4: seed 004's recipe binds the RT flip workqueue to the CPUs
 * of its port's threaded IRQ handler. check says when the workqueue's
 * CPUs (its rule's cpumask, else its cpumask in sysfs, offline CPUs left
 * out) reach beyond the handler's (the IRQ's effective affinity, else
 * the affinity asked for), and names the cpumask that binds it.
 */
static void test_irq_cpus(void **state)
{
	struct config *cfg = load("[wq:ttyS-*]\npolicy = fifo\nrtprio = 20\n");
	struct strlist out = { 0 };
	const char *l;

	(void)state;
	ft_write(&ft, "/sys/devices/system/cpu/online", "0-3\n");
	ft_write(&ft, "/proc/irq/4/smp_affinity_list", "0-3\n");
	ft_write(&ft, "/proc/irq/4/effective_affinity_list", "1\n");
	/* sysfs: every CPU (0000000f) */
	advice_config(ft.root, cfg, &out);
	l = line_with(&out, "[wq:ttys-*] may run its work on CPU(s) 0-3 (ttyS-serial_8250's cpumask)");
	assert_non_null(l);
	assert_non_null(strstr(l, "handled on CPU(s) 1 (irq/4-ttyS0)"));
	assert_non_null(strstr(l, "cpumask = 1 binds it"));
	assert_non_null(strstr(l, "cpumask = irq:ttyS0 follows them"));
	strlist_free(&out);
	config_free(cfg);

	/* bound to the handler's CPU: nothing to say */
	cfg = load("[wq:ttyS-*]\npolicy = fifo\nrtprio = 20\ncpumask = 1\n");
	advice_config(ft.root, cfg, &out);
	assert_null(line_with(&out, "may run its work"));
	strlist_free(&out);
	config_free(cfg);

	/* the sysfs cpumask, offline CPUs left out: CPUs 0-1 of 0-3 */
	ft_write(&ft, "/sys/devices/system/cpu/online", "0-1\n");
	ft_write(&ft, "/proc/irq/4/effective_affinity_list", "\n");
	ft_write(&ft, "/proc/irq/4/smp_affinity_list", "0-1\n");
	cfg = load("[wq:ttyS-*]\npolicy = fifo\nrtprio = 20\n");
	advice_config(ft.root, cfg, &out);
	assert_null(line_with(&out, "may run its work"));
	/* the interrupt moved to CPU 0 alone (no effective list: asked) */
	ft_write(&ft, "/proc/irq/4/smp_affinity_list", "0\n");
	advice_config(ft.root, cfg, &out);
	l = line_with(&out, "may run its work on CPU(s) 0-1");
	assert_non_null(l);
	assert_non_null(strstr(l, "cpumask = 0 binds it"));
	strlist_free(&out);
	config_free(cfg);

	/* a normal profile, or no handler of its device: nothing */
	cfg = load("[wq:writeback]\npolicy = fifo\nrtprio = 20\n");
	advice_config(ft.root, cfg, &out);
	assert_null(line_with(&out, "may run its work"));
	strlist_free(&out);
	config_free(cfg);

	/* cpumask = irq:ttyS0 follows them: the CPUs now, no binding advice */
	ft_write(&ft, "/proc/irq/4/ttyS0/.dir", "");
	cfg = load("[wq:ttyS-*]\npolicy = fifo\nrtprio = 20\n"
		   "cpumask = irq:ttyS0\n[wq:writeback]\ncpumask = irq:eth9\n");
	advice_config(ft.root, cfg, &out);
	assert_null(line_with(&out, "may run its work"));
	l = line_with(&out, "note: [wq:ttys-*] cpumask = irq:ttyS0: CPU(s) 0 now");
	assert_non_null(l);
	l = line_with(&out, "warning: [wq:writeback] cpumask = irq:eth9: no interrupt has a handler called eth9");
	assert_non_null(l);
	strlist_free(&out);
	config_free(cfg);
}

static void test_throttling_and_stalld(void **state)
{
	struct strlist out = { 0 };
	const char *l;

	(void)state;
	advice_system(ft.root, &out);
	l = line_with(&out, "RT throttling is on");
	assert_non_null(l);
	assert_non_null(strstr(l, "50 ms"));
	assert_non_null(strstr(l, "stalld (not running)"));
	strlist_free(&out);

	/* off, and no stalld: a looping RT work item starves the CPU */
	ft_write(&ft, "/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	advice_system(ft.root, &out);
	l = line_with(&out, "warning: RT throttling is off");
	assert_non_null(l);
	strlist_free(&out);

	/* off, with stalld running: nothing to say */
	ft_task(&ft, 700, 1, "stalld", SCHED_FIFO, 1, 0, 10);
	ft_write(&ft, "/proc/700/comm", "stalld\n");
	advice_system(ft.root, &out);
	assert_int_equal(out.n, 0);
	strlist_free(&out);
}

static void test_isolated_cpus(void **state)
{
	struct config *cfg = load("[wq:ttyS-serial_8250]\ncpumask = 1-3\n"
				  "[wq:writeback]\ncpumask = 0\n");
	struct strlist out = { 0 };
	const char *l;

	(void)state;
	/* the command line when sysfs does not say */
	ft_write(&ft, "/proc/cmdline",
		 "console=ttyS0 isolcpus=domain,managed_irq,2-3 quiet\n");
	advice_config(ft.root, cfg, &out);
	l = line_with(&out, "[wq:ttys-serial_8250] cpumask includes isolated CPU(s) 2-3");
	assert_non_null(l);
	assert_non_null(strstr(l, "isolcpus=domain,managed_irq,2-3"));
	assert_null(line_with(&out, "[wq:writeback]"));
	strlist_free(&out);

	/* the kernel's own lists win: nohz_full */
	ft_write(&ft, "/sys/devices/system/cpu/isolated", "\n");
	ft_write(&ft, "/sys/devices/system/cpu/nohz_full", "3\n");
	advice_config(ft.root, cfg, &out);
	l = line_with(&out, "isolated CPU(s) 3 (nohz_full 3)");
	assert_non_null(l);
	strlist_free(&out);
	config_free(cfg);
}

static void test_reserve_without_series(void **state)
{
	struct config *cfg;
	struct strlist out = { 0 };

	(void)state;
	/* with the series: nothing to say */
	cfg = load("[wq:writeback]\nnr_idle_extra = 2\n");
	advice_config(ft.root, cfg, &out);
	assert_int_equal(out.n, 0);
	config_free(cfg);

	/* 6.12 alone: workqueues without the series' attributes */
	ft_cleanup(&ft);
	ft_init(&ft);
	ft_wq(&ft, "writeback", false);
	cfg = load("[wq:writeback]\nnr_idle_extra = 2\n");
	advice_config(ft.root, cfg, &out);
	assert_non_null(line_with(&out, "warning: [wq:writeback] asks for a reserve (nr_idle_extra)"));
	assert_non_null(line_with(&out, "fallback mode"));
	strlist_free(&out);
	config_free(cfg);
}

/*
 * Issue 47: a [kworker:] rule that makes the unbound kworkers RT makes
 * every unbound work item of the system RT, not only the one the user had
 * in mind: check says so, with the unbound workqueues it can see. A rule
 * on one pool's per-CPU kworkers, or a normal policy, says nothing of it.
 */
static void test_kworker_rule_cost(void **state)
{
	struct config *cfg;
	struct strlist out = { 0 };
	const char *l;

	(void)state;
	ft_wq(&ft, "events_unbound", true);
	ft_set(&ft, "events_unbound", "per_cpu", "1");
	cfg = load("[kworker:kworker/u*]\npolicy = fifo\nrtprio = 20\n");
	advice_config(ft.root, cfg, &out);
	l = line_with(&out, "[kworker:kworker/u*]");
	assert_non_null(l);
	assert_non_null(strstr(l, "every unbound work item"));
	/* the two unbound workqueues of the tree, not the per-CPU one */
	assert_non_null(strstr(l, "2 unbound workqueue(s) in sysfs"));
	assert_non_null(strstr(l, "ttyS-serial_8250"));
	assert_non_null(strstr(l, "writeback"));
	assert_null(strstr(l, "events_unbound"));
	strlist_free(&out);
	config_free(cfg);

	cfg = load("[kworker:kworker/0:*]\npolicy = fifo\nrtprio = 20\n"
		   "[kworker:kworker/u*]\npolicy = normal\nnice = -5\n");
	advice_config(ft.root, cfg, &out);
	assert_null(line_with(&out, "every unbound work item"));
	l = line_with(&out, "[kworker:kworker/0:*]");
	assert_non_null(l);
	assert_non_null(strstr(l, "every per-CPU work item"));
	strlist_free(&out);
	config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_irq_thread_priority, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_irq_cpus, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_throttling_and_stalld,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_isolated_cpus, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reserve_without_series,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_kworker_rule_cost, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
