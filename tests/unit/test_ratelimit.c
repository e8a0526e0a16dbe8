// SPDX-License-Identifier: MIT
/* The per-source bucket for handshake initiations under load (lib/ratelimit.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ratelimit.h"

#define MS 1000000ULL
#define START (1000 * MS)

static struct wb_ratelimit r;

static int setup(void **state)
{
	uint8_t key[WB_HASH_LEN] = { 7, 1, 2, 3 };

	(void)state;
	wb_ratelimit_init(&r, key);
	return 0;
}

static struct wb_endpoint v4(uint8_t a, uint8_t b, uint16_t port)
{
	return (struct wb_endpoint){ .family = 4, .port = port, .addr = { 192, 0, a, b } };
}

static struct wb_endpoint v6(uint8_t net, uint8_t host)
{
	return (struct wb_endpoint){ .family = 6, .port = 51820,
				     .addr = { 0x20, 0x01, 0x0d, 0xb8, 0, net, 0, 0, 0, 0, 0, 0, 0, 0, 0, host } };
}

static unsigned allowed_in_a_row(const struct wb_endpoint *src, uint64_t now, unsigned tries)
{
	unsigned n = 0;

	for (unsigned i = 0; i < tries; i++)
		n += wb_ratelimit_allow(&r, src, now);
	return n;
}

static void test_a_burst_of_five_then_refused(void **state)
{
	struct wb_endpoint a = v4(2, 1, 1000);

	(void)state;
	assert_int_equal(allowed_in_a_row(&a, START, 100), WB_RATELIMIT_BURST);
}

static void test_twenty_a_second_after_the_burst(void **state)
{
	struct wb_endpoint a = v4(2, 1, 1000);
	unsigned n = allowed_in_a_row(&a, START, 10);

	(void)state;
	/* 2000 attempts over 10 s, one every 5 ms: the burst and 20 a second. */
	for (uint64_t t = START + 5 * MS; t <= START + 10000 * MS; t += 5 * MS)
		n += wb_ratelimit_allow(&r, &a, t);
	assert_int_equal(n, WB_RATELIMIT_BURST + 10 * WB_RATELIMIT_PER_SECOND);
}

static void test_the_port_does_not_make_another_source(void **state)
{
	struct wb_endpoint a = v4(2, 1, 1000), b = v4(2, 1, 1001);

	(void)state;
	assert_int_equal(allowed_in_a_row(&a, START, 3), 3);
	assert_int_equal(allowed_in_a_row(&b, START, 10), WB_RATELIMIT_BURST - 3);
}

static void test_sources_are_counted_apart(void **state)
{
	struct wb_endpoint a = v4(2, 1, 1000), b = v4(2, 2, 1000);

	(void)state;
	assert_int_equal(allowed_in_a_row(&a, START, 10), WB_RATELIMIT_BURST);
	assert_int_equal(allowed_in_a_row(&b, START, 10), WB_RATELIMIT_BURST);
}

static void test_an_ipv6_source_is_its_slash_64(void **state)
{
	struct wb_endpoint a = v6(1, 1), same64 = v6(1, 2), other64 = v6(2, 1);

	(void)state;
	assert_int_equal(allowed_in_a_row(&a, START, 10), WB_RATELIMIT_BURST);
	assert_int_equal(allowed_in_a_row(&same64, START, 10), 0);
	assert_int_equal(allowed_in_a_row(&other64, START, 10), WB_RATELIMIT_BURST);
}

static void test_an_ipv4_address_is_not_the_ipv6_prefix_of_the_same_bytes(void **state)
{
	struct wb_endpoint a = v4(2, 1, 1000), b = a;

	(void)state;
	b.family = 6;
	assert_int_equal(allowed_in_a_row(&a, START, 10), WB_RATELIMIT_BURST);
	assert_int_equal(allowed_in_a_row(&b, START, 10), WB_RATELIMIT_BURST);
}

/*
 * More busy sources than slots: some newcomers find their probe window taken
 * and are refused, but a source already counted keeps its bucket (no one can
 * reset it by crowding the table), and once the crowd's buckets would be full
 * again their slots are free for anyone.
 */
static void test_a_crowded_table_refuses_newcomers_and_keeps_the_counted(void **state)
{
	struct wb_endpoint router = v4(2, 1, 1000);
	unsigned refused = 0;

	(void)state;
	assert_int_equal(allowed_in_a_row(&router, START, 10), WB_RATELIMIT_BURST);
	for (unsigned i = 0; i < 4 * WB_RATELIMIT_SLOTS; i++) {
		struct wb_endpoint s = v4((uint8_t)(100 + i / 256), (uint8_t)i, 1);

		refused += !wb_ratelimit_allow(&r, &s, START + 1 * MS);
	}
	assert_true(refused > 2 * WB_RATELIMIT_SLOTS);
	assert_false(wb_ratelimit_allow(&r, &router, START + 2 * MS)); /* its bucket is still empty */
	assert_true(wb_ratelimit_allow(&r, &router, START + 60 * MS));    /* and refills as before */
	{
		struct wb_endpoint late = v4(250, 1, 1);

		assert_int_equal(allowed_in_a_row(&late, START + 1000 * MS, 10), WB_RATELIMIT_BURST);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_a_burst_of_five_then_refused, setup),
		cmocka_unit_test_setup(test_twenty_a_second_after_the_burst, setup),
		cmocka_unit_test_setup(test_the_port_does_not_make_another_source, setup),
		cmocka_unit_test_setup(test_sources_are_counted_apart, setup),
		cmocka_unit_test_setup(test_an_ipv6_source_is_its_slash_64, setup),
		cmocka_unit_test_setup(test_an_ipv4_address_is_not_the_ipv6_prefix_of_the_same_bytes, setup),
		cmocka_unit_test_setup(test_a_crowded_table_refuses_newcomers_and_keeps_the_counted, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
