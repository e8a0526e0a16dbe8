// SPDX-License-Identifier: MIT
/*
 * A peer that restarts (tests/unit/pair.h's pair_restart: the daemon dies
 * without a word and a new one starts with the same keys): the survivor
 * meets the new incarnation afresh, both ways, at once; a rekey between two
 * running daemons keeps everything. And the clock of the handshake: read at
 * each initiation, so a router whose clock was behind at boot gets a
 * session as soon as it is set right, and never below the last one sent.
 *
 * The bonds have a small receive window (a reorder ring of 1024 slots), and
 * each side sends several times that many packets before the restart: kept,
 * the survivor's state would hold the new incarnation's DSNs for old ones
 * and its own far beyond the new window.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "pair.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define DAY (86400ULL * SEC)
#define BEFORE 4000 /* packets each way before a restart: the ring holds 1024 */
#define AFTER 500

static struct pair p;

static int teardown(void **state)
{
	(void)state;
	pair_free(&p);
	memset(&p, 0, sizeof(p));
	return 0;
}

static const struct wb_bond_counters *bondc(const struct pair_side *s)
{
	return wb_bond_counters(s->bond);
}

static void established(void)
{
	/* No CoDel: the test's bursts come all at once, and every packet must arrive. */
	pair_init(&p, &(struct pair_options){ .tuning = { .receive_window = 64 * 1024, .no_aqm = true } });
	pair_run_until(&p, p.now + 1 * SEC);
	assert_true(wb_bond_has_session(p.client.bond));
	assert_true(wb_bond_has_session(p.server.bond));
}

/* A session, as established() makes, whose keys are renewed every 5 s (a rekey at 6 s). */
static void established_rekeying_every_5s(void)
{
	struct wb_timers t = WB_TIMERS_DEFAULT;

	t.rekey_after_ns = 5 * SEC;
	t.reject_after_ns = 8 * SEC;
	pair_init(&p, &(struct pair_options){ .timers = t, .tuning = { .no_aqm = true } });
	pair_run_until(&p, p.now + 1 * SEC);
}

/* Sends ids [first, first + n) each way, waiting for room, and lets everything arrive. */
static void traffic(uint64_t first, size_t n)
{
	for (uint64_t id = first; id < first + n; id++) {
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 300), 0);
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, id, 300), 0);
	}
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
}

/* Side s had ids [first, first + n) delivered, once each and in order, from delivered[at] on. */
static void delivered_in_order(const struct pair_side *s, size_t at, uint64_t first, size_t n)
{
	assert_true(s->n_delivered >= at + n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s->delivered[at + i], first + i);
	assert_int_equal(s->n_delivered, at + n);
}

/* Runs until both sides have a session again (at most 5 s); returns how long it took. */
static uint64_t until_both_have_a_session(uint64_t since)
{
	while (p.now < since + 5 * SEC) {
		pair_run_until(&p, p.now + 10 * MS);
		if (wb_bond_has_session(p.client.bond) && wb_bond_has_session(p.server.bond) &&
		    p.client.bond->current->remote_index == p.server.bond->current->local_index)
			return p.now - since;
	}
	fail_msg("no session both ways within 5 s");
	return 0;
}

/* The copies side s sent on purpose: reinjected, resent and measure-copied DSNs. */
static uint64_t copies_sent(const struct pair_side *s)
{
	return bondc(s)->opp_reinject + bondc(s)->retransmits + bondc(s)->measure_copies;
}

/*
 * After side `restarted` came back: both ways carry ids from AFTER_ID on,
 * every one delivered once and in order, no duplicate but the copies the
 * other side sent on purpose (an old incarnation's DSN taken for a new one
 * would be one more), nothing beyond the window, and the survivor counted
 * the restart once.
 */
#define AFTER_ID 1000000
static void both_ways_afresh(struct pair_side *restarted, struct pair_side *survivor)
{
	size_t at_c = p.client.n_delivered, at_s = p.server.n_delivered;
	uint64_t dup_c = bondc(&p.client)->rx_duplicates, dup_s = bondc(&p.server)->rx_duplicates;
	uint64_t copies_c = copies_sent(&p.client), copies_s = copies_sent(&p.server);

	traffic(AFTER_ID, AFTER);
	delivered_in_order(&p.client, at_c, AFTER_ID, AFTER);
	delivered_in_order(&p.server, at_s, AFTER_ID, AFTER);
	assert_true(bondc(&p.client)->rx_duplicates - dup_c <= copies_sent(&p.server) - copies_s);
	assert_true(bondc(&p.server)->rx_duplicates - dup_s <= copies_sent(&p.client) - copies_c);
	assert_int_equal(bondc(&p.client)->rx_beyond_window + bondc(&p.server)->rx_beyond_window, 0);
	assert_int_equal(bondc(survivor)->peer_restarts, 1);
	assert_int_equal(bondc(restarted)->peer_restarts, 0);
}

/*
 * BEFORE packets each way, then 20 more from the survivor that are not yet
 * acknowledged when side `restarted` dies and starts again. Returns how long
 * until both sides had a session again; the delivered lists start afresh.
 */
static uint64_t restart_after_traffic(struct pair_side *restarted, struct pair_side *survivor)
{
	established();
	traffic(1, BEFORE);
	delivered_in_order(&p.server, 0, 1, BEFORE);
	delivered_in_order(&p.client, 0, 1, BEFORE);
	for (uint64_t id = 1; id <= 20; id++)
		assert_int_equal(pair_send_ip(&p, survivor, 500000 + id, 300), 0);
	pair_restart(&p, restarted);
	p.client.n_delivered = p.server.n_delivered = 0;
	return until_both_have_a_session(p.now);
}

static void test_a_restarted_server_is_met_afresh(void **state)
{
	uint64_t took;

	(void)state;
	took = restart_after_traffic(&p.server, &p.client);
	/* The client notices within its uplink timeout, then one handshake. */
	assert_true(took <= 1500 * MS);
	/* The restart explains the uplinks' silence: one answer brings each up, not three. */
	pair_run_until(&p, p.now + 20 * MS);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(wb_bond_uplink(p.client.bond, i)->state, WB_UPLINK_UP);
	both_ways_afresh(&p.server, &p.client);
	assert_true(bondc(&p.client)->restart_drops >= 20);
}

static void test_a_restarted_client_is_met_afresh(void **state)
{
	uint64_t took;

	(void)state;
	took = restart_after_traffic(&p.client, &p.server);
	/* A new client initiates at once. */
	assert_true(took <= 100 * MS);
	both_ways_afresh(&p.client, &p.server);
	assert_true(bondc(&p.server)->restart_drops >= 20);
}

static void test_a_peer_restarted_twice_is_met_afresh_each_time(void **state)
{
	(void)state;
	established();
	traffic(1, BEFORE);
	pair_restart(&p, &p.server);
	until_both_have_a_session(p.now);
	traffic(2 * BEFORE, BEFORE);
	pair_restart(&p, &p.server);
	pair_run_until(&p, p.now + 300 * MS);
	pair_restart(&p, &p.server); /* again before the client noticed the last one */
	p.client.n_delivered = p.server.n_delivered = 0;
	until_both_have_a_session(p.now);
	traffic(AFTER_ID, AFTER);
	delivered_in_order(&p.client, 0, AFTER_ID, AFTER);
	delivered_in_order(&p.server, 0, AFTER_ID, AFTER);
	/* The client met two incarnations after the first: the one it missed was never its peer. */
	assert_int_equal(bondc(&p.client)->peer_restarts, 2);
}

/* Takes what side s has sent and not yet delivered, up to max datagrams, out of the way into out; how many. */
static size_t hold_in_flight(struct pair_side *s, struct pair_datagram *out, size_t max)
{
	size_t n = 0;

	while (n < max && s->queued) {
		out[n++] = s->queue[0];
		memmove(s->queue, s->queue + 1, --s->queued * sizeof(s->queue[0]));
	}
	return n;
}

/* Sessions of the dead incarnation are dropped: nothing late sealed with them acts on the new state. */
static void test_what_the_dead_peer_sent_late_is_not_taken(void **state)
{
	static struct pair_datagram late[64];
	size_t n_late;
	uint64_t unknown;

	(void)state;
	established();
	traffic(1, BEFORE);
	/* Datagrams of the old server still on their way when it dies, delivered after the new session. */
	for (uint64_t id = 1; id <= 20; id++)
		assert_int_equal(pair_send_ip(&p, &p.server, 700000 + id, 300), 0);
	n_late = hold_in_flight(&p.server, late, 64);
	assert_true(n_late > 0);
	pair_restart(&p, &p.server);
	p.client.n_delivered = 0;
	until_both_have_a_session(p.now);
	unknown = wb_device_counters(p.client.dev)->unknown_index;
	for (size_t i = 0; i < n_late; i++)
		pair_inject(&p, &p.client, &late[i]);
	assert_int_equal(p.client.n_delivered, 0);
	assert_int_equal(wb_device_counters(p.client.dev)->unknown_index, unknown + n_late);
	both_ways_afresh(&p.server, &p.client);
}

/*
 * A CLOSE of the old incarnation, late: it arrives after the restarted
 * client's initiation made the server's next session, before that session
 * is confirmed. It ends the session it was sealed in, not the new one: the
 * client is met at once (the CLOSE used to clear the next session too, and
 * the client, its data refused, waited its uplink timeout to handshake again).
 */
static void test_a_late_close_leaves_the_new_session(void **state)
{
	static struct pair_datagram late[8];
	size_t n_late;
	uint64_t since;

	(void)state;
	established();
	for (int i = 0; i < p.n_uplinks; i++)
		p.delay_ns[i] = 10 * MS; /* the handshake's steps one by one */
	wb_bond_close(p.client.bond, p.now);
	n_late = hold_in_flight(&p.client, late, 8);
	assert_true(n_late > 0);
	pair_restart(&p, &p.client);
	since = p.now;
	while (!p.server.bond->next && p.now < since + 1 * SEC)
		pair_run_until(&p, p.now + 1 * MS);
	assert_non_null(p.server.bond->next);
	assert_true(wb_bond_has_session(p.server.bond)); /* the old one, still current */
	for (size_t i = 0; i < n_late; i++)
		pair_inject(&p, &p.server, &late[i]);
	assert_true(bondc(&p.server)->closes_received >= 1);
	assert_non_null(p.server.bond->next);
	assert_true(until_both_have_a_session(since) <= 100 * MS);
}

/* A rekey between two daemons that run on: the same incarnations, nothing starts over. */
static void test_a_rekey_keeps_the_reliable_state(void **state)
{
	uint64_t nxt;

	(void)state;
	established_rekeying_every_5s();
	traffic(1, 300);
	nxt = p.client.bond->snd.nxt;
	pair_run_until(&p, p.now + 6 * SEC);
	assert_int_equal(bondc(&p.client)->rekeys, 1);
	assert_int_equal(bondc(&p.server)->rekeys, 1);
	traffic(301, 300);
	delivered_in_order(&p.server, 0, 1, 600);
	delivered_in_order(&p.client, 0, 1, 600);
	assert_int_equal(p.client.bond->snd.nxt, nxt + 300); /* the DSNs went on */
	assert_int_equal(bondc(&p.client)->peer_restarts + bondc(&p.server)->peer_restarts, 0);
}

/* ---- the clock of the handshake ------------------------------------------------------ */

/*
 * A router without a battery-backed clock boots a day behind: the server,
 * which accepted its timestamps of yesterday's run, refuses its initiations
 * as old. Once NTP sets the clock right, the next attempt counts.
 */
static void test_a_clock_behind_at_start_gets_a_session_once_set_right(void **state)
{
	uint64_t refused, set_at;

	(void)state;
	established();
	p.client.wall_error_ns = -(int64_t)DAY;
	pair_restart(&p, &p.client);
	pair_run_until(&p, p.now + 5 * SEC);
	assert_false(wb_bond_has_session(p.client.bond));
	refused = bondc(&p.server)->handshakes_refused;
	assert_true(refused >= 4);
	p.client.wall_error_ns = 0;
	set_at = p.now;
	while (!wb_bond_has_session(p.client.bond) && p.now < set_at + 5 * SEC)
		pair_run_until(&p, p.now + 10 * MS);
	assert_true(wb_bond_has_session(p.client.bond));
	/* Within the retry time (1 s) after the correction, and a round trip. */
	assert_true(p.now - set_at <= 1 * SEC + 20 * MS);
	assert_int_equal(bondc(&p.server)->handshakes_refused, refused);
}

/* A clock stepped back while the daemon runs: its timestamps still go up, so its rekeys are taken. */
static void test_a_clock_stepped_back_never_sends_an_older_timestamp(void **state)
{
	uint64_t last;

	(void)state;
	established_rekeying_every_5s();
	last = p.client.bond->last_sent_time;
	assert_int_equal(last, wb_tai64n_floor(pair_wall_clock(&p.client) - 1 * SEC));
	p.client.wall_error_ns = -(int64_t)(3600 * SEC);
	pair_run_until(&p, p.now + 11 * SEC);
	assert_int_equal(bondc(&p.client)->rekeys, 2);
	assert_int_equal(bondc(&p.server)->handshakes_refused, 0);
	/* Each one a step after the last: the smallest that the server sees as newer. */
	assert_int_equal(p.client.bond->last_sent_time, wb_tai64n_next(wb_tai64n_next(last)));
}

static void test_timestamps_step_by_their_grain(void **state)
{
	uint8_t a[WB_TAI64N_LEN], b[WB_TAI64N_LEN];
	const uint64_t t = 1700000000ULL * SEC + 123456789;

	(void)state;
	assert_int_equal(wb_tai64n_floor(t) % SEC, 123456789 & ~((1u << 24) - 1));
	assert_int_equal(wb_tai64n_next(wb_tai64n_floor(t)) - wb_tai64n_floor(t), 1u << 24);
	/* The last grain of a second is followed by the next second. */
	assert_int_equal(wb_tai64n_next(1700000000ULL * SEC + 999999999), 1700000001ULL * SEC);
	for (uint64_t x = t; x < t + 3 * SEC; x = wb_tai64n_next(x)) {
		wb_tai64n(a, x);
		wb_tai64n(b, wb_tai64n_next(x));
		assert_true(memcmp(b, a, sizeof(a)) > 0);
		assert_int_equal(wb_tai64n_floor(wb_tai64n_next(x)), wb_tai64n_next(x));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_restarted_server_is_met_afresh, teardown),
		cmocka_unit_test_teardown(test_a_restarted_client_is_met_afresh, teardown),
		cmocka_unit_test_teardown(test_a_peer_restarted_twice_is_met_afresh_each_time, teardown),
		cmocka_unit_test_teardown(test_what_the_dead_peer_sent_late_is_not_taken, teardown),
		cmocka_unit_test_teardown(test_a_late_close_leaves_the_new_session, teardown),
		cmocka_unit_test_teardown(test_a_rekey_keeps_the_reliable_state, teardown),
		cmocka_unit_test_teardown(test_a_clock_behind_at_start_gets_a_session_once_set_right, teardown),
		cmocka_unit_test_teardown(test_a_clock_stepped_back_never_sends_an_older_timestamp, teardown),
		cmocka_unit_test(test_timestamps_step_by_their_grain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
