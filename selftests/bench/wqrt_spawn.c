// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_spawn - kworkers born at a controlled rate, for wqrtd's reaction
 * time (make bench-reaction; not a test).
 *
 * A kthread allocates a WQ_MEM_RECLAIM workqueue every 1/rate seconds,
 * count times, and destroys each lifetime_ms after it was made. Each one
 * brings exactly one new kernel thread, its rescuer "kworker/R-<name>",
 * forked by kthreadd as every kworker is, on any 6.12 kernel: the plain
 * one (where wqrtd's [kworker:] rules must catch it) as well as the
 * patched one (where a [wq:] rule reaches it through the workqueue).
 *
 * Names are prefix + 3 hex digits ("ws" + "01f"): at most 5 bytes, so the
 * rescuer's name "kworker/R-ws01f" is never cut to 15 bytes and never
 * ambiguous between two live workqueues (4096 names, reused in turn).
 *
 * Parameters: rate (spawns/s), count, max_ms, lifetime_ms, unbound (WQ_UNBOUND),
 * sysfs (WQ_SYSFS: the workqueue in /sys/devices/virtual/workqueue, where
 * a [wq:] rule finds it), prefix. Read back under
 * /sys/module/wqrt_spawn/parameters/: done (1 once every workqueue was made
 * and destroyed), spawned, failed (allocations that failed), late (spawns
 * made more than a period behind their schedule), elapsed_ms (first spawn
 * to last).
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/sched.h>

static unsigned int rate = 10;
module_param(rate, uint, 0444);
MODULE_PARM_DESC(rate, "workqueues (rescuers) made per second");
static unsigned int count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "how many to make");
static unsigned int max_ms;
module_param(max_ms, uint, 0444);
MODULE_PARM_DESC(max_ms, "stop making them after this long, 0: never (a slow machine that cannot keep the rate ends on time)");
static unsigned int lifetime_ms = 200;
module_param(lifetime_ms, uint, 0444);
MODULE_PARM_DESC(lifetime_ms, "each is destroyed this long after it was made");
static bool unbound;
module_param(unbound, bool, 0444);
MODULE_PARM_DESC(unbound, "WQ_UNBOUND");
static bool sysfs;
module_param(sysfs, bool, 0444);
MODULE_PARM_DESC(sysfs, "WQ_SYSFS (implies unbound)");
static char *prefix = "ws";
module_param(prefix, charp, 0444);
MODULE_PARM_DESC(prefix, "name prefix, at most 2 bytes");

static int done;
module_param(done, int, 0444);
static unsigned int spawned, failed, late, elapsed_ms;
module_param(spawned, uint, 0444);
module_param(failed, uint, 0444);
module_param(late, uint, 0444);
module_param(elapsed_ms, uint, 0444);

struct live {
	struct workqueue_struct *wq;
	ktime_t born;
};

static struct task_struct *spawner;
static struct live *ring;
static unsigned int ring_size, head, nlive;

/* Destroy the oldest while it is due (or all of them: until = KTIME_MAX) */
static void reap(ktime_t until)
{
	while (nlive) {
		struct live *l = &ring[head];

		if (ktime_after(ktime_add_ms(l->born, lifetime_ms), until))
			return;
		destroy_workqueue(l->wq);
		l->wq = NULL;
		head = (head + 1) % ring_size;
		nlive--;
	}
}

static int spawn_fn(void *unused)
{
	unsigned int flags = WQ_MEM_RECLAIM, i, seq = 0;
	u64 period = NSEC_PER_SEC / rate;
	ktime_t start, next, now;
	struct live *l;

	if (unbound || sysfs)
		flags |= WQ_UNBOUND;
	if (sysfs)
		flags |= WQ_SYSFS;
	start = ktime_get();
	next = start;
	for (i = 0; i < count && !kthread_should_stop(); i++) {
		now = ktime_get();
		if (max_ms && ktime_ms_delta(now, start) >= max_ms)
			break;
		if (ktime_after(next, now)) {
			set_current_state(TASK_UNINTERRUPTIBLE);
			schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
		} else if (ktime_to_ns(ktime_sub(now, next)) > period) {
			late++;
		}
		next = ktime_add_ns(next, period);
		reap(ktime_get());
		if (nlive == ring_size) /* lifetime longer than the ring */
			reap(KTIME_MAX);
		l = &ring[(head + nlive) % ring_size];
		l->wq = alloc_workqueue("%s%03x", flags, 1, prefix,
					seq++ & 0xfff);
		if (!l->wq) {
			failed++;
			continue;
		}
		l->born = ktime_get();
		nlive++;
		spawned++;
	}
	elapsed_ms = ktime_ms_delta(ktime_get(), start);
	/* the last ones live their lifetime too */
	while (nlive && !kthread_should_stop()) {
		next = ktime_add_ms(ring[head].born, lifetime_ms);
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout(&next, HRTIMER_MODE_ABS);
		reap(ktime_get());
	}
	reap(KTIME_MAX);
	WRITE_ONCE(done, 1);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static int __init wqrt_spawn_init(void)
{
	if (!rate || rate > 100000 || !count || strlen(prefix) > 2)
		return -EINVAL;
	/* the live ones at most, and a margin for a late reaper */
	ring_size = min_t(u64, 4096, (u64)rate * lifetime_ms / 1000 * 2 + 16);
	ring = kcalloc(ring_size, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	spawner = kthread_run(spawn_fn, NULL, "wqrt_spawn");
	if (IS_ERR(spawner)) {
		kfree(ring);
		return PTR_ERR(spawner);
	}
	return 0;
}

static void __exit wqrt_spawn_exit(void)
{
	kthread_stop(spawner);
	reap(KTIME_MAX);
	kfree(ring);
}

module_init(wqrt_spawn_init);
module_exit(wqrt_spawn_exit);
MODULE_DESCRIPTION("wqrt: kworkers (rescuers) born at a controlled rate");
MODULE_LICENSE("GPL");
