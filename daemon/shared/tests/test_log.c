// SPDX-License-Identifier: GPL-2.0-only
/*
 * Logging (issue 17.10): OBJECT_PID= for the kworker a message is about,
 * MESSAGE_ID= for apply, restore and failure, and a daemon's stderr lines
 * with time and pid. That the daemon's messages carry them:
 * test_daemon.c's test_apply_restore_ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static bool has_field(char f[LOG_FIELDS_MAX][600], int n, const char *want)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i], want))
			return true;
	return false;
}

static bool has_prefix(char f[LOG_FIELDS_MAX][600], int n, const char *p)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(f[i], p, strlen(p)))
			return true;
	return false;
}

static void test_journal_fields(void **state)
{
	struct log_ctx kw = { .pid = 102,
			      .attr = "policy",
			      .msgid = MSGID_APPLIED };
	struct log_ctx wq = { .wq = "tty_flip", .attr = "rtprio", .err = 1 };
	char f[LOG_FIELDS_MAX][600];
	int n;

	(void)state;
	n = log_journal_fields(LOG_INFO, &kw, "changed", f);
	assert_true(has_field(f, n, "MESSAGE=changed"));
	assert_true(has_field(f, n, "PRIORITY=6"));
	/* the kworker: OBJECT_PID=, which journald expands, not PID= */
	assert_true(has_field(f, n, "OBJECT_PID=102"));
	assert_false(has_prefix(f, n, "PID="));
	assert_true(has_field(f, n, "MESSAGE_ID=" WQRT_MSGID_APPLIED));
	/* a failure about a workqueue: the failure id by default */
	n = log_journal_fields(LOG_ERR, &wq, "failed", f);
	assert_true(has_field(f, n, "MESSAGE_ID=" WQRT_MSGID_FAILED));
	assert_true(has_field(f, n, "WQ=tty_flip"));
	assert_true(has_field(f, n, "ERRNO=1"));
	/* anything else: no id */
	n = log_journal_fields(LOG_INFO, &wq, "said", f);
	assert_false(has_prefix(f, n, "MESSAGE_ID="));
	n = log_journal_fields(LOG_ERR, NULL, "said", f);
	assert_false(has_prefix(f, n, "MESSAGE_ID="));
	assert_false(has_prefix(f, n, "OBJECT_PID="));
}

/* The ids are 128-bit, as sd-id128 writes them, and distinct */
static void test_message_ids(void **state)
{
	const char *ids[] = { WQRT_MSGID_APPLIED, WQRT_MSGID_RESTORED,
			      WQRT_MSGID_FAILED };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		assert_int_equal(strlen(ids[i]), 32);
		assert_int_equal(strspn(ids[i], "0123456789abcdef"), 32);
	}
	assert_string_not_equal(ids[0], ids[1]);
	assert_string_not_equal(ids[1], ids[2]);
	assert_string_not_equal(ids[0], ids[2]);
}

/* Without journald, a daemon's stderr: "DATE TIME.ms NAME[PID]: level: msg" */
static void test_stderr_timestamps(void **state)
{
	char path[] = "/tmp/wqrt-log.XXXXXX", line[512], pattern[256];
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	regex_t re;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	log_set_sink(NULL);
	log_setup(LOG_TARGET_STDERR);
	log_set_level(LOG_INFO);
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	log_set_timestamps(true);
	log_warn("one %d", 1);
	log_set_timestamps(false);
	log_info("two");
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	snprintf(
		pattern, sizeof(pattern),
		"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3} %s\\[%d\\]: warning: one 1\n$",
		program_invocation_short_name, (int)getpid());
	assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_int_equal(regexec(&re, line, 0, NULL, 0), 0);
	regfree(&re);
	/* a command's lines stay as they were */
	assert_non_null(fgets(line, sizeof(line), f));
	snprintf(pattern, sizeof(pattern), "%s: two\n",
		 program_invocation_short_name);
	assert_string_equal(line, pattern);
	fclose(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_journal_fields),
		cmocka_unit_test(test_message_ids),
		cmocka_unit_test(test_stderr_timestamps),
	};

	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
