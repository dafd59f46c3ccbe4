/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The wqrtctl commands that look at the running kernel through tracefs:
 * latency, who and try (ctl_trace.c, try.c), and what they share: ending
 * on SIGINT, SIGTERM and SIGHUP with everything put back first.
 */
#ifndef WQRT_CTL_TRACE_H
#define WQRT_CTL_TRACE_H

#include <signal.h>
#include <stdbool.h>

/* Set by SIGINT, SIGTERM or SIGHUP once ctl_catch_signals() ran */
extern volatile sig_atomic_t ctl_stop;
void ctl_catch_signals(void);
/* Sleep up to seconds; false when a signal asked to stop first */
bool ctl_sleep(double seconds);

int cmd_latency(int argc, char **argv);
int cmd_who(int argc, char **argv);
int cmd_try(int argc, char **argv);

#endif
