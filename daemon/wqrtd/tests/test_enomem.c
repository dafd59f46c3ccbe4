// SPDX-License-Identifier: GPL-2.0-only
/*
 * Out of memory, at every allocation of a pass (issue 46.7): linked with
 * -Wl,--wrap=realloc, so that the daemon's every realloc() goes through
 * __wrap_realloc(), which fails the n-th one. For each n, a fresh daemon
 * scans and the invariant holds: a kworker or workqueue attribute is
 * never changed without its original in the originals file first.
 */
#include "daemon_fixture.h"

#include <stdlib.h>

void *__real_realloc(void *p, size_t size);

/* counting: the reallocs seen; failing: which one fails (1-based) */
static bool counting;
static unsigned long seen, fail_at;

void *__wrap_realloc(void *p, size_t size)
{
	if (counting && ++seen == fail_at)
		return NULL;
	return __real_realloc(p, size);
}

/* The daemon's log, but through no realloc of the test's own */
static void quiet(int prio, const struct log_ctx *c, const char *msg)
{
	(void)prio, (void)c, (void)msg;
}

static char path[300];

static void tree(void)
{
	/* fallback mode: kworkers of a [kworker:] rule, each recorded */
	ft_wq(&ft, "tty_flip", false);
	ft_task(&ft, 102, 2, "kworker/R-tty_f", SCHED_OTHER, 0, 0, 3);
	ft_task(&ft, 105, 2, "kworker/u3:0", SCHED_OTHER, 0, 0, 6);
	ft_task(&ft, 106, 2, "kworker/u3:1", SCHED_OTHER, 0, 0, 7);
	snprintf(path, sizeof(path), "%s/originals", ft.root);
}

static const char conf[] = "[wq:tty_flip]\npolicy = fifo\nrtprio = 20\n"
			   "nice = -1\n"
			   "[kworker:kworker/u*]\npolicy = rr\nrtprio = 5\n";

/* One scan with the n-th realloc failing (0: none); the reallocs seen */
static unsigned long scan_failing(unsigned long n)
{
	ft_ops_cleanup(&fo, &ft);
	daemon_free(&d);
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	tree();
	start(conf);
	assert_int_equal(daemon_use_state(&d, path), 0);
	log_set_sink(quiet);
	seen = 0;
	fail_at = n;
	counting = true;
	daemon_scan(&d);
	counting = false;
	ft_capture_logs();
	return seen;
}

/* Did wqrtd change pid, and is its original saved? */
static void kworker_recorded(pid_t pid, const char *file, unsigned long n)
{
	char want[64];

	snprintf(want, sizeof(want), "kworker %d ", (int)pid);
	if (sched_of(pid).policy != SCHED_OTHER && !strstr(file, want)) {
		fprintf(stderr, "  realloc %lu failing: pid %d changed, no original saved:\n%s\n",
			n, (int)pid, file);
		fail();
	}
}

static void test_no_change_without_its_original(void **state)
{
	unsigned long n, total;
	char file[4096];

	(void)state;
	total = scan_failing(0);
	assert_true(total > 3);
	for (n = 1; n <= total; n++) {
		scan_failing(n);
		if (read_text(path, file, sizeof(file)))
			file[0] = '\0';
		kworker_recorded(102, file, n);
		kworker_recorded(105, file, n);
		kworker_recorded(106, file, n);
		if (strcmp(ft_get(&ft, "tty_flip", "nice"), "0") &&
		    !strstr(file, "wq tty_flip nice 0")) {
			fprintf(stderr, "  realloc %lu failing: nice changed, no original saved\n",
				n);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_no_change_without_its_original),
#undef T
	};

	return cmocka_run_group_tests_name("enomem", tests, NULL, NULL);
}
