/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The command files of the wqrt test modules: user space writes a command
 * and its arguments to a debugfs file, the module runs it, and a read of
 * the file returns what the last command that succeeded printed.
 */
#ifndef _WQRT_RUN_H
#define _WQRT_RUN_H

#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

/**
 * wqrt_run_write - run the command written to a command file
 * @lock: held across the run: one command at a time, and *@result
 * @result: what the last command that succeeded printed; replaced by this
 *	    command's output if it succeeds, kept if it fails
 * @size: room for the output
 * @ubuf: what user space wrote: the command and its arguments
 * @len: its length, 1 to @max_len
 * @max_len: the longest write taken
 * @run: the command: prints to @out, returns >= 0 on success
 *
 * Context: process context, may sleep; takes @lock.
 *
 * Return: @len, the command's error, -EINVAL for an empty or too long
 * write, -EFAULT or -ENOMEM.
 */
static inline ssize_t wqrt_run_write(struct mutex *lock, char **result,
				     size_t size, const char __user *ubuf,
				     size_t len, size_t max_len,
				     ssize_t (*run)(char *args,
						    struct seq_buf *out))
{
	struct seq_buf sb;
	char *args, *res;
	ssize_t ret;

	if (!len || len > max_len)
		return -EINVAL;
	args = memdup_user_nul(ubuf, len);
	if (IS_ERR(args))
		return PTR_ERR(args);
	res = kzalloc(size, GFP_KERNEL);
	if (!res) {
		kfree(args);
		return -ENOMEM;
	}
	seq_buf_init(&sb, res, size);

	mutex_lock(lock);
	ret = run(args, &sb);
	if (ret >= 0) {
		kfree(*result);
		*result = res;
		res = NULL;
		ret = len;
	}
	mutex_unlock(lock);

	kfree(res);
	kfree(args);
	return ret;
}

#endif /* _WQRT_RUN_H */
