/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * RT-safety advice for wqrtctl check and check-kernel: what can go wrong
 * when a workqueue runs real-time, read from the system under root:
 *
 *  - a profile's priority at or above the threaded IRQ handler of the
 *    device whose work the workqueue runs (irq/N-NAME, NAME a
 *    /proc/irq/N/ action that the workqueue's name starts with, as the
 *    tty flip workqueue "ttyS-serial_8250" and the handler of ttyS0): the work
 *    should run after the handler that queued it;
 *  - such a workqueue's CPUs (its rule's cpumask, else sysfs) beyond
 *    those the handlers' interrupts are delivered to
 *    (/proc/irq/N/effective_affinity_list): there, its work waits for a
 *    wakeup from another CPU; the UART recipe of seed 004 binds it to them;
 *  - RT throttling (sched_rt_runtime_us) and stalld: with throttling off
 *    and no stalld, a looping RT work item starves its CPUs; with it on,
 *    a busy RT profile is stopped for the rest of each period;
 *  - a profile's cpumask on CPUs isolated with isolcpus= or nohz_full=;
 *  - a reserve (nr_idle_extra) or private pools asked of a kernel without
 *    the series, which then cannot give them.
 *
 * Each piece of advice is one line, "warning: ..." or "note: ...".
 */
#ifndef WQRT_ADVICE_H
#define WQRT_ADVICE_H

#include <stdio.h>

#include "config.h"
#include "util.h"

/* The system's: RT throttling and stalld, isolated CPUs */
void advice_system(const char *root, struct strlist *out);
/* Each rule of cfg against the system (cfg may be NULL: nothing) */
void advice_config(const char *root, const struct config *cfg,
		   struct strlist *out);
/* Both, under a heading; nothing when there is no advice */
void advice_print(const char *root, const struct config *cfg, FILE *f);

#endif
