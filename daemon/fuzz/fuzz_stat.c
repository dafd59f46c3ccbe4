// SPDX-License-Identifier: GPL-2.0-only
/* task_parse_stat(): /proc/PID/stat as the kernel (or a task's comm) has it */
#include "discover.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct task_info t;
	char *s = fuzz_str(data, size);

	if (!s)
		return 0;
	if (!task_parse_stat(s, &t)) {
		if (strlen(t.comm) >= sizeof(t.comm))
			abort();
		task_is_kworker(&t);
	}
	free(s);
	return 0;
}
