// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl: look at what wqrtd is meant to do and what the system shows.
 *   status [--json] [-c FILE] [--root DIR]   the running daemon, and
 *                                            desired vs actual, drift
 *   list [--all] [--json] [-c FILE] [--root DIR]
 *                                            the workqueues, reachable
 *                                            or not
 *   restore [--root DIR]                     put the originals back
 *   check [[-c] FILE]                        validate a configuration
 *   check-kernel [--json] [--root DIR]       what the kernel lacks
 *   latency, who, try                        through tracefs (ctl_trace.c,
 *                                            try.c)
 */
#include "advice.h"
#include "common.h"
#include "ctl_trace.h"
#include "daemon.h"
#include "inventory.h"
#include "json.h"
#include "kcheck.h"
#include "log.h"
#include "runstate.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl status [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl list [--all] [--json] [-c FILE] [--root DIR]\n"
		"       wqrtctl restore [--root DIR]\n"
		"       wqrtctl check [[-c] FILE]\n"
		"       wqrtctl check-kernel [--json] [--root DIR]\n"
		"       wqrtctl latency [WQ|FUNC ...] [--duration S] [--deadline US]\n"
		"                       [--by function] [--json]\n"
		"       wqrtctl who FUNC... [--duration S] [-c FILE]\n"
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
static int parse_cmd_opts(int argc, char **argv, unsigned int accepts,
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
			o->root = optarg;
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
	return 0;
}

/*
 * ROOT/run/wqrtd, where the daemon says what it holds, and the originals
 * it saved there. Returns 0, or EX_USAGE when --root is too long.
 */
static int run_paths(const char *root, char *dir, size_t dir_size, char *state,
		     size_t state_size)
{
	if (path_fmt(dir, dir_size, root, WQRT_RUN_DIR)) {
		fprintf(stderr, "wqrtctl: --root %s: name too long\n", root);
		return EX_USAGE;
	}
	snprintf(state, state_size, "%s/originals", dir);
	return 0;
}

static int cmd_check(int argc, char **argv)
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
			usage(stderr);
			return EX_USAGE;
		}
		path = optarg;
	}
	if (optind < argc && !path)
		path = argv[optind++];
	if (optind < argc) {
		usage(stderr);
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

/*
 * Every workqueue in sysfs, its kind, attributes and the section that
 * matches it; --all: also those out of reach, and why.
 */
static int cmd_list(int argc, char **argv)
{
	const char *path = WQRT_DEFAULT_CONF;
	struct config *cfg = NULL;
	struct inventory inv;
	struct cmd_opts o;
	int err;

	err = parse_cmd_opts(argc, argv,
			     OPT_ALL | OPT_JSON | OPT_CONFIG | OPT_ROOT, &o);
	if (err)
		return err;
	if (o.config)
		path = o.config;
	/*
	 * The sections come from the configuration; without one (a board
	 * with nothing installed yet) the list is still worth having, unless
	 * the file was asked for by name.
	 */
	if (o.config || !access(path, F_OK)) {
		if (config_load_report(path, o.root, &cfg, NULL))
			return EX_CONFIG;
	}
	err = inventory_scan(o.root, o.all, &inv);
	if (err) {
		fprintf(stderr, "wqrtctl: cannot list %s%s: %s\n",
			strcmp(o.root, "/") ? o.root : "", WQ_SYSFS_DIR,
			strerror(-err));
		config_free(cfg);
		return EX_OSFILE;
	}
	report_inventory(stdout, o.json ? REPORT_JSON : REPORT_TABLE, &inv,
			 cfg, o.all);
	inventory_free(&inv);
	config_free(cfg);
	return 0;
}

static void json_strlist(FILE *f, const struct strlist *l)
{
	size_t i;

	fputc('[', f);
	for (i = 0; i < l->n; i++) {
		if (i)
			fputs(", ", f);
		json_str(f, l->v[i]);
	}
	fputc(']', f);
}

static const char *when(time_t t, char *buf, size_t size)
{
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, size, "%Y-%m-%d %H:%M:%S %z", &tm))
		snprintf(buf, size, "@%lld", (long long)t);
	return buf;
}

/* What wqrtctl status says about the daemon and the configuration */
struct status_view {
	const char *path; /* the configuration the drift is against */
	bool preview; /* -c: a file, not what the daemon holds */
	int daemon; /* runstate_read(): 0 runs, -ESRCH gone, ... */
	struct runstate rs;
	struct strlist changed; /* files changed since the daemon read them */
};

/* First, before the configuration is read: whether the daemon runs */
static void status_daemon_line(const struct status_view *v)
{
	char t[64];

	if (!v->daemon)
		printf("wqrtd: running (pid %d), holding %s as loaded %s\n",
		       (int)v->rs.pid, v->rs.config,
		       when(v->rs.loaded, t, sizeof(t)));
	else if (v->daemon == -EACCES)
		printf("wqrtd: unknown (cannot read its state: run as root)\n");
	else
		printf("wqrtd: not running\n");
	fflush(stdout);
}

static void status_head_table(const struct status_view *v,
			      const struct config *cfg, const char *mode)
{
	size_t i;

	if (v->preview || v->daemon)
		printf("configuration: %s (%zu drop-in(s)), as the file is now%s\n",
		       v->path, cfg->nsources ? cfg->nsources - 1 : 0,
		       v->preview && !v->daemon ? "; not what wqrtd holds" :
						  "");
	else {
		/* the files it read, by their names on disk */
		printf("configuration: what wqrtd holds, from");
		for (i = 0; i < v->rs.nfiles; i++)
			printf("%s %s", i ? "," : "", v->rs.files[i]);
		printf("\n");
	}
	for (i = 0; i < v->changed.n; i++)
		printf("note: %s changed since wqrtd loaded it: systemctl reload wqrtd applies it\n",
		       v->changed.v[i]);
	printf("%s\n\n", mode);
}

/* The members "daemon", "configuration", "preview", "mode", "warnings" */
static char *status_head_json(const struct status_view *v,
			      const struct config *cfg, const char *mode)
{
	struct strlist files = { 0 };
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	fprintf(f, "\"daemon\": {\"running\": %s",
		v->daemon == -EACCES ? "null" :
		!v->daemon	     ? "true" :
				       "false");
	if (!v->daemon) {
		for (i = 0; i < v->rs.nfiles; i++)
			strlist_add(&files, "%s", v->rs.files[i]);
		fprintf(f, ", \"pid\": %d, \"config\": ", (int)v->rs.pid);
		json_str(f, v->rs.config);
		fprintf(f, ", \"files\": ");
		json_strlist(f, &files);
		fprintf(f, ", \"loaded\": %lld, \"changed_since_load\": ",
			(long long)v->rs.loaded);
		json_strlist(f, &v->changed);
		strlist_free(&files);
	}
	fprintf(f, "}, \"configuration\": ");
	json_str(f, v->preview || v->daemon ? v->path : v->rs.config);
	fprintf(f, ", \"preview\": %s, \"mode\": ",
		v->preview || v->daemon ? "true" : "false");
	json_str(f, mode);
	fprintf(f, ", \"warnings\": ");
	json_strlist(f, &cfg->warnings);
	fprintf(f, ", ");
	fclose(f);
	return text;
}

/*
 * Ask the running daemon (its state under ROOT/run/wqrtd) what it holds,
 * and show the drift against that; -c previews a file instead.
 */
static int cmd_status(int argc, char **argv)
{
	struct report rep = { .style = REPORT_TABLE, .f = stdout };
	struct status_view v = { .path = WQRT_DEFAULT_CONF };
	char dir[WQRT_PATH_MAX], state[WQRT_PATH_MAX + 16];
	char *head = NULL;
	struct cmd_opts o;
	struct config *cfg;
	struct sys_ops ops;
	struct daemon d;
	int err;

	err = parse_cmd_opts(argc, argv, OPT_JSON | OPT_CONFIG | OPT_ROOT, &o);
	if (!err)
		err = run_paths(o.root, dir, sizeof(dir), state, sizeof(state));
	if (err)
		return err;
	if (o.json)
		rep.style = REPORT_JSON;
	if (o.config) {
		v.path = o.config;
		v.preview = true;
	}
	v.daemon = runstate_read(dir, &v.rs);
	if (v.daemon == -EINVAL)
		log_warn(
			"%s/" RUNSTATE_FILE
			": cannot be read as wqrtd writes it; taken as not running",
			dir);
	if (rep.style == REPORT_TABLE)
		status_daemon_line(&v);
	if (!v.daemon && !v.preview) {
		/*
		 * The copy of what the daemon parsed: drift against that. The
		 * vendor's drop-ins it read are in the copy; those there now
		 * may not be what it holds.
		 */
		const char *vendor = config_vendor_dir();

		config_use_vendor_dir(NULL);
		err = config_load_report(v.rs.snapshot, o.root, &cfg, NULL);
		config_use_vendor_dir(vendor);
		if (err) {
			log_err("%s: the copy of what wqrtd holds cannot be read",
				v.rs.snapshot);
			runstate_free(&v.rs);
			return EX_SOFTWARE;
		}
		runstate_changed(&v.rs, cfg, &v.changed);
	} else if (config_load_report(v.path, o.root, &cfg, NULL)) {
		runstate_free(&v.rs);
		return EX_CONFIG;
	}
	sys_ops_for_root(&ops, o.root);
	daemon_init(&d, o.root, &ops, cfg);
	/* the running daemon's originals: what it would put back */
	daemon_use_state(&d, state);
	if (rep.style == REPORT_TABLE)
		status_head_table(&v, cfg, daemon_mode_name(&d));
	else
		rep.json_head = head = status_head_json(
			&v, cfg, d.sysfs_mode ? "sysfs" : "fallback");
	daemon_report(&d, &rep);
	daemon_free(&d);
	free(head);
	strlist_free(&v.changed);
	runstate_free(&v.rs);
	return rep.drift ? EXIT_DRIFT : 0;
}

/*
 * Put back every original wqrtd saved (the service, or --once): a scan
 * with no rules takes them over and writes them back. Not while the
 * daemon runs: it would apply its profiles again on its next scan.
 */
static int cmd_restore(int argc, char **argv)
{
	char dir[WQRT_PATH_MAX], state[WQRT_PATH_MAX + 16];
	size_t nwq, nkw, left;
	struct runstate rs;
	struct cmd_opts o;
	pid_t holder;
	int lock;
	struct config *cfg;
	struct sys_ops ops;
	struct daemon d;
	int err, fails;

	err = parse_cmd_opts(argc, argv, OPT_ROOT, &o);
	if (!err)
		err = run_paths(o.root, dir, sizeof(dir), state, sizeof(state));
	if (err)
		return err;
	/*
	 * As a user, the originals (root's, mode 0600) cannot even be seen:
	 * "nothing to restore" would be a guess. A fake root (--root, the
	 * tests) is the user's own.
	 */
	if (!strcmp(o.root, "/") && geteuid() != 0) {
		fprintf(stderr,
			"wqrtctl restore: needs root: it reads what wqrtd saved in %s and writes workqueue attributes and kworker policies back\n",
			dir);
		return EX_NOPERM;
	}
	if (!runstate_read(dir, &rs)) {
		fprintf(stderr,
			"wqrtctl: wqrtd is running (pid %d) and would apply its profiles again; stop it instead (it puts back what it changed when restore_on_exit = yes)\n",
			(int)rs.pid);
		runstate_free(&rs);
		return EX_TEMPFAIL;
	}
	runstate_free(&rs);
	/* nor beside wqrtd --once, nor another restore */
	lock = runstate_lock(dir, &holder);
	if (lock == -EWOULDBLOCK) {
		fprintf(stderr,
			"wqrtctl: wqrtd (pid %d) holds %s and would apply its profiles again; let it finish, or stop it\n",
			(int)holder, dir);
		return EX_TEMPFAIL;
	}
	if (access(state, F_OK)) {
		printf("nothing to restore: no %s\n", state);
		return 0;
	}
	cfg = config_empty("(restore)");
	if (!cfg)
		return EX_OSERR;
	sys_ops_for_root(&ops, o.root);
	daemon_init(&d, o.root, &ops, cfg);
	err = daemon_use_state(&d, state);
	if (err == -ESTALE || err == -EPERM) {
		/* said: another boot's, or not to be trusted */
		fprintf(stderr, "wqrtctl: %s: nothing put back; remove it if it is not wqrtd's\n",
			state);
		daemon_free(&d);
		return EX_DATAERR;
	}
	if (err) {
		fprintf(stderr, "wqrtctl: %s: %s\n", state, strerror(-err));
		daemon_free(&d);
		return EX_NOINPUT;
	}
	nwq = d.state.n;
	nkw = d.state.nk;
	/* say each value put back */
	log_set_level(LOG_INFO);
	fails = daemon_scan(&d);
	fails += daemon_restore(&d);
	left = access(state, F_OK) ? 0 : 1;
	daemon_free(&d);
	if (fails || left) {
		fprintf(stderr,
			"wqrtctl: %d value(s) could not be put back; %s keeps them for another try\n",
			fails, state);
		return EX_IOERR;
	}
	printf("restored the originals of %zu workqueue(s) and %zu kworker(s)\n",
	       nwq, nkw);
	return 0;
}

/* What the running kernel offers wqrtd and what it lacks */
static int cmd_check_kernel(int argc, char **argv)
{
	struct kcheck kc;
	struct cmd_opts o;
	int err;

	err = parse_cmd_opts(argc, argv, OPT_JSON | OPT_ROOT, &o);
	if (err)
		return err;
	kcheck_run(o.root, &kc);
	kcheck_print(stdout, &kc, o.json);
	if (!o.json) {
		/* the profiles of the installed configuration, if it is good */
		struct strlist errors = { 0 };
		struct config *cfg = NULL;
		char conf[WQRT_PATH_MAX];

		if (!path_fmt(conf, sizeof(conf), o.root, WQRT_DEFAULT_CONF) &&
		    !access(conf, R_OK))
			config_load(conf, o.root, &cfg, &errors);
		advice_print(o.root, cfg, stdout);
		config_free(cfg);
		strlist_free(&errors);
	}
	return kcheck_exit_status(&kc);
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
	usage(stderr);
	return EX_USAGE;
}
