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

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <string.h>
#include <linux/filter.h>
#include <sys/socket.h>
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
	assert_false(passes_filter(PROC_EVENT_NONE, 2, 100));
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
		T(test_proc_from_userspace_ignored),
		T(test_uevent_workqueue_add),
		T(test_uevent_others_ignored),
		T(test_uevent_from_userspace_ignored),
#undef T
	};

	return cmocka_run_group_tests_name("netlink", tests, NULL, NULL);
}
