// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_bench - workqueue benchmarks for wqrt (not tests: numbers only).
 *
 * Creates "wqrt_bench" (WQ_UNBOUND | WQ_SYSFS), whose attributes the runner
 * sets through sysfs, and an RT kthread_worker for comparison. Controlled
 * through /sys/kernel/debug/wqrt_bench/:
 *
 * latency  write "KIND PERIODS PERIOD_US": a hard hrtimer fires every
 *          PERIOD_US, PERIODS times, and hands one item each period to
 *          KIND (as a driver's interrupt handler would), from a ring of
 *          items; each item records the time from the expiry its period's
 *          timer was programmed for to its first line. KIND: "wq"
 *          (wqrt_bench), "hp" (wqrt_bench_hp, a per-cpu WQ_HIGHPRI
 *          workqueue: the timer's CPU's nice -20 pool), "kthread" (a FIFO
 *          50 kthread_worker) or "irqthread" (a FIFO 50 kthread the timer
 *          wakes, as a hard interrupt handler wakes its threaded handler).
 *          Read: one line per period, "LATENCY_NS TIMER_LATE_NS POLICY
 *          AGE_NS" (the latency, how late the timer callback queued the
 *          item, the policy of the task that ran it and how long ago that
 *          task was created) or "skip" (the period's slot was still in
 *          flight: a miss).
 * burst    write "K ROUNDS [WQ]": every round a FIFO 50 kthread queues K
 *          items at once on WQ (wqrt_bench, wqrt_bench_c0..17), each
 *          sleeping 2 ms, interrupts off from each item's stamp to its
 *          queue_work(), and each item records the time from its stamp to
 *          its start. Read: "LATENCY_NS POLICY AGE_NS", one item a line.
 * hog      write "PRIO CPU ON_US OFF_US": a SCHED_FIFO PRIO kthread bound
 *          to CPU spins ON_US and sleeps OFF_US, again and again, as a
 *          threaded interrupt handler under an interrupt storm does;
 *          "0 0 0 0" stops it.
 * flood    write "ITEMS SPIN_US PERIOD_US": a hard hrtimer queues ITEMS
 *          items on wqrt_bench_nb (the noisy neighbour) every PERIOD_US,
 *          each spinning SPIN_US (an item still pending is not queued
 *          again); "0 0 0" stops it.
 * enqueue  write "PRODUCERS ITEMS": PRODUCERS kthreads each queue ITEMS
 *          distinct work items as fast as they can (seed 000's method:
 *          8 x 200000). At most ENQ_MAX_PRODUCERS producers and
 *          ENQ_MAX_ITEMS items in all: every item is a work_struct and a
 *          u64 sample, allocated up front, item_bytes each (40 without
 *          lockdep, about twice that with it), so the bound is 160 MB
 *          (about 350 MB with lockdep) of the bench VM's 1 GiB
 *          (run-vm.sh's default); more is refused with -E2BIG and a line
 *          in the kernel log.
 *          Read: "items_per_sec N enq_p50_ns N enq_p99_ns N item_bytes N".
 * layout   write anything: queues one item on each online CPU in turn
 *          (queue_work_on(), so the item goes to the pool of that CPU's
 *          pod under the current affinity scope) and records the worker
 *          that ran it. Read: one line per CPU, "CPU COMM RAN_ON ALLOWED":
 *          unbound workers are named kworker/uPOOL_ID:N, so CPUs whose
 *          items went to the same POOL_ID share a pool.
 * flush    seed 003's flush rates, see the flush section below.
 * cost     what queue_work() and flushes execute, counted by the wqcount
 *          QEMU plugin, see the cost section below.
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/hrtimer.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/delay.h>
#include <linux/sort.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/cpumask.h>
#include <linux/cpu.h>
#include <linux/sched.h>
#include <linux/math64.h>
#include <uapi/linux/sched/types.h>

#define MAX_SAMPLES	100000
#define ENQ_MAX_PRODUCERS	64
#define ENQ_MAX_ITEMS		4000000

static struct workqueue_struct *bench_wq;
static struct kthread_worker *rt_worker;
static struct dentry *bench_dir;
static DEFINE_MUTEX(bench_mutex);

/* Results of the last run, one value per sample, read back by the runner. */
static u64 *samples;
static unsigned int nr_samples;
static char enqueue_result[128];

/* ---- periodic latency ---- */

/*
 * One work item per period, from a ring of LAT_SLOTS, so that a late item
 * never makes the next period wait for it (no coordinated omission): every
 * period of the run is counted. Each item carries the expiry its period's
 * timer was programmed for, and the latency is that expiry to the work
 * function's first line: the timer's own lateness included, as rtla
 * timerlat's thread latency is. A period whose slot is still in flight
 * LAT_SLOTS periods later is recorded as LAT_SKIP, a miss, never dropped.
 */
#define LAT_SLOTS	64
#define LAT_SKIP	U64_MAX

struct lat_item {
	struct work_struct work;
	struct kthread_work kwork;
	u64 expiry_ns;
	u64 queued_ns;
	unsigned int seq;
	/* queued and not yet started: the slot cannot take a new period */
	atomic_t inflight;
};

/* How a latency run hands its items on, see the latency command. */
enum lat_kind { LAT_WQ, LAT_HP, LAT_KTHREAD, LAT_IRQTHREAD };

static struct lat_item lat_items[LAT_SLOTS];
/* per period: how late the timer callback ran, when it queued the item */
static u64 *lat_timer_ns;
static struct hrtimer lat_timer;
static unsigned int lat_periods, lat_next;
static u64 lat_period_ns;
static enum lat_kind lat_kind;
/* per period: the policy of the task that ran the item, and its age */
static u8 *lat_policy;
static u64 *lat_age_ns;
/* irqthread: the periods posted so far, and the thread they wake */
static unsigned int lat_posted;
static struct task_struct *irq_thread;
static struct workqueue_struct *hp_wq;
/* the samples are a latency run's (two columns), not a burst's */
static bool lat_run;
static DECLARE_COMPLETION(lat_done);
static atomic_t lat_skips;

static void lat_record(struct lat_item *it)
{
	u64 now = ktime_get_ns();
	u64 expiry = READ_ONCE(it->expiry_ns);
	u64 queued = READ_ONCE(it->queued_ns);
	unsigned int seq = READ_ONCE(it->seq);

	/* from here on the slot may take a later period */
	atomic_set_release(&it->inflight, 0);
	samples[seq] = now - expiry;
	lat_timer_ns[seq] = queued - expiry;
	lat_policy[seq] = current->policy;
	lat_age_ns[seq] = now - current->start_time;
}

/*
 * The threaded handler: runs the periods the timer posted, in order, as
 * irq_thread() runs its handler once per wakeup. A period the timer had to
 * skip is not in its slot (an older one still is, or was).
 */
static int irq_thread_fn(void *arg)
{
	unsigned int next = 0;

	while (!kthread_should_stop()) {
		unsigned int posted;

		set_current_state(TASK_INTERRUPTIBLE);
		/* pairs with the timer's store: the slots' fields are set */
		posted = smp_load_acquire(&lat_posted);
		if (posted == next) {
			if (!kthread_should_stop())
				schedule();
			__set_current_state(TASK_RUNNING);
			continue;
		}
		__set_current_state(TASK_RUNNING);
		for (; next != posted; next++) {
			struct lat_item *it = &lat_items[next % LAT_SLOTS];

			if (atomic_read_acquire(&it->inflight) &&
			    READ_ONCE(it->seq) == next)
				lat_record(it);
		}
	}
	return 0;
}

/*
 * Make the new kthread @t SCHED_FIFO @prio and wake it, with a reference
 * for the caller, who stops it with kthread_stop() and then drops that
 * reference (the thread may have returned by then). On failure @t is
 * stopped before it ever ran.
 */
static int wake_fifo_kthread(struct task_struct *t, unsigned int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};
	int ret;

	ret = sched_setattr_nocheck(t, &attr);
	if (ret) {
		kthread_stop(t);
		return ret;
	}
	get_task_struct(t);
	wake_up_process(t);
	return 0;
}

/* A kthread's end: wait for kthread_stop(), which owns its reference. */
static void wait_for_kthread_stop(void)
{
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
}

/* The threaded handler of one irqthread run, FIFO 50 as irq threads are. */
static int start_irq_thread(void)
{
	struct task_struct *t;
	int ret;

	t = kthread_create(irq_thread_fn, NULL, "irq/wqrt_bench");
	if (IS_ERR(t))
		return PTR_ERR(t);
	ret = wake_fifo_kthread(t, 50);
	if (ret)
		return ret;
	irq_thread = t;
	return 0;
}

static void stop_irq_thread(void)
{
	kthread_stop(irq_thread);
	put_task_struct(irq_thread);
	irq_thread = NULL;
}

static void lat_work_fn(struct work_struct *work)
{
	lat_record(container_of(work, struct lat_item, work));
}

static void lat_kwork_fn(struct kthread_work *work)
{
	lat_record(container_of(work, struct lat_item, kwork));
}

static enum hrtimer_restart lat_timer_fn(struct hrtimer *t)
{
	unsigned int seq = lat_next++;
	struct lat_item *it = &lat_items[seq % LAT_SLOTS];
	bool queued = false;

	if (!atomic_cmpxchg_acquire(&it->inflight, 0, 1)) {
		/* the expiry this period was set for, not when we run */
		WRITE_ONCE(it->expiry_ns, ktime_to_ns(hrtimer_get_expires(t)));
		WRITE_ONCE(it->seq, seq);
		WRITE_ONCE(it->queued_ns, ktime_get_ns());
		switch (lat_kind) {
		case LAT_WQ:
			queued = queue_work(bench_wq, &it->work);
			break;
		case LAT_HP:
			queued = queue_work(hp_wq, &it->work);
			break;
		case LAT_KTHREAD:
			queued = kthread_queue_work(rt_worker, &it->kwork);
			break;
		case LAT_IRQTHREAD:
			/* irq_wake_thread(): post, then wake the handler */
			smp_store_release(&lat_posted, seq + 1);
			wake_up_process(irq_thread);
			queued = true;
			break;
		}
		if (!queued)
			atomic_set(&it->inflight, 0);
	} else if (lat_kind == LAT_IRQTHREAD) {
		/* the thread must still get past this period */
		smp_store_release(&lat_posted, seq + 1);
	}
	if (!queued) {
		samples[seq] = LAT_SKIP;
		atomic_inc(&lat_skips);
	}

	if (lat_next >= lat_periods) {
		complete(&lat_done);
		return HRTIMER_NORESTART;
	}
	/*
	 * The next period's expiry, one period on, even when this callback
	 * ran late: a period whose expiry has passed fires at once, so none
	 * is left out (hrtimer_forward_now() would skip them).
	 */
	hrtimer_add_expires_ns(t, lat_period_ns);
	return HRTIMER_RESTART;
}

/*
 * Run PERIODS periods; samples[i] is period i's latency or LAT_SKIP, and
 * lat_timer_ns[i] how late its timer callback ran (the part of the
 * latency that is not the workqueue's).
 */
static int run_latency(enum lat_kind kind, unsigned int periods,
		       unsigned int period_us)
{
	unsigned int i;

	if (!periods || periods > MAX_SAMPLES || period_us < 50)
		return -EINVAL;
	for (i = 0; i < periods; i++) {
		samples[i] = LAT_SKIP;
		lat_timer_ns[i] = 0;
		lat_policy[i] = 0;
		lat_age_ns[i] = 0;
	}
	for (i = 0; i < LAT_SLOTS; i++)
		atomic_set(&lat_items[i].inflight, 0);
	nr_samples = 0;
	lat_next = 0;
	lat_periods = periods;
	lat_period_ns = (u64)period_us * NSEC_PER_USEC;
	lat_kind = kind;
	WRITE_ONCE(lat_posted, 0);
	atomic_set(&lat_skips, 0);
	reinit_completion(&lat_done);
	if (kind == LAT_IRQTHREAD) {
		int ret = start_irq_thread();

		if (ret)
			return ret;
	}

	hrtimer_start(&lat_timer, ns_to_ktime(lat_period_ns),
		      HRTIMER_MODE_REL_HARD);
	wait_for_completion(&lat_done);
	hrtimer_cancel(&lat_timer);
	switch (kind) {
	case LAT_WQ:
		flush_workqueue(bench_wq);
		break;
	case LAT_HP:
		flush_workqueue(hp_wq);
		break;
	case LAT_KTHREAD:
		kthread_flush_worker(rt_worker);
		break;
	case LAT_IRQTHREAD:
		/* the thread is done once no slot is in flight */
		for (i = 0; i < LAT_SLOTS; i++)
			while (atomic_read_acquire(&lat_items[i].inflight))
				usleep_range(1000, 2000);
		stop_irq_thread();
		break;
	}
	nr_samples = periods;
	lat_run = true;
	return 0;
}

/* ---- burst latency ---- */

/*
 * K items at once, so that the pool needs K workers: the ones it has idle
 * (the one every pool keeps, a reserve, the ones a previous burst left
 * before the idle cull) and the ones it must create. They are queued from
 * a FIFO 50 kthread, as an RT driver's thread would, with interrupts off
 * from each item's stamp to its queue_work(), so that nothing but
 * queue_work() itself is between the two.
 */
/*
 * make bench-burst: two sets of 3 variants x 3 workqueues, each with a pool
 * of its own (private), used in alternate rounds (vm-burst.sh)
 */
#define NR_CULL_WQ	18

static struct workqueue_struct *cull_wq[NR_CULL_WQ];
static char cull_wq_name[NR_CULL_WQ][16];

struct burst_item {
	struct work_struct work;
	u64 queued_ns;
};

static struct burst_item *burst_items;
static u8 *burst_policy;
static u64 *burst_age_ns;

struct burst_run {
	struct workqueue_struct *wq;
	unsigned int k, rounds;
	struct completion done;
};

static void burst_work_fn(struct work_struct *work)
{
	struct burst_item *it = container_of(work, struct burst_item, work);
	u64 now = ktime_get_ns();
	unsigned int idx = nr_samples + (it - burst_items);

	/* Each item owns its slot: no lock needed. */
	samples[idx] = now - it->queued_ns;
	burst_policy[idx] = current->policy;
	burst_age_ns[idx] = now - current->start_time;
	/* Block like a driver waiting for hardware: others need workers. */
	usleep_range(2000, 2100);
}

static int burst_thread_fn(void *arg)
{
	struct burst_run *br = arg;
	unsigned long flags;
	unsigned int r, i;

	for (r = 0; r < br->rounds; r++) {
		for (i = 0; i < br->k; i++)
			INIT_WORK(&burst_items[i].work, burst_work_fn);
		for (i = 0; i < br->k; i++) {
			local_irq_save(flags);
			burst_items[i].queued_ns = ktime_get_ns();
			queue_work(br->wq, &burst_items[i].work);
			local_irq_restore(flags);
		}
		flush_workqueue(br->wq);
		nr_samples += br->k;
		/* Give the pool time to settle (and a reserve to refill). */
		if (r + 1 < br->rounds)
			msleep(50);
	}
	complete(&br->done);
	/* Stay until kthread_stop(): the runner owns our task reference. */
	wait_for_kthread_stop();
	return 0;
}

static struct workqueue_struct *burst_wq_by_name(const char *name)
{
	unsigned int i;

	if (!*name || !strcmp(name, "wqrt_bench"))
		return bench_wq;
	for (i = 0; i < NR_CULL_WQ; i++)
		if (!strcmp(name, cull_wq_name[i]))
			return cull_wq[i];
	return NULL;
}

static int run_burst(unsigned int k, unsigned int rounds, const char *wqname)
{
	struct burst_run br = { .k = k, .rounds = rounds };
	struct task_struct *t;
	int ret;

	if (!k || k > 256 || !rounds || (u64)k * rounds > MAX_SAMPLES)
		return -EINVAL;
	br.wq = burst_wq_by_name(wqname);
	if (!br.wq)
		return -ENOENT;
	burst_items = kcalloc(k, sizeof(*burst_items), GFP_KERNEL);
	if (!burst_items)
		return -ENOMEM;
	init_completion(&br.done);
	nr_samples = 0;
	lat_run = false;
	t = kthread_create(burst_thread_fn, &br, "wqrt_burst");
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out;
	}
	ret = wake_fifo_kthread(t, 50);
	if (ret)
		goto out;
	wait_for_completion(&br.done);
	kthread_stop(t);
	put_task_struct(t);
out:
	kfree(burst_items);
	burst_items = NULL;
	return ret;
}

/* ---- RT competition: an IRQ-thread-like FIFO hog ---- */

static struct task_struct *hog_task;
static unsigned int hog_on_us, hog_off_us;

static int hog_fn(void *arg)
{
	while (!kthread_should_stop()) {
		u64 end = ktime_get_ns() + (u64)hog_on_us * NSEC_PER_USEC;

		while (ktime_get_ns() < end && !kthread_should_stop())
			cpu_relax();
		usleep_range(hog_off_us, hog_off_us + 10);
	}
	return 0;
}

static void stop_hog(void)
{
	if (!hog_task)
		return;
	kthread_stop(hog_task);
	put_task_struct(hog_task);
	hog_task = NULL;
}

static int start_hog(unsigned int prio, unsigned int cpu, unsigned int on_us,
		     unsigned int off_us)
{
	struct task_struct *t;
	int ret;

	stop_hog();
	if (!prio)
		return 0;
	if (prio > 99 || cpu >= nr_cpu_ids || !cpu_online(cpu) || !on_us ||
	    on_us > 100000 || off_us < 100 || off_us > 1000000)
		return -EINVAL;
	hog_on_us = on_us;
	hog_off_us = off_us;
	t = kthread_create(hog_fn, NULL, "wqrt_hog/%u", cpu);
	if (IS_ERR(t))
		return PTR_ERR(t);
	kthread_bind(t, cpu);
	ret = wake_fifo_kthread(t, prio);
	if (ret)
		return ret;
	hog_task = t;
	return 0;
}

/* ---- noisy neighbour: another workqueue flooding the pool ---- */

#define FLOOD_MAX	64

static struct workqueue_struct *nb_wq;
static struct work_struct flood_items[FLOOD_MAX];
static struct hrtimer flood_timer;
static unsigned int flood_nr, flood_spin_us;
static u64 flood_period_ns;

static void flood_work_fn(struct work_struct *work)
{
	u64 end = ktime_get_ns() + (u64)READ_ONCE(flood_spin_us) * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static enum hrtimer_restart flood_timer_fn(struct hrtimer *t)
{
	unsigned int i;

	for (i = 0; i < flood_nr; i++)
		queue_work(nb_wq, &flood_items[i]);
	hrtimer_forward_now(t, ns_to_ktime(flood_period_ns));
	return HRTIMER_RESTART;
}

static int start_flood(unsigned int nr, unsigned int spin_us,
		       unsigned int period_us)
{
	hrtimer_cancel(&flood_timer);
	flush_workqueue(nb_wq);
	if (!nr)
		return 0;
	if (nr > FLOOD_MAX || spin_us > 10000 || period_us < 100)
		return -EINVAL;
	flood_nr = nr;
	WRITE_ONCE(flood_spin_us, spin_us);
	flood_period_ns = (u64)period_us * NSEC_PER_USEC;
	hrtimer_start(&flood_timer, ns_to_ktime(flood_period_ns),
		      HRTIMER_MODE_REL_HARD);
	return 0;
}

/* ---- enqueue throughput ---- */

struct producer {
	struct task_struct *task;
	struct work_struct *items;
	unsigned int nr_items;
	u64 *enq_ns;
	struct completion *start;
};

static atomic_t enq_executed;
static DECLARE_COMPLETION(enq_all_done);
static unsigned int enq_expected;

static void enq_work_fn(struct work_struct *work)
{
	if (atomic_inc_return(&enq_executed) == enq_expected)
		complete(&enq_all_done);
}

static int producer_fn(void *arg)
{
	struct producer *p = arg;
	unsigned int i;

	wait_for_completion(p->start);
	for (i = 0; i < p->nr_items; i++) {
		u64 t0 = ktime_get_ns();

		queue_work(bench_wq, &p->items[i]);
		p->enq_ns[i] = ktime_get_ns() - t0;
	}
	/* Stay until kthread_stop(): the runner owns our task reference. */
	wait_for_kthread_stop();
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * @window, when not NULL, opens (true) and closes (false) a counting window of
 * the cost command around the producers' run, from their wakeup to the last
 * item's end: the enqueue workload counted by the wqcount plugin.
 */
static int run_enqueue(unsigned int nr_prod, unsigned int nr_items,
		       void (*window)(bool open))
{
	DECLARE_COMPLETION_ONSTACK(start);
	struct producer *prods;
	u64 t0, elapsed, total, *all;
	unsigned int i, j;
	int ret = 0;

	if (!nr_prod || !nr_items)
		return -EINVAL;
	if (nr_prod > ENQ_MAX_PRODUCERS ||
	    (u64)nr_prod * nr_items > ENQ_MAX_ITEMS) {
		pr_warn("wqrt_bench: enqueue %u x %u refused: at most %u producers and %u items in all (%zu bytes each)\n",
			nr_prod, nr_items, ENQ_MAX_PRODUCERS, ENQ_MAX_ITEMS,
			sizeof(struct work_struct) + sizeof(u64));
		return -E2BIG;
	}
	total = (u64)nr_prod * nr_items;
	prods = kcalloc(nr_prod, sizeof(*prods), GFP_KERNEL);
	all = vmalloc(array_size(total, sizeof(u64)));
	if (!prods || !all) {
		ret = -ENOMEM;
		goto out;
	}
	atomic_set(&enq_executed, 0);
	enq_expected = total;
	reinit_completion(&enq_all_done);

	for (i = 0; i < nr_prod; i++) {
		struct producer *p = &prods[i];
		struct task_struct *task;

		p->nr_items = nr_items;
		p->start = &start;
		p->enq_ns = all + (u64)i * nr_items;
		p->items = vmalloc(array_size(nr_items, sizeof(*p->items)));
		if (!p->items) {
			ret = -ENOMEM;
			goto out;
		}
		for (j = 0; j < nr_items; j++)
			INIT_WORK(&p->items[j], enq_work_fn);
		task = kthread_create(producer_fn, p, "wqrt_prod/%u", i);
		if (IS_ERR(task)) {
			ret = PTR_ERR(task);
			goto out;
		}
		p->task = get_task_struct(task);
	}

	if (window)
		window(true);
	t0 = ktime_get_ns();
	for (i = 0; i < nr_prod; i++)
		wake_up_process(prods[i].task);
	complete_all(&start);
	wait_for_completion(&enq_all_done);
	elapsed = ktime_get_ns() - t0;
	if (window)
		window(false);

	sort(all, total, sizeof(u64), cmp_u64, NULL);
	snprintf(enqueue_result, sizeof(enqueue_result),
		 "items_per_sec %llu enq_p50_ns %llu enq_p99_ns %llu item_bytes %zu\n",
		 div64_u64(total * NSEC_PER_SEC, elapsed ?: 1),
		 all[total / 2], all[total * 99 / 100],
		 sizeof(struct work_struct) + sizeof(u64));
out:
	/*
	 * A producer that was never woken is stopped before it runs
	 * producer_fn(); the others wait in producer_fn() for this.
	 */
	for (i = 0; prods && i < nr_prod; i++) {
		if (prods[i].task) {
			kthread_stop(prods[i].task);
			put_task_struct(prods[i].task);
		}
	}
	flush_workqueue(bench_wq);
	for (i = 0; prods && i < nr_prod; i++)
		vfree(prods[i].items);
	kfree(prods);
	vfree(all);
	return ret;
}

/* ---- pool layout of the current affinity scope ---- */

struct layout_item {
	struct work_struct work;
	char comm[TASK_COMM_LEN];
	int ran_on;
	char allowed[64];
};

static char *layout_result;

static void layout_work_fn(struct work_struct *work)
{
	struct layout_item *it = container_of(work, struct layout_item, work);

	get_task_comm(it->comm, current);
	it->ran_on = raw_smp_processor_id();
	scnprintf(it->allowed, sizeof(it->allowed), "%*pbl",
		  cpumask_pr_args(current->cpus_ptr));
}

static int run_layout(void)
{
	struct layout_item *items;
	size_t size = (size_t)num_online_cpus() * 128 + 1, len = 0;
	char *buf;
	int cpu;

	items = kcalloc(nr_cpu_ids, sizeof(*items), GFP_KERNEL);
	buf = kzalloc(size, GFP_KERNEL);
	if (!items || !buf) {
		kfree(items);
		kfree(buf);
		return -ENOMEM;
	}
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct layout_item *it = &items[cpu];

		INIT_WORK(&it->work, layout_work_fn);
		queue_work_on(cpu, bench_wq, &it->work);
		flush_work(&it->work);
		len += scnprintf(buf + len, size - len, "%d %s %d %s\n", cpu,
				 it->comm, it->ran_on, it->allowed);
	}
	cpus_read_unlock();
	kfree(items);
	kfree(layout_result);
	layout_result = buf;
	return 0;
}

/* ---- flush (seed 003) ---- */

/*
 * flush  write "CASE WQ THREADS MS", read "flushes N ns N per_sec N sleeps N":
 *        how many flush_workqueue() calls complete in MS milliseconds on
 *        WQ ("percpu": a per-cpu workqueue, "unbound": WQ_UNBOUND, both
 *        created for this and used by nothing else). CASE:
 *          idle   one thread flushes the idle workqueue;
 *          qf     THREADS kthreads each queue one item on their own CPU's
 *                 pwq and flush, and again;
 *          dense  one thread queues an item on every pwq that can run one
 *                 (every possible CPU's for the unbound workqueue, every
 *                 online CPU's for the per-cpu one, whose pools of CPUs
 *                 never brought up have no workers) and flushes.
 *        The flush counts of all threads are added up; ns is the wall time
 *        from the start of the first thread to the end of the last; sleeps
 *        the threads' voluntary context switches, mostly flushes that had
 *        to wait for a work item still in flight.
 */
#define FB_MAX_THREADS	64

static struct workqueue_struct *fb_percpu, *fb_unbound;
static char flush_result[128];

struct fb_thread {
	struct workqueue_struct *wq;
	struct work_struct work;
	struct work_struct *dense;	/* nr_cpu_ids items, dense only */
	bool all_possible;
	u64 deadline_ns;
	unsigned long flushes;
	unsigned long sleeps;		/* voluntary context switches */
	struct completion *start;
	atomic_t *running;
	struct completion *done;
};

static void fb_work_fn(struct work_struct *work)
{
}

static int fb_thread_fn(void *arg)
{
	struct fb_thread *t = arg;
	unsigned long nvcsw;
	int cpu;

	wait_for_completion(t->start);
	nvcsw = current->nvcsw;
	do {
		unsigned int i;

		/* check the clock every 16 flushes only */
		for (i = 0; i < 16; i++) {
			if (t->dense) {
				for_each_cpu(cpu, t->all_possible ?
					     cpu_possible_mask : cpu_online_mask)
					queue_work_on(cpu, t->wq, &t->dense[cpu]);
			} else if (t->work.func) {
				queue_work(t->wq, &t->work);
			}
			flush_workqueue(t->wq);
			t->flushes++;
		}
		cond_resched();
	} while (ktime_get_ns() < t->deadline_ns);
	t->sleeps = current->nvcsw - nvcsw;
	if (atomic_dec_and_test(t->running))
		complete(t->done);
	return 0;
}

static int run_flush(const char *which, const char *wqname,
		     unsigned int nr, unsigned int ms)
{
	DECLARE_COMPLETION_ONSTACK(start);
	DECLARE_COMPLETION_ONSTACK(done);
	struct workqueue_struct *wq;
	struct fb_thread *th;
	unsigned long flushes = 0, sleeps = 0;
	atomic_t running;
	u64 t0, ns;
	int i, cpu, ret = 0;
	bool dense = !strcmp(which, "dense"), qf = !strcmp(which, "qf");

	if (!dense && !qf && strcmp(which, "idle"))
		return -EINVAL;
	if (!strcmp(wqname, "percpu"))
		wq = fb_percpu;
	else if (!strcmp(wqname, "unbound"))
		wq = fb_unbound;
	else
		return -EINVAL;
	if (!qf)
		nr = 1;
	if (!nr || nr > FB_MAX_THREADS || !ms || ms > 60000)
		return -EINVAL;

	th = kcalloc(nr, sizeof(*th), GFP_KERNEL);
	if (!th)
		return -ENOMEM;
	atomic_set(&running, nr);
	for (i = 0; i < nr; i++) {
		th[i].wq = wq;
		th[i].start = &start;
		th[i].running = &running;
		th[i].done = &done;
		if (qf)
			INIT_WORK(&th[i].work, fb_work_fn);
		if (dense) {
			th[i].all_possible = wq == fb_unbound;
			th[i].dense = kcalloc(nr_cpu_ids, sizeof(*th[i].dense),
					      GFP_KERNEL);
			if (!th[i].dense) {
				ret = -ENOMEM;
				goto out;
			}
			for_each_possible_cpu(cpu)
				INIT_WORK(&th[i].dense[cpu], fb_work_fn);
		}
	}
	for (i = 0; i < nr; i++) {
		struct task_struct *task;

		task = kthread_create(fb_thread_fn, &th[i], "wqrt_fbench/%d", i);
		if (IS_ERR(task)) {
			/* the threads created so far run out their time */
			ret = PTR_ERR(task);
			if (atomic_sub_and_test(nr - i, &running))
				complete(&done);
			break;
		}
		/* spread over the online CPUs, as the seed's threads were */
		kthread_bind(task, cpumask_nth(i % num_online_cpus(),
					       cpu_online_mask));
		wake_up_process(task);
	}
	t0 = ktime_get_ns();
	for (i = 0; i < nr; i++)
		th[i].deadline_ns = t0 + (u64)ms * NSEC_PER_MSEC;
	complete_all(&start);
	wait_for_completion(&done);
	ns = ktime_get_ns() - t0;
	flush_workqueue(wq);
	for (i = 0; i < nr; i++) {
		flushes += th[i].flushes;
		sleeps += th[i].sleeps;
	}
	if (!ret)
		snprintf(flush_result, sizeof(flush_result),
			 "flushes %lu ns %llu per_sec %llu sleeps %lu\n",
			 flushes, ns,
			 div64_u64((u64)flushes * NSEC_PER_SEC, ns ?: 1),
			 sleeps);
out:
	for (i = 0; i < nr; i++)
		kfree(th[i].dense);
	kfree(th);
	return ret;
}

/*
 * A command's debugfs file shows the command's last result, the buffer that
 * is the file's private data, read under bench_mutex as the command writes it.
 */
static int result_show(struct seq_file *m, void *v)
{
	mutex_lock(&bench_mutex);
	seq_puts(m, m->private);
	mutex_unlock(&bench_mutex);
	return 0;
}

static int result_open(struct inode *inode, struct file *file)
{
	return single_open(file, result_show, inode->i_private);
}

/* a command written to one of the files: into @buf, NUL-terminated */
static int copy_command(char *buf, size_t size, const char __user *ubuf,
			size_t len)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

static ssize_t flush_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	char buf[64], which[16], wqname[16];
	unsigned int nr, ms;
	int ret;

	ret = copy_command(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	if (sscanf(buf, "%15s %15s %u %u", which, wqname, &nr, &ms) != 4)
		return -EINVAL;
	mutex_lock(&bench_mutex);
	ret = run_flush(which, wqname, nr, ms);
	mutex_unlock(&bench_mutex);
	return ret ? ret : len;
}

static const struct file_operations flush_fops = {
	.owner = THIS_MODULE,
	.open = result_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = flush_write,
};

static int flush_bench_init(struct dentry *dir)
{
	fb_percpu = alloc_workqueue("wqrt_fbench_percpu", 0, 0);
	/*
	 * In sysfs, so that a flush case can fix where its worker runs
	 * (cpumask): left to the scheduler, a queue-and-flush loop settles
	 * with the worker on the flusher's CPU or on the other one, at rates
	 * up to 1.5 times apart on either kernel.
	 */
	fb_unbound = alloc_workqueue("wqrt_fbench_unbound",
				     WQ_UNBOUND | WQ_SYSFS, 0);
	if (!fb_percpu || !fb_unbound) {
		if (fb_percpu)
			destroy_workqueue(fb_percpu);
		if (fb_unbound)
			destroy_workqueue(fb_unbound);
		return -ENOMEM;
	}
	debugfs_create_file("flush", 0600, dir, flush_result, &flush_fops);
	return 0;
}

static void flush_bench_exit(void)
{
	destroy_workqueue(fb_percpu);
	destroy_workqueue(fb_unbound);
}

/* ---- cost: what queue_work() and flushes execute (make bench-cost) ---- */

/*
 * cost  write "CASE N [warm]": run CASE N times, each run in a counting
 *       window of the wqcount QEMU plugin (selftests/bench/cost/wqcount.c),
 *       which counts the guest instructions, atomics, fences and cache-line
 *       transfers between vCPUs executed in the window; without the plugin
 *       the markers are NOPs and nothing is counted. "warm" runs the case
 *       without windows (a warm-up). Read: one line per counted window
 *       kind so far, "BUCKET CASE WINDOW RUNS OPS_PER_WINDOW", to name the
 *       plugin's buckets. The cases run in a kthread bound to the first
 *       online CPU, on three workqueues of their own, wqrt_cost_percpu
 *       (per-cpu), wqrt_cost_unbound (WQ_UNBOUND, default affinity scope)
 *       and wqrt_cost_reserve (the same with WQ_SYSFS, for the caller to
 *       give its pool a reserve of idle workers, nr_idle_extra):
 *         queue-percpu, queue-unbound  one queue_work() on an idle pool:
 *             the caller's side alone (a local window, bucket B), and the
 *             whole round trip to the item's completion on every vCPU (a
 *             global window, bucket B + 1)
 *         queue-reserve  queue-unbound's windows on wqrt_cost_reserve:
 *             what queue_work() executes on a pool with a reserve, the
 *             only pools that claim the workers they kick
 *         burst-percpu, burst-unbound, burst-reserve  COST_BURST
 *             queue_work() in a row, the caller's side (local window)
 *         flush-idle-percpu, flush-idle-unbound  flush_workqueue() of the
 *             idle workqueue (global window)
 *         qf-percpu, qf-unbound  queue_work() of one item and
 *             flush_workqueue() (global window)
 *         dense-percpu  an item on each online CPU's pwq, then
 *             flush_workqueue() (global window)
 *         enqueue-percpu, enqueue-shared  the enqueue command's workload,
 *             COST_ENQ_PRODUCERS x COST_ENQ_ITEMS items on wqrt_bench
 *             (global window, counted per item), in the affinity scope
 *             that the caller gave wqrt_bench: the names say which the
 *             report expects (cpu and system, as make bench-cost times
 *             them)
 *       Between runs the kthread sleeps 1-2 ms, so that every run starts
 *       with the workers idle; the enqueue cases are run by the writer,
 *       one run_enqueue() a run.
 */
#define WQC_MAGIC		0x57510000
#define WQC_GLOBAL_OPEN		1
#define WQC_GLOBAL_CLOSE	2
#define WQC_LOCAL_OPEN		3
#define WQC_LOCAL_CLOSE		4
#define COST_BURST		8
#define COST_MAX_RUNS		10000
#define COST_ENQ_PRODUCERS	8
#define COST_ENQ_ITEMS		500

#ifdef CONFIG_X86_64
/* nopl DISP32(%rax): a NOP that only the markers encode with this DISP32 */
#define WQC_MARK(cmd, bucket)						\
	({								\
		asm volatile("nopl %c0(%%rax)" ::			\
			     "i"(WQC_MAGIC | (cmd) << 12 | (bucket)) :	\
			     "memory");					\
	})
#else
#define WQC_MARK(cmd, bucket)						\
	do {								\
		(void)(cmd);						\
		(void)(bucket);						\
		barrier();						\
	} while (0)
#endif

enum cost_kind { COST_QUEUE, COST_BURST_KIND, COST_FLUSH_IDLE, COST_QF,
		 COST_DENSE, COST_ENQUEUE };

/* the buckets are constants: the markers carry them as immediates */
struct cost_case {
	const char *name;
	enum cost_kind kind;
	bool percpu;
	bool reserve;	/* on wqrt_cost_reserve */
	unsigned int bucket;
};

static const struct cost_case cost_cases[] = {
	{ "queue-percpu", COST_QUEUE, true, false, 10 },
	{ "queue-unbound", COST_QUEUE, false, false, 20 },
	{ "burst-percpu", COST_BURST_KIND, true, false, 30 },
	{ "burst-unbound", COST_BURST_KIND, false, false, 40 },
	{ "flush-idle-percpu", COST_FLUSH_IDLE, true, false, 50 },
	{ "flush-idle-unbound", COST_FLUSH_IDLE, false, false, 60 },
	{ "qf-percpu", COST_QF, true, false, 70 },
	{ "qf-unbound", COST_QF, false, false, 80 },
	{ "dense-percpu", COST_DENSE, true, false, 90 },
	{ "enqueue-percpu", COST_ENQUEUE, false, false, 100 },
	{ "enqueue-shared", COST_ENQUEUE, false, false, 110 },
	{ "queue-reserve", COST_QUEUE, false, true, 120 },
	{ "burst-reserve", COST_BURST_KIND, false, true, 130 },
};

static struct workqueue_struct *cost_percpu, *cost_unbound, *cost_reserve;
static char *cost_result;
static size_t cost_result_len;

struct cost_item {
	struct work_struct work;
	atomic_t *left;
	struct completion *done;
};

static void cost_work_fn(struct work_struct *work)
{
	struct cost_item *it = container_of(work, struct cost_item, work);

	if (it->done && atomic_dec_and_test(it->left))
		complete(it->done);
}

struct cost_run {
	const struct cost_case *cc;
	unsigned int runs;
	bool count;			/* false: a warm-up, no windows */
	struct cost_item *items;	/* COST_BURST, or one per possible CPU */
	struct completion finished;
};

/*
 * One run of @cc. The markers take constants, hence a switch per bucket
 * rather than the bucket as a variable.
 */
#define COST_LOCAL(cr, b, stmt)						\
	do {								\
		if ((cr)->count)					\
			WQC_MARK(WQC_LOCAL_OPEN, b);			\
		stmt;							\
		if ((cr)->count)					\
			WQC_MARK(WQC_LOCAL_CLOSE, b);			\
	} while (0)
#define COST_GLOBAL(cr, b, stmt)					\
	do {								\
		if ((cr)->count)					\
			WQC_MARK(WQC_GLOBAL_OPEN, b);			\
		stmt;							\
		if ((cr)->count)					\
			WQC_MARK(WQC_GLOBAL_CLOSE, b);			\
	} while (0)

static void cost_queue_once(struct cost_run *cr, struct workqueue_struct *wq,
			    int cpu)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(1);
	struct cost_item *it = &cr->items[0];

	it->left = &left;
	it->done = &done;
	switch (cr->cc->bucket) {
	case 10:
		COST_GLOBAL(cr, 11, {
			COST_LOCAL(cr, 10, queue_work_on(cpu, wq, &it->work));
			wait_for_completion(&done);
		});
		break;
	case 20:
		COST_GLOBAL(cr, 21, {
			COST_LOCAL(cr, 20, queue_work_on(cpu, wq, &it->work));
			wait_for_completion(&done);
		});
		break;
	case 120:
		COST_GLOBAL(cr, 121, {
			COST_LOCAL(cr, 120, queue_work_on(cpu, wq, &it->work));
			wait_for_completion(&done);
		});
		break;
	}
	flush_work(&it->work);
}

/* the burst of cost_burst_once(), inside its counting window */
static void cost_queue_burst(struct cost_run *cr, struct workqueue_struct *wq,
			     int cpu)
{
	unsigned int i;

	for (i = 0; i < COST_BURST; i++)
		queue_work_on(cpu, wq, &cr->items[i].work);
}

static void cost_burst_once(struct cost_run *cr, struct workqueue_struct *wq,
			    int cpu)
{
	DECLARE_COMPLETION_ONSTACK(done);
	atomic_t left = ATOMIC_INIT(COST_BURST);
	unsigned int i;

	for (i = 0; i < COST_BURST; i++) {
		cr->items[i].left = &left;
		cr->items[i].done = &done;
	}
	switch (cr->cc->bucket) {
	case 30:
		COST_LOCAL(cr, 30, cost_queue_burst(cr, wq, cpu));
		break;
	case 40:
		COST_LOCAL(cr, 40, cost_queue_burst(cr, wq, cpu));
		break;
	case 130:
		COST_LOCAL(cr, 130, cost_queue_burst(cr, wq, cpu));
		break;
	}
	wait_for_completion(&done);
	for (i = 0; i < COST_BURST; i++)
		flush_work(&cr->items[i].work);
}

static void cost_flush_once(struct cost_run *cr, struct workqueue_struct *wq,
			    int cpu)
{
	struct cost_item *it = &cr->items[0];
	int c;

	it->done = NULL;
	switch (cr->cc->bucket) {
	case 50:
		COST_GLOBAL(cr, 50, flush_workqueue(wq));
		break;
	case 60:
		COST_GLOBAL(cr, 60, flush_workqueue(wq));
		break;
	case 70:
		COST_GLOBAL(cr, 70, {
			queue_work_on(cpu, wq, &it->work);
			flush_workqueue(wq);
		});
		break;
	case 80:
		COST_GLOBAL(cr, 80, {
			queue_work_on(cpu, wq, &it->work);
			flush_workqueue(wq);
		});
		break;
	case 90:
		COST_GLOBAL(cr, 90, {
			for_each_online_cpu(c)
				queue_work_on(c, wq, &cr->items[c].work);
			flush_workqueue(wq);
		});
		break;
	}
}

static int cost_thread_fn(void *arg)
{
	struct cost_run *cr = arg;
	struct workqueue_struct *wq = cr->cc->percpu  ? cost_percpu :
				      cr->cc->reserve ? cost_reserve :
							cost_unbound;
	int cpu = raw_smp_processor_id();
	unsigned int r;

	for (r = 0; r < cr->runs; r++) {
		switch (cr->cc->kind) {
		case COST_QUEUE:
			cost_queue_once(cr, wq, cpu);
			break;
		case COST_BURST_KIND:
			cost_burst_once(cr, wq, cpu);
			break;
		default:
			cost_flush_once(cr, wq, cpu);
			break;
		}
		/* the workers are back on their idle lists before the next run */
		usleep_range(1000, 2000);
	}
	complete(&cr->finished);
	wait_for_kthread_stop();
	return 0;
}

/* run_enqueue()'s windows: a marker takes its bucket as an immediate */
static void cost_enqueue_window_100(bool open)
{
	if (open)
		WQC_MARK(WQC_GLOBAL_OPEN, 100);
	else
		WQC_MARK(WQC_GLOBAL_CLOSE, 100);
}

static void cost_enqueue_window_110(bool open)
{
	if (open)
		WQC_MARK(WQC_GLOBAL_OPEN, 110);
	else
		WQC_MARK(WQC_GLOBAL_CLOSE, 110);
}

static int cost_enqueue(const struct cost_case *cc, unsigned int runs,
			bool warm)
{
	void (*window)(bool open) = NULL;
	unsigned int r;
	int ret;

	if (!warm)
		window = cc->bucket == 100 ? cost_enqueue_window_100 :
					     cost_enqueue_window_110;
	for (r = 0; r < runs; r++) {
		ret = run_enqueue(COST_ENQ_PRODUCERS, COST_ENQ_ITEMS, window);
		if (ret)
			return ret;
	}
	return 0;
}

static __printf(1, 2) int cost_note(const char *fmt, ...)
{
	size_t room = PAGE_SIZE - cost_result_len;
	va_list args;
	int n;

	va_start(args, fmt);
	n = vsnprintf(cost_result + cost_result_len, room, fmt, args);
	va_end(args);
	if (n >= room)
		return -ENOSPC;
	cost_result_len += n;
	return 0;
}

static int run_cost(const char *name, unsigned int runs, bool warm)
{
	const struct cost_case *cc = NULL;
	struct cost_run cr = { .runs = runs, .count = !warm };
	struct task_struct *t;
	unsigned int i, nr_items;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cost_cases); i++)
		if (!strcmp(name, cost_cases[i].name))
			cc = &cost_cases[i];
	if (!cc || !runs || runs > COST_MAX_RUNS)
		return -EINVAL;
	if (cc->kind == COST_ENQUEUE) {
		ret = cost_enqueue(cc, runs, warm);
		if (ret || warm)
			return ret;
		return cost_note("%u %s all %u %u\n", cc->bucket, cc->name,
				 runs, COST_ENQ_PRODUCERS * COST_ENQ_ITEMS);
	}
	cr.cc = cc;
	nr_items = max_t(unsigned int, COST_BURST, nr_cpu_ids);
	cr.items = kcalloc(nr_items, sizeof(*cr.items), GFP_KERNEL);
	if (!cr.items)
		return -ENOMEM;
	for (i = 0; i < nr_items; i++)
		INIT_WORK(&cr.items[i].work, cost_work_fn);
	init_completion(&cr.finished);
	t = kthread_create(cost_thread_fn, &cr, "wqrt_cost");
	if (IS_ERR(t)) {
		ret = PTR_ERR(t);
		goto out;
	}
	kthread_bind(t, cpumask_first(cpu_online_mask));
	get_task_struct(t);
	wake_up_process(t);
	wait_for_completion(&cr.finished);
	kthread_stop(t);
	put_task_struct(t);
	ret = 0;
	if (warm)
		goto out;
	switch (cc->kind) {
	case COST_QUEUE:
		ret = cost_note("%u %s caller %u 1\n", cc->bucket, cc->name,
				runs) ?:
		      cost_note("%u %s roundtrip %u 1\n", cc->bucket + 1,
				cc->name, runs);
		break;
	case COST_BURST_KIND:
		ret = cost_note("%u %s caller %u %u\n", cc->bucket, cc->name,
				runs, COST_BURST);
		break;
	default:
		ret = cost_note("%u %s all %u 1\n", cc->bucket, cc->name, runs);
		break;
	}
out:
	kfree(cr.items);
	return ret;
}

static ssize_t cost_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char buf[64], name[32], warm[8] = "";
	unsigned int runs;
	int ret;

	ret = copy_command(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	if (sscanf(buf, "%31s %u %7s", name, &runs, warm) < 2 ||
	    (*warm && strcmp(warm, "warm")))
		return -EINVAL;
	mutex_lock(&bench_mutex);
	ret = run_cost(name, runs, *warm);
	mutex_unlock(&bench_mutex);
	return ret ? ret : len;
}

static const struct file_operations cost_fops = {
	.owner = THIS_MODULE,
	.open = result_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = cost_write,
};

static int cost_bench_init(struct dentry *dir)
{
	cost_result = kzalloc(PAGE_SIZE, GFP_KERNEL);
	cost_percpu = alloc_workqueue("wqrt_cost_percpu", 0, 0);
	cost_unbound = alloc_workqueue("wqrt_cost_unbound", WQ_UNBOUND, 0);
	/* its own pool once the caller sets nr_idle_extra (vm-cost.sh) */
	cost_reserve = alloc_workqueue("wqrt_cost_reserve",
				       WQ_UNBOUND | WQ_SYSFS, 0);
	if (!cost_result || !cost_percpu || !cost_unbound || !cost_reserve) {
		if (cost_percpu)
			destroy_workqueue(cost_percpu);
		if (cost_unbound)
			destroy_workqueue(cost_unbound);
		if (cost_reserve)
			destroy_workqueue(cost_reserve);
		kfree(cost_result);
		return -ENOMEM;
	}
	debugfs_create_file("cost", 0600, dir, cost_result, &cost_fops);
	return 0;
}

static void cost_bench_exit(void)
{
	destroy_workqueue(cost_percpu);
	destroy_workqueue(cost_unbound);
	destroy_workqueue(cost_reserve);
	kfree(cost_result);
}

/* ---- debugfs ---- */

/* "enqueue" shows its result line, "latency" and "burst" their samples. */
static int bench_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&bench_mutex);
	if (m->private == enqueue_result)
		seq_puts(m, enqueue_result);
	else if (m->private == &layout_result)
		seq_puts(m, layout_result ?: "");
	else if (lat_run)
		for (i = 0; i < nr_samples; i++)
			if (samples[i] == LAT_SKIP)
				seq_puts(m, "skip\n");
			else
				seq_printf(m, "%llu %llu %u %llu\n",
					   samples[i], lat_timer_ns[i],
					   lat_policy[i], lat_age_ns[i]);
	else
		for (i = 0; i < nr_samples; i++)
			seq_printf(m, "%llu %u %llu\n", samples[i],
				   burst_policy[i], burst_age_ns[i]);
	mutex_unlock(&bench_mutex);
	return 0;
}

static int bench_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, bench_show, inode->i_private,
				(size_t)nr_samples * 68 + PAGE_SIZE);
}

static ssize_t cmd_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	const char *which = file->f_path.dentry->d_name.name;
	unsigned int a, b, c, d;
	char buf[64], kind[16];
	int ret;

	ret = copy_command(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;

	mutex_lock(&bench_mutex);
	if (!strcmp(which, "layout")) {
		ret = run_layout();
	} else if (!strcmp(which, "latency")) {
		if (sscanf(buf, "%15s %u %u", kind, &a, &b) != 3)
			ret = -EINVAL;
		else if (!strcmp(kind, "wq"))
			ret = run_latency(LAT_WQ, a, b);
		else if (!strcmp(kind, "hp"))
			ret = run_latency(LAT_HP, a, b);
		else if (!strcmp(kind, "kthread"))
			ret = run_latency(LAT_KTHREAD, a, b);
		else if (!strcmp(kind, "irqthread"))
			ret = run_latency(LAT_IRQTHREAD, a, b);
		else
			ret = -EINVAL;
	} else if (!strcmp(which, "hog")) {
		if (sscanf(buf, "%u %u %u %u", &a, &b, &c, &d) != 4)
			ret = -EINVAL;
		else
			ret = start_hog(a, b, c, d);
	} else if (!strcmp(which, "flood")) {
		if (sscanf(buf, "%u %u %u", &a, &b, &c) != 3)
			ret = -EINVAL;
		else
			ret = start_flood(a, b, c);
	} else if (!strcmp(which, "burst")) {
		/* the workqueue is optional: "K ROUNDS [WQ]" */
		kind[0] = '\0';
		if (sscanf(buf, "%u %u %15s", &a, &b, kind) < 2)
			ret = -EINVAL;
		else
			ret = run_burst(a, b, kind);
	} else if (sscanf(buf, "%u %u", &a, &b) != 2) {
		ret = -EINVAL;
	} else {
		ret = run_enqueue(a, b, NULL);
	}
	mutex_unlock(&bench_mutex);
	return ret ? ret : len;
}

static const struct file_operations bench_fops = {
	.owner = THIS_MODULE,
	.open = bench_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = cmd_write,
};

static void free_samples(void)
{
	vfree(lat_timer_ns);
	vfree(lat_age_ns);
	vfree(lat_policy);
	vfree(burst_age_ns);
	vfree(burst_policy);
	vfree(samples);
}

/* The workqueues of the scenarios, beside wqrt_bench. */
static int scenario_wqs_init(void)
{
	unsigned int i;

	hp_wq = alloc_workqueue("wqrt_bench_hp", WQ_HIGHPRI, 0);
	if (!hp_wq)
		return -ENOMEM;
	nb_wq = alloc_workqueue("wqrt_bench_nb", WQ_UNBOUND | WQ_SYSFS, 0);
	if (!nb_wq)
		goto err;
	for (i = 0; i < NR_CULL_WQ; i++) {
		snprintf(cull_wq_name[i], sizeof(cull_wq_name[i]),
			 "wqrt_bench_c%u", i);
		cull_wq[i] = alloc_workqueue("%s", WQ_UNBOUND | WQ_SYSFS, 0,
					     cull_wq_name[i]);
		if (!cull_wq[i])
			goto err;
	}
	for (i = 0; i < FLOOD_MAX; i++)
		INIT_WORK(&flood_items[i], flood_work_fn);
	hrtimer_init(&flood_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	flood_timer.function = flood_timer_fn;
	return 0;
err:
	for (i = 0; i < NR_CULL_WQ; i++)
		if (cull_wq[i])
			destroy_workqueue(cull_wq[i]);
	if (nb_wq)
		destroy_workqueue(nb_wq);
	destroy_workqueue(hp_wq);
	return -ENOMEM;
}

static void scenario_wqs_exit(void)
{
	unsigned int i;

	stop_hog();
	hrtimer_cancel(&flood_timer);
	for (i = 0; i < NR_CULL_WQ; i++)
		destroy_workqueue(cull_wq[i]);
	destroy_workqueue(nb_wq);
	destroy_workqueue(hp_wq);
}

static int __init wqrt_bench_init(void)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = 50,
	};
	unsigned int i;
	int ret;

	samples = vmalloc(array_size(MAX_SAMPLES, sizeof(u64)));
	lat_timer_ns = vmalloc(array_size(MAX_SAMPLES, sizeof(u64)));
	lat_age_ns = vmalloc(array_size(MAX_SAMPLES, sizeof(u64)));
	lat_policy = vmalloc(MAX_SAMPLES);
	burst_age_ns = vmalloc(array_size(MAX_SAMPLES, sizeof(u64)));
	burst_policy = vmalloc(MAX_SAMPLES);
	if (!samples || !lat_timer_ns || !lat_age_ns || !lat_policy ||
	    !burst_age_ns || !burst_policy) {
		ret = -ENOMEM;
		goto err_samples;
	}
	bench_wq = alloc_workqueue("wqrt_bench", WQ_UNBOUND | WQ_SYSFS, 0);
	if (!bench_wq) {
		ret = -ENOMEM;
		goto err_samples;
	}
	ret = scenario_wqs_init();
	if (ret) {
		destroy_workqueue(bench_wq);
		goto err_samples;
	}
	rt_worker = kthread_create_worker(0, "wqrt_bench_kw");
	if (IS_ERR(rt_worker)) {
		ret = PTR_ERR(rt_worker);
		goto err_wq;
	}
	/* Upstream's answer to RT deferred work: a FIFO 50 kthread_worker. */
	ret = sched_setattr_nocheck(rt_worker->task, &attr);
	if (ret)
		goto err_worker;

	for (i = 0; i < LAT_SLOTS; i++) {
		INIT_WORK(&lat_items[i].work, lat_work_fn);
		kthread_init_work(&lat_items[i].kwork, lat_kwork_fn);
	}
	hrtimer_init(&lat_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	lat_timer.function = lat_timer_fn;

	bench_dir = debugfs_create_dir("wqrt_bench", NULL);
	debugfs_create_file("latency", 0600, bench_dir, NULL, &bench_fops);
	debugfs_create_file("burst", 0600, bench_dir, NULL, &bench_fops);
	debugfs_create_file("hog", 0200, bench_dir, NULL, &bench_fops);
	debugfs_create_file("flood", 0200, bench_dir, NULL, &bench_fops);
	debugfs_create_file("enqueue", 0600, bench_dir, enqueue_result,
			    &bench_fops);
	debugfs_create_file("layout", 0600, bench_dir, &layout_result,
			    &bench_fops);
	ret = flush_bench_init(bench_dir);
	if (ret)
		goto err_debugfs;
	ret = cost_bench_init(bench_dir);
	if (ret)
		goto err_flush;
	return 0;

err_flush:
	flush_bench_exit();
err_debugfs:
	debugfs_remove_recursive(bench_dir);
err_worker:
	kthread_destroy_worker(rt_worker);
err_wq:
	scenario_wqs_exit();
	destroy_workqueue(bench_wq);
err_samples:
	free_samples();
	return ret;
}

static void __exit wqrt_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	cost_bench_exit();
	flush_bench_exit();
	hrtimer_cancel(&lat_timer);
	scenario_wqs_exit();
	kthread_destroy_worker(rt_worker);
	destroy_workqueue(bench_wq);
	kfree(layout_result);
	free_samples();
}

module_init(wqrt_bench_init);
module_exit(wqrt_bench_exit);
MODULE_DESCRIPTION("wqrt workqueue benchmarks");
MODULE_LICENSE("GPL");
