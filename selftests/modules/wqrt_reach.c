// SPDX-License-Identifier: GPL-2.0
/*
 * wqrt_reach - workqueues for the tests of workqueue.sysfs= and of names
 * that are taken in sysfs (selftests/daemon/wqrtd_wqsysfs.sh).
 *
 * Allocates, none of them with WQ_SYSFS:
 *
 *   wqrt_reach_unbound   unbound
 *   wqrt_reach_ordered   ordered
 *   wqrt_reach_percpu    per-cpu
 *   wqrt_reach_selfreg   unbound, registered by this driver too
 *
 * which are in sysfs only if workqueue.sysfs= names them (the per-cpu one
 * never), and two WQ_SYSFS workqueues that are both named wqrt_reach_twin,
 * of which only the first can be in sysfs.  Every one of them must be
 * allocated and run a work item, or loading fails: a name that is taken or
 * a pattern that matches must never cost a driver its workqueue.
 * Unloading destroys them all, which must free their names in sysfs.
 *
 * A workqueue that workqueue.sysfs= exposes is in sysfs as soon as it is
 * allocated, as with WQ_SYSFS: the parameter in_sysfs_at_alloc counts those
 * of the unbound and ordered ones without WQ_SYSFS that were.
 *
 * wqrt_reach_selfreg is set up as the kerneldoc of workqueue_sysfs_register()
 * asks a driver to: allocated without WQ_SYSFS, attributes applied, then
 * registered by the driver; selfreg_err is what the registration returned
 * (-EOPNOTSUPP: the kernel does not export what it takes, only the test
 * kernels' debug knobs do).
 *
 * Writing to the parameter "probe" does what a driver does at probe, after
 * its init, on the workqueue wqrt_reach_probe (unbound, no WQ_SYSFS):
 *
 *   alloc     allocate it
 *   apply     apply_workqueue_attrs() with nice 5, affinity_strict 1 and
 *             every CPU, from fresh attributes as a driver has them
 *   register  workqueue_sysfs_register()
 *   free      destroy it
 *   locked    allocate wqrt_reach_locked (unbound, WQ_SYSFS) with
 *             cpus_read_lock() held, as padata allocates under it, and
 *             destroy it: lockdep sees the sysfs registration under the
 *             CPU hotplug lock
 *
 * The write fails with the error of the call.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/namei.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "wqrt_attrs.h"

static struct {
	const char *name;
	unsigned int flags;
	bool ordered;
	bool selfreg;
	struct workqueue_struct *wq;
} reach_wqs[] = {
	{ "wqrt_reach_unbound", WQ_UNBOUND },
	{ "wqrt_reach_ordered", 0, true },
	{ "wqrt_reach_percpu", 0 },
	{ "wqrt_reach_selfreg", WQ_UNBOUND, false, true },
	{ "wqrt_reach_twin", WQ_UNBOUND | WQ_SYSFS },
	{ "wqrt_reach_twin", WQ_UNBOUND | WQ_SYSFS },
};

static atomic_t reach_ran = ATOMIC_INIT(0);

static int in_sysfs_at_alloc;
module_param(in_sysfs_at_alloc, int, 0444);
MODULE_PARM_DESC(in_sysfs_at_alloc,
		 "unbound or ordered workqueues without WQ_SYSFS in sysfs right after their allocation");

static int selfreg_err = -EOPNOTSUPP;
module_param(selfreg_err, int, 0444);
MODULE_PARM_DESC(selfreg_err,
		 "what the driver's own workqueue_sysfs_register() of wqrt_reach_selfreg returned");

static bool in_sysfs(const char *name)
{
	char p[96];
	struct path path;

	snprintf(p, sizeof(p), "/sys/devices/virtual/workqueue/%s", name);
	if (kern_path(p, LOOKUP_FOLLOW, &path))
		return false;
	path_put(&path);
	return true;
}

static void reach_fn(struct work_struct *work)
{
	atomic_inc(&reach_ran);
}

static int reach_fill(struct workqueue_attrs *attrs, void *arg)
{
	attrs->nice = 5;
	attrs->affn_strict = true;
	return 0;
}

/*
 * apply_workqueue_attrs() with nice 5, affinity_strict 1 and every CPU, as a
 * driver applies fresh attributes; -EOPNOTSUPP on a kernel without the test
 * kernels' exports, see wqrt_attrs.h.
 */
static int reach_driver_apply(struct workqueue_struct *wq)
{
	return wqrt_apply_attrs(wq, reach_fill, NULL);
}

/* the driver's own workqueue_sysfs_register(), -EOPNOTSUPP if not exported */
static int reach_driver_register(struct workqueue_struct *wq)
{
	int (*reg)(struct workqueue_struct *wq);
	int ret;

	reg = symbol_get(workqueue_sysfs_register);
	if (!reg)
		return -EOPNOTSUPP;
	ret = reg(wq);
	symbol_put(workqueue_sysfs_register);
	return ret;
}

/* as the kerneldoc of workqueue_sysfs_register() recommends */
static int reach_selfreg(struct workqueue_struct *wq)
{
	int ret = reach_driver_apply(wq);

	return ret ?: reach_driver_register(wq);
}

static void reach_destroy(void)
{
	int i;

	for (i = ARRAY_SIZE(reach_wqs) - 1; i >= 0; i--) {
		if (reach_wqs[i].wq)
			destroy_workqueue(reach_wqs[i].wq);
		reach_wqs[i].wq = NULL;
	}
}

static int __init wqrt_reach_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(reach_wqs); i++) {
		struct work_struct work;

		if (reach_wqs[i].ordered)
			reach_wqs[i].wq = alloc_ordered_workqueue("%s",
					reach_wqs[i].flags, reach_wqs[i].name);
		else
			reach_wqs[i].wq = alloc_workqueue("%s",
					reach_wqs[i].flags, 0, reach_wqs[i].name);
		if (!reach_wqs[i].wq) {
			pr_err("allocating %s (#%d) failed\n",
			       reach_wqs[i].name, i);
			reach_destroy();
			return -ENOMEM;
		}
		if ((reach_wqs[i].flags & WQ_UNBOUND || reach_wqs[i].ordered) &&
		    !(reach_wqs[i].flags & WQ_SYSFS) &&
		    in_sysfs(reach_wqs[i].name))
			in_sysfs_at_alloc++;
		if (reach_wqs[i].selfreg)
			selfreg_err = reach_selfreg(reach_wqs[i].wq);
		INIT_WORK_ONSTACK(&work, reach_fn);
		queue_work(reach_wqs[i].wq, &work);
		flush_work(&work);
		destroy_work_on_stack(&work);
	}
	if (atomic_read(&reach_ran) != ARRAY_SIZE(reach_wqs)) {
		pr_err("%d of %zu work items ran\n", atomic_read(&reach_ran),
		       ARRAY_SIZE(reach_wqs));
		reach_destroy();
		return -EIO;
	}
	pr_info("%zu workqueues allocated, each ran a work item\n",
		ARRAY_SIZE(reach_wqs));
	return 0;
}

/* "probe": what a driver does after its init, see the top of the file */
static DEFINE_MUTEX(probe_mutex);
static struct workqueue_struct *probe_wq;	/* probe_mutex */

static int probe_locked_alloc(void)
{
	struct workqueue_struct *wq;

	cpus_read_lock();
	wq = alloc_workqueue("wqrt_reach_locked", WQ_UNBOUND | WQ_SYSFS, 0);
	cpus_read_unlock();
	if (!wq)
		return -ENOMEM;
	destroy_workqueue(wq);
	return 0;
}

static int probe_set(const char *val, const struct kernel_param *kp)
{
	char buf[16], *cmd;

	strscpy(buf, val, sizeof(buf));
	cmd = strim(buf);

	guard(mutex)(&probe_mutex);
	if (!strcmp(cmd, "alloc")) {
		if (probe_wq)
			return -EBUSY;
		probe_wq = alloc_workqueue("wqrt_reach_probe", WQ_UNBOUND, 0);
		return probe_wq ? 0 : -ENOMEM;
	}
	if (!strcmp(cmd, "locked"))
		return probe_locked_alloc();
	if (!probe_wq)
		return -ENOENT;
	if (!strcmp(cmd, "apply"))
		return reach_driver_apply(probe_wq);
	if (!strcmp(cmd, "register"))
		return reach_driver_register(probe_wq);
	if (!strcmp(cmd, "free")) {
		destroy_workqueue(probe_wq);
		probe_wq = NULL;
		return 0;
	}
	return -EINVAL;
}

static const struct kernel_param_ops probe_ops = {
	.set = probe_set,
};
module_param_cb(probe, &probe_ops, NULL, 0200);
MODULE_PARM_DESC(probe, "alloc|apply|register|free|locked, see the source");

static void __exit wqrt_reach_exit(void)
{
	if (probe_wq)
		destroy_workqueue(probe_wq);
	reach_destroy();
}

module_init(wqrt_reach_init);
module_exit(wqrt_reach_exit);
MODULE_DESCRIPTION("wqrt: workqueues for the workqueue.sysfs= tests");
MODULE_LICENSE("GPL");
