// SPDX-License-Identifier: GPL-2.0
/*
 * vkms_frames: keep vkms composing frames at a chosen refresh rate, for
 * make bench-gpu (selftests/bench/gpu/vm-gpu.sh), with raw DRM ioctls (the
 * busybox guest has no libdrm).
 *
 *   vkms_frames [-c CARD] [-W WIDTH] [-H HEIGHT] [-r HZ] [-s SECONDS]
 *   vkms_frames -m MB [-s SECONDS]
 *   vkms_frames -P PRIO PID...
 *
 * The first form makes a dumb buffer and a framebuffer of WIDTH x HEIGHT
 * (XRGB8888, a gradient), sets a mode of that size whose pixel clock
 * gives HZ vblanks a second (vkms's vblank hrtimer runs at the mode's
 * frame duration), keeps the CRTC lit, turns on CRC capture (debugfs
 * dri/N/crtc-0/crc/control "auto"; opening crc/data starts it) and drains
 * crc/data for SECONDS: with capture on, vkms_vblank_simulate() queues
 * vkms_composer_worker on the ordered workqueue vkms_composer at every
 * vblank, and the worker composes the planes and adds one CRC entry per
 * vblank it covered. Then the capture stops and the CRTC is turned off,
 * so that no vblank timer keeps running. Prints one line:
 *
 *   vkms_frames: mode WxH clock KHZ htotal H vtotal V: NS ns a frame,
 *   entries N first F last L
 *
 * (N CRC entries read, F and L their first and last frame numbers).
 * Exit 0 when at least one CRC entry came, 1 when none did, 2 on a setup
 * error.
 *
 * The second form is the benchmark's memory load: for SECONDS (or until
 * killed) it maps MB of anonymous memory, writes every byte, unmaps it,
 * and starts again: page faults, page zeroing, the page allocator and
 * memory bandwidth, from user space.
 *
 * The third sets the threads PID... to SCHED_FIFO PRIO, or back to
 * SCHED_OTHER with PRIO 0 (busybox has no chrt): the benchmark's
 * variants that make the vblank timer's softirq thread real-time.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <drm/drm.h>
#include <drm/drm_mode.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static int xioctl(int fd, unsigned long req, void *arg, const char *what)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret && (errno == EINTR || errno == EAGAIN));
	if (ret)
		fprintf(stderr, "vkms_frames: %s: %s\n", what, strerror(errno));
	return ret;
}

static int memhog(long mb, long secs)
{
	size_t len = (size_t)mb << 20;
	long long end = now_ms() + secs * 1000LL;

	while (secs <= 0 || now_ms() < end) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "vkms_frames: mmap %ld MB: %s\n", mb,
				strerror(errno));
			return 2;
		}
		memset(p, 0x5a, len);
		munmap(p, len);
	}
	return 0;
}

/* the crc directory of CRTC 0 of DRM minor @minor, or of the first one */
static int crc_dir(int minor, char *buf, size_t len)
{
	char pat[64];
	glob_t g;
	int ret = -1;

	snprintf(pat, sizeof(pat), "/sys/kernel/debug/dri/%d/crtc-0/crc",
		 minor);
	if (glob(pat, 0, NULL, &g) &&
	    glob("/sys/kernel/debug/dri/*/crtc-0/crc", 0, NULL, &g))
		goto out;
	snprintf(buf, len, "%s", g.gl_pathv[0]);
	ret = 0;
out:
	globfree(&g);
	return ret;
}

/*
 * A mode of @w x @h at @hz: small blanking intervals, the pixel clock
 * (kHz) rounded to the nearest; the kernel's frame duration is
 * htotal * vtotal * 10^6 / clock ns.
 */
static void make_mode(struct drm_mode_modeinfo *m, int w, int h, int hz)
{
	memset(m, 0, sizeof(*m));
	m->hdisplay = w;
	m->hsync_start = w + 16;
	m->hsync_end = w + 32;
	m->htotal = w + 48;
	m->vdisplay = h;
	m->vsync_start = h + 3;
	m->vsync_end = h + 6;
	m->vtotal = h + 10;
	m->clock =
		(uint32_t)(((uint64_t)m->htotal * m->vtotal * hz + 500) / 1000);
	m->vrefresh = hz;
	m->flags = DRM_MODE_FLAG_PHSYNC | DRM_MODE_FLAG_PVSYNC;
	m->type = DRM_MODE_TYPE_USERDEF;
	snprintf(m->name, sizeof(m->name), "%dx%d@%d", w, h, hz);
}

static int frames(const char *card, int w, int h, int hz, long secs)
{
	struct drm_mode_card_res res = { 0 };
	struct drm_mode_get_connector conn = { 0 };
	struct drm_mode_create_dumb dumb = { 0 };
	struct drm_mode_map_dumb map = { 0 };
	struct drm_mode_destroy_dumb destroy = { 0 };
	struct drm_mode_fb_cmd fb = { 0 };
	struct drm_mode_crtc crtc = { 0 };
	uint32_t crtcs[8], conns[8], encs[8], fbs[8];
	char dir[256], path[300], buf[4096];
	long long end, first = -1, last = -1;
	long entries = 0;
	int fd, ctl, data = -1, minor, ret = 2;
	size_t partial = 0;
	uint32_t *px;

	fd = open(card, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vkms_frames: %s: %s\n", card, strerror(errno));
		return 2;
	}
	/* the first opener is master already; say so anyway */
	ioctl(fd, DRM_IOCTL_SET_MASTER, 0);

	res.crtc_id_ptr = (uintptr_t)crtcs;
	res.connector_id_ptr = (uintptr_t)conns;
	res.encoder_id_ptr = (uintptr_t)encs;
	res.fb_id_ptr = (uintptr_t)fbs;
	res.count_crtcs = res.count_connectors = res.count_encoders = 8;
	res.count_fbs = 8;
	if (xioctl(fd, DRM_IOCTL_MODE_GETRESOURCES, &res, "GETRESOURCES"))
		goto out;
	if (!res.count_crtcs || !res.count_connectors) {
		fprintf(stderr, "vkms_frames: no CRTC or connector\n");
		goto out;
	}
	/* probe the connector once (its modes are not used: ours is custom) */
	conn.connector_id = conns[0];
	if (xioctl(fd, DRM_IOCTL_MODE_GETCONNECTOR, &conn, "GETCONNECTOR"))
		goto out;

	dumb.width = w;
	dumb.height = h;
	dumb.bpp = 32;
	if (xioctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &dumb, "CREATE_DUMB"))
		goto out;
	map.handle = dumb.handle;
	if (xioctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map, "MAP_DUMB"))
		goto out_dumb;
	px = mmap(NULL, dumb.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		  map.offset);
	if (px == MAP_FAILED) {
		fprintf(stderr, "vkms_frames: mmap dumb: %s\n",
			strerror(errno));
		goto out_dumb;
	}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++)
			px[y * (dumb.pitch / 4) + x] =
				(x * 255 / w) << 16 | (y * 255 / h) << 8 | 0x40;
	munmap(px, dumb.size);

	fb.width = w;
	fb.height = h;
	fb.pitch = dumb.pitch;
	fb.bpp = 32;
	fb.depth = 24;
	fb.handle = dumb.handle;
	if (xioctl(fd, DRM_IOCTL_MODE_ADDFB, &fb, "ADDFB"))
		goto out_dumb;

	crtc.crtc_id = crtcs[0];
	crtc.fb_id = fb.fb_id;
	crtc.set_connectors_ptr = (uintptr_t)&conns[0];
	crtc.count_connectors = 1;
	crtc.mode_valid = 1;
	make_mode(&crtc.mode, w, h, hz);
	if (xioctl(fd, DRM_IOCTL_MODE_SETCRTC, &crtc, "SETCRTC"))
		goto out_fb;

	/* DRM minor of the card, for debugfs: card0 -> 0 */
	minor = atoi(card + strcspn(card, "0123456789"));
	if (crc_dir(minor, dir, sizeof(dir))) {
		fprintf(stderr, "vkms_frames: no debugfs dri/%d/crtc-0/crc\n",
			minor);
		goto out_off;
	}
	snprintf(path, sizeof(path), "%s/control", dir);
	ctl = open(path, O_WRONLY);
	if (ctl < 0 || write(ctl, "auto", 4) != 4) {
		fprintf(stderr, "vkms_frames: %s: %s\n", path, strerror(errno));
		if (ctl >= 0)
			close(ctl);
		goto out_off;
	}
	close(ctl);
	snprintf(path, sizeof(path), "%s/data", dir);
	data = open(path, O_RDONLY | O_NONBLOCK);
	if (data < 0) {
		fprintf(stderr, "vkms_frames: %s: %s\n", path, strerror(errno));
		goto out_off;
	}

	/* one line per frame: "<frame> <crc>\n" (the frame in hex) */
	end = now_ms() + secs * 1000LL;
	while (now_ms() < end) {
		struct pollfd pfd = { .fd = data, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		r = read(data, buf + partial, sizeof(buf) - 1 - partial);
		if (r <= 0)
			continue;
		partial += r;
		buf[partial] = 0;
		char *line = buf, *nl;

		while ((nl = strchr(line, '\n'))) {
			long long f = strtoll(line, NULL, 16);

			if (first < 0)
				first = f;
			last = f;
			entries++;
			line = nl + 1;
		}
		partial = strlen(line);
		memmove(buf, line, partial);
	}
	printf("vkms_frames: mode %s clock %u htotal %u vtotal %u: %llu ns a frame, entries %ld first %lld last %lld\n",
	       crtc.mode.name, crtc.mode.clock, crtc.mode.htotal,
	       crtc.mode.vtotal,
	       (unsigned long long)crtc.mode.htotal * crtc.mode.vtotal *
		       1000000ULL / crtc.mode.clock,
	       entries, first, last);
	ret = entries ? 0 : 1;
	/* closing crc/data stops the capture (the vblank reference) */
	close(data);
out_off:
	memset(&crtc, 0, sizeof(crtc));
	crtc.crtc_id = crtcs[0];
	xioctl(fd, DRM_IOCTL_MODE_SETCRTC, &crtc, "SETCRTC off");
out_fb:
	xioctl(fd, DRM_IOCTL_MODE_RMFB, &fb.fb_id, "RMFB");
out_dumb:
	destroy.handle = dumb.handle;
	xioctl(fd, DRM_IOCTL_MODE_DESTROY_DUMB, &destroy, "DESTROY_DUMB");
out:
	close(fd);
	return ret;
}

static int set_prio(int prio, char **pids, int n)
{
	struct sched_param sp = { .sched_priority = prio };
	int ret = 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = atoi(pids[i]);

		if (pid <= 0 ||
		    sched_setscheduler(pid, prio ? SCHED_FIFO : SCHED_OTHER,
				       &sp)) {
			fprintf(stderr, "vkms_frames: pid %s: %s\n", pids[i],
				strerror(errno));
			ret = 1;
		}
	}
	return ret;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: vkms_frames [-c CARD] [-W WIDTH] [-H HEIGHT] [-r HZ] [-s SECONDS]\n"
		"       vkms_frames -m MB [-s SECONDS]\n"
		"       vkms_frames -P PRIO PID...\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *card = "/dev/dri/card0";
	long w = 320, h = 240, hz = 60, secs = 10, mb = 0, prio = -1;
	int opt;

	while ((opt = getopt(argc, argv, "c:W:H:r:s:m:P:")) != -1) {
		char *e;
		long v = 0;

		if (opt != 'c') {
			v = strtol(optarg, &e, 10);
			if (*e || v < 0)
				usage();
		}
		switch (opt) {
		case 'c':
			card = optarg;
			break;
		case 'W':
			w = v;
			break;
		case 'H':
			h = v;
			break;
		case 'r':
			hz = v;
			break;
		case 's':
			secs = v;
			break;
		case 'm':
			mb = v;
			break;
		case 'P':
			prio = v;
			break;
		default:
			usage();
		}
	}
	if (prio >= 0) {
		if (prio > 99 || optind == argc)
			usage();
		return set_prio(prio, argv + optind, argc - optind);
	}
	if (optind != argc)
		usage();
	if (mb)
		return memhog(mb, secs);
	if (w < 16 || w > 4096 || h < 16 || h > 4096 || hz < 1 || hz > 1000 ||
	    secs < 1)
		usage();
	return frames(card, w, h, hz, secs);
}
