// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl check [[-c] FILE]: validate a configuration, then the RT-safety
 * advice on it (advice.c).
 */
#include "advice.h"
#include "common.h"
#include "config.h"
#include "config_load.h"
#include "ctl.h"

#include <getopt.h>
#include <stdio.h>

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ 0 },
	};
	char dirs[2 * WQRT_PATH_MAX + 8];
	const char *path = NULL;
	struct config *cfg;
	int c;

	/* the file as -c FILE, --config FILE (as the other commands) or FILE */
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:", longopts, NULL)) != -1) {
		if (c != 'c') {
			ctl_usage(stderr);
			return EX_USAGE;
		}
		path = optarg;
	}
	if (optind < argc && !path)
		path = argv[optind++];
	if (optind < argc) {
		ctl_usage(stderr);
		return EX_USAGE;
	}
	if (!path)
		path = WQRT_DEFAULT_CONF;
	if (config_load_report(path, "/", &cfg, NULL))
		return EX_CONFIG;
	printf("%s: ok (%zu rule(s), %zu profile(s)", path, cfg->nrules,
	       cfg->nprofiles);
	if (cfg->nsources > 1)
		printf(", with %zu drop-in(s) from %s", cfg->nsources - 1,
		       config_dropin_dirs(cfg, dirs, sizeof(dirs)));
	printf(")\n");
	advice_print("/", cfg, stdout);
	config_free(cfg);
	return 0;
}
