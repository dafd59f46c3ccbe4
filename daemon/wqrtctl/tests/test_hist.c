// SPDX-License-Identifier: GPL-2.0-only
/*
 * hist.c (issue 31): the kernel's hist file read back, the tiers merged
 * into one distribution, its percentiles, the share over a deadline and
 * the log-scale view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

/* As 6.12's hist_trigger_print_key() prints them */
static const char lat_hist[] =
	"# event histogram\n"
	"#\n"
	"# trigger info: hist:wqrtctl_7_lat1:keys=wq,function.sym,lat.buckets=10:vals=hitcount:sort=hitcount:size=2048 if lat >= 1000 && lat < 10000 [active]\n"
	"#\n"
	"\n"
	"{ wq: ttyS-serial_8250                                  , function: [ffffffff8149f6a0] flush_to_ldisc                                , lat: ~ 1230-1239 } hitcount:          3\n"
	"{ wq: events                                            , function: [ffffffffc0012340] vkms_vblank_simulate [vkms]                    , lat: ~ 9990-9999 } hitcount:          1\n"
	"\n"
	"Totals:\n"
	"    Hits: 4\n"
	"    Entries: 2\n"
	"    Dropped: 5\n";

static const char *const lat_keys[] = { "wq", "function", "lat" };

struct seen {
	struct hist_entry e[8];
	int n;
};

static void collect(const struct hist_entry *e, void *arg)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->e[s->n++] = *e;
}

static void test_parse_keys(void **state)
{
	struct seen s = { 0 };
	uint64_t dropped;
	char why[256];

	(void)state;
	assert_int_equal(hist_parse(lat_hist, lat_keys, 3, NULL, 0, collect,
				    &s, &dropped, why, sizeof(why)),
			 2);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.e[0].key[0], "ttyS-serial_8250");
	assert_string_equal(s.e[0].key[1], "flush_to_ldisc");
	assert_int_equal(s.e[0].num[1], 0xffffffff8149f6a0ULL);
	assert_int_equal(s.e[0].num[2], 1230);
	assert_int_equal(s.e[0].width[2], 10);
	assert_int_equal(s.e[0].hitcount, 3);
	/* a module's symbol is named without its module */
	assert_string_equal(s.e[1].key[1], "vkms_vblank_simulate");
	assert_int_equal(s.e[1].num[2], 9990);
	assert_int_equal(dropped, 5);
}

static void test_parse_vals_execname_numbers(void **state)
{
	static const char text[] =
		"{ function: [ffffffff8149f6a0] flush_to_ldisc                                , common_pid:        123, common_cpu:          1 } hitcount:         42\n"
		"{ wq: kblockd                                           , function: [ffffffff81000010] blk_mq_run_work_fn                            } hitcount:          7  lat:       1400\n"
		"{ common_pid: kworker/u9:1    [       321] } hitcount:          2\n";
	static const char *const xkeys[] = { "function", "common_pid",
					     "common_cpu" };
	static const char *const tkeys[] = { "wq", "function" };
	static const char *const ekeys[] = { "common_pid" };
	static const char *const vals[] = { "lat" };
	struct seen s = { 0 };
	char why[256];

	(void)state;
	/* each trigger's keys find only its own lines: others do not parse */
	assert_int_equal(hist_parse(text, xkeys, 3, NULL, 0, collect, &s, NULL,
				    why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "kblockd"));
	s.n = 0;
	assert_int_equal(hist_parse(strchr(text, '\n') + 1, tkeys, 2, vals, 1,
				    collect, &s, NULL, why, sizeof(why)),
			 -EINVAL);
	s.n = 0;
	assert_int_equal(hist_parse(text, xkeys, 1, NULL, 0, collect, &s, NULL,
				    why, sizeof(why)),
			 -EINVAL);
	/* one trigger's section at a time, as trace_hist_named() gives */
	s.n = 0;
	{
		char one[512];

		snprintf(one, sizeof(one), "%.*s",
			 (int)(strchr(text, '\n') - text + 1), text);
		assert_int_equal(hist_parse(one, xkeys, 3, NULL, 0, collect,
					    &s, NULL, why, sizeof(why)),
				 1);
		assert_int_equal(s.e[0].num[1], 123);
		assert_int_equal(s.e[0].num[2], 1);
		assert_int_equal(s.e[0].hitcount, 42);
	}
	s.n = 0;
	{
		const char *l2 = strchr(text, '\n') + 1;
		char one[512];

		snprintf(one, sizeof(one), "%.*s",
			 (int)(strchr(l2, '\n') - l2 + 1), l2);
		assert_int_equal(hist_parse(one, tkeys, 2, vals, 1, collect, &s,
					    NULL, why, sizeof(why)),
				 1);
		assert_string_equal(s.e[0].key[0], "kblockd");
		assert_int_equal(s.e[0].hitcount, 7);
		assert_int_equal(s.e[0].val[0], 1400);
	}
	s.n = 0;
	{
		const char *l3 = strrchr(text, '{');

		assert_int_equal(hist_parse(l3, ekeys, 1, NULL, 0, collect, &s,
					    NULL, why, sizeof(why)),
				 1);
		assert_string_equal(s.e[0].key[0], "kworker/u9:1");
		assert_int_equal(s.e[0].num[0], 321);
	}
}

static void test_quantiles_exact_and_bucketed(void **state)
{
	struct lat_dist d = { 0 };
	uint64_t i;

	(void)state;
	/* 1..1000 us, once each: p50 500, p99 990, p99.9 999 */
	for (i = 1000; i >= 1; i--)
		lat_add(&d, i, 1, 1);
	assert_int_equal(d.count, 1000);
	assert_int_equal(lat_quantile(&d, 0.5), 500);
	assert_int_equal(lat_quantile(&d, 0.99), 990);
	assert_int_equal(lat_quantile(&d, 0.999), 999);
	assert_int_equal(lat_max(&d), 1000);
	assert_int_equal(lat_over(&d, 900), 100);
	/* ten late ones in a 100 us bucket: the max is its low end */
	lat_add(&d, 12300, 100, 10);
	assert_int_equal(d.count, 1010);
	assert_int_equal(lat_max(&d), 12300);
	assert_int_equal(lat_quantile(&d, 1.0), 12300);
	assert_int_equal(lat_quantile(&d, 0.995), 12300);
	assert_int_equal(lat_over(&d, 10000), 10);
	/* the same bucket again merges */
	lat_add(&d, 12300, 100, 1);
	assert_int_equal(d.nb, 1001);
	lat_free(&d);
	assert_int_equal(lat_quantile(&d, 0.5), 0);
	assert_int_equal(lat_max(&d), 0);
}

static void test_log2_view(void **state)
{
	struct lat_dist d = { 0 }, e = { 0 };
	uint64_t n[40];
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	lat_add(&d, 0, 1, 2); /* 0-1 */
	lat_add(&d, 3, 1, 4); /* 2-3 */
	lat_add(&d, 1000, 10, 8); /* 512-1023 */
	lat_merge(&e, &d);
	assert_int_equal(lat_log2(&e, n, 40), 10);
	assert_int_equal(n[0], 2);
	assert_int_equal(n[1], 4);
	assert_int_equal(n[9], 8);
	f = open_memstream(&out, &len);
	lat_print_log2(f, &e, "  ", 8);
	fclose(f);
	/* the largest range gets the full bar, the others in proportion */
	assert_non_null(strstr(out, "512-1023 us          8 |########\n"));
	assert_non_null(strstr(out, "2-3 us          4 |####\n"));
	assert_non_null(strstr(out, "0-1 us          2 |##\n"));
	free(out);
	lat_free(&d);
	lat_free(&e);
}

static void test_tiers_cover_everything_within_one_percent(void **state)
{
	int i;

	(void)state;
	assert_int_equal(hist_tier_lo[0], 0);
	for (i = 0; i < HIST_NTIERS; i++) {
		/* a bucket is at most 1 % of the values it holds */
		if (i)
			assert_true(hist_tier_width[i] * 100 <= hist_tier_lo[i]);
		assert_true(hist_tier_lo[i] < hist_tier_lo[i + 1]);
	}
	assert_int_equal(hist_tier_lo[HIST_NTIERS], UINT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_keys),
		cmocka_unit_test(test_parse_vals_execname_numbers),
		cmocka_unit_test(test_quantiles_exact_and_bucketed),
		cmocka_unit_test(test_log2_view),
		cmocka_unit_test(test_tiers_cover_everything_within_one_percent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
