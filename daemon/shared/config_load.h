/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Loading /etc/wqrt.conf and its drop-ins: iniparser parses each file,
 * every error of all of them is reported with its file and line, and a
 * good configuration comes with what the system says about it.
 */
#ifndef WQRT_CONFIG_LOAD_H
#define WQRT_CONFIG_LOAD_H

#include "config.h"

/*
 * Load and validate path, then the drop-ins PATH.d/ *.conf and those of
 * the vendor directory in the byte order of their names (a name in both:
 * PATH.d's, and a link to /dev/null there hides the vendor's), as one
 * configuration: [global] keys of a later
 * file win, a profile of any file can be used in any other, a section
 * may be defined in one file only. sysfs/proc paths under root are
 * consulted for warnings only. Returns 0 and *out, or the number of
 * errors (> 0) of all files, each appended to errors as
 * "FILE:LINE: [section] key = value: reason".
 */
int config_load(const char *path, const char *root, struct config **out,
		struct strlist *errors);
/*
 * config_load() of path alone: no drop-ins, no vendor directory (a trial
 * of wqrtctl try, which applies only the keys it was given).
 */
int config_load_one(const char *path, const char *root, struct config **out,
		    struct strlist *errors);
/*
 * config_load() for wqrtd and wqrtctl: every error and warning is logged,
 * and on errors a last line "PATH has N error(s)" and then, if set, what
 * that means ("nothing changed"). Returns the number of errors.
 */
int config_load_report(const char *path, const char *root,
		       struct config **out, const char *then);

#endif
