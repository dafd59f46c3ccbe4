/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What wqrtd and wqrtctl share as constants: the version, the default
 * paths and the exit codes (<sysexits.h>, as the man pages say).
 */
#ifndef WQRT_COMMON_H
#define WQRT_COMMON_H

/*
 * Every other exit status of wqrtd and wqrtctl is one of <sysexits.h>:
 *   EX_USAGE 64        a wrong option or argument
 *   EX_DATAERR 65      the originals file cannot be used (not trusted,
 *                      unreadable, another boot's)
 *   EX_NOINPUT 66      a file to read is missing (restore, check-kernel)
 *   EX_UNAVAILABLE 69  check-kernel: the kernel lacks something required
 *   EX_SOFTWARE 70     wqrtctl status: the daemon's copy cannot be read
 *   EX_OSERR 71        wqrtd: the event loop or detaching failed
 *   EX_OSFILE 72       sysfs cannot be listed
 *   EX_CANTCREAT 73    wqrtd --timing FILE cannot be opened, or the
 *                      runtime directory made
 *   EX_IOERR 74        a change could not be written or read back
 *   EX_TEMPFAIL 75     restore while wqrtd runs: stop it first
 *   EX_NOPERM 77       wqrtd (but --check, --dry-run), restore: not root
 *   EX_CONFIG 78       the configuration has errors
 * The man pages list them; keep the three in agreement.
 */
#include <sysexits.h>

#ifndef WQRT_VERSION
#define WQRT_VERSION "0.1" /* the Makefile passes $(VERSION) */
#endif

#define WQRT_DEFAULT_CONF "/etc/wqrt.conf"
/*
 * Profiles a package ships, read with every configuration and overridden
 * by a drop-in of the same name (wqrt.conf(5)); the Makefile sets it from
 * PREFIX
 */
#ifndef WQRT_VENDOR_DIR
#define WQRT_VENDOR_DIR "/usr/lib/wqrt/conf.d"
#endif
/* The service's RuntimeDirectory=wqrtd: originals, and what it holds */
#define WQRT_RUN_DIR "/run/wqrtd"

/* Workqueues in sysfs, and the same directory as a uevent's DEVPATH */
#define WQ_DEVPATH "/devices/virtual/workqueue"
#define WQ_SYSFS_DIR "/sys" WQ_DEVPATH

/*
 * wqrtctl status: the system is not what the configuration asks for. Not
 * 1 (a failure) nor 3, which LSB gives "not running" for a status
 * command, nor one of <sysexits.h>.
 */
#define EXIT_DRIFT 10

#endif
