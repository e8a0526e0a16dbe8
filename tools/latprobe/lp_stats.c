// SPDX-License-Identifier: MIT
#include "lp_stats.h"

#include "lp_wire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void lp_stats_init(struct lp_stats *s)
{
	memset(s, 0, sizeof(*s));
}

void lp_stats_free(struct lp_stats *s)
{
	free(s->delays);
	lp_stats_init(s);
}

static bool bit_get(const struct lp_stats *s, uint64_t seq)
{
	uint64_t i = seq % LP_SEQ_WINDOW;

	return s->seen[i / 64] >> (i % 64) & 1;
}

static void bit_set(struct lp_stats *s, uint64_t seq)
{
	uint64_t i = seq % LP_SEQ_WINDOW;

	s->seen[i / 64] |= 1ULL << (i % 64);
}

static void bit_clear(struct lp_stats *s, uint64_t seq)
{
	uint64_t i = seq % LP_SEQ_WINDOW;

	s->seen[i / 64] &= ~(1ULL << (i % 64));
}

/* The window moves up to seq: the numbers it newly covers have not arrived. */
static void advance(struct lp_stats *s, uint64_t seq)
{
	if (!s->any || seq - s->highest >= LP_SEQ_WINDOW) {
		memset(s->seen, 0, sizeof(s->seen));
	} else {
		for (uint64_t q = s->highest + 1; q != seq + 1; q++)
			bit_clear(s, q);
	}
	s->any = true;
	s->highest = seq;
}

static void keep_delay(struct lp_stats *s, int64_t d)
{
	if (s->n_delays == s->cap_delays) {
		size_t cap = s->cap_delays ? s->cap_delays * 2 : 1024;
		int64_t *nd;

		if (cap > LP_MAX_DELAYS)
			cap = LP_MAX_DELAYS;
		if (cap <= s->n_delays || !(nd = realloc(s->delays, cap * sizeof(*nd)))) {
			s->delays_not_kept++;
			return;
		}
		s->delays = nd;
		s->cap_delays = cap;
	}
	s->delays[s->n_delays++] = d;
}

enum lp_verdict lp_stats_add(struct lp_stats *s, uint64_t seq, uint64_t sent_ns, uint64_t recv_ns)
{
	enum lp_verdict v = LP_FIRST;
	int64_t transit = (int64_t)(recv_ns - sent_ns);

	if (!s->any || seq > s->highest) {
		advance(s, seq);
	} else if (s->highest - seq >= LP_SEQ_WINDOW) {
		s->too_old++;
		return LP_TOO_OLD;
	} else if (bit_get(s, seq)) {
		s->duplicates++;
		return LP_DUPLICATE;
	} else {
		v = LP_REORDERED;
		s->reordered++;
	}
	bit_set(s, seq);
	s->received++;
	keep_delay(s, transit);
	if (s->have_transit) {
		/* In double: two transits of a wild clock may be further apart than an int64_t holds. */
		double d = (double)transit - (double)s->last_transit;

		s->jitter_ns += ((d < 0 ? -d : d) - s->jitter_ns) / 16;
	}
	s->have_transit = true;
	s->last_transit = transit;
	return v;
}

int64_t lp_percentile(const int64_t *sorted, size_t n, uint32_t p_milli)
{
	uint64_t rank = ((uint64_t)p_milli * n + 99999) / 100000;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int lp_stats_summary(const struct lp_stats *s, uint64_t expect, struct lp_summary *out)
{
	int64_t *sorted = NULL;

	memset(out, 0, sizeof(*out));
	out->sent = !s->any ? 0 : s->highest == UINT64_MAX ? UINT64_MAX : s->highest + 1;
	if (expect > out->sent)
		out->sent = expect;
	out->received = s->received;
	out->lost = out->sent - s->received;
	out->duplicates = s->duplicates;
	out->reordered = s->reordered;
	out->too_old = s->too_old;
	/* The ratio first: lost <= sent, so it is at most 1 however the doubles round. */
	out->loss_pct = out->sent ? 100.0 * ((double)out->lost / (double)out->sent) : 0;
	out->jitter_ns = s->jitter_ns;
	if (!s->n_delays)
		return 0;
	sorted = malloc(s->n_delays * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, s->delays, s->n_delays * sizeof(*sorted));
	qsort(sorted, s->n_delays, sizeof(*sorted), cmp_i64);
	out->n_delays = s->n_delays;
	out->min_ns = sorted[0];
	out->p50_ns = lp_percentile(sorted, s->n_delays, 50000);
	out->p99_ns = lp_percentile(sorted, s->n_delays, 99000);
	out->p999_ns = lp_percentile(sorted, s->n_delays, 99900);
	out->max_ns = sorted[s->n_delays - 1];
	free(sorted);
	return 0;
}

void lp_receiver_init(struct lp_receiver *r, bool want, uint32_t want_stream)
{
	lp_stats_init(&r->st);
	r->locked = want;
	r->stream = want ? want_stream : 0;
	r->foreign = r->other_stream = 0;
}

enum lp_take lp_receive(struct lp_receiver *r, const uint8_t *buf, size_t len, uint64_t recv_ns,
			enum lp_verdict *verdict)
{
	struct lp_packet p;

	if (lp_packet_parse(buf, len, &p)) {
		r->foreign++;
		return LP_FOREIGN;
	}
	if (!r->locked) {
		r->locked = true;
		r->stream = p.stream;
	}
	if (p.stream != r->stream) {
		r->other_stream++;
		return LP_OTHER_STREAM;
	}
	*verdict = lp_stats_add(&r->st, p.seq, p.sent_ns, recv_ns);
	return LP_TAKEN;
}
