// SPDX-License-Identifier: GPL-2.0-only
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool root_is_real(const char *root)
{
	struct stat a, b;

	if (!root || !*root || !strcmp(root, "/"))
		return true;
	return !stat(root, &a) && !stat("/", &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

const char *root_canon(const char *root)
{
	return root_is_real(root) ? "/" : root;
}

int path_fmt(char *buf, size_t size, const char *root, const char *fmt, ...)
{
	va_list ap;
	size_t len = 0;
	int n;

	if (root && strcmp(root, "/") != 0) {
		len = strlen(root);
		while (len && root[len - 1] == '/')
			len--;
		if (len >= size)
			return -ENAMETOOLONG;
		memcpy(buf, root, len);
	}
	va_start(ap, fmt);
	n = vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= size - len)
		return -ENAMETOOLONG;
	return 0;
}

int trust_check(const char *path, const struct stat *st, char *why,
		size_t size)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		snprintf(why, size,
			 "owned by uid %u, not root; refusing it (chown root %s)",
			 (unsigned int)st->st_uid, path);
		return -EPERM;
	}
	if ((st->st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX))) {
		snprintf(why, size,
			 "group or others can write it (mode %04o); refusing it (chmod go-w %s)",
			 (unsigned int)(st->st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

/* read(2) until size bytes or the end: the count, or -errno */
static ssize_t read_full(int fd, char *buf, size_t size)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = read(fd, buf + done, size - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

static void trim_end(char *buf, size_t n)
{
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
}

int read_text(const char *path, char *buf, size_t size)
{
	char more[2];
	ssize_t n, extra;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read_full(fd, buf, size - 1);
	/* what does not fit is an error, never a text cut short */
	extra = n == (ssize_t)size - 1 ? read_full(fd, more, sizeof(more)) : 0;
	close(fd);
	if (n < 0)
		return n;
	if (extra < 0)
		return extra;
	/* but for the newline that ends it */
	if (extra > 1 || (extra == 1 && more[0] != '\n'))
		return -EFBIG;
	trim_end(buf, n);
	return 0;
}

int read_text_alloc(const char *path, char **text)
{
	size_t cap = 4096, len = 0;
	char *buf = NULL, *v;
	ssize_t n;
	int fd;

	*text = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (;;) {
		v = realloc(buf, cap + 1);
		if (!v) {
			n = -ENOMEM;
			break;
		}
		buf = v;
		n = read_full(fd, buf + len, cap - len);
		if (n < 0)
			break;
		len += n;
		if (len < cap)
			break;
		cap *= 2;
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return n;
	}
	trim_end(buf, len);
	*text = buf;
	return 0;
}

int write_text(const char *path, const char *buf)
{
	size_t len = strlen(buf);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

int parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || isspace((unsigned char)*s))
		return -EINVAL;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

void cpubits_set(struct cpubits *b, unsigned int cpu)
{
	b->w[cpu / 64] |= 1ULL << (cpu % 64);
}

bool cpubits_test(const struct cpubits *b, unsigned int cpu)
{
	return b->w[cpu / 64] & (1ULL << (cpu % 64));
}

bool cpubits_empty(const struct cpubits *b)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(b->w); i++)
		if (b->w[i])
			return false;
	return true;
}

bool cpubits_equal(const struct cpubits *a, const struct cpubits *b)
{
	return !memcmp(a->w, b->w, sizeof(a->w));
}

void cpubits_and(struct cpubits *dst, const struct cpubits *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dst->w); i++)
		dst->w[i] &= m->w[i];
}

void cpubits_or(struct cpubits *dst, const struct cpubits *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dst->w); i++)
		dst->w[i] |= m->w[i];
}

void cpubits_andnot(struct cpubits *dst, const struct cpubits *m)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dst->w); i++)
		dst->w[i] &= ~m->w[i];
}

_Static_assert(WQRT_MAX_CPUS_LAST == WQRT_MAX_CPUS - 1,
	       "WQRT_MAX_CPUS_LAST names the last CPU");

static int cpu_number(const char **p, unsigned long *out, const char **why)
{
	char *end;

	if (!isdigit((unsigned char)**p)) {
		*why = "expected a CPU number";
		return -EINVAL;
	}
	*out = strtoul(*p, &end, 10);
	if (*out >= WQRT_MAX_CPUS) {
		*why = "CPU number out of range (0.." STR(WQRT_MAX_CPUS_LAST) ")";
		return -EINVAL;
	}
	*p = end;
	return 0;
}

int cpulist_parse(const char *s, struct cpubits *b, const char **why)
{
	const char *p = s;

	memset(b, 0, sizeof(*b));
	while (*p) {
		unsigned long lo, hi, c;

		if (cpu_number(&p, &lo, why))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (cpu_number(&p, &hi, why))
				return -EINVAL;
			if (hi < lo) {
				*why = "range goes backwards";
				return -EINVAL;
			}
		}
		for (c = lo; c <= hi; c++)
			cpubits_set(b, c);
		if (*p == ',' && p[1])
			p++;
		else if (*p) {
			*why = "not a cpulist (like 0-3,8)";
			return -EINVAL;
		}
	}
	if (cpubits_empty(b)) {
		*why = "empty cpulist";
		return -EINVAL;
	}
	return 0;
}

void cpulist_format(const struct cpubits *b, char *buf, size_t size)
{
	unsigned int c = 0;
	size_t len = 0;

	buf[0] = '\0';
	while (c < WQRT_MAX_CPUS) {
		unsigned int lo;

		if (!cpubits_test(b, c)) {
			c++;
			continue;
		}
		lo = c;
		while (c + 1 < WQRT_MAX_CPUS && cpubits_test(b, c + 1))
			c++;
		if (lo == c)
			len += snprintf(buf + len, size - len, "%s%u",
					len ? "," : "", lo);
		else
			len += snprintf(buf + len, size - len, "%s%u-%u",
					len ? "," : "", lo, c);
		if (len >= size)
			return;
		c++;
	}
}

int cpumask_hex_parse(const char *s, struct cpubits *b)
{
	size_t len = strlen(s);
	unsigned int bit = 0;

	memset(b, 0, sizeof(*b));
	while (len--) {
		char ch = s[len];
		int v, i;

		if (ch == ',')
			continue;
		if (!isxdigit((unsigned char)ch))
			return -EINVAL;
		v = isdigit((unsigned char)ch) ?
			    ch - '0' :
			    tolower((unsigned char)ch) - 'a' + 10;
		for (i = 0; i < 4; i++, bit++)
			if ((v & (1 << i)) && bit < WQRT_MAX_CPUS)
				cpubits_set(b, bit);
	}
	return 0;
}

void cpumask_hex_format(const struct cpubits *b, char *buf, size_t size)
{
	int top = WQRT_MAX_CPUS / 32 - 1;
	size_t len = 0;
	int i;

	while (top > 0 && !(uint32_t)(b->w[top / 2] >> (32 * (top % 2))))
		top--;
	buf[0] = '\0';
	for (i = top; i >= 0 && len < size; i--)
		len += snprintf(buf + len, size - len, "%s%08x",
				i == top ? "" : ",",
				(uint32_t)(b->w[i / 2] >> (32 * (i % 2))));
}

void *array_grow(void *v, size_t n, size_t size)
{
	if (n && (n & (n - 1)))
		return v;
	return realloc(v, (n ? 2 * n : 1) * size);
}

void strlist_add(struct strlist *l, const char *fmt, ...)
{
	va_list ap;
	char **v;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	v = s ? realloc(l->v, (l->n + 1) * sizeof(*v)) : NULL;
	if (!v) {
		free(s);
		return;
	}
	l->v = v;
	l->v[l->n++] = s;
}

void strlist_free(struct strlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

unsigned int edit_distance(const char *a, const char *b)
{
	unsigned int row[32], prev, tmp, i, j;
	size_t la = strlen(a), lb = strlen(b);

	if (la > 30 || lb > 30)
		return 9;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			unsigned int best = prev + (a[i - 1] != b[j - 1]);

			tmp = row[j];
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb] > 9 ? 9 : row[lb];
}
