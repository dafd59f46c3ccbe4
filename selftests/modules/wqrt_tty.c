// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_tty - a test tty driver whose ports come and go while data flows,
 * for the tests of the tty flip buffer workqueue's lifetime
 * (selftests/wqrt/tty_flip.c).
 *
 * At load it registers the tty driver "ttyWQRT" (driver_name "wqrt_tty"),
 * whose flip buffer workqueue is "ttyWQRT-wqrt_tty", with no port. Ports
 * are plugged and unplugged like the ports of a USB serial adapter: a
 * plugged port is registered (/dev/ttyWQRT<n>), an unplugged one is
 * unregistered while it may still be open and receiving, hung up, and
 * freed when its last reference goes (tty_port_put()).
 *
 * Every port's receive path (its client_ops) is the tty layer's default
 * one wrapped in checks: how many flush_to_ldisc() instances are in it
 * right now, and whether the task that runs it is a kworker with the
 * scheduling policy the test gave the flip workqueue (policy=fifo: the
 * RT profile of a board). A port whose destruction (tty_port_destroy(),
 * which cancels its flip work and frees its flip buffers) comes while a
 * flush_to_ldisc() still runs on it is counted, and its memory is kept
 * until the module goes away, so that the run can go on and say so.
 *
 * /sys/kernel/debug/wqrt_tty/
 *   info   read: "series=0|1 driver=ttyWQRT wq=ttyWQRT-wqrt_tty ports=N"
 *          (series=1: the tty layer has flip buffer workqueues)
 *   run    write one command, which runs to its end; read its summary,
 *          which ends with result=PASS, FAIL or SKIP (and reason=):
 *
 *   churn secs=S [policy=fifo|any]
 *          ports come and go for S seconds while a feeder pushes data
 *          into every port that is there, the test's readers reading
 *          them; every unplug pushes one more chunk between unregistering
 *          the port and hanging it up, as a UART does whose FIFO still
 *          holds data, and waits for it to be received. FAIL if any
 *          receive ran outside a kworker of the policy, or a port was
 *          destroyed while its flush work ran.
 *   race [policy=fifo]
 *          a port's flush work is held in its receive on the driver's
 *          (RT) workqueue while the port is unplugged, one more chunk
 *          arrives and the port's last reference goes: the port must not
 *          be destroyed before that flush work has returned. The chunk
 *          and the destruction are issued by a FIFO kthread while FIFO
 *          kthreads hold every other CPU, so that no kworker of another
 *          pool could have run the chunk's work item in between.
 *   driver_gone
 *          a second driver ("ttyWQRTg", "wqrt_tty_gone"), whose port is
 *          linked before registration (tty_port_link_device(), as drivers
 *          with static ports do), is unregistered and put while the port
 *          still exists and receives: the data must still be received,
 *          and the driver's workqueue must go when the port does.
 *   register_retry
 *          a third driver ("ttyWQRTr", "wqrt_tty_retry") with a port
 *          linked before registration fails to register (its device name
 *          is taken) and is registered again: the port must be linked to
 *          the workqueue of its driver, and its data received.
 *   reregister
 *          a fourth driver ("ttyWQRTr", "wqrt_tty_again") with a port
 *          linked before registration is registered, unregistered and
 *          registered again, which fails (its devices are still there):
 *          the port, which may be receiving, must keep its link to the
 *          driver's workqueue, and its data must still be received there.
 *   reload_prepare
 *          a module loaded again, as far as the tty layer can tell: a
 *          driver ("ttyWQRTl", "wqrt_tty_reload") whose port is never
 *          destroyed is unregistered and put, and a new driver of the same
 *          names is registered with a port of its own, which stays.
 *   reload_check [policy=fifo]
 *          data for the new driver's port must be received in a kworker of
 *          the policy (the test gave it to the workqueue of that name in
 *          sysfs, which must be the new driver's); then both drivers go.
 *
 * Only exported symbols are used; on a kernel without flip buffer
 * workqueues the commands report result=SKIP.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/tty_flip.h>
#include <linux/tty_ldisc.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "wqrt_run.h"

#ifdef TTY_DRIVER_NO_WORKQUEUE
#define HAVE_FLIP_WQ 1
#else
#define HAVE_FLIP_WQ 0
#endif

#define WQRT_TTY_PORTS	4
#define RESULT_SIZE	2048
#define CHUNK		64

struct wdrv;

struct wport {
	struct tty_port port;
	struct wdrv *drv;
	unsigned int index;
	atomic_t in_receive;	/* flush_to_ldisc() instances in receive_buf */
	atomic_long_t rx_calls;
	bool hold;		/* the next receive waits for race.release */
	struct list_head grave;	/* destroyed while receiving: kept */
};

struct wdrv {
	const char *name, *driver_name;
	unsigned int flags;
	struct tty_driver *tty;
	struct mutex lock;	/* ports[] */
	struct wport *ports[WQRT_TTY_PORTS];
};

/* a driver of the test: its names, its tty driver flags */
#define WDRV(var, dev_name, drv_name, tty_flags)			\
	static struct wdrv var = {					\
		.name = dev_name, .driver_name = drv_name,		\
		.flags = tty_flags,					\
		.lock = __MUTEX_INITIALIZER(var.lock),			\
	}

WDRV(main_drv, "ttyWQRT", "wqrt_tty", TTY_DRIVER_REAL_RAW | TTY_DRIVER_DYNAMIC_DEV);
WDRV(gone_drv, "ttyWQRTg", "wqrt_tty_gone", TTY_DRIVER_REAL_RAW);

#if HAVE_FLIP_WQ
/* two drivers with the same device names: the second fails to register */
WDRV(retry_blocker, "ttyWQRTr", "wqrt_tty_block", TTY_DRIVER_REAL_RAW);
WDRV(retry_drv, "ttyWQRTr", "wqrt_tty_retry", TTY_DRIVER_REAL_RAW);

WDRV(again_drv, "ttyWQRTr", "wqrt_tty_again", TTY_DRIVER_REAL_RAW);

/* the same names, before and after the "reload" */
WDRV(reload_old, "ttyWQRTl", "wqrt_tty_reload", TTY_DRIVER_REAL_RAW | TTY_DRIVER_DYNAMIC_DEV);
WDRV(reload_new, "ttyWQRTl", "wqrt_tty_reload", TTY_DRIVER_REAL_RAW | TTY_DRIVER_DYNAMIC_DEV);

/* the old driver's port, never destroyed by its "module": put at the end */
static struct wport *reload_forgotten;
#endif

/* what the receive path saw; reset by each command */
static struct {
	int want_policy;	/* -1: any */
	atomic_long_t calls, bytes, outside, destroyed_running, freed;
	atomic_long_t plugged, unplugged;
	int outside_policy;	/* policy of the last receive outside */
	char outside_comm[TASK_COMM_LEN];
} st;

static LIST_HEAD(graveyard);
static DEFINE_SPINLOCK(graveyard_lock);

static struct {
	struct completion entered, release;
	int policy;		/* of the held receive's task */
	bool is_worker;
} race;

static DEFINE_MUTEX(run_mutex);
static char *last_result;
static struct dentry *dbg_dir;

/* ------------------------------------------------------------------ */
/* ports                                                               */

static struct wport *to_wport(struct tty_port *port)
{
	return container_of(port, struct wport, port);
}

static bool policy_ok(void)
{
	if (!(current->flags & PF_WQ_WORKER))
		return false;
	return st.want_policy < 0 || current->policy == st.want_policy;
}

static size_t wport_receive_buf(struct tty_port *port, const u8 *p,
				const u8 *f, size_t count)
{
	struct wport *wp = to_wport(port);
	size_t n;

	atomic_inc(&wp->in_receive);
	atomic_long_inc(&wp->rx_calls);
	atomic_long_inc(&st.calls);
	if (!policy_ok()) {
		st.outside_policy = current->policy;
		get_task_comm(st.outside_comm, current);
		atomic_long_inc(&st.outside);
	}
	if (READ_ONCE(wp->hold)) {
		WRITE_ONCE(wp->hold, false);
		race.policy = current->policy;
		race.is_worker = current->flags & PF_WQ_WORKER;
		complete(&race.entered);
		/* bounded: a broken kernel must not keep this kworker forever */
		wait_for_completion_timeout(&race.release, 60 * HZ);
	}
	n = tty_port_default_client_ops.receive_buf(port, p, f, count);
	/* nobody has the port open: the data is consumed here */
	if (!n && !READ_ONCE(port->itty))
		n = count;
	atomic_long_add(n, &st.bytes);
	atomic_dec(&wp->in_receive);
	return n;
}

static void wport_lookahead_buf(struct tty_port *port, const u8 *p,
				const u8 *f, size_t count)
{
	tty_port_default_client_ops.lookahead_buf(port, p, f, count);
}

static void wport_write_wakeup(struct tty_port *port)
{
	tty_port_default_client_ops.write_wakeup(port);
}

static const struct tty_port_client_operations wport_client_ops = {
	.receive_buf = wport_receive_buf,
	.lookahead_buf = wport_lookahead_buf,
	.write_wakeup = wport_write_wakeup,
};

static int wport_activate(struct tty_port *port, struct tty_struct *tty)
{
	return 0;
}

static void wport_shutdown(struct tty_port *port)
{
}

/*
 * The last reference is gone: tty_port_destroy() has just cancelled the
 * port's flip work and freed its flip buffers. A flush_to_ldisc() that
 * still runs on the port would use them, and the port, after this.
 */
static void wport_destruct(struct tty_port *port)
{
	struct wport *wp = to_wport(port);

	if (atomic_read(&wp->in_receive)) {
		atomic_long_inc(&st.destroyed_running);
		pr_err("port %s%u destroyed while a flush_to_ldisc() ran on it\n",
		       wp->drv->name, wp->index);
		spin_lock(&graveyard_lock);
		list_add(&wp->grave, &graveyard);
		spin_unlock(&graveyard_lock);
		return;
	}
	atomic_long_inc(&st.freed);
	kfree(wp);
}

static const struct tty_port_operations wport_ops = {
	.activate = wport_activate,
	.shutdown = wport_shutdown,
	.destruct = wport_destruct,
};

static struct wport *wport_alloc(struct wdrv *d, unsigned int index)
{
	struct wport *wp = kzalloc(sizeof(*wp), GFP_KERNEL);

	if (!wp)
		return NULL;
	tty_port_init(&wp->port);
	wp->port.ops = &wport_ops;
	wp->port.client_ops = &wport_client_ops;
	wp->drv = d;
	wp->index = index;
	INIT_LIST_HEAD(&wp->grave);
	return wp;
}

/* the port @index of @d, with a reference, or NULL */
static struct wport *wport_get(struct wdrv *d, unsigned int index)
{
	struct wport *wp;

	mutex_lock(&d->lock);
	wp = d->ports[index];
	if (wp)
		tty_port_get(&wp->port);
	mutex_unlock(&d->lock);
	return wp;
}

static int wport_plug(struct wdrv *d, unsigned int index)
{
	struct wport *wp;
	struct device *dev;

	wp = wport_alloc(d, index);
	if (!wp)
		return -ENOMEM;
	dev = tty_port_register_device(&wp->port, d->tty, index, NULL);
	if (IS_ERR(dev)) {
		tty_port_put(&wp->port);
		return PTR_ERR(dev);
	}
	mutex_lock(&d->lock);
	d->ports[index] = wp;
	mutex_unlock(&d->lock);
	atomic_long_inc(&st.plugged);
	return 0;
}

static int push(struct wport *wp, size_t n)
{
	static const u8 data[CHUNK] = "wqrt_tty: the quick brown fox ...";

	n = min_t(size_t, n, sizeof(data));
	if (tty_insert_flip_string(&wp->port, data, n) != n)
		return -ENOSPC;
	tty_flip_buffer_push(&wp->port);
	return 0;
}

/* wait up to @ms for a receive on @wp after @since calls */
static bool wait_receive(struct wport *wp, long since, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (atomic_long_read(&wp->rx_calls) == since) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 500);
	}
	return true;
}

/*
 * Unplug port @index as a hot-unplugged serial device goes: unregistered
 * while it may still be open, one last chunk of data received after that
 * (a UART's FIFO, a USB URB in flight), hung up, and the driver's reference
 * dropped; the port is freed when its tty lets go of it.
 */
static int wport_unplug(struct wdrv *d, unsigned int index, bool last_chunk,
			bool *lost)
{
	struct wport *wp;
	long since;

	mutex_lock(&d->lock);
	wp = d->ports[index];
	d->ports[index] = NULL;
	mutex_unlock(&d->lock);
	if (!wp)
		return -ENODEV;

	tty_port_unregister_device(&wp->port, d->tty, index);
	if (last_chunk) {
		since = atomic_long_read(&wp->rx_calls);
		if (!push(wp, CHUNK) && !wait_receive(wp, since, 5000))
			*lost = true;
	}
	tty_port_tty_vhangup(&wp->port);
	atomic_long_inc(&st.unplugged);
	tty_port_put(&wp->port);
	return 0;
}

/* ------------------------------------------------------------------ */
/* the tty driver                                                      */

static struct wport *tty_wport(struct tty_struct *tty)
{
	return tty->driver_data;
}

static int wtty_install(struct tty_driver *driver, struct tty_struct *tty)
{
	struct wdrv *d = driver->driver_state;
	struct wport *wp;
	int ret;

	if (tty->index >= WQRT_TTY_PORTS)
		return -ENODEV;
	wp = wport_get(d, tty->index);
	if (!wp)
		return -ENODEV;
	ret = tty_port_install(&wp->port, driver, tty);
	if (ret) {
		tty_port_put(&wp->port);
		return ret;
	}
	tty->driver_data = wp;
	return 0;
}

static int wtty_open(struct tty_struct *tty, struct file *filp)
{
	return tty_port_open(&tty_wport(tty)->port, tty, filp);
}

static void wtty_close(struct tty_struct *tty, struct file *filp)
{
	tty_port_close(&tty_wport(tty)->port, tty, filp);
}

static void wtty_hangup(struct tty_struct *tty)
{
	tty_port_hangup(&tty_wport(tty)->port);
}

static void wtty_cleanup(struct tty_struct *tty)
{
	struct wport *wp = tty_wport(tty);

	tty->driver_data = NULL;
	if (wp)
		tty_port_put(&wp->port);
}

static ssize_t wtty_write(struct tty_struct *tty, const u8 *buf, size_t count)
{
	return count;
}

static unsigned int wtty_write_room(struct tty_struct *tty)
{
	return 4096;
}

static const struct tty_operations wtty_ops = {
	.install = wtty_install,
	.open = wtty_open,
	.close = wtty_close,
	.hangup = wtty_hangup,
	.cleanup = wtty_cleanup,
	.write = wtty_write,
	.write_room = wtty_write_room,
};

static struct tty_driver *wdrv_alloc(struct wdrv *d)
{
	struct tty_driver *t;

	t = tty_alloc_driver(WQRT_TTY_PORTS, d->flags);
	if (IS_ERR(t))
		return t;
	t->driver_name = d->driver_name;
	t->name = d->name;
	t->type = TTY_DRIVER_TYPE_SERIAL;
	t->subtype = SERIAL_TYPE_NORMAL;
	t->init_termios = tty_std_termios;
	t->init_termios.c_cflag |= CLOCAL;
	t->driver_state = d;
	tty_set_operations(t, &wtty_ops);
	return t;
}

static int wdrv_register(struct wdrv *d)
{
	struct tty_driver *t = wdrv_alloc(d);
	int ret;

	if (IS_ERR(t))
		return PTR_ERR(t);
	ret = tty_register_driver(t);
	if (ret) {
		tty_driver_kref_put(t);
		return ret;
	}
	d->tty = t;
	return 0;
}

/*
 * A driver of @d whose port 0 is linked before registration, as drivers
 * with static ports link theirs (tty_port_link_device()); not registered.
 */
static int wdrv_alloc_static(struct wdrv *d, struct tty_driver **driver,
			     struct wport **port)
{
	struct tty_driver *t = wdrv_alloc(d);
	struct wport *wp;

	if (IS_ERR(t))
		return PTR_ERR(t);
	wp = wport_alloc(d, 0);
	if (!wp) {
		tty_driver_kref_put(t);
		return -ENOMEM;
	}
	tty_port_link_device(&wp->port, t, 0);
	*driver = t;
	*port = wp;
	return 0;
}

/* drop what wdrv_alloc_static() made: the port goes with its last put */
static void wdrv_put_static(struct tty_driver *t, struct wport *wp)
{
	tty_driver_kref_put(t);
	tty_port_put(&wp->port);
}

/* wdrv_alloc_static(), registered; nothing left if that fails */
static int wdrv_register_static(struct wdrv *d, struct tty_driver **driver,
				struct wport **port)
{
	int ret = wdrv_alloc_static(d, driver, port);

	if (ret)
		return ret;
	ret = tty_register_driver(*driver);
	if (ret)
		wdrv_put_static(*driver, *port);
	return ret;
}

/* unplug every port, unregister and put the driver */
static void wdrv_unregister(struct wdrv *d)
{
	bool lost = false;
	unsigned int i;

	if (!d->tty)
		return;
	for (i = 0; i < WQRT_TTY_PORTS; i++)
		wport_unplug(d, i, false, &lost);
	tty_unregister_driver(d->tty);
	tty_driver_kref_put(d->tty);
	d->tty = NULL;
}

/* ------------------------------------------------------------------ */
/* commands                                                            */

static void stats_reset(int want_policy)
{
	st.want_policy = want_policy;
	atomic_long_set(&st.calls, 0);
	atomic_long_set(&st.bytes, 0);
	atomic_long_set(&st.outside, 0);
	atomic_long_set(&st.destroyed_running, 0);
	atomic_long_set(&st.freed, 0);
	atomic_long_set(&st.plugged, 0);
	atomic_long_set(&st.unplugged, 0);
	st.outside_policy = -1;
	st.outside_comm[0] = '\0';
}

static void stats_print(struct seq_buf *out)
{
	seq_buf_printf(out, "receives=%ld bytes=%ld outside=%ld destroyed_running=%ld plugged=%ld unplugged=%ld freed=%ld",
		       atomic_long_read(&st.calls),
		       atomic_long_read(&st.bytes),
		       atomic_long_read(&st.outside),
		       atomic_long_read(&st.destroyed_running),
		       atomic_long_read(&st.plugged),
		       atomic_long_read(&st.unplugged),
		       atomic_long_read(&st.freed));
	if (atomic_long_read(&st.outside))
		seq_buf_printf(out, " outside_comm=%s outside_policy=%d",
			       st.outside_comm, st.outside_policy);
}

static int parse_policy(const char *args, int *policy)
{
	const char *p = strstr(args, "policy=");

	*policy = -1;
	if (!p)
		return 0;
	p += strlen("policy=");
	if (!strncmp(p, "fifo", 4))
		*policy = SCHED_FIFO;
	else if (!strncmp(p, "normal", 6))
		*policy = SCHED_NORMAL;
	else if (strncmp(p, "any", 3))
		return -EINVAL;
	return 0;
}

/* --- churn --------------------------------------------------------- */

static struct {
	atomic_t stop;
	atomic_long_t pushes, lost;
} churn;

static int feeder_fn(void *arg)
{
	unsigned int i;

	while (!kthread_should_stop()) {
		for (i = 0; i < WQRT_TTY_PORTS; i++) {
			struct wport *wp = wport_get(&main_drv, i);

			if (!wp)
				continue;
			if (!push(wp, 1 + get_random_u32_below(CHUNK)))
				atomic_long_inc(&churn.pushes);
			tty_port_put(&wp->port);
		}
		usleep_range(300, 600);
	}
	return 0;
}

static int run_churn(char *args, struct seq_buf *out)
{
	unsigned long end;
	struct task_struct *feeder;
	unsigned int secs = 0, i, cycles = 0;
	int policy, ret;
	char *p;
	bool lost;

	ret = parse_policy(args, &policy);
	if (ret)
		return ret;
	p = strstr(args, "secs=");
	if (!p || sscanf(p, "secs=%u", &secs) != 1 || !secs || secs > 600)
		return -EINVAL;

	stats_reset(policy);
	atomic_long_set(&churn.pushes, 0);
	atomic_long_set(&churn.lost, 0);
	feeder = kthread_run(feeder_fn, NULL, "wqrt_tty_feed");
	if (IS_ERR(feeder))
		return PTR_ERR(feeder);

	for (i = 0; i < WQRT_TTY_PORTS; i++)
		wport_plug(&main_drv, i);
	end = jiffies + secs * HZ;
	while (time_before(jiffies, end)) {
		i = get_random_u32_below(WQRT_TTY_PORTS);
		/* a port stays long enough for a reader to open it */
		msleep(20 + get_random_u32_below(60));
		lost = false;
		if (wport_unplug(&main_drv, i, true, &lost) == -ENODEV)
			wport_plug(&main_drv, i);
		if (lost)
			atomic_long_inc(&churn.lost);
		cycles++;
	}
	kthread_stop(feeder);
	for (i = 0; i < WQRT_TTY_PORTS; i++) {
		lost = false;
		wport_unplug(&main_drv, i, true, &lost);
		if (lost)
			atomic_long_inc(&churn.lost);
	}

	seq_buf_printf(out, "churn secs=%u cycles=%u pushes=%ld lost=%ld ",
		       secs, cycles, atomic_long_read(&churn.pushes),
		       atomic_long_read(&churn.lost));
	stats_print(out);
	seq_buf_printf(out, " result=%s\n",
		       atomic_long_read(&st.outside) ||
		       atomic_long_read(&st.destroyed_running) ||
		       atomic_long_read(&churn.lost) ||
		       !atomic_long_read(&st.bytes) ? "FAIL" : "PASS");
	return 0;
}

/* --- race ---------------------------------------------------------- */

static struct {
	struct wport *wp;
	struct task_struct *x;
	atomic_t go, spinning, stop;
	wait_queue_head_t go_wait;
	struct completion done;
	int nhogs;
} rc;

/* hold a CPU, at an RT priority, until the destroying kthread sleeps */
static int hog_fn(void *arg)
{
	wait_event(rc.go_wait, atomic_read(&rc.go) || kthread_should_stop());
	atomic_inc(&rc.spinning);
	while (!atomic_read(&rc.stop) && !kthread_should_stop() &&
	       task_is_running(rc.x))
		cpu_relax();
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int destroyer_fn(void *arg)
{
	struct wport *wp = rc.wp;

	/* may sleep: the device goes away */
	tty_port_unregister_device(&wp->port, main_drv.tty, wp->index);

	/* from here on no sleep until the flip work is cancelled */
	atomic_set(&rc.go, 1);
	wake_up_all(&rc.go_wait);
	while (atomic_read(&rc.spinning) < rc.nhogs)
		cpu_relax();
	push(wp, CHUNK);
	/* the only reference: the port is destroyed right here */
	tty_port_put(&wp->port);
	atomic_set(&rc.stop, 1);
	complete(&rc.done);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static int run_race(char *args, struct seq_buf *out)
{
	struct task_struct **hogs;
	unsigned int cpu, xcpu = UINT_MAX;
	bool done_early, released = false, started = false;
	int policy, ret, i = 0;

	ret = parse_policy(args, &policy);
	if (ret)
		return ret;
	if (num_online_cpus() < 2) {
		seq_buf_printf(out, "race result=SKIP reason=needs_2_cpus\n");
		return 0;
	}
	hogs = kcalloc(nr_cpu_ids, sizeof(*hogs), GFP_KERNEL);
	if (!hogs)
		return -ENOMEM;
	stats_reset(policy);
	memset(&rc, 0, sizeof(rc));
	init_waitqueue_head(&rc.go_wait);
	init_completion(&rc.done);
	init_completion(&race.entered);
	init_completion(&race.release);

	ret = wport_plug(&main_drv, 0);
	if (ret)
		goto out_free;
	mutex_lock(&main_drv.lock);
	rc.wp = main_drv.ports[0];
	main_drv.ports[0] = NULL;	/* the feeder's table: ours now */
	mutex_unlock(&main_drv.lock);

	/* 1. a flush_to_ldisc() of the port, held in its receive */
	WRITE_ONCE(rc.wp->hold, true);
	push(rc.wp, CHUNK);
	if (!wait_for_completion_timeout(&race.entered, 10 * HZ)) {
		seq_buf_printf(out, "race result=FAIL reason=flush_work_never_ran\n");
		WRITE_ONCE(rc.wp->hold, false);
		tty_port_unregister_device(&rc.wp->port, main_drv.tty, 0);
		tty_port_put(&rc.wp->port);
		goto out_free;
	}
	if (!race.is_worker || (policy >= 0 && race.policy != policy)) {
		/* same pool as the fallback: nothing to see */
		seq_buf_printf(out, "race result=SKIP reason=flush_work_not_in_policy_%d_worker policy=%d\n",
			       policy, race.policy);
		complete(&race.release);
		tty_port_unregister_device(&rc.wp->port, main_drv.tty, 0);
		tty_port_put(&rc.wp->port);
		goto out_free;
	}

	/* 2. the destroyer on one CPU, hogs on the others (no hotplug now) */
	for_each_online_cpu(cpu) {
		if (xcpu == UINT_MAX) {
			xcpu = cpu;
			continue;
		}
		rc.nhogs++;
	}
	rc.x = kthread_create(destroyer_fn, NULL, "wqrt_tty_x");
	if (IS_ERR(rc.x)) {
		ret = PTR_ERR(rc.x);
		rc.x = NULL;
		goto out_release;
	}
	kthread_bind(rc.x, xcpu);
	sched_set_fifo(rc.x);
	for_each_online_cpu(cpu) {
		if (cpu == xcpu)
			continue;
		hogs[i] = kthread_create(hog_fn, NULL, "wqrt_tty_hog/%u", cpu);
		if (IS_ERR(hogs[i])) {
			ret = PTR_ERR(hogs[i]);
			hogs[i] = NULL;
			atomic_set(&rc.stop, 1);
			goto out_release;
		}
		kthread_bind(hogs[i], cpu);
		sched_set_fifo_low(hogs[i]);
		wake_up_process(hogs[i]);
		i++;
	}
	wake_up_process(rc.x);
	started = true;

	/*
	 * 3. The destroyer may return only after the held flush_to_ldisc()
	 * has: it does at once if it does not wait for it at all, and a
	 * kernel that waits keeps it until the release below. The bound is a
	 * timeout for that wait, not a condition of the result: on a correct
	 * kernel the destroyer never returns before the release.
	 */
	done_early = wait_for_completion_timeout(&rc.done, 3 * HZ);
	complete(&race.release);
	released = true;
	if (!done_early && !wait_for_completion_timeout(&rc.done, 30 * HZ)) {
		seq_buf_printf(out, "race result=FAIL reason=destroyer_hung\n");
		/* stuck where it is: do not wait for it */
		rc.x = NULL;
		goto out_release;
	}

	seq_buf_printf(out, "race cpus=%u destroyer_cpu=%u held_policy=%d destroyed_before_release=%d ",
		       num_online_cpus(), xcpu, race.policy, done_early);
	stats_print(out);
	seq_buf_printf(out, " result=%s\n",
		       done_early || atomic_long_read(&st.destroyed_running) ?
		       "FAIL" : "PASS");

out_release:
	if (!released)
		complete(&race.release);
	if (!started) {
		tty_port_unregister_device(&rc.wp->port, main_drv.tty, 0);
		tty_port_put(&rc.wp->port);
	}
	atomic_set(&rc.stop, 1);
	for (i = 0; i < nr_cpu_ids; i++)
		if (hogs[i])
			kthread_stop(hogs[i]);
	if (rc.x)
		kthread_stop(rc.x);
out_free:
	kfree(hogs);
	return ret;
}

/* --- driver_gone --------------------------------------------------- */

static int run_driver_gone(char *args, struct seq_buf *out)
{
	struct tty_driver *t;
	struct wport *wp;
	long since;
	bool before, after;
	int ret;

	if (!HAVE_FLIP_WQ) {
		seq_buf_printf(out, "driver_gone result=SKIP reason=no_flip_workqueues\n");
		return 0;
	}
	stats_reset(-1);
	/* a static port: linked before registration, never registered */
	ret = wdrv_register_static(&gone_drv, &t, &wp);
	if (ret)
		return ret;

	since = atomic_long_read(&wp->rx_calls);
	push(wp, CHUNK);
	before = wait_receive(wp, since, 5000);

	/* the driver goes, the port is still there */
	tty_unregister_driver(t);
	tty_driver_kref_put(t);

	/* and data still arrives for it */
	since = atomic_long_read(&wp->rx_calls);
	push(wp, CHUNK);
	after = wait_receive(wp, since, 5000);
	/*
	 * Data that never arrived was queued on a workqueue that is gone:
	 * cancelling its work item could spin for ever. Keep the port.
	 */
	if (after)
		tty_port_put(&wp->port);

	seq_buf_printf(out, "driver_gone received_before=%d received_after=%d ",
		       before, after);
	stats_print(out);
	seq_buf_printf(out, " result=%s\n",
		       before && after &&
		       !atomic_long_read(&st.destroyed_running) ? "PASS" : "FAIL");
	return 0;
}

/*
 * The commands below need flip buffer workqueues; on a kernel without
 * them, run_cmd() reports each as skipped.
 */
#if HAVE_FLIP_WQ

/* --- register_retry ------------------------------------------------ */

static int run_register_retry(char *args, struct seq_buf *out)
{
	struct tty_driver *t;
	struct wport *wp;
	bool stale_after_failure, linked_after_retry, received = false;
	long since;
	int first, ret;

	stats_reset(-1);
	/* ttyWQRTr0..3 exist: the next ttyWQRTr driver cannot register */
	ret = wdrv_register(&retry_blocker);
	if (ret)
		return ret;

	ret = wdrv_alloc_static(&retry_drv, &t, &wp);
	if (ret) {
		wdrv_unregister(&retry_blocker);
		return ret;
	}

	first = tty_register_driver(t);
	/* a failed registration must leave no port on a workqueue it freed */
	stale_after_failure = first && wp->port.buf.flip_wq &&
			      wp->port.buf.flip_wq != t->flip_wq;

	tty_unregister_driver(retry_blocker.tty);
	tty_driver_kref_put(retry_blocker.tty);
	retry_blocker.tty = NULL;

	ret = tty_register_driver(t);
	linked_after_retry = !ret && t->flip_wq &&
			     wp->port.buf.flip_wq == t->flip_wq;
	/* never queue on a freed workqueue: only push when linked right */
	if (linked_after_retry) {
		since = atomic_long_read(&wp->rx_calls);
		push(wp, CHUNK);
		received = wait_receive(wp, since, 5000);
	}
	if (!ret)
		tty_unregister_driver(t);
	/* its flip work never ran where it was not linked right */
	wdrv_put_static(t, wp);

	seq_buf_printf(out, "register_retry first=%d stale_after_failure=%d retry=%d linked_after_retry=%d received=%d ",
		       first, stale_after_failure, ret, linked_after_retry,
		       received);
	stats_print(out);
	seq_buf_printf(out, " result=%s\n",
		       first && !stale_after_failure && !ret &&
		       linked_after_retry && received ? "PASS" : "FAIL");
	return 0;
}

/* --- reregister ---------------------------------------------------- */

static int run_reregister(char *args, struct seq_buf *out)
{
	bool linked_first, received_first, kept_link, received_after = false;
	struct tty_driver *t;
	struct wport *wp;
	long since;
	int again, ret;

	stats_reset(-1);
	ret = wdrv_register_static(&again_drv, &t, &wp);
	if (ret)
		return ret;
	linked_first = t->flip_wq && wp->port.buf.flip_wq == t->flip_wq;
	since = atomic_long_read(&wp->rx_calls);
	received_first = linked_first && !push(wp, CHUNK) &&
			 wait_receive(wp, since, 5000);

	tty_unregister_driver(t);
	/* its devices go only with the driver: this one fails */
	again = tty_register_driver(t);
	if (!again)
		tty_unregister_driver(t);

	/* the port was receiving all along: its link is not the retry's */
	kept_link = t->flip_wq && wp->port.buf.flip_wq == t->flip_wq;
	if (kept_link) {
		since = atomic_long_read(&wp->rx_calls);
		received_after = !push(wp, CHUNK) &&
				 wait_receive(wp, since, 5000);
	}
	/* not linked right: its flip work ran elsewhere, done by now */
	wdrv_put_static(t, wp);

	seq_buf_printf(out, "reregister linked_first=%d received_first=%d again=%d kept_link=%d received_after=%d ",
		       linked_first, received_first, again, kept_link,
		       received_after);
	stats_print(out);
	seq_buf_printf(out, " result=%s\n",
		       linked_first && received_first && again && kept_link &&
		       received_after ? "PASS" : "FAIL");
	return 0;
}

/* --- reload_prepare, reload_check ---------------------------------- */

/* the new driver and the old one's port; idempotent */
static void reload_cleanup(void)
{
	wdrv_unregister(&reload_new);
	if (reload_forgotten) {
		/* drops the old driver, and with it its workqueue */
		tty_port_put(&reload_forgotten->port);
		reload_forgotten = NULL;
	}
}

static int run_reload_prepare(char *args, struct seq_buf *out)
{
	struct tty_driver *t;
	struct wport *wp;
	bool old_linked;
	int ret;

	reload_cleanup();
	stats_reset(-1);
	ret = wdrv_register(&reload_old);
	if (ret)
		return ret;
	ret = wport_plug(&reload_old, 0);
	if (ret) {
		wdrv_unregister(&reload_old);
		return ret;
	}
	t = reload_old.tty;
	wp = reload_old.ports[0];
	old_linked = t->flip_wq && wp->port.buf.flip_wq == t->flip_wq;

	/* the old module's exit: its port is never destroyed */
	mutex_lock(&reload_old.lock);
	reload_old.ports[0] = NULL;
	mutex_unlock(&reload_old.lock);
	tty_unregister_device(t, 0);
	reload_forgotten = wp;
	tty_unregister_driver(t);
	tty_driver_kref_put(t);
	reload_old.tty = NULL;

	/* the module loaded again */
	ret = wdrv_register(&reload_new);
	if (!ret)
		ret = wport_plug(&reload_new, 0);
	if (ret) {
		reload_cleanup();
		return ret;
	}
	seq_buf_printf(out, "reload_prepare old_linked=%d result=%s\n",
		       old_linked, old_linked ? "PASS" : "FAIL");
	return 0;
}

static int run_reload_check(char *args, struct seq_buf *out)
{
	bool received = false;
	struct wport *wp;
	int policy, ret;
	long since;

	ret = parse_policy(args, &policy);
	if (ret)
		return ret;
	wp = wport_get(&reload_new, 0);
	if (!wp)
		return -ENODEV;
	stats_reset(policy);
	since = atomic_long_read(&wp->rx_calls);
	received = !push(wp, CHUNK) && wait_receive(wp, since, 5000);
	tty_port_put(&wp->port);
	reload_cleanup();

	seq_buf_printf(out, "reload_check received=%d ", received);
	stats_print(out);
	seq_buf_printf(out, " result=%s\n",
		       received && !atomic_long_read(&st.outside) ?
		       "PASS" : "FAIL");
	return 0;
}
#endif /* HAVE_FLIP_WQ */

/* ------------------------------------------------------------------ */
/* debugfs                                                             */

static ssize_t run_cmd(char *args, struct seq_buf *out)
{
	char *cmd = strsep(&args, " \n");

	if (!args)
		args = "";
	if (!strcmp(cmd, "churn"))
		return run_churn(args, out);
	if (!strcmp(cmd, "race"))
		return run_race(args, out);
	if (!strcmp(cmd, "driver_gone"))
		return run_driver_gone(args, out);
#if HAVE_FLIP_WQ
	if (!strcmp(cmd, "register_retry"))
		return run_register_retry(args, out);
	if (!strcmp(cmd, "reregister"))
		return run_reregister(args, out);
	if (!strcmp(cmd, "reload_prepare"))
		return run_reload_prepare(args, out);
	if (!strcmp(cmd, "reload_check"))
		return run_reload_check(args, out);
#else
	if (!strcmp(cmd, "register_retry") || !strcmp(cmd, "reregister") ||
	    !strcmp(cmd, "reload_prepare") || !strcmp(cmd, "reload_check")) {
		seq_buf_printf(out, "%s result=SKIP reason=no_flip_workqueues\n",
			       cmd);
		return 0;
	}
#endif
	return -EINVAL;
}

static ssize_t run_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	return wqrt_run_write(&run_mutex, &last_result, RESULT_SIZE, ubuf, len,
			      256, run_cmd);
}

static ssize_t run_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&run_mutex);
	ret = simple_read_from_buffer(ubuf, len, ppos, last_result ?: "",
				      last_result ? strlen(last_result) : 0);
	mutex_unlock(&run_mutex);
	return ret;
}

static const struct file_operations run_fops = {
	.owner = THIS_MODULE,
	.write = run_write,
	.read = run_read,
	.llseek = default_llseek,
};

static ssize_t info_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	char buf[128];
	int n;

	n = scnprintf(buf, sizeof(buf), "series=%d driver=%s wq=%s-%s ports=%d\n",
		      HAVE_FLIP_WQ, main_drv.name, main_drv.name,
		      main_drv.driver_name, WQRT_TTY_PORTS);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations info_fops = {
	.owner = THIS_MODULE,
	.read = info_read,
	.llseek = default_llseek,
};

static int __init wqrt_tty_init(void)
{
	int ret;

	ret = wdrv_register(&main_drv);
	if (ret) {
		pr_err("registering %s failed: %d\n", main_drv.name, ret);
		return ret;
	}
	dbg_dir = debugfs_create_dir("wqrt_tty", NULL);
	debugfs_create_file("info", 0444, dbg_dir, NULL, &info_fops);
	debugfs_create_file("run", 0644, dbg_dir, NULL, &run_fops);
	return 0;
}

static void __exit wqrt_tty_exit(void)
{
	struct wport *wp, *next;

	debugfs_remove_recursive(dbg_dir);
#if HAVE_FLIP_WQ
	/* a test stopped between reload_prepare and reload_check */
	reload_cleanup();
#endif
	wdrv_unregister(&main_drv);
	/* the ports destroyed too early: their flush work is long over */
	list_for_each_entry_safe(wp, next, &graveyard, grave) {
		list_del(&wp->grave);
		kfree(wp);
	}
	kfree(last_result);
}

module_init(wqrt_tty_init);
module_exit(wqrt_tty_exit);
MODULE_DESCRIPTION("wqrt: a tty driver whose ports come and go, for the flip workqueue tests");
MODULE_LICENSE("GPL");
