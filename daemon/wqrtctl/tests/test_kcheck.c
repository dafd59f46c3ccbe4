// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl check-kernel (issue 17.1): the configuration from config.gz or
 * /boot, what sysfs shows of the series, and the verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "faketree.h"
#include "common.h"
#include "kcheck.h"

static struct faketree ft;

static const char good_config[] = "CONFIG_SYSFS=y\n"
				  "CONFIG_PREEMPT_RT=y\n"
				  "CONFIG_CONNECTOR=y\n"
				  "CONFIG_PROC_EVENTS=y\n"
				  "CONFIG_EVENT_TRACING=y\n"
				  "CONFIG_HIST_TRIGGERS=y\n"
				  "CONFIG_SYNTH_EVENTS=y\n";

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_write(&ft, "/proc/sys/kernel/osrelease", "6.12.48-wqrt\n");
	ft_write(&ft, "/proc/sys/kernel/version", "#1 SMP PREEMPT_RT\n");
	ft_write(&ft, "/proc/cmdline",
		 "console=ttyS0 workqueue.sysfs=netns,vkms_composer quiet\n");
	ft_wq(&ft, "ttyS-serial_8250", true);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_cleanup(&ft);
	return 0;
}

static const struct kc_item *item(const struct kcheck *kc, const char *name)
{
	int i;

	for (i = 0; i < kc->n; i++)
		if (!strcmp(kc->items[i].name, name))
			return &kc->items[i];
	fail_msg("no check %s", name);
	return NULL;
}

#ifdef HAVE_ZLIB
static void write_gz(const char *text)
{
	char path[600];
	gzFile gz;

	ft_write(&ft, "/proc/config.gz", "");
	snprintf(path, sizeof(path), "%s/proc/config.gz", ft.root);
	gz = gzopen(path, "wb");
	assert_non_null(gz);
	assert_int_equal(gzputs(gz, text), (int)strlen(text));
	gzclose(gz);
}
#endif

static void rm(const char *rel)
{
	char path[600];

	snprintf(path, sizeof(path), "%s%s", ft.root, rel);
	unlink(path);
}

static void test_config_gz_all_there(void **state)
{
#ifdef HAVE_ZLIB
	struct kcheck kc;

	(void)state;
	write_gz(good_config);
	kcheck_run(ft.root, &kc);
	assert_non_null(strstr(kc.config, "/proc/config.gz"));
	assert_string_equal(kc.release, "6.12.48-wqrt");
	assert_int_equal(item(&kc, "CONFIG_PREEMPT_RT")->state, KC_OK);
	assert_string_equal(item(&kc, "CONFIG_PREEMPT_RT")->found, "=y");
	assert_int_equal(item(&kc, "CONFIG_SYNTH_EVENTS")->state, KC_OK);
	assert_int_equal(kc.missing_recommended, 0);
	assert_int_equal(item(&kc, "policy")->state, KC_OK);
	assert_int_equal(item(&kc, "pool_ids")->state, KC_OK);
	assert_int_equal(kc.missing_required, 0);
	assert_string_equal(kc.cmdline_sysfs, "netns,vkms_composer");
	assert_int_equal(kcheck_exit_status(&kc), 0);
	rm("/proc/config.gz");
#else
	(void)state;
	skip();
#endif
}

/*
 * No config.gz: /boot/config-RELEASE; what it lacks is said. PREEMPT_RT
 * is recommended: wqrtd works without it (issue 33)
 */
static void test_boot_config_missing_rt(void **state)
{
	struct kcheck kc;
	size_t len;
	char *out;
	FILE *f;

	(void)state;
	ft_write(
		&ft, "/boot/config-6.12.48-wqrt",
		"CONFIG_SYSFS=y\n# CONFIG_PREEMPT_RT is not set\nCONFIG_CONNECTOR=y\n");
	kcheck_run(ft.root, &kc);
	assert_non_null(strstr(kc.config, "/boot/config-6.12.48-wqrt"));
	assert_int_equal(item(&kc, "CONFIG_PREEMPT_RT")->state, KC_MISSING);
	assert_string_equal(item(&kc, "CONFIG_PREEMPT_RT")->found,
			    "is not set");
	/* not named at all: not set */
	assert_int_equal(item(&kc, "CONFIG_PROC_EVENTS")->state, KC_MISSING);
	/* what latency, who and try need (issue 47.8) */
	assert_int_equal(item(&kc, "CONFIG_EVENT_TRACING")->state, KC_MISSING);
	assert_int_equal(item(&kc, "CONFIG_HIST_TRIGGERS")->state, KC_MISSING);
	assert_int_equal(item(&kc, "CONFIG_SYNTH_EVENTS")->state, KC_MISSING);
	assert_int_equal(kc.missing_required, 0);
	assert_int_equal(kc.missing_recommended, 5);
	assert_int_equal(kc.mode, KC_MODE_SYSFS);
	assert_int_equal(kcheck_exit_status(&kc), 0);
	f = open_memstream(&out, &len);
	kcheck_print(f, &kc, false);
	fclose(f);
	assert_non_null(
		strstr(out, "\nMISSING  CONFIG_PREEMPT_RT    recommended  "));
	assert_non_null(strstr(out, "\nwithout PREEMPT_RT, "));
	assert_non_null(strstr(out, "usable; 5 recommended item(s) missing"));
	assert_non_null(strstr(out, "\nMISSING  CONFIG_HIST_TRIGGERS "));
	free(out);
	rm("/boot/config-6.12.48-wqrt");
}

/*
 * A kernel without the series: its attributes are missing, and wqrtd
 * works there in fallback mode (issue 33: not 69)
 */
static void test_no_series(void **state)
{
	struct kcheck kc;
	size_t len;
	char *out;
	FILE *f;

	(void)state;
	ft_write(&ft, "/boot/config-6.12.48-wqrt", good_config);
	ft_wq(&ft, "plain_wq", false);
	rm(WQ_SYSFS_DIR "/ttyS-serial_8250/policy");
	rm(WQ_SYSFS_DIR "/ttyS-serial_8250/rtprio");
	rm(WQ_SYSFS_DIR "/ttyS-serial_8250/nr_idle_extra");
	rm(WQ_SYSFS_DIR "/ttyS-serial_8250/private");
	rm(WQ_SYSFS_DIR "/ttyS-serial_8250/pool_ids");
	kcheck_run(ft.root, &kc);
	assert_int_equal(item(&kc, "policy")->state, KC_MISSING);
	assert_string_equal(item(&kc, "policy")->found,
			    "on 0 of 2 unbound/ordered workqueue(s)");
	assert_false(item(&kc, "policy")->required);
	assert_int_equal(kc.missing_required, 0);
	assert_int_equal(kc.missing_series, 5);
	assert_int_equal(kc.mode, KC_MODE_FALLBACK);
	assert_int_equal(kcheck_exit_status(&kc), 0);
	f = open_memstream(&out, &len);
	kcheck_print(f, &kc, false);
	fclose(f);
	assert_non_null(
		strstr(out, "\nMISSING  policy               series       "));
	assert_non_null(
		strstr(out, "\nwqrtd works on this kernel in fallback mode"));
	free(out);
	f = open_memstream(&out, &len);
	kcheck_print(f, &kc, true);
	fclose(f);
	assert_non_null(strstr(out, "\"mode\": \"fallback\""));
	free(out);
	ft_wq(&ft, "ttyS-serial_8250", true);
	rm("/boot/config-6.12.48-wqrt");
}

/* Part of the series (a prefix, make kernel-each): the rest is required */
static void test_part_of_series(void **state)
{
	struct kcheck kc;
	size_t len;
	char *out;
	FILE *f;

	(void)state;
	ft_write(&ft, "/boot/config-6.12.48-wqrt", good_config);
	rm(WQ_SYSFS_DIR "/ttyS-serial_8250/nr_idle_extra");
	kcheck_run(ft.root, &kc);
	assert_int_equal(kc.mode, KC_MODE_SYSFS);
	assert_true(item(&kc, "nr_idle_extra")->required);
	assert_int_equal(kc.missing_required, 1);
	assert_int_equal(kcheck_exit_status(&kc), EX_UNAVAILABLE);
	f = open_memstream(&out, &len);
	kcheck_print(f, &kc, false);
	fclose(f);
	assert_non_null(strstr(
		out,
		"\nthis kernel has part of the wqrt series only: 1 attribute(s) missing"));
	free(out);
	ft_wq(&ft, "ttyS-serial_8250", true);
	rm("/boot/config-6.12.48-wqrt");
}

/* No configuration anywhere: what the running system shows, and 66 */
static void test_no_config(void **state)
{
	struct kcheck kc;
	size_t len;
	char *out;
	FILE *f;

	(void)state;
	kcheck_run(ft.root, &kc);
	assert_string_equal(kc.config, "");
	assert_int_equal(item(&kc, "CONFIG_PREEMPT_RT")->state, KC_OK);
	assert_int_equal(item(&kc, "CONFIG_CONNECTOR")->state, KC_UNKNOWN);
	assert_int_equal(kcheck_exit_status(&kc), EX_NOINPUT);
	f = open_memstream(&out, &len);
	kcheck_print(f, &kc, true);
	fclose(f);
	assert_non_null(strstr(
		out,
		"{\"schema\": 1, \"release\": \"6.12.48-wqrt\", \"config\": null, "));
	assert_non_null(strstr(
		out,
		"{\"name\": \"CONFIG_CONNECTOR\", \"required\": false, \"state\": \"unknown\""));
	free(out);
}

/* A config.gz that is not gzip data: said, and /boot is read instead */
static void test_bad_config_gz(void **state)
{
#ifdef HAVE_ZLIB
	struct kcheck kc;
	char bad[64] = { 0x1f, (char)0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 'x', 'y' };
	char path[600];
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/config.gz", ft.root);
	f = fopen(path, "w");
	fwrite(bad, 1, sizeof(bad), f);
	fclose(f);
	ft_write(&ft, "/boot/config-6.12.48-wqrt", good_config);
	kcheck_run(ft.root, &kc);
	assert_non_null(
		strstr(kc.config_error, "/proc/config.gz: cannot be read: "));
	assert_non_null(strstr(kc.config, "/boot/config-6.12.48-wqrt"));
	assert_int_equal(kcheck_exit_status(&kc), 0);
	rm("/proc/config.gz");
	rm("/boot/config-6.12.48-wqrt");
#else
	(void)state;
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_gz_all_there),
		cmocka_unit_test(test_boot_config_missing_rt),
		cmocka_unit_test(test_no_series),
		cmocka_unit_test(test_part_of_series),
		cmocka_unit_test(test_no_config),
		cmocka_unit_test(test_bad_config_gz),
	};

	return cmocka_run_group_tests_name("kcheck", tests, setup, teardown);
}
