// SPDX-License-Identifier: GPL-2.0-only
#include "trial.h"
#include "config_load.h"
#include "sysops.h"
#include "task.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX "trial-"
#define SUFFIX ".conf"

void trial_name(char *buf, size_t size, pid_t pid, unsigned long long start,
		bool pending)
{
	snprintf(buf, size, "%s" PREFIX "%d-%llu" SUFFIX, pending ? "." : "",
		 (int)pid, start);
}

bool trial_parse_name(const char *name, pid_t *pid, unsigned long long *start,
		      bool *pending)
{
	char again[TRIAL_NAME_MAX];
	unsigned long long s;
	const char *p = name;
	char *end;
	long v;

	*pending = *p == '.';
	if (*pending)
		p++;
	if (strncmp(p, PREFIX, strlen(PREFIX)))
		return false;
	p += strlen(PREFIX);
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || end == p || *end != '-' || v <= 0 || v > INT32_MAX)
		return false;
	p = end + 1;
	s = strtoull(p, &end, 10);
	if (errno || end == p || strcmp(end, SUFFIX))
		return false;
	/* one spelling only: no sign, no leading zeros, no spaces */
	trial_name(again, sizeof(again), (pid_t)v, s, *pending);
	if (strcmp(again, name))
		return false;
	*pid = (pid_t)v;
	*start = s;
	return true;
}

bool trial_owner_alive(pid_t pid, unsigned long long start)
{
	struct task_info t;

	/* a zombie is gone: killed, and only its parent has not reaped it */
	return !task_read("/", pid, &t) && t.start == start &&
	       t.state != 'Z' && t.state != 'X';
}

int trial_scan(const char *dir, char *live, size_t size, pid_t *owner,
	       struct strlist *removed, struct strlist *errors)
{
	char path[WQRT_PATH_MAX];
	unsigned long long start;
	struct dirent *de;
	int n = 0, err;
	bool pending;
	pid_t pid;
	DIR *d;

	live[0] = '\0';
	*owner = 0;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((errno = 0, de = readdir(d))) {
		if (!trial_parse_name(de->d_name, &pid, &start, &pending))
			continue;
		if (trial_owner_alive(pid, start)) {
			/* the first by name: the order of readdir is none */
			if (!pending &&
			    (!n++ || strcmp(de->d_name, live) < 0)) {
				snprintf(live, size, "%s", de->d_name);
				*owner = pid;
			}
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno != ENOENT)
			strlist_add(errors, "%s: %s (its wqrtctl try is gone)",
				    path, strerror(errno));
		else
			strlist_add(removed, "%s", path);
	}
	err = errno;
	closedir(d);
	if (err)
		return -err;
	return n;
}

int trial_load(const char *path, const char *root, struct config **out,
	       struct strlist *errors)
{
	size_t before = errors->n;
	struct config *c;
	const char *why = NULL;
	int n;

	*out = NULL;
	n = config_load_one(path, root, &c, errors);
	if (n)
		return n;
	if (c->nrules != 1 || c->rules[0].kind != RULE_WQ)
		why = "a trial is one [wq:NAME] section";
	else if (c->rules[0].glob)
		why = "a trial is of one workqueue, not a pattern";
	else if (c->nprofiles)
		why = "a trial gives its keys, not a profile";
	if (why) {
		strlist_add(errors, "%s: %s", path, why);
		config_free(c);
		return errors->n - before;
	}
	*out = c;
	return 0;
}

int trial_held_write(const char *dir, const char *name)
{
	char path[WQRT_PATH_MAX], text[TRIAL_NAME_MAX + 2];

	if (snprintf(path, sizeof(path), "%s/" TRIAL_HELD, dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	if (!name)
		return unlink(path) && errno != ENOENT ? -errno : 0;
	snprintf(text, sizeof(text), "%s\n", name);
	/* through a temporary file and rename(): never half a name */
	return sys_save_file(NULL, path, text, strlen(text));
}

int trial_held_read(const char *dir, char *buf, size_t size)
{
	char path[WQRT_PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/" TRIAL_HELD, dir) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_text(path, buf, size);
}

int trial_apply(struct daemon *d, struct config *trial)
{
	int err = config_set_trial(d->cfg, trial ? &trial->rules[0] : NULL);

	if (err) {
		config_free(trial);
		return err;
	}
	config_free(d->trial);
	d->trial = trial;
	return daemon_scan(d);
}
