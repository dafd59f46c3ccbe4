// SPDX-License-Identifier: GPL-2.0-only
/* config_load(): the whole file, as wqrtd --check reads it. */
#include "config.h"
#include "fuzz.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	struct strlist errors = { 0 };
	struct config *c = NULL;
	FILE *f;

	fuzz_quiet();
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/wqrt-fuzz-config.%d",
			 (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	chmod(path, 0600);
	if (!config_load(path, "/nonexistent", &c, &errors)) {
		config_match_wq(c, "tty_flip");
		config_match_kworker(c, "kworker/u5:1");
		config_free(c);
	}
	strlist_free(&errors);
	return 0;
}
