// SPDX-License-Identifier: GPL-2.0
/*
 * wq_rt_exit - a worker with a real-time policy must not wait busily, on its
 * way out, for a task of lower priority.
 *
 * When a task exits, release_task() -> proc_flush_pid() ->
 * shrink_dcache_parent() walks /proc/PID/ again and again for as long as
 * another task is in the middle of killing one of its dentries, with nothing
 * in between but cond_resched(). A SCHED_NORMAL monitor that reads
 * /proc/PID/stat of kworkers (wqrtd does, so do ps and top) can be that
 * task. If the exiting worker is SCHED_FIFO and the monitor waits for the
 * same CPU, the monitor never runs again and the worker never stops walking:
 * seen in make check's e2e stage as RCU stalls and hung tasks until the VM's
 * timeout, with CPU 1 being taken offline at the time.
 *
 * Each test makes it happen on purpose, the way it was seen: every CPU but
 * CPU 0 offline, a worker W with SCHED_FIFO 50 on CPU 0, a child process
 * (SCHED_NORMAL, on CPU 0) that drops the dentry caches after W's
 * /proc/W/stat was read, and the debug knob dcache.debug_kill_hold_pid
 * (kernel/variants/debug-knobs), which holds the child's kill of that dentry
 * for HOLD_MS, as a preemption at that point would. While it is held the
 * test ends W's life: W's pool goes away (the workqueue moves to another
 * pool, which is what an attribute write, a CPU hotplug or the idle cull of
 * the pool's last workers does) or W's workqueue is destroyed (W is its
 * rescuer). The child must be done within SLACK_MS of the end of its hold:
 * a worker that went back to SCHED_NORMAL before exiting shares the CPU with
 * it. If it is not, the test, itself SCHED_FIFO 99 and asleep but for its
 * polls, raises the child above the worker so that the machine recovers,
 * and fails saying how long the child was kept off the CPU.
 *
 * The scheduler's two nets for starved fair tasks are off meanwhile, as on
 * many RT boards: RT throttling (kernel.sched_rt_runtime_us = -1) and the
 * fair server of CPU 0 (runtime 0). Either lets the child run for a slice
 * once the worker has had most of a period, which here ends the starvation
 * after about a second; in the e2e stage they did not end it in ten
 * minutes (on PREEMPT_RT the starved task then still has to take a d_lock
 * that the looping worker takes again and again, and an RT task takes an
 * rt_mutex ahead of a waiting fair one).
 *
 * WQRT_RT_EXIT_KEEP_NETS=1 leaves them as they are.
 *
 * The workqueues: the test module's, and the block layer's writeback (a
 * workqueue of the kernel's own, WQ_SYSFS and WQ_MEM_RECLAIM). Each test
 * runs WQRT_RT_EXIT_ROUNDS rounds (default 5; make rt-exit-repro runs 50).
 * Without the knobs (a board's kernel) the tests skip, saying so.
 */
#define _GNU_SOURCE
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define DCACHE_PARAM_DIR	"/sys/module/dcache/parameters"
#define HOLD_PID		DCACHE_PARAM_DIR "/debug_kill_hold_pid"
#define HOLD_MS_PARAM		DCACHE_PARAM_DIR "/debug_kill_hold_ms"
#define FRESH_NAME		"wqrt_test_fresh"
#define RT_RUNTIME		"/proc/sys/kernel/sched_rt_runtime_us"
#define CPU0_FAIR_RUNTIME	"/sys/kernel/debug/sched/fair_server/cpu0/runtime"

/* how long the child's kill of /proc/W/stat is held */
#define HOLD_MS		1000
/* how long after the hold the child may take to be done */
#define SLACK_MS	2000
/* the worker's priority, and the test's own while it waits (above it) */
#define WORKER_PRIO	50
#define WATCH_PRIO	99

static int rounds(void)
{
	const char *s = getenv("WQRT_RT_EXIT_ROUNDS");
	int n = s ? atoi(s) : 0;

	return n > 0 ? n : 5;
}

static int set_sched(pid_t pid, int policy, int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(pid, policy, &sp) ? -errno : 0;
}

FIXTURE(rt_exit) {
	struct wq_snap snap;
	int offline[64];
	int noffline;
	char rt_runtime[32];
	char fair_runtime[32];
	int kmsg;
	bool snapped;
	bool ready;
};

FIXTURE_VARIANT(rt_exit) {
	const char *wq;
	bool rescuer;
};

/* a worker of the test module's workqueue whose pool goes away */
FIXTURE_VARIANT_ADD(rt_exit, pool_release_module_wq) {
	.wq = WQ_UNBOUND_NAME,
};

/* a worker of the block layer's writeback whose pool goes away */
FIXTURE_VARIANT_ADD(rt_exit, pool_release_writeback) {
	.wq = "writeback",
};

/* the rescuer of a WQ_MEM_RECLAIM workqueue that is destroyed */
FIXTURE_VARIANT_ADD(rt_exit, rescuer_destroy) {
	.wq = FRESH_NAME,
	.rescuer = true,
};

FIXTURE_SETUP(rt_exit)
{
	char why[256];
	int cpu, n;

	self->kmsg = -1;
	if (wqrt_load_module(why, sizeof(why)))
		SKIP(return, "%s", why);
	if (!wqrt_exists(HOLD_PID) || !wqrt_exists(HOLD_MS_PARAM))
		SKIP(return, "kernel without the test knobs of kernel/variants/debug-knobs: no %s",
		     HOLD_PID);
	if (!wq_has(variant->wq, "policy"))
		SKIP(return, "%s has no policy attribute: a kernel without the series",
		     variant->wq);
	ASSERT_EQ(0, wq_snapshot(variant->wq, &self->snap));
	self->snapped = true;
	self->kmsg = kmsg_open_at_end();
	ASSERT_LE(0, self->kmsg);

	/* CPU 0 alone, as when CPU 1 was going down in the e2e stage */
	n = cpu_count_possible();
	for (cpu = 1; cpu < n && self->noffline < 64; cpu++) {
		char p[128], v[8];

		snprintf(p, sizeof(p), CPU_DIR "/cpu%d/online", cpu);
		if (!cpu_hotpluggable(cpu) || wqrt_read(p, v, sizeof(v)) < 0 ||
		    strcmp(v, "1"))
			continue;
		ASSERT_EQ(0, cpu_set_online(cpu, false)) {
			TH_LOG("cannot take CPU %d offline", cpu);
		}
		self->offline[self->noffline++] = cpu;
	}
	ASSERT_EQ(0, wqrt_pin(0));
	/* the nets off: a worker that loops keeps CPU 0 for itself */
	if (getenv("WQRT_RT_EXIT_KEEP_NETS")) {
		self->ready = true;
		return;
	}
	ASSERT_LT(0, wqrt_read(RT_RUNTIME, self->rt_runtime,
			       sizeof(self->rt_runtime)));
	ASSERT_EQ(0, wqrt_write(RT_RUNTIME, "-1"));
	if (wqrt_exists(CPU0_FAIR_RUNTIME)) {
		ASSERT_LT(0, wqrt_read(CPU0_FAIR_RUNTIME, self->fair_runtime,
				       sizeof(self->fair_runtime)));
		ASSERT_EQ(0, wqrt_write(CPU0_FAIR_RUNTIME, "0"));
	}
	self->ready = true;
}

FIXTURE_TEARDOWN(rt_exit)
{
	char reports[2048], out[256];
	int i;

	if (wqrt_exists(HOLD_PID))
		wqrt_write(HOLD_PID, "0");
	set_sched(0, SCHED_OTHER, 0);
	if (self->fair_runtime[0])
		EXPECT_EQ(0, wqrt_write(CPU0_FAIR_RUNTIME, self->fair_runtime));
	if (self->rt_runtime[0])
		EXPECT_EQ(0, wqrt_write(RT_RUNTIME, self->rt_runtime));
	for (i = 0; i < self->noffline; i++)
		EXPECT_EQ(0, cpu_set_online(self->offline[i], true));
	if (self->snapped)
		EXPECT_EQ(0, wq_snap_restore(variant->wq, &self->snap, NULL));
	if (variant->rescuer && self->ready)
		EXPECT_EQ(0, dbg_run("recreate", "fresh", out, sizeof(out)));
	if (self->kmsg >= 0) {
		EXPECT_EQ(0, kmsg_reports(self->kmsg, reports, sizeof(reports))) {
			TH_LOG("kernel reports: %s", reports);
		}
		close(self->kmsg);
	}
}

/*
 * A worker to end, with its workqueue's attributes set: the rescuer of a
 * re-created WQ_MEM_RECLAIM @wq, or the first worker of a pool of @wq's own
 * made afresh. Its pid, or -1 with the reason logged.
 */
static pid_t pick_worker(struct __test_metadata *_metadata, const char *wq,
			 bool rescuer)
{
	int ids[64], pids[16], n, i;
	char out[256];
	pid_t pid = -1;

	if (rescuer) {
		EXPECT_EQ(0, dbg_run("recreate", "wq=fresh reclaim=1", out,
				     sizeof(out)));
		pid = kv_long(out, "rescuer_pid", -1);
		EXPECT_LT(0, pid) {
			TH_LOG("no rescuer pid: %s", out);
		}
	}
	EXPECT_EQ(0, wq_set(wq, "policy", "fifo"));
	EXPECT_EQ(0, wq_set_int(wq, "rtprio", WORKER_PRIO));
	if (rescuer)
		return pid;
	EXPECT_EQ(0, wq_fresh_pool(wq, WQ_NICE_KEEP));
	n = wq_pool_ids(wq, ids, 64);
	EXPECT_LT(0, n) {
		TH_LOG("%s: no pool_ids", wq);
	}
	/* a new pool starts with one worker */
	for (i = 0; i < n; i++)
		if (pool_workers(ids[i], pids, 16) > 0)
			return pids[0];
	EXPECT_TRUE(false) {
		TH_LOG("%s: no worker in its pools", wq);
	}
	return -1;
}

/*
 * The reader: a child on CPU 0, SCHED_NORMAL, that drops the dentry caches
 * until its kill of /proc/W/stat was held (a pass that finds the dentry
 * recently used only ages it, and drop_caches stops passing when little is
 * freed). Exits 0 once the hold happened.
 */
static pid_t start_reader(void)
{
	pid_t pid = fork();
	char v[32];
	int i;

	if (pid)
		return pid;
	for (i = 0; i < 100; i++) {
		if (wqrt_write("/proc/sys/vm/drop_caches", "2"))
			_exit(1);
		if (wqrt_read(HOLD_PID, v, sizeof(v)) > 0 && !strcmp(v, "0"))
			_exit(0);
	}
	_exit(2);
}

/*
 * The end of W's life, in a child of its own (SCHED_NORMAL, CPU 0), so
 * that the test itself stays free to watch whatever that waits for: @wq
 * moves off W's pool, or W's workqueue is destroyed (re-created).
 */
static pid_t end_worker(const char *wq, bool rescuer)
{
	pid_t pid = fork();
	char out[256];
	int ret;

	if (pid)
		return pid;
	if (rescuer)
		ret = dbg_run("recreate", "fresh", out, sizeof(out));
	else
		ret = wq_set(wq, "private", "0");
	_exit(ret ? 1 : 0);
}

/* Wait for @pid until @deadline (wqrt_now()); its status, or -1. */
static int wait_until(pid_t pid, double deadline)
{
	int status;

	do {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		if (r < 0)
			return -1;
		wqrt_msleep(5);
	} while (wqrt_now() < deadline);
	return -1;
}

TEST_F_TIMEOUT(rt_exit, proc_reader_not_starved, 900)
{
	int n = rounds(), r;
	struct wqrt_sched_attr a;
	bool failed = false;
	char v[32];

	snprintf(v, sizeof(v), "%d", HOLD_MS);
	ASSERT_EQ(0, wqrt_write(HOLD_MS_PARAM, v));

	for (r = 1; r <= n; r++) {
		double held, done, deadline;
		pid_t w, child, ender;
		int status;

		w = pick_worker(_metadata, variant->wq, variant->rescuer);
		ASSERT_LT(0, w);
		/* the precondition: W runs with the pool's policy */
		ASSERT_EQ(0, wqrt_getattr(w, &a));
		ASSERT_EQ(SCHED_FIFO, (int)a.sched_policy) {
			TH_LOG("round %d: worker %d is not SCHED_FIFO", r, w);
		}
		ASSERT_EQ(WORKER_PRIO, (int)a.sched_priority);
		/* a dentry of /proc/W/ in the dcache, unused */
		ASSERT_NE(0, task_state(w));
		snprintf(v, sizeof(v), "%d", w);
		ASSERT_EQ(0, wqrt_write(HOLD_PID, v));

		child = start_reader();
		ASSERT_LT(0, child);
		/* children forked from here on are SCHED_NORMAL again */
		ASSERT_EQ(0, set_sched(0, SCHED_FIFO | SCHED_RESET_ON_FORK,
				       WATCH_PRIO));
		/* the child's kill of /proc/W/stat is held once the pid is 0 */
		deadline = wqrt_now() + 30;
		while (wqrt_read(HOLD_PID, v, sizeof(v)) > 0 && strcmp(v, "0") &&
		       wqrt_now() < deadline)
			wqrt_msleep(5);
		held = wqrt_now();
		ASSERT_STREQ("0", v) {
			TH_LOG("round %d: dropping the caches never killed /proc/%d/stat",
			       r, w);
		}

		/* end W's life while the kill is held */
		ender = end_worker(variant->wq, variant->rescuer);
		ASSERT_LT(0, ender);

		status = wait_until(child, held + (HOLD_MS + SLACK_MS) / 1e3);
		done = wqrt_now();
		if (status < 0) {
			/* starved: raise it above the worker, then fail */
			TH_LOG("round %d: the child is not done %.0f ms after its hold ended: raising it to SCHED_FIFO %d",
			       r, (done - held) * 1e3 - HOLD_MS, WATCH_PRIO - 1);
			EXPECT_EQ(0, set_sched(child, SCHED_FIFO, WATCH_PRIO - 1));
			status = wait_until(child, wqrt_now() + 30);
			TH_LOG("round %d: the child reading /proc/%d/ (SCHED_NORMAL, CPU 0) was not done %.0f ms after its hold ended; raised above the exiting worker, it was done %.0f ms later (status %d)",
			       r, w, (done - held) * 1e3 - HOLD_MS,
			       (wqrt_now() - done) * 1e3, status);
			failed = true;
		}
		EXPECT_EQ(0, status);
		/* whatever ended W's life is done too, or is stuck */
		status = wait_until(ender, wqrt_now() + 30);
		EXPECT_EQ(0, status) {
			TH_LOG("round %d: ending worker %d's life: %s", r, w,
			       status < 0 ? "stuck for 30 s" : "failed");
		}
		ASSERT_EQ(0, set_sched(0, SCHED_OTHER, 0));
		if (failed)
			break;
		TH_LOG("round %d: worker %d gone, the child done %.0f ms after its hold",
		       r, w, (done - held) * 1e3 - HOLD_MS);
	}
	EXPECT_FALSE(failed) {
		TH_LOG("an exiting worker with SCHED_FIFO %d kept a SCHED_NORMAL task off its CPU",
		       WORKER_PRIO);
	}
}

WQRT_HARNESS_MAIN_DISRUPTIVE("wqrt_test", DBG_DIR "/info",
			     "takes every CPU but CPU 0 offline and runs SCHED_FIFO workers there")
