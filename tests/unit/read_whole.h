/* SPDX-License-Identifier: MIT */
/*
 * A unit test's read of a whole text file (an example configuration, a
 * document it holds the code to). Include after cmocka.h: a file that
 * cannot be read fails the test.
 */
#ifndef WB_TEST_READ_WHOLE_H
#define WB_TEST_READ_WHOLE_H

#include <stdio.h>
#include <stdlib.h>

/* The file at path, NUL-terminated; the caller frees it. */
static inline char *read_whole(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long len;

	if (!f)
		fail_msg("cannot open %s (run from the source tree, or set WB_SOURCE_ROOT)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

#endif
