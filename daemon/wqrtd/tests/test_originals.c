// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon core on a fake tree: the originals, saved before the writes
 * they guard, kept across a restart, a failed put-back, a failed listing
 * and a failed save, and what a pass costs in saves.
 */
#include "daemon_fixture.h"

/*
 * The watchdog restarts a hung wqrtd: the new instance finds the profile
 * already in sysfs, and must still put the values from before the first
 * instance back on stop, from the originals file the first one kept.
 */
static void test_restart_keeps_originals(void **state)
{
	char path[300];
	struct strlist errs = { 0 };
	struct config *c;

	(void)state;
	start_saved(path, sizeof(path));
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_int_equal(access(path, F_OK), 0);
	/* the first instance dies without restoring anything */
	daemon_free(&d);

	assert_int_equal(config_load(ft_conf(&ft, conf_rt), ft.root, &c, &errs),
			 0);
	daemon_init(&d, ft.root, &fo.ops, c);
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_true(ft_logged("originals of 2 workqueue(s)"));
	assert_int_equal(daemon_scan(&d), 0);
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "tty_flip", "rtprio"), "0");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "0");
	/* all put back: nothing left for a next instance */
	assert_int_equal(access(path, F_OK), -1);
}

/* Issue 16.5: the rescuer was FIFO before the crash; stop puts it back */
static void test_kworker_originals_survive_restart(void **state)
{
	char path[300];

	(void)state;
	start_saved(path, sizeof(path));
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	/* crash, restart: the rescuer is already FIFO 20 */
	restart(conf_rt, path);
	assert_int_equal(daemon_scan(&d), 0);
	assert_int_equal(daemon_restore(&d), 0);
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_int_equal(sched_of(102).rtprio, 0);
}

/* Issue 16.5: the restarted daemon's rule no longer covers the kworker */
static void test_kworker_originals_rule_dropped(void **state)
{
	char path[300];

	(void)state;
	start_saved(path, sizeof(path));
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	restart("[wq:gpu*]\nnice = -5\n", path);
	daemon_scan(&d);
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
}

/* Issue 16.5: only (pid, start time) names a saved kworker */
static void test_kworker_originals_pid_reused(void **state)
{
	char path[300];

	(void)state;
	start_saved(path, sizeof(path));
	/* while no wqrtd runs, the rescuer exits; its pid is reused */
	ft_task(&ft, 102, 2, "kworker/u9:1", SCHED_FIFO, 7, 0, 777);
	restart(conf_rt, path);
	daemon_scan(&d);
	assert_int_equal(daemon_restore(&d), 0);
	assert_int_equal(sched_of(102).rtprio, 7);
}

/* Issue 16.6: the originals are on disk before the first write */
static void test_originals_saved_before_write(void **state)
{
	char path[300];
	size_t i;

	(void)state;
	series_tree();
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	fo.snap_path = path;
	start(conf_rt);
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
	for (i = 0; i < fo.snaps.n; i++) {
		const char *s = fo.snaps.v[i];

		if (!strncmp(s, "tty_flip/nr_idle_extra=2|", 25))
			assert_non_null(strstr(s, "tty_flip nr_idle_extra 0"));
		if (!strncmp(s, "tty_flip/policy=fifo|", 21))
			assert_non_null(strstr(s, "tty_flip policy normal"));
		if (!strncmp(s, "gpu_submit/nice=-5|", 19))
			assert_non_null(strstr(s, "gpu_submit nice 0"));
		if (!strncmp(s, "pid 102|", 8))
			assert_non_null(strstr(s, "kworker 102 3 0 0 0"));
	}
	assert_true(fo.snaps.n >= 5);
	strlist_free(&fo.snaps);
}

/*
 * Issue 16.6: the same outside a scan: a workqueue that appears (uevent)
 * and a kworker that is forked (proc connector) each get their original
 * on disk before their write.
 */
static void test_originals_saved_before_write_on_events(void **state)
{
	char path[300];
	size_t i, wq = 0, kw = 0;

	(void)state;
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	fo.snap_path = path;
	ft_wq(&ft, "events", true);
	start("[wq:tty_flip]\nnice = -3\n"
	      "[kworker:kworker/u9:*]\npolicy = fifo\nrtprio = 5\n");
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
	ft_wq(&ft, "tty_flip", true);
	assert_int_equal(daemon_wq_added(&d, "tty_flip"), 0);
	ft_task(&ft, 300, 2, "kworker/u9:0", SCHED_OTHER, 0, 0, 30);
	assert_int_equal(daemon_task_new(&d, 300), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "-3");
	assert_int_equal(sched_of(300).policy, SCHED_FIFO);
	for (i = 0; i < fo.snaps.n; i++) {
		const char *s = fo.snaps.v[i];

		if (!strncmp(s, "tty_flip/nice=-3|", 17)) {
			assert_non_null(strstr(s, "tty_flip nice 0"));
			wq++;
		}
		if (!strncmp(s, "pid 300|", 8)) {
			assert_non_null(strstr(s, "kworker 300 30 0 0 0"));
			kw++;
		}
	}
	assert_int_equal(wq, 1);
	assert_true(kw >= 1);
	strlist_free(&fo.snaps);
}

/* Issue 16.6: a put-back that fails keeps the original, on disk too */
static void test_failed_put_back_keeps_original(void **state)
{
	char path[300], saved[1024];

	(void)state;
	series_tree();
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	/* tty_flip: nr_idle_extra, policy, then rtprio fails, and so does
	 * every write after it (the put-back) */
	fo.fail_from = 3;
	fo.fail_err = -EIO;
	start("[wq:tty_flip]\npolicy = fifo\nrtprio = 20\nnr_idle_extra = 2\n");
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 1);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_int_equal(read_text(path, saved, sizeof(saved)), 0);
	assert_non_null(strstr(saved, "tty_flip policy normal"));
	assert_non_null(strstr(saved, "tty_flip nr_idle_extra 0"));
	/* the restore fails too: nothing is forgotten */
	assert_true(daemon_restore(&d) > 0);
	assert_int_equal(read_text(path, saved, sizeof(saved)), 0);
	assert_non_null(strstr(saved, "tty_flip policy normal"));
	/* the writes work again: a next instance puts it all back */
	fo.fail_from = 0;
	restart("[global]\n", path);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "tty_flip", "nr_idle_extra"), "0");
	assert_int_equal(access(path, F_OK), -1);
}

/* Issue 16.7: a failed listing prunes nothing */
static void test_failed_listing_keeps_originals(void **state)
{
	char dir[400], away[420], path[300], saved[1024];

	(void)state;
	start_saved(path, sizeof(path));
	assert_int_equal(d.nwqs, 2);
	snprintf(dir, sizeof(dir), "%s" WQ_SYSFS_DIR, ft.root);
	snprintf(away, sizeof(away), "%s.away", dir);
	assert_int_equal(rename(dir, away), 0);
	assert_true(daemon_scan(&d) > 0);
	assert_int_equal(rename(away, dir), 0);
	assert_int_equal(d.nwqs, 2);
	assert_int_equal(read_text(path, saved, sizeof(saved)), 0);
	assert_non_null(strstr(saved, "tty_flip policy normal"));
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
}

/* Issue 16.9: an idle pass writes nothing, the originals file included */
static void test_idle_scan_saves_nothing(void **state)
{
	char path[300], link_path[320];
	struct stat st;

	(void)state;
	series_tree();
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	snprintf(link_path, sizeof(link_path), "%s.link", path);
	start(conf_rt);
	assert_int_equal(daemon_use_state(&d, path), 0);
	daemon_scan(&d);
	/* a second name for the file: a rewrite (a rename over it) unlinks
	 * the old one and leaves the second name alone */
	assert_int_equal(link(path, link_path), 0);
	strlist_free(&fo.writes);
	daemon_scan(&d);
	assert_int_equal(fo.writes.n, 0);
	assert_int_equal(stat(link_path, &st), 0);
	assert_int_equal(st.st_nlink, 2);
}

/*
 * Issue 30.2: the originals cannot be saved (here originals.new is a
 * directory: the write fails as on a full disk): nothing is applied, the
 * failure counts, and once they can be saved again the next scan applies.
 */
static void test_save_fails_closed(void **state)
{
	char path[300], tmp[320];

	(void)state;
	series_tree();
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	assert_int_equal(mkdir(tmp, 0700), 0);
	start(conf_rt);
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_true(daemon_scan(&d) > 0);
	assert_string_equal(ft_writes(&fo), "");
	assert_int_equal(fo.sched_sets, 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_string_equal(ft_get(&ft, "gpu_submit", "nice"), "0");
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_true(ft_logged("error: cannot save the originals"));
	assert_int_equal(rmdir(tmp), 0);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "fifo");
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
}

/*
 * Issue 30.2: an originals file of another boot names pids and values
 * that mean nothing now: refused, with a message, never put back.
 */
static void test_other_boot_originals_refused(void **state)
{
	char path[300];

	(void)state;
	series_tree();
	ft_write(&ft, "/proc/sys/kernel/random/boot_id",
		 "11111111-2222-3333-4444-555555555555\n");
	ft_write(&ft, "/originals",
		 "boot 99999999-2222-3333-4444-555555555555\n"
		 "tty_flip policy fifo\ntty_flip rtprio 9\n"
		 "kworker 102 3 1 9 0\n");
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	start("[global]\n");
	daemon_use_state(&d, path);
	assert_true(ft_logged("another boot"));
	daemon_scan(&d);
	daemon_restore(&d);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
	assert_string_equal(ft_writes(&fo), "");
}

/*
 * Issue 30.4: wqrtctl restore (a scan with no rules, then a restore)
 * after a crash, while the workqueues cannot be listed: what could not
 * be put back stays in the file.
 */
static void test_restore_failed_listing_keeps_file(void **state)
{
	char dir[400], away[420], path[300], saved[1024];
	struct config *c;

	(void)state;
	start_saved(path, sizeof(path));
	daemon_free(&d);
	c = config_empty("(restore)");
	assert_non_null(c);
	daemon_init(&d, ft.root, &fo.ops, c);
	assert_int_equal(daemon_use_state(&d, path), 0);
	snprintf(dir, sizeof(dir), "%s" WQ_SYSFS_DIR, ft.root);
	snprintf(away, sizeof(away), "%s.away", dir);
	assert_int_equal(rename(dir, away), 0);
	assert_true(daemon_scan(&d) + daemon_restore(&d) > 0);
	assert_int_equal(rename(away, dir), 0);
	assert_int_equal(read_text(path, saved, sizeof(saved)), 0);
	assert_non_null(strstr(saved, "tty_flip policy normal"));
	assert_non_null(strstr(saved, "gpu_submit nice 0"));
}

/*
 * Issue 30.2: the same when the save itself fails as on a full disk, an
 * I/O error or a read-only file system, for a scan, a new workqueue and a
 * new kworker alike: nothing is written, each failure counts.
 */
static void test_save_fails_closed_on_events(void **state)
{
	static const int errs[] = { -ENOSPC, -EIO, -EROFS };
	char path[300];
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	ft_wq(&ft, "events", true);
	start("[wq:tty_flip]\nnice = -3\n"
	      "[kworker:kworker/u9:*]\npolicy = fifo\nrtprio = 5\n");
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
	for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		ft_clear_logs();
		fo.fail_save = errs[i];
		ft_wq(&ft, "tty_flip", true);
		assert_int_equal(daemon_wq_added(&d, "tty_flip"), 1);
		assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "0");
		ft_task(&ft, 300, 2, "kworker/u9:0", SCHED_OTHER, 0, 0, 30);
		assert_int_equal(daemon_task_new(&d, 300), 1);
		assert_int_equal(sched_of(300).policy, SCHED_OTHER);
		assert_true(daemon_scan(&d) > 0);
		assert_string_equal(ft_writes(&fo), "");
		assert_int_equal(fo.sched_sets, 0);
		assert_true(ft_logged(strerror(-errs[i])));
		assert_int_equal(access(path, F_OK), -1);
	}
	fo.fail_save = 0;
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "nice"), "-3");
	assert_int_equal(sched_of(300).policy, SCHED_FIFO);
	assert_int_equal(access(path, F_OK), 0);
}

/*
 * Issue 30.4: an lstat error other than ENOENT under the workqueue
 * directory is a failed listing: the workqueue is not gone, and its
 * originals stay.
 */
static void test_lstat_error_is_failed_listing(void **state)
{
	char path[300], saved[1024];

	(void)state;
	start_saved(path, sizeof(path));
	fo.fail_lstat = "tty_flip/max_active";
	fo.fail_lstat_err = -EIO;
	assert_true(daemon_scan(&d) > 0);
	assert_non_null(wq_find_name(&d, "tty_flip"));
	assert_int_equal(read_text(path, saved, sizeof(saved)), 0);
	assert_non_null(strstr(saved, "tty_flip policy normal"));
	fo.fail_lstat = NULL;
	assert_int_equal(daemon_restore(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "policy"), "normal");
}

/*
 * Issue 30.4: a readdir error on /proc is a failed listing: the kworkers
 * it did not reach are not gone, and keep what wqrtd gave them.
 */
static void test_proc_readdir_error_is_failed_listing(void **state)
{
	char path[300], saved[1024];

	(void)state;
	start_saved(path, sizeof(path));
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	fo.fail_readdir = "/proc";
	assert_true(daemon_scan(&d) > 0);
	assert_int_equal(sched_of(102).policy, SCHED_FIFO);
	assert_int_equal(read_text(path, saved, sizeof(saved)), 0);
	assert_non_null(strstr(saved, "kworker 102 3 0 0 0"));
	fo.fail_readdir = NULL;
	assert_int_equal(daemon_restore(&d), 0);
	assert_int_equal(sched_of(102).policy, SCHED_OTHER);
}

/* The kernel's %*pb of the CPUs in cpus (ending with -1), nbits wide */
static const char *hex_mask(const int *cpus, int nbits)
{
	static char buf[FT_ATTR_MAX];
	uint32_t w[8192 / 32] = { 0 };
	int i, n = (nbits + 31) / 32;
	size_t len = 0;

	for (i = 0; cpus[i] >= 0; i++)
		w[cpus[i] / 32] |= 1u << (cpus[i] % 32);
	for (i = n - 1; i >= 0; i--)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%08x",
				i == n - 1 ? "" : ",", w[i]);
	return buf;
}

/*
 * Issue 30.5: a cpumask saved as the original on a machine with many
 * CPUs comes back as it was, not cut at a buffer's end.
 */
static void cpumask_round_trip(int nbits, const int *cpus)
{
	char path[300], orig[FT_ATTR_MAX];

	ft_wq(&ft, "tty_flip", true);
	snprintf(orig, sizeof(orig), "%s", hex_mask(cpus, nbits));
	ft_set(&ft, "tty_flip", "cpumask", orig);
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	start("[wq:tty_flip]\ncpumask = 0-1\n");
	assert_int_equal(daemon_use_state(&d, path), 0);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_not_equal(ft_get(&ft, "tty_flip", "cpumask"), orig);
	/* a crash, and a restart with no rule for it: the original goes back */
	restart("[global]\n", path);
	assert_int_equal(daemon_scan(&d), 0);
	assert_string_equal(ft_get(&ft, "tty_flip", "cpumask"), orig);
	assert_int_equal(access(path, F_OK), -1);
}

static void test_cpumask_round_trip_1024(void **state)
{
	static const int cpus[] = { 0, 900, 1000, -1 };

	(void)state;
	cpumask_round_trip(1024, cpus);
}

static void test_cpumask_round_trip_4096(void **state)
{
	static const int cpus[] = { 0, 900, 1000, 2047, 4095, -1 };

	(void)state;
	cpumask_round_trip(4096, cpus);
}

static double secs_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) + (b.tv_nsec - a->tv_nsec) / 1e9;
}

#define BIG_WQS 1000
#define BIG_WORKERS 3 /* per workqueue's pool, and its rescuer: 4000 */

/*
 * Issue 16.9: a pass over 1000 workqueues and 4000 kworkers with the
 * originals kept (RUNTIME_DIRECTORY set) builds the originals file once
 * before the workqueues' writes and once before the kworkers' (their
 * plans need the pools those writes give), not once per workqueue and
 * kworker; an idle pass and a put-back of drift never. Pass times are
 * printed as a diagnostic, never asserted.
 */
static void test_big_tree_saves_per_pass(void **state)
{
	char path[300], name[16], comm[48], ids[32];
	unsigned long saves;
	struct timespec t;
	struct sched_val v = { SCHED_OTHER, 0, 0, 0 };
	int i, j;

	(void)state;
	for (i = 0; i < BIG_WQS; i++) {
		snprintf(name, sizeof(name), "w%03d", i);
		ft_wq(&ft, name, true);
		snprintf(ids, sizeof(ids), "0:%d", 10 + i);
		ft_set(&ft, name, "pool_ids", ids);
		snprintf(comm, sizeof(comm), "kworker/R-%s", name);
		ft_task(&ft, 10000 + i, 2, comm, SCHED_OTHER, 0, 0, 1 + i);
		for (j = 0; j < BIG_WORKERS; j++) {
			snprintf(comm, sizeof(comm), "kworker/u%d:%d", 10 + i,
				 j);
			ft_task(&ft, 20000 + BIG_WORKERS * i + j, 2, comm,
				SCHED_OTHER, 0, 0, 5000 + i);
		}
	}
	snprintf(path, sizeof(path), "%s/originals", ft.root);
	start("[wq:w*]\npolicy = fifo\nrtprio = 10\n");
	assert_int_equal(daemon_use_state(&d, path), 0);

	saves = d.state.saves;
	clock_gettime(CLOCK_MONOTONIC, &t);
	assert_int_equal(daemon_scan(&d), 0);
	print_message("first pass: %.3f s, %lu save(s)\n", secs_since(&t),
		      d.state.saves - saves);
	assert_int_equal(d.state.saves - saves, 2);
	assert_int_equal(d.nwqs, BIG_WQS);
	assert_int_equal(d.nkws, BIG_WQS * (1 + BIG_WORKERS));
	assert_string_equal(ft_get(&ft, "w999", "policy"), "fifo");
	assert_int_equal(sched_of(10000 + BIG_WQS - 1).rtprio, 10);
	assert_int_equal(sched_of(20000 + BIG_WORKERS * BIG_WQS - 1).rtprio,
			 10);

	saves = d.state.saves;
	clock_gettime(CLOCK_MONOTONIC, &t);
	assert_int_equal(daemon_scan(&d), 0);
	print_message("idle pass: %.3f s, %lu save(s)\n", secs_since(&t),
		      d.state.saves - saves);
	assert_int_equal(d.state.saves, saves);

	/* someone puts every rescuer back: the originals are known */
	for (i = 0; i < BIG_WQS; i++)
		fo.ops.sched_set(fo.ops.ctx, 10000 + i, &v);
	saves = d.state.saves;
	assert_int_equal(daemon_scan(&d), 0);
	assert_int_equal(d.state.saves, saves);
	assert_int_equal(sched_of(10000).rtprio, 10);

	/* a crash, a restart: 2000 originals are taken over, none saved */
	restart("[wq:w*]\npolicy = fifo\nrtprio = 10\n", path);
	saves = d.state.saves;
	clock_gettime(CLOCK_MONOTONIC, &t);
	assert_int_equal(daemon_scan(&d), 0);
	print_message("pass after a restart: %.3f s, %lu save(s)\n",
		      secs_since(&t), d.state.saves - saves);
	assert_int_equal(d.state.saves, saves);
	assert_int_equal(d.state.n, 0);
	assert_int_equal(d.state.nk, 0);

	/* stop: everything back, the file gone, in one save */
	saves = d.state.saves;
	clock_gettime(CLOCK_MONOTONIC, &t);
	assert_int_equal(daemon_restore(&d), 0);
	print_message("restore: %.3f s, %lu save(s)\n", secs_since(&t),
		      d.state.saves - saves);
	assert_int_equal(d.state.saves - saves, 1);
	assert_string_equal(ft_get(&ft, "w999", "policy"), "normal");
	assert_int_equal(sched_of(10000 + BIG_WQS - 1).policy, SCHED_OTHER);
	assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_restart_keeps_originals),
		T(test_kworker_originals_survive_restart),
		T(test_kworker_originals_rule_dropped),
		T(test_kworker_originals_pid_reused),
		T(test_originals_saved_before_write),
		T(test_originals_saved_before_write_on_events),
		T(test_failed_put_back_keeps_original),
		T(test_failed_listing_keeps_originals),
		T(test_idle_scan_saves_nothing),
		T(test_big_tree_saves_per_pass),
		T(test_save_fails_closed),
		T(test_other_boot_originals_refused),
		T(test_restore_failed_listing_keeps_file),
		T(test_save_fails_closed_on_events),
		T(test_lstat_error_is_failed_listing),
		T(test_proc_readdir_error_is_failed_listing),
		T(test_cpumask_round_trip_1024),
		T(test_cpumask_round_trip_4096),
#undef T
	};

	return cmocka_run_group_tests_name("originals", tests, NULL, NULL);
}
