// SPDX-License-Identifier: GPL-2.0-only
#include "timing.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int timing_init(struct timing *t, FILE *f)
{
	memset(t, 0, sizeof(*t));
	t->now_ns = mono_ns;
	t->v = calloc(TIMING_MAX, sizeof(*t->v));
	if (!t->v)
		return -ENOMEM;
	t->f = f;
	return 0;
}

int timing_open(struct timing *t, const char *path)
{
	int fd, err;
	FILE *f;

	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "a");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	/* a line at a time: a reader sees each kworker as it is judged */
	setvbuf(f, NULL, _IOLBF, 0);
	err = timing_init(t, f);
	if (err) {
		fclose(f);
		t->f = NULL;
	}
	t->own = !err;
	return err;
}

void timing_close(struct timing *t)
{
	if (t->own)
		fclose(t->f);
	free(t->v);
	htab_free(&t->ix);
	memset(t, 0, sizeof(*t));
}

static bool pid_eq(const void *ctx, int idx, const void *key)
{
	const struct timing *t = ctx;

	return t->v[idx].pid == *(const pid_t *)key;
}

static int find(const struct timing *t, pid_t pid)
{
	return htab_lookup(&t->ix, htab_hash_int(pid), pid_eq, t, &pid,
			   TIMING_MAX);
}

/* Slot i no longer holds a fork (a hole until the ring passes it) */
static void forget(struct timing *t, int i)
{
	htab_del(&t->ix, htab_hash_int(t->v[i].pid), i);
	t->v[i].pid = 0;
}

void timing_fork(struct timing *t, pid_t pid, uint64_t fork_ns)
{
	size_t i;
	int old;

	if (!t->f || pid <= 0)
		return;
	/* the pid came back without its EXIT (events lost) */
	old = find(t, pid);
	if (old >= 0)
		forget(t, old);
	if (t->n == TIMING_MAX) {
		if (t->v[t->head].pid) {
			forget(t, t->head);
			t->forgotten++;
		}
		t->head = (t->head + 1) % TIMING_MAX;
		t->n--;
	}
	i = (t->head + t->n++) % TIMING_MAX;
	t->v[i].pid = pid;
	t->v[i].fork_ns = fork_ns;
	htab_add(&t->ix, htab_hash_int(pid), i);
}

void timing_exit(struct timing *t, pid_t pid)
{
	int i;

	if (!t->f)
		return;
	i = find(t, pid);
	if (i >= 0)
		forget(t, i);
}

void timing_done(struct timing *t, pid_t pid, const char *comm, int result)
{
	const char *what;
	uint64_t now;
	int i;

	if (!t->f)
		return;
	if (result > 0)
		what = "set";
	else if (result == 0)
		what = "ok";
	else if (result == -ESRCH)
		what = "gone";
	else
		return; /* not verified: a retry or the rescan may be */
	i = find(t, pid);
	if (i < 0)
		return; /* forked before wqrtd listened, or judged already */
	now = t->now_ns();
	fprintf(t->f, "%d %llu %llu %s %s\n", (int)pid,
		(unsigned long long)t->v[i].fork_ns, (unsigned long long)now,
		what, comm && *comm ? comm : "-");
	t->lines++;
	forget(t, i);
}
