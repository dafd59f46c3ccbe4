// SPDX-License-Identifier: GPL-2.0-only
/* kworker names, /proc/PID/stat, pool_ids, mode detection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "sysops.h"
#include "faketree.h"

static void test_classify_unbound(void **state)
{
	struct kw_class c;

	(void)state;
	kworker_classify("kworker/u5:2", &c);
	assert_int_equal(c.kind, KW_UNBOUND);
	assert_int_equal(c.pool, 5);
	assert_int_equal(c.id, 2);
	/* /proc shows what the worker runs: "+" now, "-" last */
	kworker_classify("kworker/u12:0+events_unbound", &c);
	assert_int_equal(c.kind, KW_UNBOUND);
	assert_int_equal(c.pool, 12);
	assert_string_equal(c.base, "kworker/u12:0");
	kworker_classify("kworker/u12:3-flush-8:0", &c);
	assert_int_equal(c.kind, KW_UNBOUND);
	assert_string_equal(c.base, "kworker/u12:3");
}

static void test_classify_percpu(void **state)
{
	struct kw_class c;

	(void)state;
	kworker_classify("kworker/3:1H", &c);
	assert_int_equal(c.kind, KW_PERCPU);
	assert_int_equal(c.cpu, 3);
	assert_int_equal(c.id, 1);
	assert_true(c.highpri);
	kworker_classify("kworker/0:0-events", &c);
	assert_int_equal(c.kind, KW_PERCPU);
	assert_false(c.highpri);
	assert_string_equal(c.base, "kworker/0:0");
}

static void test_classify_rescuer(void **state)
{
	struct kw_class c;

	(void)state;
	kworker_classify("kworker/R-nvme-wq", &c);
	assert_int_equal(c.kind, KW_RESCUER);
	assert_string_equal(c.rescued, "nvme-wq");
	assert_true(kworker_rescues(&c, "nvme-wq"));
	/* "-wq" could be a "-desc": ambiguous, the daemon takes the longest */
	assert_true(kworker_rescues(&c, "nvme"));
	assert_false(kworker_rescues(&c, "nvme-w"));
	/* task->comm keeps 15 bytes: "kworker/R-" leaves 5 of the name */
	kworker_classify("kworker/R-wqrt_", &c);
	assert_true(c.truncated);
	assert_true(kworker_rescues(&c, "wqrt_test_unbound"));
	assert_false(kworker_rescues(&c, "wqrx_test"));
	/* a "-desc" suffix after the full name still matches */
	kworker_classify("kworker/R-mm_percpu_wq-vmstat", &c);
	assert_true(kworker_rescues(&c, "mm_percpu_wq"));
	kworker_classify("kworker/R-tty+flush_to_ldisc", &c);
	assert_string_equal(c.rescued, "tty");
}

static void test_classify_other(void **state)
{
	struct kw_class c;

	(void)state;
	kworker_classify("kworker/dying", &c);
	assert_int_equal(c.kind, KW_DYING);
	kworker_classify("ksoftirqd/0", &c);
	assert_int_equal(c.kind, KW_NONE);
	/* cut in the middle of the number: not something we can place */
	kworker_classify("kworker/u", &c);
	assert_int_equal(c.kind, KW_OTHER);
	kworker_classify("kworker/R-", &c);
	assert_int_equal(c.kind, KW_OTHER);
	kworker_classify("kworker/12:3X", &c);
	assert_int_equal(c.kind, KW_OTHER);
}

static void test_stat_parse(void **state)
{
	struct task_info t;

	(void)state;
	/* a comm with spaces and ")" is why we search from the right */
	assert_int_equal(
		task_parse_stat(
			"42 (we ) ird) S 2 0 0 0 -1 2097216 0 0 0 0 0 0 0 0 -51 0 1 0 777 0 0 1 0 0 0 0 0 0 0 0 0 0 0 0 17 1 50 1 0 0 0",
			&t),
		0);
	assert_int_equal(t.pid, 42);
	assert_string_equal(t.comm, "we ) ird");
	assert_int_equal(t.ppid, 2);
	assert_int_equal(t.start, 777);
	assert_int_equal(t.rtprio, 50);
	assert_int_equal(t.policy, 1);
	assert_true(t.flags & PF_KTHREAD);
	assert_int_equal(task_parse_stat("42 (x) S 2", &t), -EINVAL);
}

static void test_kworker_needs_kthreadd_parent(void **state)
{
	struct task_info t = { .ppid = 2, .flags = PF_KTHREAD };

	(void)state;
	strcpy(t.comm, "kworker/u1:0");
	assert_true(task_is_kworker(&t));
	t.ppid = 1; /* a user process calling itself kworker */
	assert_false(task_is_kworker(&t));
	t.ppid = 2;
	t.flags = 0;
	assert_false(task_is_kworker(&t));
}

static void test_pool_ids(void **state)
{
	struct faketree ft;
	char text[8192];
	size_t len = 0;
	int *ids, pod;

	(void)state;
	assert_int_equal(parse_pool_ids("0:5 1:7\n", &ids), 2);
	assert_int_equal(ids[0], 5);
	assert_int_equal(ids[1], 7);
	free(ids);
	assert_int_equal(parse_pool_ids("", &ids), 0);
	assert_null(ids);
	assert_int_equal(parse_pool_ids("5", &ids), -EINVAL);
	assert_null(ids);
	/* issue 46.8: 512 pods, every one of them (a file over 4 KiB) */
	for (pod = 0; pod < 512; pod++)
		len += snprintf(text + len, sizeof(text) - len, "%s%d:%d",
				pod ? " " : "", pod, 10000 + pod);
	ft_init(&ft);
	ft_wq(&ft, "tty_flip", true);
	ft_set(&ft, "tty_flip", "pool_ids", text);
	assert_int_equal(wq_read_pool_ids(ft.root, "tty_flip", &ids), 512);
	assert_int_equal(ids[0], 10000);
	assert_int_equal(ids[511], 10511);
	free(ids);
	ft_cleanup(&ft);
}

/* Issue 46.8: a file longer than the buffer is an error, not cut short */
static void test_read_text_never_cuts(void **state)
{
	struct faketree ft;
	char buf[8], path[300], *text;

	(void)state;
	ft_init(&ft);
	snprintf(path, sizeof(path), "%s/f", ft.root);
	ft_write(&ft, "/f", "1234567\n");
	/* seven bytes and the newline fit in eight */
	assert_int_equal(read_text(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "1234567");
	ft_write(&ft, "/f", "12345678\n");
	assert_int_equal(read_text(path, buf, sizeof(buf)), -EFBIG);
	ft_write(&ft, "/f", "1234567\n\n");
	assert_int_equal(read_text(path, buf, sizeof(buf)), -EFBIG);
	assert_int_equal(read_text_alloc(path, &text), 0);
	assert_string_equal(text, "1234567");
	free(text);
	/* one byte past the buffer that is not the newline */
	ft_write(&ft, "/f", "12345678");
	assert_int_equal(read_text(path, buf, sizeof(buf)), -EFBIG);
	assert_int_equal(read_text(ft.root, buf, sizeof(buf)), -EISDIR);
	ft_cleanup(&ft);
}

static void test_mode_detection(void **state)
{
	struct faketree ft;

	(void)state;
	ft_init(&ft);
	ft_wq(&ft, "writeback", false);
	assert_false(sysfs_series_present(ft.root));
	ft_wq(&ft, "tty_flip", true);
	assert_true(sysfs_series_present(ft.root));
	ft_cleanup(&ft);
}

struct seen_kw {
	int n;
	pid_t pids[8];
};

static int note_kw(const struct task_info *t, void *arg)
{
	struct seen_kw *s = arg;

	if (s->n < 8)
		s->pids[s->n] = t->pid;
	s->n++;
	return 0;
}

/*
 * Issue 49.4: with kthreadd's children listed (/proc/2/task/2/children),
 * a scan reads the stat of those tasks only: a user task's is never
 * opened (here it is not even readable), nor that of a task not listed.
 * Without the list, every task of /proc is read, as before.
 */
static void test_kworkers_from_kthreadd_children(void **state)
{
	struct faketree ft;
	struct seen_kw s = { 0 };

	(void)state;
	ft_init(&ft);
	ft_task(&ft, 2, 0, "kthreadd", 0, 0, 0, 1);
	ft_task(&ft, 40, 2, "kworker/u9:0", 1, 20, 0, 100);
	ft_task(&ft, 41, 2, "kworker/0:1H", 0, 0, -20, 101);
	ft_task(&ft, 42, 2, "rcu_preempt", 1, 1, 0, 102);
	ft_task(&ft, 43, 2, "kworker/u9:1", 0, 0, 0, 103);
	ft_task(&ft, 500, 1, "sshd", 0, 0, 0, 200);
	/* without the list: the walk of /proc finds every kworker */
	assert_int_equal(for_each_kworker(ft.root, note_kw, &s), 0);
	assert_int_equal(s.n, 3);

	/* with it: what it lists, in its order, and nothing else */
	ft_write(&ft, "/proc/2/task/2/children", "41 40 42 \n");
	ft_write(&ft, "/proc/500/stat", "garbage, never read\n");
	s.n = 0;
	assert_int_equal(for_each_kworker(ft.root, note_kw, &s), 0);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.pids[0], 41);
	assert_int_equal(s.pids[1], 40);

	/* a listed task gone since is no error; a list cut short is */
	ft_write(&ft, "/proc/2/task/2/children", "41 77 40\n");
	s.n = 0;
	assert_int_equal(for_each_kworker(ft.root, note_kw, &s), 0);
	assert_int_equal(s.n, 2);
	ft_write(&ft, "/proc/2/task/2/children", "41 x40\n");
	s.n = 0;
	assert_int_equal(for_each_kworker(ft.root, note_kw, &s), -EINVAL);
	ft_cleanup(&ft);
}

/*
 * Issue 16.16: a name longer than the buffer (leading zeros). The bytes
 * after the struct are watched, so a write past base fails here in a
 * plain build too (UBSan sees the index in the sanitizer build).
 */
static void test_classify_long_comm(void **state)
{
	struct {
		struct kw_class c;
		unsigned char after[256];
	} g;
	char comm[200];
	size_t i;

	(void)state;
	memset(g.after, 0x5a, sizeof(g.after));
	snprintf(comm, sizeof(comm), "kworker/u%0150d:1", 5);
	kworker_classify(comm, &g.c);
	assert_true(strlen(g.c.base) < sizeof(g.c.base));
	assert_int_equal(strncmp(g.c.base, comm, strlen(g.c.base)), 0);
	snprintf(comm, sizeof(comm), "kworker/%0150d:1H+x", 3);
	kworker_classify(comm, &g.c);
	assert_true(strlen(g.c.base) < sizeof(g.c.base));
	for (i = 0; i < sizeof(g.after); i++)
		assert_int_equal(g.after[i], 0x5a);
}

/*
 * Issue 46.9: --root // (or /proc/..) named the real system and passed
 * the checks made for a fake root: the stat-file operations of a fake
 * /proc ran on the real one, and restore's root check was skipped.
 */
static void test_real_root_spellings(void **state)
{
	struct sys_ops o;

	(void)state;
	sys_ops_for_root(&o, "//");
	assert_ptr_equal(o.sched_set, sys_ops_real.sched_set);
	sys_ops_for_root(&o, "/proc/..");
	assert_ptr_equal(o.sched_set, sys_ops_real.sched_set);
	assert_string_equal(root_canon("//"), "/");
	assert_string_equal(root_canon("/./"), "/");
	assert_string_equal(root_canon(""), "/");
	assert_string_equal(root_canon("/tmp"), "/tmp");
	sys_ops_for_root(&o, "/tmp");
	assert_ptr_equal(o.sched_set, sys_ops_fake_root.sched_set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify_unbound),
		cmocka_unit_test(test_classify_long_comm),
		cmocka_unit_test(test_classify_percpu),
		cmocka_unit_test(test_classify_rescuer),
		cmocka_unit_test(test_classify_other),
		cmocka_unit_test(test_stat_parse),
		cmocka_unit_test(test_kworker_needs_kthreadd_parent),
		cmocka_unit_test(test_pool_ids),
		cmocka_unit_test(test_read_text_never_cuts),
		cmocka_unit_test(test_real_root_spellings),
		cmocka_unit_test(test_mode_detection),
		cmocka_unit_test(test_kworkers_from_kthreadd_children),
	};

	return cmocka_run_group_tests_name("discover", tests, NULL, NULL);
}
