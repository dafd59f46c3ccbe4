// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl status [--json] [-c FILE] [--root DIR]: whether wqrtd runs and
 * what it holds; per profiled workqueue the desired and actual attributes,
 * per kworker it covers the policy it really has: the daemon's own plan
 * (daemon.c), printed (report.c).
 */
#include "common.h"
#include "config.h"
#include "config_files.h"
#include "config_load.h"
#include "ctl.h"
#include "daemon.h"
#include "json.h"
#include "log.h"
#include "runstate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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
int cmd_status(int argc, char **argv)
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
