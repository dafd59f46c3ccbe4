// SPDX-License-Identifier: GPL-2.0
/*
 * wq_stress - queue/flush/cancel from several kthreads on an unbound, a
 * per-cpu and an ordered workqueue (the wqrt_test module's "stress"
 * command) while CPUs go offline and online through sysfs.
 *
 * The module checks that every successfully queued item runs exactly once
 * or is cancelled (per-item and per-workqueue counters), that flush_work()
 * and cancel_work_sync() leave nothing due, and that the ordered workqueue
 * never runs two items at once or out of queueing order.  Splats and
 * lockups in the log are the runner's business.
 *
 * WQRT_STRESS_SECS overrides the duration (default 25 s).
 */
#include <pthread.h>

#include "kselftest_harness.h"
#include "wqrt_lib.h"

FIXTURE(stress) {
	bool ready;
};

FIXTURE_SETUP(stress)
{
	char why[256];

	if (wqrt_load_module(why, sizeof(why)))
		SKIP(return, "%s", why);
	self->ready = true;
}

FIXTURE_TEARDOWN(stress)
{
	int cpu;

	/* whatever happened, leave every CPU online */
	for (cpu = 1; cpu < cpu_count_possible(); cpu++)
		if (cpu_hotpluggable(cpu))
			cpu_set_online(cpu, true);
}

struct plug {
	volatile int stop;
	int cycles;
	int errors;
	int last_err;
};

/* Take each hotpluggable CPU offline and back online, round and round. */
static void *hotplug_thread(void *arg)
{
	struct plug *p = arg;
	int ncpu = cpu_count_possible();

	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		int cpu, did = 0;

		for (cpu = 1; cpu < ncpu; cpu++) {
			int ret;

			if (!cpu_hotpluggable(cpu))
				continue;
			ret = cpu_set_online(cpu, false);
			if (ret) {
				p->errors++;
				p->last_err = ret;
			}
			wqrt_msleep(200);
			ret = cpu_set_online(cpu, true);
			if (ret) {
				p->errors++;
				p->last_err = ret;
			}
			did = 1;
			p->cycles++;
			wqrt_msleep(300);
			if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
				break;
		}
		if (!did)
			break;
	}
	return NULL;
}

/* TH_LOG each line, so that every line of the output stays a TAP comment */
static void log_lines(struct __test_metadata *_metadata, const char *out)
{
	char *copy = strdup(out), *save = NULL, *line;

	if (!copy)
		return;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		TH_LOG("%s", line);
	free(copy);
}

static int stress_secs(void)
{
	const char *s = getenv("WQRT_STRESS_SECS");
	int v = s ? atoi(s) : 0;

	return v > 0 && v <= 600 ? v : 25;
}

TEST_F_TIMEOUT(stress, queue_flush_cancel_with_hotplug, 300)
{
	static char out[WQRT_RESULT_MAX];
	struct plug plug = {};
	pthread_t th;
	char args[96];
	int cpu, ret;

	snprintf(args, sizeof(args), "secs=%d threads=4 items=16",
		 stress_secs());
	ASSERT_EQ(0, pthread_create(&th, NULL, hotplug_thread, &plug));
	ret = dbg_run("stress", args, out, sizeof(out));
	__atomic_store_n(&plug.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	ASSERT_EQ(0, ret);

	TH_LOG("%d CPU offline/online cycles, %d errors", plug.cycles,
	       plug.errors);
	log_lines(_metadata, out);
	EXPECT_TRUE(kv_pass(out));
	EXPECT_LT(0, kv_long(out, "queued", 0));
	EXPECT_EQ(0, kv_long(out, "lost", -1));
	EXPECT_EQ(0, kv_long(out, "dup", -1));
	EXPECT_EQ(0, kv_long(out, "flush_viol", -1));
	EXPECT_EQ(0, kv_long(out, "ord_concurrent", -1));
	EXPECT_EQ(0, kv_long(out, "ord_out_of_order", -1));
	EXPECT_EQ(0, plug.errors) {
		TH_LOG("CPU hotplug failed: %s", strerror(-plug.last_err));
	}
	if (cpu_count_possible() > 1 && cpu_hotpluggable(1)) {
		EXPECT_LT(0, plug.cycles);
	} else {
		TH_LOG("no hotpluggable CPU: ran without hotplug");
	}

	for (cpu = 1; cpu < cpu_count_possible(); cpu++) {
		char p[128], buf[8];

		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/online", cpu);
		if (wqrt_read(p, buf, sizeof(buf)) >= 0)
			EXPECT_STREQ("1", buf);
	}
}

/* The ordered workqueue on its own: 10000 items, in order, one at a time. */
TEST_F_TIMEOUT(stress, ordered_in_order, 200)
{
	char out[1024];

	ASSERT_EQ(0, dbg_run("ordered_check", "n=10000 pause_every=100 pause_us=100",
			     out, sizeof(out)));
	TH_LOG("%s", out);
	EXPECT_TRUE(kv_pass(out));
	EXPECT_EQ(10000, kv_long(out, "executed", -1));
	EXPECT_EQ(0, kv_long(out, "concurrent", -1));
	EXPECT_EQ(0, kv_long(out, "out_of_order", -1));
}

WQRT_HARNESS_MAIN("wqrt_test", DBG_DIR "/info")
