// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_test - out-of-tree helper module for the wqrt kselftests.
 *
 * Creates a few WQ_SYSFS workqueues that the tests drive through sysfs
 * (/sys/devices/virtual/workqueue/wqrt_test_*) and a debugfs directory,
 * /sys/kernel/debug/wqrt_test/, with control files:
 *
 *   info              read: which workqueues exist, ordered_sysfs=0|1,
 *                     series=0|1, rescuer_pid= (of wqrt_test_reclaim)
 *   probe_<key>       read: queue one item on <key>, wait, print the worker
 *                     that ran it: "pid= comm= policy= rtprio= nice= cpu="
 *                     <key>: unbound ordered reclaim twin cull fresh
 *                     system system_unbound
 *   burst             write "wq=<key> n=<N> hold_ms=<ms> [keep_ms=<ms>]":
 *                     queue N items that each block until all N run (or
 *                     hold_ms passes), then keep their worker keep_ms more;
 *                     read: summary line (result=PASS only if all N ran at
 *                     once) + one line per item
 *   ordered_check     write "n=<N> [wq=<key>] [delay_us=] [pause_every=]
 *                     [pause_us=] [timeout_s=]": N items on the ordered
 *                     workqueue, each checks it runs alone and in order;
 *                     read: summary line
 *   stress            write "secs=<T> [threads=<M>] [items=<K>]": M kthreads
 *                     queue/flush/cancel work on an unbound, a per-cpu and
 *                     an ordered workqueue for T seconds; read: counters
 *   cull_race         write "rounds= burst= kicks= churn= gap_us= idle_ms=
 *                     deadline_ms= serial=": drive the idle cull
 *                     concurrently with kicks on wqrt_test_cull; read:
 *                     counters incl. stranded
 *   recreate          write "fresh" or "wq=fresh [reclaim=1]": destroy and
 *                     re-create wqrt_test_fresh, so its attributes are again
 *                     the never-written defaults; reclaim=1 re-creates it
 *                     WQ_MEM_RECLAIM, with a rescuer whose pid it prints
 *   rescue            write "wq=<key> n= settle_ms= timeout_ms=": blockers
 *                     on <key> that only an item on wqrt_test_reclaim
 *                     releases; read: its latency and whether the rescuer
 *                     ran it
 *   pwq_hold          write "wq=<key>": one item runs and blocks, a second
 *                     waits behind it, both from CPU 0 (the workqueue must
 *                     run one at a time: ordered, or max_active 1)
 *   pwq_check         write anything: queue a third item from CPU 0, tell
 *                     whether it went to the second one's pwq
 *                     (same_pwq=1: the workqueue's pwqs were not
 *                     replaced since pwq_hold), release them all
 *   apply             write "wq=<key> [private=] [policy=] [rtprio=]
 *                     [nice=]": apply_workqueue_attrs() with attributes
 *                     allocated afresh, as a driver does
 *   show_kicked       write "wq=<key> [lead_us=]": a kthread on CPU 0
 *                     queues an item, one on CPU 1 prints the busy pools
 *                     (show_all_workqueues()) lead_us later, to the
 *                     kernel log
 *   wake_audit        write "wq=<key> pools=<id>,... n= hold_ms=
 *                     settle_ms=": a burst of n items; read: the wakeups of
 *                     the pools' idle workers by their own workers, and
 *                     how many of them were issued under a pool->lock
 *
 * Writes run synchronously (the write returns when the run is over) and
 * return -EINVAL for unknown or malformed parameters.  Every summary line
 * ends with "result=PASS" or "result=FAIL" so the tests need no knowledge
 * of the individual counters to decide, but the counters are all printed.
 *
 * Only exported symbols are used, some of them only where the test
 * kernels' debug knobs (kernel/variants/debug-knobs) export them: apply and
 * show_kicked fail with EOPNOTSUPP elsewhere, and wake_audit without
 * lockdep.  On a kernel without the wqrt series,
 * alloc_ordered_workqueue(WQ_SYSFS) WARNs and fails, so the ordered
 * workqueue is created with WQ_SYSFS only when the series is detected
 * (the unbound workqueue has a "policy" attribute; the series lets ordered
 * workqueues into sysfs before it adds "policy") or when the module
 * parameter ordered_sysfs=1 forces it. Then it must get sysfs: if it does
 * not, the module fails to load (-ENODEV) rather than leave the ordered
 * tests nothing to test.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/debug_locks.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/prio.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "wqrt_attrs.h"
#include "wqrt_run.h"

static int ordered_sysfs = -1;
module_param(ordered_sysfs, int, 0444);
MODULE_PARM_DESC(ordered_sysfs,
		 "create wqrt_test_ordered with WQ_SYSFS: -1 auto (series detected), 0 no, 1 yes");

/*
 * stall_cpu_s: writing N stalls the writer's CPU for N seconds (at most
 * 120), preemption off, on purpose: the test of the VM runner's stall
 * watchdog (selftests/vm/stall-demo.sh) needs a kernel that stops
 * reporting quiescent states and running its stopper, as a livelocked
 * real-time task would. Never on a machine that does real work.
 */
#define STALL_MAX_S	120

static int stall_cpu_set(const char *val, const struct kernel_param *kp)
{
	unsigned int secs;
	u64 end;
	int ret, cpu;

	ret = kstrtouint(val, 0, &secs);
	if (ret)
		return ret;
	if (secs > STALL_MAX_S)
		return -ERANGE;
	preempt_disable();
	cpu = smp_processor_id();
	pr_warn("stalling CPU %d for %u s on purpose (stall_cpu_s)\n", cpu,
		secs);
	end = ktime_get_mono_fast_ns() + (u64)secs * NSEC_PER_SEC;
	while (ktime_get_mono_fast_ns() < end)
		cpu_relax();
	preempt_enable();
	pr_info("CPU %d stalled %u s\n", cpu, secs);
	return 0;
}

static const struct kernel_param_ops stall_cpu_ops = {
	.set = stall_cpu_set,
	.get = param_get_uint,
};

static unsigned int stall_cpu_s;
module_param_cb(stall_cpu_s, &stall_cpu_ops, &stall_cpu_s, 0200);
MODULE_PARM_DESC(stall_cpu_s, "write N: stall this CPU N s, preemption off (the VM runner's stall test)");

#define WQRT_SYSFS_DIR "/sys/devices/virtual/workqueue/"
#define RESULT_SIZE 16384
#define MAX_BURST 256
#define MAX_ORDERED 200000
#define MAX_STRESS_THREADS 16
#define MAX_STRESS_ITEMS 64

/* ------------------------------------------------------------------ */
/* test workqueues                                                     */

struct twq {
	const char *key;
	const char *name;
	struct workqueue_struct *wq;
	bool owned;		/* created (and destroyed) by us */
	bool sysfs;
};

/* the first six are ours: destroy_all() destroys what of them exists */
static struct twq twqs[] = {
	{ .key = "unbound", .name = "wqrt_test_unbound", .owned = true },
	{ .key = "ordered", .name = "wqrt_test_ordered", .owned = true },
	{ .key = "reclaim", .name = "wqrt_test_reclaim", .owned = true },
	{ .key = "twin", .name = "wqrt_test_twin", .owned = true },
	{ .key = "cull", .name = "wqrt_test_cull", .owned = true },
	{ .key = "fresh", .name = "wqrt_test_fresh", .owned = true },
	{ .key = "system", .name = "system_wq" },
	{ .key = "system_unbound", .name = "system_unbound_wq" },
};

static struct twq *twq_find(const char *key)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(twqs); i++)
		if (twqs[i].wq && !strcmp(twqs[i].key, key))
			return &twqs[i];
	return NULL;
}

/* The series adds a "policy" attribute to unbound WQ_SYSFS workqueues. */
static bool series_detected(void)
{
	struct path path;

	if (kern_path(WQRT_SYSFS_DIR "wqrt_test_unbound/policy", 0, &path))
		return false;
	path_put(&path);
	return true;
}

static DEFINE_MUTEX(cmd_mutex);		/* one command at a time */
static struct dentry *dbg_dir;
static pid_t rescuer_pid;		/* of wqrt_test_reclaim */

/* ------------------------------------------------------------------ */
/* parameter parsing: "key=value key=value ..."                        */

struct kv {
	const char *key;
	const char **sval;	/* string value, or */
	unsigned int *uval;	/* unsigned value */
	unsigned int max;
};

static int parse_kv(char *buf, struct kv *kvs, int nkv)
{
	char *tok;

	buf = strim(buf);
	while ((tok = strsep(&buf, " \t\n")) != NULL) {
		char *val;
		int i;

		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		for (i = 0; i < nkv; i++)
			if (!strcmp(kvs[i].key, tok))
				break;
		if (i == nkv)
			return -EINVAL;
		if (kvs[i].sval) {
			*kvs[i].sval = val;
		} else {
			unsigned int v;

			if (kstrtouint(val, 0, &v) || v > kvs[i].max)
				return -EINVAL;
			*kvs[i].uval = v;
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* a worker's identity, as seen from inside a work item                */

struct wid {
	pid_t pid;
	char comm[TASK_COMM_LEN];
	int policy;
	int rtprio;
	int nice;
	int cpu;
};

static void wid_record(struct wid *w)
{
	w->pid = current->pid;
	get_task_comm(w->comm, current);
	w->policy = current->policy;
	w->rtprio = current->rt_priority;
	w->nice = task_nice(current);
	w->cpu = raw_smp_processor_id();
}

/* ------------------------------------------------------------------ */
/* probe_<key>                                                         */

struct probe_item {
	struct work_struct work;
	struct completion done;
	struct wid wid;
};

static void probe_fn(struct work_struct *work)
{
	struct probe_item *p = container_of(work, struct probe_item, work);

	wid_record(&p->wid);
	complete(&p->done);
}

static int probe_show(struct seq_file *m, void *v)
{
	struct twq *t = m->private;
	struct probe_item *p;
	int ret = 0;

	if (!t->wq)
		return -ENODEV;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	INIT_WORK(&p->work, probe_fn);
	init_completion(&p->done);
	queue_work(t->wq, &p->work);
	if (!wait_for_completion_timeout(&p->done, 30 * HZ)) {
		seq_printf(m, "wq=%s timeout=1 result=FAIL\n", t->name);
		/* still queued somewhere: wait for it before freeing */
		flush_work(&p->work);
		goto out;
	}
	flush_work(&p->work);
	seq_printf(m, "wq=%s pid=%d comm=%s policy=%d rtprio=%d nice=%d cpu=%d\n",
		   t->name, p->wid.pid, p->wid.comm, p->wid.policy,
		   p->wid.rtprio, p->wid.nice, p->wid.cpu);
out:
	kfree(p);
	return ret;
}

static int probe_open(struct inode *inode, struct file *file)
{
	return single_open(file, probe_show, inode->i_private);
}

static const struct file_operations probe_fops = {
	.owner = THIS_MODULE,
	.open = probe_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ------------------------------------------------------------------ */
/* result buffers of the write-to-run commands                         */

struct cmd {
	const char *name;
	ssize_t (*run)(char *args, struct seq_buf *out);
	char *result;
};

static int cmd_show(struct seq_file *m, void *v)
{
	struct cmd *c = m->private;

	mutex_lock(&cmd_mutex);
	if (c->result)
		seq_puts(m, c->result);
	mutex_unlock(&cmd_mutex);
	return 0;
}

static int cmd_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, cmd_show, inode->i_private, RESULT_SIZE);
}

static ssize_t cmd_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	struct cmd *c = ((struct seq_file *)file->private_data)->private;

	return wqrt_run_write(&cmd_mutex, &c->result, RESULT_SIZE, ubuf, len,
			      512, c->run);
}

static const struct file_operations cmd_fops = {
	.owner = THIS_MODULE,
	.open = cmd_open,
	.read = seq_read,
	.write = cmd_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ------------------------------------------------------------------ */
/* burst: N items that block until all N run at once                  */

struct burst_ctx {
	unsigned int n;
	unsigned int hold_ms;
	unsigned int keep_ms;
	atomic_t started;
	atomic_t running;
	atomic_t max_running;
	wait_queue_head_t wait;
};

struct burst_item {
	struct work_struct work;
	struct burst_ctx *ctx;
	ktime_t queued;
	s64 lat_ns;
	/* the worker existed when the item was queued: it never waited for one */
	bool worker_predates_item;
	struct wid wid;
};

static void burst_fn(struct work_struct *work)
{
	struct burst_item *it = container_of(work, struct burst_item, work);
	struct burst_ctx *ctx = it->ctx;
	int running, max;

	it->lat_ns = ktime_to_ns(ktime_sub(ktime_get(), it->queued));
	/* task start_time is CLOCK_MONOTONIC ns, the clock of ktime_get() */
	it->worker_predates_item = current->start_time < ktime_to_ns(it->queued);
	wid_record(&it->wid);

	running = atomic_inc_return(&ctx->running);
	max = atomic_read(&ctx->max_running);
	while (running > max &&
	       !atomic_try_cmpxchg(&ctx->max_running, &max, running))
		;
	atomic_inc(&ctx->started);
	wake_up_all(&ctx->wait);

	wait_event_timeout(ctx->wait,
			   atomic_read(&ctx->started) >= ctx->n,
			   msecs_to_jiffies(ctx->hold_ms));
	/* the worker stays busy, e.g. while a test watches its pool refill */
	if (ctx->keep_ms)
		msleep(ctx->keep_ms);
	atomic_dec(&ctx->running);
}

/*
 * Run a burst on @wq; fills @items (n entries).  Returns the number of
 * items that ran while all n were running at once (max concurrency).
 */
static int burst_run(struct workqueue_struct *wq, struct burst_item *items,
		     struct burst_ctx *ctx)
{
	unsigned int i;

	atomic_set(&ctx->started, 0);
	atomic_set(&ctx->running, 0);
	atomic_set(&ctx->max_running, 0);
	init_waitqueue_head(&ctx->wait);

	for (i = 0; i < ctx->n; i++) {
		INIT_WORK(&items[i].work, burst_fn);
		items[i].ctx = ctx;
		items[i].queued = ktime_get();
		queue_work(wq, &items[i].work);
	}
	for (i = 0; i < ctx->n; i++)
		flush_work(&items[i].work);
	return atomic_read(&ctx->max_running);
}

static ssize_t burst_cmd(char *args, struct seq_buf *out)
{
	const char *key = "unbound";
	unsigned int n = 8, hold_ms = 2000, keep_ms = 0;
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "n", NULL, &n, MAX_BURST },
		{ "hold_ms", NULL, &hold_ms, 60000 },
		{ "keep_ms", NULL, &keep_ms, 60000 },
	};
	struct burst_item *items;
	struct burst_ctx ctx = {};
	unsigned int i, j, distinct = 0;
	s64 max_lat = 0;
	struct twq *t;
	int maxrun;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || n == 0)
		return -EINVAL;
	t = twq_find(key);
	if (!t)
		return -EINVAL;

	items = kcalloc(n, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	ctx.n = n;
	ctx.hold_ms = hold_ms;
	ctx.keep_ms = keep_ms;
	maxrun = burst_run(t->wq, items, &ctx);

	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (items[j].wid.pid == items[i].wid.pid)
				break;
		if (j == i)
			distinct++;
		if (items[i].lat_ns > max_lat)
			max_lat = items[i].lat_ns;
	}
	seq_buf_printf(out,
		       "wq=%s n=%u started=%d max_concurrent=%d distinct=%u max_lat_us=%lld result=%s\n",
		       t->name, n, atomic_read(&ctx.started), maxrun, distinct,
		       max_lat / 1000, maxrun == n ? "PASS" : "FAIL");
	for (i = 0; i < n; i++)
		seq_buf_printf(out,
			       "item=%u pid=%d comm=%s policy=%d rtprio=%d nice=%d cpu=%d lat_us=%lld worker_predates_item=%d\n",
			       i, items[i].wid.pid, items[i].wid.comm,
			       items[i].wid.policy, items[i].wid.rtprio,
			       items[i].wid.nice, items[i].wid.cpu,
			       items[i].lat_ns / 1000,
			       items[i].worker_predates_item);
	kfree(items);
	return 0;
}

/* ------------------------------------------------------------------ */
/* rescue: blockers that only an item on a WQ_MEM_RECLAIM wq releases  */

struct rescue_ctx {
	struct completion release;
	atomic_t started;
	unsigned int timeout_ms;
};

struct rescue_blocker {
	struct work_struct work;
	struct rescue_ctx *ctx;
};

struct rescue_release {
	struct work_struct work;
	struct rescue_ctx *ctx;
	ktime_t queued;
	s64 lat_ns;
	struct wid wid;
};

static void rescue_block_fn(struct work_struct *work)
{
	struct rescue_blocker *b = container_of(work, struct rescue_blocker,
						work);

	atomic_inc(&b->ctx->started);
	wait_for_completion_timeout(&b->ctx->release,
				    msecs_to_jiffies(b->ctx->timeout_ms));
}

static void rescue_release_fn(struct work_struct *work)
{
	struct rescue_release *r = container_of(work, struct rescue_release,
						work);

	r->lat_ns = ktime_to_ns(ktime_sub(ktime_get(), r->queued));
	wid_record(&r->wid);
	complete_all(&r->ctx->release);
}

/*
 * n blockers on wq=KEY (default twin) wait for a release item queued on
 * wqrt_test_reclaim settle_ms later. When the blockers hold every worker of a
 * pool that the two workqueues share and no worker can be created, only the
 * rescuer of wqrt_test_reclaim can run the release item.
 */
static ssize_t rescue_cmd(char *args, struct seq_buf *out)
{
	const char *key = "twin";
	unsigned int n = 8, settle_ms = 300, timeout_ms = 30000;
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "n", NULL, &n, MAX_BURST },
		{ "settle_ms", NULL, &settle_ms, 10000 },
		{ "timeout_ms", NULL, &timeout_ms, 60000 },
	};
	struct rescue_blocker *blockers;
	struct rescue_release rel = {};
	struct rescue_ctx ctx = {};
	struct twq *t, *rec;
	unsigned int i;
	int started;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || n == 0)
		return -EINVAL;
	t = twq_find(key);
	rec = twq_find("reclaim");
	if (!t || !rec || t == rec)
		return -EINVAL;

	blockers = kcalloc(n, sizeof(*blockers), GFP_KERNEL);
	if (!blockers)
		return -ENOMEM;
	init_completion(&ctx.release);
	atomic_set(&ctx.started, 0);
	ctx.timeout_ms = timeout_ms;

	for (i = 0; i < n; i++) {
		INIT_WORK(&blockers[i].work, rescue_block_fn);
		blockers[i].ctx = &ctx;
		queue_work(t->wq, &blockers[i].work);
	}
	msleep(settle_ms);
	started = atomic_read(&ctx.started);

	INIT_WORK_ONSTACK(&rel.work, rescue_release_fn);
	rel.ctx = &ctx;
	rel.queued = ktime_get();
	queue_work(rec->wq, &rel.work);
	flush_work(&rel.work);
	destroy_work_on_stack(&rel.work);
	for (i = 0; i < n; i++)
		flush_work(&blockers[i].work);
	kfree(blockers);

	seq_buf_printf(out,
		       "blockers=%u started_before_release=%d release_lat_ms=%lld release_pid=%d release_comm=%s rescuer=%d\n",
		       n, started, rel.lat_ns / NSEC_PER_MSEC, rel.wid.pid,
		       rel.wid.comm, rel.wid.pid == rescuer_pid);
	return 0;
}

/* ------------------------------------------------------------------ */
/* ordered_check                                                       */

struct ord_ctx {
	atomic_t running;
	atomic_t executed;
	atomic_t conc_viol;
	atomic_t order_viol;
	atomic_t policy_changes;
	unsigned long last_seq;
	int last_policy;
	unsigned int delay_us;
	wait_queue_head_t wait;
};

struct ord_item {
	struct work_struct work;
	struct ord_ctx *ctx;
	unsigned long seq;
};

static void ord_fn(struct work_struct *work)
{
	struct ord_item *it = container_of(work, struct ord_item, work);
	struct ord_ctx *ctx = it->ctx;

	if (atomic_inc_return(&ctx->running) != 1)
		atomic_inc(&ctx->conc_viol);
	if (it->seq != READ_ONCE(ctx->last_seq) + 1)
		atomic_inc(&ctx->order_viol);
	WRITE_ONCE(ctx->last_seq, it->seq);
	if (current->policy != READ_ONCE(ctx->last_policy)) {
		WRITE_ONCE(ctx->last_policy, current->policy);
		atomic_inc(&ctx->policy_changes);
	}
	if (ctx->delay_us)
		udelay(ctx->delay_us);
	atomic_dec(&ctx->running);
	atomic_inc(&ctx->executed);
	wake_up_all(&ctx->wait);
}

static ssize_t ordered_cmd(char *args, struct seq_buf *out)
{
	const char *key = "ordered";
	unsigned int n = 10000, delay_us = 0, pause_every = 64, pause_us = 200;
	unsigned int timeout_s = 120;
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "n", NULL, &n, MAX_ORDERED },
		{ "delay_us", NULL, &delay_us, 10000 },
		{ "pause_every", NULL, &pause_every, MAX_ORDERED },
		{ "pause_us", NULL, &pause_us, 100000 },
		{ "timeout_s", NULL, &timeout_s, 3600 },
	};
	struct ord_item *items;
	struct ord_ctx *ctx;
	unsigned long i;
	ktime_t t0;
	bool ok, timed_out;
	struct twq *t;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || n == 0)
		return -EINVAL;
	t = twq_find(key);
	if (!t)
		return -EINVAL;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	items = kvcalloc(n, sizeof(*items), GFP_KERNEL);
	if (!ctx || !items) {
		kfree(ctx);
		kvfree(items);
		return -ENOMEM;
	}
	init_waitqueue_head(&ctx->wait);
	ctx->delay_us = delay_us;
	ctx->last_policy = -1;

	t0 = ktime_get();
	for (i = 0; i < n; i++) {
		INIT_WORK(&items[i].work, ord_fn);
		items[i].ctx = ctx;
		items[i].seq = i + 1;
		queue_work(t->wq, &items[i].work);
		if (pause_every && (i + 1) % pause_every == 0 && pause_us)
			usleep_range(pause_us, pause_us + pause_us / 4 + 1);
	}
	timed_out = !wait_event_timeout(ctx->wait,
					atomic_read(&ctx->executed) >= n,
					timeout_s * HZ);
	/* whatever happened, nothing may be left in flight when we free */
	flush_workqueue(t->wq);

	ok = !timed_out && atomic_read(&ctx->executed) == n &&
	     !atomic_read(&ctx->conc_viol) && !atomic_read(&ctx->order_viol) &&
	     ctx->last_seq == n;
	seq_buf_printf(out,
		       "wq=%s n=%u executed=%d concurrent=%d out_of_order=%d last_seq=%lu policy_changes=%d timed_out=%d elapsed_ms=%lld result=%s\n",
		       t->name, n, atomic_read(&ctx->executed),
		       atomic_read(&ctx->conc_viol),
		       atomic_read(&ctx->order_viol), ctx->last_seq,
		       atomic_read(&ctx->policy_changes), timed_out,
		       ktime_ms_delta(ktime_get(), t0), ok ? "PASS" : "FAIL");
	kvfree(items);
	kfree(ctx);
	return 0;
}

/* ------------------------------------------------------------------ */
/* stress: queue / flush / cancel from several kthreads                */

enum { SK_UNBOUND, SK_PERCPU, SK_ORDERED, SK_NR };
static const char * const sk_names[SK_NR] = { "unbound", "percpu", "ordered" };

struct stress_ctx;

struct stress_item {
	struct work_struct work;
	struct stress_ctx *ctx;
	int kind;
	atomic_t outstanding;	/* successful queues not yet run/cancelled */
	atomic_t busy;		/* ordered: queued and not yet finished */
	unsigned long seq;	/* ordered: global queue order */
};

struct stress_ctx {
	struct workqueue_struct *wq[SK_NR];
	unsigned int nthreads, nitems;
	unsigned long end;
	atomic_long_t queued[SK_NR];
	atomic_long_t executed[SK_NR];
	atomic_long_t cancelled[SK_NR];
	atomic_long_t flushes;
	atomic_long_t wq_flushes;
	atomic_long_t remote_queues;
	atomic_t dup;		/* ran more often than queued */
	atomic_t flush_viol;	/* flush/cancel returned with item still due */
	atomic_t ord_running;
	atomic_t ord_conc;
	atomic_t ord_order;
	unsigned long ord_last;
	spinlock_t ord_lock;	/* orders seq assignment with queueing */
	unsigned long ord_seq;
	struct stress_item *items;	/* nthreads * SK_NR * nitems */
	struct task_struct *tasks[MAX_STRESS_THREADS];
	struct completion started[MAX_STRESS_THREADS];
};

static void stress_fn(struct work_struct *work)
{
	struct stress_item *it = container_of(work, struct stress_item, work);
	struct stress_ctx *ctx = it->ctx;

	if (it->kind == SK_ORDERED) {
		if (atomic_inc_return(&ctx->ord_running) != 1)
			atomic_inc(&ctx->ord_conc);
		if (it->seq <= READ_ONCE(ctx->ord_last))
			atomic_inc(&ctx->ord_order);
		WRITE_ONCE(ctx->ord_last, it->seq);
	}
	if (atomic_dec_return(&it->outstanding) < 0) {
		atomic_inc(&ctx->dup);
		atomic_inc(&it->outstanding);
	}
	atomic_long_inc(&ctx->executed[it->kind]);
	if (!(get_random_u32() & 15))
		udelay(20);
	if (it->kind == SK_ORDERED) {
		atomic_dec(&ctx->ord_running);
		atomic_set_release(&it->busy, 0);
	}
}

static bool stress_queue(struct stress_ctx *ctx, struct stress_item *it)
{
	struct workqueue_struct *wq = ctx->wq[it->kind];
	bool queued = false;
	int cpu;

	if (it->kind == SK_ORDERED) {
		/* re-queue only after the previous run finished: seq is ours */
		if (atomic_read_acquire(&it->busy))
			return false;
		atomic_set(&it->busy, 1);
		atomic_inc(&it->outstanding);
		spin_lock(&ctx->ord_lock);
		it->seq = ++ctx->ord_seq;
		queued = queue_work(wq, &it->work);
		spin_unlock(&ctx->ord_lock);
		if (!queued) {
			/* cannot happen: busy was clear, so it was idle */
			atomic_dec(&it->outstanding);
			atomic_set(&it->busy, 0);
			atomic_inc(&ctx->dup);
		}
	} else if (it->kind == SK_PERCPU && (get_random_u32() & 1)) {
		/* pick a CPU that stays online while we queue on it */
		cpus_read_lock();
		cpu = cpumask_nth(get_random_u32_below(num_online_cpus()),
				  cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = raw_smp_processor_id();
		atomic_inc(&it->outstanding);
		queued = queue_work_on(cpu, wq, &it->work);
		cpus_read_unlock();
		if (queued)
			atomic_long_inc(&ctx->remote_queues);
		else
			atomic_dec(&it->outstanding);
	} else {
		atomic_inc(&it->outstanding);
		queued = queue_work(wq, &it->work);
		if (!queued)
			atomic_dec(&it->outstanding);
	}
	if (queued)
		atomic_long_inc(&ctx->queued[it->kind]);
	return queued;
}

static int stress_thread(void *arg)
{
	struct stress_ctx *ctx = arg;
	struct stress_item *mine;
	unsigned int idx = 0, iter = 0;
	int i;

	for (i = 0; i < ctx->nthreads; i++)
		if (ctx->tasks[i] == current)
			idx = i;
	mine = &ctx->items[idx * SK_NR * ctx->nitems];
	complete(&ctx->started[idx]);

	while (!kthread_should_stop() && time_before(jiffies, ctx->end)) {
		unsigned int r = get_random_u32();
		int kind = r % SK_NR;
		struct stress_item *it = &mine[kind * ctx->nitems +
					       (r >> 8) % ctx->nitems];
		unsigned int op = (r >> 20) % 16;

		if (op < 11) {
			stress_queue(ctx, it);
		} else if (op < 13) {
			stress_queue(ctx, it);
			flush_work(&it->work);
			atomic_long_inc(&ctx->flushes);
			/* we own @it: after flush_work() nothing may be due */
			if (atomic_read(&it->outstanding))
				atomic_inc(&ctx->flush_viol);
		} else if (op < 15) {
			if (cancel_work_sync(&it->work)) {
				atomic_dec(&it->outstanding);
				atomic_long_inc(&ctx->cancelled[it->kind]);
				if (it->kind == SK_ORDERED)
					atomic_set_release(&it->busy, 0);
			}
			if (atomic_read(&it->outstanding))
				atomic_inc(&ctx->flush_viol);
		} else if (!((r >> 24) & 7)) {
			flush_workqueue(ctx->wq[kind]);
			atomic_long_inc(&ctx->wq_flushes);
		}
		if (!(++iter % 32))
			usleep_range(50, 150);
		else
			cond_resched();
	}
	/* wait for kthread_stop() so the task_struct stays valid */
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static ssize_t stress_cmd(char *args, struct seq_buf *out)
{
	unsigned int secs = 10, threads = 4, items = 16;
	struct kv kvs[] = {
		{ "secs", NULL, &secs, 600 },
		{ "threads", NULL, &threads, MAX_STRESS_THREADS },
		{ "items", NULL, &items, MAX_STRESS_ITEMS },
	};
	long tq = 0, te = 0, tc = 0;
	struct stress_ctx *ctx;
	unsigned int i, nitems;
	int lost = 0, k, ret = 0;
	bool ok;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || !secs || !threads || !items)
		return -EINVAL;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->nthreads = threads;
	ctx->nitems = items;
	spin_lock_init(&ctx->ord_lock);
	nitems = threads * SK_NR * items;
	ctx->items = kvcalloc(nitems, sizeof(*ctx->items), GFP_KERNEL);
	ctx->wq[SK_UNBOUND] = alloc_workqueue("wqrt_stress_unbound", WQ_UNBOUND, 0);
	ctx->wq[SK_PERCPU] = alloc_workqueue("wqrt_stress_percpu", 0, 0);
	ctx->wq[SK_ORDERED] = alloc_ordered_workqueue("wqrt_stress_ordered", 0);
	if (!ctx->items || !ctx->wq[0] || !ctx->wq[1] || !ctx->wq[2]) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < nitems; i++) {
		struct stress_item *it = &ctx->items[i];

		INIT_WORK(&it->work, stress_fn);
		it->ctx = ctx;
		it->kind = (i / items) % SK_NR;
	}

	ctx->end = jiffies + secs * HZ;
	for (i = 0; i < threads; i++)
		init_completion(&ctx->started[i]);
	for (i = 0; i < threads; i++) {
		struct task_struct *tsk;

		tsk = kthread_create(stress_thread, ctx, "wqrt_stress/%u", i);
		if (IS_ERR(tsk)) {
			ret = PTR_ERR(tsk);
			ctx->end = jiffies;
			break;
		}
		get_task_struct(tsk);
		ctx->tasks[i] = tsk;
	}
	for (i = 0; i < threads && ctx->tasks[i]; i++)
		wake_up_process(ctx->tasks[i]);
	for (i = 0; i < threads && ctx->tasks[i]; i++)
		wait_for_completion(&ctx->started[i]);
	/* sleep through the run, then stop everybody */
	while (time_before(jiffies, ctx->end))
		msleep_interruptible(100);
	for (i = 0; i < threads && ctx->tasks[i]; i++) {
		kthread_stop(ctx->tasks[i]);
		put_task_struct(ctx->tasks[i]);
	}
	for (k = 0; k < SK_NR; k++)
		flush_workqueue(ctx->wq[k]);
	if (ret)
		goto out;

	for (i = 0; i < nitems; i++)
		if (atomic_read(&ctx->items[i].outstanding))
			lost++;
	for (k = 0; k < SK_NR; k++) {
		long q = atomic_long_read(&ctx->queued[k]);
		long e = atomic_long_read(&ctx->executed[k]);
		long c = atomic_long_read(&ctx->cancelled[k]);

		seq_buf_printf(out, "%s: queued=%ld executed=%ld cancelled=%ld%s\n",
			       sk_names[k], q, e, c,
			       q == e + c ? "" : " MISMATCH");
		tq += q;
		te += e;
		tc += c;
		if (q != e + c)
			lost++;
	}
	ok = !lost && !atomic_read(&ctx->dup) && !atomic_read(&ctx->flush_viol) &&
	     !atomic_read(&ctx->ord_conc) && !atomic_read(&ctx->ord_order) &&
	     tq > 0;
	seq_buf_printf(out,
		       "secs=%u threads=%u queued=%ld executed=%ld cancelled=%ld flushes=%ld wq_flushes=%ld remote=%ld lost=%d dup=%d flush_viol=%d ord_concurrent=%d ord_out_of_order=%d result=%s\n",
		       secs, threads, tq, te, tc,
		       atomic_long_read(&ctx->flushes),
		       atomic_long_read(&ctx->wq_flushes),
		       atomic_long_read(&ctx->remote_queues), lost,
		       atomic_read(&ctx->dup), atomic_read(&ctx->flush_viol),
		       atomic_read(&ctx->ord_conc), atomic_read(&ctx->ord_order),
		       ok ? "PASS" : "FAIL");
out:
	for (k = 0; k < SK_NR; k++)
		if (ctx->wq[k])
			destroy_workqueue(ctx->wq[k]);
	kvfree(ctx->items);
	kfree(ctx);
	return ret;
}

/* ------------------------------------------------------------------ */
/* cull_race: idle cull concurrently with kicks                        */

struct kick_item {
	struct work_struct work;
	struct completion done;
	ktime_t queued;
	s64 lat_ns;
};

static void kick_fn(struct work_struct *work)
{
	struct kick_item *it = container_of(work, struct kick_item, work);

	it->lat_ns = ktime_to_ns(ktime_sub(ktime_get(), it->queued));
	complete(&it->done);
}

struct churn_item {
	struct work_struct work;
	unsigned int sleep_us;
};

static void churn_fn(struct work_struct *work)
{
	struct churn_item *it = container_of(work, struct churn_item, work);

	if (it->sleep_us)
		usleep_range(it->sleep_us, it->sleep_us + 50);
}

static void nudge_fn(struct work_struct *work)
{
}

struct kick_tally {
	unsigned long total, stranded, late_recovered;
	s64 max_lat;
};

/*
 * Wait for @k until @deadline_ms. A kick that has not run by then was
 * stranded: its worker was culled before it ran. Queue another item to
 * kick the pool again, which must unstick it. Counts @k in @tally.
 */
static void kick_check(struct workqueue_struct *wq, struct kick_item *k,
		       struct work_struct *nudge, unsigned int deadline_ms,
		       struct kick_tally *tally)
{
	unsigned long left = msecs_to_jiffies(deadline_ms);

	tally->total++;
	if (!wait_for_completion_timeout(&k->done, left)) {
		tally->stranded++;
		queue_work(wq, nudge);
		if (wait_for_completion_timeout(&k->done, left))
			tally->late_recovered++;
	}
	flush_work(&k->work);
	tally->max_lat = max(tally->max_lat, k->lat_ns);
}

static ssize_t cull_cmd(char *args, struct seq_buf *out)
{
	unsigned int rounds = 20, burst = 8, kicks = 16, churn = 4;
	unsigned int gap_us = 500, idle_ms = 20, deadline_ms = 2000, serial = 0;
	struct kv kvs[] = {
		{ "rounds", NULL, &rounds, 10000 },
		{ "burst", NULL, &burst, MAX_BURST },
		{ "kicks", NULL, &kicks, 1024 },
		{ "churn", NULL, &churn, 1024 },
		{ "gap_us", NULL, &gap_us, 1000000 },
		{ "idle_ms", NULL, &idle_ms, 600000 },
		{ "deadline_ms", NULL, &deadline_ms, 600000 },
		{ "serial", NULL, &serial, 1 },
	};
	struct workqueue_struct *wq;
	struct burst_item *bitems = NULL;
	struct kick_item *kitems = NULL;
	struct churn_item *citems = NULL;
	struct work_struct nudge;
	struct burst_ctx bctx = {};
	struct kick_tally tally = {};
	unsigned long new_workers = 0;
	pid_t max_pid = 0, round_max;
	unsigned int r, i;
	ktime_t t0;
	struct twq *t;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || !rounds || !burst || !kicks)
		return -EINVAL;
	t = twq_find("cull");
	if (!t)
		return -EINVAL;
	wq = t->wq;

	bitems = kcalloc(burst, sizeof(*bitems), GFP_KERNEL);
	kitems = kcalloc(kicks, sizeof(*kitems), GFP_KERNEL);
	citems = kcalloc(churn ?: 1, sizeof(*citems), GFP_KERNEL);
	if (!bitems || !kitems || !citems) {
		kfree(bitems);
		kfree(kitems);
		kfree(citems);
		return -ENOMEM;
	}
	INIT_WORK_ONSTACK(&nudge, nudge_fn);
	for (i = 0; i < churn; i++)
		INIT_WORK(&citems[i].work, churn_fn);

	t0 = ktime_get();
	for (r = 0; r < rounds; r++) {
		unsigned int span, c = 0;

		/* 1. grow the pool: @burst workers, all idle afterwards */
		bctx.n = burst;
		bctx.hold_ms = 5000;
		burst_run(wq, bitems, &bctx);
		/*
		 * Workers with a pid above any seen before were created for
		 * this burst: the cull took the previous round's workers.
		 */
		round_max = max_pid;
		for (i = 0; i < burst; i++) {
			if (bitems[i].wid.pid > max_pid)
				new_workers++;
			round_max = max(round_max, bitems[i].wid.pid);
		}
		max_pid = round_max;

		/*
		 * 2. sleep somewhere around the idle timeout, so the cull
		 *    timer fires during the kick phase in some rounds.
		 */
		span = idle_ms + get_random_u32_below(idle_ms + 1);
		msleep(span / 2 + 1);

		/*
		 * 3. kicks with random gaps, mixed with short churn items.
		 *    serial=1 waits for each kick before the next one, so
		 *    that no later kick can pick up a stranded item.
		 */
		for (i = 0; i < kicks; i++) {
			struct kick_item *k = &kitems[i];

			INIT_WORK(&k->work, kick_fn);
			init_completion(&k->done);
			k->lat_ns = -1;
			k->queued = ktime_get();
			queue_work(wq, &k->work);
			if (serial)
				kick_check(wq, k, &nudge, deadline_ms, &tally);
			if (c < churn && (get_random_u32() & 1)) {
				struct churn_item *ch = &citems[c++];

				ch->sleep_us = get_random_u32_below(2 * gap_us + 1);
				queue_work(wq, &ch->work);
			}
			if (gap_us) {
				unsigned int g = get_random_u32_below(gap_us + 1);

				if (g > 20)
					usleep_range(g, g + 10);
				else
					udelay(g);
			}
		}

		/* 4. every kick must have run by the deadline (serial: done) */
		for (i = 0; !serial && i < kicks; i++)
			kick_check(wq, &kitems[i], &nudge, deadline_ms, &tally);
		for (i = 0; i < c; i++)
			flush_work(&citems[i].work);
		flush_work(&nudge);
	}
	flush_workqueue(wq);
	destroy_work_on_stack(&nudge);

	seq_buf_printf(out,
		       "rounds=%u burst=%u serial=%u kicks=%lu stranded=%lu recovered_by_nudge=%lu new_workers=%lu max_lat_us=%lld idle_ms=%u deadline_ms=%u elapsed_ms=%lld result=%s\n",
		       rounds, burst, serial, tally.total, tally.stranded,
		       tally.late_recovered, new_workers, tally.max_lat / 1000,
		       idle_ms, deadline_ms,
		       ktime_ms_delta(ktime_get(), t0),
		       tally.stranded ? "FAIL" : "PASS");
	kfree(bitems);
	kfree(kitems);
	kfree(citems);
	return 0;
}

/* ------------------------------------------------------------------ */
/* pwq_hold / pwq_check: is an item queued on the pwq of earlier ones? */

/*
 * The pool_workqueue that a pending work item is queued on, from its data
 * word (WORK_STRUCT_PWQ and the pointer bits are in <linux/workqueue.h>),
 * or 0 when the item is not pending on a pwq.
 */
static unsigned long work_pwq(struct work_struct *work)
{
	unsigned long data = atomic_long_read(&work->data);

	return (data & WORK_STRUCT_PWQ) ? data & WORK_STRUCT_PWQ_MASK : 0;
}

struct pwq_probe {
	struct twq *t;
	struct work_struct blocker;	/* A: runs, holds the pwq's max_active */
	struct work_struct held;	/* B: pending behind A on the old pwq */
	struct work_struct later;	/* C: queued after the attribute write */
	struct completion release;
	struct completion started;
	unsigned long held_pwq;
};

static struct pwq_probe *pwq_probe;	/* cmd_mutex */

static void pwq_blocker_fn(struct work_struct *work)
{
	struct pwq_probe *pp = container_of(work, struct pwq_probe, blocker);

	complete(&pp->started);
	wait_for_completion_timeout(&pp->release, 60 * HZ);
}

static void pwq_nop_fn(struct work_struct *work)
{
}

/*
 * "wq=<key>": A runs and blocks, B waits behind it (the workqueue must let
 * one item run at a time: the ordered one, or an unbound one whose
 * max_active the test set to 1), both queued from CPU 0. B's pwq is kept
 * alive by B itself until pwq_check, so a pwq at the same address later is
 * the same pwq, not a new one in freed memory.
 */
static ssize_t pwq_hold_cmd(char *args, struct seq_buf *out)
{
	const char *key = "ordered";
	struct kv kvs[] = { { "wq", &key, NULL, 0 } };
	struct pwq_probe *pp;
	struct twq *t;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || pwq_probe)
		return -EINVAL;
	t = twq_find(key);
	if (!t)
		return -EINVAL;
	pp = kzalloc(sizeof(*pp), GFP_KERNEL);
	if (!pp)
		return -ENOMEM;
	pp->t = t;
	init_completion(&pp->release);
	init_completion(&pp->started);
	INIT_WORK(&pp->blocker, pwq_blocker_fn);
	INIT_WORK(&pp->held, pwq_nop_fn);
	INIT_WORK(&pp->later, pwq_nop_fn);
	queue_work_on(0, t->wq, &pp->blocker);
	wait_for_completion(&pp->started);
	queue_work_on(0, t->wq, &pp->held);
	pp->held_pwq = work_pwq(&pp->held);
	pwq_probe = pp;
	seq_buf_printf(out, "wq=%s held_pending=%d result=%s\n", t->name,
		       pp->held_pwq != 0, pp->held_pwq ? "PASS" : "FAIL");
	return 0;
}

/*
 * Queue C from CPU 0 and tell whether it went to B's pwq: after a write
 * that changed nothing, the workqueue must still be on the same pwqs. Then
 * release everything.
 */
static ssize_t pwq_check_cmd(char *args, struct seq_buf *out)
{
	struct pwq_probe *pp = pwq_probe;
	unsigned long later_pwq;
	bool held_pending;

	if (!pp)
		return -EINVAL;
	queue_work_on(0, pp->t->wq, &pp->later);
	later_pwq = work_pwq(&pp->later);
	held_pending = work_pending(&pp->held);
	complete(&pp->release);
	flush_work(&pp->blocker);
	flush_work(&pp->held);
	flush_work(&pp->later);
	seq_buf_printf(out,
		       "wq=%s held_pending=%d same_pwq=%d result=%s\n",
		       pp->t->name, held_pending,
		       later_pwq && later_pwq == pp->held_pwq,
		       held_pending && later_pwq == pp->held_pwq ?
		       "PASS" : "FAIL");
	pwq_probe = NULL;
	kfree(pp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* apply: apply_workqueue_attrs() as an in-kernel caller does          */

/*
 * "wq=<key> [private=0|1] [policy=0|1|2] [rtprio=N] [nice=N]": fresh
 * attributes, as a driver allocates them, with the given fields, applied.
 * A caller cannot read a workqueue's attributes back, so every apply
 * starts from the defaults. apply_workqueue_attrs() and the allocator are
 * not exported: a test kernel's debug knobs export them, elsewhere the
 * command fails with EOPNOTSUPP.
 */
struct apply_args {
	unsigned int private, policy, rtprio, nice;
};

static int apply_fill(struct workqueue_attrs *attrs, void *arg)
{
	struct apply_args *a = arg;

#ifdef WQRT_ATTRS_HAVE_POLICY
	attrs->policy = a->policy;
	attrs->rtprio = a->rtprio;
	attrs->private = a->private;
#else
	if (a->policy || a->rtprio || a->private)
		return -EOPNOTSUPP;
#endif
	attrs->nice = a->nice;
	return 0;
}

static ssize_t apply_cmd(char *args, struct seq_buf *out)
{
	struct apply_args a = {};
	const char *key = "unbound";
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "private", NULL, &a.private, 1 },
		{ "policy", NULL, &a.policy, SCHED_RR },
		{ "rtprio", NULL, &a.rtprio, MAX_RT_PRIO - 1 },
		{ "nice", NULL, &a.nice, MAX_NICE },
	};
	struct twq *t;
	int ret;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)))
		return -EINVAL;
	t = twq_find(key);
	if (!t || !t->owned)
		return -EINVAL;

	ret = wqrt_apply_attrs(t->wq, apply_fill, &a);
	if (ret == -EOPNOTSUPP)
		return ret;
	seq_buf_printf(out, "wq=%s applied=%d err=%d result=%s\n", t->name,
		       !ret, ret, ret ? "FAIL" : "PASS");
	return ret;
}

/* ------------------------------------------------------------------ */
/* show_kicked: the busy-pool dump while a kicked worker waits         */

struct show_ctx {
	struct workqueue_struct *wq;
	struct work_struct work;
	void (*show_all)(void);
	unsigned int lead_us;
	atomic_t queued;
	struct completion done[2];
};

static void show_nop_fn(struct work_struct *work)
{
}

static int show_queuer_fn(void *arg)
{
	struct show_ctx *c = arg;

	atomic_set(&c->queued, 1);
	queue_work_on(0, c->wq, &c->work);
	complete(&c->done[0]);
	return 0;
}

static int show_dumper_fn(void *arg)
{
	struct show_ctx *c = arg;

	while (!atomic_read(&c->queued))
		cpu_relax();
	udelay(c->lead_us);
	c->show_all();
	complete(&c->done[1]);
	return 0;
}

/*
 * "wq=<key> lead_us=N": a kthread on CPU 0 queues one item on <key>, one on
 * CPU 1 prints the busy pools lead_us later. With
 * workqueue.debug_wake_delay_us above lead_us, the worker kicked for the
 * item is claimed but not woken up yet when the dump is printed: the dump
 * must name it (read the kernel log). show_all_workqueues() is exported by
 * the test kernels' debug knobs only, elsewhere EOPNOTSUPP.
 */
static ssize_t show_kicked_cmd(char *args, struct seq_buf *out)
{
	const char *key = "unbound";
	unsigned int lead_us = 2000;
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "lead_us", NULL, &lead_us, 10000 },
	};
	struct task_struct *queuer, *dumper;
	struct show_ctx *c;
	struct twq *t;
	int ret = 0;

	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)))
		return -EINVAL;
	t = twq_find(key);
	if (!t || num_online_cpus() < 2 || !cpu_online(0) || !cpu_online(1))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->show_all = symbol_get(show_all_workqueues);
	if (!c->show_all) {
		kfree(c);
		return -EOPNOTSUPP;
	}
	c->wq = t->wq;
	c->lead_us = lead_us;
	INIT_WORK(&c->work, show_nop_fn);
	init_completion(&c->done[0]);
	init_completion(&c->done[1]);
	queuer = kthread_create_on_cpu(show_queuer_fn, c, 0, "wqrt_show_q/%u");
	dumper = kthread_create_on_cpu(show_dumper_fn, c, 1, "wqrt_show_d/%u");
	if (IS_ERR(queuer) || IS_ERR(dumper)) {
		/* a created, never woken kthread is stopped without running */
		if (!IS_ERR(queuer))
			kthread_stop(queuer);
		if (!IS_ERR(dumper))
			kthread_stop(dumper);
		ret = -ENOMEM;
		goto out;
	}
	wake_up_process(dumper);
	wake_up_process(queuer);
	wait_for_completion(&c->done[0]);
	wait_for_completion(&c->done[1]);
	flush_work(&c->work);
	seq_buf_printf(out, "wq=%s dumped=1 result=PASS\n", t->name);
out:
	symbol_put(show_all_workqueues);
	kfree(c);
	return ret;
}

/* ------------------------------------------------------------------ */
/* wake_audit: wakeups of a pool's idle workers under pool->lock       */

#define AUDIT_POOLS 8

static struct wake_audit {
	int pools[AUDIT_POOLS];
	int npools;
	atomic_t wakeups;	/* idle workers of the pools woken by their own */
	atomic_t under_lock;	/* ... while the waker held a pool->lock */
	struct tracepoint *tp;
} audit;

/* the N of "kworker/uN:M", or -1 */
static int comm_upool(const char *comm)
{
	int pool, id;

	if (sscanf(comm, "kworker/u%d:%d", &pool, &id) != 2)
		return -1;
	return pool;
}

static bool audited_pool(int pool)
{
	int i;

	for (i = 0; i < audit.npools; i++)
		if (audit.pools[i] == pool)
			return true;
	return false;
}

static bool holds_pool_lock(void)
{
#ifdef CONFIG_LOCKDEP
	int i;

	for (i = 0; i < current->lockdep_depth; i++) {
		const struct lockdep_map *map = current->held_locks[i].instance;

		if (map && map->name && !strcmp(map->name, "&pool->lock"))
			return true;
	}
#endif
	return false;
}

/*
 * sched_waking, called from try_to_wake_up() with the wakee's pi_lock held:
 * an idle worker (TASK_IDLE, in worker_thread(); a worker that was just
 * created waits in TASK_UNINTERRUPTIBLE instead) of an audited pool woken
 * up by a worker of an audited pool.
 */
static void audit_waking(void *data, struct task_struct *p)
{
	if (!(p->flags & PF_WQ_WORKER) || !(current->flags & PF_WQ_WORKER) ||
	    !(READ_ONCE(p->__state) & TASK_NOLOAD))
		return;
	if (!audited_pool(comm_upool(p->comm)) ||
	    !audited_pool(comm_upool(current->comm)))
		return;
	atomic_inc(&audit.wakeups);
	if (holds_pool_lock())
		atomic_inc(&audit.under_lock);
}

static void find_sched_waking(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_waking"))
		audit.tp = tp;
}

/*
 * "wq=<key> pools=<id>[,<id>...] n=<N> hold_ms=<ms> settle_ms=<ms>": count,
 * during a burst of N items on <key> and settle_ms after it, the wakeups
 * of idle workers of the listed pools that their own workers issue, and how
 * many of them while holding a pool->lock (lockdep's held locks: kernels
 * without lockdep count none, the command fails with EOPNOTSUPP there).
 */
static ssize_t wake_audit_cmd(char *args, struct seq_buf *out)
{
	const char *key = "twin", *pools = "";
	unsigned int n = 2, hold_ms = 1000, settle_ms = 500;
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "pools", &pools, NULL, 0 },
		{ "n", NULL, &n, MAX_BURST },
		{ "hold_ms", NULL, &hold_ms, 60000 },
		{ "settle_ms", NULL, &settle_ms, 60000 },
	};
	struct burst_item *items;
	struct burst_ctx ctx = {};
	char *list, *tok;
	struct twq *t;
	int maxrun, ret;

	if (!IS_ENABLED(CONFIG_LOCKDEP) || !debug_locks)
		return -EOPNOTSUPP;
	if (parse_kv(args, kvs, ARRAY_SIZE(kvs)) || n == 0)
		return -EINVAL;
	t = twq_find(key);
	if (!t)
		return -EINVAL;
	list = kstrdup(pools, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	audit.npools = 0;
	ret = 0;
	for (tok = list; tok && *tok;) {
		char *id = strsep(&tok, ",");

		if (audit.npools == AUDIT_POOLS ||
		    kstrtoint(id, 10, &audit.pools[audit.npools++]))
			ret = -EINVAL;
	}
	kfree(list);
	if (ret || !audit.npools)
		return -EINVAL;

	if (!audit.tp)
		for_each_kernel_tracepoint(find_sched_waking, NULL);
	if (!audit.tp)
		return -EOPNOTSUPP;
	items = kcalloc(n, sizeof(*items), GFP_KERNEL);
	if (!items)
		return -ENOMEM;
	atomic_set(&audit.wakeups, 0);
	atomic_set(&audit.under_lock, 0);
	ret = tracepoint_probe_register(audit.tp, audit_waking, NULL);
	if (ret) {
		kfree(items);
		return ret;
	}
	ctx.n = n;
	ctx.hold_ms = hold_ms;
	maxrun = burst_run(t->wq, items, &ctx);
	msleep(settle_ms);
	tracepoint_probe_unregister(audit.tp, audit_waking, NULL);
	tracepoint_synchronize_unregister();
	kfree(items);

	seq_buf_printf(out,
		       "wq=%s n=%u max_concurrent=%d wakeups=%d under_pool_lock=%d result=%s\n",
		       t->name, n, maxrun, atomic_read(&audit.wakeups),
		       atomic_read(&audit.under_lock),
		       atomic_read(&audit.under_lock) ? "FAIL" : "PASS");
	return 0;
}

/* ------------------------------------------------------------------ */
/* recreate: a workqueue whose attributes were never written           */

static pid_t find_rescuer(void);

static ssize_t recreate_cmd(char *args, struct seq_buf *out)
{
	struct workqueue_struct *wq;
	unsigned int reclaim = 0;
	const char *key = NULL;
	struct kv kvs[] = {
		{ "wq", &key, NULL, 0 },
		{ "reclaim", NULL, &reclaim, 1 },
	};
	struct twq *t;
	int ret;

	/* "fresh" alone, as before "wq=" existed */
	args = strim(args);
	if (!strcmp(args, "fresh")) {
		key = args;
	} else {
		ret = parse_kv(args, kvs, ARRAY_SIZE(kvs));
		if (ret)
			return ret;
	}
	t = key ? twq_find(key) : NULL;
	/* only the one nobody else relies on */
	if (!t || strcmp(t->key, "fresh"))
		return -EINVAL;
	wq = t->wq;
	t->wq = NULL;
	destroy_workqueue(wq);
	wq = alloc_workqueue("%s", WQ_UNBOUND | WQ_SYSFS |
			     (reclaim ? WQ_MEM_RECLAIM : 0), 0, t->name);
	t->wq = wq;
	if (!wq) {
		seq_buf_printf(out, "wq=%s recreated=0 result=FAIL\n", t->name);
		return -ENOMEM;
	}
	/* the newest kworker/R-wqrt_*: the rescuer just made */
	seq_buf_printf(out, "wq=%s recreated=1 reclaim=%u rescuer_pid=%d result=PASS\n",
		       t->name, reclaim, reclaim ? find_rescuer() : 0);
	return 0;
}

/* ------------------------------------------------------------------ */
/* info                                                                */

static bool ordered_has_sysfs;

/*
 * The rescuer of wqrt_test_reclaim is "kworker/R-wqrt_test_reclaim", which
 * the 16-byte comm truncates to "kworker/R-wqrt_".  Pick the newest such
 * kthread right after the workqueue was created: that one is ours.
 */
static pid_t find_rescuer(void)
{
	static const char prefix[] = "kworker/R-wqrt_";
	struct task_struct *p, *best = NULL;
	pid_t pid = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (!(p->flags & PF_KTHREAD) ||
		    strncmp(p->comm, prefix, sizeof(prefix) - 1))
			continue;
		if (!best || p->start_time > best->start_time)
			best = p;
	}
	if (best)
		pid = task_pid_nr(best);
	rcu_read_unlock();
	return pid;
}

static int info_show(struct seq_file *m, void *v)
{
	int i;

	seq_printf(m, "ordered_sysfs=%d\n", ordered_has_sysfs);
	seq_printf(m, "series=%d\n", series_detected());
	seq_printf(m, "rescuer_pid=%d\n", rescuer_pid);
	for (i = 0; i < ARRAY_SIZE(twqs); i++)
		if (twqs[i].wq)
			seq_printf(m, "wq %s %s sysfs=%d\n", twqs[i].key,
				   twqs[i].name, twqs[i].sysfs);
	return 0;
}

static int info_open(struct inode *inode, struct file *file)
{
	return single_open(file, info_show, NULL);
}

static const struct file_operations info_fops = {
	.owner = THIS_MODULE,
	.open = info_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/* ------------------------------------------------------------------ */

static struct cmd cmds[] = {
	{ .name = "burst", .run = burst_cmd },
	{ .name = "ordered_check", .run = ordered_cmd },
	{ .name = "stress", .run = stress_cmd },
	{ .name = "cull_race", .run = cull_cmd },
	{ .name = "recreate", .run = recreate_cmd },
	{ .name = "rescue", .run = rescue_cmd },
	{ .name = "pwq_hold", .run = pwq_hold_cmd },
	{ .name = "pwq_check", .run = pwq_check_cmd },
	{ .name = "apply", .run = apply_cmd },
	{ .name = "show_kicked", .run = show_kicked_cmd },
	{ .name = "wake_audit", .run = wake_audit_cmd },
};

static void destroy_all(void)
{
	int i;

	/* a pwq_hold without its pwq_check: let its items go */
	if (pwq_probe) {
		complete(&pwq_probe->release);
		flush_work(&pwq_probe->blocker);
		flush_work(&pwq_probe->held);
		kfree(pwq_probe);
		pwq_probe = NULL;
	}
	debugfs_remove_recursive(dbg_dir);
	dbg_dir = NULL;
	for (i = ARRAY_SIZE(twqs) - 1; i >= 0; i--) {
		if (twqs[i].owned && twqs[i].wq)
			destroy_workqueue(twqs[i].wq);
		twqs[i].wq = NULL;
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		kfree(cmds[i].result);
		cmds[i].result = NULL;
	}
}

static int __init wqrt_test_init(void)
{
	struct workqueue_struct *wq;
	bool osysfs;
	int i;

	wq = alloc_workqueue("wqrt_test_unbound", WQ_UNBOUND | WQ_SYSFS, 0);
	if (!wq)
		goto nomem;
	twqs[0].wq = wq;

	/*
	 * With the series (or when asked), the ordered workqueue must be in
	 * sysfs: the tests of ordered workqueues need it, and a module that
	 * quietly went without would turn them into skips. Fail the load
	 * instead, saying why.
	 */
	osysfs = ordered_sysfs < 0 ? series_detected() : ordered_sysfs;
	if (osysfs) {
		wq = alloc_ordered_workqueue("wqrt_test_ordered", WQ_SYSFS);
		if (!wq) {
			pr_err("alloc_ordered_workqueue(WQ_SYSFS) failed on a kernel with the series (or ordered_sysfs=1): not loading\n");
			destroy_all();
			return -ENODEV;
		}
	} else {
		wq = alloc_ordered_workqueue("wqrt_test_ordered", 0);
		if (!wq)
			goto nomem;
	}
	ordered_has_sysfs = osysfs;
	twqs[1].wq = wq;
	twqs[1].sysfs = osysfs;

	twqs[2].wq = alloc_workqueue("wqrt_test_reclaim",
				     WQ_UNBOUND | WQ_SYSFS | WQ_MEM_RECLAIM, 0);
	if (twqs[2].wq)
		rescuer_pid = find_rescuer();
	twqs[3].wq = alloc_workqueue("wqrt_test_twin", WQ_UNBOUND | WQ_SYSFS, 0);
	twqs[4].wq = alloc_workqueue("wqrt_test_cull", WQ_UNBOUND | WQ_SYSFS, 0);
	twqs[5].wq = alloc_workqueue("wqrt_test_fresh", WQ_UNBOUND | WQ_SYSFS, 0);
	if (!twqs[2].wq || !twqs[3].wq || !twqs[4].wq || !twqs[5].wq)
		goto nomem;
	twqs[0].sysfs = twqs[2].sysfs = twqs[3].sysfs = true;
	twqs[4].sysfs = twqs[5].sysfs = true;
	twqs[6].wq = system_wq;
	twqs[7].wq = system_unbound_wq;

	dbg_dir = debugfs_create_dir("wqrt_test", NULL);
	if (IS_ERR(dbg_dir)) {
		int err = PTR_ERR(dbg_dir);

		dbg_dir = NULL;
		destroy_all();
		return err;
	}
	debugfs_create_file("info", 0444, dbg_dir, NULL, &info_fops);
	for (i = 0; i < ARRAY_SIZE(twqs); i++) {
		char name[32];

		snprintf(name, sizeof(name), "probe_%s", twqs[i].key);
		debugfs_create_file(name, 0444, dbg_dir, &twqs[i], &probe_fops);
	}
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		debugfs_create_file(cmds[i].name, 0644, dbg_dir, &cmds[i],
				    &cmd_fops);

	pr_info("loaded: ordered_sysfs=%d\n", osysfs);
	return 0;

nomem:
	destroy_all();
	return -ENOMEM;
}

static void __exit wqrt_test_exit(void)
{
	destroy_all();
	pr_info("unloaded\n");
}

module_init(wqrt_test_init);
module_exit(wqrt_test_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wqrt workqueue selftest helper");
