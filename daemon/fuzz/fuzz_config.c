// SPDX-License-Identifier: GPL-2.0-only
/* config_load(): the whole file, as wqrtd --check reads it. */
#include "config.h"
#include "config_load.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strlist errors = { 0 };
	struct config *c = NULL;
	const char *path;

	fuzz_quiet();
	path = fuzz_file("config", data, size);
	if (path && !config_load(path, "/nonexistent", &c, &errors)) {
		config_match_wq(c, "tty_flip");
		config_match_kworker(c, "kworker/u5:1");
		config_free(c);
	}
	strlist_free(&errors);
	return 0;
}
