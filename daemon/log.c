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
#include <unistd.h>
#include <systemd/sd-journal.h>

static int max_level = LOG_INFO;
static bool use_journal;
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

static void add_field(struct iovec *iov, int *n, char *buf, size_t size,
		      const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add_field(struct iovec *iov, int *n, char *buf, size_t size,
		      const char *fmt, ...)
{
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	iov[*n].iov_base = buf;
	iov[*n].iov_len = (size_t)len < size ? (size_t)len : size - 1;
	(*n)++;
}

static void to_journal(int prio, const struct log_ctx *c, const char *msg)
{
	char f[7][600];
	struct iovec iov[7];
	int n = 0;

	add_field(iov, &n, f[n], sizeof(f[n]), "MESSAGE=%s", msg);
	add_field(iov, &n, f[n], sizeof(f[n]), "PRIORITY=%d", prio);
	add_field(iov, &n, f[n], sizeof(f[n]), "SYSLOG_IDENTIFIER=%s",
		  program_invocation_short_name);
	if (c && c->wq)
		add_field(iov, &n, f[n], sizeof(f[n]), "WQ=%s", c->wq);
	if (c && c->pid)
		add_field(iov, &n, f[n], sizeof(f[n]), "PID=%d", (int)c->pid);
	if (c && c->attr)
		add_field(iov, &n, f[n], sizeof(f[n]), "ATTRIBUTE=%s", c->attr);
	if (c && c->err)
		add_field(iov, &n, f[n], sizeof(f[n]), "ERRNO=%d", c->err);
	sd_journal_sendv(iov, n);
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
	else
		fprintf(stderr, "%s: %s%s\n", program_invocation_short_name,
			prio <= LOG_CRIT    ? "critical: " :
			prio <= LOG_ERR	    ? "error: " :
			prio == LOG_WARNING ? "warning: " :
					      "",
			msg);
}
