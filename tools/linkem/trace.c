// SPDX-License-Identifier: MIT
#include "trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "units.h"

static int fail(struct trace *t, char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (errlen) {
		n = snprintf(err, errlen, "%u: ", line);
		if (n < 0 || (size_t)n >= errlen)
			n = 0;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	trace_free(t);
	return -EINVAL;
}

static int grow(struct trace *t, uint32_t *cap)
{
	uint32_t ncap = *cap ? *cap * 2 : 4096;
	uint32_t *nms;

	if (ncap > TRACE_MAX_OPPORTUNITIES)
		ncap = TRACE_MAX_OPPORTUNITIES;
	nms = realloc(t->ms, (size_t)ncap * sizeof(*nms));
	if (!nms)
		return -ENOMEM;
	t->ms = nms;
	*cap = ncap;
	return 0;
}

/* Parses one line's digits; surrounding blanks and a CR (traces made on Windows) are allowed. */
static int parse_line(const char *p, const char *end, uint64_t *v)
{
	bool digits = false;

	*v = 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (p < end && *p >= '0' && *p <= '9') {
		*v = *v * 10 + (uint64_t)(*p++ - '0');
		digits = true;
		if (*v > TRACE_MAX_MS)
			return -ERANGE;
	}
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	if (p != end)
		return -EINVAL;
	return digits ? 0 : -ENODATA;
}

int trace_parse(struct trace *t, const char *text, size_t len, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	uint32_t cap = 0, prev = 0;
	unsigned line = 0;

	*t = (struct trace){ 0 };
	while (p < end) {
		const char *eol = p;
		uint64_t v;
		int rc;

		while (eol < end && *eol != '\n')
			eol++;
		line++;
		rc = parse_line(p, eol, &v);
		p = eol < end ? eol + 1 : eol;
		if (rc == -ENODATA) /* a blank line */
			continue;
		if (rc == -ERANGE)
			return fail(t, err, errlen, line, "time above %u ms", TRACE_MAX_MS);
		if (rc)
			return fail(t, err, errlen, line, "expected a time in milliseconds");
		if (t->count && v < prev)
			return fail(t, err, errlen, line, "time %llu goes back (previous line was %u)",
				    (unsigned long long)v, prev);
		if (t->count == TRACE_MAX_OPPORTUNITIES)
			return fail(t, err, errlen, line, "more than %u opportunities", TRACE_MAX_OPPORTUNITIES);
		if (t->count == cap && grow(t, &cap))
			return fail(t, err, errlen, line, "out of memory");
		t->ms[t->count++] = prev = (uint32_t)v;
	}
	if (!t->count)
		return fail(t, err, errlen, line, "the trace has no opportunities");
	if (!prev)
		return fail(t, err, errlen, line, "the last time must be above 0: it is the loop period");
	t->period_ms = prev;
	return 0;
}

void trace_free(struct trace *t)
{
	free(t->ms);
	*t = (struct trace){ 0 };
}

uint64_t trace_mean_rate(const struct trace *t)
{
	return (uint64_t)t->count * TRACE_OPPORTUNITY_BYTES * 8 * 1000 / t->period_ms;
}

uint64_t trace_opportunity_time(const struct trace *t, uint64_t k)
{
	uint64_t loop = k / t->count;

	return (loop * t->period_ms + t->ms[k % t->count]) * NSEC_PER_MSEC;
}

uint64_t trace_first_at_or_after(const struct trace *t, uint64_t t_ns)
{
	uint64_t period_ns = (uint64_t)t->period_ms * NSEC_PER_MSEC;
	uint64_t loop = t_ns / period_ns;
	uint64_t off = t_ns - loop * period_ns;
	uint32_t lo = 0, hi = t->count;

	/* At a multiple of the period, the opportunity at the period itself is the
	 * last one of the loop that ends there, not a time of the next loop. */
	if (!off && loop) {
		loop--;
		off = period_ns;
	}
	/* Lower bound on ms[i] * 1e6 >= off; the last entry equals the period, so one exists. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)t->ms[mid] * NSEC_PER_MSEC < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return loop * t->count + lo;
}
