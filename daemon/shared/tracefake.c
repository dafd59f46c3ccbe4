// SPDX-License-Identifier: GPL-2.0-only
#include "tracefake.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* path and all below it; 0 or -errno */
static int remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -errno;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS) ? -errno : 0;
}

/* The directory of path, into buf */
static void dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	snprintf(buf, size, "%.*s", slash ? (int)(slash - path) : 1,
		 slash ? path : ".");
}

static const char *base_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

int fake_rmdir(void *ctx, const char *path)
{
	char parent[WQRT_PATH_MAX];

	(void)ctx;
	dir_of(path, parent, sizeof(parent));
	/* an instance goes with everything in it */
	if (!strcmp(base_of(parent), "instances"))
		return remove_tree(path);
	return rmdir(path) ? -errno : 0;
}

/* Write a file (created) with text; 0 or -errno */
static int put(const char *path, const char *text, const char *mode)
{
	FILE *f = fopen(path, mode);

	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

/* mkdir -p path; 0 or -errno */
static int make_dirs(const char *path)
{
	char buf[WQRT_PATH_MAX * 2], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -errno : 0;
}

/* An event directory as the kernel shows it: its trigger and hist files */
static void make_event(const char *path)
{
	char file[WQRT_PATH_MAX * 2 + 16];

	if (make_dirs(path))
		return;
	snprintf(file, sizeof(file), "%s/trigger", path);
	put(file, "", "w");
	snprintf(file, sizeof(file), "%s/hist", path);
	put(file, "", "w");
}

/*
 * A synthetic event in the tracing directory dir and in each of its
 * instances, as the kernel adds one (make), or takes it out (!make)
 */
static void synth_dirs(const char *dir, const char *name, bool make)
{
	char pattern[WQRT_PATH_MAX + 32], path[WQRT_PATH_MAX * 2];
	glob_t g;
	size_t i, n;

	snprintf(pattern, sizeof(pattern), "%s/instances/*/events", dir);
	n = glob(pattern, 0, NULL, &g) ? 0 : g.gl_pathc;
	for (i = 0; i <= n; i++) {
		if (i < n)
			snprintf(path, sizeof(path), "%s/synthetic/%s",
				 g.gl_pathv[i], name);
		else
			snprintf(path, sizeof(path), "%s/events/synthetic/%s",
				 dir, name);
		if (make)
			make_event(path);
		else
			remove_tree(path);
	}
	if (n)
		globfree(&g);
}

/* Does a trigger of dir (any instance, any event) name the event? */
static bool synth_busy(const char *dir, const char *name)
{
	static const char *const patterns[] = {
		"%s/instances/*/events/*/*/trigger", "%s/events/*/*/trigger"
	};
	char pattern[WQRT_PATH_MAX + 64], *text;
	bool busy = false;
	size_t i, j;
	glob_t g;

	for (i = 0; i < ARRAY_SIZE(patterns) && !busy; i++) {
		snprintf(pattern, sizeof(pattern), patterns[i], dir);
		if (glob(pattern, 0, NULL, &g))
			continue;
		for (j = 0; j < g.gl_pathc && !busy; j++) {
			if (read_text_alloc(g.gl_pathv[j], &text))
				continue;
			busy = strstr(text, name) != NULL;
			free(text);
		}
		globfree(&g);
	}
	return busy;
}

/*
 * Take out of path the first line that is want (a trigger, !word: but
 * for the kernel's tag), or begins with it as a word (an event, word).
 * 0, or -ENOENT when there is none.
 */
static int remove_line(const char *path, const char *want, bool word)
{
	char *text, *line, *next, *out;
	size_t len = strlen(want), olen = 0;
	bool found = false;
	int err;

	err = read_text_alloc(path, &text);
	if (err)
		return err;
	out = malloc(strlen(text) + 2);
	if (!out) {
		free(text);
		return -ENOMEM;
	}
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		/* a trigger's line ends with the kernel's " [active]" */
		if (!found && !strncmp(line, want, len) &&
		    (line[len] == '\0' || (word && line[len] == ' ') ||
		     (!word && !strncmp(line + len, " [", 2)))) {
			found = true;
			continue;
		}
		olen += sprintf(out + olen, "%s\n", line);
	}
	out[olen] = '\0';
	err = found ? put(path, out, "w") : -ENOENT;
	free(out);
	free(text);
	return err;
}

int fake_trace_write(void *ctx, const char *path, const char *text)
{
	bool events = !strcmp(base_of(path), "synthetic_events");
	char dir[WQRT_PATH_MAX], name[256];
	struct stat st;
	int err;

	(void)ctx;
	/* tracefs files are there, or not: never made by a write */
	if (stat(path, &st))
		return -errno;
	dir_of(path, dir, sizeof(dir));
	if (text[0] == '!' && !events)
		return remove_line(path, text + 1, false);
	snprintf(name, sizeof(name), "%.*s",
		 (int)strcspn(text + (text[0] == '!'), " \t"),
		 text + (text[0] == '!'));
	if (text[0] == '!') {
		if (synth_busy(dir, name))
			return -EBUSY;
		err = remove_line(path, name, true);
		if (!err)
			synth_dirs(dir, name, false);
		return err;
	}
	err = put(path, text, "a");
	if (!err)
		err = put(path, "\n", "a");
	if (!err && events)
		synth_dirs(dir, name, true);
	return err;
}
