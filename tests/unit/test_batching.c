// SPDX-License-Identifier: MIT
/* The event loop's hold, following the rate packets come in at (daemon/batching.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "batching.h"

#define MS 1000000ULL

/* Feeds pps packets a second for ms milliseconds, in steps of 1 ms; returns the last hold. */
static uint64_t feed(struct batching *b, uint64_t *now, uint64_t *packets, uint64_t pps, int ms)
{
	uint64_t hold = 0;

	for (int i = 0; i < ms; i++) {
		*now += MS;
		*packets += pps / 1000;
		hold = batching_hold(b, *now, *packets);
	}
	return hold;
}

static void test_a_slow_or_idle_tunnel_never_holds(void **state)
{
	struct batching b = { 0 };
	uint64_t now = 0, packets = 0;

	(void)state;
	assert_int_equal(batching_hold(&b, now, packets), 0);
	assert_int_equal(feed(&b, &now, &packets, 50, 100), 0); /* a call: 50 packets a second */
	assert_int_equal(feed(&b, &now, &packets, BATCHING_MIN_PPS / 2, 100), 0);
	/* A burst of 64 packets after a second of silence is not a rate. */
	now += 1000 * MS;
	packets += 64;
	assert_int_equal(batching_hold(&b, now, packets), 0);
}

static void test_a_busy_tunnel_holds_for_a_batch_up_to_the_cap(void **state)
{
	struct batching b = { 0 };
	uint64_t now = 0, packets = 0;

	(void)state;
	/* 64000 packets a second: 16 come in 250 us. */
	assert_int_equal(feed(&b, &now, &packets, 64000, 20), 16 * 1000000000ULL / 64000);
	/* 4000 a second: 16 would take 4 ms, the hold stops at the cap. */
	assert_int_equal(feed(&b, &now, &packets, 4000, 20), BATCHING_MAX_HOLD_NS);
}

static void test_the_hold_ends_within_a_window_of_the_traffic_ending(void **state)
{
	struct batching b = { 0 };
	uint64_t now = 0, packets = 0;

	(void)state;
	assert_true(feed(&b, &now, &packets, 20000, 20) > 0);
	assert_int_equal(feed(&b, &now, &packets, 0, (int)(2 * BATCHING_WINDOW_NS / MS)), 0);
}

static void test_a_count_that_goes_back_starts_again(void **state)
{
	struct batching b = { 0 };
	uint64_t now = 0, packets = 1000000;

	(void)state;
	assert_true(feed(&b, &now, &packets, 20000, 20) > 0);
	assert_int_equal(batching_hold(&b, now + MS, 10), 0);
	assert_int_equal(batching_hold(&b, now, 20), 0); /* and a clock that went back */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_slow_or_idle_tunnel_never_holds),
		cmocka_unit_test(test_a_busy_tunnel_holds_for_a_batch_up_to_the_cap),
		cmocka_unit_test(test_the_hold_ends_within_a_window_of_the_traffic_ending),
		cmocka_unit_test(test_a_count_that_goes_back_starts_again),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
