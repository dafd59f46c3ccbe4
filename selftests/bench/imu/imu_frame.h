/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * imu_frame.h: the IMU frame of imu_uart (the guest's writer and reader)
 * and imu_sender (the host's sender): 0xa5, a 24-bit number, filler, a
 * Fletcher-16 of the bytes before it.
 */
#ifndef IMU_FRAME_H
#define IMU_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_MIN	8
#define FRAME_MAX	64
#define MAGIC		0xa5

static inline uint16_t fletcher16(const unsigned char *p, size_t n)
{
	uint16_t a = 0, b = 0;

	for (size_t i = 0; i < n; i++) {
		a = (a + p[i]) % 255;
		b = (b + a) % 255;
	}
	return b << 8 | a;
}

#endif
