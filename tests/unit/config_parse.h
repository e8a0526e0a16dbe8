/* SPDX-License-Identifier: MIT */
/*
 * What the configuration tests share: one configuration parsed from a text
 * as the file t.conf, and the error it gave. Include it after cmocka.h.
 */
#ifndef WB_TESTS_CONFIG_PARSE_H
#define WB_TESTS_CONFIG_PARSE_H

#include <errno.h>

#include "config.h"

static struct wb_config cfg;
static char err[512];

static inline int parse(const char *text)
{
	return wb_config_parse(&cfg, text, "t.conf", err, sizeof(err));
}

static inline void parse_ok(const char *text)
{
	if (parse(text))
		fail_msg("unexpected error: %s", err);
}

/* The text is refused with exactly this message, naming the file and line. */
static inline void expect_error(const char *text, const char *msg)
{
	assert_int_equal(parse(text), -EINVAL);
	assert_string_equal(err, msg);
}

#endif
