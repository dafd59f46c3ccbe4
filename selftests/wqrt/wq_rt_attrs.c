// SPDX-License-Identifier: GPL-2.0
/*
 * wq_rt_attrs - the wqrt scheduling attributes of unbound and ordered
 * workqueues: policy, rtprio, private and the read-only pool_ids.
 *
 *  - round trip and the policy <-> rtprio rules of the ABI;
 *  - more than 20 bad writes per attribute, each -EINVAL with every
 *    attribute of the workqueue unchanged;
 *  - the worker that runs an item has the policy/priority sysfs shows;
 *  - kworkers created after a change are born with the policy (every
 *    thread of every pool listed in pool_ids, via sched_getattr());
 *  - private=1 gives two otherwise identical workqueues different pools;
 *  - nice does not split or move RT pools; a policy write changes nothing
 *    but policy and rtprio; writers without CAP_SYS_NICE get EPERM;
 *  - the ordered workqueue runs 10000 items in order, one at a time,
 *    while its attributes change; its max_active is read-only;
 *  - the rescuer of a WQ_MEM_RECLAIM workqueue carries the policy;
 *  - system workqueues and workqueues that did not opt in stay normal.
 *
 * On a kernel without the series (no "policy" attribute) every test
 * SKIPs and says so.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define WQ	WQ_UNBOUND_NAME
#define TWIN	WQ_TWIN_NAME
#define ORD	WQ_ORDERED_NAME
#define REC	WQ_RECLAIM_NAME
#define FRESH	"wqrt_test_fresh"

static const char * const test_wqs[] = {
	WQ_UNBOUND_NAME, WQ_TWIN_NAME, WQ_ORDERED_NAME, WQ_RECLAIM_NAME,
	WQ_CULL_NAME,
};
#define NR_TEST_WQS (int)(sizeof(test_wqs) / sizeof(test_wqs[0]))

FIXTURE(rt) {
	struct wq_snap orig[NR_TEST_WQS];
	bool have[NR_TEST_WQS];
	bool ready;
};

FIXTURE_SETUP(rt)
{
	char why[256];
	int i;

	if (wqrt_load_module(why, sizeof(why)))
		SKIP(return, "%s", why);
	if (!wq_has(WQ, "policy"))
		SKIP(return, "kernel without the wqrt series: no %s/%s/policy",
		     WQ_DIR, WQ);
	for (i = 0; i < NR_TEST_WQS; i++) {
		self->have[i] = wq_has(test_wqs[i], "policy");
		if (self->have[i])
			ASSERT_EQ(0, wq_snapshot(test_wqs[i], &self->orig[i]));
	}
	self->ready = true;
}

FIXTURE_TEARDOWN(rt)
{
	int i;

	if (!self->ready)
		return;
	for (i = 0; i < NR_TEST_WQS; i++) {
		struct wq_snap now;
		char why[256];
		const char *skip_pool_ids;

		if (!self->have[i])
			continue;
		wq_snap_restore(test_wqs[i], &self->orig[i], NULL);
		ASSERT_EQ(0, wq_snapshot(test_wqs[i], &now));
		/* pool ids may legitimately differ after a round trip */
		skip_pool_ids = wq_snap_get(&now, "pool_ids");
		if (skip_pool_ids) {
			int k;

			for (k = 0; k < now.n; k++)
				if (!strcmp(now.name[k], "pool_ids"))
					snprintf(now.val[k], sizeof(now.val[k]), "%s",
						 wq_snap_get(&self->orig[i], "pool_ids"));
		}
		EXPECT_TRUE(wq_snap_equal(&self->orig[i], &now, why, sizeof(why))) {
			TH_LOG("%s not restored: %s", test_wqs[i], why);
		}
	}
}

/* ------------------------------------------------------------------ */

static int set_sched(const char *wq, const char *policy, int rtprio)
{
	int ret = wq_set(wq, "policy", policy);

	if (ret || policy_from_name(policy) == SCHED_OTHER)
		return ret;
	return wq_set_int(wq, "rtprio", rtprio);
}

static int get_policy(const char *wq)
{
	char buf[64];

	if (wq_get(wq, "policy", buf, sizeof(buf)) < 0)
		return -1;
	return policy_from_name(buf);
}

/*
 * The next work item on @key runs with what the test set up: @policy,
 * @prio and, under SCHED_OTHER, @nice; and @wq's sysfs shows the same. The
 * expectation is the test's own, never read back from the kernel: a store
 * that accepted a write and changed nothing must fail here.
 */
static void check_probe(struct __test_metadata *_metadata, const char *key,
			const char *wq, int policy, int prio, int nice)
{
	struct wid w;

	EXPECT_EQ(policy, get_policy(wq)) {
		TH_LOG("%s: sysfs policy %d, set up %d", wq, get_policy(wq),
		       policy);
	}
	EXPECT_EQ(prio, wq_get_int(wq, "rtprio")) {
		TH_LOG("%s: sysfs rtprio %d, set up %d", wq,
		       wq_get_int(wq, "rtprio"), prio);
	}
	ASSERT_EQ(0, wqrt_probe(key, &w));
	EXPECT_EQ(policy, w.policy) {
		TH_LOG("%s: worker %d (%s) policy %d, set up %d", wq, w.pid,
		       w.comm, w.policy, policy);
	}
	EXPECT_EQ(prio, w.rtprio) {
		TH_LOG("%s: worker %d (%s) rtprio %d, set up %d", wq, w.pid,
		       w.comm, w.rtprio, prio);
	}
	if (policy == SCHED_OTHER) {
		EXPECT_EQ(nice, w.nice) {
			TH_LOG("%s: worker %d (%s) nice %d, set up %d", wq,
			       w.pid, w.comm, w.nice, nice);
		}
	}
}

TEST_F(rt, policy_round_trip)
{
	char buf[64];

	EXPECT_EQ(SCHED_OTHER, get_policy(WQ));
	EXPECT_EQ(0, wq_get_int(WQ, "rtprio"));
	EXPECT_EQ(0, wq_get_int(WQ, "private"));

	/* fifo while rtprio is 0 => rtprio 1 */
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	ASSERT_LT(0, wq_get(WQ, "policy", buf, sizeof(buf)));
	EXPECT_STREQ("fifo", buf);
	EXPECT_EQ(1, wq_get_int(WQ, "rtprio"));
	check_probe(_metadata, "unbound", WQ, SCHED_FIFO, 1, 0);

	ASSERT_EQ(0, wq_set(WQ, "rtprio", "50\n"));
	EXPECT_EQ(50, wq_get_int(WQ, "rtprio"));
	check_probe(_metadata, "unbound", WQ, SCHED_FIFO, 50, 0);

	/* fifo -> rr keeps a non-zero rtprio */
	ASSERT_EQ(0, wq_set(WQ, "policy", "RR\n"));
	ASSERT_LT(0, wq_get(WQ, "policy", buf, sizeof(buf)));
	EXPECT_STREQ("rr", buf);
	EXPECT_EQ(50, wq_get_int(WQ, "rtprio"));
	check_probe(_metadata, "unbound", WQ, SCHED_RR, 50, 0);

	/* normal => rtprio 0 */
	ASSERT_EQ(0, wq_set(WQ, "policy", "Normal"));
	ASSERT_LT(0, wq_get(WQ, "policy", buf, sizeof(buf)));
	EXPECT_STREQ("normal", buf);
	EXPECT_EQ(0, wq_get_int(WQ, "rtprio"));
	check_probe(_metadata, "unbound", WQ, SCHED_OTHER, 0, 0);

	/* writing the current value again is fine */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	ASSERT_EQ(0, wq_set(WQ, "rtprio", "0"));

	/* private round trip */
	ASSERT_EQ(0, wq_set(WQ, "private", "1"));
	EXPECT_EQ(1, wq_get_int(WQ, "private"));
	ASSERT_EQ(0, wq_set(WQ, "private", "0\n"));
	EXPECT_EQ(0, wq_get_int(WQ, "private"));
}

TEST_F(rt, rtprio_rules)
{
	static const int ok_prios[] = { 1, 2, 49, 98, 99, 1 };
	unsigned int i;

	/* normal: only 0 fits */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	EXPECT_EQ(0, wq_set(WQ, "rtprio", "0"));
	EXPECT_EQ(-EINVAL, wq_set(WQ, "rtprio", "1"));
	EXPECT_EQ(-EINVAL, wq_set(WQ, "rtprio", "50"));
	EXPECT_EQ(SCHED_OTHER, get_policy(WQ));
	EXPECT_EQ(0, wq_get_int(WQ, "rtprio"));

	/* fifo and rr: 1..99 */
	ASSERT_EQ(0, wq_set(WQ, "policy", "fifo"));
	for (i = 0; i < sizeof(ok_prios) / sizeof(ok_prios[0]); i++) {
		ASSERT_EQ(0, wq_set_int(WQ, "rtprio", ok_prios[i]));
		EXPECT_EQ(ok_prios[i], wq_get_int(WQ, "rtprio"));
	}
	EXPECT_EQ(-EINVAL, wq_set(WQ, "rtprio", "0"));
	EXPECT_EQ(-EINVAL, wq_set(WQ, "rtprio", "100"));
	EXPECT_EQ(1, wq_get_int(WQ, "rtprio"));
	EXPECT_EQ(SCHED_FIFO, get_policy(WQ));

	ASSERT_EQ(0, wq_set(WQ, "policy", "rr"));
	ASSERT_EQ(0, wq_set(WQ, "rtprio", "99"));
	EXPECT_EQ(-EINVAL, wq_set(WQ, "rtprio", "0"));
	EXPECT_EQ(99, wq_get_int(WQ, "rtprio"));
	check_probe(_metadata, "unbound", WQ, SCHED_RR, 99, 0);

	/* back to normal clears rtprio; nice still applies under normal */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	EXPECT_EQ(0, wq_get_int(WQ, "rtprio"));
	ASSERT_EQ(0, wq_set(WQ, "nice", "-7"));
	check_probe(_metadata, "unbound", WQ, SCHED_OTHER, 0, -7);
}

/* ------------------------------------------------------------------ */
/* bad writes                                                          */

static char long_a[4097], long_fifo[4097], long_digits[4097];

static void init_long_strings(void)
{
	size_t i;

	memset(long_a, 'a', 4096);
	for (i = 0; i + 4 <= 4096; i += 4)
		memcpy(long_fifo + i, "fifo", 4);
	memset(long_digits, '1', 4096);
}

/*
 * Every attribute of @wq and its twin unchanged by a rejected write.
 * Returns 1 when the write was made and rejected with EINVAL and nothing
 * changed, so that a test counts the bad writes it really saw refused.
 */
static int expect_rejected(struct __test_metadata *_metadata, const char *wq,
			   const char *attr, const char *val)
{
	struct wq_snap before, after, tb, ta;
	char why[256];
	int ret, good = 1;

	/* a snapshot that cannot be read is a failure, never a silent pass */
	EXPECT_EQ(0, wq_snapshot(wq, &before) || wq_snapshot(TWIN, &tb)) {
		TH_LOG("cannot read the attributes of %s and %s", wq, TWIN);
		return 0;
	}
	ret = wq_set(wq, attr, val);
	EXPECT_EQ(0, wq_snapshot(wq, &after) || wq_snapshot(TWIN, &ta)) {
		TH_LOG("%s/%s <- '%.32s': cannot read the attributes of %s and %s afterwards",
		       wq, attr, val, wq, TWIN);
		return 0;
	}
	EXPECT_EQ(-EINVAL, ret) {
		TH_LOG("%s/%s <- '%.32s'%s (len %zu): %s", wq, attr, val,
		       strlen(val) > 32 ? "..." : "", strlen(val),
		       ret ? strerror(-ret) : "accepted");
		good = 0;
	}
	EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
		TH_LOG("%s/%s <- '%.32s': state changed: %s", wq, attr, val,
		       why);
		good = 0;
	}
	EXPECT_TRUE(wq_snap_equal(&tb, &ta, why, sizeof(why))) {
		TH_LOG("%s/%s <- '%.32s': %s changed: %s", wq, attr, val,
		       TWIN, why);
		good = 0;
	}
	return good;
}

/* at least this many bad values of each attribute, each seen refused */
#define MIN_BAD_WRITES	20

#define EXPECT_REFUSED_AT_LEAST(attr, n) \
	EXPECT_LE(MIN_BAD_WRITES, n) { \
		TH_LOG("%s: %d bad writes refused with EINVAL and no change, want at least %d", \
		       attr, n, MIN_BAD_WRITES); \
	}

static const char * const bad_policy[] = {
	"\n", " ", "fif", "fifo2", " fifo", "fifo ", "\tfifo", "fifo\n\n",
	"fifo\t", "100", "-1", "0x10", "50 60", "0", "1", "2", "f", "r",
	"norm", "normal1", "nor mal", "rrr", "batch", "idle", "deadline",
	"other", "SCHED_FIFO", "fifo,rr", "fifo fifo", "\xff\xfe",
	long_a, long_fifo,
};

TEST_F(rt, bad_policy)
{
	unsigned int i;

	int from_normal = 0, from_rr = 0;

	init_long_strings();
	/* from normal and from an RT setting */
	for (i = 0; i < sizeof(bad_policy) / sizeof(bad_policy[0]); i++)
		from_normal += expect_rejected(_metadata, WQ, "policy",
					       bad_policy[i]);
	EXPECT_REFUSED_AT_LEAST("policy (from normal)", from_normal);
	ASSERT_EQ(0, set_sched(WQ, "rr", 42));
	for (i = 0; i < sizeof(bad_policy) / sizeof(bad_policy[0]); i++)
		from_rr += expect_rejected(_metadata, WQ, "policy",
					   bad_policy[i]);
	EXPECT_REFUSED_AT_LEAST("policy (from rr 42)", from_rr);
	EXPECT_EQ(SCHED_RR, get_policy(WQ));
	EXPECT_EQ(42, wq_get_int(WQ, "rtprio"));
}

static const char * const bad_rtprio[] = {
	"\n", " ", "100", "-1", "0x10", "010x", "50 60", "1.5", "abc",
	"fifo", "5x", "x5", " 5", "5 ", "\t5", "5\n\n", "--1", "1e2",
	"99999999999", "4294967297", "-0x1", "256", "1000", "0", long_digits,
	long_a,
};

TEST_F(rt, bad_rtprio)
{
	unsigned int i;

	int under_fifo = 0, under_normal = 0;

	init_long_strings();
	ASSERT_EQ(0, set_sched(WQ, "fifo", 42));
	/* "0" does not fit fifo */
	for (i = 0; i < sizeof(bad_rtprio) / sizeof(bad_rtprio[0]); i++)
		under_fifo += expect_rejected(_metadata, WQ, "rtprio",
					      bad_rtprio[i]);
	EXPECT_REFUSED_AT_LEAST("rtprio (under fifo 42)", under_fifo);
	EXPECT_EQ(42, wq_get_int(WQ, "rtprio"));

	/* under normal, any non-zero rtprio is rejected as well */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	under_normal += expect_rejected(_metadata, WQ, "rtprio", "1");
	under_normal += expect_rejected(_metadata, WQ, "rtprio", "50");
	under_normal += expect_rejected(_metadata, WQ, "rtprio", "99");
	for (i = 0; i < sizeof(bad_rtprio) / sizeof(bad_rtprio[0]); i++)
		if (strcmp(bad_rtprio[i], "0"))
			under_normal += expect_rejected(_metadata, WQ, "rtprio",
							bad_rtprio[i]);
	EXPECT_REFUSED_AT_LEAST("rtprio (under normal)", under_normal);
}

static const char * const bad_private[] = {
	"2", "-1", "\n", " ", "10", "11", "0x1", "0 1", "1 0", "yes", "no",
	"on", "true", "y", "n", "1x", "x1", " 1", "1 ", "\t0", "256",
	"99999999999", "1\n\n", long_digits, long_a,
};

TEST_F(rt, bad_private)
{
	unsigned int i;

	int from_0 = 0, from_1 = 0;

	init_long_strings();
	for (i = 0; i < sizeof(bad_private) / sizeof(bad_private[0]); i++)
		from_0 += expect_rejected(_metadata, WQ, "private",
					  bad_private[i]);
	EXPECT_REFUSED_AT_LEAST("private (from 0)", from_0);
	ASSERT_EQ(0, wq_set(WQ, "private", "1"));
	for (i = 0; i < sizeof(bad_private) / sizeof(bad_private[0]); i++)
		from_1 += expect_rejected(_metadata, WQ, "private",
					  bad_private[i]);
	EXPECT_REFUSED_AT_LEAST("private (from 1)", from_1);
	EXPECT_EQ(1, wq_get_int(WQ, "private"));
}

TEST_F(rt, pool_ids_read_only)
{
	struct stat st;
	char p[PATH_MAX], buf[1024];
	int ids[64];

	ASSERT_EQ(0, stat(wq_path(p, sizeof(p), WQ, "pool_ids"), &st));
	EXPECT_EQ(0U, st.st_mode & 0222U);
	ASSERT_LT(0, wq_get(WQ, "pool_ids", buf, sizeof(buf)));
	EXPECT_LT(0, parse_pool_ids(buf, ids, 64)) {
		TH_LOG("pool_ids '%s' is not 'pod:pool ...'", buf);
	}
	EXPECT_NE(0, wq_set(WQ, "pool_ids", "0:1"));
}

/* ------------------------------------------------------------------ */
/* workers                                                             */

TEST_F(rt, worker_matches_sysfs)
{
	static const struct { const char *p; int prio; int nice; } steps[] = {
		{ "fifo", 10, 0 }, { "rr", 20, 0 }, { "fifo", 99, 0 },
		{ "normal", 0, -5 }, { "fifo", 1, 0 }, { "normal", 0, 3 },
		{ "rr", 1, 0 }, { "normal", 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int policy = policy_from_name(steps[i].p);

		ASSERT_EQ(0, set_sched(WQ, steps[i].p, steps[i].prio));
		if (policy == SCHED_OTHER)
			ASSERT_EQ(0, wq_set_int(WQ, "nice", steps[i].nice));
		check_probe(_metadata, "unbound", WQ, policy, steps[i].prio,
			    steps[i].nice);
		check_probe(_metadata, "unbound", WQ, policy, steps[i].prio,
			    steps[i].nice);
	}
}

/*
 * Every kworker of every pool of @wq runs with @policy/@prio.  Returns the
 * number of threads checked.
 */
static int check_pool_threads(struct __test_metadata *_metadata,
			      const char *wq, int policy, int prio)
{
	int ids[64], pids[512], n, i, j, c, total = 0;

	n = wq_pool_ids(wq, ids, 64);
	EXPECT_LT(0, n);
	for (i = 0; i < n; i++) {
		c = pool_workers(ids[i], pids, 512);
		for (j = 0; j < c && j < 512; j++) {
			struct wqrt_sched_attr a;
			char comm[64] = "?";

			if (wqrt_getattr(pids[j], &a))
				continue;	/* exited meanwhile */
			proc_comm(pids[j], comm, sizeof(comm));
			total++;
			EXPECT_EQ((unsigned int)policy, a.sched_policy) {
				TH_LOG("%s pool %d: %d (%s) policy %u, want %d",
				       wq, ids[i], pids[j], comm,
				       a.sched_policy, policy);
			}
			EXPECT_EQ((unsigned int)prio, a.sched_priority) {
				TH_LOG("%s pool %d: %d (%s) prio %u, want %d",
				       wq, ids[i], pids[j], comm,
				       a.sched_priority, prio);
			}
		}
	}
	return total;
}

static void burst_check(struct __test_metadata *_metadata, const char *key,
			int n, int policy, int prio)
{
	static char out[WQRT_RESULT_MAX];
	char args[128], *line;

	/* the items end as soon as all n run: the hold is only a bound */
	snprintf(args, sizeof(args), "wq=%s n=%d hold_ms=10000", key, n);
	ASSERT_EQ(0, dbg_run("burst", args, out, sizeof(out)));
	EXPECT_TRUE(kv_pass(out)) {
		TH_LOG("burst: %.200s", out);
	}
	for (line = strchr(out, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		struct wid w;

		if (wid_parse(line + 1, &w))
			continue;
		EXPECT_EQ(policy, w.policy) {
			TH_LOG("burst item on %s (%d): policy %d", w.comm,
			       w.pid, w.policy);
		}
		EXPECT_EQ(prio, w.rtprio);
	}
}

TEST_F_TIMEOUT(rt, new_kworkers_born_with_policy, 120)
{
	int n;

	ASSERT_EQ(0, set_sched(WQ, "fifo", 33));
	/* 6 items that all block at once force new workers */
	burst_check(_metadata, "unbound", 6, SCHED_FIFO, 33);
	n = check_pool_threads(_metadata, WQ, SCHED_FIFO, 33);
	EXPECT_LE(6, n) {
		TH_LOG("only %d kworkers in the pools of %s after a burst of 6",
		       n, WQ);
	}

	ASSERT_EQ(0, set_sched(WQ, "rr", 12));
	burst_check(_metadata, "unbound", 8, SCHED_RR, 12);
	n = check_pool_threads(_metadata, WQ, SCHED_RR, 12);
	EXPECT_LE(8, n);

	/* and back: new workers are plain CFS again */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	burst_check(_metadata, "unbound", 4, SCHED_OTHER, 0);
	check_pool_threads(_metadata, WQ, SCHED_OTHER, 0);
}

static bool same_set(const int *a, int na, const int *b, int nb)
{
	int i, j;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++)
			if (a[i] == b[j])
				break;
		if (j == nb)
			return false;
	}
	return true;
}

static bool disjoint(const int *a, int na, const int *b, int nb)
{
	int i, j;

	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			if (a[i] == b[j])
				return false;
	return true;
}

/* the pools a workqueue uses: ids and the pool_ids text, for messages */
struct pools {
	int id[64];
	int n;
	char text[512];
};

static void pools_read(const char *wq, struct pools *p)
{
	p->n = wq_pool_ids(wq, p->id, 64);
	if (wq_get(wq, "pool_ids", p->text, sizeof(p->text)) < 0)
		p->text[0] = '\0';
}

TEST_F(rt, private_pools)
{
	struct pools p, q;

	ASSERT_EQ(0, set_sched(WQ, "fifo", 7));
	ASSERT_EQ(0, set_sched(TWIN, "fifo", 7));

	/* identical attributes, private=0: the pools are shared */
	pools_read(WQ, &p);
	pools_read(TWIN, &q);
	ASSERT_LT(0, p.n);
	ASSERT_LT(0, q.n);
	EXPECT_TRUE(same_set(p.id, p.n, q.id, q.n)) {
		TH_LOG("private=0, same attrs, different pools: '%s' vs '%s'",
		       p.text, q.text);
	}

	/* private=1 on one: its pools are its own */
	ASSERT_EQ(0, wq_set(TWIN, "private", "1"));
	pools_read(WQ, &p);
	pools_read(TWIN, &q);
	EXPECT_TRUE(disjoint(p.id, p.n, q.id, q.n)) {
		TH_LOG("private=1 but pools shared: '%s' vs '%s'", p.text,
		       q.text);
	}
	check_probe(_metadata, "twin", TWIN, SCHED_FIFO, 7, 0);

	/* private=1 on both, identical attributes: still apart */
	ASSERT_EQ(0, wq_set(WQ, "private", "1"));
	pools_read(WQ, &p);
	pools_read(TWIN, &q);
	EXPECT_TRUE(disjoint(p.id, p.n, q.id, q.n)) {
		TH_LOG("both private but pools shared: '%s' vs '%s'", p.text,
		       q.text);
	}
	check_probe(_metadata, "unbound", WQ, SCHED_FIFO, 7, 0);

	/* and back to sharing */
	ASSERT_EQ(0, wq_set(WQ, "private", "0"));
	ASSERT_EQ(0, wq_set(TWIN, "private", "0"));
	pools_read(WQ, &p);
	pools_read(TWIN, &q);
	EXPECT_TRUE(same_set(p.id, p.n, q.id, q.n));

	/* an RT workqueue never shares with a normal one */
	ASSERT_EQ(0, wq_set(TWIN, "policy", "normal"));
	pools_read(WQ, &p);
	pools_read(TWIN, &q);
	EXPECT_TRUE(disjoint(p.id, p.n, q.id, q.n));
}

/*
 * nice means nothing to RT workers: it is not part of an RT pool's identity.
 * A nice write under fifo keeps the pools, and RT workqueues that differ
 * only in nice share them.
 */
TEST_F(rt, nice_under_rt_keeps_pools)
{
	struct pools before, after, twin;

	ASSERT_EQ(0, set_sched(WQ, "fifo", 7));
	ASSERT_EQ(0, set_sched(TWIN, "fifo", 7));
	ASSERT_EQ(0, wq_set_int(WQ, "nice", 0));
	pools_read(WQ, &before);
	ASSERT_LT(0, before.n);

	ASSERT_EQ(0, wq_set_int(WQ, "nice", 5));
	EXPECT_EQ(5, wq_get_int(WQ, "nice"));
	pools_read(WQ, &after);
	EXPECT_TRUE(same_set(before.id, before.n, after.id, after.n)) {
		TH_LOG("nice 0 -> 5 under fifo moved the pools: '%s' -> '%s'",
		       before.text, after.text);
	}

	ASSERT_EQ(0, wq_set_int(TWIN, "nice", -3));
	pools_read(TWIN, &twin);
	EXPECT_TRUE(same_set(after.id, after.n, twin.id, twin.n)) {
		TH_LOG("fifo 7 with nice 5 and nice -3: pools '%s' vs '%s'",
		       after.text, twin.text);
	}
	check_probe(_metadata, "unbound", WQ, SCHED_FIFO, 7, 5);

	/* under normal, nice is the pool's again: apart */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	ASSERT_EQ(0, wq_set(TWIN, "policy", "normal"));
	pools_read(WQ, &after);
	pools_read(TWIN, &twin);
	EXPECT_TRUE(disjoint(after.id, after.n, twin.id, twin.n)) {
		TH_LOG("normal with nice 5 and nice -3 share pools: '%s' vs '%s'",
		       after.text, twin.text);
	}
	check_probe(_metadata, "unbound", WQ, SCHED_OTHER, 0, 5);
}

/*
 * RT pools with the per-CPU affinity scope, strict: one pool per CPU, each
 * in pool_ids under its CPU's pod, all of them RT. An item queued from a
 * CPU runs on that CPU, in that CPU's pool, with the policy.
 */
TEST_F(rt, per_cpu_scope_strict_rt_pools)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, n;
	cpu_set_t old;

	if (ncpu < 2)
		SKIP(return, "needs two online CPUs, has %d", ncpu);
	ASSERT_EQ(0, set_sched(WQ, "fifo", 15));
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "cpu"));
	ASSERT_EQ(0, wq_set(WQ, "affinity_strict", "1"));
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	for (cpu = 0; cpu < ncpu && cpu < 64; cpu++) {
		int pool = wq_pod_pool(WQ, cpu);
		struct wid w;

		EXPECT_LE(0, pool) {
			TH_LOG("affinity_scope=cpu: no pool for pod %d in pool_ids", cpu);
			continue;
		}
		ASSERT_EQ(0, wqrt_pin(cpu));
		ASSERT_EQ(0, wqrt_probe("unbound", &w));
		EXPECT_EQ(cpu, w.cpu) {
			TH_LOG("queued on CPU %d, ran on CPU %d (%s), strict", cpu,
			       w.cpu, w.comm);
		}
		EXPECT_EQ(pool, kworker_upool(w.comm)) {
			TH_LOG("queued on CPU %d: ran in %s, pool_ids gives pod %d pool %d",
			       cpu, w.comm, cpu, pool);
		}
		EXPECT_EQ(SCHED_FIFO, w.policy);
		EXPECT_EQ(15, w.rtprio);
	}
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
	/* and every worker of every per-CPU pool is RT */
	n = check_pool_threads(_metadata, WQ, SCHED_FIFO, 15);
	EXPECT_LE(ncpu, n) {
		TH_LOG("%d kworkers in the pools of %s for %d CPUs", n, WQ, ncpu);
	}
}

/*
 * A policy write changes policy (and rtprio by the ABI rule), nothing else,
 * on a workqueue none of whose attributes was ever written: no attribute
 * may depend on the history of writes.
 */
TEST_F(rt, policy_write_leaves_other_attrs)
{
	static const char * const policies[] = { "fifo", "rr", "normal" };
	struct wq_snap before, after;
	char out[256];
	unsigned int i, k;

	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
	ASSERT_TRUE(wq_has(FRESH, "policy"));

	for (i = 0; i < sizeof(policies) / sizeof(policies[0]); i++) {
		ASSERT_EQ(0, wq_snapshot(FRESH, &before));
		ASSERT_EQ(0, wq_set(FRESH, "policy", policies[i]));
		ASSERT_EQ(0, wq_snapshot(FRESH, &after));
		for (k = 0; k < (unsigned int)after.n; k++) {
			const char *name = after.name[k];
			const char *was = wq_snap_get(&before, name);

			if (!strcmp(name, "policy") || !strcmp(name, "rtprio") ||
			    !strcmp(name, "pool_ids") || !was)
				continue;
			EXPECT_STREQ(was, after.val[k]) {
				TH_LOG("policy <- %s changed %s: '%s' -> '%s'",
				       policies[i], name, was, after.val[k]);
			}
		}
	}
	ASSERT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
}

/*
 * Writers without CAP_SYS_NICE: the workers are set up with
 * sched_setattr_nocheck(), so the store must check. Root without the
 * capability still passes the file mode: only the capability check can
 * refuse it.
 */
struct priv_write {
	const char *attr, *val;
};

/* a file of mode 0444, such as max_active of an ordered workqueue */
static bool wq_read_only(const char *wq, const char *attr)
{
	char path[256];
	struct stat st;

	wq_path(path, sizeof(path), wq, attr);
	return !stat(path, &st) && !(st.st_mode & 0222);
}

/*
 * Run @fn(@arg) in a child without CAP_SYS_NICE, uid 0 still; returns its
 * exit status, 100 if the capability could not be dropped, or -1 if the
 * child could not be run or did not exit.
 */
static int without_cap_sys_nice(int (*fn)(void *arg), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (wqrt_drop_cap(CAP_SYS_NICE)) {
			fprintf(stderr, "# cannot drop CAP_SYS_NICE: %s\n",
				strerror(errno));
			_exit(100);
		}
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

struct priv_writes {
	const char *wq;
	const struct priv_write *writes;
	int n, want;
};

/* each of the writes to the workqueue it has writable: how many went wrong */
static int priv_writes_run(void *arg)
{
	const struct priv_writes *w = arg;
	int i, bad = 0;

	for (i = 0; i < w->n; i++) {
		const struct priv_write *pw = &w->writes[i];
		int ret;

		if (!wq_has(w->wq, pw->attr) || wq_read_only(w->wq, pw->attr))
			continue;
		ret = wq_set(w->wq, pw->attr, pw->val);
		if (ret != w->want) {
			fprintf(stderr,
				"# %s: %s <- %s without CAP_SYS_NICE: %s, want %s\n",
				w->wq, pw->attr, pw->val,
				ret ? strerror(-ret) : "accepted",
				w->want ? strerror(-w->want) : "success");
			bad++;
		}
	}
	return bad;
}

/*
 * In a child without CAP_SYS_NICE, write each of @writes to @wq (those it
 * has writable); returns how many did not get @want (0 for success), each
 * said.
 */
static int unprivileged_writes(struct __test_metadata *_metadata,
			       const char *wq, const struct priv_write *writes,
			       int n, int want)
{
	struct priv_writes w = { wq, writes, n, want };

	return without_cap_sys_nice(priv_writes_run, &w);
}

/*
 * On an RT workqueue, every write that would create workers or move them
 * (cpumask, affinity_scope, affinity_strict), or change them (nice, which
 * applies again once the policy is normal, the scheduling attributes and
 * the reserve), or let more of them run at once (max_active) fails with
 * EPERM without CAP_SYS_NICE and changes nothing, on the unbound and on
 * the ordered workqueue.
 */
TEST_F(rt, unprivileged_writer_gets_eperm)
{
	static const struct priv_write writes[] = {
		{ "policy", "fifo" }, { "policy", "normal" },
		{ "rtprio", "50" }, { "private", "1" },
		{ "nr_idle_extra", "4" }, { "cpumask", "1" },
		{ "affinity_scope", "cpu" }, { "affinity_strict", "1" },
		{ "nice", "5" }, { "max_active", "7" },
	};
	static const char * const wqs[] = { WQ, ORD };
	struct wq_snap before, after;
	char why[256];
	unsigned int k;

	for (k = 0; k < sizeof(wqs) / sizeof(wqs[0]); k++) {
		if (!wq_has(wqs[k], "policy"))
			continue;
		ASSERT_EQ(0, set_sched(wqs[k], "fifo", 5));
		ASSERT_EQ(0, wq_snapshot(wqs[k], &before));
		EXPECT_EQ(0, unprivileged_writes(_metadata, wqs[k], writes,
						 sizeof(writes) / sizeof(writes[0]),
						 -EPERM));
		ASSERT_EQ(0, wq_snapshot(wqs[k], &after));
		EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
			TH_LOG("writes without CAP_SYS_NICE changed %s: %s",
			       wqs[k], why);
		}
		/* and with the capability, the same writes work */
		EXPECT_EQ(0, wq_set(wqs[k], "rtprio", "50"));
		EXPECT_EQ(50, wq_get_int(wqs[k], "rtprio"));
		EXPECT_EQ(0, wq_set(wqs[k], "cpumask", "1"));
	}
}

struct priv_file_write {
	const char *path, *val;
};

static int priv_file_write_run(void *arg)
{
	const struct priv_file_write *w = arg;
	int ret = wqrt_write(w->path, w->val);

	return ret < 0 ? -ret : 0;
}

/* write @val to @path in a child without CAP_SYS_NICE: 0 or -errno */
static int unprivileged_write(const char *path, const char *val)
{
	struct priv_file_write w = { path, val };
	int status = without_cap_sys_nice(priv_file_write_run, &w);

	return status < 0 ? -ECHILD : -status;
}

#define AFFN_DFL "default_affinity_scope"

/*
 * While a workqueue is RT, a change of the unbound cpumask or of the default
 * affinity scope creates its workers again, on CPUs the writer picks: without
 * CAP_SYS_NICE each fails with EPERM and changes nothing, with it each works
 * (and is put back).
 */
TEST_F(rt, unprivileged_global_writes_with_rt_workqueue)
{
	char mask[256], scope[64], was[256];
	const char *other_scope;

	ASSERT_EQ(0, set_sched(WQ, "fifo", 5));
	ASSERT_LT(0, wqrt_read(WQ_UNBOUND_CPUMASK, mask, sizeof(mask)));
	ASSERT_LT(0, wqparam_get(AFFN_DFL, scope, sizeof(scope)));
	other_scope = strcmp(scope, "system") ? "system" : "cache";

	if (cpu_count_possible() > 1 && strcmp(mask, "1")) {
		EXPECT_EQ(-EPERM, unprivileged_write(WQ_UNBOUND_CPUMASK, "1"));
		ASSERT_LT(0, wqrt_read(WQ_UNBOUND_CPUMASK, was, sizeof(was)));
		EXPECT_STREQ(mask, was);
		EXPECT_EQ(0, wqrt_write(WQ_UNBOUND_CPUMASK, "1"));
		EXPECT_EQ(0, wqrt_write(WQ_UNBOUND_CPUMASK, mask));
	} else {
		TH_LOG("one CPU in the unbound cpumask: no other mask to write");
	}

	EXPECT_EQ(-EPERM, unprivileged_write(WQPARAM_DIR "/" AFFN_DFL,
					     other_scope));
	ASSERT_LT(0, wqparam_get(AFFN_DFL, was, sizeof(was)));
	EXPECT_STREQ(scope, was);
	EXPECT_EQ(0, wqparam_set(AFFN_DFL, other_scope));
	EXPECT_EQ(0, wqparam_set(AFFN_DFL, scope));
	/* writing the value it has creates nothing and needs nothing */
	EXPECT_EQ(0, unprivileged_write(WQPARAM_DIR "/" AFFN_DFL, scope));
}

/*
 * A workqueue that is and stays SCHED_NORMAL keeps 6.12's rules: nice,
 * cpumask and the affinity need no CAP_SYS_NICE (the file mode decides),
 * nothing RT can come of them.
 */
TEST_F(rt, unprivileged_writer_keeps_normal_rules)
{
	static const struct priv_write writes[] = {
		{ "nice", "5" }, { "cpumask", "1" },
		{ "affinity_scope", "cpu" }, { "affinity_strict", "1" },
		{ "nice", "0" },
	};

	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	EXPECT_EQ(0, unprivileged_writes(_metadata, WQ, writes,
					 sizeof(writes) / sizeof(writes[0]), 0));
	EXPECT_EQ(0, wq_get_int(WQ, "nice"));
	EXPECT_EQ(1, wq_get_int(WQ, "affinity_strict"));
}

/* ------------------------------------------------------------------ */
/* ordered                                                             */

struct ord_run {
	char out[1024];
	int ret;
	volatile int done;
};

static void *ord_thread(void *arg)
{
	struct ord_run *r = arg;

	r->ret = dbg_run("ordered_check",
			 "n=10000 delay_us=20 pause_every=20 pause_us=500 timeout_s=150",
			 r->out, sizeof(r->out));
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

TEST_F_TIMEOUT(rt, ordered_in_order_while_attrs_change, 240)
{
	static const struct { const char *p; int prio; } scheds[] = {
		{ "fifo", 10 }, { "rr", 30 }, { "normal", 0 }, { "fifo", 99 },
		{ "rr", 1 }, { "normal", 0 },
	};
	int ncpu = cpu_count_possible(), changes = 0, fails = 0, i = 0;
	struct ord_run r = {};
	char mask[32];
	pthread_t th;

	/* the module fails to load rather than leave it out of sysfs */
	ASSERT_TRUE(wq_has(ORD, "policy")) {
		TH_LOG("%s has no sysfs policy on a kernel with the series", ORD);
	}
	ASSERT_EQ(0, pthread_create(&th, NULL, ord_thread, &r));
	while (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) {
		unsigned int k = i % (sizeof(scheds) / sizeof(scheds[0]));

		fails += !!set_sched(ORD, scheds[k].p, scheds[k].prio);
		if (policy_from_name(scheds[k].p) == SCHED_OTHER)
			fails += !!wq_set_int(ORD, "nice", (i % 7) - 3);
		/* one CPU at a time, then all */
		if (ncpu > 1 && ncpu < 64) {
			int cpu = i % (ncpu + 1);

			snprintf(mask, sizeof(mask), "%llx",
				 cpu == ncpu ? (1ULL << ncpu) - 1 : 1ULL << cpu);
			fails += !!wq_set(ORD, "cpumask", mask);
		}
		changes++;
		i++;
		wqrt_msleep(5);
	}
	pthread_join(th, NULL);
	ASSERT_EQ(0, r.ret);
	TH_LOG("%d attribute changes during the run: %s", changes, r.out);
	EXPECT_TRUE(kv_pass(r.out)) {
		TH_LOG("ordered_check: %s", r.out);
	}
	EXPECT_EQ(10000, kv_long(r.out, "executed", -1));
	EXPECT_EQ(0, kv_long(r.out, "concurrent", -1));
	EXPECT_EQ(0, kv_long(r.out, "out_of_order", -1));
	EXPECT_EQ(0, fails);
	EXPECT_LE(2, changes);
}

TEST_F(rt, ordered_max_active_read_only)
{
	struct stat st;
	char p[PATH_MAX];
	int ret;

	ASSERT_TRUE(wqrt_exists(WQ_DIR "/" ORD)) {
		TH_LOG("%s is not in sysfs on a kernel with the series", ORD);
	}
	ASSERT_EQ(0, stat(wq_path(p, sizeof(p), ORD, "max_active"), &st));
	EXPECT_EQ(0U, st.st_mode & 0222U) {
		TH_LOG("max_active of an ordered workqueue is mode %o",
		       st.st_mode & 0777);
	}
	EXPECT_EQ(1, wq_get_int(ORD, "max_active"));
	ret = wq_set(ORD, "max_active", "4");
	EXPECT_NE(0, ret);
	EXPECT_EQ(1, wq_get_int(ORD, "max_active"));
	/* and the ordered workqueue has the unbound attribute set */
	EXPECT_TRUE(wq_has(ORD, "cpumask"));
	EXPECT_TRUE(wq_has(ORD, "nice"));
	EXPECT_TRUE(wq_has(ORD, "rtprio"));
	/* the module's ordered workqueue as created: normal, nice 0 */
	check_probe(_metadata, "ordered", ORD, SCHED_OTHER, 0, 0);
}

/* ------------------------------------------------------------------ */
/* rescuer                                                             */

static int rescuer_pid(void)
{
	char buf[512];

	if (dbg_read("info", buf, sizeof(buf)) < 0)
		return -1;
	{
		const char *p = strstr(buf, "rescuer_pid=");

		return p ? atoi(p + strlen("rescuer_pid=")) : -1;
	}
}

/* Poll: the rescuer is updated when the attributes are applied. */
static bool wait_sched(int pid, int policy, int prio,
		       struct wqrt_sched_attr *a)
{
	double end = wqrt_now() + 3;

	do {
		if (wqrt_getattr(pid, a))
			return false;
		if ((int)a->sched_policy == policy &&
		    (int)a->sched_priority == prio)
			return true;
		wqrt_msleep(20);
	} while (wqrt_now() < end);
	return false;
}

TEST_F(rt, rescuer_carries_policy)
{
	struct wqrt_sched_attr a;
	char comm[64];
	int pid = rescuer_pid();

	ASSERT_LT(0, pid) {
		TH_LOG("the module did not find the rescuer of %s", REC);
	}
	ASSERT_LT(0, proc_comm(pid, comm, sizeof(comm)));
	/* 15 chars of "kworker/R-wqrt_test_reclaim" */
	ASSERT_EQ(0, strncmp(comm, "kworker/R-wqrt_", 15)) {
		TH_LOG("pid %d is '%s'", pid, comm);
	}
	ASSERT_TRUE(wq_has(REC, "policy"));

	ASSERT_EQ(0, set_sched(REC, "fifo", 21));
	EXPECT_TRUE(wait_sched(pid, SCHED_FIFO, 21, &a)) {
		TH_LOG("rescuer %d: policy %u prio %u, want fifo 21", pid,
		       a.sched_policy, a.sched_priority);
	}
	check_probe(_metadata, "reclaim", REC, SCHED_FIFO, 21, 0);

	ASSERT_EQ(0, set_sched(REC, "rr", 5));
	EXPECT_TRUE(wait_sched(pid, SCHED_RR, 5, &a)) {
		TH_LOG("rescuer %d: policy %u prio %u, want rr 5", pid,
		       a.sched_policy, a.sched_priority);
	}

	ASSERT_EQ(0, wq_set(REC, "policy", "normal"));
	EXPECT_TRUE(wait_sched(pid, SCHED_OTHER, 0, &a)) {
		TH_LOG("rescuer %d: policy %u prio %u, want normal", pid,
		       a.sched_policy, a.sched_priority);
	}
}

/* ------------------------------------------------------------------ */
/* no global side effects                                              */

/* Pools of every test workqueue that is not normal right now. */
static int rt_pools(int *ids, int max)
{
	int n = 0, i, k, c, tmp[64];

	for (i = 0; i < NR_TEST_WQS; i++) {
		if (!wq_has(test_wqs[i], "policy") ||
		    get_policy(test_wqs[i]) == SCHED_OTHER)
			continue;
		c = wq_pool_ids(test_wqs[i], tmp, 64);
		for (k = 0; k < c && n < max; k++)
			ids[n++] = tmp[k];
	}
	return n;
}

/*
 * Every kworker that does not belong to an RT pool is SCHED_OTHER.  Pools
 * a previous step left behind are torn down asynchronously: retry for a
 * few seconds before calling a thread a leak.
 */
static int count_foreign_rt(char *first, size_t len)
{
	static struct kthr t[MAX_KTHR];
	int ids[256], nids = rt_pools(ids, 256), n, i, j, bad = 0;

	n = list_threads("kworker/", t, MAX_KTHR);
	if (n > MAX_KTHR)
		n = MAX_KTHR;
	for (i = 0; i < n; i++) {
		struct wqrt_sched_attr a;
		int pool = kworker_upool(t[i].comm);

		if (!strncmp(t[i].comm, "kworker/R-", 10))
			continue;	/* rescuers: checked on their own */
		if (pool >= 0) {
			for (j = 0; j < nids; j++)
				if (ids[j] == pool)
					break;
			if (j < nids)
				continue;
		} else if (!kworker_is_percpu(t[i].comm)) {
			continue;
		}
		if (wqrt_getattr(t[i].pid, &a))
			continue;
		if (a.sched_policy != SCHED_OTHER) {
			if (!bad++)
				snprintf(first, len, "%d %s policy %u prio %u",
					 t[i].pid, t[i].comm, a.sched_policy,
					 a.sched_priority);
		}
	}
	return bad;
}

TEST_F_TIMEOUT(rt, no_global_side_effects, 60)
{
	char first[256] = "";
	struct wid w;
	double end;
	int bad;

	ASSERT_EQ(0, set_sched(WQ, "fifo", 40));
	ASSERT_EQ(0, set_sched(TWIN, "rr", 41));
	burst_check(_metadata, "unbound", 4, SCHED_FIFO, 40);

	/* system workqueues */
	ASSERT_EQ(0, wqrt_probe("system", &w));
	EXPECT_EQ(SCHED_OTHER, w.policy) {
		TH_LOG("system_wq item ran on %s (%d) with policy %d", w.comm,
		       w.pid, w.policy);
	}
	ASSERT_EQ(0, wqrt_probe("system_unbound", &w));
	EXPECT_EQ(SCHED_OTHER, w.policy) {
		TH_LOG("system_unbound_wq item ran on %s (%d) with policy %d",
		       w.comm, w.pid, w.policy);
	}
	/* a test workqueue that did not opt in */
	ASSERT_EQ(0, wqrt_probe("cull", &w));
	EXPECT_EQ(SCHED_OTHER, w.policy);
	EXPECT_EQ(0, w.rtprio);

	/* every kworker outside the RT pools, per-cpu ones included */
	end = wqrt_now() + 5;
	while ((bad = count_foreign_rt(first, sizeof(first))) &&
	       wqrt_now() < end)
		wqrt_msleep(200);
	EXPECT_EQ(0, bad) {
		TH_LOG("%d kworkers outside the RT pools are not SCHED_OTHER, e.g. %s",
		       bad, first);
	}

	/* and once the workqueues are normal again, no RT kworker is left */
	ASSERT_EQ(0, wq_set(WQ, "policy", "normal"));
	ASSERT_EQ(0, wq_set(TWIN, "policy", "normal"));
	end = wqrt_now() + 10;
	while ((bad = count_foreign_rt(first, sizeof(first))) &&
	       wqrt_now() < end)
		wqrt_msleep(200);
	EXPECT_EQ(0, bad) {
		TH_LOG("%d RT kworkers left after reverting to normal, e.g. %s",
		       bad, first);
	}
}

/* ------------------------------------------------------------------ */
/* writes that change nothing                                          */

/*
 * Hold two items on @wq (one running, one queued behind it), write @attr,
 * and tell whether an item queued afterwards joined them on the same pwq:
 * 1 yes, 0 no (the pwqs were replaced), -1 if the probe failed.
 */
static int pwq_kept_across(struct __test_metadata *_metadata, const char *key,
			   const char *wq, const char *attr, const char *val)
{
	char args[64], out[256];
	int ret;

	snprintf(args, sizeof(args), "wq=%s", key);
	if (dbg_run("pwq_hold", args, out, sizeof(out)) || !kv_pass(out)) {
		TH_LOG("pwq_hold %s: %s", key, out);
		return -1;
	}
	ret = wq_set(wq, attr, val);
	EXPECT_EQ(0, ret) {
		TH_LOG("%s: %s <- %s: %s", wq, attr, val, strerror(-ret));
	}
	if (dbg_run("pwq_check", "now", out, sizeof(out)))
		return -1;
	if (kv_long(out, "held_pending", 0) != 1) {
		TH_LOG("%s: the held item did not wait: %s", wq, out);
		return -1;
	}
	return kv_long(out, "same_pwq", -1);
}

/*
 * A write whose value resolves to the attributes a workqueue already has
 * changes nothing: the same pools, and the same pwqs, so that no ordered
 * workqueue is plugged and no work item is held back behind a switch.
 * nice under fifo is one: it does not apply to RT workers.
 */
TEST_F_TIMEOUT(rt, no_op_writes_keep_pwqs, 120)
{
	static const char * const attrs[] = {
		"policy", "rtprio", "private", "nr_idle_extra", "cpumask",
		"affinity_scope", "affinity_strict",
	};
	static const struct {
		const char *key, *wq;
	} wqs[] = { { "ordered", ORD }, { "unbound", WQ } };
	unsigned int k, i;

	for (k = 0; k < sizeof(wqs) / sizeof(wqs[0]); k++) {
		const char *wq = wqs[k].wq;
		struct pools before, after;
		struct wq_snap snap;
		int same;

		if (!wq_has(wq, "policy"))
			continue;
		/* one item at a time, so that the second one waits */
		if (strcmp(wqs[k].key, "ordered"))
			ASSERT_EQ(0, wq_set(wq, "max_active", "1"));
		ASSERT_EQ(0, set_sched(wq, "fifo", 10));
		ASSERT_EQ(0, wq_set(wq, "private", "1"));
		pools_read(wq, &before);
		ASSERT_EQ(0, wq_snapshot(wq, &snap));

		for (i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
			const char *v = wq_snap_get(&snap, attrs[i]);
			char val[256];

			if (!v)
				continue;
			/* "default (cache)" is shown, "default" written */
			snprintf(val, sizeof(val), "%s", v);
			val[strcspn(val, " ")] = '\0';
			same = pwq_kept_across(_metadata, wqs[k].key, wq,
					       attrs[i], val);
			EXPECT_EQ(1, same) {
				TH_LOG("%s: %s <- %s (unchanged) replaced its pwqs",
				       wq, attrs[i], val);
			}
		}
		same = pwq_kept_across(_metadata, wqs[k].key, wq, "nice", "7");
		EXPECT_EQ(1, same) {
			TH_LOG("%s: nice <- 7 under fifo replaced its pwqs", wq);
		}
		EXPECT_EQ(7, wq_get_int(wq, "nice"));

		pools_read(wq, &after);
		EXPECT_STREQ(before.text, after.text) {
			TH_LOG("%s: pools moved by writes of unchanged values",
			       wq);
		}
		/* a real change does replace them, as it must */
		same = pwq_kept_across(_metadata, wqs[k].key, wq, "rtprio",
				       "11");
		EXPECT_EQ(0, same);
		if (strcmp(wqs[k].key, "ordered"))
			ASSERT_EQ(0, wq_set(wq, "max_active",
					    wq_snap_get(&self->orig[0], "max_active")));
	}
}

/*
 * The key of a workqueue's private pools is the workqueue's: a driver that
 * applies private attributes again, with attributes it allocated afresh
 * (it cannot read the workqueue's back), keeps its pools and workers.
 */
TEST_F(rt, in_kernel_reapply_keeps_private_pools)
{
	char out[256];
	struct pools first, again;
	int ret, i;

	ret = dbg_run("apply", "wq=unbound private=1 policy=1 rtprio=10", out,
		      sizeof(out));
	if (ret == -EOPNOTSUPP)
		SKIP(return, "apply_workqueue_attrs() is not exported: needs the test kernels' debug knobs (kernel/variants/debug-knobs)");
	ASSERT_EQ(0, ret);
	ASSERT_TRUE(kv_pass(out)) {
		TH_LOG("%s", out);
	}
	EXPECT_EQ(1, wq_get_int(WQ, "private"));
	pools_read(WQ, &first);
	ASSERT_LT(0, first.n);

	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, dbg_run("apply",
				     "wq=unbound private=1 policy=1 rtprio=10",
				     out, sizeof(out)));
		ASSERT_TRUE(kv_pass(out));
		pools_read(WQ, &again);
		EXPECT_STREQ(first.text, again.text) {
			TH_LOG("re-apply %d of the same private attributes moved %s to other pools",
			       i + 1, WQ);
		}
	}
	check_probe(_metadata, "unbound", WQ, SCHED_FIFO, 10, 0);
	/* and another workqueue's private pools are still apart */
	ASSERT_EQ(0, set_sched(TWIN, "fifo", 10));
	ASSERT_EQ(0, wq_set(TWIN, "private", "1"));
	pools_read(TWIN, &again);
	EXPECT_TRUE(disjoint(first.id, first.n, again.id, again.n));
}

/* ------------------------------------------------------------------ */
/* what the busy-pool dump shows                                       */

/*
 * The dump that sysrq-t and the workqueue watchdog print names an RT pool's
 * policy, priority, reserve and privacy, and the workers kicked for work
 * items that have not run yet (a stall report on a board must show them:
 * they are neither idle nor busy). A kthread on CPU 0 queues an item
 * while workqueue.debug_wake_delay_us holds its wakeup back; the dump is
 * printed from CPU 1 in between.
 */
TEST_F_TIMEOUT(rt, busy_pool_dump_names_rt_pool, 120)
{
	static char rec[2048], line[2048];
	int ids[8], n, fd, try, found_pool = 0, found_kicked = 0;
	char *text;
	char args[64], out[256], delay[32] = "0";

	if (!wqparam_exists("debug_wake_delay_us"))
		SKIP(return, "needs workqueue.debug_wake_delay_us (CONFIG_WQ_DEBUG_WAKE_DELAY)");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs CPUs 0 and 1 online");
	wqparam_get("debug_wake_delay_us", delay, sizeof(delay));
	ASSERT_EQ(0, set_sched(WQ, "fifo", 10));
	ASSERT_EQ(0, wq_set(WQ, "private", "1"));
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "system"));
	ASSERT_EQ(0, wq_set(WQ, "nr_idle_extra", "2"));
	n = wq_pool_ids(WQ, ids, 8);
	ASSERT_EQ(1, n);
	ASSERT_EQ(0, wqparam_set("debug_wake_delay_us", "10000"));

	snprintf(args, sizeof(args), "wq=unbound lead_us=2000");
	for (try = 0; try < 10 && !found_kicked; try++) {
		char head[32];

		fd = kmsg_open_at_end();
		ASSERT_LE(0, fd);
		if (dbg_run("show_kicked", args, out, sizeof(out))) {
			close(fd);
			wqparam_set("debug_wake_delay_us", delay);
			SKIP(return, "show_all_workqueues() is not exported: needs the test kernels' debug knobs (kernel/variants/debug-knobs)");
		}
		snprintf(head, sizeof(head), "pool %d:", ids[0]);
		while ((text = wqrt_kmsg_next(fd, rec, sizeof(rec)))) {
			text[strcspn(text, "\n")] = '\0';
			if (strncmp(text, head, strlen(head)))
				continue;
			found_pool++;
			snprintf(line, sizeof(line), "%s", text);
			if (strstr(text, " kicked: "))
				found_kicked++;
		}
		close(fd);
	}
	wqparam_set("debug_wake_delay_us", delay);

	ASSERT_LT(0, found_pool) {
		TH_LOG("no \"pool %d:\" line in the dump", ids[0]);
	}
	TH_LOG("%s", line);
	EXPECT_TRUE(strstr(line, " fifo ") && strstr(line, " rtprio=10")) {
		TH_LOG("the dump does not name the pool's policy and priority");
	}
	EXPECT_TRUE(strstr(line, " nr_idle_extra=2") != NULL);
	EXPECT_TRUE(strstr(line, " private") != NULL);
	EXPECT_LT(0, found_kicked) {
		TH_LOG("%d dumps of pool %d, none names a kicked worker",
		       found_pool, ids[0]);
	}
}

WQRT_HARNESS_MAIN("wqrt_test", DBG_DIR "/info")
