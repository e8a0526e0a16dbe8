// SPDX-License-Identifier: MIT
/*
 * Unit tests: txq.c, the send queue: first in first out, bounded in window
 * units (tail drop), growing past its first ring; and CoDel at its head
 * (RFC 8289) on standing queues made by hand: no drop below the target,
 * the first drop a full interval after the sojourn went above it, then drops
 * at interval/sqrt(count), none once below the target again, never the last
 * packet of a queue under one MTU, and none at all without AQM.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pktbuf.h"
#include "sndbuf.h"
#include "txq.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define T0 (10 * SEC)
#define MTU 1000
#define TARGET (5 * MS)
#define INTERVAL (100 * MS)

static struct wb_pktbuf_pool pool;
static struct wb_txq q;
static uint64_t next_id, expect_id;

static int setup(void **state)
{
	(void)state;
	wb_pktbuf_init(&pool, 1500, 100000);
	next_id = expect_id = 0;
	return wb_txq_init(&q, 1ULL << 30, MTU, true, TARGET, INTERVAL);
}

static int teardown(void **state)
{
	(void)state;
	wb_txq_free(&q, &pool);
	if (pool.in_use)
		return -1;
	wb_pktbuf_destroy(&pool);
	return 0;
}

static void reinit(uint64_t limit, bool aqm)
{
	wb_txq_free(&q, &pool);
	assert_int_equal(wb_txq_init(&q, limit, MTU, aqm, TARGET, INTERVAL), 0);
}

/* A packet of len bytes carrying the next id. */
static bool push(uint16_t len, uint64_t now)
{
	uint8_t *b = wb_pktbuf_get(&pool);
	bool ok;

	assert_non_null(b);
	memcpy(b, &next_id, sizeof(next_id));
	ok = wb_txq_push(&q, b, len, now);
	if (ok)
		next_id++;
	else
		wb_pktbuf_put(&pool, b);
	return ok;
}

/* Pops one; returns its id (UINT64_MAX for none). Ids come out ascending; gaps are CoDel's drops. */
static uint64_t pop(uint64_t now)
{
	struct wb_txq_entry e;
	uint64_t id;

	if (!wb_txq_pop(&q, now, &pool, &e))
		return UINT64_MAX;
	memcpy(&id, e.data, sizeof(id));
	assert_true(id >= expect_id);
	expect_id = id + 1;
	wb_pktbuf_put(&pool, e.data);
	return id;
}

static void test_fifo_and_tail_drop_at_the_limit(void **state)
{
	(void)state;
	reinit(10 * 1000, true);
	assert_null(wb_txq_peek(&q));
	assert_true(wb_txq_has_room(&q, 1000));
	for (int i = 0; i < 10; i++)
		assert_true(push(1000, T0));
	assert_int_equal(q.bytes, 10000);
	assert_false(wb_txq_has_room(&q, 1));
	assert_false(push(1000, T0));
	assert_false(push(1, T0));
	assert_int_equal(q.tail_drops, 2);
	assert_int_equal(q.n, 10);
	assert_int_equal(q.bytes, 10000);
	assert_int_equal(wb_txq_peek(&q)->len, 1000);
	assert_int_equal(wb_txq_peek(&q)->enqueued_ns, T0);
	for (uint64_t i = 0; i < 10; i++)
		assert_int_equal(pop(T0 + MS), i);
	assert_int_equal(pop(T0 + MS), UINT64_MAX);
	assert_int_equal(q.bytes, 0);
	/* Small packets count as 256 bytes: a limit of 1024 takes four. */
	reinit(1024, true);
	for (int i = 0; i < 4; i++)
		assert_true(push(10, T0));
	assert_false(wb_txq_has_room(&q, 10));
	assert_false(push(10, T0));
	assert_int_equal(q.bytes, 1024);
	/* Exactly at the limit is room. */
	reinit(1000 + 256, true);
	assert_true(push(1000, T0));
	assert_true(wb_txq_has_room(&q, 256));
	assert_true(wb_txq_has_room(&q, 1));
	assert_false(wb_txq_has_room(&q, 257));
}

static void test_growth_past_the_first_ring_keeps_order(void **state)
{
	(void)state;
	/* Wrap the head first, then grow with it wrapped. */
	for (int i = 0; i < 200; i++)
		assert_true(push(100, T0));
	for (int i = 0; i < 150; i++)
		assert_int_not_equal(pop(T0), UINT64_MAX);
	for (int i = 0; i < 3000; i++)
		assert_true(push((uint16_t)(100 + i % 900), T0));
	assert_true(q.cap >= 4096);
	assert_int_equal(q.n, 3050);
	for (int i = 0; i < 3050; i++)
		assert_int_equal(pop(T0), 150 + (uint64_t)i);
	assert_int_equal(q.bytes, 0);
	assert_int_equal(q.aqm_drops, 0);
}

/*
 * A standing queue: `backlog` packets of an MTU at t, then every millisecond
 * one in and one out, until `until`. Returns the drops counted.
 */
static uint64_t standing(unsigned backlog, uint64_t *t, uint64_t until)
{
	for (unsigned i = 0; i < backlog; i++)
		assert_true(push(MTU, *t));
	while (*t < until) {
		*t += MS;
		assert_true(push(MTU, *t));
		assert_int_not_equal(pop(*t), UINT64_MAX);
	}
	return q.aqm_drops;
}

static void test_codel_no_drop_while_below_target(void **state)
{
	uint64_t t = T0;

	(void)state;
	/* 4 ms of queue, for ten seconds. */
	assert_int_equal(standing(4, &t, T0 + 10 * SEC), 0);
	assert_false(q.codel.dropping);
}

/* The first drop a full interval after the head's sojourn reached the target; then at interval/sqrt(count). */
static void test_codel_first_drop_after_an_interval_then_sqrt_spacing(void **state)
{
	uint64_t t = T0, drops = 0, first = T0 + 5 * MS + INTERVAL;
	double next = 0;

	(void)state;
	/* 400 packets: the drops (about 220) never bring the sojourn under the target here. */
	for (unsigned i = 0; i < 400; i++)
		assert_true(push(MTU, t));
	while (t < T0 + 3 * SEC) {
		t += MS;
		assert_true(push(MTU, t));
		assert_int_not_equal(pop(t), UINT64_MAX);
		if (t < first) {
			/* The head waited 5 ms first at T0 + 5 ms: nothing before an interval after that. */
			assert_int_equal(q.aqm_drops, 0);
			continue;
		}
		if (t == first) {
			assert_int_equal(q.aqm_drops, 1);
			assert_true(q.codel.dropping);
			assert_int_equal(q.codel.count, 1);
			assert_int_equal(q.codel.drop_next_ns, first + INTERVAL);
			next = (double)(first + INTERVAL);
			drops = 1;
			continue;
		}
		/*
		 * Each later drop when drop_next has come, then the next
		 * interval/sqrt(count) later (the integer square root is within a
		 * microsecond at each step, its errors add up slowly).
		 */
		if ((double)t >= next) {
			drops++;
			next += (double)INTERVAL / sqrt((double)drops);
			assert_int_equal(q.aqm_drops, drops);
			assert_int_equal(q.codel.count, drops);
			assert_true(fabs((double)q.codel.drop_next_ns - next) < 20000.0);
		} else {
			assert_int_equal(q.aqm_drops, drops);
		}
	}
	assert_true(drops >= 20);
	/* Every packet is either popped or dropped, in order. */
	assert_int_equal(expect_id + q.n, next_id);
}

/*
 * Holding (the bond's uplinks still ramping up: an interval; one of them in
 * an outage: longer), a standing queue younger than the hold is never
 * judged: 50 ms for ten seconds, no drop. Once it is older, CoDel judges
 * it as ever.
 */
static void test_codel_judges_only_a_queue_older_than_its_hold(void **state)
{
	uint64_t t = T0;

	(void)state;
	q.codel.hold_ns = q.codel.interval_ns;
	assert_int_equal(standing(50, &t, T0 + 10 * SEC), 0);
	assert_true(standing(100, &t, T0 + 12 * SEC) > 0);
}

static void test_codel_stops_dropping_below_target(void **state)
{
	uint64_t t = T0, drops;

	(void)state;
	standing(60, &t, T0 + 500 * MS);
	assert_true(q.aqm_drops > 0);
	assert_true(q.codel.dropping);
	/* The queue drains to 2 packets at once (a fast uplink comes back). */
	while (q.n > 2)
		pop(t);
	drops = q.aqm_drops;
	standing(0, &t, T0 + 2 * SEC);
	assert_false(q.codel.dropping);
	assert_int_equal(q.aqm_drops, drops);
}

static void test_codel_never_drops_the_last_packet_under_an_mtu(void **state)
{
	uint64_t t = T0;

	(void)state;
	/* Three small packets (900 window bytes, under an MTU), waiting seconds: none dropped. */
	for (int i = 0; i < 3; i++)
		assert_true(push(300, t));
	assert_int_equal(pop(t + 1 * SEC), 0);
	assert_int_equal(pop(t + 2 * SEC), 1);
	assert_int_equal(pop(t + 3 * SEC), 2);
	assert_int_equal(q.aqm_drops, 0);
	/* Three of an MTU: the first pop starts the clock, the next drops one, the last is sent. */
	t += 10 * SEC;
	for (int i = 0; i < 3; i++)
		assert_true(push(MTU, t));
	assert_int_equal(pop(t + 1 * SEC), 3);
	assert_int_equal(pop(t + 2 * SEC), 5);
	assert_int_equal(q.aqm_drops, 1);
	assert_int_equal(q.n, 0);
	/* A queue of one packet in the dropping state: sent, however long it waited. */
	t += 10 * SEC;
	standing(60, &t, t + 500 * MS);
	assert_true(q.codel.dropping);
	while (q.n > 1)
		pop(t);
	assert_int_equal(pop(t + 10 * SEC), next_id - 1);
}

static void test_no_aqm_never_drops(void **state)
{
	uint64_t t = T0, next;

	(void)state;
	reinit(1ULL << 30, false);
	assert_int_equal(standing(60, &t, T0 + 3 * SEC), 0);
	assert_int_equal(q.aqm_drops, 0);
	/* Read before pop() moves it: the order of a call's arguments is unspecified. */
	next = expect_id;
	assert_int_equal(pop(t + 100 * SEC), next);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_fifo_and_tail_drop_at_the_limit),
		T(test_growth_past_the_first_ring_keeps_order),
		T(test_codel_no_drop_while_below_target),
		T(test_codel_first_drop_after_an_interval_then_sqrt_spacing),
		T(test_codel_judges_only_a_queue_older_than_its_hold),
		T(test_codel_stops_dropping_below_target),
		T(test_codel_never_drops_the_last_packet_under_an_mtu),
		T(test_no_aqm_never_drops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
