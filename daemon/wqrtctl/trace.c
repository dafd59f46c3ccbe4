// SPDX-License-Identifier: GPL-2.0-only
#include "trace.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tracefs.h>

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

const char *trace_dir(char *why, size_t size)
{
	const char *dir = NULL;

	if (tracefs_tracing_dir_is_mounted(true, &dir) < 0 || !dir) {
		snprintf(why, size,
			 "no tracefs: the kernel lacks CONFIG_FTRACE (or tracefs cannot be mounted on /sys/kernel/tracing)");
		return NULL;
	}
	return dir;
}

bool trace_owner_alive(const char *root, pid_t pid)
{
	char path[WQRT_PATH_MAX], comm[32];

	if (pid <= 0 || path_fmt(path, sizeof(path), root, "/proc/%d/comm",
				 (int)pid))
		return false;
	return !read_text(path, comm, sizeof(comm)) &&
	       !strcmp(comm, TRACE_PREFIX);
}

/* "wqrtctl-PID" or "wqrtctl_PID_...": PID, or 0 */
static pid_t owner_of(const char *name)
{
	size_t n = strlen(TRACE_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, TRACE_PREFIX, n) ||
	    (name[n] != '-' && name[n] != '_'))
		return 0;
	pid = strtol(name + n + 1, &end, 10);
	if (end == name + n + 1 || pid <= 0 ||
	    (*end != '\0' && *end != '_'))
		return 0;
	return (pid_t)pid;
}

/*
 * Remove every trigger of the events of system in inst: each line of a
 * trigger file is removed by writing it back with '!' (what trace-cmd
 * reset does). A histogram whose variables another one uses cannot go
 * first: passes go on while they remove something. Returns the triggers
 * left.
 */
static int clear_triggers(struct tracefs_instance *inst, const char *system)
{
	int pass, left = 0, removed;

	for (pass = 0; pass < 8; pass++) {
		char **events = tracefs_system_events(
			tracefs_instance_get_trace_dir(inst), system);
		size_t i;

		removed = left = 0;
		for (i = 0; events && events[i]; i++) {
			char *text = tracefs_event_file_read(inst, system,
							     events[i],
							     "trigger", NULL);
			char *line, *save = NULL;

			for (line = text ? strtok_r(text, "\n", &save) : NULL;
			     line; line = strtok_r(NULL, "\n", &save)) {
				char *tag, cmd[4096];

				if (line[0] == '#' || !line[0])
					continue;
				tag = strstr(line, " [");
				if (tag)
					*tag = '\0';
				snprintf(cmd, sizeof(cmd), "!%s", line);
				if (tracefs_event_file_append(inst, system,
							      events[i],
							      "trigger",
							      cmd) < 0)
					left++;
				else
					removed++;
			}
			free(text);
		}
		tracefs_list_free(events);
		if (!left || !removed)
			break;
	}
	return left;
}

static int remove_synth(const char *name)
{
	struct tracefs_dynevent *ev =
		tracefs_dynevent_get(TRACEFS_DYNEVENT_SYNTH, NULL, name);
	int r;

	if (!ev)
		return -ENOENT;
	r = tracefs_dynevent_destroy(ev, false);
	tracefs_dynevent_free(ev);
	return r < 0 ? -EBUSY : 0;
}

int trace_clean_stale(const char *dir)
{
	/* a basic regular expression (regcomp() without REG_EXTENDED) */
	char **names = tracefs_instances("^" TRACE_PREFIX "-[0-9][0-9]*$");
	struct tracefs_dynevent **evs;
	int cleaned = 0;
	size_t i;

	(void)dir;
	for (i = 0; names && names[i]; i++) {
		struct tracefs_instance *inst;

		if (trace_owner_alive("/", owner_of(names[i])))
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (!inst)
			continue;
		clear_triggers(inst, "synthetic");
		clear_triggers(inst, "workqueue");
		if (!tracefs_instance_destroy(inst))
			cleaned++;
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
	evs = tracefs_dynevent_get_all(TRACEFS_DYNEVENT_SYNTH, NULL);
	for (i = 0; evs && evs[i]; i++) {
		char *system = NULL, *event = NULL;

		tracefs_dynevent_info(evs[i], &system, &event, NULL, NULL,
				      NULL);
		if (event && owner_of(event) &&
		    !trace_owner_alive("/", owner_of(event)) &&
		    tracefs_dynevent_destroy(evs[i], false) == 0)
			cleaned++;
		free(system);
		free(event);
	}
	tracefs_dynevent_list_free(evs);
	return cleaned;
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

int trace_open(struct trace_sess *s, char *why, size_t size)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), TRACE_PREFIX "-%d", (int)getpid());
	snprintf(s->synth_prefix, sizeof(s->synth_prefix), TRACE_PREFIX "_%d_",
		 (int)getpid());
	s->inst = tracefs_instance_create(s->name);
	if (!s->inst) {
		int err = errno ? errno : EIO;

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
	strlist_add(&s->synths, "%s", name);
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
	strlist_add(&s->triggers, "%s/%s\t%s", system, event, trigger);
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

void trace_close(struct trace_sess *s)
{
	size_t i;

	if (!s->inst)
		return;
	/* the triggers that use others' variables were added last */
	for (i = s->triggers.n; i > 0; i--) {
		char *t = s->triggers.v[i - 1], *tab = strchr(t, '\t');
		char *slash = strchr(t, '/'), cmd[4096];

		if (!tab || !slash)
			continue;
		*tab = *slash = '\0';
		snprintf(cmd, sizeof(cmd), "!%s", tab + 1);
		tracefs_event_file_append(s->inst, t, slash + 1, "trigger",
					  cmd);
	}
	/* whatever is left (the kernel refused a removal): each line */
	clear_triggers(s->inst, "synthetic");
	clear_triggers(s->inst, "workqueue");
	tracefs_instance_destroy(s->inst);
	tracefs_instance_free(s->inst);
	s->inst = NULL;
	for (i = 0; i < s->synths.n; i++)
		remove_synth(s->synths.v[i]);
	strlist_free(&s->synths);
	strlist_free(&s->triggers);
}
