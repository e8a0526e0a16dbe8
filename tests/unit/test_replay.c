// SPDX-License-Identifier: MIT
/*
 * Unit tests: replay.c, the anti-replay window of one uplink and session.
 *
 * The window accepts a counter ahead of the highest seen, or one less than
 * WB_REPLAY_WINDOW behind it that was not seen yet; it refuses everything at
 * or past WB_REJECT_AFTER_MESSAGES. The ring of words behind it is checked
 * at every alignment and against a plain reference model of the same rule.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "prng.h"
#include "replay.h"

#define W ((uint64_t)WB_REPLAY_WINDOW)

static void test_counters_in_order_are_accepted_once(void **state)
{
	struct wb_replay r;

	(void)state;
	wb_replay_init(&r);
	for (uint64_t c = 0; c < 3 * WB_REPLAY_BITS; c++)
		assert_true(wb_replay_accept(&r, c));
	assert_int_equal(r.highest, 3 * WB_REPLAY_BITS - 1);
	/* Every one of them again: within the window a duplicate, behind it too old. */
	for (uint64_t c = 0; c < 3 * WB_REPLAY_BITS; c++)
		assert_false(wb_replay_accept(&r, c));
}

static void test_duplicates_are_refused(void **state)
{
	struct wb_replay r;

	(void)state;
	wb_replay_init(&r);
	/* Counter 0 on a fresh window: the first message of a session. */
	assert_true(wb_replay_accept(&r, 0));
	assert_false(wb_replay_accept(&r, 0));
	assert_true(wb_replay_accept(&r, 5));
	assert_false(wb_replay_accept(&r, 5));
	assert_false(wb_replay_accept(&r, 0));
	/* The skipped ones are still open, once. */
	for (uint64_t c = 1; c < 5; c++) {
		assert_true(wb_replay_accept(&r, c));
		assert_false(wb_replay_accept(&r, c));
	}
}

static void test_out_of_order_within_the_window_accepted_once(void **state)
{
	struct wb_replay r;

	(void)state;
	wb_replay_init(&r);
	assert_true(wb_replay_accept(&r, 1000));
	/* Backwards from the highest down to the window's edge. */
	for (uint64_t c = 999; c > 1000 - W; c--)
		assert_true(wb_replay_accept(&r, c));
	for (uint64_t c = 1000 - W + 1; c <= 1000; c++)
		assert_false(wb_replay_accept(&r, c));
	assert_int_equal(r.highest, 1000);
}

/* Seen everything up to highest except the two counters at the edge, then checks the edge. */
static void check_edge_after_sequence(uint64_t highest)
{
	struct wb_replay r;
	uint64_t inside = highest - (W - 1), outside = highest - W;

	wb_replay_init(&r);
	for (uint64_t c = 0; c <= highest; c++)
		if (c != inside && c != outside)
			assert_true(wb_replay_accept(&r, c));
	assert_true(wb_replay_check(&r, inside));
	assert_false(wb_replay_check(&r, outside));
	assert_false(wb_replay_accept(&r, outside));
	assert_true(wb_replay_accept(&r, inside));
	assert_false(wb_replay_accept(&r, inside));
}

static void test_window_edge_at_every_alignment(void **state)
{
	(void)state;
	/* Every bit position of a word for the highest counter, and a few turns of the ring. */
	for (uint64_t h = W; h < W + 130; h++)
		check_edge_after_sequence(h);
	check_edge_after_sequence(3 * WB_REPLAY_BITS + 17);
	/* The same after a jump straight to the highest (nothing seen before). */
	for (uint64_t h = W; h < W + 130; h++) {
		struct wb_replay r;

		wb_replay_init(&r);
		assert_true(wb_replay_accept(&r, h));
		assert_true(wb_replay_accept(&r, h - (W - 1)));
		assert_false(wb_replay_accept(&r, h - W));
	}
}

static void test_jump_far_ahead_clears_old_bits(void **state)
{
	struct wb_replay r;

	(void)state;
	wb_replay_init(&r);
	for (uint64_t c = 0; c <= 100; c++)
		assert_true(wb_replay_accept(&r, c));
	assert_true(wb_replay_accept(&r, 100 + 10 * W));
	/* Seen before the jump and now too old. */
	assert_false(wb_replay_accept(&r, 50));
	assert_false(wb_replay_accept(&r, 100));
	/* Never seen, in the new window. */
	assert_true(wb_replay_accept(&r, 100 + 10 * W - 5));
	assert_true(wb_replay_accept(&r, 100 + 9 * W + 1));
}

/*
 * Jumps by exactly a ring's length, and around it: every counter of the new
 * window maps to a bit that was set before the jump, and must read as unseen.
 */
static void test_jump_by_the_ring_length_does_not_alias(void **state)
{
	(void)state;
	for (uint64_t jump = W - 70; jump <= WB_REPLAY_BITS + 70; jump++) {
		struct wb_replay r;
		uint64_t top = WB_REPLAY_BITS - 1, to = top + jump;

		wb_replay_init(&r);
		for (uint64_t c = 0; c <= top; c++)
			assert_true(wb_replay_accept(&r, c));
		assert_true(wb_replay_accept(&r, to));
		for (uint64_t c = to - (W - 1); c < to; c++) {
			bool was_seen = c <= top;

			assert_int_equal(wb_replay_accept(&r, c), !was_seen);
		}
		assert_false(wb_replay_accept(&r, to - W));
	}
}

static void test_counters_near_reject_after_messages_refused(void **state)
{
	struct wb_replay r;

	(void)state;
	wb_replay_init(&r);
	assert_false(wb_replay_check(&r, WB_REJECT_AFTER_MESSAGES));
	assert_false(wb_replay_accept(&r, WB_REJECT_AFTER_MESSAGES));
	assert_false(wb_replay_accept(&r, WB_REJECT_AFTER_MESSAGES + 1));
	assert_false(wb_replay_accept(&r, UINT64_MAX));
	/* The refusals did not move the window. */
	assert_int_equal(r.highest, 0);
	assert_true(wb_replay_accept(&r, 0));
	/* The last counter allowed is accepted, and then the window is there. */
	assert_true(wb_replay_accept(&r, WB_REJECT_AFTER_MESSAGES - 1));
	assert_false(wb_replay_accept(&r, WB_REJECT_AFTER_MESSAGES - 1));
	assert_true(wb_replay_accept(&r, WB_REJECT_AFTER_MESSAGES - 2));
	assert_false(wb_replay_accept(&r, WB_REJECT_AFTER_MESSAGES));
	assert_false(wb_replay_accept(&r, UINT64_MAX));
}

static void test_check_has_no_side_effect(void **state)
{
	struct wb_replay r, before;
	const uint64_t probes[] = { 0, 1, 63, 64, 500, 999, 1000, 1001, 1000 + W, 1000 - W, 1000 - W + 1,
				    WB_REJECT_AFTER_MESSAGES - 1, WB_REJECT_AFTER_MESSAGES, UINT64_MAX };

	(void)state;
	wb_replay_init(&r);
	for (uint64_t c = 0; c < 1000; c += 3)
		assert_true(wb_replay_accept(&r, c));
	assert_true(wb_replay_accept(&r, 1000));
	memcpy(&before, &r, sizeof(r));
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		bool a = wb_replay_check(&r, probes[i]), b = wb_replay_check(&r, probes[i]);

		assert_int_equal(a, b);
		assert_memory_equal(&before, &r, sizeof(r));
	}
	/* And check agrees with accept. */
	assert_true(wb_replay_check(&r, 998));
	assert_true(wb_replay_accept(&r, 998));
	assert_false(wb_replay_check(&r, 998));
	assert_false(wb_replay_check(&r, 999)); /* a multiple of 3: seen in the loop */
}

static void shuffle(struct prng *rng, uint64_t *a, size_t n)
{
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(prng_next(rng) % (i + 1));
		uint64_t t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* Blocks of WB_REPLAY_WINDOW consecutive counters, each block shuffled: nothing is ever too old. */
static void test_random_permutation_within_the_window_accepted_once(void **state)
{
	const size_t blocks = 20;
	uint64_t *order = malloc(W * sizeof(*order));
	struct prng rng;
	struct wb_replay r;

	(void)state;
	assert_non_null(order);
	prng_seed(&rng, 42);
	wb_replay_init(&r);
	for (size_t b = 0; b < blocks; b++) {
		for (uint64_t i = 0; i < W; i++)
			order[i] = b * W + i;
		shuffle(&rng, order, W);
		for (uint64_t i = 0; i < W; i++)
			assert_true(wb_replay_accept(&r, order[i]));
		/* Each again, in another order: all refused. */
		shuffle(&rng, order, W);
		for (uint64_t i = 0; i < W; i++)
			assert_false(wb_replay_accept(&r, order[i]));
	}
	assert_int_equal(r.highest, blocks * W - 1);
	free(order);
}

/*
 * Random walks (small steps, reordering, duplicates, jumps of every size)
 * against the rule itself, kept in a plain bitmap of every counter seen.
 */
static void test_matches_a_reference_model(void **state)
{
	const uint64_t span = 1ULL << 26;
	uint8_t *seen = calloc(span / 8, 1);
	struct prng rng;
	struct wb_replay r;
	uint64_t highest = 0, accepted = 0;

	(void)state;
	assert_non_null(seen);
	prng_seed(&rng, 7);
	wb_replay_init(&r);
	for (int i = 0; i < 400000; i++) {
		uint64_t pick = prng_next(&rng) % 100, c, back;
		bool expect, got;

		if (pick < 50) {
			c = highest + 1 + prng_next(&rng) % 8;               /* ahead, small gaps */
		} else if (pick < 85) {
			back = prng_next(&rng) % (W + 64);                  /* behind, around the edge */
			c = back <= highest ? highest - back : highest + 1;
		} else if (pick < 88) {
			c = highest + prng_next(&rng) % (2 * WB_REPLAY_BITS); /* jumps of every size */
		} else {
			c = highest;                                         /* a duplicate of the highest */
		}
		if (c >= span)
			break;
		/* The rule, on a fresh window too (highest 0, nothing seen: counter 0 is new). */
		expect = c > highest || (highest - c < W && !(seen[c / 8] & (1 << (c % 8))));
		assert_int_equal(wb_replay_check(&r, c), expect);
		got = wb_replay_accept(&r, c);
		assert_int_equal(got, expect);
		if (got) {
			seen[c / 8] |= (uint8_t)(1 << (c % 8));
			if (c > highest)
				highest = c;
			accepted++;
		}
	}
	assert_true(accepted > 100000);
	assert_int_equal(r.highest, highest);
	free(seen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counters_in_order_are_accepted_once),
		cmocka_unit_test(test_duplicates_are_refused),
		cmocka_unit_test(test_out_of_order_within_the_window_accepted_once),
		cmocka_unit_test(test_window_edge_at_every_alignment),
		cmocka_unit_test(test_jump_far_ahead_clears_old_bits),
		cmocka_unit_test(test_jump_by_the_ring_length_does_not_alias),
		cmocka_unit_test(test_counters_near_reject_after_messages_refused),
		cmocka_unit_test(test_check_has_no_side_effect),
		cmocka_unit_test(test_random_permutation_within_the_window_accepted_once),
		cmocka_unit_test(test_matches_a_reference_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
