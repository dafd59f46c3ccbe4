/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracefs's manners on a fake root's plain files, for wqrtd --root and
 * wqrtctl --root (the tests' tracing directories): the fake root's
 * trace_write and rmdir (sysops.h says what they play).
 */
#ifndef WQRT_TRACEFAKE_H
#define WQRT_TRACEFAKE_H

int fake_trace_write(void *ctx, const char *path, const char *text);
int fake_rmdir(void *ctx, const char *path);

#endif
