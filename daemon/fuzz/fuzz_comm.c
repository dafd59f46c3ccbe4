// SPDX-License-Identifier: GPL-2.0-only
/* kworker_classify() and kworker_rescues(): a comm, then a workqueue name */
#include "discover.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size), *wq;
	struct kw_class c;

	if (!s)
		return 0;
	/* "COMM\nWQ" */
	wq = strchr(s, '\n');
	if (wq)
		*wq++ = '\0';
	kworker_classify(s, &c);
	if (strlen(c.base) >= sizeof(c.base))
		abort();
	if (c.kind == KW_RESCUER &&
	    (c.rescued < c.base || c.rescued > c.base + strlen(c.base)))
		abort();
	kworker_rescues(&c, wq ? wq : "tty_flip");
	free(s);
	return 0;
}
