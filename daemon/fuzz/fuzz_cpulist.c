// SPDX-License-Identifier: GPL-2.0-only
/*
 * cpulist_parse() (the config's cpumask) and cpumask_hex_parse() (what
 * sysfs shows), each formatted and parsed back: the round trip must hold.
 */
#include "fuzz.h"
#include "util.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), buf[8192];
	struct cpubits a, b;
	const char *why;

	if (!s)
		return 0;
	if (!cpulist_parse(s, &a, &why)) {
		cpulist_format(&a, buf, sizeof(buf));
		if (cpulist_parse(buf, &b, &why) || !cpubits_equal(&a, &b))
			abort();
	}
	if (!cpumask_hex_parse(s, &a)) {
		cpumask_hex_format(&a, buf, sizeof(buf));
		if (cpumask_hex_parse(buf, &b) || !cpubits_equal(&a, &b))
			abort();
	}
	free(s);
	return 0;
}
