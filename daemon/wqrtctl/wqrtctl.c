// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl: look at what wqrtd is meant to do and what the system shows.
 * One file per command (ctl.h); this one only dispatches:
 *   status [--json] [-c FILE] [--root DIR]   the running daemon, and
 *                                            desired vs actual, drift
 *                                            (status.c)
 *   list [--all] [--json] [-c FILE] [--root DIR]
 *                                            the workqueues, reachable
 *                                            or not (list.c)
 *   restore [--root DIR]                     put the originals back
 *                                            (restore.c)
 *   check [[-c] FILE]                        validate a configuration
 *                                            (check.c)
 *   check-kernel [--json] [--root DIR]       what the kernel lacks
 *                                            (kcheck.c)
 *   latency, who, try                        through tracefs (latency.c,
 *                                            who.c, try.c)
 */
#include "common.h"
#include "ctl.h"
#include "log.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	log_setup(LOG_TARGET_STDERR);
	log_set_level(LOG_WARNING);
	if (argc < 2) {
		ctl_usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		ctl_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("wqrtctl %s\n", WQRT_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "status"))
		return cmd_status(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "restore"))
		return cmd_restore(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check-kernel"))
		return cmd_check_kernel(argc - 1, argv + 1);
	if (!strcmp(argv[1], "latency"))
		return cmd_latency(argc - 1, argv + 1);
	if (!strcmp(argv[1], "who"))
		return cmd_who(argc - 1, argv + 1);
	if (!strcmp(argv[1], "try"))
		return cmd_try(argc - 1, argv + 1);
	fprintf(stderr, "wqrtctl: unknown command '%s'\n", argv[1]);
	ctl_usage(stderr);
	return EX_USAGE;
}
