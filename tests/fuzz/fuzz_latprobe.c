// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: wb-latprobe's receive path (tools/latprobe), which reads
 * whatever a network hands its socket. The input is taken twice:
 *
 *   1. whole, as one datagram (a heap copy of its exact size) to the packet
 *      parser: it accepts exactly what the harness's own reading of the
 *      format accepts, and what it accepts writes back to the same header;
 *   2. as a receive: a 2-byte expected count, then records of
 *      [2-byte length][4-byte microseconds since the last][datagram], each
 *      datagram a heap copy of its exact size given to the receive path
 *      (lp_receive: parsed, the stream chosen, counted) at a receive clock
 *      advanced by the record. What becomes of each datagram (not ours,
 *      another stream, taken) and each packet's verdict (first, reordered,
 *      duplicate, too old) must be what a plain list of the sequence
 *      numbers seen gives, and the summary must add up: received + lost =
 *      sent, the counts as the list says, percentiles in order between the
 *      least and the most delay, the jitter no more than the largest change
 *      of transit time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lp_stats.h"
#include "lp_wire.h"

#define MAX_RECORDS 512

/* A broken promise: abort() with its line, as the other harnesses do. */
#define CHECK(c)                                                                                 \
	do {                                                                                     \
		if (!(c)) {                                                                      \
			fprintf(stderr, "fuzz_latprobe: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                                 \
		}                                                                                \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The format as the harness reads it (lp_wire.h), apart from the parser. */
static bool ours(const uint8_t *p, size_t len)
{
	return len >= LP_HDR_LEN && len <= LP_MAX_LEN && be(p, 4) == LP_MAGIC && p[4] == LP_VERSION && !p[5] &&
	       !p[6] && !p[7] && be(p + 12, 4) == len;
}

/* Parses a heap copy of exactly len bytes, so a read past the end is caught. */
static int parse_copy(const uint8_t *data, size_t len, struct lp_packet *out)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	CHECK(copy);
	memcpy(copy, data, len);
	rc = lp_packet_parse(copy, len, out);
	CHECK(rc == 0 || rc == -EINVAL);
	CHECK((rc == 0) == ours(copy, len));
	if (!rc) {
		uint8_t *again = malloc(len);

		CHECK(again);
		CHECK(out->length == len && out->stream == be(copy + 8, 4) && out->seq == be(copy + 16, 8) &&
		     out->sent_ns == be(copy + 24, 8));
		CHECK(lp_packet_write(again, len, out) == len);
		CHECK(!memcmp(again, copy, LP_HDR_LEN));
		free(again);
	}
	free(copy);
	return rc;
}

/* The plain model: the stream chosen, every sequence number counted, and the highest. */
struct model {
	bool locked;
	uint32_t stream;
	uint64_t foreign, other_stream;
	uint64_t seqs[MAX_RECORDS];
	size_t n;
	bool any;
	uint64_t highest, duplicates, reordered, too_old;
	int64_t min_transit, max_transit, last_transit;
	double max_step;
};

static bool counted(const struct model *m, uint64_t seq)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->seqs[i] == seq)
			return true;
	return false;
}

static enum lp_verdict model_add(struct model *m, uint64_t seq, int64_t transit)
{
	enum lp_verdict v;

	if (m->any && seq <= m->highest && m->highest - seq >= LP_SEQ_WINDOW) {
		m->too_old++;
		return LP_TOO_OLD;
	}
	if (counted(m, seq)) {
		m->duplicates++;
		return LP_DUPLICATE;
	}
	v = m->any && seq < m->highest ? LP_REORDERED : LP_FIRST;
	if (v == LP_REORDERED)
		m->reordered++;
	if (!m->any || seq > m->highest)
		m->highest = seq;
	if (m->n) {
		double step = (double)transit - (double)m->last_transit;

		step = step < 0 ? -step : step;
		if (step > m->max_step)
			m->max_step = step;
		if (transit < m->min_transit)
			m->min_transit = transit;
		if (transit > m->max_transit)
			m->max_transit = transit;
	} else {
		m->min_transit = m->max_transit = transit;
	}
	m->last_transit = transit;
	m->any = true;
	m->seqs[m->n++] = seq;
	return v;
}

/* One datagram of the receive, a heap copy of its exact size, to the receive path and to the model. */
static void receive(struct lp_receiver *r, struct model *m, const uint8_t *data, size_t len, uint64_t clock)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum lp_verdict got = LP_FIRST, want;
	enum lp_take take;

	CHECK(copy);
	memcpy(copy, data, len);
	take = lp_receive(r, copy, len, clock, &got);
	if (!ours(copy, len)) {
		m->foreign++;
		CHECK(take == LP_FOREIGN);
	} else {
		uint32_t stream = (uint32_t)be(copy + 8, 4);

		if (!m->locked) {
			m->locked = true;
			m->stream = stream;
		}
		if (stream != m->stream) {
			m->other_stream++;
			CHECK(take == LP_OTHER_STREAM);
		} else {
			want = model_add(m, be(copy + 16, 8), (int64_t)(clock - be(copy + 24, 8)));
			CHECK(take == LP_TAKEN && got == want);
		}
	}
	CHECK(r->foreign == m->foreign && r->other_stream == m->other_stream);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct lp_receiver r; /* 8 KiB of window: not on the stack */
	static struct model m;
	struct lp_packet p;
	struct lp_summary s;
	uint64_t expect, clock = 1000000000ULL;
	size_t at = 2, records = 0;

	parse_copy(data, size, &p);
	if (size < 2)
		return 0;
	expect = be(data, 2);
	lp_receiver_init(&r, false, 0);
	memset(&m, 0, sizeof(m));
	while (at + 6 <= size && records < MAX_RECORDS) {
		size_t len = (size_t)be(data + at, 2);

		clock += be(data + at + 2, 4) * 1000;
		at += 6;
		if (len > size - at)
			len = size - at;
		records++;
		receive(&r, &m, data + at, len, clock);
		at += len;
	}
	CHECK(lp_stats_summary(&r.st, expect, &s) == 0);
	CHECK(s.received == m.n && s.duplicates == m.duplicates && s.reordered == m.reordered &&
	      s.too_old == m.too_old);
	CHECK(s.received + s.lost == s.sent);
	CHECK(s.sent >= expect && (!m.any || s.sent == (m.highest == UINT64_MAX ? UINT64_MAX : m.highest + 1) ||
				   s.sent == expect));
	CHECK(s.loss_pct >= 0 && s.loss_pct <= 100);
	CHECK(s.n_delays == m.n && r.st.delays_not_kept == 0);
	if (s.n_delays) {
		CHECK(s.min_ns == m.min_transit && s.max_ns == m.max_transit);
		CHECK(s.min_ns <= s.p50_ns && s.p50_ns <= s.p99_ns && s.p99_ns <= s.p999_ns && s.p999_ns <= s.max_ns);
	}
	CHECK(s.jitter_ns >= 0 && s.jitter_ns <= m.max_step * (1 + 1e-9) + 1e-9);
	lp_stats_free(&r.st);
	return 0;
}
