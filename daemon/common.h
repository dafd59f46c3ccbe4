/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What wqrtd and wqrtctl share as constants: the version, the default
 * paths and the exit codes (<sysexits.h>, as the man pages say).
 */
#ifndef WQRT_COMMON_H
#define WQRT_COMMON_H

#include <sysexits.h> /* EX_USAGE 64, EX_CONFIG 78 */

#ifndef WQRT_VERSION
#define WQRT_VERSION "0.1" /* the Makefile passes $(VERSION) */
#endif

#define WQRT_DEFAULT_CONF "/etc/wqrt.conf"
/* The service's RuntimeDirectory=wqrtd: originals, and what it holds */
#define WQRT_RUN_DIR "/run/wqrtd"

/* Workqueues in sysfs, and the same directory as a uevent's DEVPATH */
#define WQ_DEVPATH "/devices/virtual/workqueue"
#define WQ_SYSFS_DIR "/sys" WQ_DEVPATH

/* wqrtctl status: the system is not what the configuration asks for */
#define EXIT_DRIFT 3

#endif
