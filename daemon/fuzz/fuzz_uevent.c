// SPDX-License-Identifier: GPL-2.0-only
/* nlw_uevent_msg(): a kobject uevent datagram from the kernel */
#include "fuzz.h"
#include "netlink.h"

static void on_wq(void *arg, const char *name)
{
	(void)arg;
	if (strlen(name) >= 64)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_nl src = { .nl_family = AF_NETLINK, .nl_pid = 0 };
	struct nlw w = { .on_wq = on_wq };
	char *buf;

	fuzz_quiet();
	/* exactly size bytes: the parser must not read past them */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	nlw_uevent_msg(&w, &src, buf, size);
	free(buf);
	return 0;
}
