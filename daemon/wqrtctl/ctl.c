// SPDX-License-Identifier: GPL-2.0-only
/* What the commands of wqrtctl share: see ctl.h */
#include "ctl.h"
#include "common.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void ctl_usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl status [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl list [--all] [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl restore [--root DIR]\n"
		"       wqrtctl check [[-c] FILE]\n"
		"       wqrtctl check-kernel [--json] [--root DIR]\n"
		"       wqrtctl latency [WQ|FUNC ...] [--duration S] [--interval S]\n"
		"                       [--deadline US] [--by function] [--json]\n"
		"                       [--why US] [--root DIR]\n"
		"       wqrtctl who FUNC... [--duration S] [-c FILE] [--root DIR]\n"
		"       wqrtctl try WQ KEY=VALUE... [--for S] [--deadline US] [--json]\n\n"
		"status  whether wqrtd runs and what it holds; per profiled workqueue\n"
		"        the desired and actual attributes, per kworker it covers the\n"
		"        policy it really has (-c FILE: against FILE instead)\n"
		"list    every workqueue in sysfs: kind, attributes, matching section;\n"
		"        --all: also those out of reach, and why\n"
		"restore put back every original wqrtd saved (not while it runs)\n"
		"check   validate FILE (default " WQRT_DEFAULT_CONF ")\n"
		"check-kernel  what the running kernel offers wqrtd and lacks\n"
		"latency queue -> start latency and run time per workqueue or work\n"
		"        function, aggregated in the kernel (live, or --duration S)\n"
		"who     which workqueues and kworkers run the work functions FUNC\n"
		"try     measure WQ, apply KEY=VALUE..., measure again, put back\n\n"
		"Exit status: 0 ok, 10 drift found by status, 64 usage, 78\n"
		"configuration error; the others are in wqrtctl(8).\n");
}

static const struct {
	unsigned int flag;
	struct option opt;
	const char *shortopt;
} cmd_options[] = {
	{ OPT_ALL, { "all", no_argument, NULL, 'a' }, "a" },
	{ OPT_JSON, { "json", no_argument, NULL, 'j' }, "" },
	{ OPT_CONFIG, { "config", required_argument, NULL, 'c' }, "c:" },
	{ OPT_ROOT, { "root", required_argument, NULL, 'r' }, "" },
};

/*
 * The options of a subcommand that takes those in @accepts and no operand:
 * getopt only knows those, so it rejects the others in its own words.
 * Returns 0, or EX_USAGE once the usage went to stderr.
 */
int parse_cmd_opts(int argc, char **argv, unsigned int accepts,
			  struct cmd_opts *o)
{
	struct option longopts[ARRAY_SIZE(cmd_options) + 1] = { 0 };
	char shortopts[8] = "";
	size_t i, n = 0;
	int c;

	*o = (struct cmd_opts){ .root = "/" };
	for (i = 0; i < ARRAY_SIZE(cmd_options); i++) {
		if (!(accepts & cmd_options[i].flag))
			continue;
		longopts[n++] = cmd_options[i].opt;
		strcat(shortopts, cmd_options[i].shortopt);
	}
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			o->all = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'c':
			o->config = optarg;
			break;
		case 'r':
			o->root = root_canon(optarg);
			break;
		default:
			ctl_usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		ctl_usage(stderr);
		return EX_USAGE;
	}
	return 0;
}

/*
 * ROOT/run/wqrtd, where the daemon says what it holds, and the originals
 * it saved there. Returns 0, or EX_USAGE when --root is too long.
 */
int run_paths(const char *root, char *dir, size_t dir_size, char *state,
		     size_t state_size)
{
	if (path_fmt(dir, dir_size, root, WQRT_RUN_DIR)) {
		fprintf(stderr, "wqrtctl: --root %s: name too long\n", root);
		return EX_USAGE;
	}
	snprintf(state, state_size, "%s/originals", dir);
	return 0;
}

volatile sig_atomic_t ctl_stop;

static void on_signal(int sig)
{
	(void)sig;
	ctl_stop = 1;
}

void ctl_catch_signals(void)
{
	/* no SA_RESTART: a signal ends the sleep it interrupts */
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	/*
	 * A reader that went away (latency | head, an ssh session that
	 * dropped) is a failed write (EPIPE), not a death that leaves the
	 * session and the trial behind
	 */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
}

int ctl_output(void)
{
	static int failed;

	if (!failed && (fflush(stdout) == EOF || ferror(stdout))) {
		failed = errno ? errno : EIO;
		if (failed != EPIPE)
			fprintf(stderr, "wqrtctl: standard output: %s\n",
				strerror(failed));
	}
	return !failed ? 0 : failed == EPIPE ? 1 : -1;
}

double ctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool ctl_sleep(double seconds)
{
	double end = ctl_now() + seconds;

	while (!ctl_stop) {
		double left = end - ctl_now();
		struct timespec ts;

		if (left <= 0)
			return true;
		if (left > 0.2)
			left = 0.2;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
	}
	return false;
}

void ctl_trace_usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl latency [WQ|FUNC ...] [--duration S] [--interval S]\n"
		"                       [--deadline US] [--by function] [--json]\n"
		"                       [--why US] [--root DIR]\n"
		"       wqrtctl who FUNC... [--duration S] [-c FILE] [--root DIR]\n");
}

int ctl_trace_error(const char *why, int err)
{
	fprintf(stderr, "wqrtctl: %s\n", why);
	return err == -ENOTSUP ? EX_UNAVAILABLE :
	       err == -EACCES || err == -EPERM ? EX_NOPERM :
						 EX_OSERR;
}
