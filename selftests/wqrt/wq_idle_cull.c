// SPDX-License-Identifier: GPL-2.0
/*
 * wq_idle_cull - the idle cull against kicked workers, and worker counts.
 *
 * idle_cull_race: with the deferred wakeup, a worker picked by kick_pool()
 * is woken after pool->lock is dropped.  If it were left on the idle list
 * until it runs, idle_cull_fn() could reap it in between and strand the
 * item it was kicked for (shared/seeds/000_*).  The test shortens the idle
 * timeout and widens the unlock->wakeup window with the debug knobs of
 * CONFIG_WQ_DEBUG_WAKE_DELAY (workqueue.debug_idle_timeout_ms,
 * workqueue.debug_wake_delay_us), then lets the wqrt_test module grow a
 * pool, wait around the timeout and kick it while the cull runs; every
 * kicked item must run within a deadline while the pool is otherwise idle.
 * SKIPs without the knobs.
 *
 * A kick wakes the most recently idle worker and the cull takes the least
 * recently idle ones and leaves two, so in the normal order the cull cannot
 * reach a kicked worker: the first variants run on a pool without a reserve,
 * which does not claim its kicked worker (mainline's form), and must strand
 * nothing.  A pool with a reserve (nr_idle_extra) wakes a worker per pending
 * item, from further down the idle list, and claims each: the last variant
 * runs on such a pool, with workqueue.debug_kick_oldest, which makes the
 * kicked worker the cull's first candidate, and waits for each kick before
 * the next one so that no later kick hides a stranded item: on a kernel that
 * defers the wakeup without claiming the worker it strands items within
 * seconds (make race-demo); with the claim it must not.
 *
 * no_surplus_workers: claiming the kicked worker early must not make the
 * manager create extra workers.  A burst of N blocking items on a pool of
 * its own with I idle workers creates at most N - I + 1 workers on plain
 * 6.12 (the missing ones plus the spare the last one creates); the test
 * allows one more and runs on every kernel.
 */
#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define CULL	WQ_CULL_NAME
#define TWIN	WQ_TWIN_NAME

FIXTURE(cull) {
	char delay[32], timeout[32], oldest[32];
	char cull_nice[32], cull_private[32], cull_extra[32];
	bool knobs;
	bool ready;
};

FIXTURE_SETUP(cull)
{
	char why[256];

	if (wqrt_load_module(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_LT(0, wq_get(CULL, "nice", self->cull_nice,
			    sizeof(self->cull_nice)));
	self->cull_private[0] = '\0';
	self->cull_extra[0] = '\0';
	if (wq_has(CULL, "nr_idle_extra"))
		ASSERT_LT(0, wq_get(CULL, "nr_idle_extra", self->cull_extra,
				    sizeof(self->cull_extra)));
	if (wq_has(CULL, "private"))
		ASSERT_LT(0, wq_get(CULL, "private", self->cull_private,
				    sizeof(self->cull_private)));
	self->knobs = wqparam_exists("debug_wake_delay_us") &&
		      wqparam_exists("debug_idle_timeout_ms");
	if (self->knobs) {
		ASSERT_LE(0, wqparam_get("debug_wake_delay_us", self->delay,
					 sizeof(self->delay)));
		ASSERT_LE(0, wqparam_get("debug_idle_timeout_ms", self->timeout,
					 sizeof(self->timeout)));
	}
	self->oldest[0] = '\0';
	if (wqparam_exists("debug_kick_oldest"))
		ASSERT_LE(0, wqparam_get("debug_kick_oldest", self->oldest,
					 sizeof(self->oldest)));
	self->ready = true;
}

FIXTURE_TEARDOWN(cull)
{
	if (!self->ready)
		return;
	if (self->knobs) {
		EXPECT_EQ(0, wqparam_set("debug_wake_delay_us", self->delay));
		EXPECT_EQ(0, wqparam_set("debug_idle_timeout_ms", self->timeout));
	}
	if (self->oldest[0])
		EXPECT_EQ(0, wqparam_set("debug_kick_oldest", self->oldest));
	if (self->cull_extra[0])
		wq_set(CULL, "nr_idle_extra", self->cull_extra);
	if (self->cull_private[0])
		wq_set(CULL, "private", self->cull_private);
	EXPECT_EQ(0, wq_set(CULL, "nice", self->cull_nice));
}

struct race_variant {
	const char *name;
	unsigned int delay_us;
	bool kick_oldest;	/* and a reserve, whose kicks claim */
	const char *args;
};

static const struct race_variant race_variants[] = {
	{ "no_delay", 0, false,
	  "rounds=20 burst=8 kicks=16 churn=4 gap_us=300 idle_ms=30 deadline_ms=3000" },
	{ "delay_200us", 200, false,
	  "rounds=25 burst=8 kicks=16 churn=6 gap_us=500 idle_ms=30 deadline_ms=3000" },
	{ "delay_2ms", 2000, false,
	  "rounds=20 burst=12 kicks=12 churn=8 gap_us=2000 idle_ms=30 deadline_ms=3000" },
	{ "kick_oldest_5ms", 5000, true,
	  "rounds=20 burst=8 kicks=24 churn=0 gap_us=0 idle_ms=30 deadline_ms=500 serial=1" },
};

TEST_F_TIMEOUT(cull, idle_cull_race, 280)
{
	static char out[WQRT_RESULT_MAX];
	unsigned int i;
	char v[32];

	if (!self->knobs)
		SKIP(return, "kernel without CONFIG_WQ_DEBUG_WAKE_DELAY: no %s/debug_wake_delay_us and debug_idle_timeout_ms",
		     WQPARAM_DIR);
	/*
	 * The knobs come together (kernel/variants/debug-knobs): one
	 * missing is a broken kernel, not a variant to leave out.
	 */
	ASSERT_NE(0, self->oldest[0]) {
		TH_LOG("%s has debug_wake_delay_us but no debug_kick_oldest: the kick_oldest variant cannot run",
		       WQPARAM_DIR);
	}
	/* the knobs come with the whole series, which has the reserve */
	ASSERT_NE(0, self->cull_extra[0]) {
		TH_LOG("%s has no nr_idle_extra: the kick_oldest variant needs a pool with a reserve",
		       CULL);
	}

	ASSERT_EQ(0, wqparam_set("debug_idle_timeout_ms", "30"));
	ASSERT_EQ(0, wq_fresh_pool(CULL, 2));

	for (i = 0; i < sizeof(race_variants) / sizeof(race_variants[0]); i++) {
		const struct race_variant *rv = &race_variants[i];
		double t0 = wqrt_now();

		if (rv->kick_oldest) {
			/* a pool of its own with a reserve: it claims */
			ASSERT_EQ(0, wq_set(CULL, "nr_idle_extra", "1"));
			ASSERT_EQ(0, wqparam_set("debug_kick_oldest", "Y"));
		}
		snprintf(v, sizeof(v), "%u", rv->delay_us);
		ASSERT_EQ(0, wqparam_set("debug_wake_delay_us", v));
		ASSERT_EQ(0, dbg_run("cull_race", rv->args, out, sizeof(out)));
		ASSERT_EQ(0, wqparam_set("debug_wake_delay_us", "0"));
		if (rv->kick_oldest) {
			ASSERT_EQ(0, wqparam_set("debug_kick_oldest", "N"));
			ASSERT_EQ(0, wq_set(CULL, "nr_idle_extra", "0"));
		}
		TH_LOG("%s (%.1f s): %s", rv->name, wqrt_now() - t0, out);
		EXPECT_EQ(0, kv_long(out, "stranded", -1)) {
			TH_LOG("%s: work stranded: a kicked worker was culled before it ran",
			       rv->name);
		}
		EXPECT_TRUE(kv_pass(out));
		/*
		 * Not vacuous: later rounds needed new workers, so the cull
		 * did reap the idle ones while the test ran.
		 */
		EXPECT_LT(kv_long(out, "burst", 0), kv_long(out, "new_workers", 0)) {
			TH_LOG("%s: the idle cull never ran", rv->name);
		}
	}
}

/* Pool of @key's workqueue, from the comm of the worker running a probe. */
static int probe_pool(struct __test_metadata *_metadata, const char *key)
{
	struct wid w;
	int pool;

	if (wqrt_probe(key, &w))
		return -1;
	pool = kworker_upool(w.comm);
	EXPECT_LE(0, pool) {
		TH_LOG("probe ran on '%s', not an unbound pool worker", w.comm);
	}
	return pool;
}

static bool in_set(int pid, const int *set, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return true;
	return false;
}

TEST_F_TIMEOUT(cull, no_surplus_workers, 120)
{
	static const int sizes[] = { 4, 8, 16, 8 };
	static char out[WQRT_RESULT_MAX];
	int before[1024], after[1024], nb, na, pool, created, allowed, i, j;
	int idle;
	double end;
	char args[96];

	/* a pool of its own, so nothing else creates workers in it */
	ASSERT_EQ(0, wq_fresh_pool(CULL, 3));
	pool = probe_pool(_metadata, "cull");
	ASSERT_LE(0, pool);
	if (wq_has(CULL, "pool_ids")) {
		int ids[64], n = wq_pool_ids(CULL, ids, 64);

		EXPECT_TRUE(in_set(pool, ids, n)) {
			TH_LOG("probe ran in pool %d, not in pool_ids", pool);
		}
	}

	for (i = 0; i < (int)(sizeof(sizes) / sizeof(sizes[0])); i++) {
		int n = sizes[i];

		nb = pool_workers(pool, before, 1024);
		snprintf(args, sizeof(args), "wq=cull n=%d hold_ms=5000", n);
		ASSERT_EQ(0, dbg_run("burst", args, out, sizeof(out)));
		EXPECT_EQ(n, kv_long(out, "max_concurrent", -1)) {
			TH_LOG("%.200s", out);
		}
		/*
		 * Count once the pool is quiet: every worker idle, so none
		 * is running the manager and creating one more.
		 */
		idle = -1;
		na = 0;
		for (end = wqrt_now() + 15; wqrt_now() < end; wqrt_msleep(20)) {
			na = pool_workers_idle(pool, &idle);
			if (idle == na)
				break;
		}
		EXPECT_EQ(na, idle) {
			TH_LOG("pool %d: %d of %d workers idle 15 s after the burst",
			       pool, idle, na);
		}
		na = pool_workers(pool, after, 1024);
		for (created = 0, j = 0; j < na && j < 1024; j++)
			created += !in_set(after[j], before, nb);
		TH_LOG("burst %d: pool %d had %d workers, now %d (%d new), distinct %ld",
		       n, pool, nb, na, created, kv_long(out, "distinct", -1));
		/*
		 * Plain 6.12 uses the idle workers first and creates one
		 * worker per missing one, plus the spare the last worker to
		 * start creates; allow one more for a manager racing with
		 * the end of the burst.
		 */
		allowed = (n > nb ? n - nb : 0) + 2;
		EXPECT_GE(allowed, created) {
			TH_LOG("burst of %d on %d idle workers created %d (allowed %d)",
			       n, nb, created, allowed);
		}
		EXPECT_GE((n > nb ? n : nb) + 2, na) {
			TH_LOG("pool %d: %d workers after a burst of %d (before %d)",
			       pool, na, n, nb);
		}
		/* all n at once: n workers, one each */
		EXPECT_EQ(n, kv_long(out, "distinct", -1));
	}
}

WQRT_HARNESS_MAIN("wqrt_test", DBG_DIR "/info")
