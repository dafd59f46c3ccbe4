// SPDX-License-Identifier: GPL-2.0-only
/*
 * wqrtctl restore [--root DIR]: put back every original wqrtd saved, by
 * the daemon's own plan (plan_wq_restore(), plan_kw_restore()).
 */
#include "common.h"
#include "config.h"
#include "ctl.h"
#include "daemon.h"
#include "log.h"
#include "runstate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/*
 * Put back every original wqrtd saved (the service, or --once): a scan
 * with no rules takes them over and writes them back. Not while the
 * daemon runs: it would apply its profiles again on its next scan.
 */
int cmd_restore(int argc, char **argv)
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
			"wqrtctl: pid %d (%s) holds %s and would apply its profiles again; let it finish, or stop it\n",
			(int)holder, runstate_holder_name(holder), dir);
		return EX_TEMPFAIL;
	}
	/* without the lock, another instance could write beside it */
	if (lock < 0 && lock != -ENOENT) {
		fprintf(stderr,
			"wqrtctl: %s/" RUNSTATE_LOCK ": %s; nothing put back\n",
			dir, strerror(-lock));
		return EX_CANTCREAT;
	}
	if (access(state, F_OK)) {
		if (errno != ENOENT) {
			fprintf(stderr, "wqrtctl: %s: %s; nothing put back\n",
				state, strerror(errno));
			return EX_NOINPUT;
		}
		printf("nothing to restore: no %s\n", state);
		return 0;
	}
	cfg = config_empty("(restore)");
	if (!cfg)
		return EX_OSERR;
	sys_ops_for_root(&ops, o.root);
	daemon_init(&d, o.root, &ops, cfg);
	err = daemon_use_state(&d, state);
	if (err == -ESTALE || err == -EPERM || err == -EBADMSG) {
		/* said: another boot's, not to be trusted, a bad line */
		fprintf(stderr, "wqrtctl: %s: nothing put back; %s\n", state,
			err == -EBADMSG ?
				"the file is kept: fix or remove the line named above" :
				"remove it if it is not wqrtd's");
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
	/*
	 * The scan puts back what no rule covers (everything: the
	 * configuration is empty), the restore tries what is left once
	 * more: its failures are the values that stay in the file, each
	 * counted once
	 */
	daemon_scan(&d);
	fails = daemon_restore(&d);
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
