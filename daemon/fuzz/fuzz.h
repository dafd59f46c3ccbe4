/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the libFuzzer targets: quiet logs, inputs as strings/files. */
#ifndef WQRT_FUZZ_H
#define WQRT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"

static inline void fuzz_quiet_sink(int prio, const struct log_ctx *c, const char *msg)
{
	(void)prio, (void)c, (void)msg;
}

/* Logs go nowhere (they are formatted all the same: that is fuzzed too) */
static inline void fuzz_quiet(void)
{
	log_set_sink(fuzz_quiet_sink);
	log_set_level(LOG_DEBUG);
}

/* data as a NUL-terminated string (free it) */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* data in a file of /tmp of this process's own; its path, or NULL */
static inline const char *fuzz_file(const char *what, const uint8_t *data,
				    size_t size)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/wqrt-fuzz-%s.%d", what,
		 (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return NULL;
	fwrite(data, 1, size, f);
	fclose(f);
	chmod(path, 0600);
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
