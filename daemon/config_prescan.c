// SPDX-License-Identifier: MIT
/*
 * The text of a configuration file, scanned before libconfig reads it
 * (config_prescan.h).
 */
#include "config_prescan.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alpha(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static bool is_alnum(char c)
{
	return is_alpha(c) || is_digit(c);
}

/* Past a string's closing quote (t is after the opening one), counting lines; NULL if there is none. */
static const char *skip_string(const char *t, int *line)
{
	for (; *t && *t != '"'; t++) {
		if (*t == '\\' && t[1])
			t++;
		if (*t == '\n')
			(*line)++;
	}
	return *t ? t + 1 : NULL;
}

/* Past a block comment (t is after its opening), counting lines. */
static const char *skip_block_comment(const char *t, int *line)
{
	for (; *t && !(t[0] == '*' && t[1] == '/'); t++)
		if (*t == '\n')
			(*line)++;
	return *t ? t + 2 : t;
}

/* A setting name as libconfig's scanner reads one: [A-Za-z*][-A-Za-z0-9_*]*. */
static const char *skip_name(const char *t)
{
	while (is_alnum(*t) || *t == '-' || *t == '_' || *t == '*')
		t++;
	return t;
}

static bool is_hex(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
}

/* The end of a number token: digits, letters, dots, and a sign after an exponent's e. */
static const char *number_end(const char *t)
{
	bool hex;

	if (*t == '+' || *t == '-')
		t++;
	hex = is_hex(t);
	for (; is_alnum(*t) || *t == '.' || *t == '_'; t++)
		if (!hex && (*t == 'e' || *t == 'E') && (t[1] == '+' || t[1] == '-'))
			t++;
	return t;
}

/* Whether a token libconfig reads as a 32-bit integer (no L suffix) does not fit in one. */
static bool int32_overflows(const char *s, size_t len)
{
	char buf[32];
	const char *digits = s + (*s == '+' || *s == '-');
	size_t n = len - (size_t)(digits - s);
	long long v;

	if (s[len - 1] == 'L')
		return false;
	if (is_hex(s)) {
		/* 1.5 keeps the low 32 bits of a hex literal; 0xffffffff is the largest kept whole. */
		for (digits += 2, n -= 2; n && *digits == '0'; digits++, n--)
			;
		return n > 8 && strspn(digits, "0123456789abcdefABCDEF") >= n;
	}
	if (strspn(digits, "0123456789") < n)
		return false; /* a float, or something libconfig rejects itself */
	if (len >= sizeof(buf))
		return true;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoll(buf, NULL, 10);
	return errno == ERANGE || v < INT_MIN || v > INT_MAX;
}

static int check_number(struct conf_parse *p, const char **t, int line)
{
	const char *s = *t;
	size_t len = 0;

	*t = number_end(s);
	len = (size_t)(*t - s);
	if (int32_overflows(s, len))
		return conf_report_line(p, line, "integer %.*s does not fit in 32 bits: write %.*sL", (int)len, s,
					(int)len, s);
	return 0;
}

static bool starts_number(const char *t)
{
	if (*t == '+' || *t == '-')
		t++;
	return is_digit(*t);
}

/*
 * libconfig 1.5 reads an integer written without L that does not fit in 32
 * bits as its low 32 bits (port = 4294987116 would be 51820) and follows
 * @include to any file. Neither can be told from the parsed tree, so the
 * text is scanned first, skipping strings and comments as libconfig's
 * scanner does.
 */
int conf_prescan(struct conf_parse *p, const char *t)
{
	int line = 1, start, ret;

	while (*t) {
		if (*t == '\n') {
			line++;
			t++;
		} else if (*t == '"') {
			start = line;
			t = skip_string(t + 1, &line);
			/* Said here, the line is where the string starts, not the end of the text. */
			if (!t)
				return conf_report_line(p, start, "a string with no closing quote");
		} else if (*t == '#' || (t[0] == '/' && t[1] == '/')) {
			t += strcspn(t, "\n");
		} else if (t[0] == '/' && t[1] == '*') {
			t = skip_block_comment(t + 2, &line);
		} else if (*t == '@' && !strncmp(t + 1, "include", 7)) {
			return conf_report_line(p, line, "@include is not supported");
		} else if (is_alpha(*t) || *t == '*') {
			t = skip_name(t);
		} else if (starts_number(t)) {
			ret = check_number(p, &t, line);
			if (ret)
				return ret;
		} else {
			t++;
		}
	}
	return 0;
}
