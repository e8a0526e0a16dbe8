// SPDX-License-Identifier: MIT
/* libFuzzer harness: the Mahimahi trace parser, and lookups on what it accepts. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace t;
	char err[128];

	if (trace_parse(&t, (const char *)data, size, err, sizeof(err))) {
		/* A rejected trace is empty and the message says where. */
		assert(!t.ms && !t.count);
		assert(memchr(err, ':', sizeof(err)));
		return 0;
	}
	assert(t.count > 0 && t.period_ms == t.ms[t.count - 1] && t.period_ms > 0);
	for (uint32_t i = 1; i < t.count; i++)
		assert(t.ms[i - 1] <= t.ms[i]);
	/* Probe lookups at the start, inside and beyond the first loop. */
	for (uint64_t probe = 0; probe < 3ULL * t.period_ms * 1000000; probe += t.period_ms * 700001ULL) {
		uint64_t k = trace_first_at_or_after(&t, probe);

		assert(trace_opportunity_time(&t, k) >= probe);
		assert(!k || trace_opportunity_time(&t, k - 1) < probe ||
		       trace_opportunity_time(&t, k - 1) == trace_opportunity_time(&t, k));
	}
	trace_free(&t);
	return 0;
}
