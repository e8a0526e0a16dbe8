// SPDX-License-Identifier: MIT
/* Unit tests: trace.c, the Mahimahi trace parser and its lookups. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace.h"

#define MS 1000000ULL

/*
 * The trace (and text) under test live here, so that a failing test, which
 * leaves through a longjmp, still frees them in the teardown.
 */
static struct trace t;
static char *text;

static int teardown(void **state)
{
	(void)state;
	trace_free(&t);
	free(text);
	text = NULL;
	return 0;
}

static int parse_str(struct trace *tr, const char *s, char *err, size_t errlen)
{
	return trace_parse(tr, s, strlen(s), err, errlen);
}

/* Parses text that must be accepted. */
static void parse_ok(struct trace *tr, const char *s)
{
	char err[128] = "";
	int rc = parse_str(tr, s, err, sizeof(err));

	if (rc)
		print_error("rejected: %s\n", err);
	assert_int_equal(rc, 0);
}

/* Parses text that must be rejected with a message starting with prefix and containing what. */
static void parse_fails(const char *s, const char *prefix, const char *what)
{
	char err[128] = "";

	assert_int_equal(parse_str(&t, s, err, sizeof(err)), -EINVAL);
	if (strncmp(err, prefix, strlen(prefix)) || !strstr(err, what)) {
		print_error("message '%s', want '%s...%s'\n", err, prefix, what);
		fail();
	}
	/* A rejected trace is left empty. */
	assert_null(t.ms);
	assert_int_equal(t.count, 0);
	assert_int_equal(t.period_ms, 0);
}

/* ---- parsing ---- */

static void test_parse_small_trace(void **state)
{
	static const uint32_t want[] = { 1, 2, 2, 5 };

	(void)state;
	parse_ok(&t, "1\n2\n2\n5\n");
	assert_int_equal(t.count, 4);
	assert_int_equal(t.period_ms, 5);
	assert_memory_equal(t.ms, want, sizeof(want));
	trace_free(&t);
	assert_null(t.ms);
	assert_int_equal(t.count, 0);
}

static void test_parse_without_final_newline(void **state)
{
	(void)state;
	parse_ok(&t, "1\n3");
	assert_int_equal(t.count, 2);
	assert_int_equal(t.ms[1], 3);
	assert_int_equal(t.period_ms, 3);
	trace_free(&t);
}

static void test_parse_accepts_blank_lines_and_crlf(void **state)
{
	static const uint32_t want[] = { 1, 2, 3, 3 };

	(void)state;
	parse_ok(&t, "\n1\r\n\r\n2\r\n\n  3 \r\n\t3\t\r\n\n");
	assert_int_equal(t.count, 4);
	assert_int_equal(t.period_ms, 3);
	assert_memory_equal(t.ms, want, sizeof(want));
	trace_free(&t);
}

static void test_parse_trace_starting_at_zero(void **state)
{
	(void)state;
	parse_ok(&t, "0\n0\n4\n");
	assert_int_equal(t.count, 3);
	assert_int_equal(t.ms[0], 0);
	assert_int_equal(t.period_ms, 4);
	trace_free(&t);
}

static void test_error_not_a_number_names_its_line(void **state)
{
	(void)state;
	parse_fails("1\n2\nabc\n", "3: ", "expected a time");
	parse_fails("1\n2\n3x\n", "3: ", "expected a time");
	parse_fails("1 2\n", "1: ", "expected a time");
	parse_fails("1.5\n", "1: ", "expected a time");
}

static void test_error_line_numbers_count_blank_lines(void **state)
{
	(void)state;
	parse_fails("1\n\n\nx\n", "4: ", "expected a time");
	parse_fails("1\r\n\r\n2\r\nx\r\n", "4: ", "expected a time");
}

static void test_error_time_going_back(void **state)
{
	(void)state;
	parse_fails("1\n5\n3\n", "3: ", "goes back");
	parse_fails("10\n10\n\n9\n", "4: ", "goes back");
}

static void test_error_negative_number(void **state)
{
	(void)state;
	parse_fails("1\n-2\n", "2: ", "expected a time");
	parse_fails("-1\n", "1: ", "expected a time");
}

static void test_error_last_time_zero(void **state)
{
	(void)state;
	parse_fails("0\n", "1: ", "last time");
	parse_fails("0\n0\n0\n", "3: ", "last time");
}

static void test_error_empty_file(void **state)
{
	char err[128] = "";

	(void)state;
	assert_int_equal(trace_parse(&t, "", 0, err, sizeof(err)), -EINVAL);
	/* An empty file has no line 1 to name; 0 or 1 are both fair. */
	if ((strncmp(err, "0: ", 3) && strncmp(err, "1: ", 3)) || !strstr(err, "no opportunities")) {
		print_error("message '%s'\n", err);
		fail();
	}
	assert_null(t.ms);
	assert_int_equal(t.count, 0);
}

static void test_error_only_blank_lines(void **state)
{
	(void)state;
	parse_fails("\n\n \n", "3: ", "no opportunities");
}

static void test_error_time_above_a_day(void **state)
{
	(void)state;
	parse_fails("1\n86400001\n", "2: ", "time above");
	parse_fails("1\n99999999999999999999999\n", "2: ", "time above");
}

static void test_error_with_no_room_for_a_message(void **state)
{
	char err[4] = "abc";

	(void)state;
	assert_int_equal(trace_parse(&t, "x", 1, err, 0), -EINVAL);
	assert_string_equal(err, "abc");
	/* A tiny buffer is filled, truncated and terminated. */
	assert_int_equal(trace_parse(&t, "x", 1, err, sizeof(err)), -EINVAL);
	assert_int_equal(strlen(err), 3);
}

/* ---- the mean rate ---- */

static void test_mean_rate_one_per_ms_is_12_mbit(void **state)
{
	(void)state;
	parse_ok(&t, "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n");
	assert_int_equal(trace_mean_rate(&t), 12000000);
	trace_free(&t);
}

static void test_mean_rate_of_repeated_times(void **state)
{
	(void)state;
	/* Three opportunities in 10 ms: 3 * 1500 * 8 bits / 10 ms. */
	parse_ok(&t, "5\n5\n10\n");
	assert_int_equal(trace_mean_rate(&t), 3600000);
	trace_free(&t);
}

/* ---- opportunity times ---- */

static void test_opportunity_time_within_first_loop(void **state)
{
	(void)state;
	parse_ok(&t, "1\n2\n2\n5\n");
	assert_int_equal(trace_opportunity_time(&t, 0), 1 * MS);
	assert_int_equal(trace_opportunity_time(&t, 1), 2 * MS);
	assert_int_equal(trace_opportunity_time(&t, 2), 2 * MS);
	assert_int_equal(trace_opportunity_time(&t, 3), 5 * MS);
	trace_free(&t);
}

static void test_opportunity_time_across_loops(void **state)
{
	(void)state;
	parse_ok(&t, "1\n2\n2\n5\n");
	assert_int_equal(trace_opportunity_time(&t, 4), 6 * MS);
	assert_int_equal(trace_opportunity_time(&t, 7), 10 * MS);
	assert_int_equal(trace_opportunity_time(&t, 8), 11 * MS);
	assert_int_equal(trace_opportunity_time(&t, 4 * 1000 + 1), (1000 * 5 + 2) * MS);
	trace_free(&t);
}

/* ---- first opportunity at or after a time ---- */

static void test_first_at_exact_opportunity_times(void **state)
{
	(void)state;
	parse_ok(&t, "1\n3\n4\n8\n");
	assert_int_equal(trace_first_at_or_after(&t, 1 * MS), 0);
	assert_int_equal(trace_first_at_or_after(&t, 3 * MS), 1);
	assert_int_equal(trace_first_at_or_after(&t, 4 * MS), 2);
	trace_free(&t);
}

static void test_first_between_opportunities(void **state)
{
	(void)state;
	parse_ok(&t, "1\n3\n4\n8\n");
	assert_int_equal(trace_first_at_or_after(&t, 0), 0);
	assert_int_equal(trace_first_at_or_after(&t, 1 * MS + 1), 1);
	assert_int_equal(trace_first_at_or_after(&t, 2 * MS), 1);
	assert_int_equal(trace_first_at_or_after(&t, 4 * MS + 1), 3);
	assert_int_equal(trace_first_at_or_after(&t, 8 * MS - 1), 3);
	trace_free(&t);
}

static void test_first_after_the_loop_boundary(void **state)
{
	(void)state;
	parse_ok(&t, "1\n3\n4\n8\n");
	/* Just past the period: the first opportunity of the second loop, at 9 ms. */
	assert_int_equal(trace_first_at_or_after(&t, 8 * MS + 1), 4);
	assert_int_equal(trace_first_at_or_after(&t, 9 * MS), 4);
	assert_int_equal(trace_first_at_or_after(&t, 9 * MS + 1), 5);
	/* Third loop: 17, 19, 20, 24 ms. */
	assert_int_equal(trace_first_at_or_after(&t, 18 * MS), 9);
	assert_int_equal(trace_first_at_or_after(&t, 23 * MS), 11);
	trace_free(&t);
}

/*
 * At a whole number of periods the last opportunity of the loop that ends
 * there is the first at or after that time: at 8 ms it is index 3 (8 ms), not
 * index 4 (9 ms).
 */
static void test_first_at_the_period_is_the_last_opportunity_of_the_loop(void **state)
{
	(void)state;
	parse_ok(&t, "1\n3\n4\n8\n");
	assert_int_equal(trace_first_at_or_after(&t, 8 * MS), 3);
	assert_int_equal(trace_first_at_or_after(&t, 16 * MS), 7);
	trace_free(&t);
	/* The same when the loop starts at 0 ms: 10 ms is index 2 before index 3. */
	parse_ok(&t, "0\n5\n10\n");
	assert_int_equal(trace_first_at_or_after(&t, 10 * MS), 2);
	trace_free(&t);
}

static void test_first_with_several_opportunities_in_one_ms(void **state)
{
	(void)state;
	parse_ok(&t, "2\n2\n2\n3\n3\n6\n");
	/* The first of the repeated ones, at and before their time. */
	assert_int_equal(trace_first_at_or_after(&t, 1 * MS), 0);
	assert_int_equal(trace_first_at_or_after(&t, 2 * MS), 0);
	assert_int_equal(trace_first_at_or_after(&t, 2 * MS + 1), 3);
	assert_int_equal(trace_first_at_or_after(&t, 3 * MS), 3);
	assert_int_equal(trace_first_at_or_after(&t, 3 * MS + 1), 5);
	/* And in the next loop (8, 8, 8, 9, 9, 12 ms). */
	assert_int_equal(trace_first_at_or_after(&t, 7 * MS), 6);
	assert_int_equal(trace_first_at_or_after(&t, 8 * MS + 1), 9);
	trace_free(&t);
}

/* The definition itself, swept over three loops every 250 us. */
static void test_first_at_or_after_is_the_first_not_before(void **state)
{
	(void)state;
	parse_ok(&t, "1\n2\n2\n5\n");
	for (uint64_t at = 0; at <= 15 * MS; at += MS / 4) {
		uint64_t k = trace_first_at_or_after(&t, at);

		if (trace_opportunity_time(&t, k) < at || (k && trace_opportunity_time(&t, k - 1) >= at)) {
			print_error("at %llu ns: got opportunity %llu at %llu ns\n", (unsigned long long)at,
				    (unsigned long long)k, (unsigned long long)trace_opportunity_time(&t, k));
			fail();
		}
	}
	trace_free(&t);
}

/* ---- a synthetic trace of a few hundred lines ---- */

/* The calibration square wave: 4 opportunities per ms for 50 ms, then 1 per ms for 50 ms. */
static void square_wave(void)
{
	size_t cap = 4096, len = 0;

	text = malloc(cap);
	assert_non_null(text);
	for (int ms = 1; ms <= 100; ms++)
		for (int i = 0; i < (ms <= 50 ? 4 : 1); i++)
			len += (size_t)snprintf(text + len, cap - len, "%d\n", ms);
	assert_true(len < cap);
}

static void test_synthetic_square_wave(void **state)
{
	(void)state;
	square_wave();
	parse_ok(&t, text);
	assert_int_equal(t.count, 250);
	assert_int_equal(t.period_ms, 100);
	assert_int_equal(t.ms[0], 1);
	assert_int_equal(t.ms[199], 50);
	assert_int_equal(t.ms[200], 51);
	assert_int_equal(trace_mean_rate(&t), 30000000);
	/* 50.5 ms is in the slow half: index 200 (51 ms); 101 ms starts the next loop. */
	assert_int_equal(trace_first_at_or_after(&t, 50 * MS + MS / 2), 200);
	assert_int_equal(trace_first_at_or_after(&t, 100 * MS + MS / 2), 250);
	assert_int_equal(trace_opportunity_time(&t, 250 + 4), 102 * MS);
}

/* ---- the real traces in tests/traces ---- */

/* Reads tests/traces/name, looked up from the directory of this binary upwards, then from the cwd. */
static char *read_shipped_trace(const char *name, size_t *len)
{
	char dir[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	FILE *f = NULL;
	char *buf;
	size_t got;
	long size;

	if (n > 0) {
		char *slash;

		dir[n] = 0;
		while (!f && (slash = strrchr(dir, '/'))) {
			*slash = 0;
			snprintf(path, sizeof(path), "%s/tests/traces/%s", dir, name);
			f = fopen(path, "rb");
		}
	}
	if (!f) {
		snprintf(path, sizeof(path), "tests/traces/%s", name);
		f = fopen(path, "rb");
	}
	if (!f) {
		print_error("cannot find tests/traces/%s\n", name);
		fail();
	}
	size = fseek(f, 0, SEEK_END) ? -1 : ftell(f);
	rewind(f);
	buf = size > 0 ? malloc((size_t)size) : NULL;
	got = buf ? fread(buf, 1, (size_t)size, f) : 0;
	fclose(f);
	if (!buf || got != (size_t)size) {
		free(buf);
		print_error("cannot read %s\n", path);
		fail();
	}
	*len = got;
	return buf;
}

struct shipped {
	const char *name;
	uint32_t count, first, period;
	uint64_t mean_rate; /* count * 12000 * 1000 / period, computed apart */
	unsigned readme_100kbit; /* the mean rate tests/traces/README.md gives, in 0.1 Mbit/s */
};

static void check_shipped(const struct shipped *s)
{
	size_t len;
	char err[128] = "";
	int rc;

	text = read_shipped_trace(s->name, &len);
	rc = trace_parse(&t, text, len, err, sizeof(err));
	if (rc)
		print_error("%s: %s\n", s->name, err);
	assert_int_equal(rc, 0);
	assert_int_equal(t.count, s->count);
	assert_int_equal(t.ms[0], s->first);
	assert_int_equal(t.period_ms, s->period);
	assert_int_equal(trace_mean_rate(&t), s->mean_rate);
	assert_int_equal((trace_mean_rate(&t) + 50000) / 100000, s->readme_100kbit);
	for (uint32_t i = 1; i < t.count; i++)
		assert_true(t.ms[i - 1] <= t.ms[i]);
	assert_int_equal(trace_opportunity_time(&t, t.count), ((uint64_t)s->period + s->first) * MS);
	trace_free(&t);
	free(text);
	text = NULL;
}

static void test_shipped_att_lte_up(void **state)
{
	static const struct shipped s = { "ATT-LTE-driving-2016.up", 19101, 0, 120002, 1910068, 19 };

	(void)state;
	check_shipped(&s);
}

static void test_shipped_traces_match_their_readme(void **state)
{
	static const struct shipped all[] = {
		{ "ATT-LTE-driving-2016.down", 45604, 0, 120002, 4560323, 46 },
		{ "TMobile-LTE-short.down", 194846, 0, 139986, 16702755, 167 },
		{ "TMobile-LTE-short.up", 155381, 7, 140000, 13318371, 133 },
		{ "Verizon-LTE-short.down", 58655, 0, 140000, 5027571, 50 },
		{ "Verizon-LTE-short.up", 69367, 7, 140000, 5945742, 59 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		check_shipped(&all[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_parse_small_trace, teardown),
		cmocka_unit_test_teardown(test_parse_without_final_newline, teardown),
		cmocka_unit_test_teardown(test_parse_accepts_blank_lines_and_crlf, teardown),
		cmocka_unit_test_teardown(test_parse_trace_starting_at_zero, teardown),
		cmocka_unit_test_teardown(test_error_not_a_number_names_its_line, teardown),
		cmocka_unit_test_teardown(test_error_line_numbers_count_blank_lines, teardown),
		cmocka_unit_test_teardown(test_error_time_going_back, teardown),
		cmocka_unit_test_teardown(test_error_negative_number, teardown),
		cmocka_unit_test_teardown(test_error_last_time_zero, teardown),
		cmocka_unit_test_teardown(test_error_empty_file, teardown),
		cmocka_unit_test_teardown(test_error_only_blank_lines, teardown),
		cmocka_unit_test_teardown(test_error_time_above_a_day, teardown),
		cmocka_unit_test_teardown(test_error_with_no_room_for_a_message, teardown),
		cmocka_unit_test_teardown(test_mean_rate_one_per_ms_is_12_mbit, teardown),
		cmocka_unit_test_teardown(test_mean_rate_of_repeated_times, teardown),
		cmocka_unit_test_teardown(test_opportunity_time_within_first_loop, teardown),
		cmocka_unit_test_teardown(test_opportunity_time_across_loops, teardown),
		cmocka_unit_test_teardown(test_first_at_exact_opportunity_times, teardown),
		cmocka_unit_test_teardown(test_first_between_opportunities, teardown),
		cmocka_unit_test_teardown(test_first_after_the_loop_boundary, teardown),
		cmocka_unit_test_teardown(test_first_at_the_period_is_the_last_opportunity_of_the_loop, teardown),
		cmocka_unit_test_teardown(test_first_with_several_opportunities_in_one_ms, teardown),
		cmocka_unit_test_teardown(test_first_at_or_after_is_the_first_not_before, teardown),
		cmocka_unit_test_teardown(test_synthetic_square_wave, teardown),
		cmocka_unit_test_teardown(test_shipped_att_lte_up, teardown),
		cmocka_unit_test_teardown(test_shipped_traces_match_their_readme, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
