/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * apply_workqueue_attrs() as an in-kernel caller does, for the wqrt test
 * modules. The kernel exports neither it nor its attrs allocator; the test
 * kernels' debug knobs do (kernel/variants/debug-knobs), and elsewhere the
 * call fails with -EOPNOTSUPP.
 */
#ifndef _WQRT_ATTRS_H
#define _WQRT_ATTRS_H

#include <linux/errno.h>
#include <linux/module.h>
#include <linux/workqueue.h>

/**
 * wqrt_apply_attrs - apply fresh attributes to a workqueue
 * @wq: the workqueue
 * @fill: sets the fields of attributes as alloc_workqueue_attrs() made them,
 *	  returns 0 or an error that stops the apply
 * @arg: for @fill
 *
 * Context: process context, may sleep.
 *
 * Return: what apply_workqueue_attrs() returned, @fill's error, -ENOMEM,
 * or -EOPNOTSUPP if the kernel does not export what it takes.
 */
static inline int wqrt_apply_attrs(struct workqueue_struct *wq,
				   int (*fill)(struct workqueue_attrs *attrs,
					       void *arg),
				   void *arg)
{
	struct workqueue_attrs *(*alloc_attrs)(void);
	void (*free_attrs)(struct workqueue_attrs *attrs);
	int (*apply)(struct workqueue_struct *wq,
		     const struct workqueue_attrs *attrs);
	struct workqueue_attrs *attrs;
	int ret = -EOPNOTSUPP;

	alloc_attrs = symbol_get(alloc_workqueue_attrs);
	free_attrs = symbol_get(free_workqueue_attrs);
	apply = symbol_get(apply_workqueue_attrs);
	if (!alloc_attrs || !free_attrs || !apply)
		goto out_put;
	ret = -ENOMEM;
	attrs = alloc_attrs();
	if (!attrs)
		goto out_put;
	ret = fill(attrs, arg);
	if (!ret)
		ret = apply(wq, attrs);
	free_attrs(attrs);
out_put:
	if (apply)
		symbol_put(apply_workqueue_attrs);
	if (free_attrs)
		symbol_put(free_workqueue_attrs);
	if (alloc_attrs)
		symbol_put(alloc_workqueue_attrs);
	return ret;
}

#endif /* _WQRT_ATTRS_H */
