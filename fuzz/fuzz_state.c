// SPDX-License-Identifier: GPL-2.0-only
/* state_load(): the originals file a previous instance left, then saved */
#include "fuzz.h"
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings orig;
	struct sched_val v;
	struct state s = { 0 };
	const char *path;

	fuzz_quiet();
	path = fuzz_file("state", data, size);
	if (path && !state_load(&s, path)) {
		state_take(&s, "tty_flip", &orig);
		state_take_kw(&s, 102, 3, &v);
		/* and written back as it was read */
		state_save(&s, NULL, 0, NULL, 0);
	}
	state_free(&s);
	return 0;
}
