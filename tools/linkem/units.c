// SPDX-License-Identifier: MIT
#include "units.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *suffix;
	double scale;
};

/*
 * Split "12.5mbit" into 12.5 and "mbit". Only plain decimal numbers are
 * accepted: no sign, no hex, no exponent, no leading space (strtod would take
 * all of them, and an operator never means them).
 */
static int split_number(const char *s, double *value, const char **suffix)
{
	const char *p = s;
	char *end;

	if (!s || !*s)
		return -EINVAL;
	while ((*p >= '0' && *p <= '9') || *p == '.')
		p++;
	if (p == s)
		return -EINVAL;
	errno = 0;
	*value = strtod(s, &end);
	if (errno || end != p || !isfinite(*value) || *value < 0)
		return -EINVAL;
	*suffix = p;
	return 0;
}

static int scale_by_unit(const char *s, const struct unit *units, double *out)
{
	const char *suffix;
	double v;

	if (split_number(s, &v, &suffix))
		return -EINVAL;
	for (const struct unit *u = units; u->suffix; u++) {
		if (!strcasecmp(suffix, u->suffix)) {
			*out = v * u->scale;
			return 0;
		}
	}
	/* A unitless zero is unambiguous in every unit. */
	if (!*suffix && v == 0) {
		*out = 0;
		return 0;
	}
	return -EINVAL;
}

static int to_u64(double v, uint64_t *out)
{
	if (v >= 18446744073709551615.0)
		return -ERANGE;
	*out = (uint64_t)llround(v);
	return 0;
}

int units_parse_rate(const char *s, uint64_t *bits_per_sec)
{
	static const struct unit units[] = {
		{ "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 }, { "gbit", 1e9 },
		{ NULL, 0 },
	};
	double v;

	if (s && !strcasecmp(s, "unlimited")) {
		*bits_per_sec = 0;
		return 0;
	}
	if (scale_by_unit(s, units, &v))
		return -EINVAL;
	if (v > 0 && v < 1)
		return -ERANGE;
	return to_u64(v, bits_per_sec);
}

int units_parse_time(const char *s, uint64_t *nsec)
{
	static const struct unit units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ NULL, 0 },
	};
	double v;

	if (scale_by_unit(s, units, &v))
		return -EINVAL;
	/* An hour is far beyond any link; it also keeps sums far from overflow. */
	if (v > 3600e9)
		return -ERANGE;
	return to_u64(v, nsec);
}

int units_parse_size(const char *s, uint64_t *bytes)
{
	static const struct unit units[] = {
		{ "b", 1 }, { "k", 1024 }, { "kb", 1024 },
		{ "m", 1048576 }, { "mb", 1048576 },
		{ NULL, 0 },
	};
	double v;

	if (scale_by_unit(s, units, &v))
		return -EINVAL;
	if (v > 1099511627776.0) /* 1 TiB */
		return -ERANGE;
	return to_u64(v, bytes);
}

int units_parse_percent(const char *s, double *prob)
{
	static const struct unit units[] = { { "%", 0.01 }, { NULL, 0 } };
	double v;

	if (scale_by_unit(s, units, &v))
		return -EINVAL;
	if (v > 1)
		return -ERANGE;
	*prob = v;
	return 0;
}

int units_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!s || !*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		uint64_t digit = (uint64_t)(*p - '0');

		if (digit > max || v > (max - digit) / 10)
			return -ERANGE;
		v = v * 10 + digit;
	}
	*out = v;
	return 0;
}

/* The 128-bit product of a and b as two 64-bit halves, from 32-bit pieces. */
static void mul_wide(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
	uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;

	*lo = (mid << 32) | (uint32_t)p00;
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

uint64_t units_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t hi, lo, q = 0, r;

	if (!c || !a || !b)
		return 0;
	if (a <= UINT64_MAX / b)
		return a * b / c; /* the common case: the product fits */
	mul_wide(a, b, &hi, &lo);
	if (hi >= c)
		return UINT64_MAX; /* the quotient needs more than 64 bits */
	/* Long division of hi:lo by c, a bit at a time; the remainder stays below c. */
	r = hi;
	for (int i = 63; i >= 0; i--) {
		bool carry = r >> 63;

		r = (r << 1) | ((lo >> i) & 1);
		if (carry || r >= c) {
			r -= c; /* with the carry, 2^64 + r - c, taken modulo 2^64 */
			q |= 1ULL << i;
		}
	}
	return q;
}
