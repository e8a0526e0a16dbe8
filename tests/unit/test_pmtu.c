// SPDX-License-Identifier: MIT
/*
 * Unit tests: pmtu.c, one uplink's path MTU discovery. A tiny model path
 * answers each probe when it is no larger than the path's size; time is
 * the test's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "pmtu.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define MAX 1472u       /* the bond's largest datagram: 1433-byte packets */
#define TIMEOUT (100 * MS)
#define RTT (20 * MS)

/* A path: the probes it carries, and a packet number for each send. */
struct path {
	struct wb_pmtu p;
	uint32_t carries;
	uint64_t now, pn;
	unsigned probes, nudges;
	uint32_t answer;     /* the size of the probe whose answer is on its way */
	uint64_t answer_at;  /* UINT64_MAX: none */
};

/*
 * Runs until `until`: a probe that fits is answered one RTT later, one
 * that does not vanishes. small_pass: the path carries small packets, so
 * by the time a probe is late something sent after it was acked (the
 * uplink's other traffic, or the nudge).
 */
static void run(struct path *t, uint64_t until, bool small_pass)
{
	uint32_t size = 0;

	for (;;) {
		uint64_t due = wb_pmtu_deadline(&t->p);

		if (t->answer_at < due)
			due = t->answer_at;
		if (due > until)
			break;
		t->now = due > t->now ? due : t->now;
		if (t->now == t->answer_at) {
			wb_pmtu_on_answer(&t->p, t->answer, t->now);
			t->answer_at = UINT64_MAX;
			continue;
		}
		switch (wb_pmtu_tick(&t->p, t->now, TIMEOUT, small_pass, &size)) {
		case WB_PMTU_PROBE:
			t->probes++;
			wb_pmtu_probe_sent(&t->p, t->pn++);
			assert_true(size > t->p.size && size <= MAX);
			if (size <= t->carries && t->answer_at == UINT64_MAX) {
				t->answer = size;
				t->answer_at = t->now + RTT;
			}
			break;
		case WB_PMTU_NUDGE:
			t->nudges++;
			t->pn++;
			break;
		case WB_PMTU_WAIT:
			break;
		}
	}
}

static void start(struct path *t, uint32_t carries)
{
	*t = (struct path){ .carries = carries, .now = 1 * SEC, .pn = 100, .answer_at = UINT64_MAX };
	wb_pmtu_init(&t->p, MAX);
	assert_int_equal(t->p.size, WB_PMTU_BASE);
	assert_false(t->p.searching);
	assert_int_equal(wb_pmtu_deadline(&t->p), UINT64_MAX);
	wb_pmtu_restart(&t->p, t->now);
}

/* Most paths carry the largest datagram: one probe, one round trip, no search after. */
static void test_a_path_that_carries_the_largest_takes_one_probe(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1500);
	run(&t, 10 * SEC, true);
	assert_false(t.p.searching);
	assert_int_equal(t.p.size, MAX);
	assert_int_equal(t.p.settled, MAX);
	assert_int_equal(t.probes, 1);
	assert_int_equal(t.now, 1 * SEC + RTT);
	/* Nothing left to look for. */
	assert_int_equal(wb_pmtu_deadline(&t.p), UINT64_MAX);
}

/* A path of 1272 bytes (an IP MTU of 1300): the search ends within a step below, in a few seconds. */
static void test_a_smaller_path_is_found_within_a_step(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1272);
	run(&t, 30 * SEC, true);
	assert_false(t.p.searching);
	assert_true(t.p.size <= 1272);
	assert_true(t.p.size > 1272 - WB_PMTU_STEP);
	assert_int_equal(t.p.settled, t.p.size);
	/* Each size that fails takes three timeouts; it still ends in a few seconds. */
	assert_true(t.now - 1 * SEC < 5 * SEC);
	/* And it looks again for more after the raise timer. */
	assert_int_equal(wb_pmtu_deadline(&t.p), t.now + WB_PMTU_RAISE_NS);
}

/* Data stays within what the peer confirmed at every moment of the search. */
static void test_data_never_exceeds_what_arrived(void **state)
{
	struct path t;

	(void)state;
	for (uint32_t carries = WB_PMTU_BASE; carries <= MAX; carries += 37) {
		start(&t, carries);
		for (uint64_t until = t.now + 50 * MS; t.p.searching && until < 60 * SEC; until += 50 * MS) {
			run(&t, until, true);
			assert_true(t.p.size <= carries);
		}
		assert_false(t.p.searching);
		assert_true(t.p.size + WB_PMTU_STEP >= carries || t.p.size == MAX);
	}
}

/* An outage is not a small path: probes that vanish with everything else count for nothing. */
static void test_probes_lost_in_an_outage_do_not_count(void **state)
{
	struct path t;

	(void)state;
	start(&t, 0); /* carries nothing, not even small packets */
	run(&t, 20 * SEC, false);
	assert_true(t.p.searching);
	assert_int_equal(t.p.hi, MAX + 1); /* no size was taken as too big */
	assert_int_equal(t.probes, 1);
	assert_int_equal(t.nudges, 1);
	/* The path comes back whole: the search ends at the largest. */
	t.carries = 1500;
	run(&t, 40 * SEC, true);
	assert_false(t.p.searching);
	assert_int_equal(t.p.size, MAX);
}

/* The raise timer: a path that grew is found again. */
static void test_a_grown_path_is_found_after_the_raise_timer(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1272);
	run(&t, 30 * SEC, true);
	assert_true(t.p.size <= 1272);
	t.carries = 1500;
	run(&t, t.now + WB_PMTU_RAISE_NS - 1, true);
	assert_true(t.p.size <= 1272); /* not before */
	run(&t, t.now + WB_PMTU_RAISE_NS + 10 * SEC, true);
	assert_int_equal(t.p.size, MAX);
	assert_int_equal(t.p.settled, MAX);
}

/* The raise search never lowers the size in force: a probe of more that vanishes is just more than the path takes. */
static void test_a_raise_search_keeps_the_size(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1272);
	run(&t, 30 * SEC, true);
	uint32_t found = t.p.size;
	uint64_t raise = t.now + WB_PMTU_RAISE_NS;

	for (uint64_t until = raise; until < raise + 10 * SEC; until += 10 * MS) {
		run(&t, until, true);
		assert_true(t.p.size >= found && t.p.size <= 1272);
		assert_true(t.p.settled >= found && t.p.settled <= 1272);
	}
	assert_false(t.p.searching);
}

/* Sends one data datagram of bytes, lost or delivered. */
static void data(struct path *t, uint32_t bytes, bool delivered)
{
	uint64_t pn = t->pn++;

	if (delivered)
		wb_pmtu_on_acked(&t->p, bytes, pn);
	else
		wb_pmtu_on_lost(&t->p, bytes, pn);
}

/* The path shrank: big data vanishes, small gets through after it; down to the base and searching. */
static void test_a_black_hole_is_seen_from_the_data(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1500);
	run(&t, 10 * SEC, true);
	assert_int_equal(t.p.size, MAX);
	data(&t, MAX, true);
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++)
		data(&t, MAX, false);
	assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn)); /* nothing small through after them yet */
	data(&t, 100, true);
	assert_true(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	assert_int_equal(t.p.size, WB_PMTU_BASE);
	run(&t, t.now + 30 * SEC, true);
	assert_int_equal(t.p.size, MAX); /* the path had not shrunk after all */

	/* As acks come: the small one sent after the big ones is acked, and that declares them lost. */
	uint64_t first = t.pn;

	t.pn += WB_PMTU_BLACK_HOLE_LOSSES;
	data(&t, 100, true);
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++)
		wb_pmtu_on_lost(&t.p, MAX, first + (uint64_t)i);
	assert_true(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	assert_int_equal(t.p.size, WB_PMTU_BASE);
	assert_true(t.p.searching);
	assert_int_equal(t.p.settled, MAX); /* what the device's MTU follows changes only when a search ends */
	/* The path now takes 1272: found again. */
	t.carries = 1272;
	run(&t, t.now + 30 * SEC, true);
	assert_false(t.p.searching);
	assert_true(t.p.size <= 1272 && t.p.size > 1272 - WB_PMTU_STEP);
	assert_int_equal(t.p.settled, t.p.size);
}

/* A path of 1276 bytes under mixed sizes: the 1250-byte datagrams that pass do not hide the 1472 that vanish. */
static void test_a_black_hole_among_mixed_sizes(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1500);
	run(&t, 10 * SEC, true);
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++) {
		uint64_t big = t.pn;

		t.pn++;
		data(&t, 1250, true); /* sent after it, arrived */
		wb_pmtu_on_lost(&t.p, MAX, big);
		if (i + 1 < WB_PMTU_BLACK_HOLE_LOSSES)
			assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	}
	assert_true(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	/* But a 1472 sent after the first of them arriving means congestion, not size. */
	run(&t, t.now + 10 * SEC, true);
	assert_int_equal(t.p.size, MAX);
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++) {
		uint64_t big = t.pn;

		t.pn++;
		data(&t, 1250, true);
		wb_pmtu_on_lost(&t.p, MAX, big);
		if (i == 2)
			data(&t, MAX, true);
	}
	assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
}

/* Losses of what was in flight when a black hole was seen are its echo, not a second one. */
static void test_the_black_holes_echo_is_not_another(void **state)
{
	struct path t;
	uint64_t first;

	(void)state;
	start(&t, 1500);
	run(&t, 10 * SEC, true);
	first = t.pn;
	t.pn += 3 * WB_PMTU_BLACK_HOLE_LOSSES;
	data(&t, 100, true);
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++)
		wb_pmtu_on_lost(&t.p, MAX, first + (uint64_t)i);
	assert_true(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	/* The rest of that flight, declared lost after, with small packets through. */
	for (int i = WB_PMTU_BLACK_HOLE_LOSSES; i < 3 * WB_PMTU_BLACK_HOLE_LOSSES; i++)
		wb_pmtu_on_lost(&t.p, MAX, first + (uint64_t)i);
	data(&t, 100, true);
	assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	/* But big ones sent after it that vanish again are news. */
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++)
		data(&t, 1300, false);
	data(&t, 100, true);
	assert_true(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
}

/* Congestion loses big packets too, but big ones sent after them arrive: no black hole. */
static void test_congestion_losses_are_no_black_hole(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1500);
	run(&t, 10 * SEC, true);
	for (int round = 0; round < 100; round++) {
		/* The ack of a big one sent after them declares them lost. */
		uint64_t first = t.pn;

		t.pn += 2 * WB_PMTU_BLACK_HOLE_LOSSES;
		data(&t, MAX, true);
		data(&t, 100, true);
		for (int i = 0; i < 2 * WB_PMTU_BLACK_HOLE_LOSSES; i++)
			wb_pmtu_on_lost(&t.p, MAX, first + (uint64_t)i);
		assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
		/* Or by their time, with a small one through first: until a big one sent after them arrives. */
		for (int i = 0; i < 2 * WB_PMTU_BLACK_HOLE_LOSSES; i++)
			data(&t, MAX, false);
		data(&t, MAX, true);
		data(&t, 100, true);
		assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	}
	/* Losses below the base say nothing of size. */
	for (int i = 0; i < 100; i++)
		data(&t, WB_PMTU_BASE, false);
	data(&t, 100, true);
	assert_false(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	assert_int_equal(t.p.size, MAX);
}

/* A false alarm (the losses were an outage) costs one probe: the old size is tried first. */
static void test_a_false_alarm_costs_one_round_trip(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1500);
	run(&t, 10 * SEC, true);
	for (int i = 0; i < WB_PMTU_BLACK_HOLE_LOSSES; i++)
		data(&t, MAX, false);
	data(&t, 100, true);
	assert_true(wb_pmtu_check_black_hole(&t.p, t.now, t.pn));
	t.probes = 0;
	run(&t, t.now + 10 * SEC, true);
	assert_int_equal(t.p.size, MAX);
	assert_int_equal(t.probes, 1);
}

/* A bond whose largest datagram is below the base: nothing to search. */
static void test_a_small_bond_needs_no_search(void **state)
{
	struct wb_pmtu p;

	(void)state;
	wb_pmtu_init(&p, 1000);
	assert_int_equal(p.size, 1000);
	wb_pmtu_restart(&p, 0);
	assert_false(p.searching);
	assert_int_equal(p.settled, 1000);
	assert_int_equal(wb_pmtu_deadline(&p), UINT64_MAX);
}

/* An answer larger than anything sent (a confused peer) is taken no further than the largest. */
static void test_an_answer_above_the_largest_is_clamped(void **state)
{
	struct path t;

	(void)state;
	start(&t, 1500);
	wb_pmtu_on_answer(&t.p, 9000, t.now);
	assert_int_equal(t.p.size, MAX);
}

/*
 * A probe went out while the RTT was a minute (a path that held
 * everything); the path is prompt again: the probe is late after a timeout
 * of the path as it is now, not a minute later.
 */
static void test_a_late_probe_is_judged_by_the_timeout_of_now(void **state)
{
	struct path t;
	uint32_t size = 0;

	(void)state;
	start(&t, 1272);
	assert_int_equal(wb_pmtu_tick(&t.p, t.now, 60 * SEC, true, &size), WB_PMTU_PROBE);
	wb_pmtu_probe_sent(&t.p, t.pn++);
	assert_int_equal(wb_pmtu_deadline(&t.p), t.now + 60 * SEC);
	/* A tick with the timeout of now: the deadline comes in to it. */
	t.now += 10 * MS;
	assert_int_equal(wb_pmtu_tick(&t.p, t.now, TIMEOUT, true, &size), WB_PMTU_WAIT);
	assert_int_equal(wb_pmtu_deadline(&t.p), t.now + TIMEOUT);
	t.now += TIMEOUT;
	assert_int_equal(wb_pmtu_tick(&t.p, t.now, TIMEOUT, true, &size), WB_PMTU_PROBE); /* tried again */
	/* And the search ends within seconds, as on any path of that size. */
	run(&t, t.now + 10 * SEC, true);
	assert_false(t.p.searching);
	assert_true(t.p.size <= 1272 && t.p.size > 1272 - WB_PMTU_STEP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_path_that_carries_the_largest_takes_one_probe),
		cmocka_unit_test(test_a_smaller_path_is_found_within_a_step),
		cmocka_unit_test(test_data_never_exceeds_what_arrived),
		cmocka_unit_test(test_probes_lost_in_an_outage_do_not_count),
		cmocka_unit_test(test_a_grown_path_is_found_after_the_raise_timer),
		cmocka_unit_test(test_a_raise_search_keeps_the_size),
		cmocka_unit_test(test_a_black_hole_is_seen_from_the_data),
		cmocka_unit_test(test_the_black_holes_echo_is_not_another),
		cmocka_unit_test(test_a_black_hole_among_mixed_sizes),
		cmocka_unit_test(test_congestion_losses_are_no_black_hole),
		cmocka_unit_test(test_a_false_alarm_costs_one_round_trip),
		cmocka_unit_test(test_a_small_bond_needs_no_search),
		cmocka_unit_test(test_an_answer_above_the_largest_is_clamped),
		cmocka_unit_test(test_a_late_probe_is_judged_by_the_timeout_of_now),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
