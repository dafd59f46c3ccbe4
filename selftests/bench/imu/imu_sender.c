// SPDX-License-Identifier: GPL-2.0-only
/*
 * imu_sender: the IMU of seed 004's case, outside the guest, for `make
 * bench-imu`'s host-clock mode.
 *
 *   imu_sender [-n FRAMES] [-p PERIOD_US] [-l FRAME_LEN] [-w SECONDS] PATH
 *
 * Sends one FRAME_LEN-byte frame every PERIOD_US on the host's clock, as a
 * real IMU would, into PATH: the Unix socket of a QEMU serial backend
 * (-chardev socket,server=on: connected to as a client, retried for up to
 * SECONDS, 60 by default, while QEMU starts) or any file or device to open
 * for writing. Frame k is due at t0 + k * PERIOD, whenever the previous one
 * went out; the frame is imu_uart's (0xa5, a 24-bit number that wraps,
 * filler, Fletcher-16), so that imu_uart -R in the guest reads it.
 * FRAMES 0 (the default) sends until the reader's end closes or a signal
 * stops it.
 *
 * A frame the other end cannot take when it is due is dropped, as a real
 * IMU's frame is lost when the UART overruns, instead of queueing behind
 * the ones before: while the guest does not read its UART, QEMU stops
 * reading the socket, and frames queued there would reach the next reader
 * as a burst seconds old. The socket's own buffer (the kernel's default,
 * a few hundred of these small writes) still absorbs a short stall of the
 * guest's UART, as a real line's FIFO and the driver's buffer would: a
 * stall of the emulator is no frame lost.
 *
 * Prints on stderr at the end:
 *   S sent N dropped N late_over_period N late_max_ns N
 * late: when write() started - when the frame was due (the host's own
 * wakeups; a frame later than a period is counted there, and still sent);
 * dropped: frames the other end could not take when due.
 * Exit 0 once it sent what it could, 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "imu_frame.h"

#define NSEC_PER_SEC	1000000000LL

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* PATH opened for writing: a Unix socket connected to, else a file */
static int open_path(const char *path, int wait_s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int64_t end = now_ns() + wait_s * NSEC_PER_SEC;
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "imu_sender: %s: longer than a socket path may be\n", path);
		return -1;
	}
	strcpy(sa.sun_path, path);
	for (;;) {
		if (!stat(path, &st) && !S_ISSOCK(st.st_mode)) {
			fd = open(path, O_WRONLY | O_NOCTTY);
			if (fd < 0)
				fprintf(stderr, "imu_sender: %s: %s\n", path, strerror(errno));
			return fd;
		}
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			perror("imu_sender: socket");
			return -1;
		}
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			return fd;
		close(fd);
		if ((errno != ENOENT && errno != ECONNREFUSED) || now_ns() > end || stop) {
			fprintf(stderr, "imu_sender: %s: %s\n", path, strerror(errno));
			return -1;
		}
		usleep(100000);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: imu_sender [-n FRAMES] [-p PERIOD_US] [-l FRAME_LEN] [-w SECONDS] PATH\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long long count = 0, sent = 0, dropped = 0, late_over = 0;
	int64_t period_ns = 1000000, late_max = 0, t0;
	int len = FRAME_MIN, wait_s = 60, fd, c;
	unsigned char f[FRAME_MAX];
	struct sigaction sa = { .sa_handler = on_signal };

	while ((c = getopt(argc, argv, "n:p:l:w:")) != -1) {
		switch (c) {
		case 'n':
			count = strtoull(optarg, NULL, 10);
			break;
		case 'p':
			period_ns = strtoll(optarg, NULL, 10) * 1000;
			break;
		case 'l':
			len = atoi(optarg);
			break;
		case 'w':
			wait_s = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || period_ns < 10000 || len < FRAME_MIN ||
	    len > FRAME_MAX || wait_s < 0)
		usage();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	fd = open_path(argv[optind], wait_s);
	if (fd < 0)
		return 2;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)) {
		perror("imu_sender: O_NONBLOCK");
		return 2;
	}
	t0 = now_ns() + 100000000;
	for (uint64_t k = 0; !stop && (!count || k < count); k++) {
		int64_t t = t0 + (int64_t)k * period_ns, late;
		struct timespec ts = { t / NSEC_PER_SEC, t % NSEC_PER_SEC };
		size_t off = 0;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
			;
		if (stop)
			break;
		late = now_ns() - t;
		if (late > late_max)
			late_max = late;
		if (late > period_ns)
			late_over++;
		f[0] = MAGIC;
		f[1] = k;
		f[2] = k >> 8;
		f[3] = k >> 16;
		for (int i = 4; i < len - 2; i++)
			f[i] = k * 31 + i * 7;
		f[len - 2] = fletcher16(f, len - 2);
		f[len - 1] = fletcher16(f, len - 2) >> 8;
		while (off < (size_t)len) {
			ssize_t n = write(fd, f + off, len - off);
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (n < 0 && errno == EINTR && !stop)
				continue;
			if (n < 0 && errno == EAGAIN && !off)
				break;		/* not taken: the frame is lost */
			if (n < 0 && errno == EAGAIN) {
				/* the rest of a frame begun: keep the framing */
				if (poll(&pfd, 1, 1000) < 0 && errno != EINTR)
					goto out;
				if (stop)
					goto out;
				continue;
			}
			if (n <= 0)
				goto out;	/* the other end went away */
			off += n;
		}
		if (off)
			sent++;
		else
			dropped++;
	}
out:
	close(fd);
	fprintf(stderr, "S sent %llu dropped %llu late_over_period %llu late_max_ns %lld\n",
		sent, dropped, late_over, (long long)late_max);
	return 0;
}
