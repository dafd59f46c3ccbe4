// SPDX-License-Identifier: GPL-2.0-only
/*
 * latency --why's analysis (issue 47.3): a late work item's wait charged
 * to what held its CPU, a FIFO hog first; interrupts apart from the task
 * they hit; only the workqueues asked about; what the buffer cannot tell
 * said, not guessed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "why.h"

#define US 1000ULL

static struct why_ev ev[64];
static size_t nev;

static struct why_ev *add(uint64_t us, int cpu, enum why_kind kind)
{
	struct why_ev *e = &ev[nev++];

	memset(e, 0, sizeof(*e));
	e->ts = us * US;
	e->cpu = cpu;
	e->kind = kind;
	return e;
}

static void sw(uint64_t us, int cpu, int pid, int prio, const char *comm)
{
	struct why_ev *e = add(us, cpu, WHY_SWITCH);

	e->pid = pid;
	e->prio = prio;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
}

static void queue(uint64_t us, int cpu, uint64_t work, const char *wq)
{
	struct why_ev *e = add(us, cpu, WHY_QUEUE);

	e->work = work;
	e->func = 0xabc;
	snprintf(e->wq, sizeof(e->wq), "%s", wq);
}

static void start(uint64_t us, int cpu, uint64_t work)
{
	struct why_ev *e = add(us, cpu, WHY_START);

	e->work = work;
	e->func = 0xabc;
}

static const struct why_culprit *find(const struct why_result *r,
				      const char *what)
{
	size_t i;

	for (i = 0; i < r->nculprits; i++)
		if (!strcmp(r->culprits[i].what, what))
			return &r->culprits[i];
	return NULL;
}

/* The events of a UART's flip work late behind a FIFO 50 hog on CPU 1 */
static void uart_behind_hog(void)
{
	struct why_ev *e;

	nev = 0;
	sw(0, 1, 30, 120, "kworker/u4:1");
	sw(0, 2, 0, 120, "swapper/2");
	queue(1000, 0, 0x1000, "ttyS-serial_8250");
	sw(1100, 1, 50, 49, "hog");
	e = add(1500, 1, WHY_IRQ_IN);
	e->irq = 4;
	snprintf(e->comm, sizeof(e->comm), "ttyS2");
	add(1520, 1, WHY_IRQ_OUT);
	e = add(2000, 1, WHY_SOFT_IN);
	e->irq = 1;
	add(2010, 1, WHY_SOFT_OUT);
	/* another workqueue's item, as late: not asked about */
	queue(1200, 0, 0x2000, "events_unbound");
	/* an item that is not late */
	queue(4500, 0, 0x3000, "ttyS-serial_8250");
	sw(5100, 1, 31, 120, "kworker/u4:2");
	start(5150, 1, 0x2000);
	start(5200, 1, 0x1000);
	start(5300, 1, 0x3000);
}

static void test_hog_named_first(void **state)
{
	struct {
		struct strlist wqs;
	} sel = { 0 };
	struct why_result r;
	const struct why_culprit *c;

	(void)state;
	uart_behind_hog();
	strlist_add(&sel.wqs, "ttyS-*");
	assert_int_equal(why_analyse(ev, nev, &sel.wqs, NULL, 0, 1000, &r), 0);
	assert_int_equal(r.late, 1);
	assert_int_equal(r.analysed, 1);
	/* 1100..5100 but the interrupt's 20 us and the softirq's 10 */
	assert_string_equal(r.culprits[0].what, "RT 50 hog[50]");
	assert_int_equal(r.culprits[0].ns, (4000 - 20 - 10) * US);
	assert_int_equal(r.culprits[0].items, 1);
	c = find(&r, "irq 4 ttyS2");
	assert_non_null(c);
	assert_int_equal(c->ns, 20 * US);
	c = find(&r, "softirq TIMER");
	assert_non_null(c);
	assert_int_equal(c->ns, 10 * US);
	c = find(&r, "nice 0 kworker/u4:1[30]");
	assert_non_null(c);
	assert_int_equal(c->ns, 100 * US);
	/* the idle CPU 2 delayed nothing */
	assert_null(find(&r, "idle"));
	/* the latest, step by step */
	assert_true(r.have_last);
	assert_string_equal(r.last_wq, "ttyS-serial_8250");
	assert_int_equal(r.last_cpu, 1);
	assert_int_equal(r.last_wait_ns, 4200 * US);
	assert_int_equal(r.nsteps, 7);
	assert_int_equal(r.steps[0].from_ns, 0);
	assert_int_equal(r.steps[0].ns, 100 * US);
	assert_string_equal(r.culprits[r.steps[1].culprit].what,
			    "RT 50 hog[50]");
	assert_string_equal(r.culprits[r.steps[2].culprit].what, "irq 4 ttyS2");
	assert_int_equal(r.steps[2].from_ns, 500 * US);
	why_result_free(&r);
	strlist_free(&sel.wqs);
}

/* Nothing asked: every workqueue's late items */
static void test_all_workqueues(void **state)
{
	struct why_result r;

	(void)state;
	uart_behind_hog();
	assert_int_equal(why_analyse(ev, nev, NULL, NULL, 0, 1000, &r), 0);
	assert_int_equal(r.late, 2);
	assert_int_equal(r.analysed, 2);
	assert_int_equal(r.culprits[0].items, 2);
	/* the later of the two is the latest */
	assert_string_equal(r.last_wq, "ttyS-serial_8250");
	why_result_free(&r);
}

/*
 * A CPU with no task switch in the buffer before the queueing: its
 * item is counted late, not analysed (nothing made up); a start whose
 * queueing fell out of the buffer is no item at all
 */
static void test_what_the_buffer_cannot_tell(void **state)
{
	struct why_result r;

	(void)state;
	nev = 0;
	queue(100, 0, 0x1000, "wq");
	sw(200, 3, 50, 49, "hog");
	start(5000, 3, 0x1000);
	start(5100, 3, 0x9999);
	assert_int_equal(why_analyse(ev, nev, NULL, NULL, 0, 1000, &r), 0);
	assert_int_equal(r.late, 1);
	assert_int_equal(r.analysed, 0);
	assert_false(r.have_last);
	why_result_free(&r);
	/* and an empty buffer */
	assert_int_equal(why_analyse(ev, 0, NULL, NULL, 0, 1000, &r), 0);
	assert_int_equal(r.late, 0);
	why_result_free(&r);
}

/* Events in any order; the same work queued again after its start */
static void test_unordered_and_requeued(void **state)
{
	struct why_result r;
	size_t i;

	(void)state;
	nev = 0;
	sw(0, 0, 40, 120, "a");
	queue(100, 0, 0x1000, "wq");
	sw(150, 0, 50, 89, "rt10");
	start(2100, 0, 0x1000);
	queue(2200, 0, 0x1000, "wq");
	sw(2300, 0, 60, 120, "b");
	start(2400, 0, 0x1000);
	/* reversed */
	for (i = 0; i < nev / 2; i++) {
		struct why_ev t = ev[i];

		ev[i] = ev[nev - 1 - i];
		ev[nev - 1 - i] = t;
	}
	assert_int_equal(why_analyse(ev, nev, NULL, NULL, 0, 1000, &r), 0);
	assert_int_equal(r.late, 1);
	assert_string_equal(r.culprits[0].what, "RT 10 rt10[50]");
	assert_int_equal(r.culprits[0].ns, 1950 * US);
	why_result_free(&r);
}

/*
 * PREEMPT_RT: a softirq runs in a task, and the hog preempts it there:
 * the CPU is the hog's from the switch on, not the softirq's (the VM run
 * of wqrtd_why.sh charged 215 ms to "softirq TIMER" before this)
 */
static void test_softirq_preempted(void **state)
{
	struct why_result r;
	struct why_ev *e;

	(void)state;
	nev = 0;
	sw(0, 1, 29, 120, "ksoftirqd/1");
	e = add(100, 1, WHY_SOFT_IN);
	e->irq = 1;
	queue(150, 0, 0x1000, "wq");
	sw(200, 1, 50, 49, "hog");
	sw(9000, 1, 29, 120, "ksoftirqd/1");
	add(9100, 1, WHY_SOFT_OUT);
	sw(9200, 1, 31, 120, "kworker/u4:2");
	start(9300, 1, 0x1000);
	assert_int_equal(why_analyse(ev, nev, NULL, NULL, 0, 1000, &r), 0);
	assert_int_equal(r.late, 1);
	assert_string_equal(r.culprits[0].what, "RT 50 hog[50]");
	assert_int_equal(r.culprits[0].ns, 8800 * US);
	assert_int_equal(find(&r, "softirq TIMER")->ns, 50 * US);
	why_result_free(&r);
}

/*
 * A task that changed while it ran: chrt at nice 0 made itself FIFO 50
 * and exec'ed sh (the VM run named "nice 0 chrt" first): one culprit,
 * named by the last the buffer shows, the switch away from it
 */
static void test_task_changed_while_running(void **state)
{
	struct why_result r;
	struct why_ev *e;

	(void)state;
	nev = 0;
	sw(0, 1, 31, 120, "kworker/u4:2");
	queue(100, 0, 0x1000, "wq");
	sw(200, 1, 228, 120, "chrt");
	e = add(9000, 1, WHY_SWITCH);
	e->pid = 31;
	e->prio = 120;
	snprintf(e->comm, sizeof(e->comm), "kworker/u4:2");
	e->prev_pid = 228;
	e->prev_prio = 49;
	snprintf(e->prev_comm, sizeof(e->prev_comm), "sh");
	start(9100, 1, 0x1000);
	assert_int_equal(why_analyse(ev, nev, NULL, NULL, 0, 1000, &r), 0);
	assert_string_equal(r.culprits[0].what, "RT 50 sh[228]");
	assert_int_equal(r.culprits[0].ns, 8800 * US);
	assert_null(find(&r, "nice 0 chrt[228]"));
	why_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hog_named_first),
		cmocka_unit_test(test_all_workqueues),
		cmocka_unit_test(test_what_the_buffer_cannot_tell),
		cmocka_unit_test(test_unordered_and_requeued),
		cmocka_unit_test(test_softirq_preempted),
		cmocka_unit_test(test_task_changed_while_running),
	};

	return cmocka_run_group_tests_name("why", tests, NULL, NULL);
}
