// SPDX-License-Identifier: GPL-2.0-only
/*
 * state_load(): the originals file a previous instance left; saved and
 * loaded again, it holds the same originals (a cpumask of 4096 CPUs
 * too); and the index of what was loaded (htab.c): every entry is found,
 * and taking them all, in the order the file gave them, leaves nothing.
 */
#include "fuzz.h"
#include "state.h"

/* s and t hold the same originals */
static void same_originals(const struct state *s, const struct state *t)
{
	const struct saved_wq *w, *u;
	size_t i, j;
	int a;

	if (s->n != t->n || s->nk != t->nk)
		abort();
	for (i = 0; i < s->n; i++) {
		w = &s->v[i];
		for (j = 0; j < t->n && strcmp(t->v[j].name, w->name); j++)
			;
		if (j == t->n)
			abort();
		u = &t->v[j];
		if (w->orig.set != u->orig.set)
			abort();
		for (a = 0; a < WA_NR; a++)
			if ((w->orig.set & WA_BIT(a)) &&
			    !attr_equal(a, &w->orig, &u->orig))
				abort();
	}
	for (i = 0; i < s->nk; i++) {
		for (j = 0; j < t->nk && t->kv[j].pid != s->kv[i].pid; j++)
			;
		if (j == t->nk || t->kv[j].start != s->kv[i].start ||
		    t->kv[j].orig.policy != s->kv[i].orig.policy ||
		    t->kv[j].orig.rtprio != s->kv[i].orig.rtprio ||
		    t->kv[j].orig.nice != s->kv[i].orig.nice)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char again[80];
	struct settings orig;
	struct sched_val v;
	struct state s = { 0 }, t = { 0 };
	char(*names)[WQ_NAME_MAX] = NULL;
	pid_t *pids = NULL;
	size_t i, n, nk;
	const char *path;

	fuzz_quiet();
	path = fuzz_file("state", data, size);
	if (!path || state_load(&s, path, "/", &sys_ops_real))
		goto out;
	state_take(&s, "tty_flip", &orig);
	state_take_kw(&s, 102, 3, &v);
	/* written back, and read again: the same originals */
	snprintf(again, sizeof(again), "%s.again", path);
	s.path = again;
	free(s.last);
	s.last = NULL;
	if (state_save(&s, NULL, 0, NULL, 0))
		abort();
	if (s.n || s.nk) {
		if (state_load(&t, again, "/", &sys_ops_real))
			abort();
		same_originals(&s, &t);
	}
	unlink(again);
	n = s.n;
	nk = s.nk;
	names = malloc((n + 1) * sizeof(*names));
	pids = malloc((nk + 1) * sizeof(*pids));
	if (!names || !pids)
		goto out;
	for (i = 0; i < n; i++) {
		if (!state_has(&s, s.v[i].name))
			abort();
		memcpy(names[i], s.v[i].name, sizeof(names[i]));
	}
	for (i = 0; i < nk; i++) {
		if (!state_has_kw(&s, s.kv[i].pid))
			abort();
		pids[i] = s.kv[i].pid;
	}
	for (i = 0; i < n; i++)
		if (!state_take(&s, names[i], &orig) || state_has(&s, names[i]))
			abort();
	for (i = 0; i < nk; i++) {
		state_take_kw(&s, pids[i], 0, &v);
		if (state_has_kw(&s, pids[i]))
			abort();
	}
	if (s.n || s.nk)
		abort();
out:
	free(names);
	free(pids);
	state_free(&s);
	state_free(&t);
	return 0;
}
