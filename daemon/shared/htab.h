/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small open-addressing hash table (linear probing, backward-shift
 * deletion) of indices into an array its owner keeps: the trackers by
 * workqueue name or pid, the saved originals. The owner hashes the keys
 * and compares them; the table holds the index and the hash. One lookup
 * per workqueue and kworker instead of a walk over all of them (a scan
 * of 1000 workqueues and 4000 kworkers was quadratic). When memory runs
 * out the table says so (broken) and the owner walks its array.
 */
#ifndef WQRT_HTAB_H
#define WQRT_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct htab_slot {
	uint32_t hash;
	int idx; /* index + 1; 0: empty */
};

struct htab {
	struct htab_slot *s;
	size_t cap; /* a power of two, or 0 */
	size_t n;
	bool broken; /* an insert failed: lookups cannot be trusted */
};

/* Does element idx of ctx's array have key? */
typedef bool (*htab_eq_fn)(const void *ctx, int idx, const void *key);

uint32_t htab_hash_str(const char *s);
uint32_t htab_hash_int(uint32_t v);
/* The index of the element with key, or -1 (see broken) */
int htab_find(const struct htab *h, uint32_t hash, htab_eq_fn eq,
	      const void *ctx, const void *key);
/*
 * The index of the element with key among the n of ctx's array, or -1:
 * through the table, or by a walk of the array when the table is broken.
 */
int htab_lookup(const struct htab *h, uint32_t hash, htab_eq_fn eq,
		const void *ctx, const void *key, size_t n);
/* Element idx has a key of this hash */
void htab_add(struct htab *h, uint32_t hash, int idx);
/* Element idx (of this hash) is gone */
void htab_del(struct htab *h, uint32_t hash, int idx);
/* Element from (of this hash) moved to index to */
void htab_move(struct htab *h, uint32_t hash, int from, int to);
/*
 * Element idx (of this hash) leaves the array, and the last one (index
 * last, of last_hash) takes its place: the owner's swap-removal.
 */
void htab_swap_remove(struct htab *h, uint32_t hash, int idx,
		      uint32_t last_hash, int last);
void htab_clear(struct htab *h);
void htab_free(struct htab *h);

#endif
