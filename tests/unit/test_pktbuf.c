// SPDX-License-Identifier: MIT
/*
 * Unit tests: pktbuf.c, the pool of packet buffers: sizes and alignment,
 * the limit, reuse through the free list, the memory it reports. Every
 * buffer is written whole: under ASan an overlap or an overrun is a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "pktbuf.h"

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t) * (uint8_t *const *)a, y = (uintptr_t) * (uint8_t *const *)b;

	return x < y ? -1 : x > y;
}

static void check_slots(uint32_t from, uint32_t to)
{
	for (uint32_t want = from; want <= to; want += want < 80 ? 1 : 61) {
		struct wb_pktbuf_pool p;
		uint8_t *b[3];

		wb_pktbuf_init(&p, want, 3);
		assert_true(p.slot >= want);
		assert_true(p.slot >= sizeof(void *));
		assert_true(p.slot < want + 16 + sizeof(void *));
		for (int i = 0; i < 3; i++) {
			b[i] = wb_pktbuf_get(&p);
			assert_non_null(b[i]);
			/* pktbuf.c: "16-byte alignment of every buffer". */
			assert_int_equal((uintptr_t)b[i] % 16, 0);
			memset(b[i], i + 1, want);
		}
		for (int i = 0; i < 3; i++)
			for (uint32_t k = 0; k < want; k++)
				assert_int_equal(b[i][k], i + 1);
		for (int i = 0; i < 3; i++)
			wb_pktbuf_put(&p, b[i]);
		wb_pktbuf_destroy(&p);
	}
}

static void test_slot_holds_the_packet_and_is_aligned(void **state)
{
	(void)state;
	check_slots(8, 1600);
}

/*
 * Slots asked smaller than a pointer: pktbuf.c makes room "for the
 * free-list link" (8 bytes), then rounds to 16 for the alignment.
 */
static void test_small_slots_hold_the_packet_and_are_aligned(void **state)
{
	(void)state;
	check_slots(1, 7);
}

static void test_limit_and_reuse(void **state)
{
	const uint32_t max = 1000, slot = 1413;
	struct wb_pktbuf_pool p;
	uint8_t **b = calloc(max, sizeof(*b));

	(void)state;
	assert_non_null(b);
	wb_pktbuf_init(&p, slot, max);
	assert_int_equal(wb_pktbuf_memory(&p), 0); /* nothing until asked */
	for (uint32_t i = 0; i < max; i++) {
		b[i] = wb_pktbuf_get(&p);
		assert_non_null(b[i]);
		memset(b[i], (int)(i & 0xff), slot);
		assert_int_equal(p.in_use, i + 1);
		assert_true(p.allocated >= p.in_use && p.allocated <= max);
	}
	assert_null(wb_pktbuf_get(&p));
	assert_null(wb_pktbuf_get(&p));
	assert_int_equal(p.in_use, max);
	assert_int_equal(p.allocated, max);
	assert_int_equal(wb_pktbuf_memory(&p), (uint64_t)max * p.slot);
	/* Distinct, and a slot apart at least: none overlaps another. */
	qsort(b, max, sizeof(*b), cmp_ptr);
	for (uint32_t i = 1; i < max; i++)
		assert_true(b[i] >= b[i - 1] + p.slot);
	for (uint32_t i = 0; i < max; i++)
		for (uint32_t k = 0; k < slot; k += 97)
			assert_int_equal(b[i][k], b[i][0]);
	/* Back, and out again: the same buffers, nothing more allocated. */
	for (uint32_t i = 0; i < max; i += 2)
		wb_pktbuf_put(&p, b[i]);
	assert_int_equal(p.in_use, max / 2);
	for (uint32_t i = 0; i < max; i += 2) {
		uint8_t *again = wb_pktbuf_get(&p);

		assert_non_null(again);
		assert_non_null(bsearch(&again, b, max, sizeof(*b), cmp_ptr));
	}
	assert_null(wb_pktbuf_get(&p));
	assert_int_equal(p.allocated, max);
	for (uint32_t i = 0; i < max; i++)
		wb_pktbuf_put(&p, b[i]);
	assert_int_equal(p.in_use, 0);
	assert_int_equal(wb_pktbuf_memory(&p), (uint64_t)max * p.slot);
	wb_pktbuf_destroy(&p);
	assert_int_equal(wb_pktbuf_memory(&p), 0);
	free(b);
}

/* Memory grows as buffers are asked for, in chunks, not all at once. */
static void test_allocates_as_needed(void **state)
{
	struct wb_pktbuf_pool p;
	uint8_t *b;

	(void)state;
	wb_pktbuf_init(&p, 1500, 1u << 20);
	b = wb_pktbuf_get(&p);
	assert_non_null(b);
	assert_true(p.allocated >= 1 && p.allocated <= 1024);
	wb_pktbuf_put(&p, b);
	wb_pktbuf_destroy(&p);
	/* A pool of none gives none. */
	wb_pktbuf_init(&p, 1500, 0);
	assert_null(wb_pktbuf_get(&p));
	assert_int_equal(wb_pktbuf_memory(&p), 0);
	wb_pktbuf_destroy(&p);
}

/* destroy frees every chunk, with buffers still out (a bond torn down): ASan's leak check tells. */
static void test_destroy_with_buffers_out(void **state)
{
	struct wb_pktbuf_pool p;

	(void)state;
	wb_pktbuf_init(&p, 64, 5000);
	for (int i = 0; i < 3000; i++)
		assert_non_null(wb_pktbuf_get(&p));
	wb_pktbuf_destroy(&p);
	assert_int_equal(p.in_use, 0);
	assert_int_equal(p.allocated, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_holds_the_packet_and_is_aligned),
		cmocka_unit_test(test_small_slots_hold_the_packet_and_are_aligned),
		cmocka_unit_test(test_limit_and_reuse),
		cmocka_unit_test(test_allocates_as_needed),
		cmocka_unit_test(test_destroy_with_buffers_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
