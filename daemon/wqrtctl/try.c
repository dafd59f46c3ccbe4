// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl try WQ KEY=VALUE... [--for S] [--deadline US] [--json]
 *
 * A profile ad hoc: measure WQ's queue -> start latency for S seconds as
 * it is, apply KEY=VALUE..., measure again, put the originals back, and
 * print the two side by side with the [wq:] section that would keep it.
 *
 * The profile goes through the same code as wqrtd's: the keys are checked
 * as a wqrt.conf section, and applied
 *  - through the running wqrtd: a drop-in CONFIG.d/zz-wqrtctl-try.conf and
 *    a reload (SIGHUP), removed and reloaded again at the end, so the
 *    daemon neither fights the change nor loses track of its originals;
 *  - alone when none runs: wqrtd's apply, with the originals in
 *    /run/wqrtd/originals, so that wqrtctl restore puts them back if this
 *    process is killed.
 * Ctrl-C (SIGINT, SIGTERM, SIGHUP) ends the measurement and puts back.
 * At the end every attribute of WQ is read and compared with what it was.
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
#include "trace.h"

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

#define TRY_DROPIN "zz-wqrtctl-try.conf"
/* how long wqrtd may take to reload and apply */
#define TRY_RELOAD_WAIT_S 20

static void try_usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtctl try WQ KEY=VALUE... [--for S] [--deadline US] [--json]\n");
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

static int snap_take(const char *wq, struct wq_snap *s)
{
	char path[WQRT_PATH_MAX], val[512];
	struct dirent *de;
	struct stat st;
	DIR *d;

	memset(s, 0, sizeof(*s));
	if (wq_path(path, sizeof(path), "/", wq, ""))
		return -ENAMETOOLONG;
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "pool_ids") ||
		    !strcmp(de->d_name, "uevent"))
			continue;
		if (wq_path(path, sizeof(path), "/", wq, de->d_name) ||
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
static size_t snap_diff(const char *wq, const struct wq_snap *before,
			struct strlist *diff)
{
	struct wq_snap now;
	size_t i, j;

	if (snap_take(wq, &now)) {
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
static int measure(const struct lat_sel *sel, double seconds,
		   struct lat_result *r, bool *interrupted)
{
	struct timespec t0, t1;
	struct lat_meas m;
	char why[4096];
	int err;

	err = lat_start(&m, "/", sel, why, sizeof(why));
	if (err) {
		fprintf(stderr, "wqrtctl: %s\n", why);
		return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	*interrupted = !ctl_sleep(seconds);
	err = lat_read(&m, sel, r, why, sizeof(why));
	lat_stop(&m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
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
	const char *wq;
	char section[4096]; /* the [wq:] section, as it goes in a file */
	char tmpdir[64];
	char tmpconf[WQRT_PATH_MAX];
	struct config *cfg; /* the section, parsed */
	/* through the daemon */
	bool via_daemon;
	struct runstate rs;
	char run_dir[WQRT_PATH_MAX];
	char dropin[WQRT_PATH_MAX + 32];
	bool dropin_written;
	/* alone */
	struct sys_ops ops;
	struct daemon d;
	bool applied_alone;
};

/*
 * The section, checked as wqrtd checks a file: written to a private
 * temporary file and loaded. Returns 0 or EX_USAGE/EX_CONFIG.
 */
static int build_section(struct try_ctx *c, char **kv, int n)
{
	size_t len;
	FILE *f;
	int i;

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
				"wqrtctl: '%s': give the keys themselves; try takes no profile= \n",
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
	snprintf(c->tmpdir, sizeof(c->tmpdir), "/tmp/wqrtctl-try.XXXXXX");
	if (!mkdtemp(c->tmpdir)) {
		fprintf(stderr, "wqrtctl: a temporary directory: %s\n",
			strerror(errno));
		return EX_CANTCREAT;
	}
	snprintf(c->tmpconf, sizeof(c->tmpconf), "%s/try.conf", c->tmpdir);
	f = fopen(c->tmpconf, "wex");
	if (!f || fprintf(f, "%s", c->section) < 0 || fclose(f)) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->tmpconf,
			strerror(errno));
		return EX_CANTCREAT;
	}
	if (config_load_report(c->tmpconf, "/", &c->cfg,
			       "nothing changed (the keys are those of a [wq:] section, wqrt.conf(5))"))
		return EX_CONFIG;
	return 0;
}

static void cleanup_tmp(struct try_ctx *c)
{
	if (c->tmpconf[0])
		unlink(c->tmpconf);
	if (c->tmpdir[0] && strchr(c->tmpdir, 'X') == NULL)
		rmdir(c->tmpdir);
}

/* Has the daemon published a new copy of its configuration since rs */
static bool daemon_reloaded(const struct try_ctx *c, const char *snapshot)
{
	struct runstate now;
	bool changed;

	if (runstate_read(c->run_dir, &now))
		return false;
	changed = strcmp(now.snapshot, snapshot) != 0;
	runstate_free(&now);
	return changed;
}

/* Do the workqueue's attributes show what the section asks */
static bool section_in_force(const struct try_ctx *c)
{
	struct wq_state st;

	return !wq_read_state("/", c->wq, &st) &&
	       !wq_differing(&c->cfg->rules[0].s, &st);
}

/*
 * SIGHUP to wqrtd, then wait for its new copy of the configuration (a
 * reload it accepted); want_applied: and for the section in force.
 */
static int daemon_reload_wait(struct try_ctx *c, bool want_applied)
{
	char snapshot[WQRT_PATH_MAX];
	struct runstate now;
	int i;

	if (runstate_read(c->run_dir, &now)) {
		fprintf(stderr, "wqrtctl: wqrtd stopped meanwhile\n");
		return -ESRCH;
	}
	snprintf(snapshot, sizeof(snapshot), "%s", now.snapshot);
	if (kill(now.pid, SIGHUP)) {
		fprintf(stderr, "wqrtctl: cannot signal wqrtd (pid %d): %s\n",
			(int)now.pid, strerror(errno));
		runstate_free(&now);
		return -errno;
	}
	runstate_free(&now);
	for (i = 0; i < TRY_RELOAD_WAIT_S * 10; i++) {
		struct timespec ts = { 0, 100000000 };

		if (daemon_reloaded(c, snapshot) &&
		    (!want_applied || section_in_force(c)))
			return 0;
		nanosleep(&ts, NULL);
	}
	return -ETIMEDOUT;
}

/* Through the running daemon: the drop-in, and a reload */
static int apply_via_daemon(struct try_ctx *c)
{
	struct strlist errors = { 0 };
	struct config *held = NULL;
	const struct rule *r;
	char dir[WQRT_PATH_MAX + 8];
	int fd, err;

	/* what it holds must not define this very section */
	if (!config_load(c->rs.snapshot, "/", &held, &errors)) {
		r = config_match_wq(held, c->wq);
		if (r && !r->glob) {
			fprintf(stderr,
				"wqrtctl: wqrtd holds [%s] (%s:%d) for %s: edit that section and reload, or stop wqrtd to try a profile\n",
				r->section, r->file, r->line, c->wq);
			config_free(held);
			strlist_free(&errors);
			return EX_CONFIG;
		}
		config_free(held);
	}
	strlist_free(&errors);
	snprintf(dir, sizeof(dir), "%s.d", c->rs.config);
	snprintf(c->dropin, sizeof(c->dropin), "%s/" TRY_DROPIN, dir);
	if (mkdir_p(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "wqrtctl: %s: %s\n", dir, strerror(errno));
		return EX_CANTCREAT;
	}
	fd = open(c->dropin, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr,
			"wqrtctl: %s: %s%s\n", c->dropin, strerror(errno),
			errno == EEXIST ?
				" (another wqrtctl try runs, or one was killed: remove it and reload wqrtd)" :
				"");
		return EX_CANTCREAT;
	}
	if (dprintf(fd,
		    "; written by wqrtctl try (pid %d) for the time of its measurement;\n"
		    "; it removes it at the end: if it is left, remove it and reload wqrtd\n%s",
		    (int)getpid(), c->section) < 0 ||
	    fchmod(fd, 0644) || close(fd)) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->dropin, strerror(errno));
		unlink(c->dropin);
		return EX_IOERR;
	}
	c->dropin_written = true;
	err = daemon_reload_wait(c, true);
	if (err) {
		fprintf(stderr,
			"wqrtctl: wqrtd did not apply the profile within %d s (its log says why: journalctl -u wqrtd)\n",
			TRY_RELOAD_WAIT_S);
		return EX_IOERR;
	}
	return 0;
}

static int put_back_via_daemon(struct try_ctx *c)
{
	if (!c->dropin_written)
		return 0;
	if (unlink(c->dropin) && errno != ENOENT) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->dropin,
			strerror(errno));
		return EX_IOERR;
	}
	c->dropin_written = false;
	if (daemon_reload_wait(c, false)) {
		fprintf(stderr,
			"wqrtctl: wqrtd did not reload without %s within %d s\n",
			c->dropin, TRY_RELOAD_WAIT_S);
		return EX_IOERR;
	}
	return 0;
}

/* Alone: wqrtd's apply, the originals where wqrtctl restore finds them */
static int apply_alone(struct try_ctx *c)
{
	char state[WQRT_PATH_MAX + 16];
	int fails;

	snprintf(state, sizeof(state), "%s/originals", c->run_dir);
	if (!access(state, F_OK)) {
		fprintf(stderr,
			"wqrtctl: %s holds originals of an earlier run (wqrtd --once, or a try that was killed): wqrtctl restore first\n",
			state);
		return EX_TEMPFAIL;
	}
	if (mkdir_p(c->run_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "wqrtctl: %s: %s\n", c->run_dir,
			strerror(errno));
		return EX_CANTCREAT;
	}
	sys_ops_for_root(&c->ops, "/");
	daemon_init(&c->d, "/", &c->ops, c->cfg);
	c->cfg = NULL; /* the daemon's now */
	daemon_use_state(&c->d, state);
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

int cmd_try(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "for", required_argument, NULL, 'f' },
		{ "deadline", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	struct try_ctx c = { 0 };
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
	if (pattern_is_glob(c.wq) || wq_path(path, sizeof(path), "/", c.wq, "") ||
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
	if (!wq_path(path, sizeof(path), "/", c.wq, "nice") &&
	    access(path, W_OK)) {
		int err = errno;

		fprintf(stderr,
			"wqrtctl: %s: %s: try changes the workqueue's attributes: run wqrtctl as root\n",
			path, strerror(err));
		return err == EACCES || err == EPERM || err == EROFS ?
			       EX_NOPERM :
			       EX_OSFILE;
	}
	rc = trace_usable("/", why, sizeof(why));
	if (rc)
		return ctl_trace_error(why, rc);
	rc = build_section(&c, argv + optind + 1, argc - optind - 1);
	for (i = optind + 1; i < argc && !rc; i++)
		len += snprintf(profile + len,
				len < sizeof(profile) ? sizeof(profile) - len : 0,
				"%s%s", i > optind + 1 ? " " : "", argv[i]);
	if (rc)
		goto out;
	strlist_add(&sel.wqs, "%s", c.wq);
	if (path_fmt(c.run_dir, sizeof(c.run_dir), "/", WQRT_RUN_DIR)) {
		rc = EX_SOFTWARE;
		goto out;
	}
	c.via_daemon = !runstate_read(c.run_dir, &c.rs);
	ctl_catch_signals();
	if (snap_take(c.wq, &snap)) {
		fprintf(stderr, "wqrtctl: %s: cannot read its attributes\n",
			c.wq);
		rc = EX_OSFILE;
		goto out;
	}
	fprintf(stderr, "wqrtctl: %s as found, for %.1f s\n", c.wq, seconds);
	if (measure(&sel, seconds, &before, &stopped)) {
		rc = EX_UNAVAILABLE;
		goto out;
	}
	if (!stopped) {
		fprintf(stderr, "wqrtctl: applying %s %s\n", profile,
			c.via_daemon ? "through wqrtd (a drop-in, reload)" :
				       "(no wqrtd runs: alone)");
		rc = c.via_daemon ? apply_via_daemon(&c) : apply_alone(&c);
		if (!rc && !ctl_stop) {
			fprintf(stderr, "wqrtctl: %s with %s, for %.1f s\n",
				c.wq, profile, seconds);
			if (measure(&sel, seconds, &after, &stopped))
				rc = EX_UNAVAILABLE;
		}
	}
	/* put back whatever happened, then check every attribute */
	rc2 = c.via_daemon ? put_back_via_daemon(&c) : put_back_alone(&c);
	if (!rc)
		rc = rc2;
	snap_diff(c.wq, &snap, &left);
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
		printf("\nTo keep it, add to %s (then systemctl reload wqrtd):\n\n%s",
		       c.via_daemon ? c.rs.config : WQRT_DEFAULT_CONF,
		       c.section);
	}
out:
	if (c.via_daemon)
		runstate_free(&c.rs);
	if (c.applied_alone)
		daemon_free(&c.d);
	config_free(c.cfg);
	cleanup_tmp(&c);
	snap_free(&snap);
	strlist_free(&left);
	lat_result_free(&before);
	lat_result_free(&after);
	lat_sel_free(&sel);
	return rc;
}
