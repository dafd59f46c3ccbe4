// SPDX-License-Identifier: GPL-2.0-only
#include "hist.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const uint64_t hist_tier_lo[HIST_NTIERS + 1] = { 0,	  1000,	   10000,
						 100000, 1000000, UINT64_MAX };
const uint64_t hist_tier_width[HIST_NTIERS] = { 1, 10, 100, 1000, 10000 };

static void trim_copy(char *dst, size_t size, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len && isspace((unsigned char)s[len - 1]))
		len--;
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/*
 * One key's printed value, s[0..len): what it says, by its form (see
 * hist.h). Returns 0 or -EINVAL.
 */
static int parse_key(struct hist_entry *e, size_t i, const char *s, size_t len)
{
	char v[HIST_STR_MAX * 2], *end;
	unsigned long long lo, hi;

	trim_copy(v, sizeof(v), s, len);
	e->num[i] = 0;
	e->width[i] = 1;
	if (v[0] == '~') {
		/*
		 * .buckets=N: "~ LOW-HIGH". The kernel computes HIGH as
		 * LOW + N - 1 in u64: the last bucket below 2^64 (a negative
		 * difference stored in a u64 field) prints HIGH wrapped
		 * past zero. The width is right in u64 arithmetic either way.
		 */
		if (sscanf(v, "~ %llu-%llu", &lo, &hi) != 2 ||
		    (hi < lo && lo < 1ULL << 63))
			return -EINVAL;
		e->num[i] = lo;
		e->width[i] = (uint64_t)(hi - lo + 1);
		snprintf(e->key[i], HIST_STR_MAX, "%llu", lo);
		return 0;
	}
	if (v[0] == '[') {
		/* .sym: "[address] symbol"; no symbol: the address again */
		e->num[i] = strtoull(v + 1, &end, 16);
		if (*end != ']')
			return -EINVAL;
		trim_copy(e->key[i], HIST_STR_MAX, end + 1, strlen(end + 1));
		/* a module's symbol: "name [module]"; the name alone */
		e->key[i][strcspn(e->key[i], " ")] = '\0';
		if (!e->key[i][0])
			snprintf(e->key[i], HIST_STR_MAX, "0x%" PRIx64,
				 e->num[i]);
		return 0;
	}
	trim_copy(e->key[i], HIST_STR_MAX, v, strlen(v));
	if (isdigit((unsigned char)v[0])) {
		errno = 0;
		e->num[i] = strtoull(v, &end, 10);
		if (errno)
			e->num[i] = 0;
	} else if ((end = strrchr(v, '[')) != NULL) {
		/* .execname: "comm [pid]" */
		e->num[i] = strtoull(end + 1, NULL, 10);
		trim_copy(e->key[i], HIST_STR_MAX, v, end - v);
	}
	return 0;
}

/* The keys of one "{ ... }" part: 0 or -EINVAL */
static int parse_keys(struct hist_entry *e, const char *line,
		      const char *const *keys, size_t nkeys)
{
	const char *p = line, *end = strstr(line, " }");
	char want[64];
	size_t i;

	if (!end)
		return -EINVAL;
	for (i = 0; i < nkeys; i++) {
		const char *v, *next;

		snprintf(want, sizeof(want), "%s: ", keys[i]);
		v = strstr(p, want);
		if (!v || v > end)
			return -EINVAL;
		v += strlen(want);
		if (i + 1 < nkeys) {
			/* the next key begins at ", NAME: " */
			snprintf(want, sizeof(want), ", %s: ", keys[i + 1]);
			next = strstr(v, want);
			if (!next || next > end)
				return -EINVAL;
		} else {
			next = end;
		}
		if (parse_key(e, i, v, next - v))
			return -EINVAL;
		p = next;
	}
	return 0;
}

/* "hitcount: N  name: N ..." after the keys */
static void parse_vals(struct hist_entry *e, const char *s,
		       const char *const *vals, size_t nvals)
{
	char want[64];
	const char *v;
	size_t i;

	v = strstr(s, "hitcount:");
	if (v)
		e->hitcount = strtoull(v + strlen("hitcount:"), NULL, 10);
	for (i = 0; i < nvals && i < HIST_MAX_VALS; i++) {
		snprintf(want, sizeof(want), " %s:", vals[i]);
		v = strstr(s, want);
		e->val[i] = v ? strtoull(v + strlen(want), NULL, 10) : 0;
	}
}

int hist_parse(const char *text, const char *const *keys, size_t nkeys,
	       const char *const *vals, size_t nvals, hist_entry_cb cb,
	       void *arg, uint64_t *dropped, char *why, size_t why_size)
{
	const char *line = text, *nl;
	char buf[1024];
	int n = 0;

	if (dropped)
		*dropped = 0;
	if (nkeys > HIST_MAX_KEYS || nvals > HIST_MAX_VALS) {
		snprintf(why, why_size, "too many keys or values");
		return -EINVAL;
	}
	for (; line && *line; line = nl ? nl + 1 : NULL) {
		struct hist_entry e;
		size_t len;

		nl = strchr(line, '\n');
		len = nl ? (size_t)(nl - line) : strlen(line);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		if (dropped && !strncmp(buf, "    Dropped:", 12))
			*dropped = strtoull(buf + 12, NULL, 10);
		if (strncmp(buf, "{ ", 2))
			continue;
		memset(&e, 0, sizeof(e));
		if (parse_keys(&e, buf, keys, nkeys)) {
			snprintf(why, why_size, "unexpected histogram line: %s",
				 buf);
			return -EINVAL;
		}
		parse_vals(&e, strstr(buf, " }") + 2, vals, nvals);
		cb(&e, arg);
		n++;
	}
	return n;
}

static int bucket_cmp(const void *a, const void *b)
{
	const struct lat_bucket *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void lat_add(struct lat_dist *d, uint64_t lo, uint64_t width, uint64_t n)
{
	size_t i;

	if (!n)
		return;
	if (!width)
		width = 1;
	d->count += n;
	/* mostly appended in order: look from the end */
	for (i = d->nb; i > 0; i--) {
		if (d->b[i - 1].lo == lo) {
			d->b[i - 1].n += n;
			return;
		}
		if (d->b[i - 1].lo < lo)
			break;
	}
	if (d->nb == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct lat_bucket *b = realloc(d->b, cap * sizeof(*b));

		if (!b) {
			d->count -= n;
			return;
		}
		d->b = b;
		d->cap = cap;
	}
	d->b[d->nb++] = (struct lat_bucket){ lo, width, n };
	if (i < d->nb - 1)
		qsort(d->b, d->nb, sizeof(*d->b), bucket_cmp);
}

void lat_merge(struct lat_dist *into, const struct lat_dist *from)
{
	size_t i;

	for (i = 0; i < from->nb; i++)
		lat_add(into, from->b[i].lo, from->b[i].width, from->b[i].n);
}

void lat_free(struct lat_dist *d)
{
	free(d->b);
	memset(d, 0, sizeof(*d));
}

uint64_t lat_quantile(const struct lat_dist *d, double q)
{
	uint64_t rank, seen = 0;
	size_t i;

	if (!d->count)
		return 0;
	rank = (uint64_t)ceil(q * (double)d->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < d->nb; i++) {
		seen += d->b[i].n;
		if (seen >= rank)
			return d->b[i].lo;
	}
	return d->b[d->nb - 1].lo;
}

uint64_t lat_max(const struct lat_dist *d)
{
	return d->nb ? d->b[d->nb - 1].lo : 0;
}

uint64_t lat_over(const struct lat_dist *d, uint64_t deadline)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < d->nb; i++)
		if (d->b[i].lo > deadline)
			n += d->b[i].n;
	return n;
}

static size_t log2_index(uint64_t v)
{
	size_t k = 0;

	while (v > 1) {
		v >>= 1;
		k++;
	}
	return k;
}

size_t lat_log2(const struct lat_dist *d, uint64_t *n, size_t nmax)
{
	size_t i, k, top = 0;

	memset(n, 0, nmax * sizeof(*n));
	for (i = 0; i < d->nb; i++) {
		k = log2_index(d->b[i].lo);
		if (k >= nmax)
			k = nmax - 1;
		n[k] += d->b[i].n;
		if (k + 1 > top)
			top = k + 1;
	}
	return top;
}

void lat_print_log2(FILE *f, const struct lat_dist *d, const char *indent,
		    int width)
{
	uint64_t n[40], most = 0;
	size_t i, top = lat_log2(d, n, 40), first = top;
	char range[48];

	for (i = 0; i < top; i++) {
		if (n[i] > most)
			most = n[i];
		if (n[i] && first == top)
			first = i;
	}
	for (i = first; i < top; i++) {
		int bar = most ? (int)((n[i] * width + most - 1) / most) : 0;

		if (i == 0)
			snprintf(range, sizeof(range), "0-1");
		else
			snprintf(range, sizeof(range), "%" PRIu64 "-%" PRIu64,
				 (uint64_t)1 << i, ((uint64_t)1 << (i + 1)) - 1);
		fprintf(f, "%s%15s us %10" PRIu64 " |%.*s\n", indent, range,
			n[i], bar,
			"################################################################");
	}
}
