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
 *
 * sched.fair_server_stopped_twice starves CPU 1's fair tasks with a
 * SCHED_FIFO loop, as RT kworkers do, and checks that what the scheduler
 * does afterwards logs no warning.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

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

/*
 * RT workers that starve the fair tasks of a CPU, and the scheduler's fair
 * server (its SCHED_DEADLINE reservation for them) afterwards.
 *
 * When a SCHED_FIFO task has kept a CPU's fair tasks off it for most of
 * a period, the fair server runs them; when they are gone it stops
 * itself. 6.12 then stopped it a second time when the CPU went offline
 * or its fair_server runtime was written, which took its bandwidth out
 * of running_bw twice and warned (kernel/stable/0001-*). The debugfs
 * write reaches that second stop every time; the hotplug path only when
 * nothing fair runs on the CPU during the teardown.
 */
#define CPU1_FAIR_RUNTIME "/sys/kernel/debug/sched/fair_server/cpu1/runtime"
#define RT_RUNTIME "/proc/sys/kernel/sched_rt_runtime_us"

FIXTURE(sched) {
	char rt_runtime[32];
	int kmsg;
};

FIXTURE_SETUP(sched)
{
	self->kmsg = -1;
	self->rt_runtime[0] = '\0';
	if (cpu_count_possible() < 2 || !cpu_hotpluggable(1))
		SKIP(return, "needs a second CPU");
	if (!wqrt_exists(CPU1_FAIR_RUNTIME))
		SKIP(return, "no %s (CONFIG_SCHED_DEBUG, debugfs)",
		     CPU1_FAIR_RUNTIME);
	ASSERT_EQ(0, cpu_set_online(1, true));
	/*
	 * RT throttling would give the starved task its CPU back before the
	 * fair server does; without it the fair server is what ends the
	 * starvation.
	 */
	ASSERT_LE(0, wqrt_read(RT_RUNTIME, self->rt_runtime,
			       sizeof(self->rt_runtime)));
	ASSERT_EQ(0, wqrt_write(RT_RUNTIME, "-1"));
	self->kmsg = kmsg_open_at_end();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(sched)
{
	if (self->rt_runtime[0])
		wqrt_write(RT_RUNTIME, self->rt_runtime);
	if (self->kmsg >= 0)
		close(self->kmsg);
}

struct starve {
	volatile int stop;
	int victim_on_cpu1;	/* the fair thread runs on CPU 1 */
	double gap;	/* the longest the fair thread waited for its CPU */
	int err;
};

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* SCHED_FIFO on CPU 1, busy until told to stop (10 s at most). */
static void *fifo_hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct starve *st = arg;
	double end = wqrt_now() + 10;

	pin_self(1);
	st->err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE) &&
	       wqrt_now() < end)
		;
	return NULL;
}

/* SCHED_OTHER on CPU 1: leaves as soon as it ran after a long wait. */
static void *fair_victim(void *arg)
{
	struct starve *st = arg;
	double last, now, end;

	pin_self(1);
	__atomic_store_n(&st->victim_on_cpu1, 1, __ATOMIC_RELEASE);
	last = wqrt_now();
	end = last + 10;
	while ((now = wqrt_now()) < end) {
		if (now - last > 0.3)
			break;
		last = now;
	}
	st->gap = now - last;
	return NULL;
}

TEST_F_TIMEOUT(sched, fair_server_stopped_twice, 60)
{
	char runtime[32], reports[1024];
	struct starve st = {};
	pthread_t hog, victim;
	int round, n;

	ASSERT_LE(0, wqrt_read(CPU1_FAIR_RUNTIME, runtime, sizeof(runtime)));
	pin_self(0);
	for (round = 0; round < 3; round++) {
		st.stop = 0;
		st.gap = 0;
		st.victim_on_cpu1 = 0;
		ASSERT_EQ(0, pthread_create(&victim, NULL, fair_victim, &st));
		/* the victim runs on CPU 1 before the loop takes that CPU */
		while (!__atomic_load_n(&st.victim_on_cpu1, __ATOMIC_ACQUIRE))
			wqrt_msleep(1);
		ASSERT_EQ(0, pthread_create(&hog, NULL, fifo_hog, &st));
		pthread_join(victim, NULL);
		/*
		 * The fair server ran the victim and, with nothing fair
		 * left on CPU 1, stopped itself; the FIFO loop keeps
		 * anything else fair from starting it again. Rewriting the
		 * runtime (same value) stops it once more.
		 */
		n = wqrt_write(CPU1_FAIR_RUNTIME, runtime);
		__atomic_store_n(&st.stop, 1, __ATOMIC_RELEASE);
		pthread_join(hog, NULL);
		ASSERT_EQ(0, st.err) {
			TH_LOG("SCHED_FIFO: %s", strerror(st.err));
		}
		ASSERT_EQ(0, n) {
			TH_LOG("writing %s: %s", CPU1_FAIR_RUNTIME, strerror(-n));
		}
		/* the FIFO loop really starved it, the fair server ended that */
		EXPECT_LT(0.3, st.gap);
		EXPECT_GT(5.0, st.gap);
		TH_LOG("round %d: the fair thread waited %.3f s", round, st.gap);
		/* and CPU 1 can still go offline and come back */
		ASSERT_EQ(0, cpu_set_online(1, false));
		ASSERT_EQ(0, cpu_set_online(1, true));
	}
	n = kmsg_reports(self->kmsg, reports, sizeof(reports));
	EXPECT_EQ(0, n) {
		TH_LOG("the kernel reported:\n%s", reports);
	}
}

WQRT_HARNESS_MAIN_DISRUPTIVE("wqrt_test", DBG_DIR "/info",
			     "it takes every hotpluggable CPU offline and online again for minutes, and starves CPU 1 with a SCHED_FIFO loop")
