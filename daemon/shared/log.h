/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Logging: structured journal entries (WQ=, OBJECT_PID=, ATTRIBUTE=,
 * ERRNO=, MESSAGE_ID=) when stderr is connected to journald or wqrtd runs
 * detached, plain lines on stderr otherwise (with a timestamp and the pid
 * for a daemon in the foreground), syslog(3) when detached on a system
 * without journald.
 */
#ifndef WQRT_LOG_H
#define WQRT_LOG_H

#include <stdbool.h>
#include <sys/types.h>
#include <syslog.h>

enum log_target { LOG_TARGET_AUTO, LOG_TARGET_STDERR, LOG_TARGET_JOURNAL };

/*
 * The journal's MESSAGE_ID= of the messages a tool or a person looks
 * for (journalctl MESSAGE_ID=...); fixed forever, documented in wqrtd(8).
 */
enum log_msgid {
	MSGID_NONE,
	MSGID_APPLIED, /* a value was written to a workqueue or a kworker */
	MSGID_RESTORED, /* an original value was put back */
	MSGID_FAILED, /* a change failed (the default of LOG_ERR and worse
			 about a workqueue or a kworker) */
};
#define WQRT_MSGID_APPLIED "4a77acf3c6c54d55addb138466507a34"
#define WQRT_MSGID_RESTORED "e42440929e80421686800f7253a62af0"
#define WQRT_MSGID_FAILED "e61ebb32e5ef433589d661670449360b"

struct log_ctx {
	const char *wq; /* or NULL */
	pid_t pid; /* the kworker it is about (OBJECT_PID=), or 0 */
	const char *attr; /* or NULL */
	int err; /* positive errno or 0 */
	enum log_msgid msgid;
};

void log_setup(enum log_target target);
/*
 * Lines on stderr start with the local time and "NAME[PID]:", as a
 * daemon's log reads without journald (wqrtd --foreground).
 */
void log_set_timestamps(bool on);
/* The MESSAGE_ID= of c: its msgid, or the default for prio; NULL: none */
const char *log_msgid(int prio, const struct log_ctx *c);
/*
 * The journal fields of one message into fields[n][600]; returns n.
 * (What to_journal() sends; the unit tests read it.)
 */
#define LOG_FIELDS_MAX 8
int log_journal_fields(int prio, const struct log_ctx *c, const char *msg,
		       char fields[LOG_FIELDS_MAX][600]);
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
