// SPDX-License-Identifier: GPL-2.0-only
#include "netlink.h"
#include "common.h"
#include "discover.h"
#include "log.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <stddef.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define UEVENT_GROUP_KERNEL 1
#define RCVBUF_SIZE (4 << 20)
#define DRAIN_MAX 256

static bool from_kernel(struct nlw *w, const struct sockaddr_nl *src,
			const char *what)
{
	if (src && src->nl_family == AF_NETLINK && src->nl_pid == 0)
		return true;
	w->ignored++;
	log_debug("ignored %s netlink message from port %u: not the kernel",
		  what, src ? src->nl_pid : 0);
	return false;
}

int nlw_proc_msg(struct nl_msg *msg, void *arg)
{
	struct nlw *w = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	const struct proc_event *ev;
	struct proc_event copy;
	const struct cn_msg *cn;
	size_t need;

	if (!from_kernel(w, nlmsg_get_src(msg), "proc connector"))
		return NL_SKIP;
	if (nlmsg_datalen(h) < (int)sizeof(*cn))
		return NL_SKIP;
	cn = nlmsg_data(h);
	need = offsetof(struct proc_event, event_data);
	if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC ||
	    cn->len < need || (size_t)nlmsg_datalen(h) < sizeof(*cn) + cn->len)
		return NL_SKIP;
	/* cn->data sits at offset 20: copy out for the 64-bit fields */
	memset(&copy, 0, sizeof(copy));
	memcpy(&copy, cn->data,
	       cn->len < sizeof(copy) ? cn->len : sizeof(copy));
	ev = &copy;
	switch (ev->what) {
	case PROC_EVENT_FORK:
		if (cn->len < need + sizeof(ev->event_data.fork))
			break;
		/* kthreadd forks every kernel thread, kworkers included */
		if (ev->event_data.fork.parent_tgid == KTHREADD_PID &&
		    w->on_task)
			w->on_task(w->arg, ev->event_data.fork.child_pid,
				   ev->timestamp_ns);
		break;
	case PROC_EVENT_EXIT:
		if (cn->len < need + sizeof(ev->event_data.exit))
			break;
		if (ev->event_data.exit.parent_tgid == KTHREADD_PID &&
		    ev->event_data.exit.process_pid ==
			    ev->event_data.exit.process_tgid &&
		    w->on_exit)
			w->on_exit(w->arg, ev->event_data.exit.process_pid);
		break;
	/*
	 * No COMM: kernel threads are named with set_task_comm(), which
	 * sends none (see the retry in main.c); a COMM event only ever
	 * reports a user rename, which wqrtd has no business with.
	 */
	default:
		break;
	}
	return NL_SKIP;
}

/* Offsets in a proc connector message: nlmsghdr, cn_msg, proc_event */
#define CN_OFF NLMSG_HDRLEN
#define EV_OFF (CN_OFF + offsetof(struct cn_msg, data))
#define DATA_OFF (EV_OFF + offsetof(struct proc_event, event_data))
#define FORK_PARENT_TGID \
	(DATA_OFF + offsetof(struct fork_proc_event, parent_tgid))
#define EXIT_PARENT_TGID \
	(DATA_OFF + offsetof(struct exit_proc_event, parent_tgid))

/*
 * BPF_ABS loads are big-endian; the connector's fields are the host's:
 * compare with the host value as a big-endian load reads it.
 */
#define HOST32(x) htonl(x)

void nlw_proc_filter(struct sock_fprog *prog)
{
	static struct sock_filter code[13];
	const struct sock_filter prog_code[ARRAY_SIZE(code)] = {
		/* the proc connector's messages only */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 CN_OFF + offsetof(struct cn_msg, id.idx)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(CN_IDX_PROC), 0, 10),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 CN_OFF + offsetof(struct cn_msg, id.val)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(CN_VAL_PROC), 0, 8),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 EV_OFF + offsetof(struct proc_event, what)),
		/* FORK whose parent is kthreadd */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(PROC_EVENT_FORK), 0,
			 2),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FORK_PARENT_TGID),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(KTHREADD_PID), 3, 4),
		/* EXIT of a child of kthreadd */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(PROC_EVENT_EXIT), 0,
			 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, EXIT_PARENT_TGID),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(KTHREADD_PID), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};

	memcpy(code, prog_code, sizeof(code));
	prog->len = ARRAY_SIZE(code);
	prog->filter = code;
}

/*
 * The receive buffer, past net.core.rmem_max (SO_RCVBUFFORCE, with
 * CAP_NET_ADMIN); said when it cannot be had.
 */
static void set_rcvbuf(struct nl_sock *sk, const char *what)
{
	int fd = nl_socket_get_fd(sk), size = RCVBUF_SIZE, got = 0;
	socklen_t len = sizeof(got);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		nl_socket_set_buffer_size(sk, RCVBUF_SIZE, 0);
	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &len);
	/* the kernel reports twice what it was asked for */
	if (got < 2 * RCVBUF_SIZE)
		log_warn("%s: receive buffer %d bytes, not %d: capped by net.core.rmem_max (no CAP_NET_ADMIN?)",
			 what, got / 2, RCVBUF_SIZE);
	else
		log_debug("%s: receive buffer %d bytes", what, got / 2);
}

static struct nl_sock *open_sock(int protocol, int group)
{
	struct nl_sock *sk = nl_socket_alloc();
	int err;

	if (!sk)
		return NULL;
	nl_socket_disable_seq_check(sk);
	nl_socket_disable_auto_ack(sk);
	err = nl_connect(sk, protocol);
	if (!err)
		err = nl_socket_add_membership(sk, group);
	if (!err)
		err = nl_socket_set_nonblocking(sk);
	if (err) {
		log_warn("netlink protocol %d: %s", protocol, nl_geterror(err));
		nl_socket_free(sk);
		return NULL;
	}
	set_rcvbuf(sk, protocol == NETLINK_CONNECTOR ? "proc connector" :
						       "uevent");
	return sk;
}

int nlw_open_proc(struct nlw *w)
{
	char buf[sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op)];
	struct cn_msg *cn = (struct cn_msg *)buf;
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	struct sock_fprog prog;
	struct nl_msg *msg;
	int err;

	w->proc = open_sock(NETLINK_CONNECTOR, CN_IDX_PROC);
	if (!w->proc)
		return -EPROTONOSUPPORT;
	/* every FORK, EXEC, EXIT of the system reaches this socket: the
	 * kernel drops all but kthreadd's children's */
	nlw_proc_filter(&prog);
	if (setsockopt(nl_socket_get_fd(w->proc), SOL_SOCKET,
		       SO_ATTACH_FILTER, &prog, sizeof(prog)))
		log_warn("proc connector: cannot attach the event filter: %s; every fork costs a wakeup",
			 strerror(errno));
	nl_socket_modify_cb(w->proc, NL_CB_MSG_IN, NL_CB_CUSTOM, nlw_proc_msg,
			    w);
	memset(buf, 0, sizeof(buf));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(op);
	memcpy(cn->data, &op, sizeof(op));
	msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
	err = msg ? nlmsg_append(msg, buf, sizeof(buf), NLMSG_ALIGNTO) :
		    -NLE_NOMEM;
	if (!err)
		err = nl_send_auto(w->proc, msg);
	nlmsg_free(msg);
	if (err < 0) {
		log_warn("proc connector: PROC_CN_MCAST_LISTEN: %s",
			 nl_geterror(err));
		nl_socket_free(w->proc);
		w->proc = NULL;
		return -EPROTONOSUPPORT;
	}
	return 0;
}

int nlw_open_uevent(struct nlw *w)
{
	w->uevent = open_sock(NETLINK_KOBJECT_UEVENT, UEVENT_GROUP_KERNEL);
	return w->uevent ? 0 : -EPROTONOSUPPORT;
}

int nlw_proc_fd(const struct nlw *w)
{
	return w->proc ? nl_socket_get_fd(w->proc) : -1;
}

int nlw_uevent_fd(const struct nlw *w)
{
	return w->uevent ? nl_socket_get_fd(w->uevent) : -1;
}

static void overrun(struct nlw *w, const char *what)
{
	/* said (once per rescan, not once per overrun) by whoever rescans */
	log_debug("%s: events lost (receive buffer overrun)", what);
	if (w->on_overrun)
		w->on_overrun(w->arg);
}

void nlw_proc_receive(struct nlw *w)
{
	int i, err;

	for (i = 0; i < DRAIN_MAX; i++) {
		err = nl_recvmsgs_default(w->proc);
		if (err == -NLE_AGAIN)
			return;
		/* libnl reports ENOBUFS from recvmsg() as NLE_NOMEM */
		if (err == -NLE_NOMEM) {
			overrun(w, "proc connector");
			return;
		}
		if (err < 0) {
			log_debug("proc connector: %s", nl_geterror(err));
			return;
		}
	}
}

void nlw_uevent_msg(struct nlw *w, const struct sockaddr_nl *src,
		    const char *buf, size_t len)
{
	const char *name;
	char wq[WQ_NAME_MAX];
	size_t n;

	if (!from_kernel(w, src, "uevent"))
		return;
	/* "add@/devices/virtual/workqueue/NAME\0ACTION=add\0..." */
	n = strnlen(buf, len);
	if (n == len ||
	    strncmp(buf, "add@" WQ_DEVPATH "/", strlen("add@" WQ_DEVPATH "/")))
		return;
	name = buf + strlen("add@" WQ_DEVPATH "/");
	if (!*name || strchr(name, '/') || strlen(name) >= sizeof(wq))
		return;
	snprintf(wq, sizeof(wq), "%s", name);
	if (w->on_wq)
		w->on_wq(w->arg, wq);
}

void nlw_uevent_receive(struct nlw *w)
{
	struct sockaddr_nl src;
	unsigned char *buf;
	int i, n;

	for (i = 0; i < DRAIN_MAX; i++) {
		buf = NULL;
		n = nl_recv(w->uevent, &src, &buf, NULL);
		if (n == -NLE_AGAIN || n == 0) {
			free(buf);
			return;
		}
		if (n == -NLE_NOMEM) {
			overrun(w, "uevent");
			return;
		}
		if (n < 0) {
			log_debug("uevent: %s", nl_geterror(n));
			return;
		}
		nlw_uevent_msg(w, &src, (const char *)buf, n);
		free(buf);
	}
}

void nlw_close(struct nlw *w)
{
	nl_socket_free(w->proc);
	nl_socket_free(w->uevent);
	w->proc = w->uevent = NULL;
}
