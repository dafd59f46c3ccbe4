/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the kernel's histogram triggers print (the "hist" file of a trace
 * event, Documentation/trace/histogram.rst), read back into entries, and
 * latency distributions built from them: percentiles, the share over a
 * deadline, a log-scale histogram. No tracefs access here (trace.c does
 * that), so that the unit tests feed it the kernel's text.
 *
 * An entry of the hist file is one line:
 *
 *   { wq: ttyS-serial_8250     , function: [ffffffff8149f6a0] flush_to_ldisc  , lat: ~ 1000-1009 } hitcount:          3
 *
 * keys in the order the trigger named them, each "name: value" and
 * separated by ", " (a string key is padded with blanks); then the values,
 * "name: number" pairs. A key with the .sym modifier prints "[address]
 * symbol", .buckets=N prints "~ LOW-HIGH", .execname prints "comm [pid]",
 * a number prints itself. The "Totals:" part says how many hits a full
 * table dropped.
 */
#ifndef WQRT_HIST_H
#define WQRT_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HIST_MAX_KEYS 4
#define HIST_MAX_VALS 4
#define HIST_STR_MAX 128

struct hist_entry {
	/* the key values as printed, trimmed; .sym keys: the symbol only */
	char key[HIST_MAX_KEYS][HIST_STR_MAX];
	/* numeric keys: the number; .buckets: the low end; .sym: the address */
	uint64_t num[HIST_MAX_KEYS];
	/* .buckets keys: the bucket's width (HIGH - LOW + 1); else 1 */
	uint64_t width[HIST_MAX_KEYS];
	uint64_t hitcount;
	uint64_t val[HIST_MAX_VALS]; /* in the order of vals[] asked for */
};

/*
 * Call cb for each entry of text, a hist file's content, whose keys are
 * keys[0..nkeys-1] in that order; the values named in vals[] (besides
 * hitcount) are read into val[]. *dropped (may be NULL): the hits the
 * table had no room for. Returns the entries read, or -EINVAL when an
 * entry line cannot be read as the trigger asked (the message in why).
 */
typedef void (*hist_entry_cb)(const struct hist_entry *e, void *arg);
int hist_parse(const char *text, const char *const *keys, size_t nkeys,
	       const char *const *vals, size_t nvals, hist_entry_cb cb,
	       void *arg, uint64_t *dropped, char *why, size_t why_size);

/*
 * A distribution of microsecond values: buckets [lo, lo + width) with a
 * count, kept sorted by lo, merged from the histogram tiers (exact below
 * 1 ms, then buckets of 10, 100, 1000 and 10000 us: at most 1 % wide).
 */
struct lat_bucket {
	uint64_t lo, width, n;
};

struct lat_dist {
	struct lat_bucket *b;
	size_t nb, cap;
	uint64_t count;
};

void lat_add(struct lat_dist *d, uint64_t lo, uint64_t width, uint64_t n);
void lat_merge(struct lat_dist *into, const struct lat_dist *from);
void lat_free(struct lat_dist *d);
/*
 * The q quantile (0 < q <= 1): the low end of the bucket that holds the
 * ceil(q * count)-th value (exact where buckets are 1 us wide); 0 for an
 * empty distribution.
 */
uint64_t lat_quantile(const struct lat_dist *d, double q);
/* The low end of the highest bucket */
uint64_t lat_max(const struct lat_dist *d);
/*
 * Values later than deadline (> deadline us): exact where the deadline
 * is a bucket boundary, else the buckets that start after it.
 */
uint64_t lat_over(const struct lat_dist *d, uint64_t deadline);

/*
 * The log-scale view: counts per power-of-two range [2^k, 2^(k+1)) us
 * (k = 0 holds 0 and 1 us). Fills n[0..nmax-1]; returns the number of
 * ranges up to the last non-empty one.
 */
size_t lat_log2(const struct lat_dist *d, uint64_t *n, size_t nmax);
/* Print the log-scale view, one line per range, bars of up to width '#' */
void lat_print_log2(FILE *f, const struct lat_dist *d, const char *indent,
		    int width);

/*
 * The histogram tiers: for a latency of value us, the tier's bucket
 * width; tier i covers [hist_tier_lo[i], hist_tier_lo[i + 1]).
 */
#define HIST_NTIERS 5
extern const uint64_t hist_tier_lo[HIST_NTIERS + 1];
extern const uint64_t hist_tier_width[HIST_NTIERS];

#endif
