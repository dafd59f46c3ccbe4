// SPDX-License-Identifier: GPL-2.0-only
/*
 * The index tables of the trackers and the saved originals (htab.c),
 * against a plain array: adds, swap-removes as daemon.c and state.c do
 * them, and lookups of what is there and of what is gone; a broken table's
 * lookups walk the array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "htab.h"

#define N 5000

static int keys[N]; /* the owner's array */
static int nkeys;

static bool eq(const void *ctx, int idx, const void *key)
{
	(void)ctx;
	return keys[idx] == *(const int *)key;
}

static uint32_t hash_of(int key)
{
	/* poor hashes too: long runs at both ends of the table, which wrap */
	if (key % 3 == 0)
		return key & 7;
	if (key % 3 == 1)
		return UINT32_MAX - (key & 7);
	return htab_hash_int(key);
}

static int find(struct htab *h, int key)
{
	return htab_find(h, hash_of(key), eq, NULL, &key);
}

static void drop(struct htab *h, int i)
{
	int last = nkeys - 1;

	htab_swap_remove(h, hash_of(keys[i]), i, hash_of(keys[last]), last);
	keys[i] = keys[last];
	nkeys--;
}

static void check_all(struct htab *h, const char *present)
{
	int k, i;

	for (i = 0; i < nkeys; i++)
		assert_int_equal(find(h, keys[i]), i);
	for (k = 0; k < 4 * N; k++)
		if (!present[k])
			assert_int_equal(find(h, k), -1);
}

static void test_against_array(void **state)
{
	static char present[4 * N];
	struct htab h = { 0 };
	int round, k, i;

	(void)state;
	srand(16);
	for (round = 0; round < 20; round++) {
		/* grow to N, then drop most of it at random */
		while (nkeys < N) {
			k = rand() % (4 * N);
			if (present[k])
				continue;
			present[k] = 1;
			keys[nkeys] = k;
			htab_add(&h, hash_of(k), nkeys++);
		}
		check_all(&h, present);
		while (nkeys > N / 10) {
			i = rand() % nkeys;
			present[keys[i]] = 0;
			drop(&h, i);
		}
		check_all(&h, present);
		assert_int_equal(h.n, nkeys);
	}
	assert_false(h.broken);
	htab_clear(&h);
	assert_int_equal(find(&h, keys[0]), -1);
	htab_free(&h);
}

/* A broken table (an insert ran out of memory): lookups walk the array */
static void test_lookup_walks_when_broken(void **state)
{
	struct htab h = { .broken = true };
	int k;

	(void)state;
	for (nkeys = 0; nkeys < 100; nkeys++) {
		keys[nkeys] = 3 * nkeys;
		htab_add(&h, hash_of(keys[nkeys]), nkeys);
	}
	assert_int_equal(h.cap, 0);
	for (k = 0; k < 300; k++)
		assert_int_equal(htab_lookup(&h, hash_of(k), eq, NULL, &k,
					     nkeys),
				 k % 3 ? -1 : k / 3);
	htab_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_array),
		cmocka_unit_test(test_lookup_walks_when_broken),
	};

	return cmocka_run_group_tests_name("htab", tests, NULL, NULL);
}
