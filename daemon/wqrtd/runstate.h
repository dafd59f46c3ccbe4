/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a running wqrtd publishes in its runtime directory (/run/wqrtd),
 * so that wqrtctl status can say whether it runs and show drift against
 * the configuration it holds, not against a file edited since and never
 * reloaded:
 *
 *   DIR/daemon          pid=, start= (its start time: a reused pid is not
 *                       wqrtd), loaded= (seconds since the epoch),
 *                       config= (the main file as given), snapshot= (the
 *                       copy's main file), file= (each file read, in order)
 *   DIR/config.GEN/     a copy of the bytes it parsed: the main file under
 *                       its own name, the drop-ins in NAME.d/
 *
 * Written at start and after every good reload (a new GEN, then the
 * daemon file replaced with rename(), then the old copy removed), and
 * removed at exit. Files, not a socket: status works while the daemon is
 * busy, and needs nothing but read access.
 */
#ifndef WQRT_RUNSTATE_H
#define WQRT_RUNSTATE_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "config.h"

#define RUNSTATE_FILE "daemon"
#define RUNSTATE_MAX_FILES 64

struct runstate {
	pid_t pid;
	unsigned long long start;
	time_t loaded;
	char config[WQRT_PATH_MAX];
	char snapshot[WQRT_PATH_MAX];
	char *files[RUNSTATE_MAX_FILES];
	size_t nfiles;
};

/*
 * Publish cfg as what this process holds since now, in dir. gen: the
 * number of the copy, raised by each call. 0 or -errno.
 */
int runstate_publish(const char *dir, const struct config *cfg,
		     unsigned int *gen);
/* mkdir -p: 0 or -errno */
int mkdir_p(const char *path, mode_t mode);

#define RUNSTATE_LOCK "lock"
/*
 * One instance holds the originals of dir: wqrtd (the service, --once)
 * and wqrtctl restore take DIR/lock (flock) for as long as they run. The
 * open fd that holds it (never closed: the lock goes with the process),
 * or -EWOULDBLOCK with *holder set to the pid holding it (0: unknown), or
 * -errno when the lock file cannot be opened.
 */
int runstate_lock(const char *dir, pid_t *holder);
/*
 * Write this process's pid into the lock file fd holds: after daemon()
 * forked, the pid that holds the lock is the child's.
 */
void runstate_lock_owner(int fd);
/* What the holder of the lock is called (/proc/PID/comm): a message's */
const char *runstate_holder_name(pid_t pid);
/* wqrtd exits: it holds nothing any more */
void runstate_clear(const char *dir);

/*
 * What the daemon that published in dir holds. 0; -ENOENT: nothing
 * published; -ESRCH: the process that published it is gone (a crash);
 * -EINVAL: the file cannot be read as written.
 */
int runstate_read(const char *dir, struct runstate *rs);
void runstate_free(struct runstate *rs);
/*
 * Do the files on disk differ from the copy the daemon holds (held, loaded
 * from rs->snapshot): a file changed, added or removed? Each such file
 * goes to changed.
 */
bool runstate_changed(const struct runstate *rs, const struct config *held,
		      struct strlist *changed);

#endif
