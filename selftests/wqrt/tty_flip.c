// SPDX-License-Identifier: GPL-2.0
/*
 * tty_flip - the tty layer's flip buffer workqueues: their names, and
 * their lifetime against ports and drivers that go away while data flows.
 *
 * A board gives its UART's flip buffer workqueue an RT profile (wqrtd,
 * wqrt.conf: "[wq:ttyS-serial_8250] policy = fifo"), so that received data
 * reaches its reader in an RT kworker. The workqueue is named
 * "<name>-<driver_name>" as in mainline ("ttyS-serial_8250"), and a port
 * uses it from its registration to its destruction: a USB serial IMU that
 * is unplugged while open keeps its flip work on that workqueue until the
 * port is destroyed, and destroying the port waits for that work.
 *
 * The ports and drivers are those of the wqrt_tty module (selftests/
 * modules/wqrt_tty.c), a tty driver whose ports come and go on request;
 * this program reads them as a user would, gives the driver's workqueue
 * the RT profile through sysfs and asserts on what the module saw.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <termios.h>

#include "kselftest_harness.h"
#include "wqrt_lib.h"

#define TTY_DBG		"/sys/kernel/debug/wqrt_tty"
#define TTY_RUN		TTY_DBG "/run"
#define TTY_WQ		"ttyWQRT-wqrt_tty"
#define TTY_PORTS	4
#define CHURN_SECS	4

/* the series' flip buffer workqueues, per the module */
static bool flip_wqs(void)
{
	char info[256];

	return wqrt_read(TTY_DBG "/info", info, sizeof(info)) > 0 &&
	       kv_long(info, "series", 0) == 1;
}

/* Run a module command, log its summary into @out. */
static void tty_run(struct __test_metadata *_metadata, char *out, size_t len,
		    const char *cmd)
{
	int ret = wqrt_write(TTY_RUN, cmd);

	ASSERT_EQ(0, ret) {
		TH_LOG("writing '%s' to %s: %s", cmd, TTY_RUN, strerror(-ret));
	}
	ASSERT_LE(0, wqrt_read(TTY_RUN, out, len));
	TH_LOG("%s", out);
}

static bool kv_skip(const char *s)
{
	char v[16];

	return kv_find(s, "result", v, sizeof(v)) && !strcmp(v, "SKIP");
}

/* ------------------------------------------------------------------ */
/* readers: open each port while it is there, read until hangup        */

struct readers {
	pthread_t th[TTY_PORTS];
	volatile int stop;
	long bytes[TTY_PORTS], opens[TTY_PORTS], hangups[TTY_PORTS];
};

struct reader_arg {
	struct readers *r;
	int port;
};

static struct reader_arg reader_args[TTY_PORTS];

static void *reader_thread(void *arg)
{
	struct reader_arg *a = arg;
	struct readers *r = a->r;
	char dev[64], buf[512];
	struct termios t;
	ssize_t n;
	int fd;

	snprintf(dev, sizeof(dev), "/dev/ttyWQRT%d", a->port);
	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
		fd = open(dev, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			/* unplugged, or not yet: try again */
			wqrt_msleep(1);
			continue;
		}
		r->opens[a->port]++;
		if (!tcgetattr(fd, &t)) {
			cfmakeraw(&t);
			t.c_cc[VMIN] = 1;
			t.c_cc[VTIME] = 0;
			tcsetattr(fd, TCSANOW, &t);
		}
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		/* until the port is hung up (read() returns 0 or EIO) */
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			r->bytes[a->port] += n;
		r->hangups[a->port]++;
		close(fd);
	}
	return NULL;
}

static void readers_start(struct __test_metadata *_metadata,
			  struct readers *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < TTY_PORTS; i++) {
		reader_args[i].r = r;
		reader_args[i].port = i;
		ASSERT_EQ(0, pthread_create(&r->th[i], NULL, reader_thread,
					    &reader_args[i]));
	}
}

/* after the module unplugged every port: each read() has returned */
static void readers_stop(struct readers *r, long *bytes, long *opens)
{
	int i;

	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	*bytes = *opens = 0;
	for (i = 0; i < TTY_PORTS; i++) {
		pthread_join(r->th[i], NULL);
		*bytes += r->bytes[i];
		*opens += r->opens[i];
	}
}

/* ------------------------------------------------------------------ */

FIXTURE(tty) {
	char out[2048];
	char orig_policy[32], orig_rtprio[32];
	bool profiled;
};

FIXTURE_SETUP(tty)
{
	char why[256];

	if (wqrt_load_test_module("wqrt_tty", TTY_DBG "/info", why,
				  sizeof(why)))
		SKIP(return, "%s", why);
	self->profiled = false;
}

FIXTURE_TEARDOWN(tty)
{
	if (self->profiled) {
		wq_set(TTY_WQ, "policy", self->orig_policy);
		wq_set(TTY_WQ, "rtprio", self->orig_rtprio);
	}
}

/*
 * The board's profile on the driver's flip workqueue: fifo 20. Its pools
 * are then its own, not those of the workqueue a port without one falls
 * back to, as on a board. False, with the test marked skipped, on a kernel
 * without the workqueue: the caller returns, as SKIP() here returns from
 * this helper only.
 */
static bool give_rt_profile(struct __test_metadata *_metadata,
			    FIXTURE_DATA(tty) *self)
{
	if (!flip_wqs())
		SKIP(return false, "kernel without tty flip buffer workqueues");
	if (!wq_has(TTY_WQ, "policy"))
		SKIP(return false,
		     "kernel without the workqueue RT series (no %s/policy)",
		     TTY_WQ);
	ASSERT_LE(0, wq_get(TTY_WQ, "policy", self->orig_policy,
			    sizeof(self->orig_policy)));
	ASSERT_LE(0, wq_get(TTY_WQ, "rtprio", self->orig_rtprio,
			    sizeof(self->orig_rtprio)));
	self->profiled = true;
	ASSERT_EQ(0, wq_set(TTY_WQ, "policy", "fifo"));
	ASSERT_EQ(0, wq_set(TTY_WQ, "rtprio", "20"));
	return true;
}

/* the workqueues in sysfs whose name starts with @prefix */
static int count_wqs(const char *prefix)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(WQ_DIR);
	if (!d)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

/* "<name>-<driver_name>", in sysfs; none for the ptys */
TEST_F(tty, names)
{
	char line[256], drv[64], dev[64];
	bool serial_8250 = false;
	FILE *f;

	if (!flip_wqs())
		SKIP(return, "kernel without tty flip buffer workqueues");
	EXPECT_TRUE(wqrt_exists(WQ_DIR "/" TTY_WQ "/per_cpu"));
	EXPECT_EQ(0, wq_get_int(TTY_WQ, "per_cpu"));

	f = fopen("/proc/tty/drivers", "re");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %63s", drv, dev) != 2)
			continue;
		if (!strcmp(drv, "serial_8250") && !strcmp(dev, "/dev/ttyS"))
			serial_8250 = true;
		/* the 8250 is serial_8250 now, as in mainline */
		EXPECT_FALSE(!strcmp(dev, "/dev/ttyS") &&
			     !strcmp(drv, "serial")) {
			TH_LOG("/proc/tty/drivers: %s", line);
		}
	}
	fclose(f);
	if (serial_8250) {
		EXPECT_TRUE(wqrt_exists(WQ_DIR "/ttyS-serial_8250"));
		EXPECT_TRUE(wqrt_exists("/proc/tty/driver/serial_8250"));
	}
	EXPECT_FALSE(wqrt_exists(WQ_DIR "/ttyS-serial"));
	/* TTY_DRIVER_NO_WORKQUEUE: the ptys fall back to system_dfl_wq */
	EXPECT_EQ(0, count_wqs("pty-")) {
		TH_LOG("a flip workqueue of the legacy pty masters");
	}
	EXPECT_EQ(0, count_wqs("ttyp-"));
	EXPECT_EQ(0, count_wqs("ptm-"));
	EXPECT_EQ(0, count_wqs("pts-"));
}

/*
 * Ports plugged and unplugged for CHURN_SECS while data flows and readers
 * keep them open: every receive, the one after each unplug too, runs in a
 * fifo kworker of the driver's workqueue, and no port is destroyed under
 * its flush work.
 */
TEST_F_TIMEOUT(tty, unplug_while_receiving, 120)
{
	struct readers r;
	long bytes, opens;
	char cmd[64];

	if (!give_rt_profile(_metadata, self))
		return;
	readers_start(_metadata, &r);
	snprintf(cmd, sizeof(cmd), "churn secs=%d policy=fifo", CHURN_SECS);
	tty_run(_metadata, self->out, sizeof(self->out), cmd);
	readers_stop(&r, &bytes, &opens);
	TH_LOG("readers: %ld opens, %ld bytes", opens, bytes);

	EXPECT_LT(0, kv_long(self->out, "unplugged", 0));
	EXPECT_LT(0, opens);
	EXPECT_LT(0, bytes) {
		TH_LOG("no data reached the readers");
	}
	EXPECT_EQ(0, kv_long(self->out, "outside", -1)) {
		TH_LOG("flush_to_ldisc() of a port ran outside its driver's fifo workqueue (after the port was unregistered)");
	}
	EXPECT_EQ(0, kv_long(self->out, "lost", -1)) {
		TH_LOG("data received between an unplug and its hangup never reached the port");
	}
	EXPECT_EQ(0, kv_long(self->out, "destroyed_running", -1));
	EXPECT_TRUE(kv_pass(self->out));
}

/*
 * Unplugged while its flush work runs and more data arrives: the port's
 * destruction (cancel_work_sync() of its flip work, then its flip buffers
 * freed) waits for the flush work that is running.
 */
TEST_F_TIMEOUT(tty, destroy_waits_for_flush_work, 120)
{
	char why[128];

	if (!give_rt_profile(_metadata, self))
		return;
	tty_run(_metadata, self->out, sizeof(self->out), "race policy=fifo");
	if (kv_skip(self->out)) {
		kv_find(self->out, "reason", why, sizeof(why));
		SKIP(return, "%s", why);
	}
	EXPECT_EQ(0, kv_long(self->out, "destroyed_before_release", -1)) {
		TH_LOG("the port was destroyed, its flip buffers freed, while its flush_to_ldisc() still ran");
	}
	EXPECT_EQ(0, kv_long(self->out, "destroyed_running", -1));
	EXPECT_TRUE(kv_pass(self->out));
}

/*
 * A driver unregistered while one of its ports, linked before registration
 * as static ports are, is still there and receives: its data is still
 * received, and the driver's workqueue goes once the port has.
 */
TEST_F_TIMEOUT(tty, driver_gone, 60)
{
	if (!flip_wqs())
		SKIP(return, "kernel without tty flip buffer workqueues");
	tty_run(_metadata, self->out, sizeof(self->out), "driver_gone");
	EXPECT_EQ(1, kv_long(self->out, "received_before", -1));
	EXPECT_EQ(1, kv_long(self->out, "received_after", -1)) {
		TH_LOG("data for a port whose driver was unregistered never reached it");
	}
	EXPECT_TRUE(kv_pass(self->out));
	EXPECT_FALSE(wqrt_exists(WQ_DIR "/ttyWQRTg-wqrt_tty_gone")) {
		TH_LOG("the workqueue of the driver stayed after its last port went");
	}
}

/*
 * A driver whose registration fails (its device names are taken) and is
 * retried: its port, linked before registration, is linked to the
 * driver's workqueue after the retry, and its data is received.
 */
TEST_F_TIMEOUT(tty, register_retry, 60)
{
	if (!flip_wqs())
		SKIP(return, "kernel without tty flip buffer workqueues");
	tty_run(_metadata, self->out, sizeof(self->out), "register_retry");
	EXPECT_NE(0, kv_long(self->out, "first", 0)) {
		TH_LOG("the first registration was meant to fail");
	}
	EXPECT_EQ(0, kv_long(self->out, "stale_after_failure", -1)) {
		TH_LOG("the failed registration left the port on the workqueue it destroyed");
	}
	EXPECT_EQ(1, kv_long(self->out, "linked_after_retry", -1)) {
		TH_LOG("after the retry the port is not linked to its driver's workqueue");
	}
	EXPECT_EQ(1, kv_long(self->out, "received", -1));
	EXPECT_TRUE(kv_pass(self->out));
	EXPECT_FALSE(wqrt_exists(WQ_DIR "/ttyWQRTr-wqrt_tty_retry"));
}

/*
 * A driver registered, unregistered and registered again, which fails: its
 * port, linked by the first registration and receiving, keeps its link to
 * the driver's workqueue, and its data is still received there.
 */
TEST_F_TIMEOUT(tty, failed_reregistration_keeps_links, 60)
{
	if (!flip_wqs())
		SKIP(return, "kernel without tty flip buffer workqueues");
	tty_run(_metadata, self->out, sizeof(self->out), "reregister");
	EXPECT_EQ(1, kv_long(self->out, "linked_first", -1));
	EXPECT_EQ(1, kv_long(self->out, "received_first", -1));
	EXPECT_NE(0, kv_long(self->out, "again", 0)) {
		TH_LOG("the second registration was meant to fail");
	}
	EXPECT_EQ(1, kv_long(self->out, "kept_link", -1)) {
		TH_LOG("the failed registration unlinked a port that the first one linked");
	}
	EXPECT_EQ(1, kv_long(self->out, "received_after", -1));
	EXPECT_TRUE(kv_pass(self->out));
	EXPECT_FALSE(wqrt_exists(WQ_DIR "/ttyWQRTr-wqrt_tty_again"));
}

#define RELOAD_WQ "ttyWQRTl-wqrt_tty_reload"

/*
 * A driver module loaded again while the old driver's port was never
 * destroyed (the old workqueue stays for it): the workqueue in sysfs under
 * the driver's name is the new driver's, so the RT profile an administrator
 * (or wqrtd, on the uevent) gives it reaches the new driver's data.
 */
TEST_F_TIMEOUT(tty, reloaded_driver_owns_the_name, 60)
{
	if (!flip_wqs())
		SKIP(return, "kernel without tty flip buffer workqueues");
	if (!wq_has(TTY_WQ, "policy"))
		SKIP(return,
		     "kernel without the workqueue RT series (no %s/policy)",
		     TTY_WQ);
	tty_run(_metadata, self->out, sizeof(self->out), "reload_prepare");
	ASSERT_TRUE(kv_pass(self->out));
	ASSERT_TRUE(wqrt_exists(WQ_DIR "/" RELOAD_WQ)) {
		TH_LOG("the new driver's workqueue is not in sysfs");
	}
	/* the workqueue goes with the drivers: nothing to restore */
	EXPECT_EQ(0, wq_set(RELOAD_WQ, "policy", "fifo"));
	EXPECT_EQ(0, wq_set(RELOAD_WQ, "rtprio", "20"));
	tty_run(_metadata, self->out, sizeof(self->out),
		"reload_check policy=fifo");
	EXPECT_EQ(1, kv_long(self->out, "received", -1));
	EXPECT_EQ(0, kv_long(self->out, "outside", -1)) {
		TH_LOG("the new driver's data ran outside the fifo workqueue: %s in sysfs is the old driver's",
		       RELOAD_WQ);
	}
	EXPECT_TRUE(kv_pass(self->out));
	EXPECT_FALSE(wqrt_exists(WQ_DIR "/" RELOAD_WQ)) {
		TH_LOG("a workqueue of the drivers stayed after both went");
	}
}

WQRT_HARNESS_MAIN("wqrt_tty", TTY_DBG "/info")
