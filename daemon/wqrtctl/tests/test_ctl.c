// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the commands of wqrtctl share (ctl.c): the signals that end a
 * measurement and a reader that goes away (issue 46.3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "common.h"
#include "ctl.h"

/*
 * SIGPIPE ignored, so that latency | head takes its session out; SIGQUIT
 * (Ctrl-\) ends a measurement as SIGINT does, instead of a core dump
 * that leaves everything behind
 */
static void test_signals(void **state)
{
	struct sigaction sa;

	(void)state;
	ctl_catch_signals();
	assert_int_equal(sigaction(SIGPIPE, NULL, &sa), 0);
	assert_ptr_equal(sa.sa_handler, SIG_IGN);
	ctl_stop = 0;
	raise(SIGPIPE);
	assert_int_equal(ctl_stop, 0);
	raise(SIGQUIT);
	assert_int_equal(ctl_stop, 1);
	ctl_stop = 0;
	raise(SIGHUP);
	assert_int_equal(ctl_stop, 1);
	ctl_stop = 0;
}

/* Standard output whose reader is gone: 1 (stop, no error), once */
static void test_output_reader_gone(void **state)
{
	int p[2], saved = dup(STDOUT_FILENO);

	(void)state;
	ctl_catch_signals();
	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	dup2(p[1], STDOUT_FILENO);
	close(p[0]);
	close(p[1]);
	assert_int_equal(ctl_output(), 0);
	printf("nobody reads this\n");
	assert_int_equal(ctl_output(), 1);
	assert_int_equal(ctl_output(), 1);
	clearerr(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_output_reader_gone),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
