// SPDX-License-Identifier: GPL-2.0-only
/*
 * state_load(): the originals file a previous instance left, then saved;
 * and the index of what was loaded (htab.c): every entry is found, and
 * taking them all, in the order the file gave them, leaves nothing.
 */
#include "fuzz.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings orig;
	struct sched_val v;
	struct state s = { 0 };
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
	/* and written back as it was read */
	state_save(&s, NULL, 0, NULL, 0);
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
	return 0;
}
