// SPDX-License-Identifier: GPL-2.0-only
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

static int max_level = LOG_INFO;
static bool use_journal;
static bool use_syslog;
static bool timestamps;
static log_sink_fn sink;
static char last_error[512];

static const char *const level_names[] = {
	[LOG_ERR] = "err",   [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
	[LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

/* $JOURNAL_STREAM is "DEV:INODE" of the stream journald gave us. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
		return false;
	if (fstat(STDERR_FILENO, &st) < 0)
		return false;
	return st.st_dev == dev && st.st_ino == ino;
}

void log_setup(enum log_target target)
{
	use_journal = target == LOG_TARGET_JOURNAL ||
		      (target == LOG_TARGET_AUTO && stderr_is_journal());
	use_syslog = false;
	/* detached on a board without journald: syslog rather than nothing */
	if (target == LOG_TARGET_JOURNAL &&
	    access("/run/systemd/journal/socket", F_OK)) {
		use_journal = false;
		use_syslog = true;
		openlog(program_invocation_short_name, LOG_PID | LOG_NDELAY,
			LOG_DAEMON);
	}
}

void log_set_timestamps(bool on)
{
	timestamps = on;
}

const char *log_msgid(int prio, const struct log_ctx *c)
{
	switch (c ? c->msgid : MSGID_NONE) {
	case MSGID_APPLIED:
		return WQRT_MSGID_APPLIED;
	case MSGID_RESTORED:
		return WQRT_MSGID_RESTORED;
	case MSGID_FAILED:
		return WQRT_MSGID_FAILED;
	case MSGID_NONE:
		break;
	}
	if (c && prio <= LOG_ERR && (c->wq || c->pid))
		return WQRT_MSGID_FAILED;
	return NULL;
}

void log_set_level(int level)
{
	max_level = level;
}

int log_get_level(void)
{
	return max_level;
}

int log_level_parse(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (level_names[i] && !strcasecmp(s, level_names[i]))
			return (int)i;
	return -1;
}

const char *log_level_name(int level)
{
	return level >= 0 && level <= LOG_DEBUG && level_names[level] ?
		       level_names[level] :
		       "?";
}

void log_set_sink(log_sink_fn fn)
{
	sink = fn;
}

const char *log_last_error(void)
{
	return last_error;
}

void log_clear_last_error(void)
{
	last_error[0] = '\0';
}

static void add_field(char fields[LOG_FIELDS_MAX][600], int *n, const char *fmt,
		      ...) __attribute__((format(printf, 3, 4)));

static void add_field(char fields[LOG_FIELDS_MAX][600], int *n, const char *fmt,
		      ...)
{
	va_list ap;

	if (*n >= LOG_FIELDS_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(fields[*n], sizeof(fields[*n]), fmt, ap);
	va_end(ap);
	(*n)++;
}

int log_journal_fields(int prio, const struct log_ctx *c, const char *msg,
		       char fields[LOG_FIELDS_MAX][600])
{
	const char *id = log_msgid(prio, c);
	int n = 0;

	add_field(fields, &n, "MESSAGE=%s", msg);
	add_field(fields, &n, "PRIORITY=%d", prio);
	add_field(fields, &n, "SYSLOG_IDENTIFIER=%s",
		  program_invocation_short_name);
	if (id)
		add_field(fields, &n, "MESSAGE_ID=%s", id);
	if (c && c->wq)
		add_field(fields, &n, "WQ=%s", c->wq);
	/* journald adds the kworker's _COMM= and the like as OBJECT_ */
	if (c && c->pid)
		add_field(fields, &n, "OBJECT_PID=%d", (int)c->pid);
	if (c && c->attr)
		add_field(fields, &n, "ATTRIBUTE=%s", c->attr);
	if (c && c->err)
		add_field(fields, &n, "ERRNO=%d", c->err);
	return n;
}

static void to_journal(int prio, const struct log_ctx *c, const char *msg)
{
	char f[LOG_FIELDS_MAX][600];
	struct iovec iov[LOG_FIELDS_MAX];
	int i, n = log_journal_fields(prio, c, msg, f);

	for (i = 0; i < n; i++) {
		iov[i].iov_base = f[i];
		iov[i].iov_len = strlen(f[i]);
	}
	sd_journal_sendv(iov, n);
}

static void to_stderr(int prio, const char *msg)
{
	const char *level = prio <= LOG_CRIT	? "critical: " :
			    prio <= LOG_ERR	? "error: " :
			    prio == LOG_WARNING ? "warning: " :
						  "";
	char stamp[64] = "";

	if (timestamps) {
		struct timespec ts;
		struct tm tm;
		size_t len;

		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		len = strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(stamp + len, sizeof(stamp) - len, ".%03ld ",
			 ts.tv_nsec / 1000000);
		fprintf(stderr, "%s%s[%d]: %s%s\n", stamp,
			program_invocation_short_name, (int)getpid(), level,
			msg);
		return;
	}
	fprintf(stderr, "%s: %s%s\n", program_invocation_short_name, level,
		msg);
}

void log_full(int prio, const struct log_ctx *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (prio > max_level && prio > LOG_ERR)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (prio <= LOG_ERR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
	if (sink)
		sink(prio, c, msg);
	else if (use_journal)
		to_journal(prio, c, msg);
	else if (use_syslog)
		syslog(prio, "%s", msg);
	else
		to_stderr(prio, msg);
}
