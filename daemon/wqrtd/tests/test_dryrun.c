// SPDX-License-Identifier: GPL-2.0-only
/*
 * --dry-run shows what --once then does: the plan printed as a diff is
 * compared with the diff of the fake tree before and after the apply;
 * and what a stop then puts back, compared with the diff of the tree
 * before and after the stop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_load.h"
#include "daemon.h"
#include "faketree.h"

static struct faketree ft;
static struct fake_ops fo;
static char state_path[300];

/* Every attribute, a restore of a dropped key, a [kworker:] rule */
static const char *conf =
	"[profile:rt]\npolicy = fifo\nrtprio = 50\nnr_idle_extra = 2\n"
	"private = yes\ncpumask = 0-1\n"
	"[wq:tty_flip]\nprofile = rt\nrtprio = 20\naffinity_scope = numa\n"
	"affinity_strict = yes\nmax_active = 8\nnice = -5\n"
	"[wq:gpu_submit]\nmax_active = 16\n"
	"[kworker:kworker/3:*]\nnice = -2\n";

static int setup(void **state)
{
	(void)state;
	ft_init(&ft);
	ft_ops_init(&fo, &ft);
	/* as the kernel does: new attributes, new pools */
	fo.new_pools = true;
	ft_capture_logs();
	ft_wq(&ft, "tty_flip", true);
	/* pool 2 is shared with events_unbound, which no rule covers */
	ft_set(&ft, "tty_flip", "pool_ids", "0:5 1:2");
	ft_wq(&ft, "events_unbound", true);
	ft_set(&ft, "events_unbound", "pool_ids", "0:2");
	/* a previous run set nice -5 on gpu_submit and nice 3 on old_wq;
	 * the rule for gpu_submit has no nice now, old_wq has no rule */
	ft_wq(&ft, "gpu_submit", true);
	ft_set(&ft, "gpu_submit", "pool_ids", "0:9");
	ft_set(&ft, "gpu_submit", "nice", "-5");
	ft_set(&ft, "gpu_submit", "max_active", "16");
	ft_wq(&ft, "old_wq", true);
	ft_set(&ft, "old_wq", "pool_ids", "0:11");
	ft_set(&ft, "old_wq", "nice", "3");
	/* ... and FIFO 7 on kworker/u7:0, which no rule covers now */
	ft_write(&ft, "/originals",
		 "gpu_submit nice 0\ngpu_submit max_active 256\n"
		 "old_wq nice 0\nkworker 104 5 0 0 0\n");
	snprintf(state_path, sizeof(state_path), "%s/originals", ft.root);
	ft_task(&ft, 100, 2, "kworker/u5:0", SCHED_OTHER, 0, 0, 1);
	ft_task(&ft, 101, 2, "kworker/u2:0", SCHED_OTHER, 0, 0, 2);
	ft_task(&ft, 102, 2, "kworker/R-tty_flip", SCHED_OTHER, 0, 0, 3);
	ft_task(&ft, 103, 2, "kworker/3:1", SCHED_OTHER, 0, 0, 4);
	ft_task(&ft, 104, 2, "kworker/u7:0", SCHED_FIFO, 7, 0, 5);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	strlist_free(&fo.writes);
	ft_clear_logs();
	ft_cleanup(&ft);
	return 0;
}

/* A daemon on the tree with the configuration text */
static void start_with(struct daemon *d, const char *text)
{
	struct strlist errs = { 0 };
	struct config *c;

	assert_int_equal(config_load(ft_conf(&ft, text), ft.root, &c, &errs),
			 0);
	daemon_init(d, ft.root, &fo.ops, c);
	strlist_free(&errs);
}

/* ... with conf, and the originals a previous run left */
static void start(struct daemon *d)
{
	start_with(d, conf);
	assert_int_equal(daemon_use_state(d, state_path), 0);
}

/* What wqrtd --dry-run prints with d (which goes), in *out */
static void dry_run(struct daemon *d, char **out)
{
	struct report rep = { .style = REPORT_DIFF };
	size_t len;

	rep.f = open_memstream(out, &len);
	daemon_dry_run(d, &rep);
	fclose(rep.f);
	daemon_free(d);
}

/* What the tree shows: every workqueue and kworker, in scan order */
struct snap {
	struct strlist wq; /* "NAME ATTR VALUE" */
	struct strlist kw; /* "PID COMM POLICY RTPRIO NICE" */
};

static int snap_wq(const char *name, void *arg)
{
	struct snap *s = arg;
	struct wq_state st;
	char val[300];
	int a;

	assert_int_equal(wq_read_state(ft.root, name, &st), 0);
	for (a = 0; a < WA_NR; a++) {
		attr_format_human(a, &st.cur, val, sizeof(val));
		strlist_add(&s->wq, "%s %s %s", name, attr_name(a), val);
	}
	return 0;
}

static int snap_kw(const struct task_info *t, void *arg)
{
	struct snap *s = arg;

	strlist_add(&s->kw, "%d %s %s %d %d", (int)t->pid, t->comm,
		    sched_policy_name(t->policy), t->rtprio, t->nice);
	return 0;
}

static void snapshot(struct snap *s)
{
	memset(s, 0, sizeof(*s));
	for_each_workqueue(ft.root, snap_wq, s);
	for_each_kworker(ft.root, snap_kw, s);
}

static void snap_free(struct snap *s)
{
	strlist_free(&s->wq);
	strlist_free(&s->kw);
}

/* The changes between two snapshots, written as the dry run writes them */
static char *changes(const struct snap *b, const struct snap *a)
{
	char name[64], attr[32], head[128] = "", comm[64];
	const char *vb, *va;
	int pid, rb, nb, ra, na;
	char polb[16], pola[16];
	size_t i, len;
	char *out;
	FILE *f = open_memstream(&out, &len);

	assert_int_equal(b->wq.n, a->wq.n);
	for (i = 0; i < b->wq.n; i++) {
		if (!strcmp(b->wq.v[i], a->wq.v[i]))
			continue;
		sscanf(b->wq.v[i], "%63s %31s", name, attr);
		vb = b->wq.v[i] + strlen(name) + strlen(attr) + 2;
		va = a->wq.v[i] + strlen(name) + strlen(attr) + 2;
		if (strncmp(head, name, sizeof(head))) {
			snprintf(head, sizeof(head), "%s", name);
			fprintf(f, "@@ wq %s @@\n", name);
		}
		fprintf(f, "-%s = %s\n+%s = %s\n", attr, vb, attr, va);
	}
	assert_int_equal(b->kw.n, a->kw.n);
	for (i = 0; i < b->kw.n; i++) {
		if (!strcmp(b->kw.v[i], a->kw.v[i]))
			continue;
		sscanf(b->kw.v[i], "%d %63s %15s %d %d", &pid, comm, polb, &rb,
		       &nb);
		sscanf(a->kw.v[i], "%*d %*s %15s %d %d", pola, &ra, &na);
		fprintf(f, "@@ %s (pid %d) @@\n-policy = %s %d\n+policy = %s %d\n",
			comm, pid, polb, rb, pola, ra);
		if (nb != na && !strcmp(pola, "normal"))
			fprintf(f, "-nice = %d\n+nice = %d\n", nb, na);
	}
	fclose(f);
	return out;
}

/*
 * The changing lines of a dry run: headers without their rule or owner,
 * "-"/"+" lines without their remarks; unchanged and skipped lines and
 * headers with nothing under them are left out.
 */
static char *planned(const char *diff)
{
	char line[700], head[700] = "";
	const char *p = diff;
	char *out, *cut;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	int n;

	while (sscanf(p, "%699[^\n]\n%n", line, &n) == 1) {
		p += n;
		if (!strncmp(line, "@@ ", 3)) {
			cut = strstr(line, "): ");
			cut = cut ? cut + 1 : strstr(line, ": ");
			snprintf(head, sizeof(head), "%.*s @@\n",
				 (int)(cut - line), line);
			continue;
		}
		if (line[0] != '-' && line[0] != '+')
			continue;
		cut = strstr(line, "  (");
		if (cut)
			*cut = '\0';
		fprintf(f, "%s%s\n", head, line);
		head[0] = '\0';
	}
	fclose(f);
	return out;
}

/*
 * The changing lines of a dry run, from plan on, are the changes from
 * snapshot b to a; the whole dry run, out, is shown when they are not.
 */
static void same_changes(const char *out, const char *plan,
			 const struct snap *b, const struct snap *a)
{
	char *planned_lines = planned(plan), *done = changes(b, a);

	if (strcmp(planned_lines, done))
		fprintf(stderr, "# dry run:\n%s# done:\n%s", out, done);
	assert_string_equal(planned_lines, done);
	free(planned_lines);
	free(done);
}

static void test_dry_run_equals_once(void **state)
{
	struct report rep = { .style = REPORT_DIFF };
	struct snap before, after;
	char *diff;
	char saved[1024];
	struct sched_val v;
	struct daemon d;
	size_t len;

	(void)state;
	snapshot(&before);
	start(&d);
	rep.f = open_memstream(&diff, &len);
	daemon_report(&d, &rep);
	fclose(rep.f);
	daemon_free(&d);
	/* the dry run wrote nothing, not even the originals file */
	assert_int_equal(fo.writes.n, 0);
	assert_int_equal(fo.sched_sets, 0);
	assert_string_equal(ft_get(&ft, "old_wq", "nice"), "3");

	start(&d);
	assert_int_equal(daemon_scan(&d), 0);
	daemon_free(&d);
	snapshot(&after);

	same_changes(diff, diff, &before, &after);

	/* and the plan is the one this test is about */
	assert_non_null(strstr(diff, "@@ wq tty_flip: [wq:tty_flip], profile rt @@\n"
				     "-private = 0\n+private = 1\n"));
	assert_non_null(strstr(diff, "-nice = -5\n+nice = 0  (original)\n"));
	assert_non_null(strstr(diff, "@@ wq old_wq: no rule, originals go back @@\n"
				     "-nice = 3\n+nice = 0  (original)\n"));
	/*
	 * Issue 16.12: pool 5 is what tty_flip uses before its policy is
	 * written, a shared one; the write gives it new pools whose workers
	 * the kernel creates with the policy. Its worker is not planned.
	 */
	assert_null(strstr(diff, "pid 100"));
	assert_non_null(strstr(diff, "(pid 102): rescuer of tty_flip @@"));
	assert_non_null(strstr(diff, "(pid 103): [kworker:kworker/3:*] @@"));
	/*
	 * Issue 30.11: the kworker a previous run changed and no rule
	 * covers now goes back, in the plan as in the apply.
	 */
	assert_non_null(strstr(diff, "@@ kworker/u7:0 (pid 104): no rule, original goes back @@\n"
				     "-policy = fifo 7\n+policy = normal 0  (original)\n"));
	fo.ops.sched_get(fo.ops.ctx, 104, &v);
	assert_int_equal(v.policy, SCHED_OTHER);
	/* the shared pool's worker runs events_unbound's work too */
	assert_null(strstr(diff, "pid 101"));
	fo.ops.sched_get(fo.ops.ctx, 101, &v);
	assert_int_equal(v.policy, SCHED_OTHER);
	/* old_wq is back: nothing of it is kept for a next instance */
	assert_int_equal(read_text(state_path, saved, sizeof(saved)), 0);
	assert_null(strstr(saved, "old_wq"));
	free(diff);
	snap_free(&before);
	snap_free(&after);
}

/*
 * Issue 48: the dry run goes on with what a stop puts back once its plan
 * is carried out, workqueue attributes and kworkers: what the stop then
 * does, from the plans it makes (plan_wq_restore(), plan_kw_restore()).
 */
static void test_dry_run_lists_stop(void **state)
{
	static const char head[] =
		"# at stop (restore_on_exit = yes), the originals go back:\n";
	struct snap applied, stopped;
	char *out, *stop;
	struct daemon d;

	(void)state;
	start(&d);
	dry_run(&d, &out);
	assert_int_equal(fo.writes.n, 0);
	assert_int_equal(fo.sched_sets, 0);
	stop = strstr(out, head);
	assert_non_null(stop);
	/* the scan's plan comes first, the same as daemon_report()'s */
	assert_non_null(strstr(out, "@@ wq tty_flip: [wq:tty_flip], profile rt @@\n"));
	assert_true(strstr(out, "@@ wq tty_flip: [wq:tty_flip]") < stop);
	/* the profile's attributes go back... */
	assert_non_null(strstr(stop, "@@ wq tty_flip: at stop, originals go back @@\n"));
	assert_non_null(strstr(stop, "-private = 1\n+private = 0  (original)\n"));
	assert_non_null(strstr(stop, "-policy = fifo\n+policy = normal  (original)\n"));
	/* ... and one a previous instance changed (max_active 256) */
	assert_non_null(strstr(stop, "@@ wq gpu_submit: at stop, originals go back @@\n"
				     "-max_active = 16\n+max_active = 256  (original)\n"));
	/* the kworkers the scan sets go back */
	assert_non_null(strstr(stop, "@@ kworker/R-tty_flip (pid 102): at stop, original goes back @@\n"
				     "-policy = fifo 20\n+policy = normal 0  (original)\n"));
	assert_non_null(strstr(stop, "@@ kworker/3:1 (pid 103): at stop, original goes back @@\n"
				     "-policy = normal 0\n+policy = normal 0  (original)\n"
				     "-nice = -2\n+nice = 0  (original)\n"));
	/* what the scan puts back already is not put back again */
	assert_null(strstr(stop, "old_wq"));
	assert_null(strstr(stop, "pid 104"));
	/* nor what the kernel gives a pool's worker */
	assert_null(strstr(stop, "pid 100"));

	/* the scan, then the stop: what the dry run said */
	start(&d);
	assert_int_equal(daemon_scan(&d), 0);
	snapshot(&applied);
	assert_int_equal(daemon_restore(&d), 0);
	daemon_free(&d);
	snapshot(&stopped);
	same_changes(out, stop, &applied, &stopped);
	free(out);
	snap_free(&applied);
	snap_free(&stopped);
}

/* restore_on_exit = no: a stop keeps the profiles; wqrtctl restore would */
static void test_dry_run_stop_keeps(void **state)
{
	struct daemon d;
	char *out;

	(void)state;
	start_with(&d, "[global]\nrestore_on_exit = no\n"
		       "[wq:tty_flip]\nnice = -3\n");
	dry_run(&d, &out);
	assert_non_null(strstr(out, "# at stop nothing goes back (restore_on_exit = no); wqrtctl restore would put back:\n"
				    "@@ wq tty_flip: at stop, originals go back @@\n"
				    "-nice = -3\n+nice = 0  (original)\n"));
	free(out);
	/* nothing to put back: said so */
	start_with(&d, "[wq:nothing_here]\nnice = -3\n");
	dry_run(&d, &out);
	assert_non_null(strstr(out, "# nothing matches the configuration\n"
				    "# at stop: nothing to put back\n"));
	free(out);
}

/* Issue 16.8: a [wq:] policy on a kernel without the series */
static void test_policy_unsupported(void **state)
{
	struct report rep = { .style = REPORT_TABLE };
	struct strlist errs = { 0 };
	struct config *c;
	struct daemon d;
	char *out;
	size_t len;

	(void)state;
	ft_cleanup(&ft);
	ft_init(&ft);
	ft_wq(&ft, "plain_wq", false);
	assert_int_equal(
		config_load(ft_conf(&ft, "[wq:plain_wq]\npolicy = fifo\n"
					 "rtprio = 20\n"),
			    ft.root, &c, &errs),
		0);
	daemon_init(&d, ft.root, &fo.ops, c);
	assert_false(d.sysfs_mode);
	rep.f = open_memstream(&out, &len);
	daemon_report(&d, &rep);
	fclose(rep.f);
	assert_true(rep.drift > 0);
	assert_non_null(strstr(out, "policy           desired fifo         actual (unsupported)"));
	free(out);
	assert_int_equal(daemon_scan(&d), 0);
	assert_true(ft_logged("plain_wq: policy and rtprio are not supported by this kernel"));
	daemon_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dry_run_equals_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_lists_stop, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dry_run_stop_keeps, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_policy_unsupported, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("dryrun", tests, NULL, NULL);
}
