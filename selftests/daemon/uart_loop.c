// SPDX-License-Identifier: GPL-2.0-only
/*
 * uart_loop: send bytes through a UART in loopback and check that the same
 * bytes come back, for the tests of the tty flip buffer workqueue.
 *
 *   uart_loop DEVICE [BYTES]          default 4096 bytes
 *   uart_loop --peer DEVICE [BYTES]
 *
 * Puts DEVICE in raw mode at 115200 baud, sets the loopback bit of the
 * modem control register (TIOCM_LOOP: the 16550's MCR bit 4, which QEMU
 * emulates), writes BYTES bytes of a pattern that covers every byte value,
 * and reads until as many came back or 20 seconds passed. Every byte that
 * comes back went through the port's flip buffer, so the driver's flip
 * workqueue ran flush_to_ldisc() for it. Restores the modem lines and
 * termios before exiting. Exit 0 if every byte came back intact, 1 if not,
 * 2 on a usage or setup error (no such device, no loopback).
 *
 * A UART without loopback (QEMU 7.2's PL011) needs someone at the other
 * end: with --peer, uart_loop writes the line "WQRT-UART-PEER BYTES"
 * instead, and the peer (selftests/vm/uart-peer.py, on the host end of
 * the VM's serial line) answers with the pattern.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* glibc's <sys/ioctl.h> lacks it; <asm-generic/termios.h> has it */
#ifndef TIOCM_LOOP
#define TIOCM_LOOP 0x8000
#endif

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static unsigned char pattern(size_t i)
{
	return (unsigned char)(i * 7 + 13);
}

int main(int argc, char **argv)
{
	struct termios old, raw;
	unsigned char *rx;
	size_t n = 4096, sent = 0, got = 0, bad = 0;
	int fd, loop = TIOCM_LOOP, rc = 0;
	bool peer = false;
	char request[64];
	size_t req_len = 0, req_sent = 0;
	long long deadline;

	if (argc > 1 && !strcmp(argv[1], "--peer")) {
		peer = true;
		argv++;
		argc--;
	}
	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: uart_loop [--peer] DEVICE [BYTES]\n");
		return 2;
	}
	if (argc == 3)
		n = strtoul(argv[2], NULL, 10);
	if (!n || n > (1 << 20)) {
		fprintf(stderr, "uart_loop: BYTES must be 1..1048576\n");
		return 2;
	}
	rx = malloc(n);
	if (!rx)
		return 2;

	fd = open(argv[1], O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "uart_loop: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (tcgetattr(fd, &old)) {
		fprintf(stderr, "uart_loop: %s: not a tty: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	raw = old;
	cfmakeraw(&raw);
	raw.c_cflag |= CLOCAL | CREAD;
	raw.c_cflag &= ~CRTSCTS;
	cfsetispeed(&raw, B115200);
	cfsetospeed(&raw, B115200);
	if (tcsetattr(fd, TCSANOW, &raw) ||
	    (!peer && ioctl(fd, TIOCMBIS, &loop))) {
		fprintf(stderr, "uart_loop: %s: cannot set raw mode%s: %s\n",
			argv[1], peer ? "" : " and loopback", strerror(errno));
		return 2;
	}
	tcflush(fd, TCIOFLUSH);
	if (peer) {
		/* the peer sends the pattern; we send only the request */
		req_len = snprintf(request, sizeof(request),
				   "\r\nWQRT-UART-PEER %zu\r\n", n);
		sent = n;
	}

	deadline = now_ms() + 20000;
	while (got < n && now_ms() < deadline) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (sent < n || req_sent < req_len)
			pfd.events |= POLLOUT;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		if (req_sent < req_len && (pfd.revents & POLLOUT)) {
			r = write(fd, request + req_sent, req_len - req_sent);
			if (r > 0)
				req_sent += r;
		}
		if (sent < n && (pfd.revents & POLLOUT)) {
			unsigned char tx[256];
			size_t k, len = n - sent < sizeof(tx) ? n - sent : sizeof(tx);

			for (k = 0; k < len; k++)
				tx[k] = pattern(sent + k);
			r = write(fd, tx, len);
			if (r > 0)
				sent += r;
		}
		if (pfd.revents & POLLIN) {
			r = read(fd, rx + got, n - got);
			if (r > 0)
				got += r;
		}
	}

	for (size_t i = 0; i < got; i++)
		if (rx[i] != pattern(i))
			bad++;
	if (got != n || bad) {
		fprintf(stderr, "uart_loop: %s: sent %zu, received %zu, %zu differ\n",
			argv[1], sent, got, bad);
		rc = 1;
	} else {
		printf("uart_loop: %s: %zu bytes %s and received intact\n",
		       argv[1], n, peer ? "asked of the peer" : "sent");
	}

	if (!peer)
		ioctl(fd, TIOCMBIC, &loop);
	tcsetattr(fd, TCSANOW, &old);
	close(fd);
	free(rx);
	return rc;
}
