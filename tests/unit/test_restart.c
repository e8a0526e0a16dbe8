// SPDX-License-Identifier: MIT
/*
 * A daemon that restarts (tests/unit/pair.h's pair_restart: it dies without
 * a word and a new one starts with the same keys), and the clock of the
 * handshake: read at each initiation, so a router whose clock was behind at
 * boot gets a session as soon as it is set right, and never below the last
 * one sent.
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
	pair_init(&p, &(struct pair_options){ 0 });
	pair_run_until(&p, p.now + 1 * SEC);
	assert_true(wb_bond_has_session(p.client.bond));
	assert_true(wb_bond_has_session(p.server.bond));
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
	pair_init(&p, &(struct pair_options){ .timers = { .probe_interval_ns = 250 * MS, .uplink_timeout_ns = 1 * SEC,
							  .handshake_retry_ns = 1 * SEC, .rekey_after_ns = 5 * SEC,
							  .reject_after_ns = 8 * SEC, .rekey_after_messages = 1ULL << 60 } });
	pair_run_until(&p, p.now + 1 * SEC);
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
		cmocka_unit_test_teardown(test_a_clock_behind_at_start_gets_a_session_once_set_right, teardown),
		cmocka_unit_test_teardown(test_a_clock_stepped_back_never_sends_an_older_timestamp, teardown),
		cmocka_unit_test(test_timestamps_step_by_their_grain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
