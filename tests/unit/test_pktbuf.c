// SPDX-License-Identifier: MIT
/*
 * Unit tests: pktbuf.c, the pool of packet buffers: sizes and alignment,
 * the limit, reuse through the free list, the memory it reports; memory
 * given back after a window or two of little use, never a chunk with a
 * buffer out; a cap shared by several pools that holds, and the share that
 * keeps one pool from starving another. Every buffer is written whole:
 * under ASan an overlap, an overrun or a buffer of a freed chunk is a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "pktbuf.h"

#define SEC 1000000000ULL
#define W WB_PKTBUF_WINDOW_NS
#define MTU_SLOT 1413

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

/* How many buffers the chunk of buffer b has. */
static uint32_t chunk_size_of(const struct wb_pktbuf_pool *p, const uint8_t *b)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		if (b >= p->chunks[i].mem && b < p->chunks[i].mem + (size_t)p->chunks[i].n * p->slot)
			return p->chunks[i].n;
	fail_msg("buffer %p is in none of the pool's chunks", (const void *)b);
	return 0;
}

/* n buffers out of p, each written whole with its index; NULL-free or the test fails. */
static uint8_t **take(struct wb_pktbuf_pool *p, uint32_t n)
{
	uint8_t **b = calloc(n ? n : 1, sizeof(*b));

	assert_non_null(b);
	for (uint32_t i = 0; i < n; i++) {
		b[i] = wb_pktbuf_get(p);
		assert_non_null(b[i]);
		memset(b[i], (int)(i & 0xff), p->slot);
	}
	return b;
}

static void give_back(struct wb_pktbuf_pool *p, uint8_t **b, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++)
		wb_pktbuf_put(p, b[i]);
}

/* How many buffers p gives before it refuses; they stay out, in *out. */
static uint32_t take_all(struct wb_pktbuf_pool *p, uint8_t ***out)
{
	uint32_t n = 0, cap = 1024;
	uint8_t **b = malloc(cap * sizeof(*b)), *x;

	assert_non_null(b);
	while ((x = wb_pktbuf_get(p))) {
		if (n == cap) {
			cap *= 2;
			b = realloc(b, cap * sizeof(*b));
			assert_non_null(b);
		}
		memset(x, 0x5a, p->slot);
		b[n++] = x;
	}
	*out = b;
	return n;
}

/*
 * pktbuf.h: a pool "keeps what its busiest moment of the last one or two
 * windows held ... and frees the whole chunks beyond it". A burst of 5000,
 * all back at once: kept through the window of the burst and the next one,
 * given back at the end of the first quiet window, and then the pool asks
 * for no tick until it holds memory again.
 */
static void test_memory_given_back_after_a_quiet_window(void **state)
{
	const uint64_t t0 = 100 * SEC;
	struct wb_pktbuf_pool p;
	uint8_t **b;

	(void)state;
	wb_pktbuf_init(&p, MTU_SLOT, 100000);
	assert_int_equal(wb_pktbuf_trim(&p, t0), 0); /* the first window opens */
	assert_int_equal(wb_pktbuf_deadline(&p), UINT64_MAX); /* nothing held: no tick wanted */
	b = take(&p, 5000);
	give_back(&p, b, 0, 5000);
	assert_int_equal(p.in_use, 0);
	assert_true(wb_pktbuf_memory(&p) >= 5000ull * p.slot);
	assert_int_equal(wb_pktbuf_deadline(&p), t0 + W);
	/*
	 * Within the burst's window, all kept; through the next, what the burst
	 * needed: the chunks beyond the 5000 (less than one of 256) may go.
	 */
	assert_int_equal(wb_pktbuf_trim(&p, t0 + W - 1), 0);
	wb_pktbuf_trim(&p, t0 + W);
	assert_true(wb_pktbuf_memory(&p) >= 5000ull * p.slot);
	assert_true(wb_pktbuf_memory(&p) < 5256ull * p.slot);
	assert_int_equal(wb_pktbuf_deadline(&p), t0 + 2 * W);
	assert_int_equal(wb_pktbuf_trim(&p, t0 + 2 * W - 1), 0);
	/* A whole window with nothing in use: everything back. */
	assert_true(wb_pktbuf_trim(&p, t0 + 2 * W) >= 5000ull * p.slot);
	assert_int_equal(wb_pktbuf_memory(&p), 0);
	assert_int_equal(p.nchunks, 0);
	assert_int_equal(wb_pktbuf_deadline(&p), UINT64_MAX);
	assert_true(p.high_water >= 5000); /* the peak stays for the operator */
	/* And it grows again as before. */
	free(b);
	b = take(&p, 300);
	give_back(&p, b, 0, 300);
	free(b);
	wb_pktbuf_destroy(&p);
}

/*
 * A bond that stays busy keeps its buffers: a window in which 3000 were in
 * use at some moment keeps 3000, whatever is in use at the window's end.
 */
static void test_a_busy_pool_keeps_its_memory(void **state)
{
	uint64_t t = 10 * SEC, before;
	struct wb_pktbuf_pool p;
	uint8_t **b;

	(void)state;
	wb_pktbuf_init(&p, MTU_SLOT, 100000);
	wb_pktbuf_trim(&p, t);
	b = take(&p, 3000);
	before = wb_pktbuf_memory(&p);
	for (int w = 1; w <= 6; w++) {
		/* Each window: all back, then 3000 out again before it ends. */
		give_back(&p, b, 0, 3000);
		free(b);
		b = take(&p, 3000);
		assert_int_equal(wb_pktbuf_trim(&p, t + w * W), 0);
		assert_int_equal(wb_pktbuf_memory(&p), before);
	}
	give_back(&p, b, 0, 3000);
	free(b);
	wb_pktbuf_destroy(&p);
}

/*
 * The low-water mark: an idle bond with a ping out now and then (one buffer
 * in use at a time) keeps one small chunk, not its largest: chunks are
 * freed largest first.
 */
static void test_an_idle_pool_keeps_a_small_chunk(void **state)
{
	uint64_t t = 10 * SEC;
	struct wb_pktbuf_pool p;
	uint8_t **b, *ping;

	(void)state;
	wb_pktbuf_init(&p, MTU_SLOT, 100000);
	wb_pktbuf_trim(&p, t);
	b = take(&p, 2000);
	give_back(&p, b, 0, 2000);
	free(b);
	for (int w = 1; w <= 3; w++) {
		ping = wb_pktbuf_get(&p);
		assert_non_null(ping);
		memset(ping, 1, p.slot);
		wb_pktbuf_put(&p, ping);
		wb_pktbuf_trim(&p, t + w * W);
	}
	assert_int_equal(p.nchunks, 1);
	assert_true(p.allocated >= 1 && p.allocated <= 32);
	assert_true(wb_pktbuf_memory(&p) <= 32ull * p.slot);
	wb_pktbuf_destroy(&p);
}

/*
 * A chunk with a buffer still out is never freed, however long the pool is
 * idle: one buffer in every 97 of the first 500 kept out (a send buffer
 * waiting for an ack), written after the trims (ASan: a freed chunk would
 * be a crash); the free list then holds no buffer of a freed chunk (every
 * buffer it gives is written whole).
 */
static void test_a_chunk_with_a_buffer_out_stays(void **state)
{
	const uint32_t n = 4000;
	uint64_t t = 10 * SEC;
	struct wb_pktbuf_pool p;
	uint8_t **b, **again;
	uint32_t out = 0, kept, spare;

	(void)state;
	wb_pktbuf_init(&p, MTU_SLOT, 100000);
	wb_pktbuf_trim(&p, t);
	b = take(&p, n);
	for (uint32_t i = 0; i < n; i++) {
		if (i % 97 || i >= 500) {
			wb_pktbuf_put(&p, b[i]);
			b[i] = NULL;
		} else {
			out++;
		}
	}
	for (int w = 1; w <= 3; w++)
		wb_pktbuf_trim(&p, t + w * W);
	assert_int_equal(p.in_use, out);
	assert_true(p.allocated < n);             /* some chunks went */
	assert_true(p.allocated >= out);
	for (uint32_t i = 0; i < n; i++)
		if (b[i])
			memset(b[i], 7, p.slot);
	/* What the free list gives now is memory the pool still owns, and no more than it kept. */
	kept = p.allocated;
	spare = p.allocated - p.in_use;
	again = take(&p, spare);
	assert_int_equal(p.allocated, kept);
	give_back(&p, again, 0, spare);
	for (uint32_t i = 0; i < n; i++)
		if (b[i])
			wb_pktbuf_put(&p, b[i]);
	assert_int_equal(p.in_use, 0);
	free(again);
	free(b);
	wb_pktbuf_destroy(&p);
}

/*
 * A buffer out in a big chunk when the pool is trimmed (a ping in flight
 * just then) does not make the pool keep that chunk for good: the pool
 * keeps its smallest chunk, the big one drains (its buffer, back, goes to
 * the end of the free list, the next pings take from the small chunk) and
 * goes at the next trim. Busy again before that, the draining chunk's
 * buffers are taken before the pool grows.
 */
static void test_a_big_chunk_with_a_buffer_out_drains(void **state)
{
	uint64_t t = 10 * SEC;
	struct wb_pktbuf_pool p;
	uint8_t **b, *ping, **again;
	uint32_t spare, had;

	(void)state;
	wb_pktbuf_init(&p, MTU_SLOT, 100000);
	wb_pktbuf_trim(&p, t);
	b = take(&p, 2000);
	give_back(&p, b, 0, 1999); /* b[1999], the last, is in the last chunk taken */
	wb_pktbuf_trim(&p, t + W);
	wb_pktbuf_trim(&p, t + 2 * W); /* a quiet window with one buffer out: keep 1 */
	assert_int_equal(p.nchunks, 2);
	assert_int_equal(p.draining, 1);
	assert_true(p.allocated <= 16 + 256);
	wb_pktbuf_put(&p, b[1999]);
	for (int i = 0; i < 20; i++) {
		ping = wb_pktbuf_get(&p);
		assert_int_equal(chunk_size_of(&p, ping), 16);
		memset(ping, 3, p.slot);
		wb_pktbuf_put(&p, ping);
	}
	wb_pktbuf_trim(&p, t + 3 * W);
	assert_int_equal(p.nchunks, 1);
	assert_int_equal(p.allocated, 16);
	assert_int_equal(p.draining, 0);
	free(b);
	/* Again: this time busy before the next trim, and the draining chunk serves first. */
	b = take(&p, 2000);
	give_back(&p, b, 0, 1999);
	wb_pktbuf_trim(&p, t + 4 * W);
	wb_pktbuf_trim(&p, t + 5 * W);
	assert_int_equal(p.draining, 1);
	wb_pktbuf_put(&p, b[1999]);
	had = p.allocated;
	spare = p.allocated - p.in_use;
	again = take(&p, spare);
	assert_int_equal(p.allocated, had);
	give_back(&p, again, 0, spare);
	free(again);
	free(b);
	wb_pktbuf_destroy(&p);
}

/*
 * The cap holds: pools sharing a limit never allocate more than it between
 * them, whatever they ask; a get refused at the cap is counted; memory
 * given back is room again for the others; destroyed pools leave the limit.
 */
static void test_the_cap_holds(void **state)
{
	const uint64_t cap = 1ull << 20;
	struct wb_pktbuf_limit l;
	struct wb_pktbuf_pool p[3];
	uint8_t **b[3];
	uint32_t n[3];

	(void)state;
	wb_pktbuf_limit_init(&l, cap);
	for (int i = 0; i < 3; i++) {
		wb_pktbuf_init(&p[i], MTU_SLOT, 100000); /* each alone could take 140 MB */
		wb_pktbuf_attach(&p[i], &l);
	}
	assert_int_equal(l.pools, 3);
	for (int i = 0; i < 3; i++) {
		n[i] = take_all(&p[i], &b[i]);
		assert_true(n[i] > 0);
		assert_true(l.allocated <= cap);
	}
	assert_true(l.allocated <= cap);
	assert_true(l.high_water <= cap);
	assert_int_equal(l.allocated, wb_pktbuf_memory(&p[0]) + wb_pktbuf_memory(&p[1]) + wb_pktbuf_memory(&p[2]));
	assert_true(l.refused >= 3);
	assert_null(wb_pktbuf_get(&p[0]));
	assert_false(wb_pktbuf_available(&p[0]));
	/* Pool 0 gives everything back: after its quiet window the others can grow into it. */
	give_back(&p[0], b[0], 0, n[0]);
	wb_pktbuf_trim(&p[0], 10 * SEC);
	wb_pktbuf_trim(&p[0], 10 * SEC + W);
	assert_int_equal(wb_pktbuf_memory(&p[0]), 0);
	free(b[0]);
	n[0] = take_all(&p[1], &b[0]);
	assert_true(n[0] > 0);
	assert_true(l.allocated <= cap);
	give_back(&p[1], b[0], 0, n[0]);
	give_back(&p[1], b[1], 0, n[1]);
	give_back(&p[2], b[2], 0, n[2]);
	for (int i = 0; i < 3; i++) {
		free(b[i]);
		wb_pktbuf_destroy(&p[i]);
	}
	assert_int_equal(l.allocated, 0);
	assert_int_equal(l.pools, 0);
}

/*
 * One pool alone under a cap may use all of it: the share is for sharing
 * (a client's one bond).
 */
static void test_a_lone_pool_may_use_the_whole_cap(void **state)
{
	const uint64_t cap = 2ull << 20;
	struct wb_pktbuf_limit l;
	struct wb_pktbuf_pool p;
	uint8_t **b;
	uint32_t n;

	(void)state;
	wb_pktbuf_limit_init(&l, cap);
	wb_pktbuf_init(&p, MTU_SLOT, 100000);
	wb_pktbuf_attach(&p, &l);
	n = take_all(&p, &b);
	assert_true(l.allocated <= cap);
	assert_true(l.allocated > cap - p.slot); /* all of it, to the last whole buffer */
	give_back(&p, b, 0, n);
	free(b);
	wb_pktbuf_destroy(&p);
}

/*
 * pktbuf.h: "a busy bond cannot starve another, nor all of them the
 * device". One pool takes all it can: it stops at half the cap. A second
 * then still gets half of what is left, a third a share of the rest; with
 * eight pools greedy in turn, each has got something and a ninth still
 * can, and the cap holds throughout.
 */
static void test_one_pool_cannot_starve_another(void **state)
{
	enum { N = 9 };
	const uint64_t cap = 8ull << 20;
	struct wb_pktbuf_limit l;
	struct wb_pktbuf_pool p[N];
	uint8_t **b[N];
	uint32_t n[N];

	(void)state;
	wb_pktbuf_limit_init(&l, cap);
	for (int i = 0; i < N; i++) {
		wb_pktbuf_init(&p[i], MTU_SLOT, 100000);
		wb_pktbuf_attach(&p[i], &l);
	}
	n[0] = take_all(&p[0], &b[0]);
	assert_true(wb_pktbuf_memory(&p[0]) <= cap / 2);
	assert_true(wb_pktbuf_memory(&p[0]) > cap / 2 - 2 * p[0].slot);
	n[1] = take_all(&p[1], &b[1]);
	/* Of the cap/2 left, it takes half: cap/4. */
	assert_true(wb_pktbuf_memory(&p[1]) <= cap / 4);
	assert_true(wb_pktbuf_memory(&p[1]) > cap / 4 - 2 * p[1].slot);
	for (int i = 2; i < N - 1; i++) {
		n[i] = take_all(&p[i], &b[i]);
		assert_true(n[i] > 0);
		assert_true(l.allocated <= cap);
		/* What it holds is no more than what it leaves free. */
		assert_true(wb_pktbuf_memory(&p[i]) <= cap - l.allocated);
	}
	/* The last one, after all the greedy ones, still finds a buffer. */
	assert_true(wb_pktbuf_available(&p[N - 1]));
	n[N - 1] = take_all(&p[N - 1], &b[N - 1]);
	assert_true(n[N - 1] > 0);
	assert_true(l.allocated <= cap);
	for (int i = 0; i < N; i++) {
		give_back(&p[i], b[i], 0, n[i]);
		free(b[i]);
		wb_pktbuf_destroy(&p[i]);
	}
	assert_int_equal(l.allocated, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_holds_the_packet_and_is_aligned),
		cmocka_unit_test(test_small_slots_hold_the_packet_and_are_aligned),
		cmocka_unit_test(test_limit_and_reuse),
		cmocka_unit_test(test_allocates_as_needed),
		cmocka_unit_test(test_destroy_with_buffers_out),
		cmocka_unit_test(test_memory_given_back_after_a_quiet_window),
		cmocka_unit_test(test_a_busy_pool_keeps_its_memory),
		cmocka_unit_test(test_an_idle_pool_keeps_a_small_chunk),
		cmocka_unit_test(test_a_chunk_with_a_buffer_out_stays),
		cmocka_unit_test(test_a_big_chunk_with_a_buffer_out_drains),
		cmocka_unit_test(test_the_cap_holds),
		cmocka_unit_test(test_a_lone_pool_may_use_the_whole_cap),
		cmocka_unit_test(test_one_pool_cannot_starve_another),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
