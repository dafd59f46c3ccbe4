// SPDX-License-Identifier: GPL-2.0
/*
 * wq_flush - flush_workqueue(), flush_work() and drain_workqueue() return
 * only after everything queued before them has finished, while many
 * kthreads queue and flush concurrently on per-cpu, unbound and ordered
 * workqueues, while more flushes are in flight than there are work colors,
 * while the unbound workqueue's pwqs are released by attribute changes and
 * while a CPU goes offline and online.
 *
 * The work is done by the wqrt_flush module (selftests/modules/
 * wqrt_flush.c), which checks every flush against per-item sequence
 * numbers and reports what it found; this program drives it, churns the
 * attributes and the CPUs, and asserts on its counters. On a kernel where
 * a work item queued on a pwq that went idle can be stamped with a retired
 * work color, "late" is not 0.
 *
 * WQRT_FLUSH_SECS overrides the length of each run (default 4 s).
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define FLUSH_DBG	"/sys/kernel/debug/wqrt_flush/run"
#define FLUSH_WQ	"wqrt_flush_unbound"

static int flush_secs(void)
{
	const char *s = getenv("WQRT_FLUSH_SECS");
	int v = s ? atoi(s) : 0;

	return v > 0 && v <= 600 ? v : 4;
}

/* ------------------------------------------------------------------ */
/* background churn: CPU hotplug and unbound attribute changes         */

struct churn {
	pthread_t hotplug_th, attrs_th;
	bool hotplug_on, attrs_on;
	volatile int stop;
	int plug_cycles, plug_errors, plug_err;
	int attr_writes, attr_errors, attr_err;
	char attr_err_what[64];
};

static bool churn_stopped(struct churn *c)
{
	return __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
}

/* CPU 1 (and up) offline and online again, round and round */
static void *hotplug_thread(void *arg)
{
	struct churn *c = arg;
	int ncpu = cpu_count_possible(), cpu, ret;

	while (!churn_stopped(c)) {
		for (cpu = 1; cpu < ncpu && !churn_stopped(c); cpu++) {
			if (!cpu_hotpluggable(cpu))
				continue;
			ret = cpu_set_online(cpu, false);
			if (ret && ret != -EBUSY) {
				c->plug_errors++;
				c->plug_err = ret;
			}
			wqrt_msleep(50);
			ret = cpu_set_online(cpu, true);
			if (ret) {
				c->plug_errors++;
				c->plug_err = ret;
			}
			c->plug_cycles++;
			wqrt_msleep(100);
		}
	}
	return NULL;
}

static void attr_write(struct churn *c, const char *attr, const char *val)
{
	int ret = wq_set(FLUSH_WQ, attr, val);

	if (ret) {
		c->attr_errors++;
		c->attr_err = ret;
		snprintf(c->attr_err_what, sizeof(c->attr_err_what), "%s=%s",
			 attr, val);
	} else {
		c->attr_writes++;
	}
}

/*
 * Each write gives the unbound workqueue new pwqs and releases the old
 * ones once their work items are done, while flushes are in flight. With
 * the series, policy and rtprio move it to RT pools and back.
 */
static void *attrs_thread(void *arg)
{
	struct churn *c = arg;
	bool rt = wq_has(FLUSH_WQ, "policy");
	int i = 0;

	while (!churn_stopped(c)) {
		attr_write(c, "nice", i & 1 ? "-5" : "0");
		if (rt) {
			attr_write(c, "policy", i & 1 ? "fifo" : "normal");
			if (i & 1)
				attr_write(c, "rtprio", i & 2 ? "10" : "20");
		}
		i++;
		wqrt_msleep(20);
	}
	return NULL;
}

static void churn_start(struct __test_metadata *_metadata, struct churn *c,
			bool attrs)
{
	/* the policy writes of attrs_thread() where the series is declared */
	if (attrs && wqrt_series_expected() == 1)
		ASSERT_TRUE(wq_has(FLUSH_WQ, "policy")) {
			TH_LOG("wqrt.series=1 but %s has no policy attribute",
			       FLUSH_WQ);
		}
	memset(c, 0, sizeof(*c));
	if (cpu_count_possible() > 1 && cpu_hotpluggable(1)) {
		ASSERT_EQ(0, pthread_create(&c->hotplug_th, NULL,
					    hotplug_thread, c));
		c->hotplug_on = true;
	} else {
		TH_LOG("no hotpluggable CPU: running without CPU hotplug");
	}
	if (attrs) {
		ASSERT_TRUE(wq_has(FLUSH_WQ, "nice"));
		ASSERT_EQ(0, pthread_create(&c->attrs_th, NULL, attrs_thread,
					    c));
		c->attrs_on = true;
	}
}

static void churn_stop(struct __test_metadata *_metadata, struct churn *c)
{
	__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
	if (c->hotplug_on) {
		pthread_join(c->hotplug_th, NULL);
		TH_LOG("%d CPU offline/online cycles", c->plug_cycles);
		EXPECT_EQ(0, c->plug_errors) {
			TH_LOG("CPU hotplug failed: %s", strerror(-c->plug_err));
		}
		EXPECT_LT(0, c->plug_cycles);
	}
	if (c->attrs_on) {
		pthread_join(c->attrs_th, NULL);
		TH_LOG("%d attribute writes to %s", c->attr_writes, FLUSH_WQ);
		EXPECT_EQ(0, c->attr_errors) {
			TH_LOG("writing %s failed: %s", c->attr_err_what,
			       strerror(-c->attr_err));
		}
		EXPECT_LT(0, c->attr_writes);
	}
}

/* ------------------------------------------------------------------ */

FIXTURE(flush) {
	char out[1024];
};

FIXTURE_SETUP(flush)
{
	char why[256];

	if (wqrt_load_test_module("wqrt_flush", FLUSH_DBG, why, sizeof(why)))
		SKIP(return, "%s", why);
}

FIXTURE_TEARDOWN(flush)
{
	int cpu;

	/* whatever happened, leave every CPU online and the defaults */
	for (cpu = 1; cpu < cpu_count_possible(); cpu++)
		if (cpu_hotpluggable(cpu))
			cpu_set_online(cpu, true);
	if (wq_has(FLUSH_WQ, "policy"))
		wq_set(FLUSH_WQ, "policy", "normal");
	if (wq_has(FLUSH_WQ, "nice"))
		wq_set(FLUSH_WQ, "nice", "0");
}

/* Run the module, log its line, return it parsed into self->out. */
static void flush_run(struct __test_metadata *_metadata, char *out,
		      size_t len, const char *fmt, ...)
{
	char args[256], rec[1024], *text;
	va_list ap;
	int ret, kfd;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	kfd = kmsg_open_at_end();
	ret = wqrt_write(FLUSH_DBG, args);
	ASSERT_EQ(0, ret) {
		TH_LOG("writing '%s' to %s: %s", args, FLUSH_DBG,
		       strerror(-ret));
	}
	ASSERT_LE(0, wqrt_read(FLUSH_DBG, out, len));
	TH_LOG("%s", out);
	/* on a failure, what the module logged about the items it counted */
	while (kfd >= 0 && !kv_pass(out) &&
	       (text = wqrt_kmsg_next(kfd, rec, sizeof(rec))))
		if (!strncmp(text, "wqrt_flush: ", strlen("wqrt_flush: ")))
			TH_LOG("kernel: %.*s", (int)strcspn(text, "\n"), text);
	if (kfd >= 0)
		close(kfd);
}

/* What the user checks: nothing queued before a flush was still pending. */
static void expect_no_lost_wait(struct __test_metadata *_metadata,
				const char *out)
{
	EXPECT_LT(0, kv_long(out, "flushes", 0));
	EXPECT_EQ(0, kv_long(out, "late", -1)) {
		TH_LOG("flush_workqueue() returned before work items queued before it had finished");
	}
	EXPECT_EQ(0, kv_long(out, "cross_late", -1)) {
		TH_LOG("flush_workqueue() returned before other threads' earlier work items had finished");
	}
	EXPECT_EQ(0, kv_long(out, "barrier_late", -1));
	EXPECT_EQ(0, kv_long(out, "drain_late", -1));
	EXPECT_TRUE(kv_pass(out));
}

static void seq_test(struct __test_metadata *_metadata, char *out,
		     size_t len, const char *wq, bool attrs)
{
	struct churn c;

	churn_start(_metadata, &c, attrs);
	flush_run(_metadata, out, len, "mode=seq wq=%s secs=%d threads=8 items=4",
		  wq, flush_secs());
	churn_stop(_metadata, &c);
	expect_no_lost_wait(_metadata, out);
}

TEST_F_TIMEOUT(flush, seq_percpu, 120)
{
	seq_test(_metadata, self->out, sizeof(self->out), "percpu", false);
}

TEST_F_TIMEOUT(flush, seq_unbound, 120)
{
	seq_test(_metadata, self->out, sizeof(self->out), "unbound", true);
}

TEST_F_TIMEOUT(flush, seq_ordered, 120)
{
	seq_test(_metadata, self->out, sizeof(self->out), "ordered", false);
}

/*
 * 2 * WORK_NR_COLORS flushers with a slow item each: more flushes in flight
 * than colors, so flushers overflow and the first flusher cascades color
 * after color.
 */
TEST_F_TIMEOUT(flush, cascade_of_colors, 180)
{
	static const char * const wqs[] = { "percpu", "unbound", "ordered" };
	struct churn c;
	unsigned int i;

	churn_start(_metadata, &c, true);
	for (i = 0; i < sizeof(wqs) / sizeof(wqs[0]); i++) {
		flush_run(_metadata, self->out, sizeof(self->out),
			  "mode=cascade wq=%s secs=%d", wqs[i], flush_secs());
		expect_no_lost_wait(_metadata, self->out);
		/* the overflow queue was used: more flushers than colors */
		EXPECT_LT(kv_long(self->out, "colors", 16),
			  kv_long(self->out, "max_flushers", 0));
	}
	churn_stop(_metadata, &c);
}

/* flush_work() on items in flight, drain_workqueue() of requeueing chains */
TEST_F_TIMEOUT(flush, barriers, 180)
{
	static const char * const wqs[] = { "percpu", "unbound", "ordered" };
	struct churn c;
	unsigned int i;

	churn_start(_metadata, &c, true);
	for (i = 0; i < sizeof(wqs) / sizeof(wqs[0]); i++) {
		flush_run(_metadata, self->out, sizeof(self->out),
			  "mode=barrier wq=%s secs=%d threads=8", wqs[i],
			  flush_secs());
		expect_no_lost_wait(_metadata, self->out);
		EXPECT_LT(0, kv_long(self->out, "drains", 0));
	}
	churn_stop(_metadata, &c);
}

/*
 * drain_workqueue() of chains whose every link changes pwq. The drain
 * flushes, then looks at each pwq in turn, one pool lock at a time: a link
 * queued on a pwq the walk has already found empty, by a link that is done
 * before the walk reaches its own pwq, must not be missed. The walk sleeps
 * after each pwq (workqueue.debug_drain_visit_delay_us, a test knob of
 * kernel/variants/drain-window, which the plain kernel carries too), so
 * that the window is wide: on an unbound workqueue whose links go where
 * queue_work() puts them (workqueue.debug_force_rr_cpu round-robins them
 * over the CPUs, as a worker running on another CPU than its pwq's does),
 * with each link queue_work_on() the next CPU on the unbound workqueue,
 * and on a per-cpu one with two work items that queue each other there (a
 * work item that queues itself stays on the pool it runs on, and each CPU
 * has its own); one chain at a time, long (64 links of 200 us) so that it
 * outlasts a flush. Skips without the knob (a board's kernel).
 */
#define DRAIN_DELAY "debug_drain_visit_delay_us"

TEST_F_TIMEOUT(flush, drain_chains_change_pwq, 180)
{
	static const struct {
		const char *args;
		const char *force_rr;
	} runs[] = {
		{ "mode=barrier wq=unbound threads=1 chains=1 chain_len=64 chain_us=200", "Y" },
		{ "mode=barrier wq=unbound threads=1 chains=1 chain_len=64 chain_us=200 hop=1", "N" },
		{ "mode=barrier wq=percpu threads=1 chains=1 chain_len=64 chain_us=200 hop=1 pair=1", "N" },
	};
	char delay[32], rr[32];
	unsigned int i;

	if (!wqparam_exists(DRAIN_DELAY))
		SKIP(return, "kernel without the test knob of kernel/variants/drain-window: no %s/%s",
		     WQPARAM_DIR, DRAIN_DELAY);
	ASSERT_LE(0, wqparam_get(DRAIN_DELAY, delay, sizeof(delay)));
	ASSERT_LE(0, wqparam_get("debug_force_rr_cpu", rr, sizeof(rr)));
	ASSERT_EQ(0, wqparam_set(DRAIN_DELAY, "1000"));
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		ASSERT_EQ(0, wqparam_set("debug_force_rr_cpu", runs[i].force_rr));
		flush_run(_metadata, self->out, sizeof(self->out),
			  "%s secs=%d", runs[i].args, flush_secs());
		EXPECT_LT(0, kv_long(self->out, "drains", 0));
		EXPECT_EQ(0, kv_long(self->out, "drain_late", -1)) {
			TH_LOG("%s, debug_force_rr_cpu=%s: drain_workqueue() returned with chain links still to run",
			       runs[i].args, runs[i].force_rr);
		}
	}
	EXPECT_EQ(0, wqparam_set("debug_force_rr_cpu", rr));
	EXPECT_EQ(0, wqparam_set(DRAIN_DELAY, delay));
}

/*
 * The unbound workqueue's pwqs are replaced every few milliseconds, so
 * pwqs are released while flushes visit them and while they are listed
 * for the next flush.
 */
TEST_F_TIMEOUT(flush, pwq_release_mid_flush, 120)
{
	struct churn c;

	churn_start(_metadata, &c, true);
	flush_run(_metadata, self->out, sizeof(self->out),
		  "mode=seq wq=unbound secs=%d threads=16 items=8 delay_us=200",
		  flush_secs());
	churn_stop(_metadata, &c);
	expect_no_lost_wait(_metadata, self->out);
}

WQRT_HARNESS_MAIN_DISRUPTIVE("wqrt_flush", FLUSH_DBG,
			     "it takes CPU 1 offline and online again for minutes")
