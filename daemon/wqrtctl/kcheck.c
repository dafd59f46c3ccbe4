// SPDX-License-Identifier: GPL-2.0-only
#include "kcheck.h"
#include "advice.h"
#include "common.h"
#include "config.h"
#include "config_load.h"
#include "ctl.h"
#include "discover.h"
#include "json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

static const struct {
	const char *name;
	bool required;
	const char *why;
} options[] = {
	{ "CONFIG_PREEMPT_RT", false,
	  "a fully preemptible kernel, where RT kworkers bound latency" },
	{ "CONFIG_SYSFS", true, "the workqueue attributes are sysfs files" },
	{ "CONFIG_CONNECTOR", false,
	  "the proc connector's transport (else new kworkers wait for the rescan)" },
	{ "CONFIG_PROC_EVENTS", false,
	  "fork events of new kworkers (else they wait for the rescan)" },
	{ "CONFIG_EVENT_TRACING", false,
	  "the workqueue trace events: wqrtctl latency, who and try" },
	{ "CONFIG_HIST_TRIGGERS", false,
	  "histograms aggregated in the kernel: wqrtctl latency and try" },
	{ "CONFIG_SYNTH_EVENTS", false,
	  "the queue -> start event they count: wqrtctl latency and try" },
};

/* The workqueue series: what sysfs mode needs on unbound workqueues */
static const char *const series_attrs[] = { "policy", "rtprio", "nr_idle_extra",
					    "private", "pool_ids" };

static struct kc_item *add(struct kcheck *kc, const char *name, bool required,
			   const char *why)
{
	struct kc_item *it = &kc->items[kc->n++];

	it->name = name;
	it->required = required;
	it->why = why;
	it->state = KC_UNKNOWN;
	return it;
}

/* One line of a kernel .config: set what it says of the options */
static void config_line(struct kcheck *kc, const char *line)
{
	int i;

	for (i = 0; i < kc->n && i < (int)ARRAY_SIZE(options); i++) {
		struct kc_item *it = &kc->items[i];
		size_t len = strlen(it->name);

		if (!strncmp(line, it->name, len) && line[len] == '=') {
			const char *v = line + len + 1;

			it->state = (!strcmp(v, "y") || !strcmp(v, "m")) ?
					    KC_OK :
					    KC_MISSING;
			snprintf(it->found, sizeof(it->found), "=%s", v);
		} else if (!strncmp(line, "# ", 2) &&
			   !strncmp(line + 2, it->name, len) &&
			   !strcmp(line + 2 + len, " is not set")) {
			it->state = KC_MISSING;
			snprintf(it->found, sizeof(it->found), "is not set");
		}
	}
}

/* Every line of a configuration read, or -errno with why filled */
static int read_gz(struct kcheck *kc, const char *path)
{
#ifdef HAVE_ZLIB
	char line[512];
	gzFile gz;
	int err, lines = 0;
	const char *msg;

	gz = gzopen(path, "rb");
	if (!gz)
		return errno ? -errno : -ENOMEM;
	while (gzgets(gz, line, sizeof(line))) {
		line[strcspn(line, "\n")] = '\0';
		config_line(kc, line);
		lines++;
	}
	msg = gzerror(gz, &err);
	if (err != Z_OK && err != Z_STREAM_END) {
		snprintf(kc->config_error, sizeof(kc->config_error),
			 "%s: cannot be read: %s", path, msg);
		gzclose(gz);
		return -EIO;
	}
	gzclose(gz);
	return lines ? 0 : -ENODATA;
#else
	(void)kc;
	(void)path;
	return -ENOTSUP;
#endif
}

static int read_plain(struct kcheck *kc, const char *path)
{
	char line[512];
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		config_line(kc, line);
	}
	fclose(f);
	return 0;
}

/* A configuration was read: an option it does not name is not set */
static void absent_is_missing(struct kcheck *kc)
{
	for (int i = 0; i < (int)ARRAY_SIZE(options); i++) {
		struct kc_item *it = &kc->items[i];

		if (it->state != KC_UNKNOWN)
			continue;
		it->state = KC_MISSING;
		snprintf(it->found, sizeof(it->found),
			 "not in the configuration");
	}
}

static void read_config(struct kcheck *kc, const char *root)
{
	char gz[WQRT_PATH_MAX], boot[WQRT_PATH_MAX];
	int err;

	if (path_fmt(gz, sizeof(gz), root, "/proc/config.gz"))
		return;
	err = read_gz(kc, gz);
	if (!err) {
		snprintf(kc->config, sizeof(kc->config), "%s", gz);
		absent_is_missing(kc);
		return;
	}
	if (err == -ENOTSUP && !access(gz, F_OK))
		snprintf(kc->config_error, sizeof(kc->config_error),
			 "%s: wqrtctl was built without zlib", gz);
	else if (err != -EIO && err != -ENOENT)
		snprintf(kc->config_error, sizeof(kc->config_error), "%s: %s",
			 gz, strerror(-err));
	if (path_fmt(boot, sizeof(boot), root, "/boot/config-%s",
		     kc->release) ||
	    !kc->release[0])
		return;
	/* a half-read config.gz said something: start over */
	for (int i = 0; i < (int)ARRAY_SIZE(options); i++) {
		kc->items[i].state = KC_UNKNOWN;
		kc->items[i].found[0] = '\0';
	}
	err = read_plain(kc, boot);
	if (!err) {
		snprintf(kc->config, sizeof(kc->config), "%s", boot);
		absent_is_missing(kc);
	} else if (!kc->config_error[0])
		snprintf(kc->config_error, sizeof(kc->config_error),
			 "neither %s (CONFIG_IKCONFIG_PROC) nor %s: %s", gz,
			 boot, strerror(-err));
}

/* No configuration: what the running system shows instead */
static void from_running(struct kcheck *kc, const char *root)
{
	/* in the order of options[] */
	struct kc_item *rt = &kc->items[0], *sysfs = &kc->items[1];
	struct kc_item *connector = &kc->items[2];
	char path[WQRT_PATH_MAX], buf[512];
	struct stat st;

	if (rt->state == KC_UNKNOWN &&
	    !path_fmt(path, sizeof(path), root, "/proc/sys/kernel/version") &&
	    !read_text(path, buf, sizeof(buf))) {
		rt->state = strstr(buf, "PREEMPT_RT") ? KC_OK : KC_MISSING;
		snprintf(rt->found, sizeof(rt->found), "%s (uname -v)",
			 rt->state == KC_OK ? "PREEMPT_RT" : "no PREEMPT_RT");
	}
	/*
	 * The running kernel (not a fake root) without a configuration: a
	 * connector socket opens only with CONFIG_CONNECTOR. Whether the
	 * proc connector sends events, nothing tells short of a fork.
	 */
	if (connector->state == KC_UNKNOWN && !strcmp(root, "/")) {
		int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
				NETLINK_CONNECTOR);

		if (fd >= 0 || errno == EPROTONOSUPPORT) {
			connector->state = fd >= 0 ? KC_OK : KC_MISSING;
			snprintf(connector->found, sizeof(connector->found),
				 "a connector socket %s",
				 fd >= 0 ? "opens" : "is not supported");
		}
		if (fd >= 0)
			close(fd);
	}
	if (sysfs->state == KC_UNKNOWN &&
	    !path_fmt(path, sizeof(path), root, "/sys/devices") &&
	    !stat(path, &st)) {
		sysfs->state = KC_OK;
		snprintf(sysfs->found, sizeof(sysfs->found), "(/sys is there)");
	}
}

struct series_scan {
	const char *root;
	int nwq; /* unbound or ordered workqueues seen */
	int has[ARRAY_SIZE(series_attrs)];
};

static int series_visit(const char *name, void *arg)
{
	struct series_scan *s = arg;
	char path[WQRT_PATH_MAX], buf[16];
	struct stat st;
	size_t i;

	/* per-cpu workqueues never have them */
	if (!wq_path(path, sizeof(path), s->root, name, "per_cpu") &&
	    !read_text(path, buf, sizeof(buf)) && !strcmp(buf, "1"))
		return 0;
	s->nwq++;
	for (i = 0; i < ARRAY_SIZE(series_attrs); i++)
		if (!wq_path(path, sizeof(path), s->root, name,
			     series_attrs[i]) &&
		    !stat(path, &st))
			s->has[i]++;
	return 0;
}

static void check_series(struct kcheck *kc, const char *root)
{
	struct series_scan s = { .root = root };
	int err = for_each_workqueue(root, series_visit, &s);
	size_t i;

	for (i = 0; i < ARRAY_SIZE(series_attrs); i++) {
		struct kc_item *it =
			add(kc, series_attrs[i], false,
			    "workqueue attribute of the wqrt series");

		it->series = true;

		if (err) {
			snprintf(it->found, sizeof(it->found),
				 "cannot list " WQ_SYSFS_DIR ": %s",
				 strerror(-err));
		} else if (!s.nwq) {
			snprintf(it->found, sizeof(it->found),
				 "no unbound workqueue in sysfs to look at");
		} else {
			it->state = s.has[i] ? KC_OK : KC_MISSING;
			snprintf(it->found, sizeof(it->found),
				 "on %d of %d unbound/ordered workqueue(s)",
				 s.has[i], s.nwq);
		}
	}
}

static struct kc_item *find(struct kcheck *kc, const char *name)
{
	for (int i = 0; i < kc->n; i++)
		if (!strcmp(kc->items[i].name, name))
			return &kc->items[i];
	return NULL;
}

/*
 * The mode wqrtd would run in, as it decides (the policy attribute: see
 * sysfs_series_present()). With part of the series, the rest of it is
 * required: profiles that set what is missing would fail.
 */
static void set_mode(struct kcheck *kc)
{
	const struct kc_item *sysfs = find(kc, "CONFIG_SYSFS");
	const struct kc_item *policy = find(kc, "policy");
	int i;

	if (sysfs->state == KC_MISSING)
		kc->mode = KC_MODE_NONE;
	else if (policy->state == KC_OK)
		kc->mode = KC_MODE_SYSFS;
	else if (policy->state == KC_MISSING)
		kc->mode = KC_MODE_FALLBACK;
	else
		kc->mode = KC_MODE_UNKNOWN;
	for (i = 0; kc->mode == KC_MODE_SYSFS && i < kc->n; i++)
		if (kc->items[i].series)
			kc->items[i].required = true;
}

const char *kc_mode_name(enum kc_mode m)
{
	return m == KC_MODE_SYSFS    ? "sysfs" :
	       m == KC_MODE_FALLBACK ? "fallback" :
	       m == KC_MODE_NONE     ? "none" :
				       "unknown";
}

void kcheck_run(const char *root, struct kcheck *kc)
{
	char path[WQRT_PATH_MAX], buf[4096], *p;
	struct utsname u;
	size_t i;

	memset(kc, 0, sizeof(*kc));
	for (i = 0; i < ARRAY_SIZE(options); i++)
		add(kc, options[i].name, options[i].required, options[i].why);
	if (!path_fmt(path, sizeof(path), root, "/proc/sys/kernel/osrelease") &&
	    !read_text(path, kc->release, sizeof(kc->release)))
		;
	else if (!strcmp(root, "/") && !uname(&u))
		snprintf(kc->release, sizeof(kc->release), "%s", u.release);
	read_config(kc, root);
	from_running(kc, root);
	check_series(kc, root);
	if (!path_fmt(path, sizeof(path), root, "/proc/cmdline") &&
	    !read_text(path, buf, sizeof(buf))) {
		for (p = strtok(buf, " \t"); p; p = strtok(NULL, " \t"))
			if (!strncmp(p, "workqueue.sysfs=", 16))
				snprintf(kc->cmdline_sysfs,
					 sizeof(kc->cmdline_sysfs), "%s",
					 p + 16);
	}
	set_mode(kc);
	for (i = 0; i < (size_t)kc->n; i++) {
		const struct kc_item *it = &kc->items[i];

		if (it->state == KC_MISSING && it->required)
			kc->missing_required++;
		else if (it->state == KC_MISSING && it->series)
			kc->missing_series++;
		else if (it->state == KC_MISSING)
			kc->missing_recommended++;
		else if (it->state == KC_UNKNOWN)
			kc->unknown++;
	}
}

int kcheck_exit_status(const struct kcheck *kc)
{
	if (kc->missing_required)
		return EX_UNAVAILABLE;
	if (!kc->config[0])
		return EX_NOINPUT;
	return 0;
}

static const char *state_name(enum kc_state s)
{
	return s == KC_OK ? "ok" : s == KC_MISSING ? "MISSING" : "unknown";
}

/* Where a board user finds how to get a kernel with the series */
#define BOARD_DOC "make board-kernel; /usr/share/doc/wqrtd/docs/board.md"

static void print_verdict(FILE *f, const struct kcheck *kc)
{
	const struct kc_item *rt = NULL;
	int i;

	for (i = 0; i < kc->n; i++)
		if (!strcmp(kc->items[i].name, "CONFIG_PREEMPT_RT"))
			rt = &kc->items[i];
	fputc('\n', f);
	if (kc->mode == KC_MODE_NONE) {
		fprintf(f,
			"wqrtd cannot work on this kernel: it finds and changes workqueues through\n"
			"sysfs, which CONFIG_SYSFS gives\n");
		return;
	}
	if (kc->missing_required) {
		fprintf(f,
			"this kernel has part of the wqrt series only: %d attribute(s) missing\n"
			"(above); profiles that set them fail\n",
			kc->missing_required);
		return;
	}
	if (kc->mode == KC_MODE_FALLBACK)
		fprintf(f,
			"wqrtd works on this kernel in fallback mode (the wqrt series is not in it):\n"
			"  it does:    policy and rtprio with sched_setattr() on the kworkers that\n"
			"              [kworker:] sections name and on the rescuer of each profiled\n"
			"              workqueue; nice, cpumask, affinity_scope, affinity_strict and\n"
			"              max_active through sysfs, as 6.12 has them\n"
			"  it cannot:  give a [wq:] section's policy and rtprio to the workqueue's\n"
			"              pool workers (6.12 shares them), keep a reserve of idle\n"
			"              workers (nr_idle_extra), give a workqueue pools of its own\n"
			"              (private), reach ordered workqueues or those without\n"
			"              WQ_SYSFS; and a new kworker runs SCHED_NORMAL until wqrtd\n"
			"              has seen it\n"
			"  for those:  a kernel with the series (" BOARD_DOC
			")\n");
	else if (kc->mode == KC_MODE_UNKNOWN)
		fprintf(f,
			"no unbound workqueue in sysfs to look at: whether the wqrt series is there\n"
			"cannot be told (wqrtd says its mode when it starts)\n");
	if (rt && rt->state == KC_MISSING)
		fprintf(f,
			"without PREEMPT_RT, RT kworkers still run before every SCHED_NORMAL task,\n"
			"but interrupt handlers and spinlocked sections do not yield to them: the\n"
			"latency is not bounded as on a real-time kernel (" BOARD_DOC
			")\n");
	if (!kc->config[0])
		fprintf(f,
			"no kernel configuration to read: enable CONFIG_IKCONFIG_PROC or install /boot/config-%s\n",
			kc->release);
	else if (kc->missing_recommended)
		fprintf(f, "usable; %d recommended item(s) missing\n",
			kc->missing_recommended);
	else if (kc->mode == KC_MODE_SYSFS)
		fprintf(f, "this kernel has everything wqrtd uses\n");
}

void kcheck_print(FILE *f, const struct kcheck *kc, bool json)
{
	int i;

	if (json) {
		fprintf(f, "{\"schema\": %d, \"release\": ", WQRT_JSON_SCHEMA);
		json_str(f, kc->release);
		fprintf(f, ", \"config\": ");
		if (kc->config[0])
			json_str(f, kc->config);
		else
			fputs("null", f);
		fprintf(f, ", \"mode\": \"%s\", \"workqueue_sysfs\": ",
			kc_mode_name(kc->mode));
		json_str(f, kc->cmdline_sysfs);
		fprintf(f, ", \"checks\": [");
		for (i = 0; i < kc->n; i++) {
			const struct kc_item *it = &kc->items[i];

			fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
			json_str(f, it->name);
			fprintf(f,
				", \"required\": %s, \"state\": \"%s\", \"found\": ",
				it->required ? "true" : "false",
				it->state == KC_OK	? "ok" :
				it->state == KC_MISSING ? "missing" :
							  "unknown");
			json_str(f, it->found);
			fprintf(f, ", \"series\": %s}",
				it->series ? "true" : "false");
		}
		fprintf(f,
			"\n], \"missing_required\": %d, \"missing_recommended\": %d, \"missing_series\": %d}\n",
			kc->missing_required, kc->missing_recommended,
			kc->missing_series);
		return;
	}
	fprintf(f, "kernel %s, configuration from %s\n",
		kc->release[0] ? kc->release : "(release unknown)",
		kc->config[0] ? kc->config : "nowhere");
	if (kc->config_error[0])
		fprintf(f, "  (%s)\n", kc->config_error);
	fprintf(f, "\n");
	for (i = 0; i < kc->n; i++) {
		const struct kc_item *it = &kc->items[i];

		fprintf(f, "%-8s %-20s %-12s %s: %s\n", state_name(it->state),
			it->name,
			it->required ? "required" :
			it->series   ? "series" :
				       "recommended",
			it->why, it->found[0] ? it->found : "?");
	}
	fprintf(f, "\nworkqueue.sysfs= on the kernel command line: %s\n",
		kc->cmdline_sysfs[0] ? kc->cmdline_sysfs : "(not set)");
	print_verdict(f, kc);
}

/* What the running kernel offers wqrtd and what it lacks */
int cmd_check_kernel(int argc, char **argv)
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
