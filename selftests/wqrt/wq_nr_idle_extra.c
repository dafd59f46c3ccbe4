// SPDX-License-Identifier: GPL-2.0
/*
 * wq_nr_idle_extra - the per-pool reserve of idle workers.
 *
 *  - after nr_idle_extra=N the workqueue's pools hold at least N workers
 *    (idle: nothing is queued) within a bounded time, and keep them past
 *    the idle timeout (shortened through workqueue.debug_idle_timeout_ms
 *    when the kernel has CONFIG_WQ_DEBUG_WAKE_DELAY);
 *  - a burst of N blocking items on a pool with reserve N (N workers ready
 *    before it) runs all N at once on N workers with the pool's policy;
 *  - reserve 0 culls down like plain 6.12;
 *  - fifo/rr on a workqueue whose nr_idle_extra was never written gives
 *    a reserve of 2; an explicit value always wins;
 *  - bad values are rejected with EINVAL and change nothing.
 *
 * SKIPs on kernels without the attribute.
 */
#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define WQ	WQ_TWIN_NAME
#define FRESH	"wqrt_test_fresh"
#define IDLE_MS	200

FIXTURE(nie) {
	struct wq_snap orig;
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
	self->have_timeout = wqparam_exists("debug_idle_timeout_ms") &&
		wqparam_get("debug_idle_timeout_ms", self->timeout,
			    sizeof(self->timeout)) >= 0;
	self->ready = true;
}

FIXTURE_TEARDOWN(nie)
{
	static const char * const order[] = {
		"policy", "rtprio", "nr_idle_extra", "private", "nice", NULL,
	};

	if (!self->ready)
		return;
	wq_snap_restore(WQ, &self->orig, order);
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

static int run_burst(struct __test_metadata *_metadata, int n, char *out,
		     size_t len)
{
	char args[96];

	snprintf(args, sizeof(args), "wq=twin n=%d hold_ms=5000", n);
	EXPECT_EQ(0, dbg_run("burst", args, out, len));
	return kv_long(out, "max_concurrent", -1);
}

TEST_F_TIMEOUT(nie, reserve_filled_and_kept, 120)
{
	static char out[WQRT_RESULT_MAX];
	const int N = 4;
	int min, i;

	fresh_twin_pool(_metadata, self->have_timeout);
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));
	EXPECT_EQ(N, wq_get_int(WQ, "nr_idle_extra"));

	min = wait_filled(WQ, N, 15);
	ASSERT_LE(N, min) {
		TH_LOG("nr_idle_extra=%d but a pool has %d workers after 15 s",
		       N, min);
	}

	if (!self->have_timeout) {
		TH_LOG("no workqueue.debug_idle_timeout_ms (CONFIG_WQ_DEBUG_WAKE_DELAY): not checking the reserve past the 300 s idle timeout");
		return;
	}

	/* grow the pool past the reserve, then let the cull run repeatedly */
	EXPECT_EQ(2 * N, run_burst(_metadata, 2 * N, out, sizeof(out)));
	for (i = 0; i < 20; i++) {
		wqrt_msleep(IDLE_MS / 2);
		min = min_pool_workers(WQ, NULL);
		EXPECT_LE(N, min) {
			TH_LOG("after %d ms of idle timeout %d ms: a pool has %d workers, reserve %d",
			       (i + 1) * IDLE_MS / 2, IDLE_MS, min, N);
			break;
		}
	}
	/* the workers above the reserve did go away (the cull ran) */
	EXPECT_GE(N + 3, min_pool_workers(WQ, NULL));
}

TEST_F_TIMEOUT(nie, burst_starts_on_reserve, 120)
{
	static char out[WQRT_RESULT_MAX];
	const int N = 4;
	int round;

	fresh_twin_pool(_metadata, false);
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	ASSERT_EQ(0, wq_set_int(WQ, "rtprio", 10));
	ASSERT_EQ(0, wq_set_int(WQ, "nr_idle_extra", N));

	for (round = 0; round < 3; round++) {
		int refill;
		char *line;

		ASSERT_LE(N, wait_filled(WQ, N, 15));
		/* a moment for the last created worker to go idle */
		wqrt_msleep(100);

		EXPECT_EQ(N, run_burst(_metadata, N, out, sizeof(out))) {
			TH_LOG("round %d: %.200s", round, out);
		}
		/*
		 * The reserve is refilled as soon as a reserve worker is
		 * taken, and a fresh refill worker takes whatever is pending
		 * on its first wakeup, possibly an item queued just before it
		 * was born while the kicked reserve worker was still on its
		 * way: that item did not wait for a creation, it started
		 * early. So the check is: N workers were ready before the
		 * burst (wait_filled above), all N items ran at once on N
		 * workers (run_burst), each with the pool's policy; items
		 * that ran on refill workers are only counted.
		 */
		refill = 0;
		for (line = strchr(out, '\n'); line && line[1];
		     line = strchr(line + 1, '\n')) {
			struct wid w;

			if (wid_parse(line + 1, &w))
				continue;
			if (kv_long(line + 1, "worker_predates_item", -1) != 1)
				refill++;
			EXPECT_EQ(SCHED_FIFO, w.policy);
			EXPECT_EQ(10, w.rtprio);
		}
		EXPECT_EQ(N, kv_long(out, "distinct", -1));
		TH_LOG("round %d: %d item(s) picked up by refill workers",
		       round, refill);
		TH_LOG("round %d: %.*s", round, (int)strcspn(out, "\n"), out);
	}
	/* the reserve is refilled after the burst */
	EXPECT_LE(N, wait_filled(WQ, N, 15));
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
	EXPECT_EQ(8, run_burst(_metadata, 8, out, sizeof(out)));
	/*
	 * The pool grew to 8 for the burst: 8 distinct workers ran it. Not
	 * the pool's size read afterwards: on a slow guest the 200 ms idle
	 * timeout can cull before the read (seen under arm64 TCG).
	 */
	EXPECT_LE(8, kv_long(out, "distinct", -1));
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

TEST_F(nie, default_two_with_rt_policy)
{
	char out[256];

	/* never written: fifo brings a reserve of 2 */
	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
	ASSERT_TRUE(wq_has(FRESH, "nr_idle_extra"));
	EXPECT_EQ(0, wq_get_int(FRESH, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "fifo"));
	EXPECT_EQ(2, wq_get_int(FRESH, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "normal"));

	/* an explicit 0 wins */
	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
	ASSERT_EQ(0, wq_set(FRESH, "nr_idle_extra", "0"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "rr"));
	EXPECT_EQ(0, wq_get_int(FRESH, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "normal"));

	/* and so does an explicit 5, across policy changes */
	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
	ASSERT_EQ(0, wq_set(FRESH, "nr_idle_extra", "5"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "fifo"));
	EXPECT_EQ(5, wq_get_int(FRESH, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "rr"));
	EXPECT_EQ(5, wq_get_int(FRESH, "nr_idle_extra"));
	ASSERT_EQ(0, wq_set(FRESH, "policy", "normal"));
	EXPECT_EQ(5, wq_get_int(FRESH, "nr_idle_extra"));

	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
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
