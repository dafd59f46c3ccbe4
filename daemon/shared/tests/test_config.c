// SPDX-License-Identifier: GPL-2.0-only
/* The configuration: every key, every error (exact text and line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <string.h>

#include "config.h"
#include "config_load.h"
#include "faketree.h"
#include "log.h"

static struct faketree ft;
static struct strlist errs;
static char path[300];

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	strlist_free(&errs);
	ft_cleanup(&ft);
	return 0;
}

static bool strlist_has(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

static bool strlist_has_prefix(const struct strlist *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strncmp(l->v[i], s, strlen(s)))
			return true;
	return false;
}

static struct config *load(const char *text)
{
	struct config *c = NULL;

	strlist_free(&errs);
	snprintf(path, sizeof(path), "%s", ft_conf(&ft, text));
	config_load(path, ft.root, &c, &errs);
	return c;
}

/* The file gives exactly one error, and it reads "PATH:" + want. */
static void expect_error(const char *text, const char *want)
{
	char full[700];
	size_t i;

	assert_null(load(text));
	snprintf(full, sizeof(full), "%s:%s", path, want);
	for (i = 0; i < errs.n && (errs.n != 1 || strcmp(errs.v[0], full)); i++)
		fprintf(stderr, "  got: %s\n", errs.v[i]);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.v[0], full);
}

static void test_defaults(void **state)
{
	struct config *c = load("[wq:a]\nnice = -5\n");

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->log_level, LOG_INFO);
	assert_true(c->restore_on_exit);
	assert_int_equal(c->rescan_interval, 30);
	assert_false(c->allow_high_priority);
	assert_int_equal(c->nrules, 1);
	config_free(c);
}

static void test_global_keys(void **state)
{
	struct config *c = load("[global]\nlog_level = debug\n"
				"restore_on_exit = no\nrescan_interval = 0\n"
				"allow_high_priority = yes\n");

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->log_level, LOG_DEBUG);
	assert_false(c->restore_on_exit);
	assert_int_equal(c->rescan_interval, 0);
	assert_true(c->allow_high_priority);
	config_free(c);
}

static void test_every_attribute_key(void **state)
{
	struct config *c = load("[wq:all]\n"
				"policy = RR\nrtprio = 99\nnice = -20\n"
				"cpumask = 0-2,5\naffinity_scope = numa\n"
				"affinity_strict = yes\nmax_active = 512\n"
				"nr_idle_extra = 64\nprivate = on\n");
	const struct settings *s;
	char buf[64];

	(void)state;
	assert_non_null(c);
	s = &c->rules[0].s;
	assert_int_equal(s->set, (1u << WA_NR) - 1);
	assert_int_equal(s->val[WA_POLICY], POLICY_RR);
	assert_int_equal(s->val[WA_RTPRIO], 99);
	assert_int_equal(s->val[WA_NICE], -20);
	cpulist_format(&s->mask, buf, sizeof(buf));
	assert_string_equal(buf, "0-2,5");
	attr_format_sysfs(WA_AFFINITY_SCOPE, s, buf, sizeof(buf));
	assert_string_equal(buf, "numa");
	assert_int_equal(s->val[WA_AFFINITY_STRICT], 1);
	assert_int_equal(s->val[WA_MAX_ACTIVE], 512);
	assert_int_equal(s->val[WA_NR_IDLE_EXTRA], 64);
	assert_int_equal(s->val[WA_PRIVATE], 1);
	config_free(c);
}

static void test_profile_inheritance(void **state)
{
	struct config *c = load("[profile:rt]\npolicy = fifo\nrtprio = 50\n"
				"nr_idle_extra = 2\n\n"
				"[wq:tty_flip]\nprofile = rt\nrtprio = 20\n"
				"[wq:other]\nprofile = rt\n");
	const struct rule *r;

	(void)state;
	assert_non_null(c);
	r = config_match_wq(c, "tty_flip");
	assert_non_null(r);
	assert_string_equal(r->profile, "rt");
	assert_int_equal(r->s.val[WA_POLICY], POLICY_FIFO);
	assert_int_equal(r->s.val[WA_RTPRIO], 20); /* override */
	assert_int_equal(r->s.val[WA_NR_IDLE_EXTRA], 2); /* inherited */
	r = config_match_wq(c, "other");
	assert_int_equal(r->s.val[WA_RTPRIO], 50);
	assert_int_equal(c->nprofiles, 1);
	config_free(c);
}

static void test_profile_defined_after_use(void **state)
{
	struct config *c = load("[wq:x]\nprofile = late\n"
				"[profile:late]\nnice = 3\n");

	(void)state;
	assert_non_null(c);
	assert_int_equal(c->rules[0].s.val[WA_NICE], 3);
	config_free(c);
}

static void test_globs_and_precedence(void **state)
{
	struct config *c = load("[wq:nvme*]\nnice = 1\n"
				"[wq:*]\nnice = 2\n"
				"[wq:nvme-wq]\nnice = 3\n");

	(void)state;
	assert_non_null(c);
	/* an exact name wins over globs, then the first glob in the file */
	assert_int_equal(config_match_wq(c, "nvme-wq")->s.val[WA_NICE], 3);
	assert_int_equal(config_match_wq(c, "nvme-reset")->s.val[WA_NICE], 1);
	assert_int_equal(config_match_wq(c, "events")->s.val[WA_NICE], 2);
	assert_true(c->rules[0].glob);
	assert_false(c->rules[2].glob);
	config_free(c);
}

static void test_case_folding(void **state)
{
	/* iniparser folds section and key names; values keep their case */
	struct config *c = load("[WQ:TTY_Flip]\nPolicy = FIFO\nRTPRIO = 5\n"
				"[kworker:kworker/R-Foo*]\npolicy = rr\n"
				"rtprio = 2\n");

	(void)state;
	assert_non_null(c);
	assert_string_equal(c->rules[0].section, "wq:tty_flip");
	assert_non_null(config_match_wq(c, "tty_flip"));
	assert_non_null(config_match_wq(c, "TTY_FLIP"));
	/* kworker globs match without regard to case, so R and H work */
	assert_non_null(config_match_kworker(c, "kworker/R-FooBar"));
	assert_int_equal(c->rules[0].s.val[WA_POLICY], POLICY_FIFO);
	config_free(c);
}

static void test_kworker_section(void **state)
{
	struct config *c = load("[kworker:kworker/u*]\npolicy = fifo\n"
				"rtprio = 5\n");

	(void)state;
	assert_non_null(c);
	assert_non_null(config_match_kworker(c, "kworker/u5:2"));
	assert_null(config_match_kworker(c, "kworker/3:1H"));
	assert_null(config_match_wq(c, "kworker/u5:2"));
	config_free(c);
}

static void test_error_unknown_key_hint(void **state)
{
	(void)state;
	expect_error(
		"[wq:a]\npolicy = fifo\nrtpri = 5\n",
		"3: [wq:a] rtpri = 5: unknown key (did you mean `rtprio`?)");
	expect_error(
		"[global]\nlog_levle = info\n",
		"2: [global] log_levle = info: unknown key (did you mean `log_level`?)");
	expect_error("[wq:a]\nbanana = 1\n",
		     "2: [wq:a] banana = 1: unknown key");
}

static void test_error_unknown_section_hint(void **state)
{
	(void)state;
	expect_error(
		"[wq:a]\nnice = 1\n\n[kwroker:x]\npolicy = fifo\n",
		"4: [kwroker:x]: unknown section (expected global, profile:, wq: or kworker:) (did you mean `kworker`?)");
	expect_error(
		"[globl]\n",
		"1: [globl]: unknown section (expected global, profile:, wq: or kworker:) (did you mean `global`?)");
	expect_error("[wq]\nnice = 1\n", "1: [wq]: needs a name: [wq:NAME]");
	expect_error("[wq:]\nnice = 1\n", "1: [wq:]: empty name after `wq:`");
}

static void test_error_values(void **state)
{
	(void)state;
	expect_error("[wq:a]\npolicy = batch\n",
		     "2: [wq:a] policy = batch: expected normal, fifo or rr");
	expect_error("[wq:a]\npolicy = fifo\nrtprio = 100\n",
		     "3: [wq:a] rtprio = 100: expected 0..99");
	expect_error("[wq:a]\nnice = -21\n",
		     "2: [wq:a] nice = -21: expected -20..19");
	expect_error("[wq:a]\nnice = abc\n",
		     "2: [wq:a] nice = abc: not a number");
	expect_error("[wq:a]\ncpumask = 3-1\n",
		     "2: [wq:a] cpumask = 3-1: range goes backwards");
	expect_error("[wq:a]\ncpumask = 0-1,x\n",
		     "2: [wq:a] cpumask = 0-1,x: expected a CPU number");
	expect_error(
		"[wq:a]\ncpumask = 5000\n",
		"2: [wq:a] cpumask = 5000: CPU number out of range (0..4095)");
	expect_error(
		"[wq:a]\naffinity_scope = rack\n",
		"2: [wq:a] affinity_scope = rack: expected default, cpu, smt, cache, numa or system");
	expect_error("[wq:a]\naffinity_strict = maybe\n",
		     "2: [wq:a] affinity_strict = maybe: expected yes or no");
	expect_error("[wq:a]\nmax_active = 0\n",
		     "2: [wq:a] max_active = 0: expected 1..512");
	expect_error("[wq:a]\nnr_idle_extra = 65\n",
		     "2: [wq:a] nr_idle_extra = 65: expected 0..64");
	expect_error("[wq:a]\nprivate = 2\n",
		     "2: [wq:a] private = 2: expected yes or no");
	expect_error("[wq:a]\nnice =\n", "2: [wq:a] nice = : empty value");
	expect_error(
		"[global]\nlog_level = loud\n",
		"2: [global] log_level = loud: expected err, warning, notice, info or debug");
	expect_error(
		"[global]\nrescan_interval = -1\n",
		"2: [global] rescan_interval = -1: expected seconds, 0..86400 (0: off)");
	expect_error(
		"[global]\nrestore_on_exit = sometimes\n",
		"2: [global] restore_on_exit = sometimes: expected yes or no");
}

static void test_error_policy_rtprio(void **state)
{
	(void)state;
	expect_error("[wq:a]\nrtprio = 10\n",
		     "2: [wq:a] rtprio = 10: needs policy = fifo or rr");
	expect_error("[wq:a]\npolicy = normal\nrtprio = 10\n",
		     "3: [wq:a] rtprio = 10: needs policy = fifo or rr");
	expect_error(
		"[wq:a]\npolicy = fifo\n",
		"2: [wq:a] policy = fifo: policy fifo needs rtprio = 1..99");
	expect_error(
		"[wq:a]\npolicy = rr\nrtprio = 0\n",
		"3: [wq:a] rtprio = 0: policy rr needs rtprio = 1..99 (0 is for normal)");
	/* the error points at the profile line when the value came from it */
	expect_error("[profile:p]\nrtprio = 10\n[wq:a]\nprofile = p\n",
		     "4: [wq:a] profile = p: needs policy = fifo or rr");
}

static void test_error_profiles(void **state)
{
	(void)state;
	expect_error(
		"[profile:rt-critical]\nnice = 1\n[wq:a]\nprofile = rt-critcal\n",
		"4: [wq:a] profile = rt-critcal: no [profile:rt-critcal] section (did you mean `rt-critical`?)");
	expect_error(
		"[profile:a]\nprofile = b\n",
		"2: [profile:a] profile = b: a profile cannot include another profile");
}

static void test_error_kworker_keys(void **state)
{
	(void)state;
	expect_error(
		"[kworker:kworker/u*]\ncpumask = 0\n",
		"2: [kworker:kworker/u*] cpumask = 0: not valid for kworkers: a [kworker:] section takes policy, rtprio and nice");
	expect_error(
		"[profile:p]\npolicy = fifo\nrtprio = 3\nprivate = yes\n"
		"[kworker:kworker/u*]\nprofile = p\n",
		"6: [kworker:kworker/u*] profile = p: profile `p` sets attributes a kworker cannot take (only policy, rtprio and nice)");
}

static void test_error_placement(void **state)
{
	(void)state;
	expect_error("nice = 1\n[wq:a]\nnice = 2\n",
		     "1: nice = 1: key outside of any section");
	expect_error(
		"[global]\nrtprio = 5\n",
		"2: [global] rtprio = 5: not a [global] key: put it in a [profile:], [wq:] or [kworker:] section");
	expect_error("[wq:a]\nrestore_on_exit = yes\n",
		     "2: [wq:a] restore_on_exit = yes: only valid in [global]");
}

static void test_error_syntax(void **state)
{
	(void)state;
	expect_error(
		"[wq:a]\nnice = 1\njunk\n",
		"3: junk: syntax error: expected `key = value` or `[section]`");
	expect_error(
		"[wq:a]   ; comment\nnice = 1\n",
		"1: [wq:a]   ; comment: syntax error: nothing may follow `]` on a section line, not even a comment");
}

static void test_error_missing_file(void **state)
{
	struct config *c = NULL;

	(void)state;
	strlist_free(&errs);
	assert_int_equal(config_load("/nonexistent/wqrt.conf", "/", &c, &errs),
			 1);
	assert_null(c);
	assert_string_equal(
		errs.v[0],
		"/nonexistent/wqrt.conf: cannot open: No such file or directory");
}

static void test_all_errors_reported(void **state)
{
	(void)state;
	assert_null(load("[wq:a]\nnice = 99\nrtpri = 1\n[wq:b]\npolicy = x\n"));
	assert_int_equal(errs.n, 3);
}

static void test_high_priority(void **state)
{
	struct config *c;

	(void)state;
	expect_error(
		"[wq:*]\npolicy = fifo\nrtprio = 99\n",
		"3: [wq:*] rtprio = 99: rtprio 90 or more on a glob needs allow_high_priority = yes in [global]");
	expect_error(
		"[kworker:kworker/*]\npolicy = fifo\nrtprio = 90\n",
		"3: [kworker:kworker/*] rtprio = 90: rtprio 90 or more on a glob needs allow_high_priority = yes in [global]");
	/* below the threshold, or an exact name: no opt-in needed */
	c = load("[wq:*]\npolicy = fifo\nrtprio = 89\n"
		 "[wq:tty_flip]\npolicy = fifo\nrtprio = 99\n");
	assert_non_null(c);
	assert_int_equal(c->warnings.n, 0);
	config_free(c);
	c = load("[global]\nallow_high_priority = yes\n"
		 "[wq:*]\npolicy = fifo\nrtprio = 99\n");
	assert_non_null(c);
	assert_int_equal(c->warnings.n, 0);
	config_free(c);
}

static void test_rt_throttling_warning(void **state)
{
	struct config *c;
	char want[600];

	(void)state;
	ft_write(&ft, "/proc/sys/kernel/sched_rt_runtime_us", "-1\n");
	c = load("[global]\nallow_high_priority = yes\n"
		 "[wq:*]\npolicy = fifo\nrtprio = 99\n");
	assert_non_null(c);
	assert_int_equal(c->warnings.n, 1);
	snprintf(
		want, sizeof(want),
		"%s:3: [wq:*]: rtprio 99 on a glob while RT throttling is off (sched_rt_runtime_us = -1): a runaway work item can lock up its CPUs",
		path);
	assert_string_equal(c->warnings.v[0], want);
	config_free(c);
	ft_write(&ft, "/proc/sys/kernel/sched_rt_runtime_us", "950000\n");
}

static void test_example_config_is_valid(void **state)
{
	/* every workqueue of the test modules (selftests/modules) */
	static const char * const test_wqs[] = {
		"wqrt_test_unbound", "wqrt_test_ordered", "wqrt_test_cull",
		"wqrt_test_fresh", "wqrt_test_reclaim", "wqrt_test_twin",
		"wqrt_stress_unbound", "wqrt_stress_percpu",
		"wqrt_stress_ordered", "wqrt_flush_unbound",
		"wqrt_flush_percpu", "wqrt_flush_ordered", "wqrt_flush_drain",
		"wqrt_reach_unbound", "wqrt_reach_ordered",
		"wqrt_reach_percpu",
	};
	struct config *c = NULL;
	unsigned int i;

	(void)state;
	strlist_free(&errs);
	assert_int_equal(config_load(SRCDIR "/../conf/wqrt.conf", ft.root, &c,
				     &errs),
			 0);
	assert_non_null(c);
	/*
	 * Issue 17.5: the shipped file must not fight the kselftests: no
	 * section of it may match a workqueue of the test modules.
	 */
	for (i = 0; i < sizeof(test_wqs) / sizeof(test_wqs[0]); i++) {
		if (config_match_wq(c, test_wqs[i]))
			fail_msg("conf/wqrt.conf profiles %s", test_wqs[i]);
	}
	config_free(c);
}

/* Issue 16.4: only a file no one but root can write is trusted */
static void test_untrusted_file(void **state)
{
	struct config *c = NULL;

	(void)state;
	strlist_free(&errs);
	snprintf(path, sizeof(path), "%s", ft_conf(&ft, "[global]\n"));
	assert_int_equal(chmod(path, 0664), 0);
	assert_int_equal(config_load(path, ft.root, &c, &errs), 1);
	assert_null(c);
	assert_non_null(strstr(errs.v[0], "group or others can write it"));
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(chown(path, 65534, 0), 0);
	strlist_free(&errs);
	assert_int_equal(config_load(path, ft.root, &c, &errs), 1);
	assert_non_null(strstr(errs.v[0], "owned by uid 65534, not root"));
	assert_int_equal(chown(path, geteuid(), 0), 0);
	strlist_free(&errs);
	assert_int_equal(config_load(ft.root, ft.root, &c, &errs), 1);
	assert_non_null(strstr(errs.v[0], "not a regular file"));
}

/* Issue 16.18: iniparser would merge [wq:x] and [wq:X] */
static void test_error_duplicate_section(void **state)
{
	(void)state;
	expect_error("[wq:x]\nnice = 1\n[wq:X]\nnice = 2\n",
		     "3: [wq:x]: the section appears again (first on line 1; names are folded to lower case)");
}

/* Issue 16.18 */
static void test_error_empty(void **state)
{
	(void)state;
	expect_error("", "1: the file has no section: nothing to apply");
	expect_error("; comments only\n\n",
		     "1: the file has no section: nothing to apply");
}

/* Issue 16.18 */
static void test_error_long_line(void **state)
{
	char text[2000];

	(void)state;
	snprintf(text, sizeof(text), "[wq:x]\n; %01200d\nnice = 1\n", 0);
	expect_error(text, "2: line longer than 1022 bytes");
}

/* Issue 16.18: every syntax error, and the other errors too */
static void test_every_syntax_error(void **state)
{
	(void)state;
	assert_null(load("[wq:a]\nfoo\nnice = 1\nbar\n[wq:b]\nrtpri = 3\n"));
	assert_int_equal(errs.n, 3);
	assert_non_null(strstr(errs.v[0], ":2: foo: syntax error"));
	assert_non_null(strstr(errs.v[1], ":4: bar: syntax error"));
	assert_non_null(strstr(errs.v[2], ":6: [wq:b] rtpri = 3: unknown key"));
}

/* Issue 17.8: drop-ins in wqrt.conf.d, in the byte order of their names */
static struct strlist dropins;

static void dropin(const char *name, const char *text, mode_t mode)
{
	char rel[300], full[600];

	snprintf(rel, sizeof(rel), "/wqrt.conf.d/%s", name);
	ft_write(&ft, rel, text);
	snprintf(full, sizeof(full), "%s%s", ft.root, rel);
	assert_int_equal(chmod(full, mode), 0);
	strlist_add(&dropins, "%s", full);
}

static void dropins_clear(void)
{
	char dir[600];
	size_t i;

	for (i = 0; i < dropins.n; i++)
		unlink(dropins.v[i]);
	strlist_free(&dropins);
	snprintf(dir, sizeof(dir), "%s/wqrt.conf.d", ft.root);
	rmdir(dir);
}

static void test_dropins_merged_in_order(void **state)
{
	struct config *c;

	(void)state;
	dropin("20-board.conf", "[global]\nlog_level = debug\n"
				"[wq:b]\nprofile = rt\n", 0644);
	dropin("10-pkg.conf", "[global]\nlog_level = notice\n"
			      "[profile:rt]\npolicy = fifo\nrtprio = 30\n"
			      "[wq:a]\nprofile = base\n", 0644);
	/* not *.conf, or hidden: not read */
	dropin("30-x.conf.dpkg-old", "bad", 0644);
	dropin(".40-y.conf", "bad", 0644);
	c = load("[profile:base]\nnice = -5\n[wq:main]\nprofile = rt\n");
	assert_non_null(c);
	/* the later file's [global] wins */
	assert_int_equal(c->log_level, LOG_DEBUG);
	assert_int_equal(c->nrules, 3);
	assert_string_equal(c->rules[0].section, "wq:main");
	assert_int_equal(c->rules[0].s.val[WA_RTPRIO], 30);
	assert_string_equal(c->rules[1].section, "wq:a");
	assert_int_equal(c->rules[1].s.val[WA_NICE], -5);
	assert_non_null(strstr(c->rules[1].file, "/wqrt.conf.d/10-pkg.conf"));
	assert_string_equal(c->rules[2].section, "wq:b");
	assert_int_equal(c->nsources, 3);
	assert_string_equal(c->sources[0].path, path);
	assert_non_null(strstr(c->sources[1].path, "10-pkg.conf"));
	assert_non_null(strstr(c->sources[2].path, "20-board.conf"));
	assert_non_null(strstr(c->sources[2].text, "log_level = debug"));
	config_free(c);
	dropins_clear();
}

/* A trial is read alone: a drop-in with an error, or a vendor profile, changes nothing */
static void test_load_one_reads_no_dropins(void **state)
{
	struct config *c = NULL;

	(void)state;
	dropin("10-bad.conf", "[wq:a]\nrtpri = 5\n", 0644);
	dropin("20-other.conf", "[wq:b]\nnice = -5\n", 0644);
	snprintf(path, sizeof(path), "%s",
		 ft_conf(&ft, "[wq:main]\npolicy = fifo\nrtprio = 20\n"));
	strlist_free(&errs);
	assert_int_equal(config_load_one(path, ft.root, &c, &errs), 0);
	assert_non_null(c);
	assert_int_equal(c->nrules, 1);
	assert_int_equal(c->nsources, 1);
	assert_string_equal(c->rules[0].section, "wq:main");
	config_free(c);
	/* config_load() of the same file reads them */
	assert_int_not_equal(config_load(path, ft.root, &c, &errs), 0);
	dropins_clear();
}

static struct rule *trial_rule(struct config **t, const char *text)
{
	*t = load(text);
	assert_non_null(*t);
	assert_int_equal((*t)->nrules, 1);
	return &(*t)->rules[0];
}

/* The trial's keys over the rule the workqueue has, nothing else */
static void test_trial_over_profile(void **state)
{
	struct config *c, *t;
	const struct rule *r;

	(void)state;
	c = load("[profile:rt]\npolicy = fifo\nrtprio = 50\nnr_idle_extra = 2\n"
		 "[wq:tty_flip]\nprofile = rt\nrtprio = 20\n"
		 "[wq:gpu*]\nnice = -5\n");
	assert_non_null(c);
	/* nice over tty_flip's profile: the profile stays, nice is added */
	assert_int_equal(config_set_trial(c, trial_rule(&t, "[wq:tty_flip]\nnice = -10\n")), 0);
	config_free(t);
	r = config_match_wq(c, "TTY_FLIP");
	assert_ptr_equal(r, c->trial);
	assert_int_equal(r->s.val[WA_POLICY], POLICY_FIFO);
	assert_int_equal(r->s.val[WA_RTPRIO], 20);
	assert_int_equal(r->s.val[WA_NR_IDLE_EXTRA], 2);
	assert_true(r->s.set & WA_BIT(WA_NICE));
	assert_int_equal(r->s.val[WA_NICE], -10);
	/* other workqueues keep their rules */
	assert_ptr_equal(config_match_wq(c, "gpu_submit"), &c->rules[1]);
	/* policy = normal alone: rtprio goes with it */
	assert_int_equal(config_set_trial(c, trial_rule(&t, "[wq:tty_flip]\npolicy = normal\n")), 0);
	config_free(t);
	r = config_match_wq(c, "tty_flip");
	assert_int_equal(r->s.val[WA_POLICY], POLICY_NORMAL);
	assert_true(r->s.set & WA_BIT(WA_RTPRIO));
	assert_int_equal(r->s.val[WA_RTPRIO], 0);
	assert_false(r->s.set & WA_BIT(WA_NICE));
	/* rtprio = 0 alone: normal, not FIFO at 0 */
	assert_int_equal(config_set_trial(c, trial_rule(&t, "[wq:tty_flip]\nrtprio = 0\n")), 0);
	config_free(t);
	r = config_match_wq(c, "tty_flip");
	assert_int_equal(r->s.val[WA_POLICY], POLICY_NORMAL);
	assert_int_equal(r->s.val[WA_RTPRIO], 0);
	assert_int_equal(r->s.val[WA_NR_IDLE_EXTRA], 2);
	/* over a glob's workqueue, and one no rule covers */
	assert_int_equal(config_set_trial(c, trial_rule(&t, "[wq:gpu_submit]\npolicy = fifo\nrtprio = 5\n")), 0);
	config_free(t);
	r = config_match_wq(c, "gpu_submit");
	assert_int_equal(r->s.val[WA_NICE], -5);
	assert_int_equal(r->s.val[WA_RTPRIO], 5);
	assert_ptr_equal(config_match_wq(c, "tty_flip"), &c->rules[0]);
	assert_int_equal(config_set_trial(c, trial_rule(&t, "[wq:writeback]\nnice = 3\n")), 0);
	config_free(t);
	r = config_match_wq(c, "writeback");
	assert_non_null(r);
	assert_int_equal(r->s.set, WA_BIT(WA_NICE));
	/* taken out: as the files say */
	assert_int_equal(config_set_trial(c, NULL), 0);
	assert_null(config_match_wq(c, "writeback"));
	assert_null(c->trial);
	config_free(c);
}

/* Every error of every file, each with its file and line */
static void test_dropins_every_error(void **state)
{
	char want[700];

	(void)state;
	dropin("10-a.conf", "[wq:x]\nnice = 99\ngarbage\n[wq:y]\npolicy = x\n",
	       0644);
	dropin("20-b.conf", "[wq:main]\nnice = 1\n[wq:z]\nprofile = nope\n",
	       0644);
	assert_null(load("[wq:main]\nrtpri = 1\n[wq:m2]\nnice = -99\n"));
	assert_int_equal(errs.n, 7);
	snprintf(want, sizeof(want),
		 "%s/wqrt.conf.d/20-b.conf:1: [wq:main]: the section is already in %s:1",
		 ft.root, path);
	assert_true(strlist_has(&errs, want));
	snprintf(want, sizeof(want),
		 "%s/wqrt.conf.d/10-a.conf:3: garbage: syntax error: expected `key = value` or `[section]`",
		 ft.root);
	assert_true(strlist_has(&errs, want));
	snprintf(want, sizeof(want), "%s/wqrt.conf.d/10-a.conf:2: [wq:x] nice = 99",
		 ft.root);
	assert_true(strlist_has_prefix(&errs, want));
	snprintf(want, sizeof(want), "%s/wqrt.conf.d/10-a.conf:5: [wq:y] policy = x",
		 ft.root);
	assert_true(strlist_has_prefix(&errs, want));
	snprintf(want, sizeof(want), "%s/wqrt.conf.d/20-b.conf:4: [wq:z] profile = nope",
		 ft.root);
	assert_true(strlist_has_prefix(&errs, want));
	snprintf(want, sizeof(want), "%s:2: [wq:main] rtpri = 1", path);
	assert_true(strlist_has_prefix(&errs, want));
	snprintf(want, sizeof(want), "%s:4: [wq:m2] nice = -99", path);
	assert_true(strlist_has_prefix(&errs, want));
	dropins_clear();
}

static void test_dropins_trusted_only(void **state)
{
	char dir[300], want[1000];

	(void)state;
	dropin("10-a.conf", "[wq:a]\nnice = 1\n", 0666);
	assert_null(load("[wq:main]\nnice = 1\n"));
	assert_int_equal(errs.n, 1);
	assert_non_null(strstr(errs.v[0], "10-a.conf: group or others can write it"));
	dropins_clear();
	dropin("10-a.conf", "[wq:a]\nnice = 1\n", 0644);
	snprintf(dir, sizeof(dir), "%s/wqrt.conf.d", ft.root);
	assert_int_equal(chmod(dir, 0777), 0);
	assert_null(load("[wq:main]\nnice = 1\n"));
	snprintf(want, sizeof(want),
		 "%s: group or others can write it (mode 0777); refusing it (chmod go-w %s)",
		 dir, dir);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.v[0], want);
	assert_int_equal(chmod(dir, 0755), 0);
	dropins_clear();
}

/* A drop-in with nothing in it (shipped commented out) is fine */
static void test_dropin_empty(void **state)
{
	struct config *c;

	(void)state;
	dropin("10-example.conf", "; [wq:ttyS-serial_8250]\n; policy = fifo\n", 0644);
	c = load("[wq:main]\nnice = 1\n");
	assert_non_null(c);
	assert_int_equal(c->nrules, 1);
	config_free(c);
	dropins_clear();
}

/*
 * Issue 30.9: a FIFO given as the configuration is refused at once, not
 * waited on (wqrtd --check and wqrtctl check hung on one).
 */
static void test_fifo_refused(void **state)
{
	char fifo[300];
	int status;
	pid_t pid;

	(void)state;
	snprintf(fifo, sizeof(fifo), "%s/fifo.conf", ft.root);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct config *c = NULL;

		alarm(10);
		strlist_free(&errs);
		_exit(config_load(fifo, ft.root, &c, &errs) == 1 &&
			      strstr(errs.v[0], "not a regular file") ?
		      0 :
		      1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		fail_msg("config_load() of a FIFO still waits after 10 s");
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	unlink(fifo);
}

/*
 * Issue 30.9: the directory that holds the file is checked as the file
 * is: one that others can write lets them replace the file. A sticky one
 * (/tmp) does not.
 */
static void test_untrusted_directory(void **state)
{
	char dir[300], file[320], want[1000];
	struct config *c = NULL;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/open", ft.root);
	snprintf(file, sizeof(file), "%s/wqrt.conf", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	ft_write(&ft, "/open/wqrt.conf", "[wq:a]\nnice = 1\n");
	assert_int_equal(chmod(file, 0644), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	strlist_free(&errs);
	assert_int_equal(config_load(file, ft.root, &c, &errs), 1);
	snprintf(want, sizeof(want),
		 "%s: group or others can write it (mode 0777); refusing it (chmod go-w %s)",
		 dir, dir);
	assert_string_equal(errs.v[0], want);
	assert_int_equal(chmod(dir, 01777), 0);
	strlist_free(&errs);
	assert_int_equal(config_load(file, ft.root, &c, &errs), 0);
	config_free(c);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chown(dir, 65534, 0), 0);
	strlist_free(&errs);
	c = NULL;
	assert_int_equal(config_load(file, ft.root, &c, &errs), 1);
	assert_non_null(strstr(errs.v[0], "owned by uid 65534, not root"));
	unlink(file);
	rmdir(dir);
}

/* N [wq:] sections using one profile, in a file; its path */
static const char *sections_file(int n)
{
	static char file[400];
	char name[64];
	FILE *f;
	int i;

	snprintf(name, sizeof(name), "/s%d.conf", n);
	snprintf(file, sizeof(file), "%s%s", ft.root, name);
	f = fopen(file, "w");
	assert_non_null(f);
	fprintf(f, "[profile:rt]\npolicy = fifo\nrtprio = 50\n");
	for (i = 0; i < n; i++)
		fprintf(f, "[wq:w%05d]\nprofile=rt\n", i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(file, 0644), 0);
	return file;
}

/* wqrtd, built beside this test's directory */
static const char *wqrtd_path(void)
{
	static char exe[600];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 16);

	assert_true(n > 0);
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	*strrchr(exe, '/') = '\0';
	strcat(exe, "/wqrtd");
	return exe;
}

/*
 * The CPU seconds (user and system) "wqrtd --check -c file" takes, the
 * best of tries; it must accept the file.
 */
static double check_seconds(const char *file, int tries)
{
	double best = 1e9, t;
	struct rusage ru;
	int status;
	pid_t pid;

	while (tries--) {
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			execl(wqrtd_path(), "wqrtd", "--check", "-c", file,
			      "--root", ft.root, (char *)NULL);
			_exit(127);
		}
		assert_int_equal(wait4(pid, &status, 0, &ru), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		t = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		if (t < best)
			best = t;
	}
	return best;
}

/*
 * Issue 30.12: parsing is linear in the file: wqrtd --check of 32k
 * sections takes at most 20 times what 2k take (16 times the work); a
 * quadratic parse took 30 s for 32k, past the service's 30 s watchdog on
 * a reload. CPU time, so that a loaded machine measures the same.
 */
static void test_parse_linear(void **state)
{
	double small, big;

	(void)state;
	small = check_seconds(sections_file(2000), 3);
	big = check_seconds(sections_file(32000), 3);
	print_message("wqrtd --check: 2k sections %.3f s, 32k sections %.3f s (x%.1f)\n",
		      small, big, big / small);
	assert_true(big <= 20 * small);
}

/*
 * Issue 46.9: "[wq:a]b]" was read as [wq:a], silently; a key given twice
 * in a section kept its last value without a word.
 */
static void test_error_bracket_in_section_name(void **state)
{
	(void)state;
	expect_error("[wq:a]b]\nnice = 1\n",
		     "1: [wq:a]b]: a section name ends at its first `]`: nothing may follow it");
	expect_error("[global]\n[wq:b]\nnice = 1\n[wq:a] ]\nnice = 2\n",
		     "4: [wq:a] ]: a section name ends at its first `]`: nothing may follow it");
}

static void test_error_duplicate_key(void **state)
{
	struct config *c;

	(void)state;
	expect_error("[wq:a]\nnice = 1\nrtprio = 0\nNice = 2\n",
		     "4: [wq:a] nice = 2: the key is given again (first on line 2; names are folded to lower case)");
	/* the same key in two sections is no duplicate */
	c = load("[wq:a]\nnice = 1\n[wq:b]\nnice = 1\n");
	assert_non_null(c);
	config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_global_keys),
		cmocka_unit_test(test_every_attribute_key),
		cmocka_unit_test(test_profile_inheritance),
		cmocka_unit_test(test_profile_defined_after_use),
		cmocka_unit_test(test_globs_and_precedence),
		cmocka_unit_test(test_case_folding),
		cmocka_unit_test(test_kworker_section),
		cmocka_unit_test(test_error_unknown_key_hint),
		cmocka_unit_test(test_error_unknown_section_hint),
		cmocka_unit_test(test_error_values),
		cmocka_unit_test(test_error_policy_rtprio),
		cmocka_unit_test(test_error_profiles),
		cmocka_unit_test(test_error_kworker_keys),
		cmocka_unit_test(test_error_placement),
		cmocka_unit_test(test_error_syntax),
		cmocka_unit_test(test_error_missing_file),
		cmocka_unit_test(test_all_errors_reported),
		cmocka_unit_test(test_high_priority),
		cmocka_unit_test(test_rt_throttling_warning),
		cmocka_unit_test(test_example_config_is_valid),
		cmocka_unit_test(test_untrusted_file),
		cmocka_unit_test(test_error_duplicate_section),
		cmocka_unit_test(test_error_bracket_in_section_name),
		cmocka_unit_test(test_error_duplicate_key),
		cmocka_unit_test(test_error_empty),
		cmocka_unit_test(test_error_long_line),
		cmocka_unit_test(test_every_syntax_error),
		cmocka_unit_test(test_dropins_merged_in_order),
		cmocka_unit_test(test_dropins_every_error),
		cmocka_unit_test(test_dropins_trusted_only),
		cmocka_unit_test(test_dropin_empty),
		cmocka_unit_test(test_fifo_refused),
		cmocka_unit_test(test_untrusted_directory),
		cmocka_unit_test(test_parse_linear),
		cmocka_unit_test(test_load_one_reads_no_dropins),
		cmocka_unit_test(test_trial_over_profile),
	};

	return cmocka_run_group_tests_name("config", tests, setup, teardown);
}
