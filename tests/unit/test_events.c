// SPDX-License-Identifier: MIT
/*
 * What the library tells its caller (wanbond.h): the status snapshots and
 * the events, over the in-memory pair (tests/unit/pair.h). The events must
 * come as things happen, once each, with what an operator needs in them;
 * the snapshots must say what the bond's own state says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "pair.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

static struct pair p;

static int teardown(void **state)
{
	(void)state;
	pair_free(&p);
	memset(&p, 0, sizeof(p));
	return 0;
}

/* Both sides have a session and n uplinks up. */
static void established_up(const struct pair_options *o, int n)
{
	struct wb_uplink_status u;

	pair_init(&p, o);
	pair_run_until(&p, p.now + 2 * SEC);
	assert_true(wb_bond_has_session(p.client.bond) && wb_bond_has_session(p.server.bond));
	for (int i = 0; i < n; i++) {
		assert_true(wb_bond_uplink_status(p.client.bond, (unsigned)i, &u));
		assert_int_equal(u.state, WB_UPLINK_UP);
	}
}

/* How many events of a type side s told from event `from` on, and the last of them (NULL if none). */
static size_t count_events(const struct pair_side *s, size_t from, enum wb_event_type type, const char *uplink,
			   const struct pair_event **last)
{
	size_t n = 0;

	assert_true(s->n_events <= PAIR_MAX_EVENTS);
	if (last)
		*last = NULL;
	for (size_t i = from; i < s->n_events; i++) {
		const struct pair_event *e = &s->events[i];

		if (e->ev.type != type || (uplink && (!e->ev.uplink || strcmp(e->ev.uplink, uplink))))
			continue;
		n++;
		if (last)
			*last = e;
	}
	return n;
}

static void test_a_new_session_and_its_uplinks_are_told(void **state)
{
	const struct pair_event *e;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(count_events(&p.client, 0, WB_EVENT_SESSION, NULL, &e), 1);
	assert_int_equal(e->ev.count, 0); /* not a rekey */
	assert_int_equal(count_events(&p.server, 0, WB_EVENT_SESSION, NULL, NULL), 1);
	for (int i = 0; i < 2; i++) {
		const char *name = i ? "up1" : "up0";

		/* Never up before: its first answer brings it up (down -> up). */
		assert_int_equal(count_events(&p.client, 0, WB_EVENT_UPLINK_STATE, name, &e), 1);
		assert_int_equal(e->ev.from, WB_UPLINK_DOWN);
		assert_int_equal(e->ev.to, WB_UPLINK_UP);
		assert_true(e->text[0]);
	}
	assert_int_equal(count_events(&p.client, 0, WB_EVENT_FAILOVER, NULL, NULL), 0);
}

/*
 * Each transition is told once, with where it came from and why; the
 * snapshot says the same state and reason.
 */
static void test_each_transition_is_told_once_with_its_reason(void **state)
{
	const struct pair_event *e;
	struct wb_uplink_status u;
	size_t mark;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	mark = p.client.n_events;
	pair_run_until_dropping(&p, p.now + 3 * SEC, 1);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_UPLINK_STATE, "up1", NULL), 2);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_UPLINK_STATE, "up0", NULL), 0);
	count_events(&p.client, mark, WB_EVENT_UPLINK_STATE, "up1", &e);
	assert_int_equal(e->ev.from, WB_UPLINK_STALE);
	assert_int_equal(e->ev.to, WB_UPLINK_DOWN);
	assert_non_null(strstr(e->text, "no answer for"));
	assert_true(wb_bond_uplink_status(p.client.bond, 1, &u));
	assert_int_equal(u.state, WB_UPLINK_DOWN);
	assert_string_equal(u.state_why, e->text);
	assert_false(u.usable);
	assert_string_equal(u.name, "up1");
	assert_int_equal(u.id, 1);
	/* Back: told up again, and the snapshot follows. */
	mark = p.client.n_events;
	pair_run_until(&p, p.now + 3 * SEC);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_UPLINK_STATE, "up1", &e), 2); /* probing, up */
	assert_int_equal(e->ev.to, WB_UPLINK_UP);
	assert_true(wb_bond_uplink_status(p.client.bond, 1, &u));
	assert_true(u.usable);
	assert_true(u.srtt_ns > 0 || u.c.probe_acks > 0);
	assert_false(wb_bond_uplink_status(p.client.bond, 2, &u)); /* no such slot */
}

/* The active uplink dies: the backup takes over, told once; it comes back: handed back, told once. */
static void test_a_failover_is_told_once_each_way(void **state)
{
	const struct pair_event *e;
	struct wb_bond_status s;
	size_t mark;

	(void)state;
	established_up(&(struct pair_options){ .backup_last = true }, 2);
	wb_bond_status(p.client.bond, &s);
	assert_false(s.on_backup);
	mark = p.client.n_events;
	pair_run_until_dropping(&p, p.now + 3 * SEC, 0);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_FAILOVER, NULL, &e), 1);
	assert_true(e->ev.to_backup);
	wb_bond_status(p.client.bond, &s);
	assert_true(s.on_backup);
	/* The server learns the roles from the probes: it sees the same. */
	assert_int_equal(count_events(&p.server, 0, WB_EVENT_FAILOVER, NULL, &e), 1);
	assert_true(e->ev.to_backup);
	mark = p.client.n_events;
	pair_run_until(&p, p.now + 3 * SEC);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_FAILOVER, NULL, &e), 1);
	assert_false(e->ev.to_backup);
	wb_bond_status(p.client.bond, &s);
	assert_false(s.on_backup);
}

/* The operator makes the only active uplink a backup: with nothing active left, that is a failover too. */
static void test_a_role_change_is_a_failover_when_it_leaves_only_backups(void **state)
{
	const struct pair_event *e;
	size_t mark;

	(void)state;
	established_up(&(struct pair_options){ .backup_last = true }, 2);
	mark = p.client.n_events;
	assert_int_equal(wb_bond_set_uplink_role(p.client.bond, 0, true, 1), 0);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_FAILOVER, NULL, &e), 1);
	assert_true(e->ev.to_backup);
	assert_int_equal(wb_bond_set_uplink_role(p.client.bond, 0, true, 3), 0); /* no change of who carries */
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_FAILOVER, NULL, NULL), 1);
}

/* The peer closes the session: told with why, and each uplink's fall with it. */
static void test_the_end_of_a_session_is_told(void **state)
{
	const struct pair_event *e;
	size_t mark;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	mark = p.client.n_events;
	wb_bond_close(p.server.bond, p.now);
	pair_flush(&p);
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_SESSION_ENDED, NULL, &e), 1);
	assert_string_equal(e->text, "the peer closed the session");
	assert_int_equal(count_events(&p.client, mark, WB_EVENT_UPLINK_STATE, "up0", &e), 1);
	assert_int_equal(e->ev.to, WB_UPLINK_DOWN);
	assert_string_equal(e->text, "the peer closed the session");
}

/* The bond's snapshot holds what its counters and settings say. */
static void test_the_bond_snapshot_matches_the_bond(void **state)
{
	struct wb_bond_status s;

	(void)state;
	established_up(&(struct pair_options){ .tuning.send_queue = 1 << 20 }, 2);
	for (uint64_t id = 1; id <= 50; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 500), 0);
	pair_run_until(&p, p.now + 1 * SEC);
	wb_bond_status(p.client.bond, &s);
	assert_string_equal(s.name, "test");
	assert_true(s.session);
	assert_int_equal(s.session_born_ns, wb_bond_session_born(p.client.bond));
	assert_string_equal(s.scheduler, "default");
	assert_int_equal(s.send_queue, 1 << 20);
	assert_int_equal(s.memory, wb_bond_memory(p.client.bond));
	assert_int_equal(s.c.tun_rx_packets, 50);
	assert_memory_equal(&s.c, wb_bond_counters(p.client.bond), sizeof(s.c));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_a_new_session_and_its_uplinks_are_told, teardown),
		cmocka_unit_test_teardown(test_each_transition_is_told_once_with_its_reason, teardown),
		cmocka_unit_test_teardown(test_a_failover_is_told_once_each_way, teardown),
		cmocka_unit_test_teardown(test_a_role_change_is_a_failover_when_it_leaves_only_backups, teardown),
		cmocka_unit_test_teardown(test_the_end_of_a_session_is_told, teardown),
		cmocka_unit_test_teardown(test_the_bond_snapshot_matches_the_bond, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
