// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl try WQ KEY=VALUE... [--for S] [--deadline US] [--json]
 *
 * A profile ad hoc: measure WQ's queue -> start latency for S seconds as
 * it is, apply KEY=VALUE..., measure again, put the originals back, and
 * print the two side by side with the [wq:] section that would keep it.
 *
 * The profile goes through the same code as wqrtd's: the keys are checked
 * as a wqrt.conf section of their own (no drop-ins, no vendor profiles:
 * only the keys given), written to wqrtd's runtime directory as the trial
 * file of this process (trial.h), and applied
 *  - through the running wqrtd: the trial file laid over the configuration
 *    wqrtd holds (SIGUSR1; no reload, so an edit pending in wqrt.conf is
 *    not applied), over the workqueue's profile if it has one; wqrtd takes
 *    it out as soon as this process is gone, however it ends;
 *  - alone when none runs: wqrtd's apply, holding wqrtd's lock (wqrtd and
 *    wqrtd --once refuse meanwhile), with the originals in
 *    /run/wqrtd/originals, so that wqrtctl restore puts them back if this
 *    process is killed.
 * Nothing of a trial is written to /etc. Ctrl-C (SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT) ends the measurement and puts back; SIGPIPE is ignored. At the
 * end every attribute of WQ is read and compared with what it was.
 */
#include "common.h"
#include "config.h"
#include "config_load.h"
#include "ctl.h"
#include "daemon.h"
#include "discover.h"
#include "latency.h"
#include "log.h"
#include "plan.h"
#include "json.h"
#include "runstate.h"
#include "sysops.h"
#include "task.h"
#include "trace.h"
#include "trial.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* how long wqrtd may take to take a trial and apply it, or to put back */
#define TRY_WAIT_S 20

static void try_usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl try WQ KEY=VALUE... [--for S] [--deadline US] [--json]\n"
		"                   [--root DIR]\n");
}

/* Every attribute file of wq but pool_ids (new IDs on every write) */
struct wq_snap {
	struct strlist names;
	struct strlist vals;
};

static void snap_free(struct wq_snap *s)
{
	strlist_free(&s->names);
	strlist_free(&s->vals);
}

static int snap_take(const char *root, const char *wq, struct wq_snap *s)
{
	char path[WQRT_PATH_MAX], val[512];
	struct dirent *de;
	struct stat st;
	DIR *d;

	memset(s, 0, sizeof(*s));
	if (wq_path(path, sizeof(path), root, wq, ""))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		/* pool_ids and nr_idle_extra_effective follow from the rest */
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "pool_ids") ||
		    !strcmp(de->d_name, "nr_idle_extra_effective") ||
		    !strcmp(de->d_name, "uevent"))
			continue;
		if (wq_path(path, sizeof(path), root, wq, de->d_name) ||
		    stat(path, &st) || !S_ISREG(st.st_mode) ||
		    read_text(path, val, sizeof(val)))
			continue;
		strlist_add(&s->names, "%s", de->d_name);
		strlist_add(&s->vals, "%s", val);
	}
	closedir(d);
	return 0;
}

/* The attributes that differ from before, into diff ("name: was -> is") */
static size_t snap_diff(const char *root, const char *wq,
			const struct wq_snap *before, struct strlist *diff)
{
	struct wq_snap now;
	size_t i, j;

	if (snap_take(root, wq, &now)) {
		strlist_add(diff, "%s: gone", wq);
		return diff->n;
	}
	for (i = 0; i < before->names.n; i++) {
		for (j = 0; j < now.names.n; j++)
			if (!strcmp(now.names.v[j], before->names.v[i]))
				break;
		if (j == now.names.n)
			strlist_add(diff, "%s: cannot be read", before->names.v[i]);
		else if (strcmp(now.vals.v[j], before->vals.v[i]))
			strlist_add(diff, "%s: %s, was %s", before->names.v[i],
				    now.vals.v[j], before->vals.v[i]);
	}
	snap_free(&now);
	return diff->n;
}

/* One measurement of wq: S seconds, or until a signal */
static int measure(const char *root, const struct lat_sel *sel, double seconds,
		   struct lat_result *r, bool *interrupted)
{
	struct timespec t0, t1;
	struct lat_meas m;
	char why[4096];
	int err;

	err = lat_start(&m, root, sel, why, sizeof(why));
	if (err) {
		fprintf(stderr, "wqrtctl: %s\n", why);
		return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	*interrupted = !ctl_sleep(seconds);
	err = lat_read(&m, sel, r, why, sizeof(why));
	/* the window ends with the read: taking the session out is not in it */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	lat_stop(&m);
	r->seconds = t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (err)
		fprintf(stderr, "wqrtctl: %s\n", why);
	return err;
}

/* The row of the workqueue, or an empty one */
static const struct lat_row *row_of(const struct lat_result *r,
				    const struct lat_row *empty)
{
	return r->n ? &r->rows[0] : empty;
}

struct try_ctx {
	const char *root; /* "/", or --root DIR */
	const char *wq;
	char section[4096]; /* the [wq:] section, as it goes in a file */
	char run_dir[WQRT_PATH_MAX];
	char name[TRIAL_NAME_MAX]; /* trial-PID-START.conf */
	/* RUN_DIR/.trial-PID-START.conf, RUN_DIR/trial-PID-START.conf */
	char pending[WQRT_PATH_MAX + TRIAL_NAME_MAX + 2];
	char trial[WQRT_PATH_MAX + TRIAL_NAME_MAX];
	struct config *cfg; /* the section, parsed */
	/* through the daemon */
	bool via_daemon;
	struct runstate rs;
	bool trial_written;
	/* alone */
	int lock; /* wqrtd's lock, held; -1 */
	char state[WQRT_PATH_MAX + 16]; /* RUN_DIR/originals */
	struct sys_ops ops;
	struct daemon d;
	bool applied_alone;
};

/*
 * The section, checked as wqrtd checks a trial: written to the pending
 * trial file and loaded. Returns 0 or EX_USAGE/EX_CONFIG/EX_CANTCREAT.
 */
static int build_section(struct try_ctx *c, char **kv, int n)
{
	struct strlist errors = { 0 };
	unsigned long long start = 0;
	struct task_info self;
	size_t len, j;
	int i, fd, err;

	len = snprintf(c->section, sizeof(c->section), "[wq:%s]\n", c->wq);
	for (i = 0; i < n; i++) {
		const char *eq = strchr(kv[i], '=');

		if (!eq || eq == kv[i] || !eq[1] || strchr(kv[i], '\n')) {
			fprintf(stderr,
				"wqrtctl: '%s': profile keys are KEY=VALUE, as in a wqrt.conf section (policy=fifo rtprio=20 ...)\n",
				kv[i]);
			return EX_USAGE;
		}
		if (!strncmp(kv[i], "profile=", 8)) {
			fprintf(stderr,
				"wqrtctl: '%s': give the keys themselves; try takes no profile=\n",
				kv[i]);
			return EX_USAGE;
		}
		len += snprintf(c->section + len,
				len < sizeof(c->section) ?
					sizeof(c->section) - len :
					0,
				"%.*s = %s\n", (int)(eq - kv[i]), kv[i],
				eq + 1);
	}
	if (len >= sizeof(c->section)) {
		fprintf(stderr, "wqrtctl: the profile is too long\n");
		return EX_USAGE;
	}
	err = mkdir_p(c->run_dir, 0700);
	if (err && err != -EEXIST) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->run_dir, strerror(-err));
		return EX_CANTCREAT;
	}
	/* the owner of the trial: this process, and when it started */
	if (!task_read("/", getpid(), &self))
		start = self.start;
	trial_name(c->name, sizeof(c->name), getpid(), start, false);
	snprintf(c->trial, sizeof(c->trial), "%s/%s", c->run_dir, c->name);
	snprintf(c->pending, sizeof(c->pending), "%s/.%s", c->run_dir,
		 c->name);
	fd = open(c->pending, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
				      O_NOFOLLOW,
		  0600);
	if (fd < 0 ||
	    dprintf(fd,
		    "; the trial of wqrtctl try (pid %d): wqrtd holds it while that process lives\n%s",
		    (int)getpid(), c->section) < 0 ||
	    close(fd)) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->pending,
			strerror(errno));
		return EX_CANTCREAT;
	}
	if (trial_load(c->pending, c->root, &c->cfg, &errors)) {
		for (j = 0; j < errors.n; j++)
			fprintf(stderr, "wqrtctl: %s\n", errors.v[j]);
		fprintf(stderr,
			"wqrtctl: nothing changed (the keys are those of a [wq:] section, wqrt.conf(5))\n");
		strlist_free(&errors);
		return EX_CONFIG;
	}
	return 0;
}

/*
 * unlink(); on a fake root (--root), WQRT_FAKE_UNLINK_FAIL=TEXT in the
 * environment makes it fail (EPERM) for a path that holds TEXT: the
 * tests' way to a removal that fails
 */
static int try_unlink(const struct try_ctx *c, const char *path)
{
	const char *f = getenv("WQRT_FAKE_UNLINK_FAIL");

	if (strcmp(c->root, "/") && f && *f && strstr(path, f)) {
		errno = EPERM;
		return -1;
	}
	return unlink(path);
}

/* Every file of this trial removed; false (said) when one cannot be */
static bool cleanup_trial_files(struct try_ctx *c)
{
	const char *paths[] = { c->pending, c->trial };
	bool ok = true;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		if (!paths[i][0] || !try_unlink(c, paths[i]) || errno == ENOENT)
			continue;
		fprintf(stderr, "wqrtctl: %s: %s\n", paths[i], strerror(errno));
		ok = false;
	}
	return ok;
}

/* Do the workqueue's attributes show what the section asks */
static bool section_in_force(const struct try_ctx *c)
{
	struct wq_state st;

	return !wq_read_state(c->root, c->wq, &st) &&
	       !wq_differing(&c->cfg->rules[0].s, &st);
}

/* Does wqrtd say it holds our trial */
static bool daemon_holds_trial(const struct try_ctx *c)
{
	char held[TRIAL_NAME_MAX + 8];

	return !trial_held_read(c->run_dir, held, sizeof(held)) &&
	       !strcmp(held, c->name);
}

/*
 * SIGUSR1 to wqrtd (it looks at the trial files), then wait until it holds
 * the trial and the section is in force (want), or no longer holds it.
 */
static int daemon_trial_wait(struct try_ctx *c, bool want)
{
	struct runstate now;
	int i;

	if (runstate_read(c->run_dir, &now)) {
		fprintf(stderr, "wqrtctl: wqrtd stopped meanwhile\n");
		return -ESRCH;
	}
	if (kill(now.pid, SIGUSR1)) {
		int err = errno;

		fprintf(stderr, "wqrtctl: cannot signal wqrtd (pid %d): %s\n",
			(int)now.pid, strerror(err));
		runstate_free(&now);
		return -err;
	}
	runstate_free(&now);
	for (i = 0; i < TRY_WAIT_S * 10; i++) {
		struct timespec ts = { 0, 100000000 };

		if (want ? daemon_holds_trial(c) && section_in_force(c) :
			   !daemon_holds_trial(c))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/*
 * Refused before anything is measured: another wqrtctl try whose trial
 * wqrtd holds
 */
static int check_other_trial(struct try_ctx *c)
{
	struct strlist removed = { 0 }, errors = { 0 };
	char live[TRIAL_NAME_MAX];
	pid_t owner;
	int n;

	n = trial_scan(c->run_dir, live, sizeof(live), &owner, &removed,
		       &errors);
	strlist_free(&removed);
	strlist_free(&errors);
	if (n <= 0)
		return 0;
	fprintf(stderr,
		"wqrtctl: another wqrtctl try (pid %d) runs a trial (%s/%s): one at a time; nothing measured or changed\n",
		(int)owner, c->run_dir, live);
	return EX_TEMPFAIL;
}

/* Through the running daemon: the trial file in force, and SIGUSR1 */
static int apply_via_daemon(struct try_ctx *c)
{
	if (rename(c->pending, c->trial)) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->trial,
			strerror(errno));
		return EX_IOERR;
	}
	c->trial_written = true;
	if (daemon_trial_wait(c, true)) {
		fprintf(stderr,
			"wqrtctl: wqrtd did not apply the trial within %d s (its log says why: journalctl -u wqrtd)\n",
			TRY_WAIT_S);
		return EX_IOERR;
	}
	return 0;
}

static int put_back_via_daemon(struct try_ctx *c)
{
	if (!c->trial_written)
		return 0;
	if (try_unlink(c, c->trial) && errno != ENOENT) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->trial,
			strerror(errno));
		return EX_IOERR;
	}
	c->trial_written = false;
	if (daemon_trial_wait(c, false)) {
		fprintf(stderr,
			"wqrtctl: wqrtd did not take the trial out within %d s; it does once it sees this process gone\n",
			TRY_WAIT_S);
		return EX_IOERR;
	}
	return 0;
}

/*
 * Alone: wqrtd's lock, as every writer of the originals takes it. Refused
 * before anything is measured when another holds it.
 */
static int lock_alone(struct try_ctx *c)
{
	pid_t holder;
	int fd = runstate_lock(c->run_dir, &holder);

	if (fd == -EWOULDBLOCK) {
		fprintf(stderr,
			"wqrtctl: pid %d (%s) holds %s: it changes workqueues (wqrtd --once, wqrtctl restore, another try); nothing measured or changed\n",
			(int)holder, runstate_holder_name(holder), c->run_dir);
		return EX_TEMPFAIL;
	}
	if (fd < 0) {
		fprintf(stderr, "wqrtctl: %s/" RUNSTATE_LOCK ": %s\n",
			c->run_dir, strerror(-fd));
		return EX_CANTCREAT;
	}
	c->lock = fd;
	return 0;
}

/* Alone, refused before measuring: originals of an earlier writer */
static int check_no_originals(struct try_ctx *c)
{
	char state[WQRT_PATH_MAX + 16];

	snprintf(state, sizeof(state), "%s/originals", c->run_dir);
	if (access(state, F_OK))
		return 0;
	fprintf(stderr,
		"wqrtctl: %s holds originals of an earlier run (wqrtd --once, or a try that was killed): wqrtctl restore first; nothing measured or changed\n",
		state);
	return EX_TEMPFAIL;
}

/* Alone: wqrtd's apply, the originals where wqrtctl restore finds them */
static int apply_alone(struct try_ctx *c)
{
	int fails;

	/* the daemon keeps the path: it lives as long as c */
	snprintf(c->state, sizeof(c->state), "%s/originals", c->run_dir);
	sys_ops_for_root(&c->ops, c->root);
	daemon_init(&c->d, c->root, &c->ops, c->cfg);
	c->cfg = NULL; /* the daemon's now */
	daemon_use_state(&c->d, c->state);
	c->applied_alone = true;
	fails = daemon_scan(&c->d);
	if (fails) {
		fprintf(stderr, "wqrtctl: %d change(s) of the profile failed\n",
			fails);
		return EX_IOERR;
	}
	return 0;
}

static int put_back_alone(struct try_ctx *c)
{
	int fails;

	if (!c->applied_alone)
		return 0;
	fails = daemon_restore(&c->d);
	daemon_free(&c->d);
	c->applied_alone = false;
	if (fails) {
		fprintf(stderr,
			"wqrtctl: %d original(s) could not be put back; wqrtctl restore tries again\n",
			fails);
		return EX_IOERR;
	}
	return 0;
}

static void print_side_by_side(const struct try_ctx *c,
			       const struct lat_result *before,
			       const struct lat_result *after,
			       const struct lat_sel *sel, const char *profile)
{
	static const struct lat_row empty;
	const struct lat_row *rows[2] = { row_of(before, &empty),
					  row_of(after, &empty) };
	static const struct {
		const char *name;
		double q; /* 0: the max, -1: the count */
	} lines[] = { { "work items", -1 }, { "p50 us", 0.5 },
		      { "p99 us", 0.99 },   { "p99.9 us", 0.999 },
		      { "max us", 0 } };
	char over[2][64];
	size_t i;
	int k;

	printf("\n%s: queue -> start latency, %.1f s as found, then %.1f s with %s\n\n",
	       c->wq, before->seconds, after->seconds, profile);
	printf("%-14s %16s %16s\n", "", "as found", "profile");
	for (i = 0; i < ARRAY_SIZE(lines); i++) {
		printf("%-14s", lines[i].name);
		for (k = 0; k < 2; k++) {
			uint64_t v = lines[i].q < 0 ? rows[k]->count :
				     lines[i].q == 0 ?
						      lat_max(&rows[k]->lat) :
						      lat_quantile(&rows[k]->lat,
							   lines[i].q);
			printf(" %16" PRIu64, v);
		}
		printf("\n");
	}
	if (sel->has_deadline) {
		for (k = 0; k < 2; k++)
			snprintf(over[k], sizeof(over[k]),
				 "%" PRIu64 " (%.2f%%)", rows[k]->over,
				 rows[k]->count ? 100.0 * rows[k]->over /
							  rows[k]->count :
						  0.0);
		printf("> %-5" PRIu64 " us    %16s %16s\n", sel->deadline_us,
		       over[0], over[1]);
	}
	printf("%-14s %16" PRIu64 " %16" PRIu64 "\n", "run p99 us",
	       lat_quantile(&rows[0]->run, 0.99),
	       lat_quantile(&rows[1]->run, 0.99));
}

/* Where the trial would go to be kept: its own section, or the rule's */
static void print_keep(const struct try_ctx *c)
{
	struct strlist errors = { 0 };
	const struct rule *r = NULL;
	struct config *held = NULL;

	/* the files themselves, for a file and line a person can edit */
	if (c->via_daemon && !config_load(c->rs.config, c->root, &held, &errors))
		r = config_match_wq(held, c->wq);
	strlist_free(&errors);
	if (r)
		printf("\nTo keep it, set these keys in [%s] (%s:%d, then systemctl reload wqrtd):\n\n%s",
		       r->section, r->file, r->line, c->section);
	else
		printf("\nTo keep it, add to %s (then systemctl reload wqrtd):\n\n%s",
		       c->via_daemon ? c->rs.config : WQRT_DEFAULT_CONF,
		       c->section);
	config_free(held);
}

int cmd_try(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "for", required_argument, NULL, 'f' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "root", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct try_ctx c = { .root = "/", .lock = -1 };
	struct lat_sel sel = { 0 };
	struct lat_result before = { 0 }, after = { 0 };
	struct strlist left = { 0 };
	struct wq_snap snap = { 0 };
	char path[WQRT_PATH_MAX], profile[1024] = "", why[4096];
	bool json = false, stopped = false;
	double seconds = 5;
	int ch, i, rc = 0, rc2;
	size_t len = 0;
	struct stat st;

	/* GNU getopt permutes: the options may follow the operands */
	optind = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'f':
			if (opt_seconds("for", optarg, &seconds))
				return EX_USAGE;
			break;
		case 'D':
			if (opt_deadline(optarg, &sel))
				return EX_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'r':
			c.root = root_canon(optarg);
			break;
		default:
			try_usage(stderr);
			return EX_USAGE;
		}
	}
	if (argc - optind < 2) {
		try_usage(stderr);
		return EX_USAGE;
	}
	c.wq = argv[optind];
	if (pattern_is_glob(c.wq) ||
	    wq_path(path, sizeof(path), c.root, c.wq, "") ||
	    stat(path, &st)) {
		fprintf(stderr,
			"wqrtctl: %s: no such workqueue in sysfs (wqrtctl list --all says which are out of reach and why; wqrtctl who FUNC finds a work function's)\n",
			c.wq);
		return EX_USAGE;
	}
	/*
	 * What a user who is not root cannot do, said before anything is
	 * measured or changed: write the workqueue's attributes, trace.
	 */
	if (!wq_path(path, sizeof(path), c.root, c.wq, "nice") &&
	    access(path, W_OK)) {
		int err = errno;

		fprintf(stderr,
			"wqrtctl: %s: %s: try changes the workqueue's attributes: run wqrtctl as root\n",
			path, strerror(err));
		return err == EACCES || err == EPERM || err == EROFS ?
			       EX_NOPERM :
			       EX_OSFILE;
	}
	rc = trace_usable(c.root, why, sizeof(why));
	if (rc)
		return ctl_trace_error(why, rc);
	/* the profile's text, for what is printed */
	for (i = optind + 1; i < argc; i++)
		len += snprintf(profile + len,
				len < sizeof(profile) ? sizeof(profile) - len : 0,
				"%s%s", i > optind + 1 ? " " : "", argv[i]);
	strlist_add(&sel.wqs, "%s", c.wq);
	if (path_fmt(c.run_dir, sizeof(c.run_dir), c.root, WQRT_RUN_DIR)) {
		rc = EX_SOFTWARE;
		goto out;
	}
	/*
	 * Whatever refuses, refuses now, before anything is measured: bad
	 * keys, another try, a writer holding the originals.
	 */
	c.via_daemon = !runstate_read(c.run_dir, &c.rs);
	rc = build_section(&c, argv + optind + 1, argc - optind - 1);
	if (!rc)
		rc = c.via_daemon ? check_other_trial(&c) : lock_alone(&c);
	if (!rc && !c.via_daemon)
		rc = check_no_originals(&c);
	if (rc)
		goto out;
	ctl_catch_signals();
	if (snap_take(c.root, c.wq, &snap)) {
		fprintf(stderr, "wqrtctl: %s: cannot read its attributes\n",
			c.wq);
		rc = EX_OSFILE;
		goto out;
	}
	fprintf(stderr, "wqrtctl: %s as found, for %.1f s\n", c.wq, seconds);
	if (measure(c.root, &sel, seconds, &before, &stopped)) {
		rc = EX_UNAVAILABLE;
		goto out;
	}
	if (!stopped) {
		fprintf(stderr, "wqrtctl: applying %s %s\n", profile,
			c.via_daemon ? "through wqrtd (a trial, over what it holds)" :
				       "(no wqrtd runs: alone)");
		rc = c.via_daemon ? apply_via_daemon(&c) : apply_alone(&c);
		if (!rc && !ctl_stop) {
			fprintf(stderr, "wqrtctl: %s with %s, for %.1f s\n",
				c.wq, profile, seconds);
			if (measure(c.root, &sel, seconds, &after, &stopped))
				rc = EX_UNAVAILABLE;
		}
	}
	/* put back whatever happened, then check every attribute */
	rc2 = c.via_daemon ? put_back_via_daemon(&c) : put_back_alone(&c);
	if (!rc)
		rc = rc2;
	snap_diff(c.root, c.wq, &snap, &left);
	if (left.n && !rc)
		rc = EX_IOERR;
	if (json) {
		static const struct lat_row empty;

		printf("{\"schema\": %d, \"workqueue\": ", WQRT_JSON_SCHEMA);
		json_str(stdout, c.wq);
		printf(", \"profile\": ");
		json_str(stdout, profile);
		printf(", \"through\": \"%s\", \"interrupted\": %s, \"before\": ",
		       c.via_daemon ? "wqrtd" : "alone",
		       stopped || ctl_stop ? "true" : "false");
		lat_print_json_row(stdout, row_of(&before, &empty), &sel);
		printf(", \"after\": ");
		lat_print_json_row(stdout, row_of(&after, &empty), &sel);
		printf(", \"put_back\": %s, \"differs\": [",
		       left.n ? "false" : "true");
		for (i = 0; i < (int)left.n; i++) {
			printf("%s", i ? ", " : "");
			json_str(stdout, left.v[i]);
		}
		printf("], \"section\": ");
		json_str(stdout, c.section);
		printf("}\n");
	} else {
		if (stopped || ctl_stop)
			printf("interrupted: the measurements are shorter than asked\n");
		print_side_by_side(&c, &before, &after, &sel, profile);
		if (left.n) {
			printf("\nNOT put back as found:\n");
			for (i = 0; i < (int)left.n; i++)
				printf("  %s\n", left.v[i]);
		} else {
			printf("\n%s: every attribute is back as found\n",
			       c.wq);
		}
		print_keep(&c);
	}
out:
	if (c.via_daemon)
		runstate_free(&c.rs);
	if (c.applied_alone)
		daemon_free(&c.d);
	config_free(c.cfg);
	if (!cleanup_trial_files(&c) && !rc)
		rc = EX_IOERR;
	if (c.lock >= 0)
		close(c.lock);
	snap_free(&snap);
	strlist_free(&left);
	lat_result_free(&before);
	lat_result_free(&after);
	lat_sel_free(&sel);
	return rc;
}
