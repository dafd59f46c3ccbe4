// SPDX-License-Identifier: GPL-2.0-only
#include "task.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int task_parse_stat(const char *stat, struct task_info *t)
{
	const char *open = strchr(stat, '('), *close = strrchr(stat, ')');
	unsigned long long field[52];
	const char *p;
	int n = 2;
	char *end;

	if (!open || !close || close < open)
		return -EINVAL;
	t->pid = strtol(stat, NULL, 10);
	snprintf(t->comm, sizeof(t->comm), "%.*s", (int)(close - open - 1),
		 open + 1);
	p = close + 1;
	/* field 3 is the state letter */
	while (*p == ' ')
		p++;
	if (!*p)
		return -EINVAL;
	t->state = *p++;
	for (n = 4; n < 52 && *p; n++) {
		long long v = strtoll(p, &end, 10);

		if (end == p)
			break;
		field[n] = (unsigned long long)v;
		p = end;
	}
	if (n <= 41)
		return -EINVAL;
	t->ppid = (pid_t)field[4];
	t->flags = (unsigned int)field[9];
	t->nice = (int)(long long)field[19];
	t->start = field[22];
	t->rtprio = (int)field[40];
	t->policy = (int)field[41];
	return 0;
}

int task_read(const char *root, pid_t pid, struct task_info *t)
{
	char path[WQRT_PATH_MAX], buf[1024];
	int err;

	err = path_fmt(path, sizeof(path), root, "/proc/%d/stat", (int)pid);
	if (!err)
		err = read_text(path, buf, sizeof(buf));
	if (err)
		return err == -ESRCH ? -ENOENT : err;
	return task_parse_stat(buf, t);
}

bool task_same_kthread(const char *root, pid_t pid, unsigned long long start,
		       struct task_info *t)
{
	return !task_read(root, pid, t) && t->start == start &&
	       (t->flags & PF_KTHREAD) && t->ppid == KTHREADD_PID;
}

bool task_has_slept(const char *root, pid_t pid)
{
	static const char key[] = "\nvoluntary_ctxt_switches:";
	char path[WQRT_PATH_MAX], *buf;
	const char *p;
	bool slept;

	/* sized from the file: its cpu lists grow with the machine */
	if (path_fmt(path, sizeof(path), root, "/proc/%d/status", (int)pid) ||
	    read_text_alloc(path, &buf))
		return true;
	p = strstr(buf, key);
	slept = !p || strtoul(p + sizeof(key) - 1, NULL, 10) > 0;
	free(buf);
	return slept;
}

bool task_is_kworker(const struct task_info *t)
{
	return t->ppid == KTHREADD_PID && (t->flags & PF_KTHREAD) &&
	       !strncmp(t->comm, "kworker/", 8);
}
