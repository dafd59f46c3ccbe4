// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtracefs, as much of it as wqrtctl's sessions use (trace.c), over a
 * fake tracing directory with tracefs's manners (the fake root's,
 * tracefake.h): the unit tests of the wqrtctl room and the wqrtctl the
 * CLI tests run (tests/wqrtctl-faketrace) are linked with it instead of
 * libtracefs, so that latency, who and try run on a fake root, their
 * tracing directory ROOT/sys/kernel/tracing (--root). Without --root no
 * tracing directory is set, and there is none: a test never reaches the
 * real tracefs.
 *
 * WQRT_FAKE_TRACEFS_FAIL=TEXT in the environment: adding a trigger whose
 * text holds TEXT, or an instance or synthetic event whose name does,
 * fails with EINVAL.
 */
#include "tracefake.h"
#include "util.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracefs.h>

struct tracefs_instance {
	char *name;
};

static char tdir[WQRT_PATH_MAX];

static bool fails(const char *text)
{
	const char *f = getenv("WQRT_FAKE_TRACEFS_FAIL");

	if (f && *f && strstr(text, f)) {
		errno = EINVAL;
		return true;
	}
	return false;
}

int tracefs_set_tracing_dir(char *tracing_dir)
{
	snprintf(tdir, sizeof(tdir), "%s", tracing_dir ? tracing_dir : "");
	return 0;
}

const char *tracefs_tracing_dir(void)
{
	return tdir[0] ? tdir : NULL;
}

/* The directory of inst (NULL: the top) */
static void inst_dir(struct tracefs_instance *inst, char *buf, size_t size)
{
	if (inst)
		snprintf(buf, size, "%s/instances/%s", tdir, inst->name);
	else
		snprintf(buf, size, "%s", tdir);
}

/* An event directory of an instance, with its trigger and hist files */
static void make_event(const char *idir, const char *sys, const char *ev)
{
	char path[WQRT_PATH_MAX * 2];
	FILE *f;

	snprintf(path, sizeof(path), "%s/events", idir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s", idir, sys);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s", idir, sys, ev);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s/trigger", idir, sys, ev);
	f = fopen(path, "a");
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "%s/events/%s/%s/hist", idir, sys, ev);
	f = fopen(path, "a");
	if (f)
		fclose(f);
}

struct tracefs_instance *tracefs_instance_create(const char *name)
{
	char path[WQRT_PATH_MAX + 64], pattern[WQRT_PATH_MAX + 32];
	struct tracefs_instance *inst;
	char *text, *line, *save = NULL;
	glob_t g;
	size_t i;

	if (!tdir[0] || fails(name)) {
		errno = tdir[0] ? errno : ENODEV;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/instances/%s", tdir, name);
	if (mkdir(path, 0755) && errno != EEXIST)
		return NULL;
	/* the events the top has: the workqueue ones, the synthetic ones */
	snprintf(pattern, sizeof(pattern), "%s/events/workqueue/*", tdir);
	if (!glob(pattern, 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++)
			make_event(path, "workqueue",
				   strrchr(g.gl_pathv[i], '/') + 1);
		globfree(&g);
	}
	snprintf(pattern, sizeof(pattern), "%s/synthetic_events", tdir);
	if (!read_text_alloc(pattern, &text)) {
		for (line = strtok_r(text, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			line[strcspn(line, " ")] = '\0';
			make_event(path, "synthetic", line);
		}
		free(text);
	}
	inst = calloc(1, sizeof(*inst));
	if (inst)
		inst->name = strdup(name);
	return inst;
}

void tracefs_instance_free(struct tracefs_instance *instance)
{
	if (!instance)
		return;
	free(instance->name);
	free(instance);
}

int tracefs_instance_set_buffer_size(struct tracefs_instance *instance,
				     size_t size, int cpu)
{
	(void)instance, (void)size, (void)cpu;
	return 0;
}

char *tracefs_error_last(struct tracefs_instance *instance)
{
	(void)instance;
	return NULL;
}

int tracefs_error_clear(struct tracefs_instance *instance)
{
	(void)instance;
	return 0;
}

/* tracefs's write of text to path: 0, or -1 with errno */
static int write_file(const char *path, const char *text)
{
	int err;

	if (fails(text))
		return -1;
	err = fake_trace_write(NULL, path, text);
	if (err) {
		errno = -err;
		return -1;
	}
	return 0;
}

int tracefs_instance_file_append(struct tracefs_instance *instance,
				 const char *file, const char *str)
{
	char dir[WQRT_PATH_MAX + 64], path[WQRT_PATH_MAX * 2];

	inst_dir(instance, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return write_file(path, str);
}

int tracefs_event_file_append(struct tracefs_instance *instance,
			      const char *system, const char *event,
			      const char *file, const char *str)
{
	char dir[WQRT_PATH_MAX + 64], path[WQRT_PATH_MAX * 2];

	inst_dir(instance, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/events/%s/%s/%s", dir, system, event,
		 file);
	return write_file(path, str);
}

/*
 * The hist file of an event with no hit: per histogram trigger (each line
 * of its trigger file), its header and totals, as 6.12 prints them
 */
static char *empty_hist(const char *dir, const char *system,
			const char *event)
{
	char path[WQRT_PATH_MAX * 2], *triggers, *line, *save = NULL;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events/%s/%s/trigger", dir, system,
		 event);
	if (read_text_alloc(path, &triggers))
		return strdup("");
	f = open_memstream(&text, &len);
	if (!f) {
		free(triggers);
		return NULL;
	}
	for (line = strtok_r(triggers, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "hist:", 5))
			continue;
		fprintf(f,
			"# event histogram\n#\n# trigger info: %s [active]\n#\n\n\n"
			"Totals:\n    Hits: 0\n    Entries: 0\n    Dropped: 0\n\n",
			line);
	}
	fclose(f);
	free(triggers);
	return text;
}

char *tracefs_event_file_read(struct tracefs_instance *instance,
			      const char *system, const char *event,
			      const char *file, int *psize)
{
	char dir[WQRT_PATH_MAX + 64], path[WQRT_PATH_MAX * 2], *text;

	inst_dir(instance, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/events/%s/%s/%s", dir, system, event,
		 file);
	if (read_text_alloc(path, &text))
		return NULL;
	/* an empty hist file: what the kernel prints for no hit yet */
	if (!text[0] && !strcmp(file, "hist")) {
		free(text);
		text = empty_hist(dir, system, event);
	}
	if (psize && text)
		*psize = strlen(text);
	return text;
}

/*
 * latency --why's ring buffer: on the fake tracing directory the events
 * are "enabled" and the buffer holds none (why.c's analysis has unit
 * tests of its own, on events made up there)
 */
int tracefs_event_enable(struct tracefs_instance *instance, const char *system,
			 const char *event)
{
	(void)instance, (void)system, (void)event;
	return tdir[0] ? 0 : -1;
}

int tracefs_trace_off(struct tracefs_instance *instance)
{
	(void)instance;
	return 0;
}

struct tep_handle *tracefs_local_events_system(const char *tracing_dir,
					       const char *const *sys_names)
{
	static char fake_tep;

	(void)tracing_dir, (void)sys_names;
	return tdir[0] ? (struct tep_handle *)&fake_tep : NULL;
}

int tracefs_iterate_raw_events(struct tep_handle *tep,
			       struct tracefs_instance *instance,
			       cpu_set_t *cpus, int cpu_size,
			       int (*callback)(struct tep_event *,
					       struct tep_record *, int,
					       void *),
			       void *callback_context)
{
	(void)tep, (void)instance, (void)cpus, (void)cpu_size;
	(void)callback, (void)callback_context;
	return 0;
}

void tep_free(struct tep_handle *tep)
{
	(void)tep;
}

int tep_get_field_val(struct trace_seq *s, struct tep_event *event,
		      const char *name, struct tep_record *record,
		      unsigned long long *val, int err)
{
	(void)s, (void)event, (void)name, (void)record, (void)err;
	*val = 0;
	return -1;
}

void *tep_get_field_raw(struct trace_seq *s, struct tep_event *event,
			const char *name, struct tep_record *record, int *len,
			int err)
{
	(void)s, (void)event, (void)name, (void)record, (void)err;
	*len = 0;
	return NULL;
}
