// SPDX-License-Identifier: GPL-2.0-only
/*
 * The netlink handlers with crafted messages: only the kernel (port 0) is
 * believed; FORK needs kthreadd as parent; uevents only for workqueues.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <string.h>
#include <linux/filter.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faketree.h"
#include "netlink.h"

static pid_t got_pid, got_exit;
static uint64_t got_fork_ns;
static char got_wq[64];

static void on_exit_cb(void *arg, pid_t pid)
{
	(void)arg;
	got_exit = pid;
}

static void on_task(void *arg, pid_t pid, uint64_t fork_ns)
{
	(void)arg;
	got_pid = pid;
	got_fork_ns = fork_ns;
}

static void on_wq(void *arg, const char *name)
{
	(void)arg;
	snprintf(got_wq, sizeof(got_wq), "%s", name);
}

static struct nlw w = { .on_task = on_task, .on_wq = on_wq,
			.on_exit = on_exit_cb };

static int setup(void **state)
{
	(void)state;
	got_pid = got_exit = 0;
	got_fork_ns = 0;
	got_wq[0] = '\0';
	w.ignored = 0;
	ft_capture_logs();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ft_clear_logs();
	return 0;
}

/* The proc connector payload (cn_msg + proc_event) of one event */
static void make_proc(char *buf, int what, int parent, int child,
		      const char *comm)
{
	struct cn_msg *cn = (struct cn_msg *)buf;
	struct proc_event ev;

	memset(buf, 0, sizeof(struct cn_msg) + sizeof(struct proc_event));
	memset(&ev, 0, sizeof(ev));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(ev);
	ev.what = what;
	/* the kernel's ktime_get_ns() at the event: one per pid here */
	ev.timestamp_ns = 1000000000ULL * child + 123;
	if (what == PROC_EVENT_FORK) {
		ev.event_data.fork.parent_pid = parent;
		ev.event_data.fork.parent_tgid = parent;
		ev.event_data.fork.child_pid = child;
		ev.event_data.fork.child_tgid = child;
	} else if (what == (int)PROC_EVENT_EXIT) {
		ev.event_data.exit.process_pid = child;
		ev.event_data.exit.process_tgid = child;
		ev.event_data.exit.parent_pid = parent;
		ev.event_data.exit.parent_tgid = parent;
	} else {
		ev.event_data.comm.process_pid = child;
		snprintf(ev.event_data.comm.comm,
			 sizeof(ev.event_data.comm.comm), "%s", comm);
	}
	memcpy(cn->data, &ev, sizeof(ev));
}

/* A proc connector message as it would arrive from port `from`. */
static void deliver_proc(unsigned int from, int what, int parent, int child,
			 const char *comm)
{
	char buf[sizeof(struct cn_msg) + sizeof(struct proc_event)];
	struct sockaddr_nl src = { .nl_family = AF_NETLINK, .nl_pid = from };
	struct nl_msg *msg;

	make_proc(buf, what, parent, child, comm);
	msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
	assert_int_equal(nlmsg_append(msg, buf, sizeof(buf), NLMSG_ALIGNTO), 0);
	nlmsg_set_src(msg, &src);
	assert_int_equal(nlw_proc_msg(msg, &w), NL_SKIP);
	nlmsg_free(msg);
}

static void test_fork_from_kernel(void **state)
{
	(void)state;
	deliver_proc(0, PROC_EVENT_FORK, 2, 4242, NULL);
	assert_int_equal(got_pid, 4242);
	assert_int_equal(w.ignored, 0);
	/* the fork's timestamp (64 bits at an odd offset) comes through */
	assert_true(got_fork_ns == 1000000000ULL * 4242 + 123);
}

static void test_fork_not_kthreadd(void **state)
{
	(void)state;
	deliver_proc(0, PROC_EVENT_FORK, 1, 4243, NULL);
	assert_int_equal(got_pid, 0);
}

/* Issue 16.3: kernel threads send no COMM; user renames are no concern */
static void test_comm_event_ignored(void **state)
{
	(void)state;
	deliver_proc(0, PROC_EVENT_COMM, 0, 4244, "kworker/u7:2");
	assert_int_equal(got_pid, 0);
}

/* Issue 16.14: a kthread that exits is reported */
static void test_exit_event(void **state)
{
	(void)state;
	deliver_proc(0, PROC_EVENT_EXIT, 2, 4250, NULL);
	assert_int_equal(got_exit, 4250);
	got_exit = 0;
	deliver_proc(0, PROC_EVENT_EXIT, 1, 4251, NULL);
	assert_int_equal(got_exit, 0);
}

/*
 * Issue 16.3: the kernel-side filter. It reads the message from offset 0
 * as a netlink socket's filter does, so a datagram socket pair runs it
 * on the same bytes.
 */
static bool passes_filter(int what, int parent, int child)
{
	char buf[NLMSG_HDRLEN + sizeof(struct cn_msg) +
		 sizeof(struct proc_event)], got[sizeof(buf)];
	struct nlmsghdr *h = (struct nlmsghdr *)buf;
	struct sock_fprog prog;
	int sv[2];
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	h->nlmsg_len = sizeof(buf);
	h->nlmsg_type = NLMSG_DONE;
	make_proc(buf + NLMSG_HDRLEN, what, parent, child, "kworker/u1:0");
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	nlw_proc_filter(&prog);
	assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				    sizeof(prog)),
			 0);
	assert_int_equal(send(sv[0], buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	n = recv(sv[1], got, sizeof(got), MSG_DONTWAIT);
	close(sv[0]);
	close(sv[1]);
	return n > 0;
}

static void test_kernel_filter(void **state)
{
	(void)state;
	assert_true(passes_filter(PROC_EVENT_FORK, 2, 100));
	assert_true(passes_filter(PROC_EVENT_EXIT, 2, 100));
	assert_false(passes_filter(PROC_EVENT_FORK, 1, 100));
	assert_false(passes_filter(PROC_EVENT_FORK, 4000, 100));
	assert_false(passes_filter(PROC_EVENT_EXIT, 1, 100));
	assert_false(passes_filter(PROC_EVENT_COMM, 2, 100));
	assert_false(passes_filter(PROC_EVENT_EXEC, 2, 100));
}

/*
 * Issue 30.10: the kernel's answer to PROC_CN_MCAST_LISTEN (a
 * PROC_EVENT_NONE acknowledgement carrying the errno, EPERM without
 * CAP_NET_ADMIN before 6.6) passes the filter: it must not be hidden.
 */
static void test_kernel_filter_passes_acks(void **state)
{
	(void)state;
	assert_true(passes_filter(PROC_EVENT_NONE, 0, 0));
}

/*
 * Issue 30.10: the uevent socket gets a kernel filter too: every add,
 * change and remove of every device reached wqrtd.
 */
static void test_uevent_socket_filtered(void **state)
{
	struct nlw u = { 0 };
	socklen_t len = 0;

	(void)state;
	if (nlw_open_uevent(&u))
		skip(); /* no netlink here (a container) */
	assert_int_equal(getsockopt(nlw_uevent_fd(&u), SOL_SOCKET,
				    SO_GET_FILTER, NULL, &len),
			 0);
	nlw_close(&u);
	assert_true(len > 0);
}

/*
 * Issue 30.10: a subscription the kernel does not answer (from another
 * user namespace it ignores the request; before 6.6 it refuses one
 * without CAP_NET_ADMIN) is a failure, said as such: no FORK event will
 * come.
 */
static void test_proc_subscribe_unanswered(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct nlw u = { 0 };

		if (unshare(CLONE_NEWUSER))
			_exit(77);
		alarm(20);
		_exit(nlw_open_proc(&u) ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* Does the uevent socket's filter let this message through? */
static bool passes_uevent_filter(const char *msg, size_t len)
{
	struct sock_fprog prog;
	char got[512];
	int sv[2];
	ssize_t n;

	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	nlw_uevent_filter(&prog);
	assert_int_equal(setsockopt(sv[1], SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				    sizeof(prog)),
			 0);
	assert_int_equal(send(sv[0], msg, len, 0), (ssize_t)len);
	n = recv(sv[1], got, sizeof(got), MSG_DONTWAIT);
	close(sv[0]);
	close(sv[1]);
	return n > 0;
}

#define UEV_PASSES(s) passes_uevent_filter(s, sizeof(s))

/* Issue 30.10: the program: a workqueue's add, and nothing else */
static void test_uevent_filter(void **state)
{
	(void)state;
	assert_true(UEV_PASSES("add@/devices/virtual/workqueue/x\0ACTION=add"));
	assert_true(UEV_PASSES("add@/devices/virtual/workqueue/wqrt_test_unbound\0ACTION=add"));
	assert_false(UEV_PASSES("remove@/devices/virtual/workqueue/x\0ACTION=remove"));
	assert_false(UEV_PASSES("change@/devices/virtual/workqueue/x\0ACTION=change"));
	assert_false(UEV_PASSES("add@/devices/virtual/net/lo\0ACTION=add"));
	assert_false(UEV_PASSES("add@/devices/virtual/workqueuex\0ACTION=add"));
	assert_false(UEV_PASSES("add@/devices/virtual/workque"));
	assert_false(UEV_PASSES("libudev\0\xfe\xed\xca\xfe"));
}

/* A proc connector acknowledgement as the kernel sends it */
static void deliver_ack(uint32_t seq, uint32_t ack, int err)
{
	char buf[sizeof(struct cn_msg) + sizeof(struct proc_event)];
	struct sockaddr_nl src = { .nl_family = AF_NETLINK, .nl_pid = 0 };
	struct cn_msg *cn = (struct cn_msg *)buf;
	struct proc_event ev;
	struct nl_msg *msg;

	memset(buf, 0, sizeof(buf));
	memset(&ev, 0, sizeof(ev));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->seq = seq;
	cn->ack = ack;
	cn->len = sizeof(ev);
	ev.what = PROC_EVENT_NONE;
	ev.event_data.ack.err = err;
	memcpy(cn->data, &ev, sizeof(ev));
	msg = nlmsg_alloc_simple(NLMSG_DONE, 0);
	assert_int_equal(nlmsg_append(msg, buf, sizeof(buf), NLMSG_ALIGNTO), 0);
	nlmsg_set_src(msg, &src);
	assert_int_equal(nlw_proc_msg(msg, &w), NL_SKIP);
	nlmsg_free(msg);
}

/*
 * Issue 30.10: the answer to wqrtd's own subscription (its ack + 1) is
 * taken, with its errno (EPERM: refused); the answers to other
 * listeners' are not.
 */
static void test_proc_ack(void **state)
{
	(void)state;
	w.listen_ack = 77;
	w.acked = false;
	deliver_ack(999, 91, 0);
	deliver_ack(999, 77, 0);
	assert_false(w.acked);
	/* the kernel numbers the answer itself: any seq */
	deliver_ack(5, 78, EPERM);
	assert_true(w.acked);
	assert_int_equal(w.ack_err, EPERM);
}

static void test_proc_from_userspace_ignored(void **state)
{
	(void)state;
	deliver_proc(31337, PROC_EVENT_FORK, 2, 4246, NULL);
	deliver_proc(31337, PROC_EVENT_EXIT, 2, 4246, NULL);
	assert_int_equal(got_pid, 0);
	assert_int_equal(got_exit, 0);
	assert_int_equal(w.ignored, 2);
	assert_true(ft_logged(
		"ignored proc connector netlink message from port 31337: not the kernel"));
}

static void deliver_uevent(unsigned int from, const char *text, size_t len)
{
	struct sockaddr_nl src = { .nl_family = AF_NETLINK, .nl_pid = from };

	nlw_uevent_msg(&w, &src, text, len);
}

#define UEV(s) s, sizeof(s)

static void test_uevent_workqueue_add(void **state)
{
	(void)state;
	deliver_uevent(0,
		       UEV("add@/devices/virtual/workqueue/wqrt_test_unbound\0"
			   "ACTION=add\0SUBSYSTEM=workqueue"));
	assert_string_equal(got_wq, "wqrt_test_unbound");
}

static void test_uevent_others_ignored(void **state)
{
	(void)state;
	deliver_uevent(
		0, UEV("remove@/devices/virtual/workqueue/x\0ACTION=remove"));
	deliver_uevent(0, UEV("add@/devices/virtual/net/lo\0ACTION=add"));
	deliver_uevent(0,
		       UEV("add@/devices/virtual/workqueue/a/b\0ACTION=add"));
	assert_string_equal(got_wq, "");
	assert_int_equal(w.ignored, 0);
}

static void test_uevent_from_userspace_ignored(void **state)
{
	(void)state;
	/* udev rebroadcasts and anyone with CAP_NET_ADMIN can send these */
	deliver_uevent(4711,
		       UEV("add@/devices/virtual/workqueue/evil\0ACTION=add"));
	assert_string_equal(got_wq, "");
	assert_int_equal(w.ignored, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_fork_from_kernel),
		T(test_fork_not_kthreadd),
		T(test_comm_event_ignored),
		T(test_exit_event),
		T(test_kernel_filter),
		T(test_kernel_filter_passes_acks),
		T(test_uevent_socket_filtered),
		T(test_uevent_filter),
		T(test_proc_ack),
		T(test_proc_subscribe_unanswered),
		T(test_proc_from_userspace_ignored),
		T(test_uevent_workqueue_add),
		T(test_uevent_others_ignored),
		T(test_uevent_from_userspace_ignored),
#undef T
	};

	return cmocka_run_group_tests_name("netlink", tests, NULL, NULL);
}
