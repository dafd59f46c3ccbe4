// SPDX-License-Identifier: GPL-2.0-only
/*
 * vkms_crc: make vkms compose frames, for the tests of workqueue.sysfs=
 * on its vkms_composer workqueue.
 *
 *   vkms_crc [FRAMES]            default 30
 *   vkms_crc --cycles N          blank and unblank N times under capture
 *
 * Lights the CRTC through the fbdev emulation (FBIOPUT_VSCREENINFO with
 * FB_ACTIVATE_FORCE on /dev/fb0 makes the fbdev helper commit its mode),
 * turns on CRC capture in debugfs (dri/N/crtc-0/crc/control "auto"), and
 * reads FRAMES CRC entries from crc/data: vkms computes each one in a work
 * item on vkms_composer, one per simulated vblank. Then it stops the
 * capture and blanks the display, so that no vblank timer keeps running.
 * Exit 0 if FRAMES entries came within 20 seconds, 1 if not, 2 on a setup
 * error (no fb0, no debugfs CRC files).
 *
 * With --cycles, the capture keeps a vblank reference while the display is
 * blanked and unblanked N times, one CRC entry awaited after each unblank:
 * every blank runs drm_crtc_vblank_off() -> vkms_disable_vblank() with the
 * vblank hrtimer live, the path where 6.12's vkms waited for a running
 * timer callback that was itself waiting for a lock the canceller held
 * (kernel/stable/0002). A kernel with that deadlock hangs here.
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

/* read until at least @want more CRC entries came, or @timeout_ms passed */
static long read_entries(int data, long want, long long timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	char buf[4096];
	long lines = 0;

	while (lines < want && now_ms() < deadline) {
		struct pollfd pfd = { .fd = data, .events = POLLIN };
		ssize_t r;

		if (poll(&pfd, 1, 200) <= 0)
			continue;
		r = read(data, buf, sizeof(buf));
		for (ssize_t i = 0; i < r; i++)
			lines += buf[i] == '\n';
	}
	return lines;
}

static int blank_cycles(int fb, int data, long cycles)
{
	for (long i = 1; i <= cycles; i++) {
		if (ioctl(fb, FBIOBLANK, FB_BLANK_POWERDOWN) ||
		    ioctl(fb, FBIOBLANK, FB_BLANK_UNBLANK)) {
			fprintf(stderr, "vkms_crc: cycle %ld: FBIOBLANK: %s\n",
				i, strerror(errno));
			return 2;
		}
		if (read_entries(data, 1, 5000) < 1) {
			fprintf(stderr,
				"vkms_crc: cycle %ld: no frame within 5 s of the unblank\n",
				i);
			return 1;
		}
		if (i % 50 == 0 || i == cycles) {
			printf("vkms_crc: %ld of %ld blank cycles\n", i, cycles);
			fflush(stdout);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct fb_var_screeninfo var;
	char dir[256], path[300];
	long frames = 30, cycles = 0, lines;
	char *end = NULL;
	int fb, ctl, data, ret;

	if (argc == 3 && !strcmp(argv[1], "--cycles")) {
		cycles = strtol(argv[2], &end, 10);
		if (cycles < 1)
			cycles = -1;
	}
	else if (argc == 2)
		frames = strtol(argv[1], &end, 10);
	else if (argc != 1)
		end = argv[0];
	if ((end && *end) || frames <= 0 || frames > 100000 || cycles < 0 ||
	    cycles > 100000) {
		fprintf(stderr,
			"usage: vkms_crc [FRAMES] | vkms_crc --cycles N (1..100000)\n");
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

	if (cycles) {
		ret = blank_cycles(fb, data, cycles);
		close(data);
		ioctl(fb, FBIOBLANK, FB_BLANK_POWERDOWN);
		close(fb);
		return ret;
	}

	/* one line per frame: "<frame> <crc>\n" */
	lines = read_entries(data, frames, 20000);
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
