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
#include <sys/socket.h>

#include "faketree.h"
#include "netlink.h"

static pid_t got_pid;
static char got_wq[64];

static void on_task(void *arg, pid_t pid)
{
	(void)arg;
	got_pid = pid;
}

static void on_wq(void *arg, const char *name)
{
	(void)arg;
	snprintf(got_wq, sizeof(got_wq), "%s", name);
}

static struct nlw w = { .on_task = on_task, .on_wq = on_wq };

static int setup(void **state)
{
	(void)state;
	got_pid = 0;
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

/* A proc connector message as it would arrive from port `from`. */
static void deliver_proc(unsigned int from, int what, int parent, int child,
			 const char *comm)
{
	char buf[sizeof(struct cn_msg) + sizeof(struct proc_event)];
	struct cn_msg *cn = (struct cn_msg *)buf;
	struct sockaddr_nl src = { .nl_family = AF_NETLINK, .nl_pid = from };
	struct proc_event ev;
	struct nl_msg *msg;

	memset(buf, 0, sizeof(buf));
	memset(&ev, 0, sizeof(ev));
	cn->id.idx = CN_IDX_PROC;
	cn->id.val = CN_VAL_PROC;
	cn->len = sizeof(ev);
	ev.what = what;
	if (what == PROC_EVENT_FORK) {
		ev.event_data.fork.parent_pid = parent;
		ev.event_data.fork.parent_tgid = parent;
		ev.event_data.fork.child_pid = child;
		ev.event_data.fork.child_tgid = child;
	} else {
		ev.event_data.comm.process_pid = child;
		snprintf(ev.event_data.comm.comm,
			 sizeof(ev.event_data.comm.comm), "%s", comm);
	}
	memcpy(cn->data, &ev, sizeof(ev));
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
}

static void test_fork_not_kthreadd(void **state)
{
	(void)state;
	deliver_proc(0, PROC_EVENT_FORK, 1, 4243, NULL);
	assert_int_equal(got_pid, 0);
}

static void test_comm_event(void **state)
{
	(void)state;
	deliver_proc(0, PROC_EVENT_COMM, 0, 4244, "kworker/u7:2");
	assert_int_equal(got_pid, 4244);
	got_pid = 0;
	deliver_proc(0, PROC_EVENT_COMM, 0, 4245, "bash");
	assert_int_equal(got_pid, 0);
}

static void test_proc_from_userspace_ignored(void **state)
{
	(void)state;
	deliver_proc(31337, PROC_EVENT_FORK, 2, 4246, NULL);
	deliver_proc(31337, PROC_EVENT_COMM, 0, 4246, "kworker/u1:0");
	assert_int_equal(got_pid, 0);
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
		T(test_comm_event),
		T(test_proc_from_userspace_ignored),
		T(test_uevent_workqueue_add),
		T(test_uevent_others_ignored),
		T(test_uevent_from_userspace_ignored),
#undef T
	};

	return cmocka_run_group_tests_name("netlink", tests, NULL, NULL);
}
