// SPDX-License-Identifier: MIT
/*
 * Unit tests: index.c, the receiver-index table (open addressing, linear
 * probing, removal by backward shift). Besides the plain cases, random
 * insert/remove sequences are checked against a reference array, with keys
 * chosen so that probe runs are long and wrap around the end of the table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "prng.h"

/* Distinct fake pointers, so an entry found can be told from another. */
static struct wb_bond *bond_for(uint32_t index)
{
	return (struct wb_bond *)(uintptr_t)(0x1000 + (uintptr_t)index * 16);
}

static struct wb_keypair *keypair_for(uint32_t index)
{
	return (struct wb_keypair *)(uintptr_t)(0x2000 + (uintptr_t)index * 32);
}

static int insert(struct wb_index_table *t, uint32_t index)
{
	struct wb_index_entry e = { .index = index, .kind = WB_INDEX_KEYPAIR, .bond = bond_for(index),
				    .keypair = keypair_for(index) };

	return wb_index_insert(t, &e);
}

static void assert_found(struct wb_index_table *t, uint32_t index)
{
	struct wb_index_entry *e = wb_index_find(t, index);

	assert_non_null(e);
	assert_int_equal(e->index, index);
	assert_int_equal(e->kind, WB_INDEX_KEYPAIR);
	assert_ptr_equal(e->bond, bond_for(index));
	assert_ptr_equal(e->keypair, keypair_for(index));
}

static void test_empty_table_finds_nothing(void **state)
{
	struct wb_index_table t;

	(void)state;
	wb_index_init(&t);
	assert_null(wb_index_find(&t, 0));
	assert_null(wb_index_find(&t, 12345));
	wb_index_remove(&t, 12345); /* removing from an empty table is harmless */
	assert_int_equal(t.count, 0);
	wb_index_free(&t);
}

static void test_insert_find_remove(void **state)
{
	struct wb_index_table t;

	(void)state;
	wb_index_init(&t);
	assert_int_equal(insert(&t, 7), 0);
	assert_int_equal(insert(&t, 0xdeadbeef), 0);
	assert_int_equal(t.count, 2);
	assert_found(&t, 7);
	assert_found(&t, 0xdeadbeef);
	assert_null(wb_index_find(&t, 8));
	/* The entry is the table's: a change through it is seen by the next find. */
	wb_index_find(&t, 7)->kind = WB_INDEX_HANDSHAKE;
	assert_int_equal(wb_index_find(&t, 7)->kind, WB_INDEX_HANDSHAKE);
	wb_index_find(&t, 7)->kind = WB_INDEX_KEYPAIR;
	wb_index_remove(&t, 7);
	assert_null(wb_index_find(&t, 7));
	assert_found(&t, 0xdeadbeef);
	assert_int_equal(t.count, 1);
	wb_index_remove(&t, 7); /* twice: nothing happens */
	assert_int_equal(t.count, 1);
	wb_index_remove(&t, 0xdeadbeef);
	assert_int_equal(t.count, 0);
	assert_null(wb_index_find(&t, 0xdeadbeef));
	/* An index removed can be inserted again. */
	assert_int_equal(insert(&t, 7), 0);
	assert_found(&t, 7);
	wb_index_free(&t);
	assert_int_equal(t.cap, 0);
	assert_null(wb_index_find(&t, 7));
}

static void test_insert_twice_is_eexist(void **state)
{
	struct wb_index_table t;
	struct wb_index_entry other = { .index = 42, .kind = WB_INDEX_HANDSHAKE, .bond = bond_for(1) };

	(void)state;
	wb_index_init(&t);
	assert_int_equal(insert(&t, 42), 0);
	assert_int_equal(wb_index_insert(&t, &other), -EEXIST);
	/* The first entry is untouched. */
	assert_found(&t, 42);
	assert_int_equal(t.count, 1);
	wb_index_free(&t);
}

static void test_grows_past_many_entries(void **state)
{
	const uint32_t n = 100000;
	struct wb_index_table t;
	struct prng rng;
	uint32_t *keys = malloc(n * sizeof(*keys));

	(void)state;
	assert_non_null(keys);
	prng_seed(&rng, 3);
	wb_index_init(&t);
	for (uint32_t i = 0; i < n; i++) {
		do {
			keys[i] = (uint32_t)prng_next(&rng);
		} while (wb_index_find(&t, keys[i]));
		assert_int_equal(insert(&t, keys[i]), 0);
		/* At most half full after every insertion. */
		assert_true(t.count * 2 <= t.cap);
	}
	assert_int_equal(t.count, n);
	for (uint32_t i = 0; i < n; i++)
		assert_found(&t, keys[i]);
	/* Remove every other one: the rest are all still there. */
	for (uint32_t i = 0; i < n; i += 2)
		wb_index_remove(&t, keys[i]);
	assert_int_equal(t.count, n / 2);
	for (uint32_t i = 0; i < n; i++) {
		if (i % 2)
			assert_found(&t, keys[i]);
		else
			assert_null(wb_index_find(&t, keys[i]));
	}
	wb_index_free(&t);
	free(keys);
}

/* Keys in arithmetic progression (a poor random source), and with the low bits all equal. */
static void test_structured_keys(void **state)
{
	struct wb_index_table t;

	(void)state;
	wb_index_init(&t);
	for (uint32_t i = 0; i < 5000; i++) {
		assert_int_equal(insert(&t, i << 16), 0);
		assert_int_equal(insert(&t, i + 1), 0);
	}
	for (uint32_t i = 0; i < 5000; i += 3) {
		wb_index_remove(&t, i << 16);
		wb_index_remove(&t, i + 1);
	}
	for (uint32_t i = 0; i < 5000; i++) {
		if (i % 3) {
			assert_found(&t, i << 16);
			assert_found(&t, i + 1);
		} else {
			assert_null(wb_index_find(&t, i << 16));
			assert_null(wb_index_find(&t, i + 1));
		}
	}
	wb_index_free(&t);
}

/* The reference: a plain array of the indices present. */
struct ref {
	uint32_t *keys;
	size_t n;
};

static ptrdiff_t ref_find(const struct ref *r, uint32_t k)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->keys[i] == k)
			return (ptrdiff_t)i;
	return -1;
}

static void check_against(struct wb_index_table *t, const struct ref *r, const uint32_t *pool, size_t pool_n)
{
	assert_int_equal(t->count, r->n);
	for (size_t i = 0; i < pool_n; i++) {
		if (ref_find(r, pool[i]) >= 0)
			assert_found(t, pool[i]);
		else
			assert_null(wb_index_find(t, pool[i]));
	}
}

/* Random inserts and removes over a pool of keys, the table checked in full after each step. */
static void random_sequence(const uint32_t *pool, size_t pool_n, size_t max_live, int steps, uint64_t seed)
{
	struct wb_index_table t;
	struct ref r = { .keys = calloc(pool_n, sizeof(uint32_t)) };
	struct prng rng;

	assert_non_null(r.keys);
	prng_seed(&rng, seed);
	wb_index_init(&t);
	for (int s = 0; s < steps; s++) {
		uint32_t k = pool[prng_next(&rng) % pool_n];
		ptrdiff_t at = ref_find(&r, k);
		bool do_insert = r.n < max_live && (prng_next(&rng) % 2 || !r.n);

		if (do_insert) {
			assert_int_equal(insert(&t, k), at >= 0 ? -EEXIST : 0);
			if (at < 0)
				r.keys[r.n++] = k;
		} else {
			wb_index_remove(&t, k);
			if (at >= 0)
				r.keys[at] = r.keys[--r.n];
		}
		check_against(&t, &r, pool, pool_n);
	}
	wb_index_free(&t);
	free(r.keys);
}

/* The slot the table puts an index in first, for a table of cap slots (index.c's hash). */
static uint32_t home_at(uint32_t index, uint32_t cap)
{
	return (index * 2654435761u) & (cap - 1);
}

static void test_random_sequences_match_a_reference(void **state)
{
	uint32_t pool[400];
	struct prng rng;

	(void)state;
	prng_seed(&rng, 11);
	for (size_t i = 0; i < 400; i++)
		pool[i] = (uint32_t)prng_next(&rng);
	random_sequence(pool, 400, 400, 6000, 1);
	/* Keys whose low 20 bits are zero all have slot 0 as their home: one long run. */
	for (uint32_t i = 0; i < 40; i++)
		pool[i] = i << 20;
	random_sequence(pool, 40, 40, 4000, 2);
}

/*
 * With at most 8 entries the table stays at 16 slots. Keys whose home is one
 * of the last two slots or the first two make runs that wrap around the end,
 * which is where a backward shift is easiest to get wrong.
 */
static void test_runs_that_wrap_around_the_end(void **state)
{
	uint32_t pool[24];
	size_t n = 0;

	(void)state;
	for (uint32_t k = 1; n < 24; k++) {
		uint32_t h = home_at(k, 16);

		if (h >= 14 || h <= 1)
			pool[n++] = k;
	}
	for (uint64_t seed = 1; seed <= 20; seed++)
		random_sequence(pool, n, 8, 1500, seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_table_finds_nothing),
		cmocka_unit_test(test_insert_find_remove),
		cmocka_unit_test(test_insert_twice_is_eexist),
		cmocka_unit_test(test_grows_past_many_entries),
		cmocka_unit_test(test_structured_keys),
		cmocka_unit_test(test_random_sequences_match_a_reference),
		cmocka_unit_test(test_runs_that_wrap_around_the_end),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
