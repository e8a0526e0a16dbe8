/* SPDX-License-Identifier: MIT */
/*
 * Mahimahi link traces: one line per delivery opportunity, the time in
 * milliseconds from the start of the trace; each opportunity may carry
 * TRACE_OPPORTUNITY_BYTES; a repeated time is several opportunities in that
 * millisecond; the trace loops with a period equal to its last time.
 */
#ifndef LINKEM_TRACE_H
#define LINKEM_TRACE_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_OPPORTUNITY_BYTES 1500u
/* Longer than any public trace (a few minutes), small enough to index in 32 bits. */
#define TRACE_MAX_OPPORTUNITIES (64u * 1024 * 1024)
#define TRACE_MAX_MS (24u * 3600 * 1000)

struct trace {
	uint32_t *ms;  /* non-decreasing opportunity times */
	uint32_t count;
	uint32_t period_ms; /* == ms[count - 1], > 0 */
};

/*
 * Parse a whole trace held in memory. On error returns -EINVAL and writes
 * "LINE: what is wrong" into err; the trace is then left empty.
 */
int trace_parse(struct trace *t, const char *text, size_t len, char *err, size_t errlen);

void trace_free(struct trace *t);

/* Mean capacity of the trace in bits per second. */
uint64_t trace_mean_rate(const struct trace *t);

/* Time (ns, from the trace start) of opportunity number k, counting across loops. */
uint64_t trace_opportunity_time(const struct trace *t, uint64_t k);

/* Index of the first opportunity at or after time t_ns (from the trace start). */
uint64_t trace_first_at_or_after(const struct trace *t, uint64_t t_ns);

#endif
