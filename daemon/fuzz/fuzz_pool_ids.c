// SPDX-License-Identifier: GPL-2.0-only
/* parse_pool_ids(): a workqueue's pool_ids attribute */
#include "discover.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	int *ids, n;

	if (!s)
		return 0;
	n = parse_pool_ids(s, &ids);
	/* every pool of the text, and an array only with them */
	if ((n > 0) != (ids != NULL))
		abort();
	free(ids);
	free(s);
	return 0;
}
