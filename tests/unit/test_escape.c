// SPDX-License-Identifier: MIT
/* Escaping text from outside before it reaches a log or a terminal (lib/escape.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "escape.h"

static void test_printable_ascii_is_kept(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(wb_escape(out, sizeof(out), "dsl: 10.0.0.1:51820 -> up (rtt 12 ms)"),
			    "dsl: 10.0.0.1:51820 -> up (rtt 12 ms)");
	assert_true(wb_printable("a ~"));
}

static void test_control_bytes_and_non_ascii_are_written_as_hex(void **state)
{
	char out[64];

	(void)state;
	assert_string_equal(wb_escape(out, sizeof(out), "lte\n<3>forged"), "lte\\x0a<3>forged");
	assert_string_equal(wb_escape(out, sizeof(out), "\x1b[2J\x7f\xc3\xa9"), "\\x1b[2J\\x7f\\xc3\\xa9");
	assert_false(wb_printable("tab\there"));
	assert_false(wb_printable("\xff"));
}

static void test_a_cut_never_splits_an_escape(void **state)
{
	char out[8];

	(void)state;
	/* "ab" and one escape fit in 7 bytes and the NUL; the second escape does not. */
	assert_string_equal(wb_escape(out, sizeof(out), "ab\n\ncd"), "ab\\x0a");
	assert_string_equal(wb_escape(out, 1, "abc"), "");
	assert_string_equal(wb_escape(out, 4, "abcdef"), "abc");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_printable_ascii_is_kept),
		cmocka_unit_test(test_control_bytes_and_non_ascii_are_written_as_hex),
		cmocka_unit_test(test_a_cut_never_splits_an_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
