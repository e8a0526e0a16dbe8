// SPDX-License-Identifier: MIT
/* Unit tests: shaper.c, departure-time rate scheduling and trace-driven opportunities. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "shaper.h"
#include "trace.h"
#include "units.h"

#define US 1000ULL
#define MS 1000000ULL
#define SEC 1000000000ULL
#define MBIT 1000000ULL

/*
 * The trace under test lives here, so that a failing test, which leaves
 * through a longjmp, still frees it in the teardown.
 */
static struct trace t;

static int teardown(void **state)
{
	(void)state;
	trace_free(&t);
	return 0;
}

/* The trace of the trace-mode tests: one opportunity per ms, 1 to 10 ms, period 10 ms. */
static const char one_per_ms[] = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

static void load_trace(struct trace *tr, const char *s)
{
	char err[128] = "";
	int rc = trace_parse(tr, s, strlen(s), err, sizeof(err));

	if (rc)
		print_error("trace rejected: %s\n", err);
	assert_int_equal(rc, 0);
}

/* ---- rate mode ---- */

static void test_tx_time_1500_bytes_at_10mbit_is_1200us(void **state)
{
	(void)state;
	assert_int_equal(shaper_tx_time(10 * MBIT, 1500), 1200000);
	assert_int_equal(shaper_tx_time(1000000000, 64), 512);
}

static void test_tx_time_of_zero_rate_is_zero(void **state)
{
	(void)state;
	assert_int_equal(shaper_tx_time(0, 1500), 0);
	assert_int_equal(shaper_tx_time(0, 0), 0);
}

static void test_tx_time_does_not_overflow_64_bits(void **state)
{
	(void)state;
	/* 3e9 bytes * 8 * 1e9 is above 2^64; the result, 2.4e16 ns, is not. */
	assert_int_equal(shaper_tx_time(1000, 3000000000ULL), 24000000000000000ULL);
}

static void test_tx_time_rounds_down(void **state)
{
	(void)state;
	/* 1500 * 8e9 / 7e6 = 1714285.71... */
	assert_int_equal(shaper_tx_time(7 * MBIT, 1500), 1714285);
}

static void test_rate_one_packet_departs_after_its_tx_time(void **state)
{
	struct shaper s;

	(void)state;
	shaper_init_rate(&s, 10 * MBIT);
	assert_int_equal(shaper_depart(&s, 5 * MS, 1500), 5 * MS + 1200 * US);
}

static void test_rate_back_to_back_packets_queue(void **state)
{
	struct shaper s;

	(void)state;
	shaper_init_rate(&s, 10 * MBIT);
	assert_int_equal(shaper_depart(&s, 0, 1500), 1200 * US);
	assert_int_equal(shaper_depart(&s, 0, 1500), 2400 * US);
	assert_int_equal(shaper_depart(&s, 0, 1500), 3600 * US);
	/* One arriving while the queue is busy also waits for the last. */
	assert_int_equal(shaper_depart(&s, 3 * MS, 1500), 4800 * US);
}

static void test_rate_idle_gap_restarts_at_arrival(void **state)
{
	struct shaper s;

	(void)state;
	shaper_init_rate(&s, 10 * MBIT);
	assert_int_equal(shaper_depart(&s, 0, 1500), 1200 * US);
	assert_int_equal(shaper_depart(&s, 10 * MS, 1500), 11200 * US);
	/* Arriving exactly when the last one finishes: no wait, no gap. */
	assert_int_equal(shaper_depart(&s, 11200 * US, 1500), 12400 * US);
}

static void test_rate_unlimited_departs_immediately(void **state)
{
	struct shaper s;

	(void)state;
	shaper_init_rate(&s, 0);
	assert_int_equal(shaper_depart(&s, 7 * MS, 1500), 7 * MS);
	assert_int_equal(shaper_depart(&s, 7 * MS, 65535), 7 * MS);
	assert_int_equal(shaper_depart(&s, 8 * MS, 1), 8 * MS);
}

static void test_rate_mean_rate_is_the_rate(void **state)
{
	struct shaper s;

	(void)state;
	shaper_init_rate(&s, 123456789);
	assert_int_equal(shaper_mean_rate(&s), 123456789);
}

/*
 * 10,000 packets of random sizes offered every 10 us (faster than any of them
 * leaves): each leaves exactly its tx time after the one before, and the last
 * leaves within 1 ns per packet (floor rounding) of the exact bits / rate.
 */
static void test_rate_long_run_is_exact_within_rounding(void **state)
{
	const uint64_t rate = 7777777, n = 10000;
	struct shaper s;
	struct prng rng;
	uint64_t prev = 0, bytes_total = 0, last = 0;
	uint64_t exact;

	(void)state;
	prng_seed(&rng, 42);
	shaper_init_rate(&s, rate);
	for (uint64_t i = 0; i < n; i++) {
		uint32_t bytes = 64 + (uint32_t)(prng_next(&rng) % (1500 - 64 + 1));

		last = shaper_depart(&s, i * 10 * US, bytes);
		assert_int_equal(last - prev, shaper_tx_time(rate, bytes));
		prev = last;
		bytes_total += bytes;
	}
	exact = units_muldiv(bytes_total, 8 * SEC, rate); /* floor of the exact time */
	assert_true(last <= exact);
	assert_true(exact - last <= n);
	/* And the queue never emptied, or the check above would not be about the rate. */
	assert_true(last > n * 10 * US);
}

/* ---- trace mode ---- */

static void test_trace_packets_leave_one_per_opportunity(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	for (uint64_t k = 1; k <= 5; k++)
		assert_int_equal(shaper_depart(&s, MS / 2, 1500), k * MS);
	trace_free(&t);
}

static void test_trace_paced_packets_leave_at_the_next_opportunity(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	for (uint64_t k = 0; k < 5; k++)
		assert_int_equal(shaper_depart(&s, k * MS + 300 * US, 1500), (k + 1) * MS);
	trace_free(&t);
}

/* A packet arriving at 0, with the trace starting at 0, gets the first opportunity (1 ms). */
static void test_trace_first_packet_at_time_zero_uses_first_opportunity(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, 0, 1500), 1 * MS);
	assert_int_equal(shaper_depart(&s, 0, 1500), 2 * MS);
	trace_free(&t);
}

static void test_trace_big_packet_needs_two_opportunities(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, MS / 2, 3000), 2 * MS);
	assert_int_equal(shaper_depart(&s, MS / 2, 1500), 3 * MS);
	/* 3001 bytes spill into a third opportunity. */
	assert_int_equal(shaper_depart(&s, MS / 2, 3001), 6 * MS);
	trace_free(&t);
}

static void test_trace_small_packets_share_an_opportunity(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, 500 * US, 700), 1 * MS);
	/* Arrives while the first is still queued: 800 bytes are left at 1 ms. */
	assert_int_equal(shaper_depart(&s, 700 * US, 700), 1 * MS);
	/* 100 bytes left: 200 more need the next opportunity. */
	assert_int_equal(shaper_depart(&s, 800 * US, 200), 2 * MS);
	trace_free(&t);
}

static void test_trace_leftover_is_lost_when_the_queue_empties(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, 500 * US, 700), 1 * MS); /* 800 bytes left at 1 ms */
	/* The queue ran empty at 1 ms: a fresh opportunity of 1500 bytes at 2 ms... */
	assert_int_equal(shaper_depart(&s, 1200 * US, 700), 2 * MS);
	assert_int_equal(shaper_depart(&s, 1300 * US, 800), 2 * MS);
	/* ...used up by 700 + 800: one more byte waits for 3 ms. */
	assert_int_equal(shaper_depart(&s, 1400 * US, 1), 3 * MS);
	trace_free(&t);
}

static void test_trace_several_opportunities_in_one_ms(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, "1\n1\n1\n2\n");
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, 500 * US, 1500), 1 * MS);
	assert_int_equal(shaper_depart(&s, 500 * US, 1500), 1 * MS);
	assert_int_equal(shaper_depart(&s, 500 * US, 1500), 1 * MS);
	assert_int_equal(shaper_depart(&s, 500 * US, 1500), 2 * MS);
	assert_int_equal(shaper_depart(&s, 500 * US, 1500), 3 * MS);
	trace_free(&t);
}

static void test_trace_backlog_wraps_past_the_period(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	for (uint64_t k = 1; k <= 25; k++)
		assert_int_equal(shaper_depart(&s, MS / 2, 1500), k * MS);
	trace_free(&t);
}

static void test_trace_idle_arrivals_in_later_loops(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, 9500 * US, 1500), 10 * MS);
	assert_int_equal(shaper_depart(&s, 10500 * US, 1500), 11 * MS);
	assert_int_equal(shaper_depart(&s, 25500 * US, 1500), 26 * MS);
	assert_int_equal(shaper_depart(&s, 1000 * MS + 1, 1500), 1001 * MS);
	trace_free(&t);
}

/* Idle at exactly 10 ms, the period: the opportunity at 10 ms is free and due now. */
static void test_trace_arrival_at_the_period_uses_its_opportunity(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_depart(&s, 10 * MS, 1500), 10 * MS);
	assert_int_equal(shaper_depart(&s, 10 * MS, 1500), 11 * MS);
	trace_free(&t);
}

static void test_trace_t0_offset_is_honoured(void **state)
{
	const uint64_t t0 = 1 * SEC + 250 * US;
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, t0);
	assert_int_equal(shaper_depart(&s, t0 + 500 * US, 1500), t0 + 1 * MS);
	assert_int_equal(shaper_depart(&s, t0 + 500 * US, 1500), t0 + 2 * MS);
	assert_int_equal(shaper_depart(&s, t0 + 9500 * US, 1500), t0 + 10 * MS);
	assert_int_equal(shaper_depart(&s, t0 + 12500 * US, 1500), t0 + 13 * MS);
	trace_free(&t);
}

static void test_trace_arrival_before_t0_waits_for_the_trace(void **state)
{
	const uint64_t t0 = 1 * SEC;
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, t0);
	assert_int_equal(shaper_depart(&s, 500 * MS, 1500), t0 + 1 * MS);
	trace_free(&t);
}

static void test_trace_mean_rate_is_the_trace_rate(void **state)
{
	struct shaper s;

	(void)state;
	load_trace(&t, one_per_ms);
	shaper_init_trace(&s, &t, 0);
	assert_int_equal(shaper_mean_rate(&s), 12 * MBIT);
	trace_free(&t);
}

/* Backlogged for 100 loops, the trace carries exactly its mean rate. */
static void test_trace_long_backlog_carries_the_mean_rate(void **state)
{
	struct shaper s;
	uint64_t last = 0;

	(void)state;
	load_trace(&t, "2\n2\n3\n7\n7\n7\n10\n");
	shaper_init_trace(&s, &t, 0);
	for (int i = 0; i < 700; i++)
		last = shaper_depart(&s, 1 * MS, 1500);
	/* 700 opportunities are 100 loops of 10 ms: the last at 99 * 10 + 10 ms. */
	assert_int_equal(last, 1000 * MS);
	trace_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_tx_time_1500_bytes_at_10mbit_is_1200us, teardown),
		cmocka_unit_test_teardown(test_tx_time_of_zero_rate_is_zero, teardown),
		cmocka_unit_test_teardown(test_tx_time_does_not_overflow_64_bits, teardown),
		cmocka_unit_test_teardown(test_tx_time_rounds_down, teardown),
		cmocka_unit_test_teardown(test_rate_one_packet_departs_after_its_tx_time, teardown),
		cmocka_unit_test_teardown(test_rate_back_to_back_packets_queue, teardown),
		cmocka_unit_test_teardown(test_rate_idle_gap_restarts_at_arrival, teardown),
		cmocka_unit_test_teardown(test_rate_unlimited_departs_immediately, teardown),
		cmocka_unit_test_teardown(test_rate_mean_rate_is_the_rate, teardown),
		cmocka_unit_test_teardown(test_rate_long_run_is_exact_within_rounding, teardown),
		cmocka_unit_test_teardown(test_trace_packets_leave_one_per_opportunity, teardown),
		cmocka_unit_test_teardown(test_trace_paced_packets_leave_at_the_next_opportunity, teardown),
		cmocka_unit_test_teardown(test_trace_first_packet_at_time_zero_uses_first_opportunity, teardown),
		cmocka_unit_test_teardown(test_trace_big_packet_needs_two_opportunities, teardown),
		cmocka_unit_test_teardown(test_trace_small_packets_share_an_opportunity, teardown),
		cmocka_unit_test_teardown(test_trace_leftover_is_lost_when_the_queue_empties, teardown),
		cmocka_unit_test_teardown(test_trace_several_opportunities_in_one_ms, teardown),
		cmocka_unit_test_teardown(test_trace_backlog_wraps_past_the_period, teardown),
		cmocka_unit_test_teardown(test_trace_idle_arrivals_in_later_loops, teardown),
		cmocka_unit_test_teardown(test_trace_arrival_at_the_period_uses_its_opportunity, teardown),
		cmocka_unit_test_teardown(test_trace_t0_offset_is_honoured, teardown),
		cmocka_unit_test_teardown(test_trace_arrival_before_t0_waits_for_the_trace, teardown),
		cmocka_unit_test_teardown(test_trace_mean_rate_is_the_trace_rate, teardown),
		cmocka_unit_test_teardown(test_trace_long_backlog_carries_the_mean_rate, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
