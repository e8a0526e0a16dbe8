// SPDX-License-Identifier: MIT
/*
 * Unit tests: reorder.c, the receiver's reorder buffer: in-order packets go
 * straight through, out-of-order ones wait and drain in DSN order,
 * duplicates (below nxt, or held) are refused, the window is bounded in
 * slots and in window units, a gap is skipped the hold time after the lowest
 * held packet arrived with exact counts, and the SACK ranges (the lowest 16
 * held ranges) match a reference, including when their list runs dry and is
 * rebuilt. A random run checks every invariant after every step: nothing
 * held is ever lost, nothing delivered twice, the bond ack never claims a
 * DSN not held.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "pktbuf.h"
#include "prng.h"
#include "reorder.h"
#include "sndbuf.h"

#define MS 1000000ULL
#define T0 (1000 * MS)
#define HOLD (100 * MS)
#define MAX_DSN 200000

static struct wb_pktbuf_pool pool;
static struct wb_reorder r;
static uint64_t *out;   /* DSNs delivered, in order */
static size_t n_out;
static uint8_t *times;  /* deliveries per DSN */

static void deliver(void *ctx, const uint8_t *ip, size_t len)
{
	uint64_t dsn;

	assert_ptr_equal(ctx, &r);
	assert_true(len >= 8);
	memcpy(&dsn, ip, 8);
	/* The packet is whole: its bytes are a pattern of its DSN. */
	for (size_t i = 8; i < len; i++)
		assert_int_equal(ip[i], (uint8_t)(dsn * 31 + i));
	assert_true(dsn < MAX_DSN);
	if (n_out)
		assert_true(dsn > out[n_out - 1]); /* in DSN order */
	out[n_out++] = dsn;
	times[dsn]++;
}

static int setup_with(uint64_t capacity)
{
	wb_pktbuf_init(&pool, 1500, 1u << 20);
	out = calloc(MAX_DSN, sizeof(*out));
	times = calloc(MAX_DSN, 1);
	n_out = 0;
	if (!out || !times)
		return -1;
	return wb_reorder_init(&r, capacity);
}

static int setup(void **state)
{
	(void)state;
	return setup_with(6ULL << 20);
}

static int teardown(void **state)
{
	(void)state;
	wb_reorder_free(&r, &pool);
	free(out);
	free(times);
	if (pool.in_use)
		return -1;
	wb_pktbuf_destroy(&pool);
	return 0;
}

static void reinit(uint64_t capacity)
{
	wb_reorder_free(&r, &pool);
	assert_int_equal(wb_reorder_init(&r, capacity), 0);
}

static enum wb_reorder_result rx(uint64_t dsn, uint16_t len, uint64_t now)
{
	uint8_t ip[1600];

	assert_true(len >= 8 && len <= sizeof(ip));
	memcpy(ip, &dsn, 8);
	for (size_t i = 8; i < len; i++)
		ip[i] = (uint8_t)(dsn * 31 + i);
	return wb_reorder_receive(&r, dsn, ip, len, now, &pool, deliver, &r);
}

static void skip_at(uint64_t now)
{
	wb_reorder_skip_due(&r, now, HOLD, &pool, deliver, &r);
}

/* The bond ack's SACK ranges are exactly these (lo, hi pairs). */
static void assert_sacks(uint64_t cum, unsigned n, ...)
{
	struct wb_bond_ack a;
	va_list ap;

	wb_reorder_ack(&r, &a);
	assert_int_equal(a.cum, cum);
	assert_int_equal(a.rwnd, r.capacity);
	assert_int_equal(a.n, n);
	va_start(ap, n);
	for (unsigned i = 0; i < n; i++) {
		uint64_t lo = va_arg(ap, uint64_t), hi = va_arg(ap, uint64_t);

		assert_int_equal(a.s[i].lo, lo);
		assert_int_equal(a.s[i].hi, hi);
	}
	va_end(ap);
}

#define A(x) ((uint64_t)(x))

static void test_in_order_goes_straight_through(void **state)
{
	(void)state;
	for (uint64_t d = 0; d < 1000; d++) {
		assert_int_equal(rx(d, (uint16_t)(8 + d % 1400), T0), WB_REORDER_DELIVERED);
		/* Nothing is copied into a buffer for a packet in order. */
		assert_int_equal(pool.in_use, 0);
	}
	assert_int_equal(n_out, 1000);
	assert_int_equal(r.nxt, 1000);
	assert_int_equal(r.delivered, 1000);
	assert_int_equal(r.held, 0);
	assert_int_equal(wb_reorder_deadline(&r, HOLD), UINT64_MAX);
	assert_sacks(1000, 0);
}

static void test_out_of_order_is_held_then_drained_in_order(void **state)
{
	(void)state;
	assert_int_equal(rx(3, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(1, 1400, T0 + 1), WB_REORDER_HELD);
	assert_int_equal(rx(2, 8, T0 + 2), WB_REORDER_HELD);
	assert_int_equal(rx(5, 300, T0 + 3), WB_REORDER_HELD);
	assert_int_equal(n_out, 0);
	assert_int_equal(r.held, 4);
	assert_int_equal(pool.in_use, 4);
	assert_int_equal(r.held_bytes, 256 + 1400 + 256 + 300);
	assert_sacks(0, 2, A(1), A(3), A(5), A(5));
	/* The gap fills: 0 and what it unblocks, up to the next gap. */
	assert_int_equal(rx(0, 50, T0 + 4), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 4);
	for (uint64_t d = 0; d < 4; d++)
		assert_int_equal(out[d], d);
	assert_int_equal(r.nxt, 4);
	assert_int_equal(r.held, 1);
	assert_int_equal(r.held_bytes, 300);
	assert_int_equal(pool.in_use, 1);
	assert_sacks(4, 1, A(5), A(5));
	assert_int_equal(rx(4, 60, T0 + 5), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 6);
	assert_int_equal(r.held, 0);
	assert_int_equal(r.held_bytes, 0);
	assert_int_equal(pool.in_use, 0);
	assert_int_equal(r.delivered, 6);
	assert_int_equal(r.max_held_bytes, 256 + 1400 + 256 + 300);
	assert_sacks(6, 0);
}

static void test_duplicates_below_nxt_and_held(void **state)
{
	(void)state;
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DUPLICATE);
	assert_int_equal(rx(5, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(5, 100, T0), WB_REORDER_DUPLICATE);
	assert_int_equal(rx(5, 900, T0), WB_REORDER_DUPLICATE);
	assert_int_equal(r.duplicates, 3);
	assert_int_equal(r.held, 1);
	assert_int_equal(r.held_bytes, 256);
	for (uint64_t d = 1; d < 5; d++)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_DELIVERED);
	for (uint64_t d = 0; d < 6; d++) {
		assert_int_equal(rx(d, 100, T0), WB_REORDER_DUPLICATE);
		assert_int_equal(times[d], 1);
	}
	assert_int_equal(r.duplicates, 9);
	assert_int_equal(n_out, 6);
}

static void test_beyond_the_window_in_slots(void **state)
{
	(void)state;
	/* 1024 window units of 256 bytes: 1024 slots, DSNs nxt .. nxt + 1023. */
	reinit(1024 * 256);
	assert_int_equal(r.cap, 1024);
	assert_int_equal(rx(1023, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(1024, 100, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(rx(5000, 100, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(rx(UINT64_MAX, 100, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(r.beyond_window, 3);
	assert_int_equal(r.held, 1);
	/* The window moves with nxt. */
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(rx(1024, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(1025, 100, T0), WB_REORDER_NO_ROOM);
	/* A packet in order is delivered whatever the room. */
	for (uint64_t d = 1; d < 1023; d++)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 1025);
	assert_int_equal(r.nxt, 1025);
}

static void test_beyond_the_window_in_bytes(void **state)
{
	(void)state;
	reinit(10000);
	/* Nine of 1000 and a small one (256 units): 9256; one more of 1000 does not fit, one of 744 does. */
	for (uint64_t d = 1; d <= 9; d++)
		assert_int_equal(rx(d, 1000, T0), WB_REORDER_HELD);
	assert_int_equal(rx(10, 20, T0), WB_REORDER_HELD);
	assert_int_equal(r.held_bytes, 9256);
	assert_int_equal(rx(11, 1000, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(rx(11, 745, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(rx(11, 744, T0), WB_REORDER_HELD);
	assert_int_equal(r.held_bytes, 10000);
	assert_int_equal(rx(12, 8, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(r.beyond_window, 3);
	/* Larger than a buffer: no room either. */
	reinit(1ULL << 20);
	assert_int_equal(rx(3, 1600, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(r.beyond_window, 1);
	assert_int_equal(r.held, 0);
}

/* The pool runs dry: no buffer (told apart from the window), nothing changed. */
static void test_no_buffer_told_apart_from_the_window(void **state)
{
	(void)state;
	wb_reorder_free(&r, &pool);
	wb_pktbuf_destroy(&pool);
	wb_pktbuf_init(&pool, 1500, 3);
	assert_int_equal(wb_reorder_init(&r, 1ULL << 20), 0);
	for (uint64_t d = 1; d <= 3; d++)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(4, 100, T0), WB_REORDER_NO_BUFFER);
	assert_int_equal(r.no_buffer, 1);
	assert_int_equal(r.beyond_window, 0);
	assert_int_equal(r.held, 3);
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 4);
	assert_int_equal(rx(4, 100, T0), WB_REORDER_DELIVERED);
}

/*
 * reorder.h: "A gap is held at most the hold time after the first packet
 * that waits behind it arrived". 5 at 10 ms, 3 at 20 ms, 8 at 30 ms: the
 * gap below 3 goes at 120 ms (3 arrived then), and with it 4 (5 has waited
 * since 10 ms); the gap below 8 at 130 ms.
 */
static void test_gap_skipped_after_the_hold_time_with_exact_counts(void **state)
{
	(void)state;
	assert_int_equal(wb_reorder_deadline(&r, HOLD), UINT64_MAX);
	assert_int_equal(rx(5, 100, T0 + 10 * MS), WB_REORDER_HELD);
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + 10 * MS + HOLD);
	assert_int_equal(rx(3, 100, T0 + 20 * MS), WB_REORDER_HELD);
	assert_int_equal(rx(8, 100, T0 + 30 * MS), WB_REORDER_HELD);
	/* The lowest held arrived at 20 ms. */
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + 20 * MS + HOLD);
	skip_at(T0 + 20 * MS + HOLD - 1);
	assert_int_equal(n_out, 0);
	assert_int_equal(r.skipped, 0);
	skip_at(T0 + 20 * MS + HOLD);
	assert_int_equal(n_out, 2);
	assert_int_equal(out[0], 3);
	assert_int_equal(out[1], 5);
	assert_int_equal(r.skipped, 4); /* 0, 1, 2 and 4 */
	assert_int_equal(r.nxt, 6);
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + 30 * MS + HOLD);
	assert_sacks(6, 1, A(8), A(8));
	skip_at(T0 + 30 * MS + HOLD - 1);
	assert_int_equal(r.skipped, 4);
	skip_at(T0 + 30 * MS + HOLD);
	assert_int_equal(r.skipped, 6);
	assert_int_equal(n_out, 3);
	assert_int_equal(r.nxt, 9);
	assert_int_equal(r.held, 0);
	assert_int_equal(pool.in_use, 0);
	assert_int_equal(wb_reorder_deadline(&r, HOLD), UINT64_MAX);
	/* A skipped DSN that comes after all is a duplicate. */
	assert_int_equal(rx(1, 100, T0 + 200 * MS), WB_REORDER_DUPLICATE);
	assert_int_equal(rx(9, 100, T0 + 200 * MS), WB_REORDER_DELIVERED);
	assert_int_equal(r.delivered + r.skipped, r.nxt);
}

static void test_sacks_are_the_lowest_16_ranges(void **state)
{
	(void)state;
	/* 20 ranges: 2, 4, ..., 40; only the lowest 16 are reported. */
	for (uint64_t d = 40; d >= 2; d -= 2)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_HELD);
	assert_sacks(0, 16, A(2), A(2), A(4), A(4), A(6), A(6), A(8), A(8), A(10), A(10), A(12), A(12), A(14), A(14),
		     A(16), A(16), A(18), A(18), A(20), A(20), A(22), A(22), A(24), A(24), A(26), A(26), A(28),
		     A(28), A(30), A(30), A(32), A(32));
	/* Ranges merge as gaps fill. */
	assert_int_equal(rx(3, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(5, 100, T0), WB_REORDER_HELD);
	{
		struct wb_bond_ack a;

		wb_reorder_ack(&r, &a);
		assert_int_equal(a.s[0].lo, 2);
		assert_int_equal(a.s[0].hi, 6);
		assert_int_equal(a.s[1].lo, 8);
	}
	/* A new lowest range pushes the highest out. */
	assert_int_equal(rx(11, 100, T0), WB_REORDER_HELD); /* joins 10 and 12 */
	assert_int_equal(rx(1, 100, T0), WB_REORDER_HELD);  /* extends 2..6 down */
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	assert_sacks(7, 12, A(8), A(8), A(10), A(12), A(14), A(14), A(16), A(16), A(18), A(18), A(20), A(20), A(22),
		     A(22), A(24), A(24), A(26), A(26), A(28), A(28), A(30), A(30), A(32), A(32));
}

/*
 * The list runs dry with more than 16 ranges still held: it is rebuilt from
 * the ring. 20 packets alone (2, 4, ..., 40); 0, 1, 3, ..., 31 arrive and
 * drain the lowest 16: the list is empty, 34, 36, 38, 40 are still held.
 */
static void test_sacks_rebuilt_when_the_list_runs_dry(void **state)
{
	(void)state;
	for (uint64_t d = 2; d <= 40; d += 2)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	for (uint64_t d = 1; d <= 31; d += 2)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(r.nxt, 33);
	assert_int_equal(r.held, 4);
	assert_sacks(33, 4, A(34), A(34), A(36), A(36), A(38), A(38), A(40), A(40));
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + HOLD);
	/* And skipping walks them all. */
	skip_at(T0 + HOLD);
	assert_int_equal(r.held, 0);
	assert_int_equal(r.nxt, 41);
	assert_int_equal(n_out, 1 + 16 + 20);
	assert_int_equal(r.skipped, 4);
}

/*
 * More than 16 ranges held, so the list leaves the highest out; the lowest
 * leaves, and a packet arrives above every range in the list, but below one
 * held and left out (34). The list must still start at the lowest held
 * packet, and skipping must deliver every packet held: none is stranded
 * below nxt.
 */
static void test_skip_never_strands_a_held_packet_left_out_of_the_list(void **state)
{
	(void)state;
	for (uint64_t d = 2; d <= 34; d += 2)
		assert_int_equal(rx(d, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(rx(1, 100, T0), WB_REORDER_DELIVERED); /* and 2 */
	assert_int_equal(rx(100, 100, T0 + 50 * MS), WB_REORDER_HELD);
	assert_int_equal(r.held, 17);
	skip_at(T0 + 50 * MS + HOLD);
	assert_int_equal(times[34], 1);
	assert_int_equal(times[100], 1);
	assert_int_equal(r.held, 0);
	assert_int_equal(r.nxt, 101);
	assert_int_equal(n_out, 2 + 17 + 1);
	assert_int_equal(r.skipped, 101 - 20);
	assert_int_equal(pool.in_use, 0);
}

/* ---- a random run against a reference ---------------------------------------------------- */

#define W 600 /* DSNs arrive within this of nxt */

struct model {
	uint8_t *held;      /* per DSN: held now */
	uint16_t *len;
	uint64_t got;       /* DSNs accepted (delivered or held) */
};

/* The true held ranges above nxt, ascending; returns how many. */
static unsigned true_ranges(const struct model *m, struct wb_range *t, unsigned max)
{
	unsigned n = 0;

	for (uint64_t d = r.nxt; d < r.nxt + r.cap && d < MAX_DSN; d++) {
		if (!m->held[d])
			continue;
		if (n && t[n - 1].hi + 1 == d)
			t[n - 1].hi = d;
		else if (n < max)
			t[n++] = (struct wb_range){ d, d };
		else
			return n + 1;
	}
	return n;
}

static void check(const struct model *m, bool exact)
{
	struct wb_range t[64];
	struct wb_bond_ack a;
	uint64_t held = 0, bytes = 0;
	unsigned nt;

	for (uint64_t d = 0; d < MAX_DSN && d < r.nxt + r.cap; d++) {
		if (d < r.nxt)
			assert_false(m->held[d] && !times[d]); /* below nxt: never held without delivery */
		if (m->held[d] && d >= r.nxt) {
			held++;
			bytes += wb_window_bytes(m->len[d]);
		}
	}
	assert_int_equal(r.held, held);
	assert_int_equal(r.held_bytes, bytes);
	assert_int_equal(r.delivered + r.skipped, r.nxt);
	nt = true_ranges(m, t, 60);
	wb_reorder_ack(&r, &a);
	assert_int_equal(a.cum, r.nxt);
	assert_true(a.n <= WB_BOND_ACK_MAX_SACKS);
	/* Never a DSN claimed that is not held; ascending, disjoint. */
	for (unsigned i = 0; i < a.n; i++) {
		assert_true(a.s[i].lo > r.nxt && a.s[i].lo <= a.s[i].hi);
		if (i)
			assert_true(a.s[i].lo > a.s[i - 1].hi + 1);
		for (uint64_t d = a.s[i].lo; d <= a.s[i].hi; d++)
			assert_true(d < MAX_DSN && m->held[d]);
	}
	/* The list starts at the lowest held packet (the skip and its deadline use it). */
	if (held) {
		assert_true(a.n >= 1);
		assert_int_equal(a.s[0].lo, t[0].lo);
	}
	/* As long as there never were more than 16 ranges, it is exactly the truth. */
	if (exact) {
		assert_int_equal(a.n, nt);
		for (unsigned i = 0; i < nt; i++) {
			assert_int_equal(a.s[i].lo, t[i].lo);
			assert_int_equal(a.s[i].hi, t[i].hi);
		}
	}
}

static void random_run(uint64_t seed, uint64_t width)
{
	struct prng rng;
	struct model m = { .held = calloc(MAX_DSN, 1), .len = calloc(MAX_DSN, sizeof(uint16_t)) };
	uint64_t now = T0;
	bool exact = true;

	assert_non_null(m.held);
	assert_non_null(m.len);
	prng_seed(&rng, seed);
	for (int step = 0; step < 30000 && r.nxt + W < MAX_DSN; step++) {
		uint64_t k = prng_next(&rng) % 100;
		struct wb_range t[20];

		now += prng_next(&rng) % (3 * MS);
		if (k < 96) {
			uint64_t d = r.nxt + prng_next(&rng) % width - (r.nxt >= 3 && k < 5 ? 3 : 0);
			uint16_t len = (uint16_t)(8 + prng_next(&rng) % 1400);
			bool was = m.held[d] || times[d] || d < r.nxt;
			enum wb_reorder_result res = rx(d, len, now);

			if (was) {
				assert_int_equal(res, WB_REORDER_DUPLICATE);
			} else if (res == WB_REORDER_HELD) {
				m.held[d] = 1;
				m.len[d] = len;
				m.got++;
			} else {
				assert_int_equal(res, WB_REORDER_DELIVERED);
				m.got++;
			}
		} else {
			skip_at(now);
		}
		/* Whatever was delivered is no longer held. */
		for (size_t i = 0; i < n_out; i++)
			m.held[out[i]] = 0;
		if (true_ranges(&m, t, 16) > 16)
			exact = false;
		if (!r.held)
			exact = true;
		check(&m, exact);
	}
	/* Time enough: every packet ever accepted is delivered, exactly once. */
	skip_at(now + 100 * HOLD);
	assert_int_equal(r.held, 0);
	assert_int_equal(n_out, m.got);
	for (uint64_t d = 0; d < MAX_DSN; d++)
		assert_true(times[d] <= 1);
	free(m.held);
	free(m.len);
}

static void test_random_arrivals_against_a_reference(void **state)
{
	(void)state;
	random_run(1, 40);  /* few ranges: the list is exact */
	wb_reorder_free(&r, &pool);
	memset(times, 0, MAX_DSN);
	n_out = 0;
	assert_int_equal(wb_reorder_init(&r, 6ULL << 20), 0);
	random_run(2, W); /* many ranges */
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_in_order_goes_straight_through),
		T(test_out_of_order_is_held_then_drained_in_order),
		T(test_duplicates_below_nxt_and_held),
		T(test_beyond_the_window_in_slots),
		T(test_beyond_the_window_in_bytes),
		T(test_no_buffer_told_apart_from_the_window),
		T(test_gap_skipped_after_the_hold_time_with_exact_counts),
		T(test_sacks_are_the_lowest_16_ranges),
		T(test_sacks_rebuilt_when_the_list_runs_dry),
		T(test_skip_never_strands_a_held_packet_left_out_of_the_list),
		T(test_random_arrivals_against_a_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
