/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which files make the configuration, and reading each of them only when
 * it can be trusted: the main file, then the drop-ins of FILE.d/ and of
 * the vendor directory (profiles a package ships), as systemd orders
 * drop-ins.
 */
#ifndef WQRT_CONFIG_FILES_H
#define WQRT_CONFIG_FILES_H

#include <stddef.h>

#include "config_ini.h"
#include "util.h"

/*
 * The vendor directory, read with every configuration: dir (NULL: none)
 * from now on; by default WQRT_VENDOR_DIR from the environment, else the
 * built-in one (PREFIX/lib/wqrt/conf.d)
 */
void config_use_vendor_dir(const char *dir);
const char *config_vendor_dir(void);

/*
 * The files of the configuration: path, then the drop-ins of PATH.d/ and
 * of the vendor directory (config_vendor_dir()) together, in the byte
 * order of their names, as systemd and sysctl.d order drop-ins: a name in
 * both is read from PATH.d only, and a link to /dev/null there hides the
 * vendor's file. The count, with their paths in *files, or -1 (errors
 * added).
 */
int config_files(const char *path, struct conf_file **files,
		 struct strlist *errors);

/*
 * Open path once and check it can be trusted: in a directory that can be
 * trusted, a regular file, owned by root (or by whoever runs this, for
 * tests as a user), that neither group nor others can write. Opened
 * without blocking: a FIFO is refused, not waited on. Its text in *text.
 * 0, or -1 with an error added.
 */
int config_read(const char *path, char **text, size_t *len,
		struct strlist *errors);

#endif
