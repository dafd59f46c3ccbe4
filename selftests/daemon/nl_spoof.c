// SPDX-License-Identifier: GPL-2.0-only
/*
 * nl_spoof: send wqrtd netlink messages that claim to be from the kernel
 * but come from user space, to check that the daemon ignores them.
 *
 *   nl_spoof uevent NAME   "add@/devices/virtual/workqueue/NAME" to the
 *                          kernel uevent group
 *   nl_spoof fork PID      proc connector FORK, parent kthreadd, child PID
 *   nl_spoof comm PID      proc connector COMM, PID renamed "kworker/u99:0"
 *
 * and load for wqrtd's CPU measurements (any user can do these):
 *
 *   nl_spoof storm SECONDS RATE   fork (and reap) up to RATE children a
 *                                 second; prints the count
 *   nl_spoof rename SECONDS       rename itself "kworker/u9:N" in a loop
 *                                 (prctl(PR_SET_NAME)); prints the count
 *
 * Sending to a multicast group needs CAP_NET_ADMIN (root in the VM).
 */
#include <errno.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct nl_sock *open_to_group(int protocol, unsigned int group)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk)
		return NULL;
	nl_socket_disable_auto_ack(sk);
	err = nl_connect(sk, protocol);
	if (err) {
		fprintf(stderr, "nl_spoof: connect: %s\n", nl_geterror(err));
		nl_socket_free(sk);
		return NULL;
	}
	nl_socket_set_peer_groups(sk, 1u << (group - 1));
	return sk;
}

static int send_uevent(const char *name)
{
	char buf[512];
	struct nl_sock *sk;
	int len, err;

	/* like the kernel's: NUL-separated text, no netlink header */
	len = snprintf(buf, sizeof(buf),
		       "add@/devices/virtual/workqueue/%s%c"
		       "ACTION=add%cDEVPATH=/devices/virtual/workqueue/%s%c"
		       "SUBSYSTEM=workqueue%cSEQNUM=999999%c",
		       name, 0, 0, name, 0, 0, 0);
	if (len < 0 || len >= (int)sizeof(buf))
		return 1;
	sk = open_to_group(NETLINK_KOBJECT_UEVENT, 1);
	if (!sk)
		return 1;
	err = nl_sendto(sk, buf, len);
	nl_socket_free(sk);
	if (err < 0) {
		fprintf(stderr, "nl_spoof: send: %s\n", nl_geterror(err));
		return 1;
	}
	return 0;
}

static int send_proc(int what, int pid)
{
	char buf[sizeof(struct cn_msg) + sizeof(struct proc_event)];
	struct cn_msg *cn = (struct cn_msg *)buf;
	struct proc_event ev;
	struct nl_sock *sk;
	struct nl_msg *msg;
	int err;

	memset(buf, 0, sizeof(buf));
	memset(&ev, 0, sizeof(ev));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(ev);
	ev.what = what;
	if (what == PROC_EVENT_FORK) {
		ev.event_data.fork.parent_pid = 2;
		ev.event_data.fork.parent_tgid = 2;
		ev.event_data.fork.child_pid = pid;
		ev.event_data.fork.child_tgid = pid;
	} else {
		ev.event_data.comm.process_pid = pid;
		ev.event_data.comm.process_tgid = pid;
		snprintf(ev.event_data.comm.comm,
			 sizeof(ev.event_data.comm.comm), "kworker/u99:0");
	}
	memcpy(cn->data, &ev, sizeof(ev));
	sk = open_to_group(NETLINK_CONNECTOR, CN_IDX_PROC);
	if (!sk)
		return 1;
	msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
	err = msg ? nlmsg_append(msg, buf, sizeof(buf), NLMSG_ALIGNTO) :
		    -NLE_NOMEM;
	if (!err)
		err = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	nl_socket_free(sk);
	if (err < 0) {
		fprintf(stderr, "nl_spoof: send: %s\n", nl_geterror(err));
		return 1;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int storm(double seconds, long rate)
{
	double start = now(), t;
	long n = 0;
	pid_t pid;

	while ((t = now() - start) < seconds) {
		if (n >= rate * t) {
			usleep(200);
			continue;
		}
		pid = vfork();
		if (pid == 0)
			_exit(0);
		if (pid < 0)
			return 1;
		waitpid(pid, NULL, 0);
		n++;
	}
	printf("%ld forks in %.1f s: %.0f/s\n", n, t, n / t);
	return 0;
}

static int rename_loop(double seconds)
{
	double start = now();
	char name[16];
	long n = 0;

	while (now() - start < seconds) {
		snprintf(name, sizeof(name), "kworker/u9:%ld", n % 10);
		prctl(PR_SET_NAME, name);
		n++;
	}
	printf("%ld renames in %.1f s\n", n, seconds);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "storm"))
		return storm(atof(argv[2]), atol(argv[3]));
	if (argc == 3 && !strcmp(argv[1], "rename"))
		return rename_loop(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "uevent"))
		return send_uevent(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "fork"))
		return send_proc(PROC_EVENT_FORK, atoi(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "comm"))
		return send_proc(PROC_EVENT_COMM, atoi(argv[2]));
	fprintf(stderr,
		"usage: nl_spoof uevent NAME | fork PID | comm PID | storm SECONDS RATE | rename SECONDS\n");
	return 64;
}
