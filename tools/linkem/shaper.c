// SPDX-License-Identifier: MIT
#include "shaper.h"

#include "units.h"

void shaper_init_rate(struct shaper *s, uint64_t rate_bps)
{
	*s = (struct shaper){ .rate_bps = rate_bps };
}

void shaper_init_trace(struct shaper *s, const struct trace *t, uint64_t t0)
{
	*s = (struct shaper){ .trace = t, .t0 = t0 };
}

uint64_t shaper_tx_time(uint64_t rate_bps, uint64_t bytes)
{
	if (!rate_bps)
		return 0;
	/* A 128-bit product: a jumbo frame at 1 bit/s would overflow 64 bits. */
	return units_muldiv(bytes, 8 * NSEC_PER_SEC, rate_bps);
}

static uint64_t depart_rate(struct shaper *s, uint64_t now, uint32_t bytes)
{
	uint64_t start = s->busy_until > now ? s->busy_until : now;

	s->busy_until = start + shaper_tx_time(s->rate_bps, bytes);
	return s->busy_until;
}

/*
 * Like Mahimahi: a packet uses the bytes of one opportunity after another; a
 * packet that fits in what the previous one left of an opportunity leaves in
 * that same opportunity; what is left of an opportunity when the queue runs
 * empty is lost.
 */
static uint64_t depart_trace(struct shaper *s, uint64_t now, uint32_t bytes)
{
	const struct trace *t = s->trace;
	uint64_t rel = now > s->t0 ? now - s->t0 : 0;

	if (!s->started || s->busy_until < now || !s->opp_left) {
		uint64_t first = trace_first_at_or_after(t, rel);

		/* The queue was still busy: continue after the current opportunity. */
		if (s->started && s->busy_until >= now && first <= s->opp)
			first = s->opp + 1;
		s->started = true;
		s->opp = first;
		s->opp_left = TRACE_OPPORTUNITY_BYTES;
	}
	while (bytes > s->opp_left) {
		bytes -= s->opp_left;
		s->opp++;
		s->opp_left = TRACE_OPPORTUNITY_BYTES;
	}
	s->opp_left -= bytes;
	s->busy_until = s->t0 + trace_opportunity_time(t, s->opp);
	return s->busy_until;
}

uint64_t shaper_depart(struct shaper *s, uint64_t now, uint32_t bytes)
{
	if (s->trace)
		return depart_trace(s, now, bytes);
	return depart_rate(s, now, bytes);
}

uint64_t shaper_mean_rate(const struct shaper *s)
{
	return s->trace ? trace_mean_rate(s->trace) : s->rate_bps;
}
