// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_submit - a GPU driver's submit path, shaped like drm_sched's, for the
 * wqrt benchmarks (numbers, not tests).
 *
 * A job source, a hard hrtimer every PERIOD_US (a vblank, or the fence
 * callback of the job before), queues a job's submit work on the workqueue
 * "wqrt_submit" (WQ_UNBOUND | WQ_SYSFS: the runner sets its attributes
 * through sysfs) or, for the baseline a maintainer asks for, on a SCHED_FIFO
 * kthread_worker. The submit work (drm_sched's run_job) spins SUBMIT_US, as
 * a driver writing its ring and doorbell does, and starts the "GPU": a second
 * hard hrtimer, JOB_US later, is the job's completion interrupt, which
 * queues the free work (drm_sched's free_job) on the same workqueue or
 * worker. Every frame is counted: a job whose slot is still in flight when
 * its frame comes is a dropped frame, recorded, never waited for.
 *
 * /sys/kernel/debug/wqrt_submit/run
 *	write "KIND FRAMES PERIOD_US JOB_US SUBMIT_US [PRIO]": KIND "wq" or
 *	"kthread" (a kthread_worker at SCHED_FIFO PRIO, 50 by default); the
 *	write returns once every frame is done. Read: one line per frame,
 *	"SEQ SUBMIT_NS FREE_NS TIMER_LATE_NS POLICY": the submit work's
 *	dispatch (queue_work() in the job source to the work function's first
 *	line), the free work's (queue_work() in the completion interrupt to
 *	its first line), how late the job source's timer ran, and the policy
 *	of the task that ran the submit; or "SEQ drop".
 *
 * /sys/kernel/debug/wqrt_submit/rt_tasks
 *	write "N PRIO ON_US OFF_US": N SCHED_FIFO PRIO kthreads, on the online
 *	CPUs in turn, each spinning ON_US then sleeping OFF_US: the other RT
 *	work of the system; "0 0 0 0" stops them.
 */
#include <linux/module.h>
#include <linux/workqueue.h>
#include <linux/kthread.h>
#include <linux/hrtimer.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/vmalloc.h>
#include <linux/delay.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/cpumask.h>
#include <linux/sched.h>
#include <uapi/linux/sched/types.h>

#define MAX_FRAMES	200000
#define JOB_SLOTS	8
#define MAX_RT_TASKS	16
#define FRAME_DROP	U64_MAX

struct job {
	struct work_struct submit, free;
	struct kthread_work ksubmit, kfree;
	struct hrtimer done_timer;	/* the job's completion interrupt */
	unsigned int seq;
	u64 submit_queued_ns, free_queued_ns;
	/* from the job source's queueing to the free work's end */
	atomic_t inflight;
};

struct frame {
	u64 submit_ns, free_ns, timer_late_ns;
	u8 policy;
};

static struct workqueue_struct *submit_wq;
static struct kthread_worker *submit_worker;
static struct dentry *submit_dir;
static DEFINE_MUTEX(submit_mutex);

static struct job jobs[JOB_SLOTS];
static struct frame *frames;
static unsigned int nr_frames, frames_done;
static struct hrtimer source_timer;
static unsigned int source_next;
static u64 period_ns, job_ns, submit_spin_ns;
static bool use_kthread;
/* frames dropped or freed: the run is over when it reaches nr_frames */
static atomic_t frames_accounted;
static DECLARE_COMPLETION(run_done);

static void frame_accounted(void)
{
	if (atomic_inc_return(&frames_accounted) == nr_frames)
		complete(&run_done);
}

static void queue_job_work(struct work_struct *work, struct kthread_work *kwork)
{
	if (use_kthread)
		kthread_queue_work(submit_worker, kwork);
	else
		queue_work(submit_wq, work);
}

/* drm_sched's run_job: write the ring, ring the doorbell, start the GPU */
static void submit_job(struct job *job)
{
	u64 now = ktime_get_ns();
	struct frame *f = &frames[job->seq];
	u64 end = now + submit_spin_ns;

	f->submit_ns = now - job->submit_queued_ns;
	f->policy = current->policy;
	while (ktime_get_ns() < end)
		cpu_relax();
	hrtimer_start(&job->done_timer, ns_to_ktime(job_ns),
		      HRTIMER_MODE_REL_HARD);
}

/* drm_sched's free_job: the job's resources go back */
static void free_job(struct job *job)
{
	frames[job->seq].free_ns = ktime_get_ns() - job->free_queued_ns;
	/* from here on the slot may take a later frame */
	atomic_set_release(&job->inflight, 0);
	frame_accounted();
}

static void submit_work_fn(struct work_struct *work)
{
	submit_job(container_of(work, struct job, submit));
}

static void free_work_fn(struct work_struct *work)
{
	free_job(container_of(work, struct job, free));
}

static void submit_kwork_fn(struct kthread_work *work)
{
	submit_job(container_of(work, struct job, ksubmit));
}

static void free_kwork_fn(struct kthread_work *work)
{
	free_job(container_of(work, struct job, kfree));
}

/* the GPU's completion interrupt: the fence is signalled, free the job */
static enum hrtimer_restart done_timer_fn(struct hrtimer *t)
{
	struct job *job = container_of(t, struct job, done_timer);

	job->free_queued_ns = ktime_get_ns();
	queue_job_work(&job->free, &job->kfree);
	return HRTIMER_NORESTART;
}

/* the job source: a frame every period, its job queued for submission */
static enum hrtimer_restart source_timer_fn(struct hrtimer *t)
{
	u64 expiry = ktime_to_ns(hrtimer_get_expires(t));
	u64 now = ktime_get_ns();
	unsigned int seq = source_next++;
	struct job *job = &jobs[seq % JOB_SLOTS];
	u64 missed;

	frames[seq].timer_late_ns = now - expiry;
	if (atomic_read_acquire(&job->inflight)) {
		frames[seq].submit_ns = FRAME_DROP;
		frame_accounted();
	} else {
		job->seq = seq;
		job->submit_queued_ns = now;
		atomic_set(&job->inflight, 1);
		queue_job_work(&job->submit, &job->ksubmit);
	}
	if (source_next >= nr_frames)
		return HRTIMER_NORESTART;
	/*
	 * A callback later than a whole period: the periods it missed are
	 * frames too, dropped (every frame is counted).
	 */
	for (missed = hrtimer_forward(t, hrtimer_cb_get_time(t),
				      ns_to_ktime(period_ns));
	     missed > 1 && source_next < nr_frames; missed--) {
		frames[source_next++].submit_ns = FRAME_DROP;
		frame_accounted();
	}
	return source_next < nr_frames ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

static int set_fifo(struct task_struct *t, unsigned int prio)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_FIFO,
		.sched_priority = prio,
	};

	return sched_setattr_nocheck(t, &attr);
}

static int run(bool kthread, unsigned int n, unsigned int period_us,
	       unsigned int job_us, unsigned int submit_us, unsigned int prio)
{
	unsigned int i;
	int ret;

	if (!n || n > MAX_FRAMES || period_us < 1000 || !job_us ||
	    job_us >= period_us * JOB_SLOTS || submit_us >= period_us ||
	    !prio || prio > 99)
		return -EINVAL;
	if (kthread) {
		ret = set_fifo(submit_worker->task, prio);
		if (ret)
			return ret;
	}
	for (i = 0; i < n; i++)
		frames[i] = (struct frame){ .submit_ns = FRAME_DROP };
	for (i = 0; i < JOB_SLOTS; i++)
		atomic_set(&jobs[i].inflight, 0);
	frames_done = 0;
	nr_frames = n;
	source_next = 0;
	period_ns = (u64)period_us * NSEC_PER_USEC;
	job_ns = (u64)job_us * NSEC_PER_USEC;
	submit_spin_ns = (u64)submit_us * NSEC_PER_USEC;
	use_kthread = kthread;
	atomic_set(&frames_accounted, 0);
	reinit_completion(&run_done);

	hrtimer_start(&source_timer, ns_to_ktime(period_ns),
		      HRTIMER_MODE_REL_HARD);
	wait_for_completion(&run_done);
	hrtimer_cancel(&source_timer);
	frames_done = n;
	return 0;
}

/* ---- the other RT work of the system ---- */

static struct task_struct *rt_tasks[MAX_RT_TASKS];
static unsigned int rt_on_us, rt_off_us;

static int rt_task_fn(void *arg)
{
	while (!kthread_should_stop()) {
		u64 end = ktime_get_ns() + (u64)rt_on_us * NSEC_PER_USEC;

		while (ktime_get_ns() < end && !kthread_should_stop())
			cpu_relax();
		usleep_range(rt_off_us, rt_off_us + 10);
	}
	return 0;
}

static void stop_rt_tasks(void)
{
	unsigned int i;

	for (i = 0; i < MAX_RT_TASKS; i++) {
		if (!rt_tasks[i])
			continue;
		kthread_stop(rt_tasks[i]);
		put_task_struct(rt_tasks[i]);
		rt_tasks[i] = NULL;
	}
}

static int start_rt_tasks(unsigned int n, unsigned int prio,
			  unsigned int on_us, unsigned int off_us)
{
	unsigned int i, cpu = cpumask_first(cpu_online_mask);
	int ret;

	stop_rt_tasks();
	if (!n)
		return 0;
	if (n > MAX_RT_TASKS || !prio || prio > 99 || !on_us ||
	    on_us > 100000 || off_us < 100 || off_us > 1000000)
		return -EINVAL;
	rt_on_us = on_us;
	rt_off_us = off_us;
	for (i = 0; i < n; i++) {
		struct task_struct *t;

		t = kthread_create(rt_task_fn, NULL, "wqrt_rt/%u", i);
		if (IS_ERR(t)) {
			stop_rt_tasks();
			return PTR_ERR(t);
		}
		kthread_bind(t, cpu);
		ret = set_fifo(t, prio);
		if (ret) {
			kthread_stop(t);
			stop_rt_tasks();
			return ret;
		}
		get_task_struct(t);
		wake_up_process(t);
		rt_tasks[i] = t;
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	return 0;
}

/* ---- debugfs ---- */

static int run_show(struct seq_file *m, void *v)
{
	unsigned int i;

	mutex_lock(&submit_mutex);
	for (i = 0; i < frames_done; i++)
		if (frames[i].submit_ns == FRAME_DROP)
			seq_printf(m, "%u drop\n", i);
		else
			seq_printf(m, "%u %llu %llu %llu %u\n", i,
				   frames[i].submit_ns, frames[i].free_ns,
				   frames[i].timer_late_ns, frames[i].policy);
	mutex_unlock(&submit_mutex);
	return 0;
}

static int run_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, run_show, NULL,
				(size_t)frames_done * 64 + PAGE_SIZE);
}

static ssize_t cmd_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	const char *which = file->f_path.dentry->d_name.name;
	unsigned int a, b, c, d, e, prio = 50;
	char buf[80], kind[16];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	mutex_lock(&submit_mutex);
	if (!strcmp(which, "run")) {
		if (sscanf(buf, "%15s %u %u %u %u %u", kind, &a, &b, &c, &d,
			   &prio) < 5)
			ret = -EINVAL;
		else if (!strcmp(kind, "wq"))
			ret = run(false, a, b, c, d, prio);
		else if (!strcmp(kind, "kthread"))
			ret = run(true, a, b, c, d, prio);
		else
			ret = -EINVAL;
	} else if (sscanf(buf, "%u %u %u %u", &a, &b, &c, &e) != 4) {
		ret = -EINVAL;
	} else {
		ret = start_rt_tasks(a, b, c, e);
	}
	mutex_unlock(&submit_mutex);
	return ret ? ret : len;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.open = run_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = cmd_write,
};

static const struct file_operations rt_tasks_fops = {
	.owner = THIS_MODULE,
	.write = cmd_write,
};

static int __init wqrt_submit_init(void)
{
	unsigned int i;

	frames = vcalloc(MAX_FRAMES, sizeof(*frames));
	if (!frames)
		return -ENOMEM;
	submit_wq = alloc_workqueue("wqrt_submit", WQ_UNBOUND | WQ_SYSFS, 0);
	if (!submit_wq)
		goto nomem;
	submit_worker = kthread_create_worker(0, "wqrt_submit_kw");
	if (IS_ERR(submit_worker)) {
		destroy_workqueue(submit_wq);
		vfree(frames);
		return PTR_ERR(submit_worker);
	}
	for (i = 0; i < JOB_SLOTS; i++) {
		INIT_WORK(&jobs[i].submit, submit_work_fn);
		INIT_WORK(&jobs[i].free, free_work_fn);
		kthread_init_work(&jobs[i].ksubmit, submit_kwork_fn);
		kthread_init_work(&jobs[i].kfree, free_kwork_fn);
		hrtimer_init(&jobs[i].done_timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_HARD);
		jobs[i].done_timer.function = done_timer_fn;
	}
	hrtimer_init(&source_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	source_timer.function = source_timer_fn;

	submit_dir = debugfs_create_dir("wqrt_submit", NULL);
	debugfs_create_file("run", 0600, submit_dir, NULL, &run_fops);
	debugfs_create_file("rt_tasks", 0200, submit_dir, NULL, &rt_tasks_fops);
	return 0;
nomem:
	vfree(frames);
	return -ENOMEM;
}

static void __exit wqrt_submit_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(submit_dir);
	stop_rt_tasks();
	hrtimer_cancel(&source_timer);
	for (i = 0; i < JOB_SLOTS; i++)
		hrtimer_cancel(&jobs[i].done_timer);
	destroy_workqueue(submit_wq);
	kthread_destroy_worker(submit_worker);
	vfree(frames);
}

module_init(wqrt_submit_init);
module_exit(wqrt_submit_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wqrt benchmark: a drm_sched-shaped submit path");
