// SPDX-License-Identifier: MIT
/* Unit tests: units.c, the parsers of rates, times, sizes, percentages and plain integers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>

#include "units.h"

#define SENTINEL_U64 0xdeadbeefcafef00dULL
#define SENTINEL_DBL (-42.5)

/* Parses s and checks it succeeds with exactly want. */
static void expect_rate(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL_U64;

	assert_int_equal(units_parse_rate(s, &v), 0);
	assert_int_equal(v, want);
}

static void expect_time(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL_U64;

	assert_int_equal(units_parse_time(s, &v), 0);
	assert_int_equal(v, want);
}

static void expect_size(const char *s, uint64_t want)
{
	uint64_t v = SENTINEL_U64;

	assert_int_equal(units_parse_size(s, &v), 0);
	assert_int_equal(v, want);
}

static void expect_percent(const char *s, double want)
{
	double v = SENTINEL_DBL;

	assert_int_equal(units_parse_percent(s, &v), 0);
	if (v != want) {
		print_error("'%s' gave %.17g, want %.17g\n", s, v, want);
		fail();
	}
}

/* Rejections: an error code (negative) and the output left as it was. */
static void reject_rate(const char *s)
{
	uint64_t v = SENTINEL_U64;
	int rc = units_parse_rate(s, &v);

	if (rc >= 0)
		print_error("rate '%s' accepted as %llu\n", s ? s : "(null)", (unsigned long long)v);
	assert_true(rc < 0);
	assert_int_equal(v, SENTINEL_U64);
}

static void reject_time(const char *s)
{
	uint64_t v = SENTINEL_U64;
	int rc = units_parse_time(s, &v);

	if (rc >= 0)
		print_error("time '%s' accepted as %llu\n", s ? s : "(null)", (unsigned long long)v);
	assert_true(rc < 0);
	assert_int_equal(v, SENTINEL_U64);
}

static void reject_size(const char *s)
{
	uint64_t v = SENTINEL_U64;
	int rc = units_parse_size(s, &v);

	if (rc >= 0)
		print_error("size '%s' accepted as %llu\n", s ? s : "(null)", (unsigned long long)v);
	assert_true(rc < 0);
	assert_int_equal(v, SENTINEL_U64);
}

static void reject_percent(const char *s)
{
	double v = SENTINEL_DBL;
	int rc = units_parse_percent(s, &v);

	if (rc >= 0)
		print_error("percent '%s' accepted as %.17g\n", s ? s : "(null)", v);
	assert_true(rc < 0);
	assert_true(v == SENTINEL_DBL);
}

static void reject_uint(const char *s, uint64_t max, int want_rc)
{
	uint64_t v = SENTINEL_U64;
	int rc = units_parse_uint(s, max, &v);

	if (rc != want_rc)
		print_error("uint '%s' (max %llu): rc %d, value %llu\n", s ? s : "(null)",
			    (unsigned long long)max, rc, (unsigned long long)v);
	assert_int_equal(rc, want_rc);
	assert_int_equal(v, SENTINEL_U64);
}

/* ---- rates ---- */

static void test_rate_accepts_mbit_kbit_gbit(void **state)
{
	(void)state;
	expect_rate("10mbit", 10000000);
	expect_rate("1.5gbit", 1500000000);
	expect_rate("500kbit", 500000);
	expect_rate("64000bit", 64000);
}

static void test_rate_zero_and_unlimited_are_zero(void **state)
{
	(void)state;
	expect_rate("0", 0);
	expect_rate("unlimited", 0);
	expect_rate("0mbit", 0);
}

static void test_rate_units_ignore_case(void **state)
{
	(void)state;
	expect_rate("10Mbit", 10000000);
	expect_rate("2GBIT", 2000000000);
}

static void test_rate_rejects_malformed(void **state)
{
	(void)state;
	reject_rate(NULL);
	reject_rate("");
	reject_rate("10");
	reject_rate("10mbs");
	reject_rate("0x10mbit");
	reject_rate("-1mbit");
	reject_rate("1e3kbit");
	reject_rate(" 10mbit");
	reject_rate("10 mbit");
	reject_rate("10mbit ");
	reject_rate("mbit");
	reject_rate(".mbit");
	reject_rate("1.2.3mbit");
	reject_rate("unlimitedx");
}

static void test_rate_rejects_fraction_of_a_bit(void **state)
{
	(void)state;
	reject_rate("0.5bit");
}

static void test_rate_rejects_overflow(void **state)
{
	(void)state;
	reject_rate("18446744073709551616bit");
	reject_rate("20000000000gbit");
}

/* ---- times ---- */

static void test_time_accepts_ms_us_s_ns(void **state)
{
	(void)state;
	expect_time("20ms", 20000000);
	expect_time("150us", 150000);
	expect_time("1.5s", 1500000000);
	expect_time("800ns", 800);
	expect_time("0", 0);
	expect_time("0.5ms", 500000);
}

static void test_time_rejects_malformed(void **state)
{
	(void)state;
	reject_time(NULL);
	reject_time("");
	reject_time("10");
	reject_time("-1ms");
	reject_time("1e3ms");
	reject_time(" 5ms");
	reject_time("5 ms");
	reject_time("5ms ");
	reject_time("1.2.3ms");
	reject_time("0x10ms");
	reject_time("5min");
	reject_time("ms");
}

static void test_time_rejects_beyond_an_hour(void **state)
{
	(void)state;
	expect_time("3600s", 3600ULL * 1000000000ULL);
	reject_time("3601s");
}

/* ---- sizes ---- */

static void test_size_accepts_b_kb_mb(void **state)
{
	(void)state;
	expect_size("1500b", 1500);
	expect_size("64kb", 65536);
	expect_size("64k", 65536);
	expect_size("2mb", 2097152);
	expect_size("2m", 2097152);
	expect_size("0", 0);
}

static void test_size_rejects_malformed(void **state)
{
	(void)state;
	reject_size(NULL);
	reject_size("");
	reject_size("10");
	reject_size("-1b");
	reject_size("1e3b");
	reject_size(" 5kb");
	reject_size("5 kb");
	reject_size("5gb");
	reject_size("1.2.3kb");
}

static void test_size_rejects_beyond_a_tebibyte(void **state)
{
	(void)state;
	expect_size("1048576mb", 1099511627776ULL);
	reject_size("1048577mb");
}

/* ---- percentages ---- */

static void test_percent_accepts_exact_probabilities(void **state)
{
	(void)state;
	expect_percent("1%", 0.01);
	expect_percent("0.25%", 0.0025);
	expect_percent("100%", 1.0);
	expect_percent("0%", 0.0);
	expect_percent("0", 0.0);
}

static void test_percent_rejects_malformed_and_above_100(void **state)
{
	(void)state;
	reject_percent(NULL);
	reject_percent("");
	reject_percent("10");
	reject_percent("101%");
	reject_percent("-1%");
	reject_percent("1 %");
	reject_percent(" 1%");
	reject_percent("1e1%");
	reject_percent("%");
	reject_percent("1.2.3%");
}

/* ---- plain integers ---- */

static void test_uint_accepts_up_to_max(void **state)
{
	uint64_t v = SENTINEL_U64;

	(void)state;
	assert_int_equal(units_parse_uint("0", 0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(units_parse_uint("1000", 1000, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(units_parse_uint("007", 1000, &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(units_parse_uint("18446744073709551615", UINT64_MAX, &v), 0);
	assert_int_equal(v, UINT64_MAX);
}

static void test_uint_rejects_above_max(void **state)
{
	(void)state;
	reject_uint("1001", 1000, -ERANGE);
	reject_uint("65536", 65535, -ERANGE);
	reject_uint("10000", 1000, -ERANGE);
}

static void test_uint_rejects_u64_overflow(void **state)
{
	(void)state;
	reject_uint("18446744073709551616", UINT64_MAX, -ERANGE);
	reject_uint("99999999999999999999", UINT64_MAX, -ERANGE);
	reject_uint("184467440737095516150", UINT64_MAX, -ERANGE);
}

/* A single digit above a maximum below 9 must be refused too. */
static void test_uint_rejects_digit_above_small_max(void **state)
{
	(void)state;
	reject_uint("7", 5, -ERANGE);
	reject_uint("1", 0, -ERANGE);
	reject_uint("17", 5, -ERANGE);
}

static void test_uint_rejects_non_digits(void **state)
{
	(void)state;
	reject_uint(NULL, 100, -EINVAL);
	reject_uint("", 100, -EINVAL);
	reject_uint("-1", 100, -EINVAL);
	reject_uint("+1", 100, -EINVAL);
	reject_uint(" 1", 100, -EINVAL);
	reject_uint("1 ", 100, -EINVAL);
	reject_uint("1a", 100, -EINVAL);
	reject_uint("0x1", 100, -EINVAL);
	reject_uint("1.0", 100, -EINVAL);
}

/* ---- units_muldiv: floor(a * b / c) with a 128-bit product ---- */

static void test_muldiv_exact_values(void **state)
{
	(void)state;
	assert_int_equal(units_muldiv(1500, 8000000000ULL, 1), 12000000000000ULL);
	assert_int_equal(units_muldiv(7, 3, 2), 10);
	assert_int_equal(units_muldiv(0, 5, 3), 0);
	assert_int_equal(units_muldiv(5, 5, 0), 0);
	/* Products past 64 bits: 2^64 - 1 squared over itself, and over 2^63. */
	assert_int_equal(units_muldiv(UINT64_MAX, UINT64_MAX, UINT64_MAX), UINT64_MAX);
	assert_int_equal(units_muldiv(UINT64_MAX, 1ULL << 32, 1ULL << 40), UINT64_MAX >> 8);
	assert_int_equal(units_muldiv(1ULL << 63, 6, 4), 0xC000000000000000ULL);
	assert_int_equal(units_muldiv(10000000000000ULL, 10000000000000ULL, 1000000000000000ULL),
			 100000000000ULL);
	assert_int_equal(units_muldiv(0xFFFFFFFFFFFFULL, 0xFFFFFFFFFFFFULL, 0x1000000000000ULL),
			 0xFFFFFFFFFFFEULL);
	/* A quotient that needs more than 64 bits saturates. */
	assert_int_equal(units_muldiv(UINT64_MAX, 2, 1), UINT64_MAX);
	assert_int_equal(units_muldiv(1ULL << 63, 6, 3), UINT64_MAX);
	assert_int_equal(units_muldiv(1ULL << 40, 1ULL << 40, 1ULL << 10), UINT64_MAX);
}

#ifdef __SIZEOF_INT128__
/* Where the compiler has a 128-bit integer, the two agree on random operands. */
static void test_muldiv_matches_int128(void **state)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;

	(void)state;
	for (int i = 0; i < 100000; i++) {
		uint64_t a, b, c;
		unsigned __int128 want;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a = x >> (x & 63);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b = x >> (x & 63);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		c = (x >> (x & 63)) | 1;
		want = (unsigned __int128)a * b / c;
		assert_int_equal(units_muldiv(a, b, c), want > UINT64_MAX ? UINT64_MAX : (uint64_t)want);
	}
}
#else
static void test_muldiv_matches_int128(void **state)
{
	(void)state;
	skip(); /* no 128-bit integer on this target: the exact values above hold */
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rate_accepts_mbit_kbit_gbit),
		cmocka_unit_test(test_rate_zero_and_unlimited_are_zero),
		cmocka_unit_test(test_rate_units_ignore_case),
		cmocka_unit_test(test_rate_rejects_malformed),
		cmocka_unit_test(test_rate_rejects_fraction_of_a_bit),
		cmocka_unit_test(test_rate_rejects_overflow),
		cmocka_unit_test(test_time_accepts_ms_us_s_ns),
		cmocka_unit_test(test_time_rejects_malformed),
		cmocka_unit_test(test_time_rejects_beyond_an_hour),
		cmocka_unit_test(test_size_accepts_b_kb_mb),
		cmocka_unit_test(test_size_rejects_malformed),
		cmocka_unit_test(test_size_rejects_beyond_a_tebibyte),
		cmocka_unit_test(test_percent_accepts_exact_probabilities),
		cmocka_unit_test(test_percent_rejects_malformed_and_above_100),
		cmocka_unit_test(test_uint_accepts_up_to_max),
		cmocka_unit_test(test_uint_rejects_above_max),
		cmocka_unit_test(test_uint_rejects_u64_overflow),
		cmocka_unit_test(test_uint_rejects_digit_above_small_max),
		cmocka_unit_test(test_uint_rejects_non_digits),
		cmocka_unit_test(test_muldiv_exact_values),
		cmocka_unit_test(test_muldiv_matches_int128),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
