// SPDX-License-Identifier: MIT
/*
 * Unit tests: sndbuf.c, the bond's send buffer: DSNs given in order, the
 * cumulative ack freeing buffers, delivered flags, the resend queue (a
 * min-heap, checked against a sorted reference), growth past its first
 * ring with wrapping, its packet limit, and window units.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pktbuf.h"
#include "prng.h"
#include "sndbuf.h"

static struct wb_pktbuf_pool pool;
static struct wb_sndbuf s;

static int setup(void **state)
{
	(void)state;
	wb_pktbuf_init(&pool, 64, 1u << 21);
	return wb_sndbuf_init(&s);
}

static int teardown(void **state)
{
	(void)state;
	wb_sndbuf_free(&s, &pool);
	/* Every buffer came back. */
	if (pool.in_use)
		return -1;
	wb_pktbuf_destroy(&pool);
	return 0;
}

/* Pushes a buffer holding its DSN and length; returns the DSN. */
static uint64_t push(uint16_t len)
{
	uint8_t *b = wb_pktbuf_get(&pool);
	uint64_t dsn = UINT64_MAX, expect = s.nxt;

	assert_non_null(b);
	memcpy(b, &expect, sizeof(expect));
	memcpy(b + 8, &len, sizeof(len));
	assert_int_equal(wb_sndbuf_push(&s, b, len, &dsn), 0);
	assert_int_equal(dsn, expect);
	return dsn;
}

static void assert_entry(uint64_t dsn)
{
	struct wb_sndbuf_entry *e = wb_sndbuf_get(&s, dsn);
	uint64_t in;
	uint16_t len;

	assert_non_null(e);
	memcpy(&in, e->data, sizeof(in));
	memcpy(&len, e->data + 8, sizeof(len));
	assert_int_equal(in, dsn);
	assert_int_equal(len, e->len);
}

static void test_window_units(void **state)
{
	(void)state;
	assert_int_equal(wb_window_bytes(0), WB_WINDOW_MIN_UNIT);
	assert_int_equal(wb_window_bytes(1), 256);
	assert_int_equal(wb_window_bytes(255), 256);
	assert_int_equal(wb_window_bytes(256), 256);
	assert_int_equal(wb_window_bytes(257), 257);
	assert_int_equal(wb_window_bytes(1500), 1500);
	assert_int_equal(wb_window_bytes(65535), 65535);
}

static void test_push_get_and_ack_cum(void **state)
{
	(void)state;
	assert_null(wb_sndbuf_get(&s, 0));
	for (uint16_t i = 0; i < 10; i++)
		assert_int_equal(push((uint16_t)(100 * i + 20)), i);
	/* 20, 120, 220: 256 each; then their lengths. */
	assert_int_equal(s.bytes, 3 * 256 + 320 + 420 + 520 + 620 + 720 + 820 + 920);
	assert_int_equal(s.una, 0);
	assert_int_equal(s.nxt, 10);
	for (uint64_t d = 0; d < 10; d++) {
		struct wb_sndbuf_entry *e = wb_sndbuf_get(&s, d);

		assert_entry(d);
		assert_int_equal(e->flags, 0);
		assert_int_equal(e->holders, 0);
		assert_int_equal(e->sends, 0);
	}
	assert_null(wb_sndbuf_get(&s, 10));
	assert_null(wb_sndbuf_get(&s, UINT64_MAX));
	/* The peer has 0..3: freed, their buffers back in the pool. */
	assert_int_equal(wb_sndbuf_ack_cum(&s, 4, &pool), 4);
	assert_int_equal(s.una, 4);
	assert_int_equal(pool.in_use, 6);
	assert_int_equal(s.bytes, 420 + 520 + 620 + 720 + 820 + 920);
	assert_null(wb_sndbuf_get(&s, 3));
	assert_entry(4);
	/* An old cum changes nothing; one past what was sent frees only what there is. */
	assert_int_equal(wb_sndbuf_ack_cum(&s, 2, &pool), 0);
	assert_int_equal(wb_sndbuf_ack_cum(&s, 4, &pool), 0);
	assert_int_equal(wb_sndbuf_ack_cum(&s, 1000, &pool), 6);
	assert_int_equal(s.una, 10);
	assert_int_equal(s.bytes, 0);
	assert_int_equal(pool.in_use, 0);
	/* DSNs go on. */
	assert_int_equal(push(60), 10);
}

static void test_mark_delivered(void **state)
{
	(void)state;
	for (int i = 0; i < 5; i++)
		push(100);
	wb_sndbuf_mark_delivered(&s, 2);
	assert_int_equal(wb_sndbuf_get(&s, 2)->flags, WB_SND_DELIVERED);
	assert_int_equal(wb_sndbuf_get(&s, 1)->flags, 0);
	/* Outside the buffer: nothing, no crash. */
	wb_sndbuf_mark_delivered(&s, 5);
	wb_sndbuf_mark_delivered(&s, UINT64_MAX);
	wb_sndbuf_ack_cum(&s, 2, &pool);
	wb_sndbuf_mark_delivered(&s, 1);
	assert_int_equal(wb_sndbuf_get(&s, 2)->flags, WB_SND_DELIVERED);
	/* Delivered is not freed: only the cumulative ack frees. */
	assert_int_equal(s.bytes, 3 * 256);
}

/* Growth past the first ring, wrapped: every entry keeps its buffer. */
static void test_growth_keeps_every_entry(void **state)
{
	uint64_t d;

	(void)state;
	for (int i = 0; i < 900; i++)
		push((uint16_t)(20 + i % 1400));
	wb_sndbuf_ack_cum(&s, 800, &pool);
	wb_sndbuf_mark_delivered(&s, 850);
	for (int i = 0; i < 5000; i++)
		push((uint16_t)(20 + i % 1400));
	assert_true(s.cap >= 8192);
	assert_int_equal(s.cap & (s.cap - 1), 0);
	for (d = 800; d < s.nxt; d++)
		assert_entry(d);
	assert_int_equal(wb_sndbuf_get(&s, 850)->flags, WB_SND_DELIVERED);
	assert_int_equal(wb_sndbuf_get(&s, 851)->flags, 0);
	/* A reused slot starts clean. */
	for (d = 900; d < s.nxt; d++) {
		assert_int_equal(wb_sndbuf_get(&s, d)->flags, 0);
		assert_int_equal(wb_sndbuf_get(&s, d)->holders, 0);
	}
}

static void test_reused_slot_starts_clean(void **state)
{
	struct wb_sndbuf_entry *e;

	(void)state;
	push(100);
	e = wb_sndbuf_get(&s, 0);
	e->holders = 0x8001;
	e->sends = 3;
	e->first_sent_ns = 99;
	wb_sndbuf_mark_delivered(&s, 0);
	wb_sndbuf_queue_retx(&s, 0); /* delivered: not queued */
	assert_int_equal(s.retx_n, 0);
	wb_sndbuf_ack_cum(&s, 1, &pool);
	/* The ring's first size later, the same slot. */
	for (uint32_t i = 1; i < s.cap; i++) {
		push(100);
		wb_sndbuf_ack_cum(&s, s.nxt, &pool);
	}
	push(100);
	e = wb_sndbuf_get(&s, s.nxt - 1);
	assert_int_equal((s.nxt - 1) & (s.cap - 1), 0);
	assert_int_equal(e->holders, 0);
	assert_int_equal(e->sends, 0);
	assert_int_equal(e->flags, 0);
	assert_int_equal(e->first_sent_ns, 0);
}

/* The resend queue gives the lowest DSN first, each once, skipping what is gone or delivered. */
static void test_retx_queue_against_a_sorted_reference(void **state)
{
	struct prng rng;
	uint8_t *queued = calloc(1u << 16, 1);

	(void)state;
	assert_non_null(queued);
	prng_seed(&rng, 9);
	for (int i = 0; i < 20000; i++)
		push(100);
	for (int step = 0; step < 200000; step++) {
		uint64_t k = prng_next(&rng) % 100, d = prng_next(&rng) % s.nxt;

		if (k < 50) {
			struct wb_sndbuf_entry *e = wb_sndbuf_get(&s, d);
			bool takes = e && !(e->flags & WB_SND_DELIVERED);

			wb_sndbuf_queue_retx(&s, d);
			if (takes)
				queued[d] = 1;
			if (takes)
				assert_true(e->flags & WB_SND_RETX_QUEUED);
		} else if (k < 60) {
			wb_sndbuf_mark_delivered(&s, d);
			if (d >= s.una)
				queued[d] = 0;
		} else if (k < 62) {
			uint64_t cum = s.una + prng_next(&rng) % 200;

			wb_sndbuf_ack_cum(&s, cum, &pool);
			for (uint64_t x = 0; x < s.una; x++)
				queued[x] = 0;
		} else {
			uint64_t expect = UINT64_MAX, got = wb_sndbuf_peek_retx(&s);

			for (uint64_t x = s.una; x < s.nxt; x++)
				if (queued[x]) {
					expect = x;
					break;
				}
			assert_int_equal(got, expect);
			if (got != UINT64_MAX && k < 90) {
				assert_true(wb_sndbuf_get(&s, got)->flags & WB_SND_RETX_QUEUED);
				wb_sndbuf_pop_retx(&s);
				assert_false(wb_sndbuf_get(&s, got)->flags & WB_SND_RETX_QUEUED);
				queued[got] = 0;
			}
		}
	}
	/* Drain: ascending, each once. */
	for (uint64_t last = 0, got; (got = wb_sndbuf_peek_retx(&s)) != UINT64_MAX; last = got) {
		assert_true(got >= last);
		assert_int_equal(queued[got], 1);
		queued[got] = 0;
		wb_sndbuf_pop_retx(&s);
		assert_true(wb_sndbuf_peek_retx(&s) != got);
	}
	for (uint64_t x = 0; x < s.nxt; x++)
		assert_int_equal(queued[x], 0);
	/* Popping an empty queue does nothing. */
	wb_sndbuf_pop_retx(&s);
	assert_int_equal(s.retx_n, 0);
	free(queued);
}

static void test_retx_of_gone_or_twice(void **state)
{
	(void)state;
	for (int i = 0; i < 10; i++)
		push(100);
	wb_sndbuf_queue_retx(&s, 5);
	wb_sndbuf_queue_retx(&s, 5);
	wb_sndbuf_queue_retx(&s, 3);
	wb_sndbuf_queue_retx(&s, 10); /* not sent yet */
	wb_sndbuf_queue_retx(&s, UINT64_MAX);
	assert_int_equal(s.retx_n, 2);
	assert_int_equal(wb_sndbuf_peek_retx(&s), 3);
	/* 3 is acked meanwhile: the peek drops it, 5 is next. */
	wb_sndbuf_ack_cum(&s, 4, &pool);
	assert_int_equal(wb_sndbuf_peek_retx(&s), 5);
	assert_int_equal(s.retx_n, 1);
	wb_sndbuf_queue_retx(&s, 2); /* gone */
	assert_int_equal(s.retx_n, 1);
	wb_sndbuf_pop_retx(&s);
	assert_int_equal(wb_sndbuf_peek_retx(&s), UINT64_MAX);
	/* Popped: it may be queued again (lost again). */
	wb_sndbuf_queue_retx(&s, 5);
	assert_int_equal(wb_sndbuf_peek_retx(&s), 5);
}

/* The packet limit: 2^20 entries, then -ENOSPC with nothing changed. */
static void test_packet_limit(void **state)
{
	uint8_t *b;
	uint64_t dsn = 12345, bytes;

	(void)state;
	for (uint32_t i = 0; i < WB_SNDBUF_MAX_PACKETS; i++) {
		b = wb_pktbuf_get(&pool);
		assert_non_null(b);
		assert_int_equal(wb_sndbuf_push(&s, b, 10, &dsn), 0);
	}
	assert_int_equal(dsn, WB_SNDBUF_MAX_PACKETS - 1);
	bytes = s.bytes;
	b = wb_pktbuf_get(&pool);
	assert_non_null(b);
	assert_int_equal(wb_sndbuf_push(&s, b, 10, &dsn), -ENOSPC);
	assert_int_equal(dsn, WB_SNDBUF_MAX_PACKETS - 1);
	assert_int_equal(s.nxt, WB_SNDBUF_MAX_PACKETS);
	assert_int_equal(s.bytes, bytes);
	wb_pktbuf_put(&pool, b);
	/* One freed: room for one. */
	wb_sndbuf_ack_cum(&s, 1, &pool);
	b = wb_pktbuf_get(&pool);
	assert_int_equal(wb_sndbuf_push(&s, b, 10, &dsn), 0);
	assert_int_equal(dsn, WB_SNDBUF_MAX_PACKETS);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_units),
		T(test_push_get_and_ack_cum),
		T(test_mark_delivered),
		T(test_growth_keeps_every_entry),
		T(test_reused_slot_starts_clean),
		T(test_retx_queue_against_a_sorted_reference),
		T(test_retx_of_gone_or_twice),
		T(test_packet_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
