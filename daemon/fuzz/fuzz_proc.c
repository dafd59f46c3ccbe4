// SPDX-License-Identifier: GPL-2.0-only
/* nlw_proc_msg(): a proc connector message (cn_msg + event) from the kernel */
#include "fuzz.h"
#include "netlink.h"

#include <linux/netlink.h>

static void on_pid(void *arg, pid_t pid)
{
	(void)arg, (void)pid;
}

static void on_fork(void *arg, pid_t pid, uint64_t fork_ns)
{
	(void)arg, (void)pid, (void)fork_ns;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_nl src = { .nl_family = AF_NETLINK, .nl_pid = 0 };
	struct nlw w = { .on_task = on_fork, .on_exit = on_pid };
	struct nl_msg *msg;

	fuzz_quiet();
	if (size > 65536)
		return 0;
	msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
	if (!msg)
		return 0;
	if (!nlmsg_append(msg, (void *)data, size, NLMSG_ALIGNTO)) {
		nlmsg_set_src(msg, &src);
		nlw_proc_msg(msg, &w);
	}
	nlmsg_free(msg);
	return 0;
}
