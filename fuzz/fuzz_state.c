// SPDX-License-Identifier: GPL-2.0-only
/* state_load(): the originals file a previous instance left, then saved */
#include "fuzz.h"
#include "state.h"

#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct settings orig;
	struct sched_val v;
	struct state s = { 0 };
	FILE *f;

	fuzz_quiet();
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/wqrt-fuzz-state.%d",
			 (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (!state_load(&s, path)) {
		state_take(&s, "tty_flip", &orig);
		state_take_kw(&s, 102, 3, &v);
		/* and written back as it was read */
		state_save(&s, NULL, 0, NULL, 0);
	}
	state_free(&s);
	return 0;
}
