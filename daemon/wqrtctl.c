// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl: look at what wqrtd is meant to do and what the system shows.
 *   status [--json] [-c FILE] [--root DIR]   desired vs actual, drift
 *   check [FILE]                             validate a configuration
 */
#include "daemon.h"
#include "log.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef WQRT_VERSION
#define WQRT_VERSION "0.1"
#endif

#define DEFAULT_CONF "/etc/wqrt.conf"
#define EXIT_DRIFT 3

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl status [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl check [FILE]\n\n"
		"status  per profiled workqueue the desired and actual attributes,\n"
		"        per kworker it covers the policy it really has\n"
		"check   validate FILE (default " DEFAULT_CONF ")\n\n"
		"Exit status: 0 ok, 1 failure, 3 drift found by status,\n"
		"64 usage, 78 configuration error.\n");
}

static int load(const char *path, const char *root, struct config **cfg)
{
	struct strlist errors = { 0 };
	size_t i;
	int n;

	n = config_load(path, root, cfg, &errors);
	for (i = 0; i < errors.n; i++)
		fprintf(stderr, "%s\n", errors.v[i]);
	strlist_free(&errors);
	if (n)
		fprintf(stderr, "wqrtctl: %d error(s) in %s\n", n, path);
	return n;
}

static int cmd_check(int argc, char **argv)
{
	const char *path = DEFAULT_CONF;
	struct config *cfg;
	size_t i;

	if (argc > 2 && !strcmp(argv[1], "-c"))
		path = argv[2];
	else if (argc == 2)
		path = argv[1];
	else if (argc > 2) {
		usage(stderr);
		return 64;
	}
	if (load(path, "/", &cfg))
		return 78;
	for (i = 0; i < cfg->warnings.n; i++)
		fprintf(stderr, "warning: %s\n", cfg->warnings.v[i]);
	printf("%s: ok (%zu rule(s), %zu profile(s))\n", path, cfg->nrules,
	       cfg->nprofiles);
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
	const char *path = DEFAULT_CONF, *root = "/";
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
			return 64;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 64;
	}
	if (load(path, root, &cfg))
		return 78;
	sys_ops_for_root(&ops, root);
	daemon_init(&d, root, &ops, cfg);
	if (rep.style == REPORT_TABLE)
		printf("%s, configuration %s\n\n", daemon_mode_name(&d), path);
	report_begin(&rep);
	daemon_scan(&d, &rep);
	report_end(&rep);
	daemon_free(&d);
	return rep.drift ? EXIT_DRIFT : 0;
}

int main(int argc, char **argv)
{
	log_setup(LOG_TARGET_STDERR);
	log_set_level(LOG_WARNING);
	if (argc < 2) {
		usage(stderr);
		return 64;
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
	fprintf(stderr, "wqrtctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 64;
}
