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
 *
 * which are in sysfs only if workqueue.sysfs= names them (the per-cpu one
 * never), and two WQ_SYSFS workqueues that are both named wqrt_reach_twin,
 * of which only the first can be in sysfs.  Every one of them must be
 * allocated and run a work item, or loading fails: a name that is taken or
 * a pattern that matches must never cost a driver its workqueue.
 * Unloading destroys them all, which must free their names in sysfs.
 *
 * A workqueue that only workqueue.sysfs= exposes must not be in sysfs while
 * its driver still sets it up, here in this init: the module parameter
 * in_sysfs_during_init counts those that were.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/namei.h>
#include <linux/workqueue.h>

static struct {
	const char *name;
	unsigned int flags;
	bool ordered;
	struct workqueue_struct *wq;
} reach_wqs[] = {
	{ "wqrt_reach_unbound", WQ_UNBOUND },
	{ "wqrt_reach_ordered", 0, true },
	{ "wqrt_reach_percpu", 0 },
	{ "wqrt_reach_twin", WQ_UNBOUND | WQ_SYSFS },
	{ "wqrt_reach_twin", WQ_UNBOUND | WQ_SYSFS },
};

static atomic_t reach_ran = ATOMIC_INIT(0);

static int in_sysfs_during_init;
module_param(in_sysfs_during_init, int, 0444);
MODULE_PARM_DESC(in_sysfs_during_init,
		 "workqueues without WQ_SYSFS that were in sysfs while the init ran");

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
		INIT_WORK_ONSTACK(&work, reach_fn);
		queue_work(reach_wqs[i].wq, &work);
		flush_work(&work);
		destroy_work_on_stack(&work);
	}
	/* still setting them up: the parameter's ones are not in sysfs yet */
	for (i = 0; i < ARRAY_SIZE(reach_wqs); i++)
		if (!(reach_wqs[i].flags & WQ_SYSFS) &&
		    in_sysfs(reach_wqs[i].name))
			in_sysfs_during_init++;
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

static void __exit wqrt_reach_exit(void)
{
	reach_destroy();
}

module_init(wqrt_reach_init);
module_exit(wqrt_reach_exit);
MODULE_DESCRIPTION("wqrt: workqueues for the workqueue.sysfs= tests");
MODULE_LICENSE("GPL");
