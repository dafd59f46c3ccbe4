// SPDX-License-Identifier: GPL-2.0
/*
 * wq_sysfs_base - the workqueue sysfs attributes Linux 6.12 already has
 * (nice, cpumask, affinity_scope, affinity_strict, max_active) on the
 * unbound WQ_SYSFS workqueue of the wqrt_test module: a good write reads
 * back (and reaches the workers where that is observable), a bad write
 * fails with the errno 6.12 returns and leaves every attribute as it was.
 * These must pass unchanged on a plain 6.12 kernel and on the wqrt series.
 */
#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define WQ WQ_UNBOUND_NAME

FIXTURE(base) {
	struct wq_snap orig;
};

FIXTURE_SETUP(base)
{
	char why[256];

	if (wqrt_load_module(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_TRUE(wq_has(WQ, "nice")) {
		TH_LOG("%s/%s/nice missing: module loaded without WQ_SYSFS?",
		       WQ_DIR, WQ);
	}
	ASSERT_EQ(0, wq_snapshot(WQ, &self->orig));
}

FIXTURE_TEARDOWN(base)
{
	static const char * const attrs[] = {
		"nice", "cpumask", "affinity_scope", "affinity_strict",
		"max_active", NULL,
	};
	struct wq_snap now;
	char why[256];

	if (!self->orig.n)
		return;
	wq_snap_restore(WQ, &self->orig, attrs);
	ASSERT_EQ(0, wq_snapshot(WQ, &now));
	EXPECT_TRUE(wq_snap_equal(&self->orig, &now, why, sizeof(why))) {
		TH_LOG("not restored: %s", why);
	}
}

/* A long string of @c, @n bytes (static buffer, reused). */
static const char *longstr(char c, size_t n)
{
	static char buf[8192];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memset(buf, c, n);
	buf[n] = '\0';
	return buf;
}

/*
 * Write @val to @attr; expect -@err and every attribute unchanged.
 * Returns true when both hold.
 */
static bool bad_write(struct __test_metadata *_metadata, const char *attr,
		      const char *val, int err)
{
	struct wq_snap before, after;
	char why[256];
	int ret;

	/* a snapshot that cannot be read is a failure, never a silent pass */
	EXPECT_EQ(0, wq_snapshot(WQ, &before)) {
		TH_LOG("%s <- '%.40s': cannot read the attributes of %s before",
		       attr, val, WQ);
		return false;
	}
	ret = wq_set(WQ, attr, val);
	EXPECT_EQ(0, wq_snapshot(WQ, &after)) {
		TH_LOG("%s <- '%.40s': cannot read the attributes of %s afterwards",
		       attr, val, WQ);
		return false;
	}
	EXPECT_EQ(-err, ret) {
		TH_LOG("%s <- '%.40s'%s (len %zu): got %d (%s), want -%s",
		       attr, val, strlen(val) > 40 ? "..." : "", strlen(val),
		       ret, ret < 0 ? strerror(-ret) : "accepted",
		       strerror(err));
		return false;
	}
	EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
		TH_LOG("%s <- '%.40s' rejected but state changed: %s", attr,
		       val, why);
		return false;
	}
	return true;
}

/* A zero-length write: sysfs returns 0 without calling ->store(). */
static void empty_write(struct __test_metadata *_metadata, const char *attr)
{
	struct wq_snap before, after;
	char why[256];

	ASSERT_EQ(0, wq_snapshot(WQ, &before));
	EXPECT_EQ(0, wq_set_n(WQ, attr, "", 0));
	ASSERT_EQ(0, wq_snapshot(WQ, &after));
	EXPECT_TRUE(wq_snap_equal(&before, &after, why, sizeof(why))) {
		TH_LOG("%s: empty write changed state: %s", attr, why);
	}
}

TEST_F(base, nice_round_trip)
{
	static const int vals[] = { -20, -5, 0, 7, 19, 0 };
	struct wid w;
	unsigned int i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		ASSERT_EQ(0, wq_set_int(WQ, "nice", vals[i]));
		EXPECT_EQ(vals[i], wq_get_int(WQ, "nice"));
		/* the worker that runs the next item has that nice */
		ASSERT_EQ(0, wqrt_probe("unbound", &w));
		EXPECT_EQ(vals[i], w.nice) {
			TH_LOG("worker %d (%s) nice %d, sysfs %d", w.pid,
			       w.comm, w.nice, vals[i]);
		}
		EXPECT_EQ(SCHED_OTHER, w.policy);
	}
	/* trailing newline, as echo writes it */
	ASSERT_EQ(0, wq_set(WQ, "nice", "3\n"));
	EXPECT_EQ(3, wq_get_int(WQ, "nice"));
}

TEST_F(base, nice_bad_values)
{
	static const char * const bad[] = {
		"20", "-21", "100", "-2147483648x", "abc", "\n", " ", "x5",
		"--1", "nice", "+",
	};
	unsigned int i;

	ASSERT_EQ(0, wq_set_int(WQ, "nice", 4));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_write(_metadata, "nice", bad[i], EINVAL);
	bad_write(_metadata, "nice", longstr('x', 4096), EINVAL);
	bad_write(_metadata, "nice", longstr('y', 6000), EINVAL);
	empty_write(_metadata, "nice");
	EXPECT_EQ(4, wq_get_int(WQ, "nice"));
}

static unsigned long long parse_mask(const char *s)
{
	char hex[256];
	size_t j = 0;

	for (; *s && j < sizeof(hex) - 1; s++)
		if (*s != ',')
			hex[j++] = *s;
	hex[j] = '\0';
	return strtoull(hex, NULL, 16);
}

static int nr_cpu_ids(void)
{
	char buf[128], *dash;
	int last;

	/* "0-1" or "0" */
	if (wqrt_read(CPU_DIR "/possible", buf, sizeof(buf)) < 0)
		return 1;
	dash = strrchr(buf, '-');
	last = atoi(dash ? dash + 1 : buf);
	return last + 1;
}

TEST_F(base, cpumask_round_trip)
{
	int ncpu = nr_cpu_ids(), cpu;
	unsigned long long all = ncpu >= 64 ? ~0ULL : (1ULL << ncpu) - 1;
	char buf[256], val[64];
	struct wid w;

	for (cpu = 0; cpu < ncpu && cpu < 64; cpu++) {
		snprintf(val, sizeof(val), "%llx", 1ULL << cpu);
		ASSERT_EQ(0, wq_set(WQ, "cpumask", val));
		ASSERT_LT(0, wq_get(WQ, "cpumask", buf, sizeof(buf)));
		EXPECT_EQ(1ULL << cpu, parse_mask(buf)) {
			TH_LOG("wrote %s, read %s", val, buf);
		}
		/* work runs inside the mask (if that CPU is online) */
		snprintf(val, sizeof(val), CPU_DIR "/cpu%d/online", cpu);
		if (wqrt_read(val, buf, sizeof(buf)) >= 0 && buf[0] == '0')
			continue;
		ASSERT_EQ(0, wqrt_probe("unbound", &w));
		EXPECT_EQ(cpu, w.cpu) {
			TH_LOG("cpumask %llx but item ran on CPU %d",
			       1ULL << cpu, w.cpu);
		}
	}
	snprintf(val, sizeof(val), "%llx\n", all);
	ASSERT_EQ(0, wq_set(WQ, "cpumask", val));
	ASSERT_LT(0, wq_get(WQ, "cpumask", buf, sizeof(buf)));
	EXPECT_EQ(all, parse_mask(buf));
}

TEST_F(base, cpumask_bad_values)
{
	int ncpu = nr_cpu_ids();
	char beyond[64];

	/* bitmap_parse(): not hex -> EINVAL; bits past nr_cpu_ids -> EOVERFLOW */
	bad_write(_metadata, "cpumask", "xyz", EINVAL);
	bad_write(_metadata, "cpumask", "g", EINVAL);
	bad_write(_metadata, "cpumask", "0-1", EINVAL);
	bad_write(_metadata, "cpumask", "1 x", EINVAL);
	bad_write(_metadata, "cpumask", "0x1", EINVAL);
	bad_write(_metadata, "cpumask", longstr('x', 4096), EINVAL);
	if (ncpu < 64) {
		snprintf(beyond, sizeof(beyond), "%llx", 1ULL << ncpu);
		bad_write(_metadata, "cpumask", beyond, EOVERFLOW);
	}
	bad_write(_metadata, "cpumask", "1,00000000,00000000,00000000", EOVERFLOW);
	bad_write(_metadata, "cpumask", longstr('f', 4096), EOVERFLOW);
	empty_write(_metadata, "cpumask");
}

static void first_word(char *s)
{
	s[strcspn(s, " ")] = '\0';
}

TEST_F(base, affinity_scope_round_trip)
{
	static const char * const scopes[] = {
		"cpu", "smt", "cache", "numa", "system", "default",
	};
	char buf[128];
	unsigned int i;

	for (i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++) {
		ASSERT_EQ(0, wq_set(WQ, "affinity_scope", scopes[i]));
		ASSERT_LT(0, wq_get(WQ, "affinity_scope", buf, sizeof(buf)));
		first_word(buf);
		EXPECT_STREQ(scopes[i], buf);
	}
	/* parse_affn_scope() is case-insensitive */
	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "SYSTEM\n"));
	ASSERT_LT(0, wq_get(WQ, "affinity_scope", buf, sizeof(buf)));
	EXPECT_STREQ("system", buf);
}

TEST_F(base, affinity_scope_bad_values)
{
	static const char * const bad[] = {
		"\n", " cpu", "bogus", "xcpu", "42", "-1", "c", "smp", "node",
	};
	unsigned int i;

	ASSERT_EQ(0, wq_set(WQ, "affinity_scope", "smt"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_write(_metadata, "affinity_scope", bad[i], EINVAL);
	bad_write(_metadata, "affinity_scope", longstr('z', 4096), EINVAL);
	empty_write(_metadata, "affinity_scope");
}

TEST_F(base, affinity_strict_round_trip)
{
	ASSERT_EQ(0, wq_set(WQ, "affinity_strict", "1"));
	EXPECT_EQ(1, wq_get_int(WQ, "affinity_strict"));
	ASSERT_EQ(0, wq_set(WQ, "affinity_strict", "0\n"));
	EXPECT_EQ(0, wq_get_int(WQ, "affinity_strict"));
}

TEST_F(base, affinity_strict_bad_values)
{
	static const char * const bad[] = {
		"\n", "abc", "x1", " ", "true", "-",
	};
	unsigned int i;

	ASSERT_EQ(0, wq_set(WQ, "affinity_strict", "1"));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_write(_metadata, "affinity_strict", bad[i], EINVAL);
	bad_write(_metadata, "affinity_strict", longstr('x', 4096), EINVAL);
	empty_write(_metadata, "affinity_strict");
}

TEST_F(base, max_active_round_trip)
{
	/* WQ_MAX_ACTIVE is 512 in 6.12; larger values are clamped */
	static const int vals[] = { 1, 16, 256, 512 };
	unsigned int i;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		ASSERT_EQ(0, wq_set_int(WQ, "max_active", vals[i]));
		EXPECT_EQ(vals[i], wq_get_int(WQ, "max_active"));
	}
}

TEST_F(base, max_active_bad_values)
{
	static const char * const bad[] = {
		"0", "-1", "-2048", "abc", "\n", " ", "x4", "max",
	};
	unsigned int i;

	ASSERT_EQ(0, wq_set_int(WQ, "max_active", 8));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		bad_write(_metadata, "max_active", bad[i], EINVAL);
	bad_write(_metadata, "max_active", longstr('x', 4096), EINVAL);
	empty_write(_metadata, "max_active");
	EXPECT_EQ(8, wq_get_int(WQ, "max_active"));
}

/* per_cpu is read-only and says 0 for an unbound workqueue */
TEST_F(base, per_cpu_read_only)
{
	struct stat st;
	char p[PATH_MAX];

	EXPECT_EQ(0, wq_get_int(WQ, "per_cpu"));
	ASSERT_EQ(0, stat(wq_path(p, sizeof(p), WQ, "per_cpu"), &st));
	EXPECT_EQ(0U, st.st_mode & 0222U);
	EXPECT_NE(0, wq_set(WQ, "per_cpu", "1"));
	EXPECT_EQ(0, wq_get_int(WQ, "per_cpu"));
}

WQRT_HARNESS_MAIN("wqrt_test", DBG_DIR "/info")
