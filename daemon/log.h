/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging: structured journal entries (WQ=, PID=, ATTRIBUTE=, ERRNO=) when
 * stderr is connected to journald, plain lines on stderr otherwise.
 */
#ifndef WQRT_LOG_H
#define WQRT_LOG_H

#include <sys/types.h>
#include <syslog.h>

enum log_target { LOG_TARGET_AUTO, LOG_TARGET_STDERR, LOG_TARGET_JOURNAL };

struct log_ctx {
	const char *wq; /* or NULL */
	pid_t pid; /* or 0 */
	const char *attr; /* or NULL */
	int err; /* positive errno or 0 */
};

void log_setup(enum log_target target);
void log_set_level(int level);
int log_get_level(void);
/* "err", "warning", "notice", "info", "debug" -> LOG_*, or -1. */
int log_level_parse(const char *s);
const char *log_level_name(int level);

/* Tests capture log lines instead of printing them. */
typedef void (*log_sink_fn)(int prio, const struct log_ctx *c, const char *msg);
void log_set_sink(log_sink_fn fn);

/* The last error logged, for STATUS=. */
const char *log_last_error(void);
void log_clear_last_error(void);

void log_full(int prio, const struct log_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define LOGC(prio, ...) log_full(prio, NULL, __VA_ARGS__)
#define log_err(...) LOGC(LOG_ERR, __VA_ARGS__)
#define log_warn(...) LOGC(LOG_WARNING, __VA_ARGS__)
#define log_notice(...) LOGC(LOG_NOTICE, __VA_ARGS__)
#define log_info(...) LOGC(LOG_INFO, __VA_ARGS__)
#define log_debug(...) LOGC(LOG_DEBUG, __VA_ARGS__)

#endif
