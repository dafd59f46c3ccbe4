// SPDX-License-Identifier: GPL-2.0-only
/* Value codecs: cpulists, the kernel's hex cpumask, policies, scopes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "attr.h"

static void test_cpulist_roundtrip(void **state)
{
	const char *why = NULL;
	struct cpubits b;
	char buf[128];

	(void)state;
	assert_int_equal(cpulist_parse("0-3,8,10-11", &b, &why), 0);
	cpulist_format(&b, buf, sizeof(buf));
	assert_string_equal(buf, "0-3,8,10-11");
	cpumask_hex_format(&b, buf, sizeof(buf));
	assert_string_equal(buf, "00000d0f");
	assert_int_equal(cpulist_parse("", &b, &why), -EINVAL);
	assert_string_equal(why, "empty cpulist");
	assert_int_equal(cpulist_parse("1,", &b, &why), -EINVAL);
}

static void test_hex_mask_wide(void **state)
{
	struct cpubits b, c;
	const char *why;
	char buf[400];

	(void)state;
	/* the kernel groups 32 bits per comma: cpu 32 and 64 */
	assert_int_equal(cpumask_hex_parse("00000001,00000001,00000003", &b),
			 0);
	cpulist_format(&b, buf, sizeof(buf));
	assert_string_equal(buf, "0-1,32,64");
	cpumask_hex_format(&b, buf, sizeof(buf));
	assert_string_equal(buf, "00000001,00000001,00000003");
	assert_int_equal(cpulist_parse("0-1,32,64", &c, &why), 0);
	assert_true(cpubits_equal(&b, &c));
	assert_int_equal(cpumask_hex_parse("xyz", &b), -EINVAL);
}

static void test_sysfs_values(void **state)
{
	struct settings s = { 0 };
	char buf[64];

	(void)state;
	/* 6.12 shows the default scope as "default (cache)" */
	assert_int_equal(
		attr_parse_sysfs(WA_AFFINITY_SCOPE, "default (cache)", &s), 0);
	attr_format_sysfs(WA_AFFINITY_SCOPE, &s, buf, sizeof(buf));
	assert_string_equal(buf, "default");
	assert_int_equal(attr_parse_sysfs(WA_POLICY, "FIFO", &s), 0);
	assert_int_equal(s.val[WA_POLICY], POLICY_FIFO);
	attr_format_sysfs(WA_POLICY, &s, buf, sizeof(buf));
	assert_string_equal(buf, "fifo");
	assert_int_equal(attr_parse_sysfs(WA_CPUMASK, "0000000f", &s), 0);
	attr_format_human(WA_CPUMASK, &s, buf, sizeof(buf));
	assert_string_equal(buf, "0-3");
	assert_int_equal(attr_parse_sysfs(WA_RTPRIO, "50", &s), 0);
	assert_int_equal(s.val[WA_RTPRIO], 50);
	assert_int_equal(attr_parse_sysfs(WA_POLICY, "deadline", &s), -EINVAL);
}

/* cpumask = irq:NAME[,NAME]: the names kept, checked, shown (issue 43.4) */
static void test_irq_following_cpumask(void **state)
{
	struct settings s = { 0 };
	const char *why = NULL;
	char buf[128];

	(void)state;
	assert_int_equal(attr_parse_conf(WA_CPUMASK, "irq:ttyS0", &s, &why),
			 0);
	assert_true(s.set & WA_BIT(WA_CPUMASK));
	assert_string_equal(s.irq, "ttyS0");
	assert_true(cpubits_empty(&s.mask));
	attr_format_human(WA_CPUMASK, &s, buf, sizeof(buf));
	assert_string_equal(buf, "irq:ttyS0");
	/* resolved: the CPUs, and what they follow */
	cpubits_set(&s.mask, 1);
	attr_format_human(WA_CPUMASK, &s, buf, sizeof(buf));
	assert_string_equal(buf, "1 (irq:ttyS0)");
	assert_int_equal(attr_parse_conf(WA_CPUMASK, "irq:ttyS0,uart-pl011",
					 &s, &why),
			 0);
	assert_string_equal(s.irq, "ttyS0,uart-pl011");
	/* a plain cpulist after it follows nothing */
	assert_int_equal(attr_parse_conf(WA_CPUMASK, "0-1", &s, &why), 0);
	assert_string_equal(s.irq, "");
	/* bad names: said, nothing taken */
	static const char *const bad[] = { "irq:", "irq:tty S0", "irq:a,,b",
					   "irq:a,", "irq:,a", "irq:a/b" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct settings t = { 0 };

		why = NULL;
		assert_int_equal(attr_parse_conf(WA_CPUMASK, bad[i], &t, &why),
				 -EINVAL);
		assert_non_null(why);
		assert_non_null(strstr(why, "/proc/interrupts"));
		assert_false(t.set & WA_BIT(WA_CPUMASK));
	}
	/* too long */
	memset(buf, 'a', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	memcpy(buf, "irq:", 4);
	assert_int_equal(attr_parse_conf(WA_CPUMASK, buf, &s, &why), -EINVAL);
	/* sysfs never follows an interrupt */
	assert_int_equal(attr_parse_sysfs(WA_CPUMASK, "irq:ttyS0", &s),
			 -EINVAL);
}

static void test_edit_distance(void **state)
{
	(void)state;
	assert_int_equal(edit_distance("rtpri", "rtprio"), 1);
	assert_int_equal(edit_distance("kwroker", "kworker"), 2);
	assert_int_equal(edit_distance("same", "same"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist_roundtrip),
		cmocka_unit_test(test_hex_mask_wide),
		cmocka_unit_test(test_sysfs_values),
		cmocka_unit_test(test_irq_following_cpumask),
		cmocka_unit_test(test_edit_distance),
	};

	return cmocka_run_group_tests_name("attr", tests, NULL, NULL);
}
