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
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define UEVENT_GROUP_KERNEL 1
/* how long the proc connector's answer to a subscription may take */
#define ACK_WAIT_MS 1000
#define RCVBUF_SIZE (4 << 20)
#define DRAIN_MAX 256

static void overrun(struct nlw *w, const char *what);

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
	case PROC_EVENT_NONE:
		/*
		 * The answer to our subscription, not another listener's:
		 * the kernel numbers its messages itself (seq), and answers
		 * with the request's ack + 1.
		 */
		if (cn->len >= need + sizeof(ev->event_data.ack) &&
		    cn->ack == w->listen_ack + 1) {
			w->acked = true;
			w->ack_err = ev->event_data.ack.err;
		}
		break;
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
	static struct sock_filter code[14];
	const struct sock_filter prog_code[ARRAY_SIZE(code)] = {
		/* the proc connector's messages only */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 CN_OFF + offsetof(struct cn_msg, id.idx)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(CN_IDX_PROC), 0, 11),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 CN_OFF + offsetof(struct cn_msg, id.val)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(CN_VAL_PROC), 0, 9),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 EV_OFF + offsetof(struct proc_event, what)),
		/* an acknowledgement: the answer to a subscription */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HOST32(PROC_EVENT_NONE), 6,
			 0),
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

#define UEVENT_PREFIX "add@" WQ_DEVPATH "/"
/* a word, a half-word or a byte of the prefix per load */
#define UEVENT_LOADS ((sizeof(UEVENT_PREFIX) - 1) / 4 + 2)

/*
 * A kobject uevent is the bare text "ACTION@DEVPATH\0KEY=VALUE\0...": the
 * program compares its first bytes with "add@/devices/virtual/workqueue/"
 * (BPF_ABS loads are big-endian, as the text reads), a load and a jump
 * per word; a shorter message fails its load, which drops it too.
 */
void nlw_uevent_filter(struct sock_fprog *prog)
{
	static struct sock_filter code[2 * UEVENT_LOADS + 2];
	const unsigned char *p = (const unsigned char *)UEVENT_PREFIX;
	size_t len = sizeof(UEVENT_PREFIX) - 1, off = 0, n = 0, i, size;
	uint32_t v;

	while (off < len) {
		size = len - off >= 4 ? 4 : len - off >= 2 ? 2 : 1;
		for (i = 0, v = 0; i < size; i++)
			v = v << 8 | p[off + i];
		code[n++] = (struct sock_filter)BPF_STMT(
			BPF_LD | BPF_ABS |
				(size == 4 ? BPF_W : size == 2 ? BPF_H : BPF_B),
			off);
		/* not the prefix: to the last instruction, the drop */
		code[n] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
						       v, 0, 0);
		n++;
		off += size;
	}
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0xffffffff);
	code[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, 0);
	for (i = 1; i < n - 2; i += 2)
		code[i].jf = n - 1 - (i + 1);
	prog->len = n;
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

/*
 * Wait for the kernel's answer to PROC_CN_MCAST_LISTEN (the kernel sends
 * it before the send returns; the wait is for safety), handling what
 * comes before it. 0, or -errno: refused, or no answer.
 */
static int wait_ack(struct nlw *w)
{
	struct pollfd p = { .fd = nl_socket_get_fd(w->proc), .events = POLLIN };
	int tries, err;

	for (tries = 0; tries < ACK_WAIT_MS / 10 && !w->acked; tries++) {
		err = nl_recvmsgs_default(w->proc);
		if (err == -NLE_AGAIN)
			poll(&p, 1, 10);
		else if (err == -NLE_NOMEM)
			overrun(w, "proc connector");
		else if (err < 0)
			break;
	}
	if (!w->acked) {
		log_warn("proc connector: no answer to PROC_CN_MCAST_LISTEN within %d ms (another user namespace, or refused): not subscribed",
			 ACK_WAIT_MS);
		return -ETIMEDOUT;
	}
	if (w->ack_err) {
		log_warn("proc connector: PROC_CN_MCAST_LISTEN refused: %s%s",
			 strerror(w->ack_err),
			 w->ack_err == EPERM ? " (it needs CAP_NET_ADMIN before Linux 6.6)" :
					       "");
		return -w->ack_err;
	}
	return 0;
}

int nlw_open_proc(struct nlw *w)
{
	char buf[sizeof(struct cn_msg) + sizeof(enum proc_cn_mcast_op)];
	struct cn_msg *cn = (struct cn_msg *)buf;
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	struct sock_fprog prog;
	struct timespec now;
	struct nl_msg *msg;
	int err;

	w->proc = open_sock(NETLINK_CONNECTOR, CN_IDX_PROC);
	if (!w->proc)
		return -EPROTONOSUPPORT;
	/* every FORK, EXEC, EXIT of the system reaches this socket: the
	 * kernel drops all but kthreadd's children's, and the answers */
	nlw_proc_filter(&prog);
	if (setsockopt(nl_socket_get_fd(w->proc), SOL_SOCKET,
		       SO_ATTACH_FILTER, &prog, sizeof(prog)))
		log_warn("proc connector: cannot attach the event filter: %s; every fork costs a wakeup",
			 strerror(errno));
	nl_socket_modify_cb(w->proc, NL_CB_MSG_IN, NL_CB_CUSTOM, nlw_proc_msg,
			    w);
	/* the answer goes to every listener: ours carries this ack + 1 */
	clock_gettime(CLOCK_MONOTONIC, &now);
	w->listen_ack = (uint32_t)getpid() << 16 ^ (uint32_t)now.tv_nsec;
	w->acked = false;
	w->ack_err = 0;
	memset(buf, 0, sizeof(buf));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->ack = w->listen_ack;
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
		err = -EPROTONOSUPPORT;
	} else {
		err = wait_ack(w);
	}
	if (err) {
		nl_socket_free(w->proc);
		w->proc = NULL;
	}
	return err;
}

int nlw_open_uevent(struct nlw *w)
{
	struct sock_fprog prog;

	w->uevent = open_sock(NETLINK_KOBJECT_UEVENT, UEVENT_GROUP_KERNEL);
	if (!w->uevent)
		return -EPROTONOSUPPORT;
	/* every device's add, change and remove: the kernel keeps them */
	nlw_uevent_filter(&prog);
	if (setsockopt(nl_socket_get_fd(w->uevent), SOL_SOCKET,
		       SO_ATTACH_FILTER, &prog, sizeof(prog)))
		log_warn("uevent: cannot attach the event filter: %s; every device event costs a wakeup",
			 strerror(errno));
	return 0;
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
