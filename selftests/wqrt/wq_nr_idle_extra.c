// SPDX-License-Identifier: GPL-2.0
/*
 * wq_nr_idle_extra - the per-pool reserve of idle workers.
 *
 *  - after nr_idle_extra=N the workqueue's pools hold at least N + 1
 *    workers (idle: nothing is queued; N in addition to the one idle
 *    worker every pool keeps) within a bounded time, and keep them past
 *    the idle timeout (shortened through workqueue.debug_idle_timeout_ms
 *    when the kernel has CONFIG_WQ_DEBUG_WAKE_DELAY);
 *  - a burst of N blocking items on a pool with reserve N (N workers ready
 *    before it) runs all N at once on N workers with the pool's policy;
 *  - reserve 0 culls down like plain 6.12;
 *  - policy writes leave nr_idle_extra alone, in both directions;
 *  - bad values are rejected with EINVAL, a reserve above the cap of 64
 *    over the workqueue's pods with ERANGE, and change nothing;
 *  - a pool whose worker creation stalls (kthreadd stuck, emulated with
 *    workqueue.debug_create_delay_ms) while a reserve is being refilled
 *    still runs the item of a WQ_MEM_RECLAIM workqueue on its rescuer;
 *  - the reserve of an RT pool is refilled while SCHED_FIFO loops of a
 *    lower priority occupy every CPU: its own workers refill it, not a
 *    SCHED_NORMAL kworker, an irq_work or a timer, none of which runs then.
 *
 * SKIPs on kernels without the attribute.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>

#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define WQ	WQ_TWIN_NAME
#define FRESH	"wqrt_test_fresh"
#define REC	WQ_RECLAIM_NAME
#define IDLE_MS	200

FIXTURE(nie) {
	struct wq_snap orig;
	struct wq_snap orig_rec;
	char timeout[32];
	bool have_timeout;
	bool ready;
};

FIXTURE_SETUP(nie)
{
	char why[256];

	if (wqrt_load_module(why, sizeof(why)))
		SKIP(return, "%s", why);
	if (!wq_has(WQ, "nr_idle_extra"))
		SKIP(return, "kernel without nr_idle_extra: no %s/%s/nr_idle_extra",
		     WQ_DIR, WQ);
	ASSERT_EQ(0, wq_snapshot(WQ, &self->orig));
	ASSERT_EQ(0, wq_snapshot(REC, &self->orig_rec));
	self->have_timeout = wqparam_exists("debug_idle_timeout_ms") &&
		wqparam_get("debug_idle_timeout_ms", self->timeout,
			    sizeof(self->timeout)) >= 0;
	self->ready = true;
}

FIXTURE_TEARDOWN(nie)
{
	static const char * const order[] = {
		"policy", "rtprio", "nr_idle_extra", "private", "nice",
		"affinity_scope", NULL,
	};

	if (!self->ready)
		return;
	/* a test that took CPU 1 away gives it back */
	if (cpu_hotpluggable(1))
		cpu_set_online(1, true);
	wq_snap_restore(WQ, &self->orig, order);
	wq_snap_restore(REC, &self->orig_rec, order);
	if (wqparam_exists("debug_create_delay_ms"))
		wqparam_set("debug_create_delay_ms", "0");
	if (self->have_timeout)
		wqparam_set("debug_idle_timeout_ms", self->timeout);
	EXPECT_EQ(0, wq_get_int(WQ, "nr_idle_extra"));
}

/* Smallest worker count over the pools of @wq; -1 without pools. */
static int min_pool_workers(const char *wq, int *npools)
{
	int ids[64], n, i, min = -1;

	n = wq_pool_ids(wq, ids, 64);
	for (i = 0; i < n; i++) {
		int c = pool_workers(ids[i], NULL, 0);

		if (min < 0 || c < min)
			min = c;
	}
	if (npools)
		*npools = n;
	return min;
}

/* Wait up to @secs for every pool of @wq to hold >= @want workers. */
static int wait_filled(const char *wq, int want, double secs)
{
	double end = wqrt_now() + secs;
	int min;

	do {
		min = min_pool_workers(wq, NULL);
		if (min >= want)
			return min;
		wqrt_msleep(50);
	} while (wqrt_now() < end);
	return min;
}

/*
 * Wait up to @secs for every pool of @wq to be quiet with at least @want
 * workers: all of them idle, none running an item or creating a worker.
 * Returns the smallest number of idle workers over the pools when it gave
 * up (or @want and more when they were there).
 */
static int wait_idle(const char *wq, int want, double secs)
{
	double end = wqrt_now() + secs;
	int ids[64], n, i, min;

	do {
		n = wq_pool_ids(wq, ids, 64);
		min = n > 0 ? INT_MAX : -1;
		for (i = 0; i < n; i++) {
			int idle, all = pool_workers_idle(ids[i], &idle);

			/* a worker still busy counts as missing */
			if (idle < all)
				idle = idle < want ? idle : want - 1;
			if (idle < min)
				min = idle;
		}
		if (min >= want)
			return min;
		wqrt_msleep(20);
	} while (wqrt_now() < end);
	return min;
}

/*
 * @WQ on a fresh pool (wq_fresh_pool()), with the short idle timeout when
 * @short_timeout (timers armed from now on).
 */
static void fresh_twin_pool(struct __test_metadata *_metadata,
			    bool short_timeout)
{
	char v[16];

	if (short_timeout) {
		snprintf(v, sizeof(v), "%d", IDLE_MS);
		ASSERT_EQ(0, wqparam_set("debug_idle_timeout_ms", v));
	}
	/* a new owner key: nobody else's pool, created after the write */
	ASSERT_EQ(0, wq_fresh_pool(WQ, WQ_NICE_KEEP));
}

static int run_burst(struct __test_metadata *_metadata, int n, int hold_ms,
		     char *out, size_t len)
{
	char args[96];

	snprintf(args, sizeof(args), "wq=twin n=%d hold_ms=%d", n, hold_ms);
	EXPECT_EQ(0, dbg_run("burst", args, out, len));
	return kv_long(out, "max_concurrent", -1);
}

TEST_F_TIMEOUT(nie, reserve_filled_and_kept, 120)
{
	static char out[WQRT_RESULT_MAX];
	const int N = 4;
	double t0, deadline, at;
	int min, i;

	fresh_twin_pool(_metadata, self->have_timeout);
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));
	EXPECT_EQ(N, wq_get_int(WQ, "nr_idle_extra"));

	/* N in reserve plus the idle worker every pool keeps */
	min = wait_filled(WQ, N + 1, 15);
	ASSERT_LE(N + 1, min) {
		TH_LOG("nr_idle_extra=%d but a pool has %d workers after 15 s, want %d",
		       N, min, N + 1);
	}

	if (!self->have_timeout)
		SKIP(return, "needs workqueue.debug_idle_timeout_ms (CONFIG_WQ_DEBUG_WAKE_DELAY) to see the reserve outlive the idle timeout");

	/*
	 * Grow the pool past the reserve; the cull takes the pool back down
	 * to the reserve and the idle worker it keeps, N + 1, and never
	 * further: watched until it is there, then for 5 more idle timeouts.
	 */
	EXPECT_EQ(2 * N, run_burst(_metadata, 2 * N, 10000, out, sizeof(out)));
	t0 = wqrt_now();
	deadline = t0 + 15;
	for (i = 0, at = -1; wqrt_now() < deadline; i++) {
		min = min_pool_workers(WQ, NULL);
		EXPECT_LE(N + 1, min) {
			TH_LOG("%.1f s after the burst (idle timeout %d ms): a pool has %d workers, reserve %d",
			       wqrt_now() - t0, IDLE_MS, min, N);
			break;
		}
		if (min == N + 1 && at < 0)
			at = wqrt_now();
		if (at >= 0 && wqrt_now() - at > 5 * IDLE_MS / 1000.0)
			break;
		wqrt_msleep(20);
	}
	/* the workers above the reserve did go away (the cull ran) */
	EXPECT_LE(0, at) {
		TH_LOG("15 s after a burst of %d: %d workers, the cull never came down to %d",
		       2 * N, min_pool_workers(WQ, NULL), N + 1);
	}
	EXPECT_EQ(N + 1, min_pool_workers(WQ, NULL));
}

/*
 * A burst of N blocking items on a pool with a reserve of N runs at once
 * on workers that existed before the items: worker creation is stalled
 * (workqueue.debug_create_delay_ms) from before the burst until after it,
 * and the items give up waiting for each other before a stalled creation
 * could deliver a worker. Without the reserve, the pool would have its
 * one or two idle workers and the rest of the burst would wait for
 * creations that do not come in time.
 */
#define CREATE_STALL_MS	3000

TEST_F_TIMEOUT(nie, burst_starts_on_reserve, 120)
{
	static char out[WQRT_RESULT_MAX];
	const int N = 4;
	char v[16];
	int round;

	if (!wqparam_exists("debug_create_delay_ms"))
		SKIP(return, "needs workqueue.debug_create_delay_ms (CONFIG_WQ_DEBUG_WAKE_DELAY) to stall worker creation during the burst");
	fresh_twin_pool(_metadata, false);
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	ASSERT_EQ(0, wq_set_int(WQ, "rtprio", 10));
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));
	snprintf(v, sizeof(v), "%d", CREATE_STALL_MS);

	for (round = 0; round < 3; round++) {
		int early = 0, got;
		char *line;

		/* the reserve and the idle worker every pool keeps, all idle */
		got = wait_idle(WQ, N + 1, 15);
		ASSERT_LE(N + 1, got) {
			TH_LOG("round %d: %d idle workers after 15 s, reserve %d",
			       round, got, N);
		}
		ASSERT_EQ(0, wqparam_set("debug_create_delay_ms", v));
		got = run_burst(_metadata, N, CREATE_STALL_MS * 2 / 3, out,
				sizeof(out));
		ASSERT_EQ(0, wqparam_set("debug_create_delay_ms", "0"));
		EXPECT_EQ(N, got) {
			TH_LOG("round %d, creation stalled: %.200s", round, out);
		}
		for (line = strchr(out, '\n'); line && line[1];
		     line = strchr(line + 1, '\n')) {
			struct wid w;

			if (wid_parse(line + 1, &w))
				continue;
			early += kv_long(line + 1, "worker_predates_item", -1) == 1;
			EXPECT_EQ(SCHED_FIFO, w.policy);
			EXPECT_EQ(10, w.rtprio);
		}
		EXPECT_EQ(N, early) {
			TH_LOG("round %d: %d of %d items ran on a worker born before them",
			       round, early, N);
		}
		EXPECT_EQ(N, kv_long(out, "distinct", -1));
		TH_LOG("round %d: %.*s", round, (int)strcspn(out, "\n"), out);
	}
	/* the reserve is refilled after the burst */
	EXPECT_LE(N + 1, wait_idle(WQ, N + 1, 15));
}

TEST_F_TIMEOUT(nie, reserve_zero_culls_like_plain, 120)
{
	static char out[WQRT_RESULT_MAX];
	double end;
	int min;

	if (!self->have_timeout)
		SKIP(return, "needs workqueue.debug_idle_timeout_ms (CONFIG_WQ_DEBUG_WAKE_DELAY)");
	fresh_twin_pool(_metadata, true);
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "0"));
	EXPECT_EQ(8, run_burst(_metadata, 8, 10000, out, sizeof(out)));
	/*
	 * The pool grew to 8 for the burst: 8 distinct workers ran it. Not
	 * the pool's size read afterwards: on a slow guest the 200 ms idle
	 * timeout can cull before the read (seen under arm64 TCG).
	 */
	EXPECT_EQ(8, kv_long(out, "distinct", -1));
	/* plain 6.12 keeps 2 idle workers and culls the rest */
	end = wqrt_now() + 15;
	do {
		wqrt_msleep(IDLE_MS);
		min = min_pool_workers(WQ, NULL);
	} while (min > 3 && wqrt_now() < end);
	EXPECT_GE(3, min) {
		TH_LOG("reserve 0: %d workers left 15 s after a burst (timeout %d ms)",
		       min, IDLE_MS);
	}
}

/*
 * Attributes are orthogonal: policy never touches the reserve, whether or
 * not nr_idle_extra was ever written.
 */
TEST_F(nie, policy_leaves_reserve_alone)
{
	static const char * const policies[] = { "fifo", "rr", "normal" };
	static const int reserves[] = { 0, 5 };
	char out[256];
	unsigned int i, k;

	for (k = 0; k < sizeof(reserves) / sizeof(reserves[0]); k++) {
		ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
		ASSERT_TRUE(wq_has(FRESH, "nr_idle_extra"));
		EXPECT_EQ(0, wq_get_int(FRESH, "nr_idle_extra"));
		/* 0 is never written: no attribute may remember a write */
		if (reserves[k])
			ASSERT_EQ(0, wq_set_int(FRESH, "nr_idle_extra",
						reserves[k]));
		for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
			ASSERT_EQ(0, wq_set(FRESH, "policy", policies[i]));
			EXPECT_EQ(reserves[k],
				  wq_get_int(FRESH, "nr_idle_extra")) {
				TH_LOG("nr_idle_extra %d, policy <- %s",
				       reserves[k], policies[i]);
			}
		}
	}
	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
}

/* pods of @wq's affinity scope: the entries of pool_ids other than -1 */
static int nr_pods(const char *wq)
{
	char buf[1024], *p = buf;
	int pod, pool, used, n = 0;

	if (wq_get(wq, "pool_ids", buf, sizeof(buf)) < 0)
		return -1;
	while (sscanf(p, " %d:%d%n", &pod, &pool, &used) == 2) {
		if (pod >= 0)
			n++;
		p += used;
	}
	return n;
}

/*
 * A workqueue holds at most 64 idle workers in reserve over its pools:
 * nr_idle_extra times the pods of its affinity scope. Beyond, a write of
 * nr_idle_extra or of affinity_scope fails with ERANGE and changes nothing.
 */
TEST_F(nie, reserve_capped_over_pods)
{
	struct wq_snap before, after;
	char why[256];
	int pods, max;

	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "0"));
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "cpu"));
	pods = nr_pods(WQ);
	ASSERT_LT(0, pods);
	max = 64 / pods;
	TH_LOG("affinity_scope=cpu: %d pods, nr_idle_extra up to %d", pods,
	       max);

	EXPECT_EQ(0, wq_set_int(WQ, "nr_idle_extra", max));
	EXPECT_EQ(max, wq_get_int(WQ, "nr_idle_extra"));
	if (max < 64) {
		ASSERT_EQ(0, wq_snapshot(WQ, &before));
		EXPECT_EQ(-ERANGE, wq_set_int(WQ, "nr_idle_extra", max + 1));
		ASSERT_EQ(0, wq_snapshot(WQ, &after));
		EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
			TH_LOG("refused nr_idle_extra changed %s", why);
		}
	}

	/* one pod: 64 fits; then the scope may not multiply it */
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "0"));
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "system"));
	ASSERT_EQ(1, nr_pods(WQ));
	EXPECT_EQ(0, wq_set_int(WQ, "nr_idle_extra", 64));
	if (pods > 1) {
		ASSERT_EQ(0, wq_snapshot(WQ, &before));
		EXPECT_EQ(-ERANGE, wq_set(WQ, "affinity_scope", "cpu"));
		ASSERT_EQ(0, wq_snapshot(WQ, &after));
		EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
			TH_LOG("refused affinity_scope changed %s", why);
		}
	}
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "0"));
}

/*
 * Forward progress of the reserve under memory pressure. WQ and REC (the
 * WQ_MEM_RECLAIM one) share an RT pool with a reserve. Blockers on WQ take
 * every worker and wait for an item on REC, while each worker creation
 * sleeps as if kthreadd were stuck in reclaim. Only REC's rescuer can run
 * that item, and it is summoned by the mayday timer of the pool's manager:
 * the creation of the reserve must be the manager's, under that timer.
 */
TEST_F_TIMEOUT(nie, rescuer_runs_while_creation_stalls, 180)
{
	static char out[WQRT_RESULT_MAX];
	const int N = 2, DELAY_MS = 5000;
	struct pools_text {
		char wq[256], rec[256];
	} ids;
	char v[16];
	long lat;

	if (!wqparam_exists("debug_create_delay_ms"))
		SKIP(return, "needs workqueue.debug_create_delay_ms (CONFIG_WQ_DEBUG_WAKE_DELAY)");
	if (!wq_has(REC, "nr_idle_extra"))
		SKIP(return, "%s is not in sysfs", REC);

	ASSERT_EQ(0, wq_fresh_pool(WQ, WQ_NICE_KEEP));
	ASSERT_EQ(0, wq_set(WQ, "private", "0"));
	ASSERT_EQ(0, wq_set(REC, "private", "0"));
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	ASSERT_EQ(0, wq_set_int(WQ, "rtprio", 10));
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));
	ASSERT_EQ(0, wq_set(REC, "policy", "fifo"));
	ASSERT_EQ(0, wq_set_int(REC, "rtprio", 10));
	ASSERT_EQ(0, wq_set_int(REC, "nr_idle_extra", N));
	ASSERT_LE(0, wq_get(WQ, "pool_ids", ids.wq, sizeof(ids.wq)));
	ASSERT_LE(0, wq_get(REC, "pool_ids", ids.rec, sizeof(ids.rec)));
	ASSERT_STREQ(ids.wq, ids.rec) {
		TH_LOG("%s and %s do not share their pools", WQ, REC);
	}
	ASSERT_LE(N + 1, wait_idle(WQ, N + 1, 15));

	snprintf(v, sizeof(v), "%d", DELAY_MS);
	ASSERT_EQ(0, wqparam_set("debug_create_delay_ms", v));
	EXPECT_EQ(0, dbg_run("rescue", "wq=twin n=6 settle_ms=300 timeout_ms=60000",
			     out, sizeof(out)));
	ASSERT_EQ(0, wqparam_set("debug_create_delay_ms", "0"));
	TH_LOG("%.*s", (int)strcspn(out, "\n"), out);

	lat = kv_long(out, "release_lat_ms", -1);
	ASSERT_LE(0, lat);
	/* a worker would only come after DELAY_MS: the rescuer ran it */
	EXPECT_GT(DELAY_MS / 2, lat) {
		TH_LOG("the item on %s waited %ld ms with creation stalled %d ms: no rescuer",
		       REC, lat, DELAY_MS);
	}
	EXPECT_EQ(1, kv_long(out, "rescuer", -1));
}

/* ---- the reserve under RT load ---- */

#define HOG_PRIO	10	/* above irq_work/N and ktimers/N (FIFO 1) */
#define POOL_PRIO	20	/* above the loops: the pool's workers run */
#define WATCH_PRIO	50	/* the test itself, above both */
#define HOG_MAX_S	10.0	/* the loops end by themselves after this */

struct fifo_loops {
	int ncpu;
	int err;
	int stop;
	int running;	/* loops that run at HOG_PRIO on their CPU */
	pthread_t thread[64];
};

static struct fifo_loop_arg {
	struct fifo_loops *loops;
	int cpu;
} loop_args[64];

static void *fifo_loop(void *arg)
{
	struct fifo_loop_arg *a = arg;
	struct sched_param sp = { .sched_priority = HOG_PRIO };
	double end = wqrt_now() + HOG_MAX_S;
	cpu_set_t set;
	int err;

	CPU_ZERO(&set);
	CPU_SET(a->cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!err)
		err = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (err) {
		__atomic_store_n(&a->loops->err, err, __ATOMIC_RELEASE);
		return NULL;
	}
	/* on its CPU, at its priority: from here on it owns the CPU */
	__atomic_add_fetch(&a->loops->running, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&a->loops->stop, __ATOMIC_ACQUIRE) &&
	       wqrt_now() < end)
		;
	return NULL;
}

struct burst_thread {
	pthread_t thread;
	char out[WQRT_RESULT_MAX];
	int ret;
};

static void *burst_in_thread(void *arg)
{
	struct burst_thread *b = arg;

	b->ret = dbg_run("burst", "wq=twin n=2 hold_ms=1000 keep_ms=3000",
			 b->out, sizeof(b->out));
	return NULL;
}

/*
 * An RT pool with a reserve of N = 2 (N + 1 idle workers: the reserve and
 * the one every pool keeps) gets N items that keep their workers busy,
 * while SCHED_FIFO loops below the pool's priority but above the irq_work
 * and timer threads run on every CPU. The reserve must be back, N + 1
 * idle workers besides the N busy ones, while the items still run. Only the pool's workers (and kthreadd and
 * the new kthread's first steps, which the fair server lets run) can do
 * that: a refill left to a SCHED_NORMAL kworker queued from an irq_work
 * never starts before the loops end.
 */
TEST_F_TIMEOUT(nie, reserve_refills_under_fifo_loops, 120)
{
	struct sched_param watch = { .sched_priority = WATCH_PRIO };
	struct sched_param normal = { .sched_priority = 0 };
	static struct burst_thread burst;
	static struct fifo_loops loops;
	const int N = 2;
	int ids[4], npools, workers = 0, idle = 0, i;
	double start, refilled = -1;

	loops.ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (loops.ncpu < 1 || loops.ncpu > 64)
		SKIP(return, "%d online CPUs: want 1..64", loops.ncpu);
	ASSERT_EQ(0, wq_fresh_pool(WQ, WQ_NICE_KEEP));
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "system"));
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	ASSERT_EQ(0, wq_set_int(WQ, "rtprio", POOL_PRIO));
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));
	npools = wq_pool_ids(WQ, ids, 4);
	ASSERT_EQ(1, npools);
	ASSERT_LE(N + 1, wait_idle(WQ, N + 1, 15));

	ASSERT_EQ(0, sched_setscheduler(0, SCHED_FIFO, &watch)) {
		TH_LOG("SCHED_FIFO %d for the test: %s", WATCH_PRIO,
		       strerror(errno));
	}
	loops.stop = 0;
	loops.err = 0;
	loops.running = 0;
	for (i = 0; i < loops.ncpu; i++) {
		loop_args[i].loops = &loops;
		loop_args[i].cpu = i;
		ASSERT_EQ(0, pthread_create(&loops.thread[i], NULL, fifo_loop,
					    &loop_args[i]));
	}
	/* the loops own the CPUs (the test preempts them): each says so */
	start = wqrt_now();
	while (__atomic_load_n(&loops.running, __ATOMIC_ACQUIRE) < loops.ncpu &&
	       !__atomic_load_n(&loops.err, __ATOMIC_ACQUIRE) &&
	       wqrt_now() - start < 5)
		wqrt_msleep(5);
	EXPECT_EQ(loops.ncpu, __atomic_load_n(&loops.running, __ATOMIC_ACQUIRE)) {
		TH_LOG("%d of %d FIFO %d loops running after %.1f s", loops.running,
		       loops.ncpu, HOG_PRIO, wqrt_now() - start);
	}
	ASSERT_EQ(0, pthread_create(&burst.thread, NULL, burst_in_thread,
				    &burst));

	start = wqrt_now();
	while (wqrt_now() - start < HOG_MAX_S - 2) {
		workers = pool_workers_idle(ids[0], &idle);
		if (workers >= N + N + 1 && idle >= N + 1) {
			refilled = wqrt_now() - start;
			break;
		}
		wqrt_msleep(20);
	}
	__atomic_store_n(&loops.stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < loops.ncpu; i++)
		pthread_join(loops.thread[i], NULL);
	sched_setscheduler(0, SCHED_OTHER, &normal);
	pthread_join(burst.thread, NULL);

	ASSERT_EQ(0, loops.err) {
		TH_LOG("SCHED_FIFO loops: %s", strerror(loops.err));
	}
	EXPECT_EQ(0, burst.ret);
	EXPECT_EQ(N, kv_long(burst.out, "max_concurrent", -1)) {
		TH_LOG("%.*s", (int)strcspn(burst.out, "\n"), burst.out);
	}
	ASSERT_LE(0, refilled) {
		TH_LOG("pool %d has %d workers, %d idle, after %.1f s of FIFO %d loops on %d CPU(s), %d items running: reserve %d (+1) not refilled",
		       ids[0], workers, idle, HOG_MAX_S - 2, HOG_PRIO,
		       loops.ncpu, N, N);
	}
	TH_LOG("reserve refilled %.2f s into the FIFO %d loops (%d CPU(s))",
	       refilled, HOG_PRIO, loops.ncpu);
}

/* Every kworker of every pool of @wq runs @policy @prio; says who not. */
static int pools_sched(const char *wq, int policy, int prio, char *bad,
		       size_t len)
{
	int ids[64], pids[256], n, i, j, c, total = 0;

	n = wq_pool_ids(wq, ids, 64);
	for (i = 0; i < n; i++) {
		c = pool_workers(ids[i], pids, 256);
		for (j = 0; j < c && j < 256; j++) {
			struct wqrt_sched_attr a;

			if (wqrt_getattr(pids[j], &a))
				continue;	/* exited meanwhile */
			total++;
			if ((int)a.sched_policy != policy ||
			    (int)a.sched_priority != prio) {
				snprintf(bad, len, "pool %d: pid %d policy %u prio %u",
					 ids[i], pids[j], a.sched_policy,
					 a.sched_priority);
				return -1;
			}
		}
	}
	return total;
}

/*
 * RT pools with a reserve across CPU hotplug: with the per-CPU scope, CPU
 * 1 goes offline (its pod's work goes to the default pool) and comes back
 * (a pool for the pod again). Items keep running with the policy, every
 * pool gets its reserve back, and every worker, those born for the CPU's
 * return included, is RT.
 */
TEST_F_TIMEOUT(nie, reserve_across_cpu_hotplug, 120)
{
	const int N = 2;
	char bad[128] = "";
	struct wid w;
	cpu_set_t old;
	int n, got;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || !cpu_hotpluggable(1))
		SKIP(return, "needs CPU 1 online and hotpluggable");
	ASSERT_EQ(0, wq_fresh_pool(WQ, WQ_NICE_KEEP));
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	ASSERT_EQ(0, wq_set_int(WQ, "rtprio", 12));
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "cpu"));
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));
	got = wait_idle(WQ, N + 1, 15);
	ASSERT_LE(N + 1, got) {
		TH_LOG("before the hotplug: %d idle workers, reserve %d", got, N);
	}
	ASSERT_LE(0, wq_pod_pool(WQ, 1));

	ASSERT_EQ(0, cpu_set_online(1, false));
	ASSERT_EQ(0, wqrt_probe("twin", &w));
	EXPECT_EQ(SCHED_FIFO, w.policy) {
		TH_LOG("CPU 1 offline: item ran on %s, policy %d", w.comm, w.policy);
	}
	EXPECT_EQ(12, w.rtprio);
	ASSERT_EQ(0, cpu_set_online(1, true));

	/* the pod of CPU 1 has a pool again, and every pool its reserve */
	ASSERT_LE(0, wq_pod_pool(WQ, 1)) {
		TH_LOG("CPU 1 back online: no pool for its pod in pool_ids");
	}
	got = wait_idle(WQ, N + 1, 15);
	EXPECT_LE(N + 1, got) {
		TH_LOG("CPU 1 back online: a pool has %d idle workers after 15 s, reserve %d",
		       got, N);
	}
	n = pools_sched(WQ, SCHED_FIFO, 12, bad, sizeof(bad));
	EXPECT_LE(2 * (N + 1), n) {
		TH_LOG("after the hotplug: %d RT workers over the pools (%s)", n,
		       bad[0] ? bad : "too few");
	}
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	ASSERT_EQ(0, wqrt_pin(1));
	ASSERT_EQ(0, wqrt_probe("twin", &w));
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
	EXPECT_EQ(SCHED_FIFO, w.policy);
	EXPECT_EQ(12, w.rtprio);
	EXPECT_EQ(wq_pod_pool(WQ, 1), kworker_upool(w.comm)) {
		TH_LOG("queued on CPU 1: ran in %s, pool_ids: pod 1 pool %d", w.comm,
		       wq_pod_pool(WQ, 1));
	}
}

TEST_F_TIMEOUT(nie, round_trip_and_bad_values, 120)
{
	static const char * const bad[] = {
		"65", "-1", "abc", "\n", " ", " 1", "1 ", "0x10", "1 2", "1.0",
		"99999999999", "4294967296", "1\n\n", "x", "1x", "100",
		"fifo",
	};
	static char longv[4097];
	unsigned int i;
	struct wq_snap before, after;
	char why[256];

	/* one pod, so that 64 is within the cap */
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "system"));
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "0"));
	EXPECT_EQ(0, wq_get_int(WQ, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "1\n"));
	EXPECT_EQ(1, wq_get_int(WQ, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "64"));
	EXPECT_EQ(64, wq_get_int(WQ, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "3"));

	memset(longv, '1', 4096);
	for (i = 0; i <= sizeof(bad) / sizeof(bad[0]); i++) {
		const char *v = i < sizeof(bad) / sizeof(bad[0]) ? bad[i] : longv;
		int ret;

		ASSERT_EQ(0, wq_snapshot(WQ, &before));
		ret = wq_set(WQ, "nr_idle_extra", v);
		ASSERT_EQ(0, wq_snapshot(WQ, &after));
		EXPECT_EQ(-EINVAL, ret) {
			TH_LOG("nr_idle_extra <- '%.32s': %s", v,
			       ret ? strerror(-ret) : "accepted");
		}
		EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
			TH_LOG("nr_idle_extra <- '%.32s': %s", v, why);
		}
	}
	EXPECT_EQ(3, wq_get_int(WQ, "nr_idle_extra"));
}

WQRT_HARNESS_MAIN("wqrt_test", DBG_DIR "/info")
