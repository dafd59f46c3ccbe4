// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_flush - out-of-tree test module for flush_workqueue() correctness
 * (selftests/wqrt/wq_flush.c).
 *
 * flush_workqueue() must not return before every work item queued before
 * it was called has finished. The series makes a flush visit only the pwqs
 * active since the last flush; a work item queued on a pwq that went idle
 * must then never be stamped with a work color that a flush has already
 * retired. This module hammers that from many kthreads and checks it with
 * sequence numbers.
 *
 * Workqueues: wqrt_flush_unbound (WQ_UNBOUND | WQ_SYSFS, so that the test
 * can change its attributes, and thus release its pwqs, while flushes are
 * in flight), a per-cpu one and an ordered one.
 *
 * /sys/kernel/debug/wqrt_flush/run: write
 *
 *   "mode=seq|cascade|barrier wq=percpu|unbound|ordered secs=T
 *    [threads=N] [items=K] [delay_us=D] [hop=1] [pair=1] [chains=C]
 *    [chain_len=L] [chain_us=U]"
 *
 * and read back one summary line (the write returns when the run is over):
 *
 * seq      N kthreads each queue 1..K items (on a random online CPU for the
 *          per-cpu workqueue, a random possible CPU for the unbound one,
 *          so that pwqs keep going idle and active again), then
 *          flush_workqueue() and check that each of their items has
 *          finished ("late" counts those that had not), and that every
 *          other thread has completed at least as many items as it had
 *          queued when the flush started ("cross_late").
 * cascade  the same with N (default 2 * WORK_NR_COLORS) threads, one slow
 *          item each, so that more flushes are in flight than there are
 *          work colors: the overflow queue and the cascade of colors run;
 *          "max_flushers" is the most flushes seen in flight at once.
 * barrier  N threads queue an item and flush_work() it ("barrier_late":
 *          not finished after flush_work()), while one more thread queues
 *          self-requeueing chains on a workqueue of its own type and
 *          drain_workqueue()s it ("drain_late": chain links not run when
 *          the drain returned). Each of the chains (8, or C) has chain_len links
 *          (default 8) which take chain_us each (default 0); hop=1 queues
 *          each link on the next online CPU with queue_work_on(), so that
 *          every link changes pwq; pair=1 makes each chain two work items
 *          that queue each other (a work item that queues itself stays on
 *          the pool it runs on).
 *
 * Every item sleeps or spins up to delay_us (default 50) so that a flush
 * which returns early finds it unfinished. The line ends with
 * "result=PASS" or "result=FAIL".
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "wqrt_run.h"

#define RESULT_SIZE	1024
#define MAX_THREADS	64
#define MAX_ITEMS	16
#define CHAIN_LEN	8
#define NR_CHAINS	8

static struct workqueue_struct *wq_unbound, *wq_percpu, *wq_ordered;
static struct dentry *dbg_dir;
static DEFINE_MUTEX(run_mutex);
static char *last_result;

struct frun;

struct fitem {
	struct work_struct work;
	struct frun *run;
	struct fthread *owner;
	unsigned long seq;		/* set before queueing */
	unsigned long done_seq;		/* the item's seq once it ran */
	unsigned int delay_us;
};

struct fthread {
	struct frun *run;
	struct task_struct *task;
	int id;
	atomic_long_t queued;		/* items queued (queue_work returned) */
	atomic_long_t completed;	/* items that finished */
	struct fitem items[MAX_ITEMS];
};

struct fchain {
	struct work_struct work;
	struct work_struct other;	/* pair=1: the links alternate */
	struct workqueue_struct *wq;
	int left;
	bool hop;
	bool pair;
	unsigned int us;	/* each link takes this long */
	atomic_t *ran;
};

struct frun {
	int mode;
	bool hop;	/* drain chains: each link on another CPU */
	bool pair;	/* drain chains: two work items queue each other */
	unsigned int nchains, chain_len, chain_us;	/* drain chains */
	struct workqueue_struct *wq;
	const char *wq_key;
	int nthreads;
	int nitems;
	unsigned int delay_us;
	unsigned long deadline;
	struct fthread *th;

	atomic_long_t flushes;
	atomic_long_t items;
	atomic_long_t late;
	atomic_long_t cross_late;
	atomic_long_t barrier_late;
	atomic_long_t drains;
	atomic_long_t drain_late;
	atomic_t flushers;
	atomic_t max_flushers;
	atomic_t running;
	wait_queue_head_t done_wait;
};

enum { MODE_SEQ, MODE_CASCADE, MODE_BARRIER };

static void item_delay(unsigned int us)
{
	if (!us)
		return;
	if (us < 20)
		udelay(us);
	else
		usleep_range(us, us + us / 4 + 1);
}

static void fitem_fn(struct work_struct *work)
{
	struct fitem *it = container_of(work, struct fitem, work);

	item_delay(it->delay_us);
	atomic_long_inc(&it->owner->completed);
	/* pairs with the smp_load_acquire() in the checks */
	smp_store_release(&it->done_seq, it->seq);
}

static bool fitem_done(struct fitem *it)
{
	return smp_load_acquire(&it->done_seq) == it->seq;
}

/* a CPU whose pwq the item goes through, spread to make pwqs go idle */
static int pick_cpu(struct frun *r)
{
	const struct cpumask *mask;
	unsigned int n;
	int cpu;

	if (r->wq == wq_ordered)
		return WORK_CPU_UNBOUND;
	mask = r->wq == wq_unbound ? cpu_possible_mask : cpu_online_mask;
	n = cpumask_weight(mask);
	if (!n)
		return WORK_CPU_UNBOUND;
	cpu = cpumask_nth(get_random_u32_below(n), mask);
	return cpu < nr_cpu_ids ? cpu : WORK_CPU_UNBOUND;
}

static void queue_item(struct frun *r, struct fthread *t, struct fitem *it,
		       unsigned long seq)
{
	it->seq = seq;
	it->delay_us = r->delay_us ? get_random_u32_below(r->delay_us + 1) : 0;
	if (r->mode == MODE_CASCADE)
		it->delay_us = r->delay_us;
	if (!queue_work_on(pick_cpu(r), r->wq, &it->work)) {
		/* never pending here: it finished before being reused */
		pr_err_ratelimited("item %lu of thread %d was still pending\n", seq, t->id);
		atomic_long_inc(&r->late);
	}
	atomic_long_inc(&r->items);
}

static void note_flusher(struct frun *r, int delta)
{
	int now = atomic_add_return(delta, &r->flushers);
	int max = atomic_read(&r->max_flushers);

	while (now > max && !atomic_try_cmpxchg(&r->max_flushers, &max, now))
		;
}

/* seq and cascade: queue, flush_workqueue(), check */
static void flush_round(struct frun *r, struct fthread *t, unsigned long *seq)
{
	long snap[MAX_THREADS];
	int i, n, u;

	n = r->mode == MODE_CASCADE ? 1 : 1 + get_random_u32_below(r->nitems);
	for (i = 0; i < n; i++)
		queue_item(r, t, &t->items[i], ++*seq);
	atomic_long_add(n, &t->queued);

	/* what the others had queued before this flush */
	for (u = 0; u < r->nthreads; u++)
		snap[u] = atomic_long_read(&r->th[u].queued);

	note_flusher(r, 1);
	flush_workqueue(r->wq);
	note_flusher(r, -1);
	atomic_long_inc(&r->flushes);

	for (i = 0; i < n; i++) {
		if (fitem_done(&t->items[i]))
			continue;
		atomic_long_inc(&r->late);
		pr_err_ratelimited("%s/%s: item %lu of thread %d not finished after flush_workqueue()\n",
		       r->wq_key, r->mode == MODE_CASCADE ? "cascade" : "seq",
		       t->items[i].seq, t->id);
		/* let it finish before reusing it */
		flush_work(&t->items[i].work);
	}
	for (u = 0; u < r->nthreads; u++) {
		if (atomic_long_read(&r->th[u].completed) >= snap[u])
			continue;
		atomic_long_inc(&r->cross_late);
		pr_err_ratelimited("%s: thread %d had %ld items queued before a flush but %ld completed after it\n",
		       r->wq_key, u, snap[u],
		       atomic_long_read(&r->th[u].completed));
	}
}

/* barrier: queue, flush_work(), check */
static void barrier_round(struct frun *r, struct fthread *t,
			  unsigned long *seq)
{
	struct fitem *it = &t->items[get_random_u32_below(r->nitems)];

	queue_item(r, t, it, ++*seq);
	atomic_long_inc(&t->queued);
	flush_work(&it->work);
	atomic_long_inc(&r->flushes);
	if (!fitem_done(it)) {
		atomic_long_inc(&r->barrier_late);
		pr_err_ratelimited("%s: item %lu of thread %d not finished after flush_work()\n",
		       r->wq_key, it->seq, t->id);
		flush_work(&it->work);
	}
}

/* one link of a chain: count it, take its time, queue the next one */
static void chain_link(struct fchain *c, struct work_struct *work)
{
	struct work_struct *next = work;

	atomic_inc(c->ran);
	if (c->us)
		usleep_range(c->us, c->us + 10);
	if (--c->left <= 0)
		return;
	/*
	 * A work item that queues itself stays on the pool it runs on
	 * (__queue_work()'s non-reentrancy); two that queue each other go
	 * where they are sent.
	 */
	if (c->pair)
		next = work == &c->work ? &c->other : &c->work;
	if (c->hop) {
		/* the next link on the next online CPU's pwq */
		int cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);

		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
		queue_work_on(cpu, c->wq, next);
	} else {
		queue_work(c->wq, next);
	}
}

static void chain_fn(struct work_struct *work)
{
	chain_link(container_of(work, struct fchain, work), work);
}

static void chain_other_fn(struct work_struct *work)
{
	chain_link(container_of(work, struct fchain, other), work);
}

/* barrier: chains on a workqueue of their own, drained */
static void drain_rounds(struct frun *r)
{
	struct fchain chains[NR_CHAINS];
	struct workqueue_struct *wq;
	unsigned int flags;
	atomic_t ran;
	int i;

	if (r->wq == wq_percpu)
		flags = 0;
	else
		flags = WQ_UNBOUND;
	if (r->wq == wq_ordered)
		wq = alloc_ordered_workqueue("wqrt_flush_drain", 0);
	else
		wq = alloc_workqueue("wqrt_flush_drain", flags, 0);
	if (!wq) {
		atomic_long_inc(&r->drain_late);
		return;
	}
	while (time_before(jiffies, r->deadline)) {
		atomic_set(&ran, 0);
		for (i = 0; i < r->nchains; i++) {
			INIT_WORK_ONSTACK(&chains[i].work, chain_fn);
			INIT_WORK_ONSTACK(&chains[i].other, chain_other_fn);
			chains[i].wq = wq;
			chains[i].pair = r->pair;
			chains[i].left = r->chain_len;
			chains[i].hop = r->hop;
			chains[i].us = r->chain_us;
			chains[i].ran = &ran;
			queue_work(wq, &chains[i].work);
		}
		drain_workqueue(wq);
		atomic_long_inc(&r->drains);
		if (atomic_read(&ran) != r->nchains * r->chain_len) {
			atomic_long_inc(&r->drain_late);
			/* which chains: links left, or a link run twice */
			for (i = 0; i < r->nchains; i++)
				pr_err_ratelimited("%s: drain %ld: chain %d has %d of %d links left, %s\n",
				       r->wq_key, atomic_long_read(&r->drains),
				       i, READ_ONCE(chains[i].left), r->chain_len,
				       work_pending(&chains[i].work) ||
				       work_pending(&chains[i].other) ?
				       "pending" : "not pending");
			pr_err_ratelimited("%s: %d of %d chain links ran before drain_workqueue() returned\n",
			       r->wq_key, atomic_read(&ran),
			       r->nchains * r->chain_len);
		}
		for (i = 0; i < r->nchains; i++) {
			/*
			 * After a drain that returned early the chain goes
			 * on: wait for its last link, which queues nothing,
			 * before the stack it lives on is reused.
			 */
			do {
				flush_work(&chains[i].work);
				flush_work(&chains[i].other);
			} while (READ_ONCE(chains[i].left) > 0);
			flush_work(&chains[i].work);
			flush_work(&chains[i].other);
			destroy_work_on_stack(&chains[i].work);
			destroy_work_on_stack(&chains[i].other);
		}
		cond_resched();
	}
	destroy_workqueue(wq);
}

static int fthread_fn(void *arg)
{
	struct fthread *t = arg;
	struct frun *r = t->run;
	unsigned long seq = 0;

	if (r->mode == MODE_BARRIER && t->id == r->nthreads) {
		drain_rounds(r);
	} else {
		while (time_before(jiffies, r->deadline)) {
			if (r->mode == MODE_BARRIER)
				barrier_round(r, t, &seq);
			else
				flush_round(r, t, &seq);
			cond_resched();
		}
	}
	if (atomic_dec_and_test(&r->running))
		wake_up(&r->done_wait);
	return 0;
}

static int frun_parse(char *args, struct frun *r, unsigned int *secs)
{
	char *tok, *val;
	unsigned int v;

	r->mode = MODE_SEQ;
	r->hop = false;
	r->pair = false;
	r->nchains = NR_CHAINS;
	r->chain_len = CHAIN_LEN;
	r->chain_us = 0;
	r->wq = NULL;
	r->nthreads = 0;
	r->nitems = 4;
	r->delay_us = 50;
	*secs = 5;

	while ((tok = strsep(&args, " \t\n")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "mode")) {
			if (!strcmp(val, "seq"))
				r->mode = MODE_SEQ;
			else if (!strcmp(val, "cascade"))
				r->mode = MODE_CASCADE;
			else if (!strcmp(val, "barrier"))
				r->mode = MODE_BARRIER;
			else
				return -EINVAL;
		} else if (!strcmp(tok, "wq")) {
			if (!strcmp(val, "percpu"))
				r->wq = wq_percpu;
			else if (!strcmp(val, "unbound"))
				r->wq = wq_unbound;
			else if (!strcmp(val, "ordered"))
				r->wq = wq_ordered;
			else
				return -EINVAL;
			r->wq_key = r->wq == wq_percpu ? "percpu" :
				    r->wq == wq_unbound ? "unbound" : "ordered";
		} else {
			if (kstrtouint(val, 0, &v))
				return -EINVAL;
			if (!strcmp(tok, "secs") && v >= 1 && v <= 600)
				*secs = v;
			else if (!strcmp(tok, "threads") && v >= 1 &&
				 v < MAX_THREADS)
				r->nthreads = v;
			else if (!strcmp(tok, "items") && v >= 1 &&
				 v <= MAX_ITEMS)
				r->nitems = v;
			else if (!strcmp(tok, "delay_us") && v <= 100000)
				r->delay_us = v;
			else if (!strcmp(tok, "hop") && v <= 1)
				r->hop = v;
			else if (!strcmp(tok, "pair") && v <= 1)
				r->pair = v;
			else if (!strcmp(tok, "chain_len") && v >= 1 &&
				 v <= 100000)
				r->chain_len = v;
			else if (!strcmp(tok, "chain_us") && v <= 10000)
				r->chain_us = v;
			else if (!strcmp(tok, "chains") && v >= 1 &&
				 v <= NR_CHAINS)
				r->nchains = v;
			else
				return -EINVAL;
		}
	}
	if (!r->wq)
		return -EINVAL;
	if (!r->nthreads)
		r->nthreads = r->mode == MODE_CASCADE ? 2 * WORK_NR_COLORS : 8;
	if (r->mode == MODE_CASCADE && r->delay_us < 1000)
		r->delay_us = 2000;
	return 0;
}

static ssize_t run_flush_test(char *args, struct seq_buf *out)
{
	static const char * const modes[] = { "seq", "cascade", "barrier" };
	struct frun *r;
	unsigned int secs;
	int i, nt, ret;
	bool pass;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	ret = frun_parse(args, r, &secs);
	if (ret)
		goto out_free;
	/* barrier: one more thread drains */
	nt = r->nthreads + (r->mode == MODE_BARRIER);
	r->th = kvcalloc(nt, sizeof(*r->th), GFP_KERNEL);
	if (!r->th) {
		ret = -ENOMEM;
		goto out_free;
	}
	init_waitqueue_head(&r->done_wait);
	r->deadline = jiffies + secs * HZ;
	atomic_set(&r->running, nt);

	for (i = 0; i < nt; i++) {
		struct fthread *t = &r->th[i];
		int j;

		t->run = r;
		t->id = i;
		for (j = 0; j < MAX_ITEMS; j++) {
			INIT_WORK(&t->items[j].work, fitem_fn);
			t->items[j].run = r;
			t->items[j].owner = t;
		}
	}
	for (i = 0; i < nt; i++) {
		struct task_struct *task;

		task = kthread_run(fthread_fn, &r->th[i], "wqrt_flush/%d", i);
		if (IS_ERR(task)) {
			/* the ones not started count as finished */
			if (atomic_sub_and_test(nt - i, &r->running))
				wake_up(&r->done_wait);
			ret = PTR_ERR(task);
			break;
		}
	}
	wait_event(r->done_wait, !atomic_read(&r->running));
	/* nothing of ours may be left on the workqueue */
	flush_workqueue(r->wq);
	if (ret)
		goto out_free_th;

	pass = !atomic_long_read(&r->late) &&
	       !atomic_long_read(&r->cross_late) &&
	       !atomic_long_read(&r->barrier_late) &&
	       !atomic_long_read(&r->drain_late) &&
	       atomic_long_read(&r->flushes) > 0;
	seq_buf_printf(out,
		       "mode=%s wq=%s threads=%d secs=%u flushes=%ld items=%ld late=%ld cross_late=%ld barrier_late=%ld drains=%ld drain_late=%ld max_flushers=%d colors=%d result=%s\n",
		       modes[r->mode], r->wq_key, r->nthreads, secs,
		       atomic_long_read(&r->flushes),
		       atomic_long_read(&r->items),
		       atomic_long_read(&r->late),
		       atomic_long_read(&r->cross_late),
		       atomic_long_read(&r->barrier_late),
		       atomic_long_read(&r->drains),
		       atomic_long_read(&r->drain_late),
		       atomic_read(&r->max_flushers), WORK_NR_COLORS,
		       pass ? "PASS" : "FAIL");
out_free_th:
	kvfree(r->th);
out_free:
	kfree(r);
	return ret;
}

static int run_show(struct seq_file *m, void *v)
{
	mutex_lock(&run_mutex);
	if (last_result)
		seq_puts(m, last_result);
	mutex_unlock(&run_mutex);
	return 0;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, run_show, NULL, RESULT_SIZE);
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	return wqrt_run_write(&run_mutex, &last_result, RESULT_SIZE, ubuf, len,
			      256, run_flush_test);
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.read = seq_read,
	.write = run_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static void destroy_wqs(void)
{
	if (wq_unbound)
		destroy_workqueue(wq_unbound);
	if (wq_percpu)
		destroy_workqueue(wq_percpu);
	if (wq_ordered)
		destroy_workqueue(wq_ordered);
}

static int __init wqrt_flush_init(void)
{
	wq_unbound = alloc_workqueue("wqrt_flush_unbound",
				     WQ_UNBOUND | WQ_SYSFS, 0);
	wq_percpu = alloc_workqueue("wqrt_flush_percpu", 0, 0);
	wq_ordered = alloc_ordered_workqueue("wqrt_flush_ordered", 0);
	if (!wq_unbound || !wq_percpu || !wq_ordered) {
		destroy_wqs();
		return -ENOMEM;
	}
	dbg_dir = debugfs_create_dir("wqrt_flush", NULL);
	debugfs_create_file("run", 0644, dbg_dir, NULL, &run_fops);
	return 0;
}

static void __exit wqrt_flush_exit(void)
{
	debugfs_remove_recursive(dbg_dir);
	destroy_wqs();
	kfree(last_result);
}

module_init(wqrt_flush_init);
module_exit(wqrt_flush_exit);
MODULE_DESCRIPTION("wqrt: flush_workqueue() correctness under concurrent queueing");
MODULE_LICENSE("GPL");
