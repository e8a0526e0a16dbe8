// SPDX-License-Identifier: MIT
/*
 * Unit tests: reorder.c, the receiver's reorder buffer: in-order packets go
 * straight through, out-of-order ones wait and drain in DSN order,
 * duplicates (below nxt, or held) are refused, the window is bounded in
 * slots and in window units, a gap is skipped the hold time after the lowest
 * held packet arrived with exact counts, and the SACK ranges (the lowest 16
 * held ranges) match a reference, including when their list runs dry and is
 * rebuilt. Unordered packets (a class that needs no order) are delivered
 * when they arrive, ahead of gaps, marked for the ack and for their
 * duplicates, and a gap they passed is given up after the hold time as any
 * (a DSN its sender gave up must not pile their marks up). A random
 * run, with ordered and unordered packets mixed, checks every invariant
 * after every step: nothing held is ever lost, nothing delivered twice,
 * ordered packets in DSN order, the bond ack never claims a DSN not
 * received.
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
#define SEC_ (1000 * MS)
#define MAX_DSN 200000

static struct wb_pktbuf_pool pool;
static struct wb_reorder r;
static uint64_t *out;   /* DSNs delivered, in order */
static size_t n_out;
static uint8_t *times;  /* deliveries per DSN */
static uint8_t *unordered; /* per DSN: sent as a packet that needs no order */
static uint64_t last_ordered; /* the last ordered DSN delivered, plus one */

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
	if (!unordered[dsn]) {
		assert_true(dsn + 1 > last_ordered); /* in DSN order */
		last_ordered = dsn + 1;
	}
	out[n_out++] = dsn;
	times[dsn]++;
}

static int setup_with(uint64_t capacity)
{
	wb_pktbuf_init(&pool, 1500, 1u << 20);
	out = calloc(MAX_DSN, sizeof(*out));
	times = calloc(MAX_DSN, 1);
	unordered = calloc(MAX_DSN, 1);
	n_out = 0;
	last_ordered = 0;
	if (!out || !times || !unordered)
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
	free(unordered);
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
	if (dsn < MAX_DSN && unordered[dsn]) /* the window tests go far past the DSNs tracked */
		return wb_reorder_receive_unordered(&r, dsn, ip, len, now, &pool, deliver, &r);
	return wb_reorder_receive(&r, dsn, ip, len, now, &pool, deliver, &r);
}

/* A packet that needs no order: marked, then received. */
static enum wb_reorder_result rx_unordered(uint64_t dsn, uint16_t len, uint64_t now)
{
	unordered[dsn] = 1;
	return rx(dsn, len, now);
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

/* ---- packets that need no order ------------------------------------------------------------ */

static void test_unordered_delivered_ahead_of_a_gap_and_marked(void **state)
{
	(void)state;
	assert_int_equal(rx(0, 100, T0), WB_REORDER_DELIVERED);
	/* DSN 1 is missing; 2 (ordered) waits; 3 (unordered) goes at once, copying nothing. */
	assert_int_equal(rx(2, 100, T0), WB_REORDER_HELD);
	assert_int_equal(pool.in_use, 1);
	assert_int_equal(rx_unordered(3, 200, T0 + MS), WB_REORDER_DELIVERED);
	assert_int_equal(pool.in_use, 1);
	assert_int_equal(n_out, 2);
	assert_int_equal(out[1], 3);
	assert_int_equal(r.delivered_early, 1);
	/* It counts as received for the ack, but takes no room in the window. */
	assert_sacks(A(1), 1, A(2), A(3));
	assert_int_equal(r.held, 2);
	assert_int_equal(r.held_bytes, wb_window_bytes(100));
	/* A copy of it is a duplicate. */
	assert_int_equal(rx_unordered(3, 200, T0 + 2 * MS), WB_REORDER_DUPLICATE);
	assert_int_equal(r.duplicates, 1);
	/* The gap fills: 1 and 2 go, 3 is passed over, not delivered again. */
	assert_int_equal(rx(1, 100, T0 + 3 * MS), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 4);
	assert_int_equal(out[2], 1);
	assert_int_equal(out[3], 2);
	assert_int_equal(r.nxt, 4);
	assert_int_equal(r.held, 0);
	assert_int_equal(r.held_bytes, 0);
	assert_int_equal(r.delivered, 4);
	assert_sacks(A(4), 0);
	assert_int_equal(rx_unordered(3, 200, T0 + 4 * MS), WB_REORDER_DUPLICATE);
	assert_int_equal(pool.in_use, 0);
}

static void test_unordered_in_order_drains_what_waited(void **state)
{
	(void)state;
	assert_int_equal(rx(1, 100, T0), WB_REORDER_HELD);
	assert_int_equal(rx_unordered(0, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	assert_int_equal(r.delivered_early, 0); /* it was next: nothing early about it */
	assert_int_equal(r.nxt, 2);
}

static void test_a_gap_unordered_packets_passed_is_given_up_after_the_hold(void **state)
{
	(void)state;
	/* Only a call's packets above the gap 0..4 (its DSNs given up by the sender, say): its age is theirs. */
	assert_int_equal(rx_unordered(5, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(rx(7, 100, T0 + 20 * MS), WB_REORDER_HELD);
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + HOLD);
	skip_at(T0 + HOLD - 1);
	assert_int_equal(r.nxt, 0);
	skip_at(T0 + HOLD);
	assert_int_equal(r.skipped, 5); /* 0..4; 5 passed over, not delivered again */
	assert_int_equal(r.nxt, 6);
	assert_int_equal(r.marked, 0);
	/* The next gap is as old as 7, the first packet above it. */
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + 20 * MS + HOLD);
	skip_at(T0 + 20 * MS + HOLD);
	assert_int_equal(r.skipped, 6);
	assert_int_equal(r.nxt, 8);
	assert_int_equal(n_out, 2);
	assert_int_equal(r.held, 0);
	/* Marks alone are given up too: nothing piles up behind a DSN that never comes. */
	assert_int_equal(rx_unordered(10, 100, T0 + SEC_), WB_REORDER_DELIVERED);
	assert_int_equal(wb_reorder_deadline(&r, HOLD), T0 + SEC_ + HOLD);
	skip_at(T0 + SEC_ + HOLD);
	assert_int_equal(r.nxt, 11);
	assert_int_equal(r.held, 0);
	assert_int_equal(r.marked, 0);
	assert_int_equal(n_out, 3);
}

static void test_unordered_beyond_the_slots_is_refused(void **state)
{
	(void)state;
	assert_int_equal(rx_unordered(r.cap, 100, T0), WB_REORDER_NO_ROOM);
	assert_int_equal(n_out, 0);
	assert_int_equal(r.beyond_window, 1);
	assert_int_equal(rx_unordered(r.cap - 1, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(n_out, 1);
}

static void test_restart_forgets_the_marks(void **state)
{
	(void)state;
	assert_int_equal(rx_unordered(3, 100, T0), WB_REORDER_DELIVERED);
	assert_int_equal(rx(4, 100, T0), WB_REORDER_HELD);
	assert_int_equal(wb_reorder_restart(&r, &pool), 1); /* the held one: the mark's packet was delivered */
	assert_int_equal(pool.in_use, 0);
	assert_sacks(A(0), 0);
	/* The peer's new DSN 3 is new, not a duplicate of the old one. */
	last_ordered = 0;
	assert_int_equal(rx_unordered(3, 100, T0), WB_REORDER_DELIVERED);
}

/* ---- a random run against a reference ---------------------------------------------------- */

#define W 600 /* DSNs arrive within this of nxt */

struct model {
	uint8_t *held;      /* per DSN: held now, or delivered early and marked */
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
	uint64_t held = 0, bytes = 0, early = 0;
	unsigned nt;

	for (uint64_t d = 0; d < MAX_DSN && d < r.nxt + r.cap; d++) {
		if (d < r.nxt)
			assert_false(m->held[d] && !times[d]); /* below nxt: never held without delivery */
		if (m->held[d] && d >= r.nxt) {
			held++;
			if (unordered[d])
				early++;
			else
				bytes += wb_window_bytes(m->len[d]);
		}
	}
	assert_int_equal(r.held, held);
	assert_int_equal(r.marked, early);
	assert_int_equal(r.held_bytes, bytes);
	/* Every DSN below nxt delivered or skipped; those above it delivered early, once. */
	assert_int_equal(r.delivered + r.skipped, r.nxt + early);
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

/* every: one DSN in so many needs no order (0: none) */
static void random_run(uint64_t seed, uint64_t width, unsigned every)
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
			enum wb_reorder_result res;

			unordered[d] = every && d % every == 0;
			res = rx(d, len, now);
			if (was) {
				assert_int_equal(res, WB_REORDER_DUPLICATE);
			} else if (res == WB_REORDER_HELD) {
				assert_false(unordered[d]);
				m.held[d] = 1;
				m.len[d] = len;
				m.got++;
			} else {
				assert_int_equal(res, WB_REORDER_DELIVERED);
				/* Received means delivered for a packet that needs no order; marked while above nxt. */
				assert_int_equal(times[d], 1);
				if (unordered[d] && d >= r.nxt)
					m.held[d] = 1;
				m.got++;
			}
		} else {
			skip_at(now);
		}
		/* Whatever was delivered is no longer held; a mark goes when delivery in order passes it. */
		for (size_t i = 0; i < n_out; i++)
			if (!unordered[out[i]] || out[i] < r.nxt)
				m.held[out[i]] = 0;
		for (uint64_t d = r.nxt > W ? r.nxt - W : 0; d < r.nxt; d++)
			m.held[d] = 0;
		if (true_ranges(&m, t, 16) > 16)
			exact = false;
		if (!r.held)
			exact = true;
		check(&m, exact);
	}
	/* Time enough: every packet ever accepted is delivered, exactly once (marks may stay: nothing waits behind them). */
	skip_at(now + 100 * HOLD);
	assert_int_equal(r.held_bytes, 0);
	assert_int_equal(n_out, m.got);
	for (uint64_t d = 0; d < MAX_DSN; d++)
		assert_true(times[d] <= 1);
	free(m.held);
	free(m.len);
}

static void restart_run(void)
{
	wb_reorder_free(&r, &pool);
	memset(times, 0, MAX_DSN);
	memset(unordered, 0, MAX_DSN);
	n_out = 0;
	last_ordered = 0;
	assert_int_equal(wb_reorder_init(&r, 6ULL << 20), 0);
}

static void test_random_arrivals_against_a_reference(void **state)
{
	(void)state;
	random_run(1, 40, 0); /* few ranges: the list is exact */
	restart_run();
	random_run(2, W, 0); /* many ranges */
}

static void test_random_mixed_arrivals_against_a_reference(void **state)
{
	(void)state;
	random_run(3, 40, 7);
	restart_run();
	random_run(4, W, 3);
	restart_run();
	random_run(5, W, 1); /* all of them unordered */
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
		T(test_unordered_delivered_ahead_of_a_gap_and_marked),
		T(test_unordered_in_order_drains_what_waited),
		T(test_a_gap_unordered_packets_passed_is_given_up_after_the_hold),
		T(test_unordered_beyond_the_slots_is_refused),
		T(test_restart_forgets_the_marks),
		T(test_random_arrivals_against_a_reference),
		T(test_random_mixed_arrivals_against_a_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
