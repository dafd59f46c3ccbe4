// SPDX-License-Identifier: GPL-2.0-only
/*
 * imu_uart: the IMU-over-UART case of seed 004 for `make bench-imu`.
 *
 *   imu_uart [-n FRAMES] [-p PERIOD_US] [-l FRAME_LEN] [-c CPU]
 *            [-w WRITER_PRIO] [-r READER_PRIO] [-t TAG] [-e] [-R] DEVICE
 *
 * Puts DEVICE (a 16550) in raw mode and in loopback (TIOCM_LOOP, MCR bit 4,
 * as uart_loop does), then a SCHED_FIFO writer sends one FRAME_LEN-byte
 * frame per period, like an IMU, and a SCHED_FIFO reader reads them back.
 * Every byte the reader gets went through the port's flip buffer, that is
 * through a flush_to_ldisc() work item on the tty driver's flip workqueue
 * ("ttyS-serial_8250" for the 8250).
 *
 * The writer sleeps to the absolute time t0 + k * PERIOD and then sends
 * frame k: a writer that wakes up late still sends every frame, and frame
 * k is due at t0 + k * PERIOD whenever it was sent, so a late period is
 * measured, never skipped. The reader stamps each frame with the time the
 * read() that completed it returned.
 *
 * A frame is 0xa5, its number (24 bits, little endian), filler ("sensor
 * data") and a Fletcher-16 of the bytes before it: 8 bytes at the least,
 * what a 115200-baud line carries 1000 times a second with room to spare
 * (8000 of its 11520 bytes/s).
 *
 * After the run, one line per frame on stdout:
 *   F TAG SEQ WRITER_LATE_NS LATENCY_NS WRITE_NS
 * LATENCY is arrival - scheduled send time, -1 for a frame that never came;
 * WRITER_LATE is when write() started - scheduled send time; WRITE_NS how
 * long the writes of the frame took. Then
 *   X TAG frames N received N lost N corrupt N dup N junk_bytes N
 *     overrun N buf_overrun N sleep_eintr N sleep_early N
 * (overrun: the UART's receive FIFO overflowed; buf_overrun: the tty's
 * flip buffer did, both from TIOCGICOUNT over the run; sleep_eintr: the
 * writer's clock_nanosleep() calls that returned EINTR and were made
 * again at once, sleep_early: those that returned 0 before their time.
 * A writer that does not sleep between its frames holds its CPU at its
 * SCHED_FIFO priority: these say whether it slept.)
 *
 * -R: the frames come from outside, as from a real IMU (imu_sender on the
 * host, through QEMU's serial backend, sends one every PERIOD_US on the
 * host's clock): no writer and no loopback; the reader takes the first
 * FRAMES frames it gets, whatever their numbers, and prints one line per
 * frame received, then the X line:
 *   G TAG K SEQ GAP_NS
 * GAP is the time from the read() that completed the previous frame to
 * the one that completed this one (-1 for the first); lost counts the
 * numbers missing between consecutive frames, dup the frames that did
 * not come after the one before. No clock is shared with the sender:
 * what the reader sees is the gaps.
 *
 * Exit 0 when the run took place (lost or corrupt frames are numbers, not
 * failures), 2 on a usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/serial.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "imu_frame.h"

#ifndef TIOCM_LOOP
#define TIOCM_LOOP 0x8000
#endif

#define NSEC_PER_SEC	1000000000LL

struct run {
	int fd;
	int len;
	int cpu;
	int wprio;
	int rprio;
	uint32_t count;
	int64_t period_ns;
	_Atomic int64_t t0;
	int64_t *wlate;		/* per frame: write start - scheduled */
	int64_t *wdur;		/* per frame: how long its write()s took */
	uint64_t sleep_eintr;	/* the writer's EINTR returns from its sleep */
	uint64_t sleep_early;	/* and its returns before the time asked */
	int64_t *arr;		/* per frame: arrival time, -1 */
	atomic_uint received;
	uint32_t corrupt, dup, lost;
	int feed;		/* -R: frames from outside */
	uint32_t *seqs;		/* -R: the number of each frame received */
	uint64_t junk;
	atomic_int stop;
	atomic_int reader_ready;
	int err;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int rt_self(int cpu, int prio, const char *who)
{
	struct sched_param sp = { .sched_priority = prio };
	cpu_set_t set;
	int e;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	e = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!e)
		e = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
	if (e)
		fprintf(stderr, "imu_uart: %s: CPU %d SCHED_FIFO %d: %s\n",
			who, cpu, prio, strerror(e));
	return e;
}

static void *writer(void *arg)
{
	struct run *r = arg;
	unsigned char f[FRAME_MAX];
	int64_t t0;

	if (rt_self(r->cpu, r->wprio, "writer")) {
		r->err = 1;
		return NULL;
	}
	/*
	 * The first period starts once both threads run where they should:
	 * a start stamped before them would count their creation as lateness
	 * of the first frames.
	 */
	while (!atomic_load(&r->reader_ready) && !r->err)
		usleep(1000);
	if (r->err)
		return NULL;
	t0 = now_ns() + 100000000;
	atomic_store(&r->t0, t0);
	for (uint32_t k = 0; k < r->count; k++) {
		int64_t t = t0 + k * r->period_ns, w;
		struct timespec ts = { t / NSEC_PER_SEC, t % NSEC_PER_SEC };
		size_t off = 0;

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
			r->sleep_eintr++;
		w = now_ns();
		if (w < t)
			r->sleep_early++;
		f[0] = MAGIC;
		put_le(f + 1, k, 3);
		for (int i = 4; i < r->len - 2; i++)
			f[i] = k * 31 + i * 7;
		put_le(f + r->len - 2, fletcher16(f, r->len - 2), 2);
		r->wlate[k] = w - t;
		while (off < (size_t)r->len) {
			ssize_t n = write(r->fd, f + off, r->len - off);

			if (n < 0 && errno != EINTR) {
				perror("imu_uart: write");
				r->err = 1;
				return NULL;
			}
			if (n > 0)
				off += n;
		}
		r->wdur[k] = now_ns() - w;
	}
	return NULL;
}

/*
 * -R: frame SEQ of the sender's, the next one received, read at NOW. The
 * numbers are 24 bits and wrap; one less than half the space ahead of the
 * previous frame is a loss of those in between, anything else a frame out
 * of order (dup).
 */
static void parse_feed(struct run *r, uint32_t seq, int64_t now)
{
	uint32_t k = r->received, ahead;

	if (k >= r->count)
		return;
	if (k) {
		ahead = (seq - r->seqs[k - 1]) & 0xffffff;
		if (!ahead || ahead >= 0x800000) {
			r->dup++;
			return;
		}
		r->lost += ahead - 1;
	}
	r->seqs[k] = seq;
	r->arr[k] = now;
	r->received = k + 1;
}

/* Take the frames out of buf[0..*len) that are complete, stamped at now. */
static void parse(struct run *r, unsigned char *buf, size_t *len, int64_t now,
		  int *resync)
{
	size_t i = 0, fl = r->len;

	while (*len - i >= fl) {
		unsigned char *f = buf + i;
		uint32_t seq;

		if (f[0] != MAGIC) {
			r->junk++;
			i++;
			continue;
		}
		if (get_le(f + fl - 2, 2) != fletcher16(f, fl - 2)) {
			if (!*resync)
				r->corrupt++;
			*resync = 1;
			r->junk++;
			i++;
			continue;
		}
		*resync = 0;
		seq = get_le(f + 1, 3);
		if (r->feed) {
			parse_feed(r, seq, now);
		} else if (seq >= r->count) {
			r->corrupt++;
		} else if (r->arr[seq] >= 0) {
			r->dup++;
		} else {
			r->arr[seq] = now;
			r->received++;
		}
		i += fl;
	}
	memmove(buf, buf + i, *len - i);
	*len -= i;
}

static void *reader(void *arg)
{
	struct run *r = arg;
	unsigned char buf[8192];
	size_t len = 0;
	int resync = 0;

	if (rt_self(r->cpu, r->rprio, "reader")) {
		r->err = 1;
		return NULL;
	}
	atomic_store(&r->reader_ready, 1);
	while (!atomic_load(&r->stop) && r->received < r->count) {
		struct pollfd pfd = { .fd = r->fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(r->fd, buf + len, sizeof(buf) - len);
		if (n <= 0)
			continue;
		len += n;
		parse(r, buf, &len, now_ns(), &resync);
		if (len == sizeof(buf)) {	/* no frame in 8 KiB: drop */
			r->junk += len;
			len = 0;
		}
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: imu_uart [-n FRAMES] [-p PERIOD_US] [-l FRAME_LEN] [-c CPU] [-w WRITER_PRIO] [-r READER_PRIO] [-t TAG] [-e] [-R] DEVICE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct run r = { .count = 5000, .period_ns = 1000000, .cpu = 0,
			 .wprio = 40, .rprio = 30, .len = FRAME_MIN };
	struct serial_icounter_struct ic0 = { 0 }, ic1 = { 0 };
	const char *tag = "imu";
	struct termios old, raw;
	pthread_attr_t attr;
	pthread_t wt, rt;
	int loop = TIOCM_LOOP, echo = 0, c, e;
	int64_t end;

	while ((c = getopt(argc, argv, "n:p:l:c:w:r:t:eR")) != -1) {
		switch (c) {
		case 'n':
			r.count = strtoul(optarg, NULL, 10);
			break;
		case 'p':
			r.period_ns = strtoll(optarg, NULL, 10) * 1000;
			break;
		case 'l':
			r.len = atoi(optarg);
			break;
		case 'c':
			r.cpu = atoi(optarg);
			break;
		case 'w':
			r.wprio = atoi(optarg);
			break;
		case 'r':
			r.rprio = atoi(optarg);
			break;
		case 't':
			tag = optarg;
			break;
		case 'e':
			echo = 1;
			break;
		case 'R':
			r.feed = 1;
			echo = 1;	/* no loopback: the bytes come from outside */
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !r.count || r.count > 1 << 24 ||
	    r.period_ns < 10000 || r.len < FRAME_MIN || r.len > FRAME_MAX)
		usage();

	r.wlate = calloc(r.count, sizeof(*r.wlate));
	r.wdur = calloc(r.count, sizeof(*r.wdur));
	r.arr = malloc(r.count * sizeof(*r.arr));
	r.seqs = calloc(r.count, sizeof(*r.seqs));
	if (!r.wlate || !r.wdur || !r.arr || !r.seqs)
		return 2;
	for (uint32_t k = 0; k < r.count; k++)
		r.arr[k] = -1;
	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("imu_uart: mlockall");

	r.fd = open(argv[optind], O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (r.fd < 0 || tcgetattr(r.fd, &old)) {
		fprintf(stderr, "imu_uart: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	raw = old;
	cfmakeraw(&raw);
	raw.c_cflag |= CLOCAL | CREAD;
	raw.c_cflag &= ~CRTSCTS;
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	cfsetispeed(&raw, B115200);
	cfsetospeed(&raw, B115200);
	/* blocking from here on: the writer must never spin on EAGAIN */
	if (tcsetattr(r.fd, TCSANOW, &raw) ||
	    (!echo && ioctl(r.fd, TIOCMBIS, &loop)) ||
	    fcntl(r.fd, F_SETFL, fcntl(r.fd, F_GETFL) & ~O_NONBLOCK)) {
		fprintf(stderr, "imu_uart: %s: raw mode and loopback: %s\n",
			argv[optind], strerror(errno));
		return 2;
	}
	tcflush(r.fd, TCIOFLUSH);
	/* a UART without counters (not the 8250) reports zeros */
	ioctl(r.fd, TIOCGICOUNT, &ic0);

	/* small stacks: mlockall() populates every page of them */
	e = pthread_attr_init(&attr);
	if (!e)
		e = pthread_attr_setstacksize(&attr, 256 * 1024);
	if (!e)
		e = pthread_create(&rt, &attr, reader, &r);
	if (!e && !r.feed)
		e = pthread_create(&wt, &attr, writer, &r);
	if (e) {
		fprintf(stderr, "imu_uart: pthread_create: %s\n", strerror(e));
		return 2;
	}
	if (r.feed) {
		/* the sender runs already: FRAMES periods and 5 s to start */
		end = now_ns() + r.count * r.period_ns + 5 * NSEC_PER_SEC;
	} else {
		pthread_join(wt, NULL);
		/* a frame that is not there 1 s after its last period is lost */
		end = atomic_load(&r.t0) + r.count * r.period_ns + NSEC_PER_SEC;
	}
	while (r.received < r.count && now_ns() < end && !r.err)
		usleep(10000);
	atomic_store(&r.stop, 1);
	pthread_join(rt, NULL);
	ioctl(r.fd, TIOCGICOUNT, &ic1);

	if (!echo)
		ioctl(r.fd, TIOCMBIC, &loop);
	tcsetattr(r.fd, TCSANOW, &old);
	close(r.fd);
	if (r.err)
		return 2;

	if (r.feed) {
		for (uint32_t k = 0; k < r.received; k++)
			printf("G %s %u %u %lld\n", tag, k, r.seqs[k],
			       k ? (long long)(r.arr[k] - r.arr[k - 1]) : -1LL);
		printf("X %s frames %u received %u lost %u corrupt %u dup %u junk_bytes %llu overrun %d buf_overrun %d\n",
		       tag, r.count, r.received, r.lost, r.corrupt, r.dup,
		       (unsigned long long)r.junk, ic1.overrun - ic0.overrun,
		       ic1.buf_overrun - ic0.buf_overrun);
		return 0;
	}
	for (uint32_t k = 0; k < r.count; k++)
		printf("F %s %u %lld %lld %lld\n", tag, k, (long long)r.wlate[k],
		       r.arr[k] < 0 ? -1LL :
		       (long long)(r.arr[k] - r.t0 - k * r.period_ns),
		       (long long)r.wdur[k]);
	printf("X %s frames %u received %u lost %u corrupt %u dup %u junk_bytes %llu overrun %d buf_overrun %d sleep_eintr %llu sleep_early %llu\n",
	       tag, r.count, r.received, r.count - r.received, r.corrupt, r.dup,
	       (unsigned long long)r.junk, ic1.overrun - ic0.overrun,
	       ic1.buf_overrun - ic0.buf_overrun,
	       (unsigned long long)r.sleep_eintr, (unsigned long long)r.sleep_early);
	return 0;
}
