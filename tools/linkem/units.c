// SPDX-License-Identifier: MIT
#include "units.h"

#include <errno.h>
#include <math.h>
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
