/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Netlink watchers over libnl-3: the proc connector (FORK and EXIT events
 * of kthreadd's children) and kobject uevents (workqueues added later).
 * Only messages sent by the kernel (port 0) are believed.
 */
#ifndef WQRT_NETLINK_H
#define WQRT_NETLINK_H

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct nlw {
	struct nl_sock *proc;
	struct nl_sock *uevent;
	/* maybe a new kworker; fork_ns: the event's CLOCK_MONOTONIC stamp */
	void (*on_task)(void *arg, pid_t pid, uint64_t fork_ns);
	void (*on_exit)(void *arg, pid_t pid); /* a kernel thread exited */
	void (*on_wq)(void *arg, const char *name); /* workqueue added */
	void (*on_overrun)(void *arg); /* events were lost */
	void *arg;
	unsigned long ignored; /* messages not from the kernel */
	/* the kernel's answer to our PROC_CN_MCAST_LISTEN: its ack + 1 */
	uint32_t listen_ack;
	bool acked;
	int ack_err; /* its errno, 0 */
};

/*
 * Subscribe to the proc connector and wait for the kernel's answer: 0, or
 * -errno, said (refused: EPERM before 6.6 without CAP_NET_ADMIN; no
 * answer: -ETIMEDOUT, another user namespace).
 */
int nlw_open_proc(struct nlw *w);
int nlw_open_uevent(struct nlw *w); /* 0 or -errno */
int nlw_proc_fd(const struct nlw *w);
int nlw_uevent_fd(const struct nlw *w);
/* Drain a readable socket. */
void nlw_proc_receive(struct nlw *w);
void nlw_uevent_receive(struct nlw *w);
void nlw_close(struct nlw *w);

/*
 * The classic BPF programs the sockets run in the kernel. Proc connector:
 * FORK and EXIT of kthreadd's children pass, and the acknowledgements
 * (PROC_EVENT_NONE: the answer to a subscription, with its errno); every
 * other event is dropped before it costs wqrtd anything. Uevents: the
 * "add@/devices/virtual/workqueue/" ones alone.
 */
struct sock_fprog;
void nlw_proc_filter(struct sock_fprog *prog);
void nlw_uevent_filter(struct sock_fprog *prog);

/* The handlers, reachable for tests with crafted messages. */
int nlw_proc_msg(struct nl_msg *msg, void *arg);
void nlw_uevent_msg(struct nlw *w, const struct sockaddr_nl *src,
		    const char *buf, size_t len);

#endif
