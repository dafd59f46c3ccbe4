// SPDX-License-Identifier: GPL-2.0-only
#include "tracedir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int tracedir_find(const char *root, char *dir, size_t size)
{
	static const char *const where[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char sub[WQRT_PATH_MAX + 16];
	struct stat st;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(where); i++) {
		if (path_fmt(dir, size, root, "%s", where[i]))
			return -ENAMETOOLONG;
		snprintf(sub, sizeof(sub), "%s/instances", dir);
		if (!stat(sub, &st) && S_ISDIR(st.st_mode))
			return 0;
	}
	return -ENOENT;
}

pid_t tracedir_owner(const char *name)
{
	size_t n = strlen(TRACE_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, TRACE_PREFIX, n) ||
	    (name[n] != '-' && name[n] != '_'))
		return 0;
	errno = 0;
	pid = strtol(name + n + 1, &end, 10);
	if (errno || end == name + n + 1 || pid <= 0 || pid > 0x3fffffff ||
	    (name[n] == '-' ? *end != '\0' : *end != '_'))
		return 0;
	return (pid_t)pid;
}

bool tracedir_owner_alive(pid_t pid)
{
	char path[64], comm[32];

	if (pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	return !read_text(path, comm, sizeof(comm)) &&
	       !strcmp(comm, TRACE_PREFIX);
}

/* The names in path (not "." nor ".."), or -errno */
static int list_dir(const struct sys_ops *ops, const char *path,
		    struct strlist *names)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int err = 0;

	if (!d)
		return -errno;
	for (;;) {
		errno = 0;
		de = ops->readdir(ops->ctx, d);
		if (!de) {
			err = errno ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			strlist_add(names, "%s", de->d_name);
	}
	closedir(d);
	return err;
}

/*
 * One pass over the triggers of system sys in instance path: each line of
 * a trigger file is taken out by writing it back with a '!' (what
 * trace-cmd reset does; the kernel's " [active]" tag dropped). The
 * failures of the pass go to failed (emptied first). Returns how many
 * were taken out.
 */
static int trigger_pass(const struct sys_ops *ops, const char *path,
			const char *sys, struct strlist *failed)
{
	char events[WQRT_PATH_MAX * 2], file[WQRT_PATH_MAX * 3], *text;
	char *line, *save = NULL, *cmd, *tag;
	struct strlist names = { 0 };
	int removed = 0, err;
	size_t i;

	snprintf(events, sizeof(events), "%s/events/%s", path, sys);
	if (list_dir(ops, events, &names) && !names.n)
		return 0;
	for (i = 0; i < names.n; i++) {
		snprintf(file, sizeof(file), "%s/%s/trigger", events,
			 names.v[i]);
		if (read_text_alloc(file, &text))
			continue;
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (line[0] == '#' || !line[0])
				continue;
			tag = strstr(line, " [");
			if (tag)
				*tag = '\0';
			if (asprintf(&cmd, "!%s", line) < 0)
				continue;
			err = ops->trace_write(ops->ctx, file, cmd);
			if (err)
				strlist_add(failed,
					    "%s: cannot remove the trigger '%s': %s",
					    file, line, strerror(-err));
			else
				removed++;
			free(cmd);
		}
		free(text);
	}
	strlist_free(&names);
	return removed;
}

/*
 * Every trigger of the instance at path. A histogram whose variables
 * another one uses cannot go first: passes go on while they take out
 * something. Returns the failures of the last pass (in errors).
 */
static int clear_triggers(const struct sys_ops *ops, const char *path,
			  struct strlist *errors)
{
	static const char *const systems[] = { "synthetic", "workqueue" };
	struct strlist failed = { 0 };
	int pass, removed, n;
	size_t i;

	for (pass = 0; pass < 8; pass++) {
		strlist_free(&failed);
		removed = 0;
		for (i = 0; i < ARRAY_SIZE(systems); i++)
			removed += trigger_pass(ops, path, systems[i], &failed);
		if (!failed.n || !removed)
			break;
	}
	for (i = 0; i < failed.n; i++)
		strlist_add(errors, "%s", failed.v[i]);
	n = failed.n;
	strlist_free(&failed);
	return n;
}

/* Take out instance name: its triggers, then itself */
static int remove_instance(const struct sys_ops *ops, const char *dir,
			   const char *name, struct strlist *errors)
{
	char path[WQRT_PATH_MAX + 80];
	int fails, err;

	snprintf(path, sizeof(path), "%s/instances/%s", dir, name);
	fails = clear_triggers(ops, path, errors);
	err = ops->rmdir(ops->ctx, path);
	if (err && err != -ENOENT) {
		strlist_add(errors, "%s: cannot remove the tracefs instance: %s",
			    path, strerror(-err));
		fails++;
	}
	return fails;
}

/* Which synthetic events go: those of prefix, or of a gone owner */
struct synth_sel {
	const char *prefix; /* or NULL: by owner */
	pid_t self;
};

static bool synth_goes(const struct synth_sel *sel, const char *name)
{
	pid_t owner;

	if (sel->prefix)
		return !strncmp(name, sel->prefix, strlen(sel->prefix));
	owner = tracedir_owner(name);
	return owner &&
	       (owner == sel->self || !tracedir_owner_alive(owner));
}

/*
 * The synthetic events sel names, taken out by writing "!NAME" to
 * DIR/synthetic_events (one line per event there: "NAME FIELDS").
 * *removed counts them; returns the failures.
 */
static int remove_synths(const struct sys_ops *ops, const char *dir,
			 const struct synth_sel *sel, int *removed,
			 struct strlist *errors)
{
	char path[WQRT_PATH_MAX + 32], *text, *line, *save = NULL, *cmd;
	int fails = 0, err;

	snprintf(path, sizeof(path), "%s/synthetic_events", dir);
	if (read_text_alloc(path, &text))
		return 0;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t")] = '\0';
		if (!line[0] || !synth_goes(sel, line) ||
		    asprintf(&cmd, "!%s", line) < 0)
			continue;
		err = ops->trace_write(ops->ctx, path, cmd);
		if (err) {
			strlist_add(errors,
				    "%s: cannot remove the synthetic event %s: %s",
				    path, line, strerror(-err));
			fails++;
		} else {
			(*removed)++;
		}
		free(cmd);
	}
	free(text);
	return fails;
}

int tracedir_remove(const struct sys_ops *ops, const char *dir,
		    const char *instance, const char *prefix,
		    struct strlist *errors)
{
	struct synth_sel sel = { .prefix = prefix };
	int fails = 0, removed = 0;

	if (instance)
		fails += remove_instance(ops, dir, instance, errors);
	if (prefix)
		fails += remove_synths(ops, dir, &sel, &removed, errors);
	return fails;
}

int tracedir_clean(const struct sys_ops *ops, const char *dir, pid_t self,
		   int *removed, struct strlist *errors)
{
	struct synth_sel sel = { .self = self };
	char path[WQRT_PATH_MAX + 16];
	struct strlist names = { 0 };
	int fails = 0, f;
	pid_t owner;
	size_t i;

	*removed = 0;
	snprintf(path, sizeof(path), "%s/instances", dir);
	list_dir(ops, path, &names);
	for (i = 0; i < names.n; i++) {
		owner = tracedir_owner(names.v[i]);
		if (!owner || strchr(names.v[i], '_') ||
		    (owner != self && tracedir_owner_alive(owner)))
			continue;
		f = remove_instance(ops, dir, names.v[i], errors);
		fails += f;
		*removed += !f;
	}
	strlist_free(&names);
	/* once no instance of theirs uses them */
	fails += remove_synths(ops, dir, &sel, removed, errors);
	return fails;
}
