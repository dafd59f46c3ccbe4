/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the running system says about a good configuration, as warnings:
 * a high rtprio on a glob while RT throttling is off; a section that
 * matches nothing now, and why where it can be told from the inventory
 * (a workqueue seen in /proc only is per-cpu or needs workqueue.sysfs=, a
 * name close to one in sysfs is a typo).
 */
#ifndef WQRT_CONFIG_WARN_H
#define WQRT_CONFIG_WARN_H

#include "config.h"

/* The warnings about c of the system under root, added to c->warnings */
void config_warn(const char *root, struct config *c);

#endif
