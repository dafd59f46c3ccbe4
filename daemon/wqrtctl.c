// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl: look at what wqrtd is meant to do and what the system shows.
 *   status [--json] [-c FILE] [--root DIR]   desired vs actual, drift
 *   check [FILE]                             validate a configuration
 */
#include "common.h"
#include "daemon.h"
#include "inventory.h"
#include "log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the service (RuntimeDirectory=wqrtd) keeps the originals */
#define SERVICE_STATE "/run/wqrtd/originals"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl status [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl list [--all] [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl check [FILE]\n\n"
		"status  per profiled workqueue the desired and actual attributes,\n"
		"        per kworker it covers the policy it really has\n"
		"list    every workqueue in sysfs: kind, attributes, matching section;\n"
		"        --all: also those out of reach, and why\n"
		"check   validate FILE (default " WQRT_DEFAULT_CONF ")\n\n"
		"Exit status: 0 ok, 1 failure, 3 drift found by status,\n"
		"64 usage, 78 configuration error.\n");
}

static int cmd_check(int argc, char **argv)
{
	const char *path = WQRT_DEFAULT_CONF;
	struct config *cfg;

	if (argc > 2 && !strcmp(argv[1], "-c"))
		path = argv[2];
	else if (argc == 2)
		path = argv[1];
	else if (argc > 2) {
		usage(stderr);
		return EX_USAGE;
	}
	if (config_load_report(path, "/", &cfg, NULL))
		return EX_CONFIG;
	printf("%s: ok (%zu rule(s), %zu profile(s)", path, cfg->nrules,
	       cfg->nprofiles);
	if (cfg->nsources > 1)
		printf(", with %zu drop-in(s) from %s.d", cfg->nsources - 1,
		       path);
	printf(")\n");
	config_free(cfg);
	return 0;
}

/*
 * Every workqueue in sysfs, its kind, attributes and the section that
 * matches it; --all: also those out of reach, and why.
 */
static int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ 0 },
	};
	enum report_style style = REPORT_TABLE;
	const char *path = WQRT_DEFAULT_CONF, *root = "/";
	struct config *cfg = NULL;
	struct inventory inv;
	bool all = false, explicit_conf = false;
	int c, err;

	optind = 1;
	while ((c = getopt_long(argc, argv, "ac:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = true;
			break;
		case 'j':
			style = REPORT_JSON;
			break;
		case 'c':
			path = optarg;
			explicit_conf = true;
			break;
		case 'r':
			root = optarg;
			break;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EX_USAGE;
	}
	/*
	 * The sections come from the configuration; without one (a board
	 * with nothing installed yet) the list is still worth having, unless
	 * the file was asked for by name.
	 */
	if (explicit_conf || !access(path, F_OK)) {
		if (config_load_report(path, root, &cfg, NULL))
			return EX_CONFIG;
	}
	err = inventory_scan(root, cfg, all, &inv);
	if (err) {
		fprintf(stderr, "wqrtctl: cannot list %s%s: %s\n",
			strcmp(root, "/") ? root : "", WQ_SYSFS_DIR,
			strerror(-err));
		config_free(cfg);
		return EX_OSFILE;
	}
	report_inventory(stdout, style, &inv, all);
	inventory_free(&inv);
	config_free(cfg);
	return 0;
}

static int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "config", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ 0 },
	};
	struct report rep = { .style = REPORT_TABLE, .f = stdout };
	const char *path = WQRT_DEFAULT_CONF, *root = "/";
	char state[WQRT_PATH_MAX];
	struct config *cfg;
	struct sys_ops ops;
	struct daemon d;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			rep.style = REPORT_JSON;
			break;
		case 'c':
			path = optarg;
			break;
		case 'r':
			root = optarg;
			break;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return EX_USAGE;
	}
	if (config_load_report(path, root, &cfg, NULL))
		return EX_CONFIG;
	sys_ops_for_root(&ops, root);
	daemon_init(&d, root, &ops, cfg);
	/* the running daemon's originals: what it would put back */
	if (!path_fmt(state, sizeof(state), root, SERVICE_STATE))
		daemon_use_state(&d, state);
	if (rep.style == REPORT_TABLE)
		printf("%s, configuration %s\n\n", daemon_mode_name(&d), path);
	daemon_report(&d, &rep);
	daemon_free(&d);
	return rep.drift ? EXIT_DRIFT : 0;
}

int main(int argc, char **argv)
{
	log_setup(LOG_TARGET_STDERR);
	log_set_level(LOG_WARNING);
	if (argc < 2) {
		usage(stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
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
	fprintf(stderr, "wqrtctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return EX_USAGE;
}
