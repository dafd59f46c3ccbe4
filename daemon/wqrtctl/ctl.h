/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The commands of wqrtctl, one file each (wqrtctl.c dispatches them), and
 * what they share: the usage, the options several take, the paths of the
 * running daemon's state, and for those that measure through tracefs
 * (latency, who, try) ending on SIGINT, SIGTERM, SIGHUP and SIGQUIT with
 * everything put back first, SIGPIPE ignored.
 */
#ifndef WQRT_CTL_H
#define WQRT_CTL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Each returns the exit status (0, EXIT_DRIFT or one of <sysexits.h>) */
int cmd_status(int argc, char **argv); /* status.c */
int cmd_list(int argc, char **argv); /* list.c */
int cmd_restore(int argc, char **argv); /* restore.c */
int cmd_check(int argc, char **argv); /* check.c */
int cmd_check_kernel(int argc, char **argv); /* kcheck.c */
int cmd_latency(int argc, char **argv); /* latency.c */
int cmd_who(int argc, char **argv); /* who.c */
int cmd_try(int argc, char **argv); /* try.c */

struct config;
struct inventory;
/*
 * wqrtctl list's output: the reachable workqueues of inv with kind, the
 * section of cfg (or NULL) that matches each and attributes, as a table
 * or (json) a document; with all, then those out of reach and why.
 */
void list_print(FILE *f, bool json, const struct inventory *inv,
		const struct config *cfg, bool all);

/* wqrtctl's usage, every command's */
void ctl_usage(FILE *f);

/* The options of the subcommands; each takes some of them. */
enum {
	OPT_ALL = 1 << 0,
	OPT_JSON = 1 << 1,
	OPT_CONFIG = 1 << 2,
	OPT_ROOT = 1 << 3,
};

struct cmd_opts {
	bool all;
	bool json;
	const char *config; /* -c FILE; NULL when not given */
	const char *root; /* --root DIR; "/" when not given */
};

/*
 * The options of a subcommand that takes those in @accepts and no operand:
 * getopt only knows those, so it rejects the others in its own words.
 * Returns 0, or EX_USAGE once the usage went to stderr.
 */
int parse_cmd_opts(int argc, char **argv, unsigned int accepts,
		   struct cmd_opts *o);
/*
 * ROOT/run/wqrtd, where the daemon says what it holds, and the originals
 * it saved there. Returns 0, or EX_USAGE when --root is too long.
 */
int run_paths(const char *root, char *dir, size_t dir_size, char *state,
	      size_t state_size);

/*
 * Set by SIGINT, SIGTERM, SIGHUP or SIGQUIT once ctl_catch_signals()
 * ran, which also ignores SIGPIPE: writing to a reader that went away
 * fails with EPIPE (ctl_output()), and everything is put back all the
 * same
 */
extern volatile sig_atomic_t ctl_stop;
void ctl_catch_signals(void);
/*
 * Standard output flushed: 0, 1 when its reader went away (EPIPE: stop,
 * as for Ctrl-C, no error), -1 on another error (said on stderr)
 */
int ctl_output(void);
/* Sleep up to seconds; false when a signal asked to stop first */
bool ctl_sleep(double seconds);
/* The monotonic clock, in seconds */
double ctl_now(void);
/* The usage of latency and who */
void ctl_trace_usage(FILE *f);
/*
 * A tracefs setup error: why said on stderr; the exit status for what is
 * missing (EX_UNAVAILABLE), not allowed (EX_NOPERM), or a failure.
 */
int ctl_trace_error(const char *why, int err);

#endif
