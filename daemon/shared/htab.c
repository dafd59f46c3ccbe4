// SPDX-License-Identifier: GPL-2.0-only
#include "htab.h"

#include <stdlib.h>
#include <string.h>

/* FNV-1a */
uint32_t htab_hash_str(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

/* a finaliser of murmur3: pids are dense, the low bits must mix */
uint32_t htab_hash_int(uint32_t v)
{
	v ^= v >> 16;
	v *= 0x85ebca6bu;
	v ^= v >> 13;
	v *= 0xc2b2ae35u;
	v ^= v >> 16;
	return v;
}

int htab_find(const struct htab *h, uint32_t hash, htab_eq_fn eq,
	      const void *ctx, const void *key)
{
	size_t mask = h->cap - 1, i;

	if (!h->cap)
		return -1;
	for (i = hash & mask; h->s[i].idx; i = (i + 1) & mask)
		if (h->s[i].hash == hash && eq(ctx, h->s[i].idx - 1, key))
			return h->s[i].idx - 1;
	return -1;
}

int htab_lookup(const struct htab *h, uint32_t hash, htab_eq_fn eq,
		const void *ctx, const void *key, size_t n)
{
	size_t i;

	if (!h->broken)
		return htab_find(h, hash, eq, ctx, key);
	for (i = 0; i < n; i++)
		if (eq(ctx, i, key))
			return i;
	return -1;
}

static void put(struct htab_slot *s, size_t cap, uint32_t hash, int idx)
{
	size_t mask = cap - 1, i;

	for (i = hash & mask; s[i].idx; i = (i + 1) & mask)
		;
	s[i].hash = hash;
	s[i].idx = idx + 1;
}

void htab_add(struct htab *h, uint32_t hash, int idx)
{
	if (h->broken)
		return;
	/* at most half full: short probes */
	if (2 * (h->n + 1) > h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 64, i;
		struct htab_slot *s = calloc(cap, sizeof(*s));

		if (!s) {
			h->broken = true;
			return;
		}
		for (i = 0; i < h->cap; i++)
			if (h->s[i].idx)
				put(s, cap, h->s[i].hash, h->s[i].idx - 1);
		free(h->s);
		h->s = s;
		h->cap = cap;
	}
	put(h->s, h->cap, hash, idx);
	h->n++;
}

static size_t slot_of(const struct htab *h, uint32_t hash, int idx)
{
	size_t mask = h->cap - 1, i;

	for (i = hash & mask; h->s[i].idx; i = (i + 1) & mask)
		if (h->s[i].idx == idx + 1)
			return i;
	return h->cap;
}

void htab_del(struct htab *h, uint32_t hash, int idx)
{
	size_t mask = h->cap - 1, i, j, k;

	if (h->broken || !h->cap)
		return;
	i = slot_of(h, hash, idx);
	if (i == h->cap)
		return;
	/* shift back the entries of the run after i that may move up */
	for (j = (i + 1) & mask; h->s[j].idx; j = (j + 1) & mask) {
		k = h->s[j].hash & mask;
		/* k, the entry's home, is cyclically in (i, j]: it stays */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		h->s[i] = h->s[j];
		i = j;
	}
	h->s[i].idx = 0;
	h->n--;
}

void htab_move(struct htab *h, uint32_t hash, int from, int to)
{
	size_t i;

	if (h->broken || !h->cap)
		return;
	i = slot_of(h, hash, from);
	if (i < h->cap)
		h->s[i].idx = to + 1;
}

void htab_swap_remove(struct htab *h, uint32_t hash, int idx,
		      uint32_t last_hash, int last)
{
	htab_del(h, hash, idx);
	if (idx != last)
		htab_move(h, last_hash, last, idx);
}

void htab_clear(struct htab *h)
{
	if (h->cap)
		memset(h->s, 0, h->cap * sizeof(*h->s));
	h->n = 0;
	h->broken = false;
}

void htab_free(struct htab *h)
{
	free(h->s);
	memset(h, 0, sizeof(*h));
}
