// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtd: options, and the sd-event glue around the daemon core: signals,
 * netlink sockets, the rescan timer, sd_notify and the watchdog.
 */
#include "common.h"
#include "config_load.h"
#include "daemon.h"
#include "log.h"
#include "netlink.h"
#include "runstate.h"
#include "timing.h"
#include "tracedir.h"
#include "trial.h"
#include "watch.h"

#include <errno.h>
#include <getopt.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-login.h>
#include <unistd.h>

#define USEC_PER_SEC 1000000ULL

struct opts {
	const char *conf;
	const char *root;
	const char *timing; /* --timing FILE, or NULL */
	bool check, dry_run, once, foreground;
};

struct ctx {
	struct daemon d;
	char run_dir[WQRT_PATH_MAX]; /* originals and what it publishes */
	int lock; /* the fd that holds RUN_DIR/lock, or -1 */
	unsigned int published; /* runstate_publish()'s generation */
	struct nlw nl;
	struct opts o;
	struct sys_ops ops;
	sd_event *ev;
	sd_event_source *rescan;
	struct watch w; /* what to do about events, and when (watch.c) */
	sd_event_source *tick; /* armed for watch_next() */
	struct timing tm; /* --timing: fork -> verified per kworker */
	char trial[TRIAL_NAME_MAX]; /* the trial file in force, or "" */
	sd_event_source *trial_owner; /* its owner's pidfd: it exits */
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: wqrtd [OPTION]...\n"
		"Apply real-time profiles from " WQRT_DEFAULT_CONF
		" to workqueues and kworkers,\n"
		"and keep them applied as kworkers and workqueues come and go.\n\n"
		"  -c, --config FILE  configuration file (default " WQRT_DEFAULT_CONF
		")\n"
		"      --check        validate the configuration and exit\n"
		"      --dry-run      print the plan as a diff, change nothing\n"
		"      --once         apply, then exit (74 if a change failed)\n"
		"      --foreground   do not detach (the default under systemd)\n"
		"      --root DIR     prefix every /sys and /proc path with DIR\n"
		"      --timing FILE  append \"PID FORK_NS DONE_NS RESULT COMM\" for each new\n"
		"                     kworker a rule covers, once its policy is verified\n"
		"  -h, --help         this help\n"
		"      --version      print the version\n\n"
		"Exit status: 0 ok, 64 usage, 65 the originals file cannot be used,\n"
		"71 system error, 73 the --timing file or the runtime directory cannot\n"
		"be made, 74 a change failed, 75 another wqrtd runs, 77 not root,\n"
		"78 configuration error (see wqrtd(8)).\n");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum { O_CHECK = 256, O_DRY, O_ONCE, O_FG, O_ROOT, O_TIMING, O_VERSION };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, O_CHECK },
		{ "dry-run", no_argument, NULL, O_DRY },
		{ "once", no_argument, NULL, O_ONCE },
		{ "foreground", no_argument, NULL, O_FG },
		{ "root", required_argument, NULL, O_ROOT },
		{ "timing", required_argument, NULL, O_TIMING },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ 0 },
	};
	struct stat st;
	int c;

	o->conf = WQRT_DEFAULT_CONF;
	o->root = "/";
	while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->conf = optarg;
			break;
		case O_CHECK:
			o->check = true;
			break;
		case O_DRY:
			o->dry_run = true;
			break;
		case O_ONCE:
			o->once = true;
			break;
		case O_FG:
			o->foreground = true;
			break;
		case O_ROOT:
			o->root = root_canon(optarg);
			break;
		case O_TIMING:
			o->timing = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("wqrtd %s\n", WQRT_VERSION);
			exit(0);
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "wqrtd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return EX_USAGE;
	}
	/* one of them at most: each is a different run (wqrtd(8)) */
	if (o->check + o->dry_run + o->once > 1) {
		fprintf(stderr,
			"wqrtd: --check, --dry-run and --once are exclusive; given:%s%s%s\n",
			o->check ? " --check" : "",
			o->dry_run ? " --dry-run" : "",
			o->once ? " --once" : "");
		usage(stderr);
		return EX_USAGE;
	}
	errno = 0;
	if (stat(o->root, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "wqrtd: --root %s: %s\n", o->root,
			errno ? strerror(errno) : "not a directory");
		return EX_USAGE;
	}
	return 0;
}

/*
 * The runtime directory: the first of $RUNTIME_DIRECTORY (the unit's
 * RuntimeDirectory=wqrtd), else ROOT/run/wqrtd, made if create is set.
 * 0, or -1 with errno set.
 */
static int run_dir(const struct opts *o, char *buf, size_t size, bool create)
{
	const char *dirs = getenv("RUNTIME_DIRECTORY");
	int n;

	if (dirs && *dirs)
		n = snprintf(buf, size, "%.*s", (int)strcspn(dirs, ":"), dirs);
	else if (path_fmt(buf, size, o->root, WQRT_RUN_DIR))
		n = size;
	else
		n = strlen(buf);
	if (n >= (int)size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	n = create ? mkdir_p(buf, 0755) : 0;
	if (n) {
		errno = -n;
		return -1;
	}
	return 0;
}

/*
 * The originals: read (a previous instance's, to put back) and, but for
 * --dry-run, written before every change, so that wqrtctl restore can
 * undo the service and --once alike. --dry-run reads them too: its plan
 * shows what would be put back, as the apply would. A change whose
 * original cannot be kept is not made: no runtime directory, or a file
 * there that cannot be read or trusted, changes nothing (another boot's
 * file means nothing now: it is replaced). 0, or the exit status.
 */
static int use_originals(struct ctx *c)
{
	static char state[WQRT_PATH_MAX + 16];
	int err;

	if (run_dir(&c->o, c->run_dir, sizeof(c->run_dir), !c->o.dry_run)) {
		if (c->o.dry_run) {
			log_warn("%s: %s; the plan cannot show what would be put back",
				 c->run_dir, strerror(errno));
			return 0;
		}
		log_err("%s: %s; the originals cannot be kept, so nothing is changed",
			c->run_dir, strerror(errno));
		return EX_CANTCREAT;
	}
	/* one instance holds them; --dry-run only reads */
	if (!c->o.dry_run) {
		pid_t holder;
		int fd = runstate_lock(c->run_dir, &holder);

		if (fd == -EWOULDBLOCK) {
			log_err("pid %d (%s) holds %s, the originals of what it changed: nothing is changed beside it (wqrtctl status shows a running wqrtd; --dry-run and --check still work)",
				(int)holder, runstate_holder_name(holder),
				c->run_dir);
			return EX_TEMPFAIL;
		}
		if (fd < 0) {
			log_err("%s/" RUNSTATE_LOCK ": %s; nothing is changed",
				c->run_dir, strerror(-fd));
			return EX_CANTCREAT;
		}
		c->lock = fd;
	}
	snprintf(state, sizeof(state), "%s/originals", c->run_dir);
	err = daemon_use_state(&c->d, state);
	if (err && err != -ESTALE && !c->o.dry_run) {
		/* untrusted, or a line that cannot be read: said already */
		if (err != -EPERM && err != -EBADMSG)
			log_err("%s: %s", state, strerror(-err));
		log_err("%s: its originals cannot be used, and would be lost: nothing is changed (see wqrtd(8), FILES)",
			state);
		return EX_DATAERR;
	}
	if (err && err != -EPERM && err != -ESTALE && err != -EBADMSG)
		log_warn("%s: %s", state, strerror(-err));
	/* --dry-run: read, never written */
	if (c->o.dry_run)
		c->d.state.path = NULL;
	return 0;
}

static void notify_status(struct ctx *c)
{
	const char *err = log_last_error();

	sd_notifyf(
		0,
		"STATUS=%s: %zu workqueue(s) profiled, %zu kworker(s) tracked%s%s",
		daemon_mode_name(&c->d), c->d.nwqs, c->d.nkws,
		*err ? "; last error: " : "", err);
}

/*
 * What wqrtctl latency, who and try runs that are gone (killed) left in
 * tracefs, taken out: their triggers keep the workqueue tracepoints live
 * for every work item of the system (tracedir.h)
 */
static void clean_traces(struct ctx *c)
{
	struct strlist errors = { 0 };
	char dir[WQRT_PATH_MAX];
	int removed;
	size_t i;

	if (tracedir_find(c->o.root, dir, sizeof(dir)))
		return;
	tracedir_clean(&c->ops, dir, 0, &removed, &errors);
	for (i = 0; i < errors.n; i++)
		log_warn("%s", errors.v[i]);
	strlist_free(&errors);
	if (removed)
		log_notice("%s: took out %d tracefs instance(s) and synthetic event(s) that wqrtctl runs now gone left",
			   dir, removed);
}

static int on_trial_owner(sd_event_source *s, int fd, uint32_t revents,
			  void *arg);

/* Stop holding the trial c->trial (its file is gone, or its owner) */
static void trial_drop(struct ctx *c, const char *why)
{
	int fails;

	if (!c->trial[0])
		return;
	c->trial_owner = sd_event_source_disable_unref(c->trial_owner);
	log_notice("%s/%s: %s: its trial is taken out", c->run_dir, c->trial,
		   why);
	c->trial[0] = '\0';
	fails = trial_apply(&c->d, NULL);
	if (fails)
		log_warn("%d change(s) failed putting back after the trial",
			 fails);
}

/*
 * Hold the trial of wqrtctl try named name, owned by the live process
 * owner: load it, watch the owner's exit, lay it over the configuration.
 */
static void trial_take(struct ctx *c, const char *name, pid_t owner)
{
	struct strlist errors = { 0 };
	char path[WQRT_PATH_MAX + TRIAL_NAME_MAX];
	struct config *t;
	size_t i;
	int fd, r;

	snprintf(path, sizeof(path), "%s/%s", c->run_dir, name);
	if (trial_load(path, c->o.root, &t, &errors)) {
		for (i = 0; i < errors.n; i++)
			log_err("%s", errors.v[i]);
		log_err("%s: not a trial wqrtd takes: removed", path);
		strlist_free(&errors);
		unlink(path);
		return;
	}
	strlist_free(&errors);
	fd = syscall(SYS_pidfd_open, owner, 0);
	if (fd < 0) {
		log_notice("%s: its wqrtctl try (pid %d) is gone: removed", path,
			   (int)owner);
		unlink(path);
		config_free(t);
		return;
	}
	r = sd_event_add_io(c->ev, &c->trial_owner, fd, EPOLLIN,
			    on_trial_owner, c);
	if (r < 0) {
		/* unwatched, a killed try would stay until the next rescan */
		log_err("%s: cannot watch its owner (pid %d): %s; not taken",
			path, (int)owner, strerror(-r));
		close(fd);
		config_free(t);
		return;
	}
	sd_event_source_set_io_fd_own(c->trial_owner, true);
	snprintf(c->trial, sizeof(c->trial), "%s", name);
	log_notice("%s: trial of wqrtctl try (pid %d) laid over [%s]", path,
		   (int)owner, t->rules[0].section);
	r = trial_apply(&c->d, t);
	if (r < 0)
		trial_drop(c, strerror(-r));
	else if (r)
		log_warn("%d change(s) of the trial failed", r);
}

/*
 * Make what wqrtd holds follow the trial files of its runtime directory:
 * those whose wqrtctl try is gone removed, the one in force held, and
 * what it holds told in trial-held.
 */
static void trial_sync(struct ctx *c)
{
	struct strlist removed = { 0 }, errors = { 0 };
	char live[TRIAL_NAME_MAX];
	pid_t owner;
	size_t i;
	int n, err;

	n = trial_scan(c->run_dir, live, sizeof(live), &owner, &removed,
		       &errors);
	for (i = 0; i < removed.n; i++)
		log_notice("%s: its wqrtctl try is gone: removed",
			   removed.v[i]);
	for (i = 0; i < errors.n; i++)
		log_warn("%s", errors.v[i]);
	strlist_free(&removed);
	strlist_free(&errors);
	if (n < 0 && n != -ENOENT)
		log_warn("%s: %s; trials are not looked at", c->run_dir,
			 strerror(-n));
	if (n > 1)
		log_warn("%s: %d trials of live wqrtctl try runs: only %s is held",
			 c->run_dir, n, live);
	if (strcmp(live, c->trial)) {
		trial_drop(c, live[0] ? "another trial comes" :
					"its wqrtctl try ended or is gone");
		if (live[0])
			trial_take(c, live, owner);
	}
	err = trial_held_write(c->run_dir, c->trial[0] ? c->trial : NULL);
	if (err)
		log_warn("%s/" TRIAL_HELD ": %s; a wqrtctl try waits for it in vain",
			 c->run_dir, strerror(-err));
}

static int on_trial_owner(sd_event_source *s, int fd, uint32_t revents,
			  void *arg)
{
	struct ctx *c = arg;

	(void)s, (void)fd, (void)revents;
	trial_sync(c);
	notify_status(c);
	return 0;
}

/* SIGUSR1: wqrtctl try added or removed its trial */
static int on_usr1(sd_event_source *s, const struct signalfd_siginfo *si,
		   void *arg)
{
	(void)s, (void)si;
	return on_trial_owner(NULL, -1, 0, arg);
}

static void scan(struct ctx *c, const char *why)
{
	int fails;

	log_debug("scan (%s)", why);
	clean_traces(c);
	if (!c->o.dry_run)
		trial_sync(c);
	fails = daemon_scan(&c->d);
	if (fails)
		log_warn("%d change(s) failed during %s scan", fails, why);
	watch_scanned(&c->w);
	notify_status(c);
}

static uint64_t now_usec(struct ctx *c)
{
	uint64_t now;

	sd_event_now(c->ev, CLOCK_MONOTONIC, &now);
	return now;
}

/* The one timer of watch.c's retries, rescans and settles */
static void arm_tick(struct ctx *c)
{
	uint64_t at = watch_next(&c->w);

	if (at == WATCH_NEVER) {
		sd_event_source_set_enabled(c->tick, SD_EVENT_OFF);
		return;
	}
	sd_event_source_set_time(c->tick, at);
	sd_event_source_set_enabled(c->tick, SD_EVENT_ONESHOT);
}

static int on_tick(sd_event_source *s, uint64_t usec, void *arg)
{
	struct ctx *c = arg;

	(void)s, (void)usec;
	watch_run(&c->w, now_usec(c));
	arm_tick(c);
	notify_status(c);
	return 0;
}

static void on_overrun(void *arg)
{
	struct ctx *c = arg;

	watch_overrun(&c->w, now_usec(c));
	arm_tick(c);
}

static void on_task(void *arg, pid_t pid, uint64_t fork_ns)
{
	struct ctx *c = arg;

	timing_fork(&c->tm, pid, fork_ns);

	/* STATUS= follows on the next tick or scan: not a message per fork */
	watch_task(&c->w, pid, now_usec(c));
	arm_tick(c);
}

/* A kernel thread exited: forget it, it will not be back */
static void on_exit_task(void *arg, pid_t pid)
{
	struct ctx *c = arg;

	watch_exit(&c->w, pid);
	timing_exit(&c->tm, pid);
}

static void on_judged(void *arg, pid_t pid, const char *comm, int result)
{
	struct ctx *c = arg;

	timing_done(&c->tm, pid, comm, result);
}

static void on_wq(void *arg, const char *name)
{
	struct ctx *c = arg;

	watch_wq(&c->w, name, now_usec(c));
	arm_tick(c);
	notify_status(c);
}

static int on_proc(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct ctx *c = arg;

	(void)s, (void)fd, (void)revents;
	nlw_proc_receive(&c->nl);
	return 0;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *arg)
{
	struct ctx *c = arg;

	(void)s, (void)fd, (void)revents;
	nlw_uevent_receive(&c->nl);
	return 0;
}

static int on_timer(sd_event_source *s, uint64_t usec, void *arg)
{
	struct ctx *c = arg;
	unsigned int iv = c->d.cfg->rescan_interval;

	if (iv) {
		sd_event_source_set_time(s, usec + iv * USEC_PER_SEC);
		sd_event_source_set_enabled(s, SD_EVENT_ON);
	} else {
		sd_event_source_set_enabled(s, SD_EVENT_OFF);
	}
	scan(c, "periodic");
	return 0;
}

static void arm_timer(struct ctx *c)
{
	unsigned int iv = c->d.cfg->rescan_interval;
	uint64_t now;

	if (!iv) {
		sd_event_source_set_enabled(c->rescan, SD_EVENT_OFF);
		return;
	}
	sd_event_now(c->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(c->rescan, now + iv * USEC_PER_SEC);
	sd_event_source_set_enabled(c->rescan, SD_EVENT_ON);
}

/* Say what configuration this daemon holds now, for wqrtctl status */
static void publish(struct ctx *c)
{
	int err = runstate_publish(c->run_dir, c->d.cfg, &c->published);

	if (err)
		log_warn("%s: %s; wqrtctl status cannot ask this daemon",
			 c->run_dir, strerror(-err));
}

static int on_hup(sd_event_source *s, const struct signalfd_siginfo *si,
		  void *arg)
{
	struct ctx *c = arg;

	struct timespec now;

	(void)s, (void)si;
	/* systemd >= 253 pairs RELOADING=1 with the time it was sent */
	clock_gettime(CLOCK_MONOTONIC, &now);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)now.tv_sec * USEC_PER_SEC +
			   now.tv_nsec / 1000);
	log_clear_last_error();
	if (daemon_reload(&c->d, c->o.conf) == 0) {
		arm_timer(c);
		publish(c);
	}
	sd_notify(0, "READY=1");
	notify_status(c);
	return 0;
}

#define SYSTEMD "org.freedesktop.systemd1"

/* systemd's bus: its private socket (as systemctl, without D-Bus), or D-Bus */
static sd_bus *systemd_bus(void)
{
	sd_bus *bus = NULL;

	if (sd_bus_new(&bus) >= 0 &&
	    sd_bus_set_address(bus, "unix:path=/run/systemd/private") >= 0 &&
	    sd_bus_start(bus) >= 0)
		return bus;
	sd_bus_unref(bus);
	bus = NULL;
	if (sd_bus_open_system(&bus) >= 0)
		return bus;
	return NULL;
}

/*
 * Does systemd stop this service to start it again: the job queued on
 * the unit is a restart (systemctl restart, try-restart, and the Debian
 * package's upgrade, whose postinst restarts it)? Asked at SIGTERM: the
 * job is a restart until its stop half is done. false when anything is
 * unsure (no systemd, no answer): a stop puts the originals back.
 */
static bool stopping_for_restart(void)
{
	sd_bus_error error = SD_BUS_ERROR_NULL;
	char *unit = NULL, *path = NULL, *type = NULL;
	sd_bus_message *reply = NULL;
	const char *job;
	bool restart = false;
	sd_bus *bus = NULL;
	uint32_t id;

	if (!getenv("INVOCATION_ID") || sd_pid_get_unit(0, &unit) < 0)
		return false;
	bus = systemd_bus();
	if (!bus || sd_bus_path_encode("/org/freedesktop/systemd1/unit", unit,
				       &path) < 0)
		goto out;
	sd_bus_set_method_call_timeout(bus, 5 * USEC_PER_SEC);
	if (sd_bus_get_property(bus, SYSTEMD, path, SYSTEMD ".Unit", "Job",
				&error, &reply, "(uo)") < 0 ||
	    sd_bus_message_read(reply, "(uo)", &id, &job) < 0 || !id)
		goto out;
	if (sd_bus_get_property_string(bus, SYSTEMD, job, SYSTEMD ".Job",
				       "JobType", &error, &type) >= 0)
		restart = !strcmp(type, "restart");
out:
	if (sd_bus_error_is_set(&error))
		log_debug("asking systemd for %s's job: %s", unit, error.message);
	sd_bus_error_free(&error);
	sd_bus_message_unref(reply);
	sd_bus_unref(bus);
	free(type);
	free(path);
	free(unit);
	return restart;
}

/*
 * A restart keeps the profiles in force: the next wqrtd takes the
 * originals over (RuntimeDirectoryPreserve=yes keeps them) and finds
 * nothing to change. Unless it will not start: a configuration with
 * errors now puts everything back, as a stop would.
 */
static bool keep_for_restart(struct ctx *c)
{
	struct config *cfg;

	if (!stopping_for_restart())
		return false;
	if (config_load_report(c->o.conf, c->o.root, &cfg,
			       "the next wqrtd will not start")) {
		log_notice("stopping for a restart: putting the originals back, as the next wqrtd will not start");
		return false;
	}
	config_free(cfg);
	log_notice("stopping for a restart: the profiles stay in force, and %s/originals keeps what to put back for the next wqrtd",
		   c->run_dir);
	return true;
}

static int on_term(sd_event_source *s, const struct signalfd_siginfo *si,
		   void *arg)
{
	struct ctx *c = arg;

	(void)s;
	sd_notify(0, "STOPPING=1");
	log_info("signal %u: stopping", si->ssi_signo);
	if (c->d.cfg->restore_on_exit && !keep_for_restart(c)) {
		int fails = daemon_restore(&c->d);

		if (fails) {
			/* the exit status says so: what is left is in the file */
			log_err("%d original(s) could not be put back; %s/originals keeps them for wqrtctl restore",
				fails, c->run_dir);
			return sd_event_exit(c->ev, EX_IOERR);
		}
		log_info("restored original settings");
	}
	return sd_event_exit(c->ev, 0);
}

static int setup_loop(struct ctx *c)
{
	int r;

	r = sd_event_default(&c->ev);
	if (r < 0)
		return r;
	r = sd_event_add_signal(c->ev, NULL, SIGHUP | SD_EVENT_SIGNAL_PROCMASK,
				on_hup, c);
	if (r >= 0)
		r = sd_event_add_signal(c->ev, NULL,
					SIGTERM | SD_EVENT_SIGNAL_PROCMASK,
					on_term, c);
	if (r >= 0)
		r = sd_event_add_signal(c->ev, NULL,
					SIGINT | SD_EVENT_SIGNAL_PROCMASK,
					on_term, c);
	if (r >= 0)
		r = sd_event_add_signal(c->ev, NULL,
					SIGUSR1 | SD_EVENT_SIGNAL_PROCMASK,
					on_usr1, c);
	if (r >= 0)
		r = sd_event_add_time(c->ev, &c->rescan, CLOCK_MONOTONIC,
				      UINT64_MAX, USEC_PER_SEC / 10, on_timer,
				      c);
	if (r >= 0)
		r = sd_event_add_time(c->ev, &c->tick, CLOCK_MONOTONIC,
				      UINT64_MAX, 1000, on_tick, c);
	if (r < 0)
		return r;
	sd_event_source_set_enabled(c->tick, SD_EVENT_OFF);
	watch_init(&c->w, &c->d);
	/* WATCHDOG=1 at half of WatchdogSec=, when the unit asks for it */
	sd_event_set_watchdog(c->ev, true);

	c->nl.on_task = on_task;
	c->nl.on_exit = on_exit_task;
	c->nl.on_wq = on_wq;
	c->nl.on_overrun = on_overrun;
	c->nl.arg = c;
	if (strcmp(c->o.root, "/")) {
		log_info("--root %s: not listening to netlink; rescans only",
			 c->o.root);
		return 0;
	}
	if (nlw_open_proc(&c->nl) == 0)
		r = sd_event_add_io(c->ev, NULL, nlw_proc_fd(&c->nl), EPOLLIN,
				    on_proc, c);
	else
		log_warn(
			"no proc connector: new kworkers are found by the periodic rescan only");
	if (r >= 0 && nlw_open_uevent(&c->nl) == 0)
		r = sd_event_add_io(c->ev, NULL, nlw_uevent_fd(&c->nl), EPOLLIN,
				    on_uevent, c);
	else if (r >= 0)
		log_warn(
			"no uevents: new workqueues are found by the periodic rescan only");
	return r;
}

/*
 * Give up capability cap for good: the effective, permitted, inheritable
 * and ambient sets (the bounding set too where CAP_SETPCAP allows; the
 * unit's has none, and NoNewPrivileges= keeps an exec from getting it
 * back). 0 or -errno.
 */
static int drop_capability(int cap)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];
	uint32_t bit = 1u << (cap % 32);

	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[cap / 32].effective &= ~bit;
	d[cap / 32].permitted &= ~bit;
	d[cap / 32].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d))
		return -errno;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, cap, 0, 0);
	prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	return 0;
}

static int run_daemon(struct ctx *c)
{
	int r;

	/* before daemon(), which changes to / (a relative FILE) */
	if (c->o.timing) {
		r = timing_open(&c->tm, c->o.timing);
		if (r < 0) {
			log_err("--timing %s: %s", c->o.timing, strerror(-r));
			return EX_CANTCREAT;
		}
		c->d.kw_judged = on_judged;
		c->d.kw_judged_arg = c;
		log_info("--timing: fork -> verified of new kworkers to %s",
			 c->o.timing);
	}
	if (!c->o.foreground && !getenv("NOTIFY_SOCKET")) {
		if (daemon(0, 0) < 0) {
			log_err("daemon(): %s", strerror(errno));
			return EX_OSERR;
		}
		/* the child holds the lock now: it names itself */
		if (c->lock >= 0)
			runstate_lock_owner(c->lock);
	}
	r = setup_loop(c);
	if (r < 0) {
		log_err("event loop setup: %s", strerror(-r));
		return EX_OSERR;
	}
	/*
	 * CAP_NET_ADMIN was for the proc connector's subscription and the
	 * receive buffers past net.core.rmem_max: both are done.
	 */
	r = drop_capability(CAP_NET_ADMIN);
	if (r)
		log_warn("cannot drop CAP_NET_ADMIN: %s", strerror(-r));
	publish(c);
	/* listen first, then scan: nothing born in between is missed */
	scan(c, "initial");
	arm_timer(c);
	sd_notify(0, "READY=1");
	/* READY=1 for whoever reads the log: listening, first scan applied */
	log_notice("ready: netlink sockets open, initial scan done");
	notify_status(c);
	r = sd_event_loop(c->ev);
	c->trial_owner = sd_event_source_disable_unref(c->trial_owner);
	trial_held_write(c->run_dir, NULL);
	watch_free(&c->w);
	runstate_clear(c->run_dir);
	nlw_close(&c->nl);
	sd_event_source_unref(c->rescan);
	sd_event_source_unref(c->tick);
	sd_event_unref(c->ev);
	timing_close(&c->tm);
	/* sd_event_exit()'s code: a put-back at stop that failed */
	return r < 0 ? EX_OSERR : r;
}

int main(int argc, char **argv)
{
	struct ctx c = { .lock = -1 };
	struct config *cfg;
	int r;

	r = parse_opts(argc, argv, &c.o);
	if (r)
		return r;
	/*
	 * Changing workqueues and kworkers needs root; as a user every write
	 * would fail with EACCES, and be reported as something else. A fake
	 * root (--root) is the user's own; --check and --dry-run only read.
	 */
	if (!c.o.check && !c.o.dry_run && !strcmp(c.o.root, "/") &&
	    geteuid() != 0) {
		fprintf(stderr,
			"wqrtd: needs root to change workqueue attributes and kworker policies (run it as root, or as the service: systemctl start wqrtd); --check and --dry-run work as a user\n");
		return EX_NOPERM;
	}
	log_setup(c.o.foreground || c.o.check || c.o.dry_run || c.o.once ||
				  getenv("NOTIFY_SOCKET") ?
			  LOG_TARGET_AUTO :
			  LOG_TARGET_JOURNAL);
	if (config_load_report(c.o.conf, c.o.root, &cfg, "nothing changed"))
		return EX_CONFIG;
	if (c.o.check) {
		char dirs[2 * WQRT_PATH_MAX + 8];

		printf("%s: ok", c.o.conf);
		if (cfg->nsources > 1)
			printf(" (with %zu drop-in(s) from %s)",
			       cfg->nsources - 1,
			       config_dropin_dirs(cfg, dirs, sizeof(dirs)));
		printf("\n");
		config_free(cfg);
		return 0;
	}
	log_set_level(cfg->log_level);
	sys_ops_for_root(&c.ops, c.o.root);
	daemon_init(&c.d, c.o.root, &c.ops, cfg);
	/*
	 * The originals: read (a previous instance's, to put back) and, but
	 * for --dry-run, written before every change, so that wqrtctl restore
	 * can undo the service and --once alike. --dry-run reads them too:
	 * its plan shows what would be put back, as the apply would.
	 */
	r = use_originals(&c);
	if (r) {
		daemon_free(&c.d);
		return r;
	}
	log_notice(
		"%s: %s", daemon_mode_name(&c.d),
		c.d.sysfs_mode ?
			"the kernel has workqueue policy/rtprio attributes" :
			"no policy attribute; policy/rtprio go to matching kworkers with sched_setattr()");
	if (c.o.dry_run) {
		struct report rep = { .style = REPORT_DIFF, .f = stdout };

		daemon_dry_run(&c.d, &rep);
		r = 0;
	} else if (c.o.once) {
		clean_traces(&c);
		r = daemon_scan(&c.d) ? EX_IOERR : 0;
	} else {
		/* a daemon's log on stderr (--foreground, no journald) */
		log_set_timestamps(true);
		r = run_daemon(&c);
	}
	daemon_free(&c.d);
	return r;
}
