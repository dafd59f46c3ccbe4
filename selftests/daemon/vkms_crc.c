// SPDX-License-Identifier: GPL-2.0-only
/*
 * vkms_crc: make vkms compose frames, for the tests of workqueue.sysfs=
 * on its vkms_composer workqueue.
 *
 *   vkms_crc [FRAMES]      default 30
 *
 * Lights the CRTC through the fbdev emulation (FBIOPUT_VSCREENINFO with
 * FB_ACTIVATE_FORCE on /dev/fb0 makes the fbdev helper commit its mode),
 * turns on CRC capture in debugfs (dri/N/crtc-0/crc/control "auto"), and
 * reads FRAMES CRC entries from crc/data: vkms computes each one in a work
 * item on vkms_composer, one per simulated vblank. Then it stops the
 * capture and blanks the display, so that no vblank timer keeps running.
 * Exit 0 if FRAMES entries came within 20 seconds, 1 if not, 2 on a setup
 * error (no fb0, no debugfs CRC files).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/fb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* the crc directory of the first CRTC of the first DRM device */
static int crc_dir(char *buf, size_t len)
{
	glob_t g;
	int ret = -1;

	if (glob("/sys/kernel/debug/dri/*/crtc-0/crc", 0, NULL, &g) == 0) {
		snprintf(buf, len, "%s", g.gl_pathv[0]);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

int main(int argc, char **argv)
{
	struct fb_var_screeninfo var;
	char dir[256], path[300], buf[4096];
	long frames = argc > 1 ? strtol(argv[1], NULL, 10) : 30, lines = 0;
	long long deadline;
	int fb, ctl, data;

	if (frames <= 0 || frames > 100000) {
		fprintf(stderr, "usage: vkms_crc [FRAMES]\n");
		return 2;
	}
	fb = open("/dev/fb0", O_RDWR);
	if (fb < 0 || ioctl(fb, FBIOGET_VSCREENINFO, &var)) {
		fprintf(stderr, "vkms_crc: /dev/fb0: %s\n", strerror(errno));
		return 2;
	}
	var.activate = FB_ACTIVATE_NOW | FB_ACTIVATE_FORCE;
	if (ioctl(fb, FBIOPUT_VSCREENINFO, &var) ||
	    ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK)) {
		fprintf(stderr, "vkms_crc: cannot set the mode on /dev/fb0: %s\n",
			strerror(errno));
		return 2;
	}
	if (crc_dir(dir, sizeof(dir))) {
		fprintf(stderr, "vkms_crc: no /sys/kernel/debug/dri/*/crtc-0/crc\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/control", dir);
	ctl = open(path, O_WRONLY);
	if (ctl < 0 || write(ctl, "auto", 4) != 4) {
		fprintf(stderr, "vkms_crc: %s: %s\n", path, strerror(errno));
		return 2;
	}
	close(ctl);
	snprintf(path, sizeof(path), "%s/data", dir);
	data = open(path, O_RDONLY | O_NONBLOCK);
	if (data < 0) {
		fprintf(stderr, "vkms_crc: %s: %s\n", path, strerror(errno));
		return 2;
	}

	/* one line per frame: "<frame> <crc>\n" */
	deadline = now_ms() + 20000;
	while (lines < frames && now_ms() < deadline) {
		struct pollfd pfd = { .fd = data, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		r = read(data, buf, sizeof(buf));
		for (ssize_t i = 0; i < r; i++)
			lines += buf[i] == '\n';
	}
	close(data);
	ioctl(fb, FBIOBLANK, FB_BLANK_POWERDOWN);
	close(fb);

	if (lines < frames) {
		fprintf(stderr, "vkms_crc: %ld of %ld frames composed in 20 s\n",
			lines, frames);
		return 1;
	}
	printf("vkms_crc: %ld frames composed\n", lines);
	return 0;
}
