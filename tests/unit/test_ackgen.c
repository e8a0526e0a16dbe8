// SPDX-License-Identifier: MIT
/*
 * Unit tests: ackgen.c, the receiving side of one uplink's acks. The ranges
 * it keeps are checked after every arrival against a reference set (a
 * bitmap), for in-order, reordered, duplicate and gapped arrivals and past
 * the 32-range cap; then the rules that make an ack due.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "ackgen.h"
#include "prng.h"

#define MS 1000000ULL
#define SPAN 4096

/*
 * The reference: a set of packet numbers below SPAN, with the ackgen's rule
 * for its cap applied to the set (when a new packet makes a 33rd range, the
 * lowest range is forgotten; a packet that would itself be that lowest
 * range is not recorded).
 */
struct ref {
	uint8_t in[SPAN];
};

/* The set's ranges, descending; returns their number. */
static unsigned ref_ranges(const struct ref *s, struct wb_range *out, unsigned max)
{
	unsigned n = 0;

	for (int64_t pn = SPAN - 1; pn >= 0; pn--) {
		if (!s->in[pn])
			continue;
		if (n && out[n - 1].lo == (uint64_t)pn + 1) {
			out[n - 1].lo = (uint64_t)pn;
		} else {
			if (n == max)
				return n + 1; /* more than max */
			out[n++] = (struct wb_range){ (uint64_t)pn, (uint64_t)pn };
		}
	}
	return n;
}

/* Adds pn to the reference; returns what wb_ackgen_on_packet must return. */
static bool ref_add(struct ref *s, uint64_t pn)
{
	struct wb_range r[WB_ACK_MAX_RANGES + 1];
	unsigned n;

	if (s->in[pn])
		return false;
	s->in[pn] = 1;
	n = ref_ranges(s, r, WB_ACK_MAX_RANGES + 1);
	if (n > WB_ACK_MAX_RANGES) {
		struct wb_range low = r[WB_ACK_MAX_RANGES];

		assert_int_equal(n, WB_ACK_MAX_RANGES + 1);
		/* The lowest range goes: pn itself, or another. */
		for (uint64_t q = low.lo; q <= low.hi; q++)
			s->in[q] = 0;
	}
	return true;
}

static void assert_same_ranges(const struct wb_ackgen *g, const struct ref *s)
{
	struct wb_range r[WB_ACK_MAX_RANGES + 1];
	unsigned n = ref_ranges(s, r, WB_ACK_MAX_RANGES + 1);

	assert_true(n <= WB_ACK_MAX_RANGES);
	assert_int_equal(g->n, n);
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(g->r[i].lo, r[i].lo);
		assert_int_equal(g->r[i].hi, r[i].hi);
	}
}

static void arrive(struct wb_ackgen *g, struct ref *s, uint64_t pn, uint64_t now)
{
	bool expect = ref_add(s, pn);

	assert_int_equal(wb_ackgen_on_packet(g, pn, true, false, now), expect);
	assert_same_ranges(g, s);
}

static void test_in_order_makes_one_range(void **state)
{
	struct wb_ackgen g;
	struct ref *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	wb_ackgen_init(&g);
	assert_false(wb_ackgen_pending(&g));
	for (uint64_t pn = 0; pn < 1000; pn++)
		arrive(&g, s, pn, MS + pn);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].lo, 0);
	assert_int_equal(g.r[0].hi, 999);
	free(s);
}

static void test_reordered_duplicates_and_gaps_match_the_reference(void **state)
{
	struct prng rng;
	unsigned capped = 0;

	(void)state;
	prng_seed(&rng, 3);
	for (int round = 0; round < 40; round++) {
		struct wb_ackgen g;
		struct ref *s = calloc(1, sizeof(*s));
		uint64_t base = 0, width = 8 + prng_next(&rng) % 300;

		assert_non_null(s);
		wb_ackgen_init(&g);
		for (int k = 0; k < 3000; k++) {
			/* Mostly ahead of the front, some late, some duplicates, some far ahead. */
			uint64_t r = prng_next(&rng) % 100, pn;

			if (r < 60)
				pn = base + prng_next(&rng) % width;
			else if (r < 80)
				pn = base > width ? base - prng_next(&rng) % width : prng_next(&rng) % (base + 1);
			else if (r < 95)
				pn = base + prng_next(&rng) % 4;
			else
				pn = base + width + prng_next(&rng) % (3 * width);
			if (pn >= SPAN)
				break;
			if (r < 60 && prng_next(&rng) % 4 == 0)
				base++;
			arrive(&g, s, pn, MS * (uint64_t)(k + 1));
			capped += g.n == WB_ACK_MAX_RANGES;
			/* A duplicate of what was just recorded changes nothing. */
			if (s->in[pn] && prng_next(&rng) % 8 == 0) {
				struct wb_ackgen before = g;

				assert_false(wb_ackgen_on_packet(&g, pn, true, true, MS * (uint64_t)(k + 1)));
				assert_memory_equal(&g, &before, sizeof(g));
			}
		}
		free(s);
	}
	assert_true(capped > 1000); /* the cap was met often */
}

/* 40 packets alone (0, 2, ..., 78): only the 32 highest are kept, the lowest go first. */
static void test_the_32_range_cap_drops_the_lowest(void **state)
{
	struct wb_ackgen g;
	struct ref *s = calloc(1, sizeof(*s));

	(void)state;
	assert_non_null(s);
	wb_ackgen_init(&g);
	for (uint64_t pn = 0; pn < 80; pn += 2)
		arrive(&g, s, pn, MS);
	assert_int_equal(g.n, WB_ACK_MAX_RANGES);
	assert_int_equal(g.r[0].hi, 78);
	assert_int_equal(g.r[WB_ACK_MAX_RANGES - 1].lo, 78 - 2 * (WB_ACK_MAX_RANGES - 1)); /* 16 */
	/* Below everything kept, with every slot taken: not recorded, yet not a duplicate. */
	assert_true(wb_ackgen_on_packet(&g, 1, true, false, MS));
	assert_int_equal(g.r[WB_ACK_MAX_RANGES - 1].lo, 16);
	assert_int_equal(g.n, WB_ACK_MAX_RANGES);
	/* A new range above the lowest kept, with every slot taken: the lowest goes. */
	arrive(&g, s, 100, MS);
	assert_int_equal(g.r[0].lo, 100);
	assert_int_equal(g.r[WB_ACK_MAX_RANGES - 1].lo, 18);
	/* Joining two ranges frees a slot: the next packet below everything is recorded. */
	arrive(&g, s, 77, MS);
	assert_int_equal(g.n, WB_ACK_MAX_RANGES - 1);
	arrive(&g, s, 3, MS);
	assert_int_equal(g.n, WB_ACK_MAX_RANGES);
	assert_int_equal(g.r[WB_ACK_MAX_RANGES - 1].lo, 3);
	/* A packet alone between two ranges, full: the lowest (3) goes. */
	arrive(&g, s, 90, MS);
	assert_int_equal(g.n, WB_ACK_MAX_RANGES);
	assert_int_equal(g.r[1].lo, 90);
	assert_int_equal(g.r[WB_ACK_MAX_RANGES - 1].lo, 18);
	/* A packet that joins two ranges (50 and 52): one range fewer, nothing forgotten. */
	arrive(&g, s, 51, MS);
	assert_int_equal(g.n, WB_ACK_MAX_RANGES - 1);
	assert_int_equal(g.r[WB_ACK_MAX_RANGES - 2].lo, 18);
	free(s);
}

/* ---- when an ack is due ------------------------------------------------------------- */

static void test_every_second_eliciting_packet_is_acked_at_once(void **state)
{
	struct wb_ackgen g;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	assert_false(wb_ackgen_due(&g, t));
	assert_true(wb_ackgen_on_packet(&g, 0, true, false, t));
	assert_true(wb_ackgen_pending(&g));
	assert_false(wb_ackgen_due(&g, t));
	assert_true(wb_ackgen_on_packet(&g, 1, true, false, t + 1));
	assert_true(wb_ackgen_due(&g, t + 1));
	wb_ackgen_sent(&g);
	assert_false(wb_ackgen_due(&g, t + 1));
	assert_false(wb_ackgen_pending(&g));
	/* The count starts again after the ack went out. */
	for (uint64_t pn = 2; pn < 20; pn += 2) {
		assert_true(wb_ackgen_on_packet(&g, pn, true, false, t + pn));
		assert_false(wb_ackgen_due(&g, t + pn));
		assert_true(wb_ackgen_on_packet(&g, pn + 1, true, false, t + pn));
		assert_true(wb_ackgen_due(&g, t + pn));
		wb_ackgen_sent(&g);
	}
	/* The ranges stay across acks: every ack says all that arrived. */
	assert_int_equal(g.n, 1);
	assert_int_equal(g.r[0].lo, 0);
	assert_int_equal(g.r[0].hi, 19);
}

static void test_one_packet_is_acked_within_the_max_delay(void **state)
{
	struct wb_ackgen g;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	assert_true(wb_ackgen_on_packet(&g, 0, true, false, t));
	assert_false(wb_ackgen_due(&g, t + WB_MAX_ACK_DELAY_NS - 1));
	assert_true(wb_ackgen_due(&g, t + WB_MAX_ACK_DELAY_NS));
	assert_int_equal(g.deadline_ns, t + WB_MAX_ACK_DELAY_NS);
	wb_ackgen_sent(&g);
	/* The delay runs from the first packet not acked, not from the latest. */
	assert_true(wb_ackgen_on_packet(&g, 1, true, false, t + 20 * MS));
	assert_true(wb_ackgen_on_packet(&g, 2, false, false, t + 23 * MS));
	assert_false(wb_ackgen_due(&g, t + 25 * MS - 1));
	assert_true(wb_ackgen_due(&g, t + 25 * MS));
}

static void test_reordering_and_gaps_are_acked_at_once(void **state)
{
	struct wb_ackgen g;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	/* A gap: 0, then 2. */
	assert_true(wb_ackgen_on_packet(&g, 0, true, false, t));
	wb_ackgen_sent(&g);
	assert_true(wb_ackgen_on_packet(&g, 2, true, false, t));
	assert_true(wb_ackgen_due(&g, t));
	wb_ackgen_sent(&g);
	/* Reordered: 1 after 2. */
	assert_true(wb_ackgen_on_packet(&g, 1, true, false, t + MS));
	assert_true(wb_ackgen_due(&g, t + MS));
	wb_ackgen_sent(&g);
	/* Back in order: 3 waits again. */
	assert_true(wb_ackgen_on_packet(&g, 3, true, false, t + 2 * MS));
	assert_false(wb_ackgen_due(&g, t + 2 * MS));
	wb_ackgen_sent(&g);
	/* A late packet long after, below everything. */
	assert_true(wb_ackgen_on_packet(&g, 10, true, false, t + 3 * MS));
	wb_ackgen_sent(&g);
	assert_true(wb_ackgen_on_packet(&g, 7, true, false, t + 4 * MS));
	assert_true(wb_ackgen_due(&g, t + 4 * MS));
}

static void test_urgent_is_acked_at_once(void **state)
{
	struct wb_ackgen g;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	assert_true(wb_ackgen_on_packet(&g, 0, true, true, t));
	assert_true(wb_ackgen_due(&g, t));
	wb_ackgen_sent(&g);
	assert_true(wb_ackgen_on_packet(&g, 1, true, false, t));
	assert_false(wb_ackgen_due(&g, t));
	assert_true(wb_ackgen_on_packet(&g, 2, false, false, t));
	assert_false(wb_ackgen_due(&g, t));
	wb_ackgen_sent(&g);
	assert_true(wb_ackgen_on_packet(&g, 3, true, true, t + MS));
	assert_true(wb_ackgen_due(&g, t + MS));
}

static void test_non_eliciting_never_makes_an_ack_due(void **state)
{
	struct wb_ackgen g;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	/* In order, reordered, with gaps, flagged urgent: never due, only pending. */
	assert_true(wb_ackgen_on_packet(&g, 0, false, false, t));
	assert_true(wb_ackgen_on_packet(&g, 1, false, false, t));
	assert_true(wb_ackgen_on_packet(&g, 5, false, false, t));
	assert_true(wb_ackgen_on_packet(&g, 3, false, true, t));
	assert_true(wb_ackgen_pending(&g));
	assert_false(wb_ackgen_due(&g, t));
	assert_false(wb_ackgen_due(&g, t + 10 * WB_MAX_ACK_DELAY_NS));
	assert_int_equal(g.deadline_ns, 0);
	assert_int_equal(g.unacked, 0);
	/* They count for nothing towards "every second": one eliciting packet waits. */
	assert_true(wb_ackgen_on_packet(&g, 6, true, false, t + MS));
	assert_false(wb_ackgen_due(&g, t + MS));
	assert_true(wb_ackgen_due(&g, t + MS + WB_MAX_ACK_DELAY_NS));
	/* They ride along when an ack goes: the ranges hold them. */
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[0].lo, 5);
	assert_int_equal(g.r[0].hi, 6);
	assert_int_equal(g.r[1].lo, 3);
	assert_int_equal(g.r[2].hi, 1);
}

static void test_duplicate_changes_nothing_due(void **state)
{
	struct wb_ackgen g;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	assert_true(wb_ackgen_on_packet(&g, 0, true, false, t));
	assert_true(wb_ackgen_on_packet(&g, 1, true, false, t));
	wb_ackgen_sent(&g);
	assert_false(wb_ackgen_on_packet(&g, 1, true, true, t + MS));
	assert_false(wb_ackgen_on_packet(&g, 0, true, false, t + MS));
	assert_false(wb_ackgen_pending(&g));
	assert_false(wb_ackgen_due(&g, t + 100 * MS));
}

static void test_build_reports_ranges_and_delay_and_sent_keeps_them(void **state)
{
	struct wb_ackgen g;
	struct wb_ack a;
	uint64_t t = 10 * MS;

	(void)state;
	wb_ackgen_init(&g);
	wb_ackgen_on_packet(&g, 4, true, false, t);
	wb_ackgen_on_packet(&g, 5, true, false, t + 1 * MS);
	wb_ackgen_on_packet(&g, 1, true, false, t + 2 * MS); /* not the largest: the delay counts from 5 */
	wb_ackgen_build(&g, t + 3 * MS + 999, &a);
	assert_int_equal(a.delay_us, 2000);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.r[0].lo, 4);
	assert_int_equal(a.r[0].hi, 5);
	assert_int_equal(a.r[1].lo, 1);
	assert_int_equal(a.r[1].hi, 1);
	/* Building changes nothing. */
	assert_true(wb_ackgen_due(&g, t + 3 * MS));
	assert_true(wb_ackgen_pending(&g));
	wb_ackgen_sent(&g);
	assert_false(wb_ackgen_pending(&g));
	wb_ackgen_build(&g, t + 10 * MS, &a);
	assert_int_equal(a.n, 2);
	assert_int_equal(a.delay_us, 9000);
	/* A new largest restarts the delay. */
	wb_ackgen_on_packet(&g, 9, true, false, t + 11 * MS);
	wb_ackgen_build(&g, t + 11 * MS, &a);
	assert_int_equal(a.delay_us, 0);
	assert_int_equal(a.r[0].lo, 9);
	/* A clock that did not move past the arrival: no delay, never negative. */
	wb_ackgen_build(&g, t, &a);
	assert_int_equal(a.delay_us, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_in_order_makes_one_range),
		cmocka_unit_test(test_reordered_duplicates_and_gaps_match_the_reference),
		cmocka_unit_test(test_the_32_range_cap_drops_the_lowest),
		cmocka_unit_test(test_every_second_eliciting_packet_is_acked_at_once),
		cmocka_unit_test(test_one_packet_is_acked_within_the_max_delay),
		cmocka_unit_test(test_reordering_and_gaps_are_acked_at_once),
		cmocka_unit_test(test_urgent_is_acked_at_once),
		cmocka_unit_test(test_non_eliciting_never_makes_an_ack_due),
		cmocka_unit_test(test_duplicate_changes_nothing_due),
		cmocka_unit_test(test_build_reports_ranges_and_delay_and_sent_keeps_them),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
