/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers: paths under --root, reading and writing one-line files,
 * cpulists and string lists.
 */
#ifndef WQRT_UTIL_H
#define WQRT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* the CPUs a cpumask can name: 4096, as arm64's NR_CPUS at most */
#define WQRT_MAX_CPUS 4096
#define WQRT_PATH_MAX 512

#define WQRT_MAX_CPUS_LAST 4095 /* WQRT_MAX_CPUS - 1, for messages */
#define STR_(x) #x
#define STR(x) STR_(x)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct cpubits {
	uint64_t w[WQRT_MAX_CPUS / 64];
};

/*
 * Does root name the real system: NULL, "", or the directory "/" is
 * (same device and inode: "//", "/proc/..")? root_canon(): "/" for those,
 * root otherwise; the options --root take go through it, so that every
 * later check of root against "/" holds.
 */
bool root_is_real(const char *root);
const char *root_canon(const char *root);
/* Build ROOT + the formatted path; root "" or "/" means the real system. */
int path_fmt(char *buf, size_t size, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

struct stat;
/*
 * May root trust what path names (st: its stat)? Owned by root, or by
 * whoever runs this (tests as a user), and writable by no one else: group
 * and others may write only a directory with the sticky bit (/tmp), where
 * no one can replace another's file. 0, or -EPERM with why set to what
 * follows "PATH: " in the message ("owned by uid 1000, not root; refusing
 * it (chown root PATH)").
 */
int trust_check(const char *path, const struct stat *st, char *why,
		size_t size);

/*
 * Read a whole small file into buf, strip the trailing newline. -errno on
 * error; -EFBIG when it does not fit: a text is never cut short.
 */
int read_text(const char *path, char *buf, size_t size);
/* The same, into a buffer sized from the file (free it). 0 or -errno. */
int read_text_alloc(const char *path, char **text);
/* Write buf to path in one write(). -errno on error. */
int write_text(const char *path, const char *buf);

int parse_long(const char *s, long min, long max, long *out);
int parse_bool(const char *s, bool *out);

void cpubits_set(struct cpubits *b, unsigned int cpu);
bool cpubits_test(const struct cpubits *b, unsigned int cpu);
bool cpubits_empty(const struct cpubits *b);
bool cpubits_equal(const struct cpubits *a, const struct cpubits *b);
void cpubits_and(struct cpubits *dst, const struct cpubits *m);
/* dst |= m, dst &= ~m */
void cpubits_or(struct cpubits *dst, const struct cpubits *m);
void cpubits_andnot(struct cpubits *dst, const struct cpubits *m);
/* "0-3,8": returns 0 or -EINVAL; *why explains the error. */
int cpulist_parse(const char *s, struct cpubits *b, const char **why);
void cpulist_format(const struct cpubits *b, char *buf, size_t size);
/* The kernel's %*pb format: hex, comma every 32 bits. */
int cpumask_hex_parse(const char *s, struct cpubits *b);
void cpumask_hex_format(const struct cpubits *b, char *buf, size_t size);

/*
 * v, an array of n elements of size bytes, with room for one more: its
 * room doubles when n reaches a power of two (a realloc per element made
 * a file of 32k sections quadratic to read). NULL when out of memory; v
 * is kept.
 */
void *array_grow(void *v, size_t n, size_t size);

struct strlist {
	char **v;
	size_t n;
};
void strlist_add(struct strlist *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strlist_free(struct strlist *l);

/* Length of the edit distance between a and b, capped at 9. */
unsigned int edit_distance(const char *a, const char *b);

#endif
