// SPDX-License-Identifier: MIT
/* allowed.c: which inner source addresses a peer may use. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "allowed.h"

static struct wb_ip_prefix v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d, uint8_t len)
{
	return (struct wb_ip_prefix){ .family = 4, .len = len, .addr = { a, b, c, d } };
}

/* A minimal IPv4 header with the given source. */
static void ip4(uint8_t pkt[20], uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	memset(pkt, 0, 20);
	pkt[0] = 0x45;
	pkt[12] = a, pkt[13] = b, pkt[14] = c, pkt[15] = d;
}

static void test_prefix_boundaries(void **state)
{
	struct wb_ip_prefix p = v4(10, 1, 0, 0, 23);

	(void)state;
	assert_true(wb_prefix_contains(&p, 4, (const uint8_t[]){ 10, 1, 0, 0 }));
	assert_true(wb_prefix_contains(&p, 4, (const uint8_t[]){ 10, 1, 1, 255 }));
	assert_false(wb_prefix_contains(&p, 4, (const uint8_t[]){ 10, 1, 2, 0 }));
	assert_false(wb_prefix_contains(&p, 4, (const uint8_t[]){ 10, 0, 255, 255 }));
	/* A /30 with host bits, as a TUN address is written, covers its subnet. */
	p = v4(10, 255, 0, 1, 30);
	assert_true(wb_prefix_contains(&p, 4, (const uint8_t[]){ 10, 255, 0, 2 }));
	assert_false(wb_prefix_contains(&p, 4, (const uint8_t[]){ 10, 255, 0, 4 }));
	p = v4(0, 0, 0, 0, 0);
	assert_true(wb_prefix_contains(&p, 4, (const uint8_t[]){ 203, 0, 113, 9 }));
	p = v4(192, 0, 2, 7, 32);
	assert_true(wb_prefix_contains(&p, 4, (const uint8_t[]){ 192, 0, 2, 7 }));
	assert_false(wb_prefix_contains(&p, 4, (const uint8_t[]){ 192, 0, 2, 6 }));
}

static void test_family_and_length_must_fit(void **state)
{
	struct wb_ip_prefix p = v4(10, 0, 0, 0, 8), bad = v4(10, 0, 0, 0, 33);
	uint8_t a6[16] = { 10 };

	(void)state;
	assert_false(wb_prefix_contains(&p, 6, a6));
	assert_false(wb_prefix_contains(&bad, 4, (const uint8_t[]){ 10, 0, 0, 0 }));
}

static void test_ipv6_prefix(void **state)
{
	struct wb_ip_prefix p = { .family = 6, .len = 60, .addr = { 0xfd, 0, 0, 0x10, 0, 0, 0, 0x10 } };
	uint8_t in[16] = { 0xfd, 0, 0, 0x10, 0, 0, 0, 0x1f, 1, 2, 3 };
	uint8_t out[16] = { 0xfd, 0, 0, 0x10, 0, 0, 0, 0x20 };

	(void)state;
	assert_true(wb_prefix_contains(&p, 6, in));
	assert_false(wb_prefix_contains(&p, 6, out));
}

static void test_source_of_packets(void **state)
{
	struct wb_ip_prefix list[] = { v4(10, 1, 0, 0, 24), v4(10, 255, 0, 0, 30) };
	uint8_t pkt[40], v6[40] = { 0x60 };

	(void)state;
	ip4(pkt, 10, 1, 0, 2);
	assert_true(wb_source_allowed(list, 2, pkt, 20));
	ip4(pkt, 10, 255, 0, 2);
	assert_true(wb_source_allowed(list, 2, pkt, 20));
	ip4(pkt, 10, 3, 0, 77);
	assert_false(wb_source_allowed(list, 2, pkt, 20));
	/* An empty list allows anything, even what is not IP. */
	assert_true(wb_source_allowed(list, 0, pkt, 3));
	/* A list refuses what has no whole header, and what is not IPv4 or IPv6. */
	ip4(pkt, 10, 1, 0, 2);
	assert_false(wb_source_allowed(list, 2, pkt, 19));
	pkt[0] = 0x55;
	assert_false(wb_source_allowed(list, 2, pkt, 20));
	assert_false(wb_source_allowed(list, 2, v6, 39));
	assert_false(wb_source_allowed(list, 2, v6, 40)); /* IPv6, but no IPv6 prefix listed */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prefix_boundaries),
		cmocka_unit_test(test_family_and_length_must_fit),
		cmocka_unit_test(test_ipv6_prefix),
		cmocka_unit_test(test_source_of_packets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
