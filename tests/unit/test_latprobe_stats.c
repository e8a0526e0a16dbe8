// SPDX-License-Identifier: MIT
/* Unit tests: lp_stats.c and lp_wire.c, wb-latprobe's receive statistics and its packet. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lp_stats.h"
#include "lp_wire.h"

#define MS 1000000LL
#define T0 5000000000ULL /* a send time far from 0 */

/* One packet: sequence number seq, sent at T0 + seq x 20 ms, delay_ns later. */
static enum lp_verdict add(struct lp_stats *s, uint64_t seq, int64_t delay_ns)
{
	uint64_t sent = T0 + seq * 20 * MS;

	return lp_stats_add(s, seq, sent, sent + (uint64_t)delay_ns);
}

static struct lp_summary summary(const struct lp_stats *s, uint64_t expect)
{
	struct lp_summary out;

	assert_int_equal(lp_stats_summary(s, expect, &out), 0);
	return out;
}

/* ---- percentiles (nearest rank) ---- */

static void test_percentile_nearest_rank(void **state)
{
	const int64_t one[] = { 7 };
	const int64_t three[] = { 1, 2, 3 };
	const int64_t ten[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	(void)state;
	assert_int_equal(lp_percentile(one, 1, 50000), 7);
	assert_int_equal(lp_percentile(one, 1, 99900), 7);
	/* ceil(0.5 x 3) = 2, ceil(0.99 x 3) = 3 */
	assert_int_equal(lp_percentile(three, 3, 50000), 2);
	assert_int_equal(lp_percentile(three, 3, 99000), 3);
	/* ceil(0.5 x 10) = 5: the lower middle, a measured value, not the mean of 5 and 6 */
	assert_int_equal(lp_percentile(ten, 10, 50000), 5);
	assert_int_equal(lp_percentile(ten, 10, 90000), 9);
	assert_int_equal(lp_percentile(ten, 10, 90001), 10);
	assert_int_equal(lp_percentile(ten, 10, 99000), 10);
	assert_int_equal(lp_percentile(ten, 10, 100000), 10);
	assert_int_equal(lp_percentile(ten, 10, 0), 1); /* rank at least 1 */
}

/* 1..1000 ms in a scrambled order of arrival (but rising sequence numbers). */
static void test_summary_percentiles_of_known_delays(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(add(&s, i, (int64_t)((i * 7919) % 1000 + 1) * MS), LP_FIRST);
	r = summary(&s, 0);
	assert_int_equal(r.n_delays, 1000);
	assert_int_equal(r.min_ns, 1 * MS);
	assert_int_equal(r.p50_ns, 500 * MS);  /* rank 500 */
	assert_int_equal(r.p99_ns, 990 * MS);  /* rank 990 */
	assert_int_equal(r.p999_ns, 999 * MS); /* rank ceil(999.0) = 999 */
	assert_int_equal(r.max_ns, 1000 * MS);
	/* The kept delays stay in arrival order (for --delays). */
	assert_int_equal(s.delays[0], 1 * MS);
	assert_int_equal(s.delays[1], 920 * MS);
	lp_stats_free(&s);

	/* 100 delays: p99.9 is rank ceil(99.9) = 100, the maximum. */
	lp_stats_init(&s);
	for (uint64_t i = 0; i < 100; i++)
		add(&s, i, (int64_t)(100 - i) * MS);
	r = summary(&s, 0);
	assert_int_equal(r.p50_ns, 50 * MS);
	assert_int_equal(r.p99_ns, 99 * MS);
	assert_int_equal(r.p999_ns, 100 * MS);
	lp_stats_free(&s);
}

/* A clock that runs apart gives negative delays: they sort as numbers. */
static void test_negative_delays_sort(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	add(&s, 0, -3 * MS);
	add(&s, 1, 2 * MS);
	add(&s, 2, -1 * MS);
	r = summary(&s, 0);
	assert_int_equal(r.min_ns, -3 * MS);
	assert_int_equal(r.p50_ns, -1 * MS);
	assert_int_equal(r.max_ns, 2 * MS);
	lp_stats_free(&s);
}

/* ---- RFC 3550 jitter ---- */

/*
 * Transit times 10, 12, 11, 15 ms: |D| = 2, 1, 4 ms and, from J = 0,
 *   J1 = 0 + (2 - 0) / 16                 = 0.125
 *   J2 = 0.125 + (1 - 0.125) / 16         = 0.1796875
 *   J3 = 0.1796875 + (4 - 0.1796875) / 16 = 0.41845703125 ms
 */
static void test_jitter_by_hand(void **state)
{
	const int64_t transit[] = { 10 * MS, 12 * MS, 11 * MS, 15 * MS };
	const double expect_ms[] = { 0, 0.125, 0.1796875, 0.41845703125 };
	struct lp_stats s;

	(void)state;
	lp_stats_init(&s);
	for (int i = 0; i < 4; i++) {
		add(&s, (uint64_t)i, transit[i]);
		assert_true(fabs(s.jitter_ns / 1e6 - expect_ms[i]) < 1e-9);
	}
	assert_true(fabs(summary(&s, 0).jitter_ns - 418457.03125) < 1e-6);
	lp_stats_free(&s);
}

/* A steady delay has no jitter, however long; a constant offset of the clocks none either. */
static void test_jitter_zero_for_constant_transit(void **state)
{
	struct lp_stats s;

	(void)state;
	lp_stats_init(&s);
	for (uint64_t i = 0; i < 500; i++)
		add(&s, i, -250 * MS);
	assert_true(summary(&s, 0).jitter_ns == 0);
	lp_stats_free(&s);
}

/* In arrival order: a reordered packet's transit counts where it arrived; a duplicate's not at all. */
static void test_jitter_arrival_order_and_duplicates(void **state)
{
	struct lp_stats s;

	(void)state;
	lp_stats_init(&s);
	add(&s, 0, 10 * MS);
	add(&s, 2, 10 * MS);
	add(&s, 1, 26 * MS); /* |D| = 16 ms: J = 1 ms */
	assert_true(fabs(s.jitter_ns - 1 * MS) < 1e-6);
	assert_int_equal(add(&s, 2, 500 * MS), LP_DUPLICATE);
	assert_true(fabs(s.jitter_ns - 1 * MS) < 1e-6);
	add(&s, 3, 26 * MS); /* |D| = 0: J = 1 - 1/16 */
	assert_true(fabs(s.jitter_ns - 0.9375 * MS) < 1e-6);
	lp_stats_free(&s);
}

/* ---- loss, duplicates, reordering ---- */

static void test_duplicates(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	assert_int_equal(add(&s, 0, MS), LP_FIRST);
	assert_int_equal(add(&s, 1, MS), LP_FIRST);
	assert_int_equal(add(&s, 1, MS), LP_DUPLICATE);
	assert_int_equal(add(&s, 2, MS), LP_FIRST);
	assert_int_equal(add(&s, 0, MS), LP_DUPLICATE);
	assert_int_equal(add(&s, 2, MS), LP_DUPLICATE);
	r = summary(&s, 0);
	assert_int_equal(r.sent, 3);
	assert_int_equal(r.received, 3);
	assert_int_equal(r.duplicates, 3);
	assert_int_equal(r.reordered, 0);
	assert_int_equal(r.lost, 0);
	assert_int_equal(r.n_delays, 3); /* first copies only */
	lp_stats_free(&s);
}

static void test_reordered_and_late(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	add(&s, 0, 10 * MS);
	add(&s, 2, 10 * MS);
	add(&s, 3, 10 * MS);
	assert_int_equal(add(&s, 1, 900 * MS), LP_REORDERED); /* late: received, and its delay counts */
	assert_int_equal(add(&s, 1, 900 * MS), LP_DUPLICATE); /* a copy of a reordered one */
	add(&s, 4, 10 * MS);
	r = summary(&s, 0);
	assert_int_equal(r.sent, 5);
	assert_int_equal(r.received, 5);
	assert_int_equal(r.lost, 0);
	assert_int_equal(r.reordered, 1);
	assert_int_equal(r.duplicates, 1);
	assert_int_equal(r.max_ns, 900 * MS);
	lp_stats_free(&s);
}

/* The first packets lost: the highest sequence number tells how many were sent. */
static void test_loss_at_start(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	for (uint64_t i = 3; i < 10; i++)
		add(&s, i, MS);
	r = summary(&s, 0);
	assert_int_equal(r.sent, 10);
	assert_int_equal(r.received, 7);
	assert_int_equal(r.lost, 3);
	assert_true(fabs(r.loss_pct - 30.0) < 1e-9);
	/* One of them arrives after all: reordered, and no longer lost. */
	assert_int_equal(add(&s, 1, MS), LP_REORDERED);
	r = summary(&s, 0);
	assert_int_equal(r.lost, 2);
	assert_int_equal(r.reordered, 1);
	lp_stats_free(&s);
}

/* The last packets lost: only the expected count shows them. */
static void test_loss_at_end(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	for (uint64_t i = 0; i < 8; i++)
		add(&s, i, MS);
	r = summary(&s, 0);
	assert_int_equal(r.sent, 8);
	assert_int_equal(r.lost, 0);
	r = summary(&s, 10);
	assert_int_equal(r.sent, 10);
	assert_int_equal(r.lost, 2);
	assert_true(fabs(r.loss_pct - 20.0) < 1e-9);
	/* An expected count below what arrived does not hide what did. */
	r = summary(&s, 5);
	assert_int_equal(r.sent, 8);
	assert_int_equal(r.lost, 0);
	lp_stats_free(&s);
}

static void test_nothing_received(void **state)
{
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	r = summary(&s, 0);
	assert_int_equal(r.sent, 0);
	assert_int_equal(r.n_delays, 0);
	assert_true(r.loss_pct == 0);
	r = summary(&s, 400);
	assert_int_equal(r.sent, 400);
	assert_int_equal(r.lost, 400);
	assert_true(r.loss_pct == 100);
	lp_stats_free(&s);
}

/* The memory for duplicates is LP_SEQ_WINDOW numbers below the highest; older ones are too old to tell. */
static void test_window_bounds_duplicates(void **state)
{
	const uint64_t w = LP_SEQ_WINDOW;
	struct lp_stats s;
	struct lp_summary r;

	(void)state;
	lp_stats_init(&s);
	assert_int_equal(add(&s, 2, MS), LP_FIRST);
	assert_int_equal(add(&s, w + 1, MS), LP_FIRST); /* 2 is the oldest number the window holds */
	assert_int_equal(add(&s, 2, MS), LP_DUPLICATE);
	assert_int_equal(add(&s, 1, MS), LP_TOO_OLD);   /* w below the highest */
	assert_int_equal(add(&s, 3, MS), LP_REORDERED); /* in the window, never seen */
	assert_int_equal(add(&s, w + 1, MS), LP_DUPLICATE);
	assert_int_equal(add(&s, w + 2, MS), LP_FIRST); /* 2 leaves the window */
	assert_int_equal(add(&s, 2, MS), LP_TOO_OLD);
	assert_int_equal(add(&s, 3, MS), LP_DUPLICATE);
	/* A jump of more than the window forgets everything below. */
	assert_int_equal(add(&s, 10 * w, MS), LP_FIRST);
	assert_int_equal(add(&s, 10 * w - 1, MS), LP_REORDERED);
	assert_int_equal(add(&s, 9 * w + 1, MS), LP_REORDERED);
	assert_int_equal(add(&s, 9 * w, MS), LP_TOO_OLD);
	r = summary(&s, 0);
	assert_int_equal(r.received, 7);
	assert_int_equal(r.duplicates, 3);
	assert_int_equal(r.too_old, 3);
	assert_int_equal(r.reordered, 3);
	assert_int_equal(r.sent, 10 * w + 1);
	assert_int_equal(r.lost, r.sent - 7);
	lp_stats_free(&s);
}

/* ---- the packet ---- */

static void test_packet_round_trip(void **state)
{
	uint8_t buf[200];
	struct lp_packet p = { .stream = 0xdeadbeef, .length = 200, .seq = 0x0102030405060708ULL, .sent_ns = T0 }, q;

	(void)state;
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(lp_packet_write(buf, sizeof(buf), &p), 200);
	assert_memory_equal(buf, "WBLP\x01\0\0\0\xde\xad\xbe\xef\0\0\0\xc8\x01\x02\x03\x04\x05\x06\x07\x08", 24);
	for (size_t i = LP_HDR_LEN; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(lp_packet_parse(buf, 200, &q), 0);
	assert_int_equal(q.stream, p.stream);
	assert_int_equal(q.length, 200);
	assert_int_equal(q.seq, p.seq);
	assert_int_equal(q.sent_ns, p.sent_ns);

	p.length = LP_HDR_LEN;
	assert_int_equal(lp_packet_write(buf, sizeof(buf), &p), LP_HDR_LEN);
	assert_int_equal(lp_packet_parse(buf, LP_HDR_LEN, &q), 0);
	/* Sizes out of range, or above the buffer, are not written. */
	p.length = LP_HDR_LEN - 1;
	assert_int_equal(lp_packet_write(buf, sizeof(buf), &p), 0);
	p.length = 201;
	assert_int_equal(lp_packet_write(buf, sizeof(buf), &p), 0);
}

static void test_packet_refused(void **state)
{
	uint8_t buf[100], bad[100];
	struct lp_packet p = { .stream = 1, .length = 100, .seq = 5, .sent_ns = T0 }, q;

	(void)state;
	lp_packet_write(buf, sizeof(buf), &p);
	assert_int_equal(lp_packet_parse(buf, 99, &q), -EINVAL);  /* cut short */
	assert_int_equal(lp_packet_parse(buf, 31, &q), -EINVAL);  /* not even a header */
	for (size_t at = 0; at < 16; at++) {
		if (at >= 8 && at < 12)
			continue; /* the stream id: any */
		memcpy(bad, buf, sizeof(bad));
		bad[at] ^= 0x10;
		assert_int_equal(lp_packet_parse(bad, sizeof(bad), &q), -EINVAL);
	}
	/* The padding is not checked: a path may not change it, but it is nobody's business. */
	memcpy(bad, buf, sizeof(bad));
	bad[99] = 1;
	assert_int_equal(lp_packet_parse(bad, sizeof(bad), &q), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_nearest_rank),
		cmocka_unit_test(test_summary_percentiles_of_known_delays),
		cmocka_unit_test(test_negative_delays_sort),
		cmocka_unit_test(test_jitter_by_hand),
		cmocka_unit_test(test_jitter_zero_for_constant_transit),
		cmocka_unit_test(test_jitter_arrival_order_and_duplicates),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_reordered_and_late),
		cmocka_unit_test(test_loss_at_start),
		cmocka_unit_test(test_loss_at_end),
		cmocka_unit_test(test_nothing_received),
		cmocka_unit_test(test_window_bounds_duplicates),
		cmocka_unit_test(test_packet_round_trip),
		cmocka_unit_test(test_packet_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
