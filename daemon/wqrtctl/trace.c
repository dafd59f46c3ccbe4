// SPDX-License-Identifier: GPL-2.0-only
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

/* the tracefs removals that failed in this process */
static unsigned int failures;

unsigned int trace_failures(void)
{
	return failures;
}

/* Each one said, and counted for the exit status */
static int say_failures(struct strlist *errors)
{
	size_t i;
	int n = errors->n;

	for (i = 0; i < errors->n; i++)
		fprintf(stderr, "wqrtctl: %s\n", errors->v[i]);
	failures += errors->n;
	strlist_free(errors);
	return n;
}

int trace_check(const char *dir, char *why, size_t size)
{
	static const struct {
		const char *path; /* under the tracing directory */
		const char *option;
		const char *what;
	} needs[] = {
		{ "events/workqueue/workqueue_queue_work", "CONFIG_EVENT_TRACING",
		  "the workqueue trace events" },
		{ "synthetic_events", "CONFIG_SYNTH_EVENTS",
		  "synthetic events (queued -> started -> ended)" },
		{ "events/workqueue/workqueue_queue_work/hist",
		  "CONFIG_HIST_TRIGGERS",
		  "histogram triggers (the in-kernel aggregation)" },
	};
	size_t miss[ARRAY_SIZE(needs)], i, n = 0, len;
	char path[WQRT_PATH_MAX];
	struct stat st;

	why[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(needs); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, needs[i].path);
		if (!stat(path, &st))
			continue;
		/* without the events, there is no hist file to look for */
		if (i == 2 && n && miss[0] == 0)
			continue;
		miss[n++] = i;
	}
	if (!n)
		return 0;
	len = snprintf(why, size, "this kernel lacks ");
	for (i = 0; i < n && len < size; i++)
		len += snprintf(why + len, size - len, "%s%s (%s)",
				i == 0	   ? "" :
				i == n - 1 ? " and " :
					     ", ",
				needs[miss[i]].option, needs[miss[i]].what);
	if (len < size)
		snprintf(why + len, size - len,
			 ": wqrtctl latency, who and try need %s (kernel/configs/board.config has %s)",
			 n > 1 ? "them" : "it", n > 1 ? "them" : "it");
	return -ENOTSUP;
}

/* The kernel's own words on the last failed write, appended to why */
static void kernel_error(struct tracefs_instance *inst, char *why, size_t size)
{
	char *err = tracefs_error_last(inst);
	size_t len = strlen(why);

	if (err && *err && len < size) {
		err[strcspn(err, "\n")] = '\0';
		snprintf(why + len, size - len, " (tracefs error_log: %s)",
			 err);
	}
	free(err);
}

/*
 * The tracing directory: a fake root's (its tracefs files are plain ones,
 * which libtracefs is pointed at), or libtracefs's, mounted if need be
 */
static int find_dir(const char *root, char *dir, size_t size, char *why,
		    size_t why_size)
{
	const char *d = NULL;

	if (!root_is_real(root)) {
		if (tracedir_find(root, dir, size) ||
		    tracefs_set_tracing_dir(dir) < 0) {
			snprintf(why, why_size,
				 "no tracing directory under %s (sys/kernel/tracing/instances)",
				 root);
			return -ENOTSUP;
		}
		return 0;
	}
	/*
	 * tracefs_tracing_dir() mounts tracefs if need be and keeps the path
	 * (tracefs_tracing_dir_is_mounted() hands out one that nobody frees)
	 */
	d = tracefs_tracing_dir();
	if (!d) {
		/* only root may mount it: not a kernel without tracing */
		if (geteuid()) {
			snprintf(why, why_size,
				 "tracefs is not mounted, and only root may mount it: run wqrtctl as root");
			return -EACCES;
		}
		snprintf(why, why_size,
			 "no tracefs: the kernel lacks CONFIG_FTRACE (or tracefs cannot be mounted on /sys/kernel/tracing)");
		return -ENOTSUP;
	}
	/* tracefs is root's alone (mode 0700) unless the board says otherwise */
	if (access(d, R_OK | W_OK | X_OK)) {
		int err = errno;

		snprintf(why, why_size, "%s: %s: run wqrtctl as root", d,
			 strerror(err));
		return err == EACCES || err == EPERM ? -EACCES : -err;
	}
	snprintf(dir, size, "%s", d);
	return 0;
}

int trace_usable(const char *root, char *why, size_t size)
{
	char dir[WQRT_PATH_MAX];

	return find_dir(root, dir, sizeof(dir), why, size);
}

int trace_start(struct trace_sess *s, const char *root, char *why,
		size_t size)
{
	struct strlist errors = { 0 };
	int err, removed;

	memset(s, 0, sizeof(*s));
	sys_ops_for_root(&s->ops, root);
	err = find_dir(root, s->dir, sizeof(s->dir), why, size);
	if (err)
		return err;
	/* what killed runs left, even where this one cannot run */
	tracedir_clean(&s->ops, s->dir, getpid(), &removed, &errors);
	say_failures(&errors);
	err = trace_check(s->dir, why, size);
	if (err)
		return err;
	snprintf(s->name, sizeof(s->name), TRACE_PREFIX "-%d", (int)getpid());
	snprintf(s->synth_prefix, sizeof(s->synth_prefix), TRACE_PREFIX "_%d_",
		 (int)getpid());
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		err = errno ? errno : EIO;
		snprintf(why, size, "cannot create the tracefs instance %s: %s",
			 s->name, strerror(err));
		return -err;
	}
	/*
	 * Histograms need no ring buffer: the events only feed the
	 * triggers. Keep the instance's buffer small (the smallest the
	 * kernel takes) instead of the default size on every CPU.
	 */
	tracefs_instance_set_buffer_size(s->inst, 4, -1);
	tracefs_error_clear(s->inst);
	return 0;
}

int trace_synth(struct trace_sess *s, const char *suffix, const char *fields,
		char *name, size_t name_size, char *why, size_t size)
{
	char cmd[512];

	snprintf(name, name_size, "%s%s", s->synth_prefix, suffix);
	snprintf(cmd, sizeof(cmd), "%s %s", name, fields);
	tracefs_error_clear(NULL);
	if (tracefs_instance_file_append(NULL, "synthetic_events", cmd) < 0) {
		int err = errno ? errno : EIO;

		snprintf(why, size, "cannot create the synthetic event %s: %s",
			 cmd, strerror(err));
		kernel_error(NULL, why, size);
		return -err;
	}
	return 0;
}

int trace_trigger(struct trace_sess *s, const char *system, const char *event,
		  const char *trigger, char *why, size_t size)
{
	tracefs_error_clear(s->inst);
	if (tracefs_event_file_append(s->inst, system, event, "trigger",
				      trigger) < 0) {
		int err = errno ? errno : EIO;

		snprintf(why, size, "%s/%s: cannot add the trigger %s: %s",
			 system, event, trigger, strerror(err));
		kernel_error(s->inst, why, size);
		return -err;
	}
	return 0;
}

char *trace_hist(struct trace_sess *s, const char *system, const char *event)
{
	return tracefs_event_file_read(s->inst, system, event, "hist", NULL);
}

const char *trace_hist_named(const char *text, const char *name, size_t *len)
{
	char want[128];
	const char *p, *end;

	/*
	 * A named histogram prints its name as written: 6.12 keeps the
	 * "name=" of the trigger (hist:name=NAME:keys=...); take the bare
	 * form too (hist:NAME:keys=...), should a kernel print it so.
	 */
	snprintf(want, sizeof(want), "# trigger info: hist:name=%s:keys=",
		 name);
	p = strstr(text, want);
	if (!p) {
		snprintf(want, sizeof(want), "# trigger info: hist:%s:keys=",
			 name);
		p = strstr(text, want);
	}
	if (!p)
		return NULL;
	/* up to the next histogram's header */
	end = strstr(p + strlen(want), "# event histogram");
	*len = end ? (size_t)(end - p) : strlen(p);
	return p;
}

int trace_close(struct trace_sess *s)
{
	struct strlist errors = { 0 };

	if (!s->inst)
		return 0;
	/* the triggers, the instance, then the events no trigger uses now */
	tracedir_remove(&s->ops, s->dir, s->name, s->synth_prefix, &errors);
	tracefs_instance_free(s->inst);
	s->inst = NULL;
	return say_failures(&errors);
}
