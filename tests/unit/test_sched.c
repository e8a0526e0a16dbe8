// SPDX-License-Identifier: MIT
/*
 * The scheduler (lib/sched*.c, lib/reinject.c): the registry of policies,
 * what each policy decides on a given state, the checks a bond ack runs
 * (penalty, opportunistic reinjection once per snd_una), and the core's
 * walk that sends the copies.
 *
 * Two kinds of tests. Decisions: a real bond of the in-memory pair
 * (tests/unit/pair.h), established, whose uplinks are then given by hand
 * the state a rule reads (RTT, window, pacing, bytes in flight); the
 * policy's operations are called directly and the pair is not run again
 * (the faked bytes in flight would upset later acks). Walks: a pair
 * with real packets in flight on known uplinks, copies sent through the
 * library, then the receiver checked to deliver each packet once, in
 * order.
 *
 * Time is virtual (the pair's p.now); nothing here reads the wall clock.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bond.h"
#include "pair.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
/* The IP packets of the walks: all of one length, so a limit in bytes is a count of packets. */
#define L 1000u

static struct pair p;

/*
 * Each uplink's count of send-buffer entries it holds (what reinjection
 * reads) matches the entries' holder bits, after whatever a test did.
 */
static int holders_counted(const struct wb_bond *b)
{
	for (int i = 0; b && i < WB_MAX_UPLINKS; i++) {
		uint32_t n = 0;

		for (uint64_t d = b->snd.una; d < b->snd.nxt; d++)
			n += !!(wb_sndbuf_get(&b->snd, d)->holders & (1u << i));
		if (n != b->uplinks[i].dsns_held) {
			fprintf(stderr, "uplink %d holds %u entries, counted %u\n", i, n, b->uplinks[i].dsns_held);
			return -1;
		}
	}
	return 0;
}

static int teardown(void **state)
{
	int rc = holders_counted(p.client.bond) | holders_counted(p.server.bond);

	(void)state;
	pair_free(&p);
	memset(&p, 0, sizeof(p)); /* a test that failed before pair_init frees nothing twice */
	return rc;
}

/* ---- helpers ------------------------------------------------------------------ */

/* A session, and every one of the n uplinks up on both sides; returns the client's bond. */
static struct wb_bond *established_up(const struct pair_options *o)
{
	pair_init(&p, o);
	pair_run_until(&p, p.now + 10 * MS);
	assert_true(wb_bond_has_session(p.client.bond));
	pair_run_until(&p, p.now + 1 * SEC);
	assert_true(wb_bond_has_session(p.server.bond));
	for (int i = 0; i < p.n_uplinks; i++) {
		assert_int_equal(p.client.bond->uplinks[i].state, WB_UPLINK_UP);
		assert_int_equal(p.server.bond->uplinks[i].state, WB_UPLINK_UP);
	}
	return p.client.bond;
}

/*
 * Gives uplink i a known state: up, an RTT of srtt (its minimum too), a
 * window, a pacing rate (bytes/s) and bytes in flight, free to send now,
 * no timeout pending.
 */
static struct wb_uplink *shape(struct wb_bond *b, int i, uint64_t srtt_ns, uint64_t rate, uint64_t cwnd,
			       uint64_t in_flight)
{
	struct wb_uplink *u = &b->uplinks[i];

	assert_true(u->exists);
	assert_non_null(u->rec);
	u->state = WB_UPLINK_UP;
	u->available = true;
	u->pmtu.size = u->pmtu.settled = u->pmtu.max; /* its path carries the largest datagram */
	u->rtt.srtt_ns = u->rtt.min_ns = srtt_ns;
	u->rtt.has_sample = true;
	u->cc.pacing_rate = rate;
	if (u->cc.ops == &wb_cc_bbr) {
		u->cc.bbr.btl_bw = rate; /* the arrival rule's rate and path RTT */
		u->cc.bbr.min_rtt_ns = srtt_ns;
	}
	u->cc.cwnd = cwnd;
	u->rec->bytes_in_flight = in_flight;
	u->rec->pto_count = 0;
	u->rec->timed_out = false;
	u->next_send_ns = 0;
	return u;
}

/* A decision scene: a bond of n uplinks (the last a backup if asked), all alike (10 ms, 10 MB/s, 100 kB window, idle). */
static struct wb_bond *scene(int n, bool backup_last)
{
	struct wb_bond *b = established_up(&(struct pair_options){ .n_uplinks = n, .backup_last = backup_last });

	for (int i = 0; i < n; i++)
		shape(b, i, 10 * MS, 10000000, 100000, 0);
	return b;
}

/* Sets who holds an entry, keeping each uplink's count of entries held in step (as sending does). */
static void set_holders(struct wb_bond *b, struct wb_sndbuf_entry *e, uint16_t holders)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		b->uplinks[i].dsns_held -= !!(e->holders & (1u << i));
		b->uplinks[i].dsns_held += !!(holders & (1u << i));
	}
	e->holders = holders;
}

/* A DSN in the send buffer (a buffer of the bond's pool, freed with the bond), held by the uplinks in holders. */
static uint64_t push_dsn(struct wb_bond *b, uint16_t len, uint16_t holders)
{
	uint8_t *buf = wb_pktbuf_get(&b->pool);
	uint64_t dsn;

	assert_non_null(buf);
	memset(buf, 0, len);
	assert_int_equal(wb_sndbuf_push(&b->snd, buf, len, &dsn), 0);
	set_holders(b, wb_sndbuf_get(&b->snd, dsn), holders);
	return dsn;
}

/* An IP packet waiting in the send queue (freed with the bond). */
static void queue_packet(struct wb_bond *b, uint16_t len)
{
	uint8_t *buf = wb_pktbuf_get(&b->pool);

	assert_non_null(buf);
	memset(buf, 0, len);
	assert_true(wb_txq_push(&b->txq, buf, len, p.now));
}

/* The policy's decision for a new packet: its first uplink (copies, if asked, in *copies). */
static struct wb_uplink *get_send(const struct wb_sched_ops *ops, struct wb_bond *b, uint32_t bytes, uint16_t avoid,
				  uint16_t *copies)
{
	struct wb_send_decision d = { 0 };

	ops->get_send(b, bytes, p.now, avoid, &d);
	if (copies)
		*copies = d.copies;
	else
		assert_int_equal(d.copies, 0);
	return d.uplink;
}

static struct wb_retrans_decision retrans(struct wb_bond *b, enum wb_retrans_reason why)
{
	struct wb_retrans_decision d = { 0 };

	wb_sched_default.get_retrans(b, why, p.now, &d);
	return d;
}

/* The decision copies nothing (whether or not an idle uplink was there). */
static void assert_no_copies(const struct wb_retrans_decision *d)
{
	assert_null(d->uplink);
	assert_int_equal(d->limit, 0);
}

/* Every id in [1, n] delivered to s exactly once and in order, and nothing else. */
static void assert_delivered_in_order(const struct pair_side *s, size_t n)
{
	assert_int_equal(s->n_delivered, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s->delivered[i], i + 1);
}

/* ---- 1. the registry ---------------------------------------------------------- */

/* The four policies are found by their names, which they carry; anything else is none. */
static void test_the_four_policies_are_found_by_name(void **state)
{
	static const struct {
		const char *name;
		const struct wb_sched_ops *ops;
	} all[] = {
		{ "default", &wb_sched_default },
		{ "roundrobin", &wb_sched_roundrobin },
		{ "redundant", &wb_sched_redundant },
		{ "first", &wb_sched_first },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		assert_ptr_equal(wb_sched_find(all[i].name), all[i].ops);
		assert_string_equal(all[i].ops->name, all[i].name);
		assert_true(wb_sched_exists(all[i].name));
	}
	assert_null(wb_sched_find("minrtt"));
	assert_null(wb_sched_find(""));
	assert_null(wb_sched_find("Default")); /* names are exact */
	assert_null(wb_sched_find("default "));
	assert_false(wb_sched_exists("blest"));
	/* Only default has the reinjection check and the penalty (copies of new packets: "redundant" below). */
	assert_non_null(wb_sched_default.get_retrans);
	assert_non_null(wb_sched_default.on_blocked);
	assert_null(wb_sched_roundrobin.get_retrans);
	assert_null(wb_sched_first.get_retrans);
	assert_null(wb_sched_redundant.get_retrans);
}

/* An unknown name is refused and the bond keeps its policy, its rules and the policy's state. */
static void test_set_scheduler_refuses_an_unknown_name_and_changes_nothing(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", WB_SCHED_RULE_PENALISE), 0);
	assert_ptr_equal(b->sched, &wb_sched_roundrobin);
	assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0, NULL), &b->uplinks[0]); /* uplink 1's turn next */
	b->reinj.active = true;
	assert_int_equal(wb_bond_set_scheduler(b, "fastest", WB_SCHED_RULE_REINJECT), -EINVAL);
	assert_ptr_equal(b->sched, &wb_sched_roundrobin);
	assert_string_equal(wb_bond_scheduler(b), "roundrobin");
	assert_string_equal(b->tuning.scheduler, "roundrobin");
	assert_int_equal(b->tuning.sched_off, WB_SCHED_RULE_PENALISE);
	assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0, NULL), &b->uplinks[1]);
	assert_true(b->reinj.active);
	/* A known one takes effect whole: policy, name, rules, and the old policy's state and copies dropped. */
	assert_int_equal(wb_bond_set_scheduler(b, "first", WB_SCHED_RULE_REINJECT), 0);
	assert_ptr_equal(b->sched, &wb_sched_first);
	assert_string_equal(wb_bond_scheduler(b), "first");
	assert_string_equal(b->tuning.scheduler, "first");
	assert_int_equal(b->tuning.sched_off, WB_SCHED_RULE_REINJECT);
	assert_false(b->reinj.active);
	for (size_t i = 0; i < sizeof(b->sched_state); i++)
		assert_int_equal(b->sched_state[i], 0);
}

/* A bond configured with an unknown scheduler is not created at all. */
static void test_a_bond_with_an_unknown_scheduler_is_refused(void **state)
{
	struct wb_bond_params bp = { .name = "other" };
	struct wb_bond *b = NULL;

	(void)state;
	pair_init(&p, &(struct pair_options){ 0 });
	memset(bp.public_key, 0x42, sizeof(bp.public_key));
	snprintf(bp.tuning.scheduler, sizeof(bp.tuning.scheduler), "%s", "nope");
	assert_int_equal(wb_device_add_bond(p.server.dev, &bp, &b), -EINVAL);
	assert_null(b);
	assert_null(wb_device_bond(p.server.dev, 1));
	snprintf(bp.tuning.scheduler, sizeof(bp.tuning.scheduler), "%s", "first");
	bp.tuning.sched_off = WB_SCHED_RULE_AVOID_BLOCKING;
	assert_int_equal(wb_device_add_bond(p.server.dev, &bp, &b), 0);
	assert_ptr_equal(b->sched, &wb_sched_first);
	assert_int_equal(b->tuning.sched_off, WB_SCHED_RULE_AVOID_BLOCKING);
	/* Unset: the default policy, every rule on. */
	assert_ptr_equal(p.client.bond->sched, &wb_sched_default);
	assert_int_equal(p.client.bond->tuning.sched_off, 0);
}

/*
 * A TUN MTU whose full data datagram would not fit in one UDP datagram is
 * refused: the largest accepted makes datagrams of exactly WB_MAX_DATAGRAM.
 * (65535 was accepted, and its datagrams' lengths were cut to 16 bits.)
 */
static void test_a_tun_mtu_beyond_what_udp_carries_is_refused(void **state)
{
	struct wb_bond_params bp = { .name = "big" };
	struct wb_bond *b = NULL;

	(void)state;
	pair_init(&p, &(struct pair_options){ 0 });
	memset(bp.public_key, 0x42, sizeof(bp.public_key));
	bp.tuning.mtu = WB_MAX_TUN_MTU + 1;
	assert_int_equal(wb_device_add_bond(p.server.dev, &bp, &b), -EINVAL);
	bp.tuning.mtu = UINT16_MAX;
	assert_int_equal(wb_device_add_bond(p.server.dev, &bp, &b), -EINVAL);
	bp.tuning.mtu = WB_MAX_TUN_MTU;
	assert_int_equal(wb_device_add_bond(p.server.dev, &bp, &b), 0);
	assert_int_equal(sizeof(struct wb_msg_data) + b->max_body + WB_TAG_LEN, WB_MAX_DATAGRAM);
}

/*
 * The library's mapping of rule names to flags (lib/sched.c), against what
 * the configuration keys, `wanbond sched set` and the control family's
 * WB_CTL_A_SCHED_SET_OFF bits promise (docs/configuration.md, control.yaml):
 * each name to its bit and back, written out here by value, not copied from
 * the library's table; no other bit has a rule, and near names are none.
 */
static void test_rule_names_map_to_flags_and_back(void **state)
{
	static const struct {
		const char *name;
		uint32_t bit;
		uint32_t flag;
	} expected[] = {
		{ "penalise", 0x01, WB_SCHED_RULE_PENALISE },
		{ "penalise_guard", 0x02, WB_SCHED_RULE_PENALISE_GUARD },
		{ "reinject", 0x04, WB_SCHED_RULE_REINJECT },
		{ "reinject_on_rwnd", 0x08, WB_SCHED_RULE_REINJECT_RWND },
		{ "reinject_on_sndbuf", 0x10, WB_SCHED_RULE_REINJECT_SNDBUF },
		{ "reinject_on_app_limited", 0x20, WB_SCHED_RULE_REINJECT_APP_LIMITED },
		{ "avoid_blocking", 0x40, WB_SCHED_RULE_AVOID_BLOCKING },
		{ "arrival", 0x80, WB_SCHED_RULE_ARRIVAL },
		{ "measure", 0x100, WB_SCHED_RULE_MEASURE },
	};
	const size_t n = sizeof(expected) / sizeof(expected[0]);
	uint32_t named = 0;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(expected[i].flag, expected[i].bit); /* the C name, of the wire's value */
		assert_int_equal(wb_sched_rule_by_name(expected[i].name), expected[i].bit);
		assert_non_null(wb_sched_rule_name(expected[i].bit));
		assert_string_equal(wb_sched_rule_name(expected[i].bit), expected[i].name);
	}
	/* Every single bit: named exactly when expected, and the name maps back to it. */
	for (int b = 0; b < 32; b++) {
		uint32_t bit = UINT32_C(1) << b;
		const char *name = wb_sched_rule_name(bit);
		bool want = false;

		for (size_t i = 0; i < n; i++)
			want |= expected[i].bit == bit;
		if (!name) {
			assert_false(want);
			continue;
		}
		assert_true(want);
		assert_int_equal(wb_sched_rule_by_name(name), bit);
		named |= bit;
	}
	assert_int_equal(named, 0x1ff);
	assert_int_equal(wb_sched_rule_by_name("reinjection"), 0);
	assert_int_equal(wb_sched_rule_by_name(""), 0);
	assert_int_equal(wb_sched_rule_by_name("Penalise"), 0);
	assert_int_equal(wb_sched_rule_by_name("earliest_arrival"), 0); /* the C name's, not a key */
	assert_null(wb_sched_rule_name(0));
	assert_null(wb_sched_rule_name(WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_REINJECT));
}

/*
 * How long the send queue holds before the AQM judges it: an interval
 * while no uplink's rate is measured, nothing once one is, and a second
 * for five seconds after an uplink that carried a quarter of the rate or
 * more left "up" (an outage); a small one's outage holds nothing.
 */
static void test_the_queue_holds_through_an_outage_of_a_big_uplink(void **state)
{
	struct wb_bond *b = scene(2, false);
	struct wb_uplink *big = &b->uplinks[1];

	(void)state;
	shape(b, 0, 20 * MS, 2500000, 100000, 0);
	shape(b, 1, 40 * MS, 12500000, 100000, 0);
	b->uplinks[0].cc.bbr.filled_pipe = b->uplinks[0].cc.bbr.measured = false;
	big->cc.bbr.filled_pipe = big->cc.bbr.measured = false;
	assert_int_equal(wb_sched_queue_hold_ns(b, p.now), b->tuning.aqm_interval_ns);
	big->cc.bbr.filled_pipe = big->cc.bbr.measured = true;
	assert_int_equal(wb_sched_queue_hold_ns(b, p.now), 0);
	b->uplinks[0].cc.bbr.filled_pipe = b->uplinks[0].cc.bbr.measured = true;
	/* The big one goes stale: a second, for five seconds. */
	wb_bond_uplink_transition(b, big, WB_UPLINK_STALE, p.now, "test");
	assert_int_equal(wb_sched_queue_hold_ns(b, p.now + SEC), SEC);
	assert_int_equal(wb_sched_queue_hold_ns(b, p.now + 4 * SEC), SEC);
	assert_int_equal(wb_sched_queue_hold_ns(b, p.now + 6 * SEC), 0);
	/* The small one (a sixth of the rate) goes stale: nothing to hold. */
	shape(b, 1, 40 * MS, 12500000, 100000, 0);
	big->left_up_ns = 0;
	wb_bond_uplink_transition(b, &b->uplinks[0], WB_UPLINK_STALE, p.now, "test");
	assert_int_equal(wb_sched_queue_hold_ns(b, p.now + SEC), 0);
}

/* A rule is on unless its flag is in the bond's sched_off. */
static void test_a_rule_is_on_unless_switched_off(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	assert_true(wb_sched_rule(b, WB_SCHED_RULE_PENALISE));
	assert_true(wb_sched_rule(b, WB_SCHED_RULE_REINJECT));
	assert_int_equal(wb_bond_set_scheduler(b, "default", WB_SCHED_RULE_REINJECT | WB_SCHED_RULE_AVOID_BLOCKING), 0);
	assert_true(wb_sched_rule(b, WB_SCHED_RULE_PENALISE));
	assert_false(wb_sched_rule(b, WB_SCHED_RULE_REINJECT));
	assert_false(wb_sched_rule(b, WB_SCHED_RULE_AVOID_BLOCKING));
}

/* ---- 2. default: new packets ----------------------------------------------------------- */

/* Completion: what is in flight and the packet over the pacing rate (or cwnd/srtt without one), plus half the RTT. */
static void test_completion_time_is_queue_over_rate_plus_half_rtt(void **state)
{
	struct wb_bond *b = scene(2, false);
	struct wb_uplink *u = shape(b, 0, 10 * MS, 1000000, 100000, 20000);

	(void)state;
	/* 21000 bytes at 1 MB/s: 21 ms, and 5 ms. */
	assert_int_equal(wb_sched_completion_ns(u, 1000), 26 * MS);
	u->cc.pacing_rate = 0; /* unpaced: the window per RTT, 10 MB/s */
	assert_int_equal(wb_sched_completion_ns(u, 1000), 2100000 + 5 * MS);
	u->rtt.srtt_ns = 0; /* nothing to go by: last */
	assert_int_equal(wb_sched_completion_ns(u, 1000), UINT64_MAX / 2);
}

/*
 * Without the arrival rule, the packet goes where it would arrive first among the uplinks that can send: not the lowest RTT (uplink 0,
 * 10 ms, but 20 kB queued at 1 MB/s: 26 ms) but uplink 1 (30 ms, empty: 16
 * ms); once uplink 0's queue is gone, uplink 0 (6 ms).
 */
static void test_default_picks_the_lowest_completion_time(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	b->tuning.sched_off |= WB_SCHED_RULE_ARRIVAL; /* the choice among the uplinks that can send now */
	shape(b, 0, 10 * MS, 1000000, 100000, 20000);
	shape(b, 1, 30 * MS, 1000000, 100000, 0);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[0].rec->bytes_in_flight = 0;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	/* Equal times: the lower id. */
	shape(b, 0, 10 * MS, 1000000, 100000, 0);
	shape(b, 1, 10 * MS, 1000000, 100000, 0);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
}

/* ---- 2a. default: the weights -------------------------------------------------------- */

/* The uplink each of n decisions of the default policy takes, counted per uplink. */
static void count_decisions(struct wb_bond *b, int n, unsigned counts[WB_MAX_UPLINKS])
{
	memset(counts, 0, WB_MAX_UPLINKS * sizeof(counts[0]));
	for (int k = 0; k < n; k++) {
		struct wb_uplink *u = get_send(&wb_sched_default, b, 1000, 0, NULL);

		assert_non_null(u);
		counts[u->id]++;
	}
}

/* Two uplinks alike, free to take every packet: weights 3 and 1 share new packets 3 to 1; equal ones leave it to speed. */
static void test_default_shares_by_weight_between_uplinks_alike(void **state)
{
	struct wb_bond *b = scene(2, false);
	unsigned n[WB_MAX_UPLINKS];

	(void)state;
	count_decisions(b, 400, n);
	assert_int_equal(n[0], 400); /* equal weights: the earliest, the lower id on a tie, as before weights */
	b->uplinks[0].weight = 3;
	count_decisions(b, 400, n);
	assert_in_range(n[0], 299, 301);
	assert_in_range(n[1], 99, 101);
	b->uplinks[0].weight = 1;
	b->uplinks[1].weight = 4;
	count_decisions(b, 500, n);
	assert_in_range(n[0], 99, 101 + 64 * 1024 / 1000); /* uplink 1 may first catch up a burst */
	assert_in_range(n[1], 399 - 64 * 1024 / 1000, 401);
	/*
	 * Its turn, and its pacing holds it 1 ms (well within the AQM's target):
	 * the packet waits for it rather than go on uplink 0 at once, so a burst
	 * is shared by the weights and not by whichever has room this instant.
	 */
	b->uplinks[1].weight = 1000;
	b->uplinks[1].next_send_ns = p.now + 1 * MS;
	{
		struct wb_uplink *u;
		int k;

		/* (uplink 0 may be a packet behind its share still: one or two go there first) */
		for (k = 0; k < 3 && (u = get_send(&wb_sched_default, b, 1000, 0, NULL)); k++)
			assert_ptr_equal(u, &b->uplinks[0]);
		assert_true(k < 3); /* it waited */
	}
	b->uplinks[1].next_send_ns = 0;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
}

/* A weight never sends a packet on an uplink that would deliver it later than the AQM's target after the best. */
static void test_default_weight_does_not_pull_traffic_onto_a_slower_uplink(void **state)
{
	struct wb_bond *b = scene(2, false);
	unsigned n[WB_MAX_UPLINKS];

	(void)state;
	shape(b, 1, 60 * MS, 10000000, 100000, 0); /* 25 ms later one way */
	b->uplinks[1].weight = 100;
	count_decisions(b, 100, n);
	assert_int_equal(n[0], 100);
	/* Within the target: 4 ms later one way (8 ms RTT more), and the weight has its say. */
	shape(b, 1, 18 * MS, 10000000, 100000, 0);
	count_decisions(b, 101, n);
	assert_in_range(n[1], 99, 101);
}

/* Through the bond: weights 3 and 1 on two uplinks alike, paced packets, and the data packets split 3 to 1. */
static void test_default_weights_split_real_packets(void **state)
{
	const struct wb_uplink_params ups[2] = { { .name = "dsl", .weight = 3 }, { .name = "lte", .weight = 1 } };
	struct wb_bond *b;
	uint64_t d0, d1;

	(void)state;
	b = established_up(&(struct pair_options){ .n_uplinks = 2, .uplinks = ups });
	for (uint64_t id = 1; id <= 400; id++) {
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
		pair_run_until(&p, p.now + 2 * MS);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 400);
	d0 = b->uplinks[0].c.data_packets;
	d1 = b->uplinks[1].c.data_packets;
	assert_int_equal(d0 + d1, 400);
	assert_in_range(d0, 270, 330);
}

/* ---- 2b. default: the arrival rule ------------------------------------------------------ */

/* n packets of len bytes waiting in the bond's send queue (buffers of its pool). */
static void queue_packets(struct wb_bond *b, int n, uint16_t len)
{
	for (int i = 0; i < n; i++) {
		uint8_t *buf = wb_pktbuf_get(&b->pool);

		assert_non_null(buf);
		memset(buf, 0, len);
		assert_true(wb_txq_push(&b->txq, buf, len, p.now));
	}
}

/*
 * Arrival: when the uplink may send (pacing, then the window opening at
 * its rate), what it has queued beyond its bandwidth-delay product, the
 * packet's own time at the rate, and half the minimum RTT.
 */
static void test_arrival_counts_pacing_window_queue_and_half_the_rtt(void **state)
{
	struct wb_bond *b = scene(2, false);
	struct wb_uplink *u = shape(b, 0, 10 * MS, 10000000, 1000000, 5000); /* 10 MB/s, 10 ms: a 100 kB pipe */

	(void)state;
	/* Under the pipe: no queue; 0.1 ms for 1000 bytes, and 5 ms. */
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), p.now + 5100000);
	/* 200 kB in flight: 100 kB queued ahead, 10 ms more. */
	u->rec->bytes_in_flight = 200000;
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), p.now + 15100000);
	/* Pacing lets it leave in 2 ms. */
	u->next_send_ns = p.now + 2 * MS;
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), p.now + 17100000);
	/* A full window with no queue: it opens after 1000 bytes are acked, 0.1 ms. */
	u->next_send_ns = 0;
	u->rec->bytes_in_flight = 5000;
	u->cc.cwnd = 5000;
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), p.now + 5200000);
	/* A rate measured on probes alone: the initial window per RTT instead. */
	u->cc.bbr.btl_bw = 100;
	assert_int_equal(wb_sched_delivery_rate(u), WB_CC_INITIAL_WINDOW_PACKETS * u->cc.mss * SEC / (10 * MS));
	/* No RTT yet: last. */
	u->rtt.has_sample = false;
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), UINT64_MAX / 2);
}

/*
 * BBR probing a quarter above its estimate: the arrival is reckoned at the
 * pace, so the uplink is given the extra it probes with; in startup, at
 * the estimate (the pace is three times what it has carried so far).
 */
static void test_arrival_counts_a_probing_pace(void **state)
{
	struct wb_bond *b = scene(2, false);
	struct wb_uplink *u = shape(b, 0, 10 * MS, 10000000, 1000000, 200000); /* 100 kB queued at 10 MB/s */

	(void)state;
	u->cc.pacing_rate = 12500000; /* a 125 kB pipe at the pace: 75 kB queued, 6 ms; 0.08 ms for 1000 bytes */
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), p.now + 15100000);
	u->cc.bbr.filled_pipe = u->cc.bbr.measured = true;
	assert_int_equal(wb_sched_arrival_ns(u, 1000, p.now), p.now + 11080000);
}

/*
 * A fast uplink between two paced packets keeps the next one: the slow
 * uplink, free now, would deliver it 10 ms later. With a slow uplink of a
 * small share (a tenth of the bond's rate, measured), the packet waits
 * (NULL) unless the queue behind it is long enough that the fast uplink
 * would deliver its end after the slow one delivers this packet.
 */
static void test_arrival_waits_for_the_fast_uplink_unless_the_queue_is_long(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 100000, 0); /* 10 MB/s: 0.1 ms + 5 ms */
	shape(b, 1, 30 * MS, 1000000, 100000, 0);  /* 1 MB/s: 1 ms + 15 ms */
	b->uplinks[1].cc.bbr.filled_pipe = b->uplinks[1].cc.bbr.measured = true;   /* its rate is measured */
	b->uplinks[0].next_send_ns = p.now + 1 * MS;
	assert_int_equal(wb_sched_delay_spread_ns(b, 50 * MS), 0);
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	/* 6.1 ms on the fast one, 16 on the slow one: 95 kB queued is 9.5 ms at the fast rate, not enough. */
	queue_packets(b, 95, 1000);
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	/* 105 kB: the slow uplink delivers this packet before the fast one would deliver the last. */
	queue_packets(b, 10, 1000);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	/* The fast uplink free again: it takes it. */
	b->uplinks[0].next_send_ns = p.now;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
}

/*
 * A slower uplink worth its wait (as fast as the first, or not measured
 * yet) takes a packet it delivers within the spread of the delays, queue
 * or not: an inner flow that keeps no queue would never see it otherwise.
 */
static void test_arrival_lets_a_worthwhile_uplink_deliver_within_the_spread(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 100000, 0); /* 0.1 ms + 5 ms */
	shape(b, 1, 30 * MS, 10000000, 100000, 0); /* 0.1 ms + 15 ms, 10 ms later */
	b->uplinks[1].cc.bbr.filled_pipe = b->uplinks[1].cc.bbr.measured = true;
	b->uplinks[0].next_send_ns = p.now + 1 * MS; /* 6.1 ms: 15.1 is within 10 ms of it */
	assert_int_equal(wb_sched_delay_spread_ns(b, 50 * MS), 10 * MS);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	/* Its own queue 2 ms (20 kB beyond its 300 kB pipe): 17.1 ms, more than 10 after 6.1: it waits. */
	shape(b, 1, 30 * MS, 10000000, 1000000, 320000);
	b->uplinks[1].cc.bbr.filled_pipe = b->uplinks[1].cc.bbr.measured = true;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	/* A tenth of the rate, measured: no spread; not yet measured: its share is not held against it. */
	shape(b, 1, 30 * MS, 1000000, 100000, 0);
	b->uplinks[1].cc.bbr.filled_pipe = b->uplinks[1].cc.bbr.measured = true;
	assert_int_equal(wb_sched_delay_spread_ns(b, 50 * MS), 0);
	b->uplinks[1].cc.bbr.filled_pipe = b->uplinks[1].cc.bbr.measured = false;
	assert_int_equal(wb_sched_delay_spread_ns(b, 50 * MS), 10 * MS);
}

/*
 * An uplink still in startup (its rate not measured) takes what the first
 * uplink cannot send now, however late its measured rate says it would
 * deliver, so it ramps up beside the fast one; once measured, or more
 * than half the AQM's interval later than the fastest, it waits again.
 */
static void test_arrival_feeds_an_uplink_still_in_startup(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 100000, 0); /* 10 MB/s: 0.1 ms + 5 ms */
	shape(b, 1, 30 * MS, 100000, 100000, 0);   /* 100 kB/s so far: 10 ms + 15 ms */
	b->uplinks[0].next_send_ns = p.now + 1 * MS;
	assert_false(wb_sched_rate_known(&b->uplinks[1]));
	assert_int_equal(wb_sched_delay_gap_ns(b, &b->uplinks[1]), 10 * MS);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	/* The fast uplink free: it keeps the packet. */
	b->uplinks[0].next_send_ns = p.now;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	/* Measured at that rate: 25 ms against 6.1, it waits. */
	b->uplinks[0].next_send_ns = p.now + 1 * MS;
	b->uplinks[1].cc.bbr.filled_pipe = b->uplinks[1].cc.bbr.measured = true;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	/* Not measured, but 60 ms later one way: past the AQM's half interval, it waits too. */
	shape(b, 1, 130 * MS, 100000, 100000, 0);
	assert_int_equal(wb_sched_delay_gap_ns(b, &b->uplinks[1]), 60 * MS);
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

/* Equal uplinks: the one that can send now, as the other waits for its pacing; a stale one never. */
static void test_arrival_spreads_over_equal_uplinks(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 100000, 0);
	shape(b, 1, 10 * MS, 10000000, 100000, 0);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	b->uplinks[0].next_send_ns = p.now + 100000;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[1].state = WB_UPLINK_STALE;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

/*
 * The send queue's AQM target: the configured one, and the spread of the
 * uplinks' one-way delays on top with the arrival rule, leaving out those
 * more than half the AQM's interval later than the fastest.
 */
static void test_queue_target_grows_with_the_delay_spread(void **state)
{
	struct wb_bond *b = scene(3, false);
	uint64_t target = b->tuning.aqm_target_ns;

	(void)state;
	assert_int_equal(wb_sched_queue_target_ns(b), target);
	shape(b, 1, 30 * MS, 10000000, 100000, 0); /* 10 ms one way more than uplink 0 */
	assert_int_equal(wb_sched_queue_target_ns(b), target + 10 * MS);
	/* 60 ms later: more than half the interval, left out; a third at 40 ms later counts. */
	shape(b, 1, 130 * MS, 10000000, 100000, 0);
	assert_int_equal(wb_sched_queue_target_ns(b), target);
	shape(b, 2, 90 * MS, 10000000, 100000, 0);
	assert_int_equal(wb_sched_queue_target_ns(b), target + 40 * MS);
	b->tuning.sched_off |= WB_SCHED_RULE_ARRIVAL;
	assert_int_equal(wb_sched_queue_target_ns(b), target);
}

/* An uplink whose window has no room for the packet is passed over; exactly full is room enough. */
static void test_default_skips_an_uplink_with_a_full_window(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	b->tuning.sched_off |= WB_SCHED_RULE_ARRIVAL; /* the choice among the uplinks that can send now */
	shape(b, 0, 10 * MS, 100000000, 100000, 99000); /* 1 ms to drain, 5 ms: first if it may */
	shape(b, 1, 30 * MS, 1000000, 100000, 0);        /* 16 ms */
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	b->uplinks[0].rec->bytes_in_flight = 99001;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[1].rec->bytes_in_flight = 99001;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

/*
 * An uplink whose pacing does not let a packet leave yet is passed over:
 * the next one that can send takes the packet, unless avoid_blocking says
 * it had better wait (not here: nothing queued behind it, a window of
 * plenty). Stale or down, an uplink is not used at all.
 */
static void test_default_passes_over_an_uplink_not_yet_due_by_pacing(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	b->tuning.sched_off |= WB_SCHED_RULE_ARRIVAL; /* the choice among the uplinks that can send now */
	shape(b, 0, 10 * MS, 10000000, 100000, 0); /* 0.1 ms + 5 ms */
	shape(b, 1, 30 * MS, 1000000, 100000, 0);  /* 1 ms + 15 ms */
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	b->uplinks[0].next_send_ns = p.now + 1;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[1].next_send_ns = p.now + 1;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	b->uplinks[0].next_send_ns = p.now;
	b->uplinks[1].next_send_ns = p.now;
	b->uplinks[0].state = WB_UPLINK_STALE;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[0].state = WB_UPLINK_DOWN;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
}

/* Uplinks in avoid (kept free for a resend) take no new packet. */
static void test_default_keeps_off_the_uplinks_in_avoid(void **state)
{
	struct wb_bond *b = scene(3, false);

	(void)state;
	shape(b, 0, 5 * MS, 10000000, 100000, 0);
	shape(b, 1, 10 * MS, 10000000, 100000, 0);
	shape(b, 2, 20 * MS, 10000000, 100000, 0);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0x1, NULL), &b->uplinks[1]);
	b->tuning.sched_off = WB_SCHED_RULE_AVOID_BLOCKING; /* the slowest alone must not be refused for blocking */
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0x3, NULL), &b->uplinks[2]);
	assert_null(get_send(&wb_sched_default, b, 1000, 0x7, NULL));
}

/*
 * A backup uplink carries nothing while a non-backup one is usable, even
 * when it would be faster and even when the others cannot send this
 * instant; it does once none is usable.
 */
static void test_default_uses_a_backup_only_when_no_other_is_usable(void **state)
{
	struct wb_bond *b = scene(3, true);

	(void)state;
	assert_true(b->uplinks[2].backup);
	shape(b, 2, 1 * MS, 100000000, 1000000, 0); /* the backup: by far the best */
	assert_int_equal(wb_sched_active(b), 0x3);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[0]);
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd;
	b->uplinks[1].next_send_ns = p.now + MS;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	/* Both others out of use (stale, down): the backup. */
	b->uplinks[0].state = WB_UPLINK_STALE;
	b->uplinks[1].state = WB_UPLINK_DOWN;
	assert_int_equal(wb_sched_active(b), 0x4);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[2]);
	/* One comes back: the backup rests again. */
	shape(b, 1, 50 * MS, 1000000, 100000, 0);
	assert_int_equal(wb_sched_active(b), 0x2);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
}

/*
 * Path MTU: a packet larger than an uplink's path never goes there, under
 * every policy, whatever else the uplink has for it; a small one still may.
 */
static void test_a_packet_keeps_off_an_uplink_whose_path_is_too_small(void **state)
{
	const struct wb_sched_ops *policies[] = { &wb_sched_default, &wb_sched_roundrobin, &wb_sched_redundant };
	struct wb_bond *b = scene(2, false);
	uint32_t big = 1400 + WB_TUNNEL_BYTES_WITH_ACKS, small = 1000 + WB_TUNNEL_BYTES_WITH_ACKS;

	(void)state;
	shape(b, 1, 1 * MS, 100000000, 1000000, 0); /* uplink 1: by far the best */
	b->uplinks[1].pmtu.size = 1272;             /* ...but its path carries 1233-byte packets at most */
	assert_false(wb_sched_fits(&b->uplinks[1], big));
	assert_true(wb_sched_fits(&b->uplinks[1], small));
	assert_int_equal(wb_sched_fitting(b, big), 0x1);
	for (size_t k = 0; k < sizeof(policies) / sizeof(policies[0]); k++) {
		uint16_t copies;

		/* (redundant's copy on uplink 1 is named, and the core sends it only where it fits: bond_tx.c) */
		for (int i = 0; i < 4; i++)
			assert_ptr_equal(get_send(policies[k], b, big, 0, &copies), &b->uplinks[0]);
	}
	assert_ptr_equal(get_send(&wb_sched_default, b, small, 0, NULL), &b->uplinks[1]);
	/* A resend of a big one, lost on uplink 0: not on uplink 1 all the same. */
	{
		uint16_t reserved;

		assert_ptr_equal(wb_sched_pick_resend(b, big, p.now, 0x1, &reserved), &b->uplinks[0]);
	}
	/* Uplink 0 cannot send now: the big one waits for it, it never takes the small path. */
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd;
	assert_null(get_send(&wb_sched_default, b, big, 0, NULL));
}

/*
 * A packet that no usable uplink's path carries, with none of them still
 * searching: dropped and counted, and the packets behind it go. While one
 * searches, it waits instead: the search may find room for it.
 */
static void test_a_packet_too_big_for_every_path_is_dropped(void **state)
{
	struct wb_bond *b = scene(2, false);
	uint64_t nxt = b->snd.nxt;

	(void)state;
	for (int i = 0; i < 2; i++) {
		b->uplinks[i].pmtu.size = b->uplinks[i].pmtu.settled = 1272;
		b->uplinks[i].pmtu.searching = false;
	}
	queue_packet(b, 1400);
	queue_packet(b, 1000);
	wb_bond_push(b, p.now);
	assert_int_equal(b->c.too_big_drops, 1);
	assert_int_equal(b->snd.nxt, nxt + 1); /* the small one got its DSN */
	assert_null(wb_txq_peek(&b->txq));
	b->uplinks[1].pmtu.searching = true;
	queue_packet(b, 1400);
	wb_bond_push(b, p.now);
	assert_int_equal(b->c.too_big_drops, 1);
	assert_non_null(wb_txq_peek(&b->txq));
	/* The search ends with room for it: it goes. */
	b->uplinks[1].pmtu.searching = false;
	b->uplinks[1].pmtu.size = b->uplinks[1].pmtu.max;
	wb_bond_push(b, p.now);
	assert_null(wb_txq_peek(&b->txq));
	assert_int_equal(b->snd.nxt, nxt + 2);
}

/*
 * A model that learnt a rate of bytes a second (a path that held its probes
 * through a minute of silence): pacing still lets the minimum window out
 * per smoothed RTT, as the window does, instead of one packet a minute.
 */
static void test_pacing_is_never_slower_than_the_minimum_window_per_rtt(void **state)
{
	struct wb_bond *b = scene(1, false);
	struct wb_uplink *u = shape(b, 0, 20 * MS, 10, 100000, 0);
	uint64_t nxt = b->snd.nxt, per_packet = 20 * MS / WB_CC_MIN_WINDOW_PACKETS;

	(void)state;
	u->rec->app_limited_until = 0;
	queue_packets(b, 2 * WB_CC_MIN_WINDOW_PACKETS, L);
	wb_bond_push(b, p.now);
	/* The burst allowance and the packet that uses it up. */
	assert_true(b->snd.nxt > nxt && b->snd.nxt < nxt + WB_CC_MIN_WINDOW_PACKETS);
	assert_true(u->next_send_ns > p.now && u->next_send_ns <= p.now + per_packet);
	/* Then one a quarter of the RTT at most, as the pacing timer lets them: the window goes within the RTT. */
	for (uint64_t start = p.now; b->snd.nxt < nxt + 2 * WB_CC_MIN_WINDOW_PACKETS;) {
		p.now = u->next_send_ns;
		assert_true(p.now <= start + 20 * MS);
		wb_bond_push(b, p.now);
	}
}

/*
 * A DSN to resend that no path carries now (they shrank after it went out):
 * given up at once, not waited for, and not counted as a drop at the door:
 * the peer's reorder buffer counts it when it skips it.
 */
static void test_a_resend_too_big_for_every_path_is_given_up(void **state)
{
	struct wb_bond *b = scene(2, false);
	uint64_t dsn = push_dsn(b, 1400, 0);

	(void)state;
	for (int i = 0; i < 2; i++) {
		b->uplinks[i].pmtu.size = b->uplinks[i].pmtu.settled = 1272;
		b->uplinks[i].pmtu.searching = false;
	}
	wb_sndbuf_queue_retx(&b->snd, dsn);
	wb_bond_push(b, p.now);
	assert_int_equal(wb_sndbuf_peek_retx(&b->snd), UINT64_MAX);
	assert_true(wb_sndbuf_get(&b->snd, dsn)->flags & WB_SND_DELIVERED);
	assert_int_equal(b->c.too_big_drops, 0);
	assert_int_equal(b->c.retransmits, 0);
}

/* ---- 3. avoid blocking ------------------------------------------------------------- */

/*
 * Uplink 0 is fast (10 ms, 10 MB/s) and cannot send (its window has no
 * room: the packet could not wait for its pacing); uplink 1 is slow
 * (100 ms, 1 MB/s) and can. A 1000-byte packet completes on uplink
 * 1 in 1 ms + 50 ms, on uplink 0 in 0.1 ms + 5 ms: it would arrive 45.9 ms
 * later on the slow one, time for the fast one to deliver 459000 bytes that
 * the receiver must hold meanwhile. So the window must hold 1000 + 459000
 * bytes beside what is outstanding.
 */
static struct wb_bond *blocking_scene(void)
{
	struct wb_bond *b = scene(2, false);

	b->tuning.sched_off |= WB_SCHED_RULE_ARRIVAL; /* the estimates alone, on the choice among those that can send */
	shape(b, 0, 10 * MS, 10000000, 500, 0);
	shape(b, 1, 100 * MS, 1000000, 1000000, 0);
	assert_int_equal(wb_sched_completion_ns(&b->uplinks[1], 1000), 51 * MS);
	assert_int_equal(wb_sched_completion_ns(&b->uplinks[0], 1000), 5100000);
	return b;
}

static void test_avoid_blocking_waits_for_the_fast_uplink_when_the_peer_window_is_short(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	b->peer_rwnd = 460000;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->peer_rwnd = 459999;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

static void test_avoid_blocking_counts_our_send_buffer_as_the_window_when_smaller(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	b->peer_rwnd = 100000000;
	b->tuning.send_buffer = 460000;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->tuning.send_buffer = 459999;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

/* What the send buffer holds already counts: 1000 bytes outstanding move the edge by 1000. */
static void test_avoid_blocking_counts_what_is_outstanding(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	push_dsn(b, 1000, 0x2);
	assert_int_equal(b->snd.bytes, 1000);
	b->peer_rwnd = 460000;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	b->peer_rwnd = 461000;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
}

/*
 * The fast uplink's own queue counts: with 100 kB in flight it completes
 * in 10.1 ms + 5 ms, the slow one's packet is only 35.9 ms later, 359000
 * bytes of the fast one's.
 */
static void test_avoid_blocking_counts_the_fast_uplinks_queue(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	b->uplinks[0].rec->bytes_in_flight = 100000;
	b->peer_rwnd = 360000;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->peer_rwnd = 359999;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

/* With the rule off, the slow uplink takes the packet whatever the window. */
static void test_avoid_blocking_off_sends_on_the_slow_uplink(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	b->peer_rwnd = 1000;
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	b->tuning.sched_off |= WB_SCHED_RULE_AVOID_BLOCKING;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
}

/*
 * The fast uplink is not waited for, whatever the window, when it had a
 * timeout (it may be gone), nor when it would not deliver sooner (its
 * queue is that long).
 */
static void test_avoid_blocking_does_not_wait_for_a_timed_out_or_later_uplink(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	b->peer_rwnd = 0;
	b->uplinks[0].rec->timed_out = true;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[0].rec->timed_out = false;
	b->uplinks[0].rec->bytes_in_flight = 459000; /* 46 ms to drain, 5 ms: exactly as late */
	assert_int_equal(wb_sched_completion_ns(&b->uplinks[0], 1000), 51 * MS);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[0].rec->bytes_in_flight = 449000; /* a millisecond sooner: it is waited for */
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
}

/*
 * ECF's half: with a window of plenty, a packet still waits for the fast
 * uplink when that one would deliver the whole backlog (the send queue)
 * before the slow one delivers the packet, and the backlog is worth the
 * wait: the slow one would take two fast RTTs (20 ms at 1 MB/s: 20000
 * bytes) or more to send it. A shorter backlog goes on the slow one, and
 * so does any backlog the fast one could not drain sooner.
 */
static void test_avoid_blocking_waits_when_the_fast_uplink_drains_the_backlog_first(void **state)
{
	struct wb_bond *b = blocking_scene();

	(void)state;
	b->peer_rwnd = 100000000;
	for (int k = 0; k < 19; k++)
		queue_packet(b, 1000);
	assert_int_equal(b->txq.bytes, 19000);
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	queue_packet(b, 1000);
	assert_null(get_send(&wb_sched_default, b, 1000, 0, NULL));
	b->uplinks[0].rec->bytes_in_flight = 449000; /* 44.9 ms to drain, then 2 ms and 5 ms: later than 51 ms */
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[0].rec->bytes_in_flight = 0;
	b->tuning.sched_off |= WB_SCHED_RULE_AVOID_BLOCKING;
	assert_ptr_equal(get_send(&wb_sched_default, b, 1000, 0, NULL), &b->uplinks[1]);
}

/* ---- 4. roundrobin ----------------------------------------------------------------- */

/* One packet per uplink in turn, whatever their speed. */
static void test_roundrobin_rotates_one_packet_each(void **state)
{
	struct wb_bond *b = scene(3, false);

	(void)state;
	shape(b, 2, 200 * MS, 100000, 100000, 0); /* much slower: still its turn */
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", 0), 0);
	for (int k = 0; k < 7; k++)
		assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0, NULL), &b->uplinks[k % 3]);
	/* The turn is the policy's own: choosing the policy again keeps it, another policy and back start it over. */
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", WB_SCHED_RULE_PENALISE), 0);
	assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0, NULL), &b->uplinks[1]);
	assert_int_equal(wb_bond_set_scheduler(b, "first", 0), 0);
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", 0), 0);
	assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0, NULL), &b->uplinks[0]);
}

/* An uplink that cannot send is passed over, not waited for; avoid is honoured. */
static void test_roundrobin_passes_over_an_uplink_that_cannot_send(void **state)
{
	struct wb_bond *b = scene(3, false);
	const int expect[] = { 0, 2, 0, 2 };

	(void)state;
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", 0), 0);
	b->uplinks[1].rec->bytes_in_flight = b->uplinks[1].cc.cwnd;
	for (int k = 0; k < 4; k++)
		assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0, NULL), &b->uplinks[expect[k]]);
	assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0x1, NULL), &b->uplinks[2]);
	assert_ptr_equal(get_send(&wb_sched_roundrobin, b, 1000, 0x4, NULL), &b->uplinks[0]);
	assert_null(get_send(&wb_sched_roundrobin, b, 1000, 0x5, NULL));
}

/* Through the bond: nine packets at once on three uplinks, three on each, DSN k on uplink k mod 3. */
static void test_roundrobin_spreads_real_packets_in_turn(void **state)
{
	struct pair_options o = { .n_uplinks = 3 };
	struct wb_bond *b;

	(void)state;
	snprintf(o.tuning.scheduler, sizeof(o.tuning.scheduler), "roundrobin");
	b = established_up(&o);
	for (uint64_t id = 1; id <= 9; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(b->uplinks[i].c.data_packets, 3);
	for (uint64_t d = 0; d < 9; d++)
		assert_int_equal(wb_sndbuf_get(&b->snd, d)->holders, 1u << (d % 3));
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 9);
}

/* ---- 5. first ---------------------------------------------------------------------- */

/* Only the first usable non-backup uplink sends, even when another would be faster or it cannot send now. */
static void test_first_uses_only_the_first_usable_uplink(void **state)
{
	struct wb_bond *b = scene(3, true);

	(void)state;
	assert_int_equal(wb_bond_set_scheduler(b, "first", 0), 0);
	shape(b, 0, 100 * MS, 1000000, 100000, 50000);
	shape(b, 1, 1 * MS, 100000000, 1000000, 0);
	assert_int_equal(wb_sched_first.uplinks(b), 0x1);
	assert_int_equal(wb_sched_uplinks(b), 0x1);
	assert_ptr_equal(get_send(&wb_sched_first, b, 1000, 0, NULL), &b->uplinks[0]);
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd;
	assert_null(get_send(&wb_sched_first, b, 1000, 0, NULL));
}

/* The first one down: the next; all non-backups down: the backup; the first back: it again. */
static void test_first_fails_over_in_order_and_to_the_backup_last(void **state)
{
	struct wb_bond *b = scene(3, true);
	uint16_t reserved;

	(void)state;
	assert_int_equal(wb_bond_set_scheduler(b, "first", 0), 0);
	shape(b, 2, 1 * MS, 100000000, 1000000, 0);
	b->uplinks[0].state = WB_UPLINK_DOWN;
	assert_int_equal(wb_sched_first.uplinks(b), 0x2);
	assert_ptr_equal(get_send(&wb_sched_first, b, 1000, 0, NULL), &b->uplinks[1]);
	b->uplinks[1].state = WB_UPLINK_STALE;
	assert_int_equal(wb_sched_first.uplinks(b), 0x4);
	assert_ptr_equal(get_send(&wb_sched_first, b, 1000, 0, NULL), &b->uplinks[2]);
	shape(b, 0, 10 * MS, 10000000, 100000, 0);
	assert_int_equal(wb_sched_first.uplinks(b), 0x1);
	assert_ptr_equal(get_send(&wb_sched_first, b, 1000, 0, NULL), &b->uplinks[0]);
	/* Its resends and the bond timeout's stay on it too. */
	assert_ptr_equal(wb_sched_pick_resend(b, 1000, p.now, 0x1, &reserved), &b->uplinks[0]);
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[0]);
}

/* Through the bond: everything on uplink 0. */
static void test_first_sends_real_packets_on_one_uplink(void **state)
{
	struct pair_options o = { .n_uplinks = 3 };
	struct wb_bond *b;

	(void)state;
	snprintf(o.tuning.scheduler, sizeof(o.tuning.scheduler), "first");
	b = established_up(&o);
	for (uint64_t id = 1; id <= 100; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, L), 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 100);
	assert_int_equal(b->uplinks[0].c.data_packets, 100);
	assert_int_equal(b->uplinks[1].c.data_packets + b->uplinks[2].c.data_packets, 0);
}

/* ---- 6. why the bond is blocked ------------------------------------------------------- */

/* Nothing outstanding: nothing holds the bond up, whatever waits. */
static void test_blocked_none_when_nothing_is_outstanding(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	queue_packet(b, 1000);
	b->peer_rwnd = 0;
	assert_int_equal(b->snd.una, b->snd.nxt);
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_NONE);
}

/* Data outstanding and nothing more to send: application limited. */
static void test_blocked_app_limited_when_the_queue_is_empty(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	push_dsn(b, 1000, 0x1);
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_APP_LIMITED);
	queue_packet(b, 1000);
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_NONE); /* default windows: room */
}

/* The next packet passes the peer's window, smaller than our buffer: the receive window. */
static void test_blocked_rwnd_full_when_the_peer_window_is_the_edge(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	push_dsn(b, 1000, 0x1);
	queue_packet(b, 1000);
	b->peer_rwnd = 1999;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_RWND_FULL);
	b->peer_rwnd = 2000;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_NONE);
}

/* It passes our send buffer: the send buffer; and with both equal and full, the send buffer too. */
static void test_blocked_sndbuf_full_when_our_buffer_is_the_edge_or_both_are(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	push_dsn(b, 1000, 0x1);
	queue_packet(b, 1000);
	b->tuning.send_buffer = 1999;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_SNDBUF_FULL);
	b->peer_rwnd = 1999;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_SNDBUF_FULL);
	b->peer_rwnd = 1998; /* now the peer's is the smaller */
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_RWND_FULL);
	b->tuning.send_buffer = b->peer_rwnd = 2000;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_NONE);
}

/* Small packets count as 256 bytes of window, outstanding and waiting alike. */
static void test_blocked_counts_small_packets_as_window_units(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	push_dsn(b, 100, 0x1);
	queue_packet(b, 40);
	b->peer_rwnd = 511;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_RWND_FULL);
	b->peer_rwnd = 512;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_NONE);
}

/* ---- 7. the reinjection decision -------------------------------------------------------- */

/*
 * Uplink 0 fast and idle (10 ms, 10 MB/s, an empty 1 MB window), uplink 1
 * slow and busy (100 ms, 1 MB/s, its 50 kB window full, snd_una among what
 * it holds), uplink 2 out of use with nothing in flight. Uplink 1's copies
 * are worth 10 MB/s over (100 - 10) / 2 ms: 450000 bytes.
 */
static struct wb_bond *reinjection_scene(bool backup_last)
{
	struct wb_bond *b = scene(3, backup_last);

	shape(b, 0, 10 * MS, 10000000, 1000000, 0);
	shape(b, 1, 100 * MS, 1000000, 50000, 50000);
	shape(b, 2, 10 * MS, 10000000, 100000, 0);
	b->uplinks[2].state = WB_UPLINK_DOWN;
	push_dsn(b, 1000, 0x2);
	return b;
}

static void assert_copies(const struct wb_retrans_decision *d, const struct wb_uplink *to, uint16_t from,
			  uint64_t limit)
{
	assert_ptr_equal(d->uplink, to);
	assert_int_equal(d->from, from);
	assert_int_equal(d->limit, limit);
	assert_true(d->idle_found);
}

static void test_reinjection_copies_a_slow_holder_onto_the_idle_fast_uplink(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, &b->uplinks[0], 0x2, 450000);
	d = retrans(b, WB_RETRANS_RWND_FULL);
	assert_copies(&d, &b->uplinks[0], 0x2, 450000);
	d = retrans(b, WB_RETRANS_APP_LIMITED);
	assert_copies(&d, &b->uplinks[0], 0x2, 450000);
}

/* The budget is capped by the free part of the idle uplink's window. */
static void test_reinjection_budget_is_capped_by_the_idle_window(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	b->uplinks[0].cc.cwnd = 300000;
	b->uplinks[0].rec->bytes_in_flight = 100000;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, &b->uplinks[0], 0x2, 200000);
}

/*
 * A live holder qualifies when its RTT is over three times the idle
 * uplink's minimum RTT (not its smoothed one), and the gain is counted from
 * that minimum: idle 10 ms smoothed, 4 ms minimum; a holder of 14 ms is worth
 * 10 MB/s over 5 ms, one of exactly 12 ms is not worth it.
 */
static void test_reinjection_needs_a_holder_rtt_over_three_idle_min_rtts(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	b->uplinks[0].rtt.min_ns = 4 * MS;
	b->uplinks[1].rtt.srtt_ns = 14 * MS;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, &b->uplinks[0], 0x2, 50000);
	b->uplinks[1].rtt.srtt_ns = 12 * MS;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	assert_int_equal(d.from, 0);
	assert_true(d.idle_found); /* the idle uplink was there: the refusal counts */
	b->uplinks[1].rtt.srtt_ns = 12 * MS + 1;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_ptr_equal(d.uplink, &b->uplinks[0]);
}

/* A live holder that paces as fast or faster than the idle uplink is not copied, however long its RTT. */
static void test_reinjection_not_from_a_holder_pacing_as_fast(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	b->uplinks[1].cc.pacing_rate = 10000000;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	assert_true(d.idle_found);
	b->uplinks[1].cc.pacing_rate = 20000000;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	b->uplinks[1].cc.pacing_rate = 9999999;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_ptr_equal(d.uplink, &b->uplinks[0]);
}

/*
 * A gone holder (stale, or down with data still counted in flight)
 * qualifies whatever its speed, even after timeouts: its data is stuck.
 * Only the idle uplink's free window limits the copies.
 */
static void test_reinjection_from_a_gone_holder_is_limited_only_by_the_window(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	b->uplinks[1].state = WB_UPLINK_STALE;
	b->uplinks[1].cc.pacing_rate = 100000000;
	b->uplinks[1].rtt.srtt_ns = 1 * MS;
	b->uplinks[1].rec->pto_count = 2;
	b->uplinks[1].rec->timed_out = true;
	b->uplinks[0].cc.cwnd = 100000000; /* ten seconds at its rate: no pacing cap applies */
	b->uplinks[0].rec->bytes_in_flight = 1000;
	d = retrans(b, WB_RETRANS_APP_LIMITED);
	assert_copies(&d, &b->uplinks[0], 0x2, 100000000 - 1000);
	b->uplinks[1].state = WB_UPLINK_DOWN;
	d = retrans(b, WB_RETRANS_APP_LIMITED);
	assert_copies(&d, &b->uplinks[0], 0x2, 100000000 - 1000);
	/* Gone, and holding no DSN (a probe in flight is no data): nothing to copy from it. */
	set_holders(b, wb_sndbuf_get(&b->snd, b->snd.una), 0);
	d = retrans(b, WB_RETRANS_APP_LIMITED);
	assert_no_copies(&d);
}

/* No reinjection for a holder with an RTO without progress: its own recovery (and stale detection) decide. */
static void test_no_reinjection_for_a_holder_with_an_rto_without_progress(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	b->uplinks[1].rec->pto_count = 1;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	assert_true(d.idle_found);
	b->uplinks[1].rec->pto_count = 0;
	b->uplinks[1].rec->timed_out = true;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	b->uplinks[1].rec->timed_out = false;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_ptr_equal(d.uplink, &b->uplinks[0]);
}

/* Several holders qualify: all in from, and the largest budget. */
static void test_reinjection_takes_every_qualifying_holder_and_the_largest_budget(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	shape(b, 2, 50 * MS, 2000000, 100000, 10000); /* worth 10 MB/s over 20 ms: 200000 */
	push_dsn(b, 1000, 0x4);
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, &b->uplinks[0], 0x6, 450000);
	shape(b, 1, 10 * MS, 10000000, 100000, 0); /* uplink 1 no longer qualifies */
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, &b->uplinks[0], 0x4, 200000);
}

/* The idle uplink: the lowest-RTT one among those idle (usable, RTT sample, no timeout, room for a full packet). */
static void test_the_idle_uplink_is_the_lowest_rtt_one_that_is_idle(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_uplink *u2 = shape(b, 2, 5 * MS, 10000000, 1000000, 0);
	uint64_t full = wb_sched_full_packet(u2);
	struct wb_retrans_decision d;

	(void)state;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, u2, 0x2, 10000000ULL * (95 * MS / 2) / SEC);
	u2->rtt.has_sample = false;
	assert_ptr_equal(retrans(b, WB_RETRANS_SNDBUF_FULL).uplink, &b->uplinks[0]);
	u2->rtt.has_sample = true;
	u2->rec->timed_out = true;
	assert_ptr_equal(retrans(b, WB_RETRANS_SNDBUF_FULL).uplink, &b->uplinks[0]);
	u2->rec->timed_out = false;
	u2->state = WB_UPLINK_STALE;
	assert_ptr_equal(retrans(b, WB_RETRANS_SNDBUF_FULL).uplink, &b->uplinks[0]);
	u2->state = WB_UPLINK_UP;
	/* Room for exactly one full packet is idle; a byte less is not. */
	u2->rec->bytes_in_flight = u2->cc.cwnd - full;
	assert_ptr_equal(retrans(b, WB_RETRANS_SNDBUF_FULL).uplink, u2);
	u2->rec->bytes_in_flight = u2->cc.cwnd - full + 1;
	assert_ptr_equal(retrans(b, WB_RETRANS_SNDBUF_FULL).uplink, &b->uplinks[0]);
}

/* No idle uplink: no decision, and none found (the snd_una is not used up). */
static void test_no_idle_uplink_no_reinjection(void **state)
{
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd - 100;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	assert_int_equal(d.from, 0);
	assert_false(d.idle_found);
}

/* A backup uplink is never the idle one, however fast and empty it is. */
static void test_a_backup_is_never_the_idle_uplink(void **state)
{
	struct wb_bond *b = reinjection_scene(true);
	struct wb_retrans_decision d;

	(void)state;
	assert_true(b->uplinks[2].backup);
	shape(b, 2, 1 * MS, 100000000, 10000000, 0);
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_copies(&d, &b->uplinks[0], 0x2, 450000);
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd;
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	assert_false(d.idle_found);
	/* Not even when it is all that is left, the others gone with data in flight. */
	b->uplinks[0].state = b->uplinks[1].state = WB_UPLINK_STALE;
	assert_int_equal(wb_sched_active(b), 0x4);
	d = retrans(b, WB_RETRANS_SNDBUF_FULL);
	assert_no_copies(&d);
	assert_false(d.idle_found);
}

/* Each reason has its switch, and WB_SCHED_RULE_REINJECT turns them all off; the bond timeout has none. */
static void test_each_reinjection_reason_has_its_switch(void **state)
{
	static const struct {
		enum wb_retrans_reason why;
		uint32_t off;
	} reasons[] = {
		{ WB_RETRANS_RWND_FULL, WB_SCHED_RULE_REINJECT_RWND },
		{ WB_RETRANS_SNDBUF_FULL, WB_SCHED_RULE_REINJECT_SNDBUF },
		{ WB_RETRANS_APP_LIMITED, WB_SCHED_RULE_REINJECT_APP_LIMITED },
	};
	struct wb_bond *b = reinjection_scene(false);
	struct wb_retrans_decision d;

	(void)state;
	d = retrans(b, WB_RETRANS_NONE); /* not blocked: nothing to decide */
	assert_no_copies(&d);
	assert_false(d.idle_found);
	for (size_t i = 0; i < 3; i++) {
		b->tuning.sched_off = reasons[i].off;
		for (size_t k = 0; k < 3; k++) {
			d = retrans(b, reasons[k].why);
			if (k == i) {
				assert_no_copies(&d);
				assert_false(d.idle_found);
			} else {
				assert_copies(&d, &b->uplinks[0], 0x2, 450000);
			}
		}
	}
	b->tuning.sched_off = WB_SCHED_RULE_REINJECT;
	for (size_t k = 0; k < 3; k++) {
		d = retrans(b, reasons[k].why);
		assert_no_copies(&d);
		assert_false(d.idle_found);
	}
	b->tuning.sched_off = 0x7f;
	d = retrans(b, WB_RETRANS_RTO);
	assert_non_null(d.uplink);
	assert_true(d.limit > 0);
}

/*
 * The bond's timeout: the lowest-RTT uplink that does not carry snd_una,
 * or the lowest-RTT one if all do; from any holder; at most a window and
 * at most 64 packets of the MTU.
 */
static void test_the_bond_timeout_picks_the_lowest_rtt_uplink_not_holding_snd_una(void **state)
{
	struct wb_bond *b = scene(3, false);
	struct wb_retrans_decision d;
	struct wb_sndbuf_entry *e;

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 1000000, 0);
	shape(b, 1, 100 * MS, 10000000, 1000000, 0);
	shape(b, 2, 50 * MS, 10000000, 1000000, 0);
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[0]); /* nothing outstanding */
	e = wb_sndbuf_get(&b->snd, push_dsn(b, 1000, 0x1));
	push_dsn(b, 1000, 0x4);
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[2]);
	d = retrans(b, WB_RETRANS_RTO);
	assert_ptr_equal(d.uplink, &b->uplinks[2]);
	assert_int_equal(d.from, 0);
	assert_int_equal(d.limit, 64ULL * b->tuning.mtu);
	b->uplinks[2].cc.cwnd = 50000;
	assert_int_equal(retrans(b, WB_RETRANS_RTO).limit, 50000);
	set_holders(b, e, 0x5);
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[1]);
	set_holders(b, e, 0x7);
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[0]);
	/* Nothing usable: none. */
	for (int i = 0; i < 3; i++)
		b->uplinks[i].state = WB_UPLINK_STALE;
	assert_null(wb_sched_rto_uplink(b));
	d = retrans(b, WB_RETRANS_RTO);
	assert_no_copies(&d);
}

/* The bond's timeout starts a walk from snd_una over every holder, counted as no opportunistic event. */
static void test_the_bond_timeout_starts_a_walk_from_snd_una(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 50000, 0);
	shape(b, 1, 100 * MS, 10000000, 1000000, 0);
	push_dsn(b, 1000, 0x2);
	push_dsn(b, 1000, 0x2);
	wb_sched_on_bond_timeout(b, p.now);
	assert_true(b->reinj.active);
	assert_int_equal(b->reinj.reason, WB_RETRANS_RTO);
	assert_int_equal(b->reinj.uplink, 0);
	assert_int_equal(b->reinj.from, 0);
	assert_int_equal(b->reinj.budget, 50000);
	assert_int_equal(b->reinj.next, b->snd.una);
	assert_int_equal(b->reinj.end, b->snd.nxt);
	assert_int_equal(b->c.opp_reinject_events, 0);
}

/* A policy without get_retrans: the bond's timeout resends a window's worth on the lowest-RTT uplink. */
static void test_the_bond_timeout_without_get_retrans_resends_a_window(void **state)
{
	struct wb_bond *b = scene(2, false);

	(void)state;
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", 0), 0);
	shape(b, 0, 100 * MS, 10000000, 1000000, 0);
	shape(b, 1, 10 * MS, 10000000, 70000, 0);
	push_dsn(b, 1000, 0x1);
	wb_sched_on_bond_timeout(b, p.now);
	assert_true(b->reinj.active);
	assert_int_equal(b->reinj.reason, WB_RETRANS_RTO);
	assert_int_equal(b->reinj.uplink, 1);
	assert_int_equal(b->reinj.from, 0);
	assert_int_equal(b->reinj.budget, 70000);
}

/* ---- 8. once per snd_una ------------------------------------------------------------ */

/* The reinjection scene with three more DSNs uplink 1 holds and nothing more to send (application limited). */
static struct wb_bond *held_up_scene(void)
{
	struct wb_bond *b = reinjection_scene(false);

	for (int k = 0; k < 3; k++)
		push_dsn(b, 1000, 0x2);
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_APP_LIMITED);
	return b;
}

static void test_a_bond_ack_starts_copies_once_per_snd_una(void **state)
{
	struct wb_bond *b = held_up_scene();
	uint64_t una = b->snd.una;

	(void)state;
	assert_int_not_equal(b->oppr_una, una);
	assert_true(wb_sched_on_bond_ack(b, p.now));
	assert_true(b->reinj.active);
	assert_int_equal(b->reinj.reason, WB_RETRANS_APP_LIMITED);
	assert_int_equal(b->reinj.uplink, 0);
	assert_int_equal(b->reinj.from, 0x2);
	assert_int_equal(b->reinj.budget, 450000);
	assert_int_equal(b->oppr_una, una);
	assert_int_equal(b->c.opp_reinject_events, 1);
	/* None while the copies still go out. */
	assert_false(wb_sched_on_bond_ack(b, p.now));
	/* The walk over: still none at the same snd_una. */
	b->reinj.active = false;
	assert_false(wb_sched_on_bond_ack(b, p.now + MS));
	assert_false(b->reinj.active);
	assert_int_equal(b->c.opp_reinject_events, 1);
	/* snd_una moves: a new check. */
	set_holders(b, wb_sndbuf_get(&b->snd, una), 0); /* as a bond ack does before freeing */
	assert_int_equal(wb_sndbuf_ack_cum(&b->snd, una + 1, &b->pool), 1);
	assert_true(wb_sched_on_bond_ack(b, p.now + 2 * MS));
	assert_int_equal(b->oppr_una, una + 1);
	assert_int_equal(b->c.opp_reinject_events, 2);
}

/* A check that met no idle uplink does not use up the snd_una: the next bond ack checks again. */
static void test_a_check_without_an_idle_uplink_does_not_use_up_snd_una(void **state)
{
	struct wb_bond *b = held_up_scene();
	uint64_t before = b->oppr_una;

	(void)state;
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd;
	assert_false(wb_sched_on_bond_ack(b, p.now));
	assert_int_equal(b->oppr_una, before);
	assert_int_equal(b->c.opp_reinject_events, 0);
	b->uplinks[0].rec->bytes_in_flight = 0;
	assert_true(wb_sched_on_bond_ack(b, p.now));
	assert_int_equal(b->c.opp_reinject_events, 1);
}

/* A check that met an idle uplink and refused is final for that snd_una, even if a holder turns slow. */
static void test_a_refusal_with_an_idle_uplink_is_final_for_that_snd_una(void **state)
{
	struct wb_bond *b = held_up_scene();

	(void)state;
	b->uplinks[1].rtt.srtt_ns = 20 * MS; /* not worth copying */
	assert_false(wb_sched_on_bond_ack(b, p.now));
	assert_int_equal(b->oppr_una, b->snd.una);
	b->uplinks[1].rtt.srtt_ns = 100 * MS;
	assert_false(wb_sched_on_bond_ack(b, p.now));
	assert_false(b->reinj.active);
	set_holders(b, wb_sndbuf_get(&b->snd, b->snd.una), 0); /* as a bond ack does before freeing */
	wb_sndbuf_ack_cum(&b->snd, b->snd.una + 1, &b->pool);
	assert_true(wb_sched_on_bond_ack(b, p.now));
}

/* While the bond timeout's copies go out, a bond ack starts no other walk. */
static void test_no_check_while_a_walk_goes_on(void **state)
{
	struct wb_bond *b = held_up_scene();

	(void)state;
	wb_sched_on_bond_timeout(b, p.now);
	assert_true(b->reinj.active);
	assert_false(wb_sched_on_bond_ack(b, p.now));
	assert_int_equal(b->reinj.reason, WB_RETRANS_RTO);
	assert_int_not_equal(b->oppr_una, b->snd.una);
	assert_int_equal(b->c.opp_reinject_events, 0);
	b->reinj.active = false;
	assert_true(wb_sched_on_bond_ack(b, p.now));
	assert_int_equal(b->reinj.reason, WB_RETRANS_APP_LIMITED);
}

/* Nothing blocked, or a policy without the check: a bond ack starts nothing. */
static void test_no_check_when_not_blocked_or_without_get_retrans(void **state)
{
	struct wb_bond *b = reinjection_scene(false);

	(void)state;
	queue_packet(b, 1000);
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_NONE);
	assert_false(wb_sched_on_bond_ack(b, p.now));
	b->peer_rwnd = 1000; /* blocked now */
	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", 0), 0);
	assert_false(wb_sched_on_bond_ack(b, p.now));
	assert_false(b->reinj.active);
	assert_int_equal(wb_bond_set_scheduler(b, "default", 0), 0);
	assert_true(wb_sched_on_bond_ack(b, p.now));
	assert_int_equal(b->reinj.reason, WB_RETRANS_RWND_FULL);
}

/* ---- 9. the walk, with real packets ------------------------------------------------------ */

/*
 * Three uplinks, nine IP packets (ids 1..9, L bytes) sent round robin and
 * not yet delivered: DSN k is held by uplink k mod 3. The policy is then
 * default again.
 */
static struct wb_bond *walk_scene(void)
{
	struct wb_bond *b = established_up(&(struct pair_options){ .n_uplinks = 3 });

	assert_int_equal(wb_bond_set_scheduler(b, "roundrobin", 0), 0);
	for (uint64_t id = 1; id <= 9; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
	/* The arrival rule off: new packets go to whichever uplink can send, as the walks below need. */
	assert_int_equal(wb_bond_set_scheduler(b, "default", WB_SCHED_RULE_ARRIVAL), 0);
	assert_int_equal(b->snd.nxt - b->snd.una, 9);
	for (uint64_t d = 0; d < 9; d++)
		assert_int_equal(wb_sndbuf_get(&b->snd, b->snd.una + d)->holders, 1u << (d % 3));
	return b;
}

/*
 * Copies what d says, through wb_reinject_send_one until the walk ends
 * (virtual time runs a millisecond whenever pacing holds it back). Returns
 * how many went out, their DSNs (relative to snd_una) in dsns.
 */
static size_t walk(struct wb_bond *b, int to, uint16_t from, uint64_t limit, enum wb_retrans_reason why,
		   uint64_t *dsns, size_t max)
{
	struct wb_retrans_decision d = { .uplink = &b->uplinks[to], .from = from, .limit = limit };
	size_t n = 0;

	wb_reinject_start(b, &d, why);
	for (int spins = 0; b->reinj.active; spins++) {
		assert_true(spins < 1000);
		if (wb_reinject_send_one(b, p.now)) {
			assert_true(n < max);
			dsns[n++] = b->reinj.next - 1 - b->snd.una;
		} else if (b->reinj.active) {
			p.now += MS;
		}
	}
	return n;
}

static void assert_dsns(const uint64_t *got, size_t n, const uint64_t *want, size_t m)
{
	assert_int_equal(n, m);
	for (size_t i = 0; i < m; i++)
		assert_int_equal(got[i], want[i]);
}

/* The DSNs (relative to base) of the data messages sent on u from packet number pn0 on, in order. */
static size_t dsns_sent_on(const struct wb_uplink *u, uint64_t pn0, uint64_t base, uint64_t *out, size_t max)
{
	size_t n = 0;

	for (uint64_t pn = pn0 > u->rec->base ? pn0 : u->rec->base; pn < u->rec->next_pn; pn++) {
		const struct wb_sent *s = &u->rec->ring[pn % u->rec->cap];

		assert_int_equal(s->pn, pn);
		if (s->dsn == WB_NO_DSN)
			continue;
		assert_true(n < max);
		out[n++] = s->dsn - base;
	}
	return n;
}

/* After the copies, everything arrives: each packet delivered once, in order, every copy a duplicate. */
static void assert_delivered_once_with_copies(struct wb_bond *b, size_t n, uint64_t copies)
{
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, n);
	assert_int_equal(b->c.retransmits, 0);
	assert_int_equal(b->c.opp_reinject, copies); /* no copies other than the test's */
	assert_int_equal(p.server.bond->c.rx_duplicates, copies);
	assert_int_equal(p.server.bond->c.reorder_skips, 0);
}

/* Copies go on the chosen uplink only, of the DSNs the holders in from carry, lowest first. */
static void test_walk_copies_what_holders_in_from_carry_lowest_first(void **state)
{
	struct wb_bond *b = walk_scene();
	const uint64_t want[] = { 1, 4, 7 };
	uint64_t got[16], on0[16], pn0 = b->uplinks[0].rec->next_pn, base = b->snd.una;
	size_t n;

	(void)state;
	n = walk(b, 0, 0x2, 100 * L, WB_RETRANS_APP_LIMITED, got, 16);
	assert_dsns(got, n, want, 3);
	assert_dsns(on0, dsns_sent_on(&b->uplinks[0], pn0, base, on0, 16), want, 3);
	for (uint64_t d = 0; d < 9; d++) {
		const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, base + d);

		assert_int_equal(e->holders, (1u << (d % 3)) | (d % 3 == 1 ? 0x1 : 0));
		assert_int_equal(e->sends, d % 3 == 1 ? 2 : 1);
	}
	assert_int_equal(b->uplinks[0].c.reinjected, 3);
	assert_int_equal(b->uplinks[1].c.reinjected + b->uplinks[2].c.reinjected, 0);
	assert_int_equal(b->c.opp_reinject, 3);
	assert_int_equal(b->c.opp_reinject_bytes, 3 * L);
	assert_int_equal(b->c.opp_reinject_events, 1);
	assert_int_equal(b->c.retransmits, 0);
	assert_delivered_once_with_copies(b, 9, 3);
}

/* A DSN two holders in from carry is copied once: the holders' DSNs merge into one walk. */
static void test_walk_copies_a_dsn_two_holders_carry_once(void **state)
{
	struct wb_bond *b = walk_scene();
	const uint64_t first[] = { 1, 4, 7 }, second[] = { 1, 2, 4, 5, 7, 8 };
	uint64_t got[16];

	(void)state;
	assert_dsns(got, walk(b, 2, 0x2, 100 * L, WB_RETRANS_SNDBUF_FULL, got, 16), first, 3);
	assert_int_equal(wb_sndbuf_get(&b->snd, b->snd.una + 4)->holders, 0x6);
	assert_dsns(got, walk(b, 0, 0x6, 100 * L, WB_RETRANS_SNDBUF_FULL, got, 16), second, 6);
	assert_int_equal(b->uplinks[2].c.reinjected, 3);
	assert_int_equal(b->uplinks[0].c.reinjected, 6);
	assert_int_equal(b->c.opp_reinject_bytes, 9 * L);
	assert_delivered_once_with_copies(b, 9, 9);
}

/* Never a DSN already delivered, nor one the chosen uplink already holds. */
static void test_walk_skips_delivered_dsns_and_those_its_uplink_holds(void **state)
{
	struct wb_bond *b = walk_scene();
	const uint64_t want[] = { 1, 2, 5, 7, 8 };
	uint64_t got[16];

	(void)state;
	wb_sndbuf_mark_delivered(&b->snd, b->snd.una + 4); /* as a SACK says */
	assert_dsns(got, walk(b, 0, 0x7, 100 * L, WB_RETRANS_RWND_FULL, got, 16), want, 5);
	assert_int_equal(wb_sndbuf_get(&b->snd, b->snd.una + 4)->sends, 1);
	assert_delivered_once_with_copies(b, 9, 5);
}

/* The limit is exact: k packets' bytes send k; a byte less sends k - 1, and the walk ends there. */
static void test_walk_limit_is_exact_in_bytes(void **state)
{
	struct wb_bond *b = walk_scene();
	const uint64_t first[] = { 1, 2, 4 }, second[] = { 5, 7 };
	uint64_t got[16];

	(void)state;
	assert_dsns(got, walk(b, 0, 0x6, 3 * L, WB_RETRANS_APP_LIMITED, got, 16), first, 3);
	assert_int_equal(b->reinj.budget, 0);
	assert_int_equal(b->c.opp_reinject_bytes, 3 * L);
	/* The second walk skips what uplink 0 now holds. */
	assert_dsns(got, walk(b, 0, 0x6, 3 * L - 1, WB_RETRANS_APP_LIMITED, got, 16), second, 2);
	assert_int_equal(b->reinj.budget, L - 1);
	assert_int_equal(b->c.opp_reinject_bytes, 5 * L);
	assert_int_equal(b->uplinks[0].c.reinjected, 5);
	assert_int_equal(wb_sndbuf_get(&b->snd, b->snd.una + 8)->sends, 1);
	/* Less than one packet: none. */
	assert_int_equal(walk(b, 0, 0x6, L - 1, WB_RETRANS_APP_LIMITED, got, 16), 0);
	assert_int_equal(b->c.opp_reinject, 5);
	assert_int_equal(b->c.opp_reinject_events, 3);
	assert_delivered_once_with_copies(b, 9, 5);
}

/*
 * Through wb_bond_push: the copies go before the new packets, and the walk
 * stops at snd_nxt of the decision (new DSNs are not copied).
 */
static void test_walk_goes_before_new_data_and_stops_at_the_decision(void **state)
{
	struct wb_bond *b = walk_scene();
	struct wb_retrans_decision d = { .uplink = &b->uplinks[0], .from = 0x6, .limit = 100 * L };
	const uint64_t want[] = { 1, 2, 4, 5, 7, 8 };
	uint64_t on0[32], pn0 = b->uplinks[0].rec->next_pn, base = b->snd.una;
	size_t n;

	(void)state;
	wb_reinject_start(b, &d, WB_RETRANS_SNDBUF_FULL);
	for (uint64_t id = 10; id <= 12; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
	assert_false(b->reinj.active);
	assert_int_equal(b->snd.nxt - base, 12);
	n = dsns_sent_on(&b->uplinks[0], pn0, base, on0, 32);
	assert_true(n >= 6);
	assert_dsns(on0, 6, want, 6);
	for (size_t i = 6; i < n; i++)
		assert_true(on0[i] >= 9);
	for (uint64_t dsn = 9; dsn < 12; dsn++)
		assert_int_equal(wb_sndbuf_get(&b->snd, base + dsn)->sends, 1);
	assert_int_equal(b->c.opp_reinject, 6);
	assert_delivered_once_with_copies(b, 12, 6);
}

/*
 * Copies wait for their uplink's pacing; meanwhile new packets go on the
 * other uplinks, held by the very uplinks the walk copies from. The walk
 * still stops at snd_nxt of the decision.
 */
static void test_walk_stops_at_snd_nxt_of_the_decision(void **state)
{
	struct wb_bond *b = walk_scene();
	struct wb_retrans_decision d = { .uplink = &b->uplinks[0], .from = 0x6, .limit = 100 * L };
	const uint64_t want[] = { 1, 2, 4, 5, 7, 8 };
	uint64_t on0[32], pn0 = b->uplinks[0].rec->next_pn, base = b->snd.una;

	(void)state;
	wb_reinject_start(b, &d, WB_RETRANS_APP_LIMITED);
	b->uplinks[0].next_send_ns = p.now + MS; /* uplink 0 may send again in a millisecond */
	for (uint64_t id = 10; id <= 12; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
	assert_true(b->reinj.active);
	assert_int_equal(b->c.opp_reinject, 0);
	for (uint64_t dsn = 9; dsn < 12; dsn++) {
		const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, base + dsn);

		assert_int_equal(e->sends, 1);
		assert_true(e->holders == 0x2 || e->holders == 0x4);
	}
	for (int ms = 0; ms < 10 && b->reinj.active; ms++) {
		p.now += MS;
		wb_bond_push(b, p.now); /* as the pacing timer would */
	}
	assert_false(b->reinj.active);
	assert_dsns(on0, dsns_sent_on(&b->uplinks[0], pn0, base, on0, 32), want, 6);
	for (uint64_t dsn = 9; dsn < 12; dsn++)
		assert_int_equal(wb_sndbuf_get(&b->snd, base + dsn)->sends, 1);
	assert_delivered_once_with_copies(b, 12, 6);
}

/* The timeout's walk (from 0: any holder) resends, counted as retransmits, not as reinjection. */
static void test_timeout_walk_resends_any_undelivered_dsn(void **state)
{
	struct wb_bond *b = walk_scene();
	const uint64_t want[] = { 1, 2, 4, 5, 7, 8 };
	uint64_t got[16];

	(void)state;
	assert_dsns(got, walk(b, 0, 0, 100 * L, WB_RETRANS_RTO, got, 16), want, 6);
	assert_int_equal(b->c.retransmits, 6);
	assert_int_equal(b->c.retransmit_bytes, 6 * L);
	assert_int_equal(b->uplinks[0].c.retransmits, 6);
	assert_int_equal(b->c.opp_reinject, 0);
	assert_int_equal(b->c.opp_reinject_events, 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 9);
	assert_int_equal(p.server.bond->c.rx_duplicates, 6);
}

/*
 * After the bond's timeout snd_una goes again even if an uplink saw it
 * arrive (the bond ack that should have followed may be lost); any other
 * delivered DSN does not, and an opportunistic walk never sends one.
 */
static void test_timeout_walk_resends_snd_una_even_if_seen_delivered(void **state)
{
	struct wb_bond *b = walk_scene();
	const uint64_t opportunistic[] = { 6 }, timeout[] = { 0, 2, 5, 8 };
	uint64_t got[16];

	(void)state;
	wb_sndbuf_mark_delivered(&b->snd, b->snd.una);
	wb_sndbuf_mark_delivered(&b->snd, b->snd.una + 3);
	assert_dsns(got, walk(b, 1, 0x1, 100 * L, WB_RETRANS_APP_LIMITED, got, 16), opportunistic, 1);
	assert_dsns(got, walk(b, 1, 0, 100 * L, WB_RETRANS_RTO, got, 16), timeout, 4);
	assert_int_equal(b->uplinks[1].c.reinjected, 1);
	assert_int_equal(b->uplinks[1].c.retransmits, 4);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 9);
	assert_int_equal(p.server.bond->c.rx_duplicates, 5);
}

/* The walk ends when its uplink is no longer usable. */
static void test_walk_ends_when_its_uplink_goes(void **state)
{
	struct wb_bond *b = walk_scene();
	struct wb_retrans_decision d = { .uplink = &b->uplinks[0], .from = 0x6, .limit = 100 * L };

	(void)state;
	wb_reinject_start(b, &d, WB_RETRANS_APP_LIMITED);
	assert_true(wb_reinject_send_one(b, p.now));
	b->uplinks[0].state = WB_UPLINK_STALE;
	assert_false(wb_reinject_send_one(b, p.now));
	assert_false(b->reinj.active);
	b->uplinks[0].state = WB_UPLINK_UP;
	assert_false(wb_reinject_send_one(b, p.now));
	assert_int_equal(b->c.opp_reinject, 1);
	assert_delivered_once_with_copies(b, 9, 1);
}

/*
 * An uplink that carries no DSN has nothing to copy: no walk starts for
 * it, and no event is counted ("times an idle uplink was given copies",
 * docs/scheduler.md). Uplink 1 is slow (200 ms RTT) and takes no data at
 * all (uplink 0 delivers everything sooner), only its probes; packets go
 * one at a time, so the bond is application limited on every bond ack.
 * (Holding is counted in DSNs, not bytes in flight: those include probes.)
 */
static void test_no_reinjection_event_for_an_uplink_that_holds_no_dsn(void **state)
{
	struct wb_bond *b = established_up(&(struct pair_options){ 0 });

	(void)state;
	p.delay_ns[1] = 100 * MS;
	pair_run_until(&p, p.now + 2 * SEC);
	for (uint64_t id = 1; id <= 200; id++) {
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
		pair_run_until(&p, p.now + 5 * MS);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 200);
	assert_int_equal(b->uplinks[1].c.data_packets + b->uplinks[1].c.retransmits, 0);
	assert_int_equal(b->c.opp_reinject, 0);
	assert_int_equal(b->c.opp_reinject_events, 0);
}

/*
 * Measure copies (the measure rule): uplink 0 near and its rate measured,
 * uplink 1 100 ms further each way, beyond the delay allowance, its rate
 * not known, so the arrival rule gives it nothing. While new packets wait
 * for uplink 0, uplink 1 gets copies of what uplink 0 holds, to measure
 * itself. An operator tells them apart from opportunistic reinjection
 * (what a slow or gone uplink held, given to an idle one): they are
 * counted as measure copies only, on the bond and on uplink 1.
 */
static void test_measure_copies_are_counted_apart_from_reinjection(void **state)
{
	struct wb_bond *b = established_up(&(struct pair_options){ 0 });
	struct wb_uplink *near = &b->uplinks[0], *far = &b->uplinks[1];

	(void)state;
	p.delay_ns[0] = 5 * MS;
	p.delay_ns[1] = 105 * MS;
	pair_run_until(&p, p.now + 2 * SEC); /* the probes give each its RTT */
	near->cc.bbr.filled_pipe = true;     /* measured: its startup ends on its next ack */
	assert_true(wb_sched_rate_known(near));
	assert_false(wb_sched_rate_known(far));
	assert_true(wb_sched_delay_gap_ns(b, far) > wb_sched_delay_allowance_ns(b));
	for (uint64_t id = 1; id <= 100; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_delivered_in_order(&p.server, 100);
	assert_true(b->c.measure_copies > 0);
	assert_int_equal(b->c.measure_copy_bytes, b->c.measure_copies * L);
	assert_int_equal(far->c.measure_copies, b->c.measure_copies);
	assert_int_equal(near->c.measure_copies, 0);
	/* Not opportunistic reinjection. */
	assert_int_equal(b->c.opp_reinject, 0);
	assert_int_equal(b->c.opp_reinject_bytes, 0);
	assert_int_equal(b->c.opp_reinject_events, 0);
	assert_int_equal(near->c.reinjected + far->c.reinjected, 0);
	/* Nothing lost: every copy arrives after its original (settled before the slow copies came), a duplicate. */
	pair_run_until(&p, p.now + 1 * SEC);
	assert_int_equal(b->c.retransmits, 0);
	assert_int_equal(p.server.bond->c.rx_duplicates, b->c.measure_copies);
}

/* ---- 10. the penalty ---------------------------------------------------------------- */

/*
 * Uplink 1 slow (100 ms) holds snd_una with its window (40 packets) full;
 * uplink 0 is faster (10 ms).
 */
static struct wb_bond *penalty_scene(void)
{
	struct wb_bond *b = scene(2, false);
	uint64_t mss = b->uplinks[1].cc.mss;

	shape(b, 0, 10 * MS, 10000000, 1000000, 0);
	shape(b, 1, 100 * MS, 1000000, 40 * mss, 40 * mss);
	push_dsn(b, 1000, 0x2);
	return b;
}

static void test_penalty_halves_the_slow_window_limited_holder_of_snd_una(void **state)
{
	struct wb_bond *b = penalty_scene();
	struct wb_uplink *u = &b->uplinks[1];
	uint64_t mss = u->cc.mss;

	(void)state;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(u->cc.cwnd, 20 * mss);
	assert_int_equal(u->c.penalties, 1);
	assert_int_equal(b->c.penalised, 1);
	assert_int_equal(b->uplinks[0].cc.cwnd, 1000000);
	assert_int_equal(b->uplinks[0].c.penalties, 0);
}

/* At most once per the uplink's RTT. */
static void test_penalty_at_most_once_per_srtt(void **state)
{
	struct wb_bond *b = penalty_scene();
	struct wb_uplink *u = &b->uplinks[1];
	uint64_t mss = u->cc.mss, t0 = p.now;

	(void)state;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, t0);
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, t0 + 100 * MS - 1);
	assert_int_equal(u->cc.cwnd, 20 * mss);
	assert_int_equal(b->c.penalised, 1);
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, t0 + 100 * MS);
	assert_int_equal(u->cc.cwnd, 10 * mss);
	assert_int_equal(b->c.penalised, 2);
	assert_int_equal(u->c.penalties, 2);
}

/* Never below four packets. */
static void test_penalty_never_below_four_packets(void **state)
{
	struct wb_bond *b = penalty_scene();
	struct wb_uplink *u = &b->uplinks[1];
	uint64_t mss = u->cc.mss;

	(void)state;
	u->cc.cwnd = u->rec->bytes_in_flight = 5 * mss;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(u->cc.cwnd, 4 * mss);
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now + SEC);
	assert_int_equal(u->cc.cwnd, 4 * mss);
}

/* Not window-limited (room for one more packet): halving would change nothing now. */
static void test_no_penalty_when_not_window_limited(void **state)
{
	struct wb_bond *b = penalty_scene();
	struct wb_uplink *u = &b->uplinks[1];
	uint64_t mss = u->cc.mss;

	(void)state;
	u->rec->bytes_in_flight = 39 * mss; /* exactly one packet of room */
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(u->cc.cwnd, 40 * mss);
	assert_int_equal(b->c.penalised, 0);
	u->rec->bytes_in_flight = 39 * mss + 1;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(u->cc.cwnd, 20 * mss);
}

/* Not the fastest holder, nor one no slower than the fastest, nor a gone one, nor for a delivered snd_una. */
static void test_no_penalty_for_a_holder_that_is_not_slower(void **state)
{
	struct wb_bond *b = penalty_scene();
	struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, b->snd.una);
	struct wb_uplink *u = &b->uplinks[1];

	(void)state;
	set_holders(b, e, 0x1);
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(b->c.penalised, 0);
	set_holders(b, e, 0x2);
	u->rtt.srtt_ns = 10 * MS;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(b->c.penalised, 0);
	u->rtt.srtt_ns = 100 * MS;
	u->state = WB_UPLINK_STALE;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(b->c.penalised, 0);
	u->state = WB_UPLINK_UP;
	e->flags |= WB_SND_DELIVERED;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(b->c.penalised, 0);
	e->flags &= (uint8_t)~WB_SND_DELIVERED;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	assert_int_equal(b->c.penalised, 1);
}

/* The guard: no penalty while the peer's window is what limits; with the guard off, yes. */
static void test_penalty_guard_spares_a_full_receive_window(void **state)
{
	struct wb_bond *b = penalty_scene();
	uint64_t mss = b->uplinks[1].cc.mss;

	(void)state;
	wb_sched_default.on_blocked(b, WB_RETRANS_RWND_FULL, p.now);
	assert_int_equal(b->uplinks[1].cc.cwnd, 40 * mss);
	assert_int_equal(b->c.penalised, 0);
	b->tuning.sched_off = WB_SCHED_RULE_PENALISE_GUARD;
	wb_sched_default.on_blocked(b, WB_RETRANS_RWND_FULL, p.now);
	assert_int_equal(b->uplinks[1].cc.cwnd, 20 * mss);
	assert_int_equal(b->c.penalised, 1);
}

/* With the rule off, never; nor when the bond is only application limited. */
static void test_no_penalty_when_switched_off_or_app_limited(void **state)
{
	struct wb_bond *b = penalty_scene();
	uint64_t mss = b->uplinks[1].cc.mss;

	(void)state;
	wb_sched_default.on_blocked(b, WB_RETRANS_APP_LIMITED, p.now);
	wb_sched_default.on_blocked(b, WB_RETRANS_NONE, p.now);
	wb_sched_default.on_blocked(b, WB_RETRANS_RTO, p.now);
	assert_int_equal(b->c.penalised, 0);
	b->tuning.sched_off = WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_PENALISE_GUARD;
	wb_sched_default.on_blocked(b, WB_RETRANS_SNDBUF_FULL, p.now);
	wb_sched_default.on_blocked(b, WB_RETRANS_RWND_FULL, p.now);
	assert_int_equal(b->uplinks[1].cc.cwnd, 40 * mss);
	assert_int_equal(b->c.penalised, 0);
	assert_int_equal(b->uplinks[1].c.penalties, 0);
}

/* A bond ack while the send buffer is full runs the penalty. */
static void test_a_bond_ack_while_blocked_penalises(void **state)
{
	struct wb_bond *b = penalty_scene();

	(void)state;
	queue_packet(b, 1000);
	b->tuning.send_buffer = 1500;
	assert_int_equal(wb_sched_blocked(b), WB_RETRANS_SNDBUF_FULL);
	wb_sched_on_bond_ack(b, p.now);
	assert_int_equal(b->c.penalised, 1);
	assert_int_equal(b->uplinks[1].c.penalties, 1);
}

/* ---- 11. redundant ------------------------------------------------------------------ */

/* Each new packet on both uplinks; the receiver delivers it once and counts the other copy. */
static void test_redundant_sends_each_packet_on_every_uplink(void **state)
{
	struct pair_options o = { 0 };
	struct wb_bond *b;

	(void)state;
	snprintf(o.tuning.scheduler, sizeof(o.tuning.scheduler), "redundant");
	b = established_up(&o);
	assert_ptr_equal(b->sched, &wb_sched_redundant);
	for (uint64_t id = 1; id <= 50; id++) {
		assert_int_equal(pair_send_ip(&p, &p.client, id, L), 0);
		pair_run_until(&p, p.now + 2 * MS);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 50);
	assert_int_equal(b->c.redundant_copies, 50);
	assert_int_equal(b->uplinks[0].c.data_packets + b->uplinks[1].c.data_packets, 50);
	assert_int_equal(b->uplinks[0].c.tx_ip_packets, 50);
	assert_int_equal(b->uplinks[1].c.tx_ip_packets, 50);
	assert_int_equal(b->c.retransmits, 0);
	assert_int_equal(p.server.bond->c.rx_duplicates, 50);
}

/* ---- 12. the backup rests ------------------------------------------------------------- */

/*
 * A resend goes where it arrives first, the uplinks that lost it counted
 * one of their RTTs late, and never on a backup while another is usable.
 */
static void test_resends_never_go_on_a_backup_while_another_is_usable(void **state)
{
	struct wb_bond *b = scene(3, true);
	uint16_t reserved;

	(void)state;
	shape(b, 0, 10 * MS, 10000000, 100000, 0);
	shape(b, 1, 50 * MS, 1000000, 100000, 0);
	shape(b, 2, 1 * MS, 100000000, 1000000, 0);
	/* Lost on uplink 0: on it again, since even an RTT late it arrives 10 ms before uplink 1 would. */
	assert_ptr_equal(wb_sched_pick_resend(b, 1000, p.now, 0x1, &reserved), &b->uplinks[0]);
	assert_int_equal(reserved, 0);
	/* An uplink 1 alike: the one that did not lose it. */
	shape(b, 1, 12 * MS, 10000000, 100000, 0);
	assert_ptr_equal(wb_sched_pick_resend(b, 1000, p.now, 0x1, &reserved), &b->uplinks[1]);
	/* Lost on both: the first to arrive again, not the backup. */
	assert_ptr_equal(wb_sched_pick_resend(b, 1000, p.now, 0x3, &reserved), &b->uplinks[0]);
	/* Uplink 1 cannot send for a millisecond, and still arrives first: the resend waits for it, new data keeps off it. */
	b->uplinks[1].next_send_ns = p.now + MS;
	assert_null(wb_sched_pick_resend(b, 1000, p.now, 0x1, &reserved));
	assert_int_equal(reserved, 0x2);
	/* Lost on both, uplink 0's window full: it still arrives first (its acks free room within 0.1 ms); it waits for it. */
	b->uplinks[0].rec->bytes_in_flight = b->uplinks[0].cc.cwnd;
	assert_null(wb_sched_pick_resend(b, 1000, p.now, 0x3, &reserved));
	assert_int_equal(reserved, 0x1);
	/* One that timed out is passed over while another can take it. */
	b->uplinks[1].rec->timed_out = true;
	assert_null(wb_sched_pick_resend(b, 1000, p.now, 0x1, &reserved));
	assert_int_equal(reserved, 0x1);
}

/* The bond's timeout does not take the backup either, even when only it lacks snd_una. */
static void test_the_bond_timeout_never_picks_a_backup_while_another_is_usable(void **state)
{
	struct wb_bond *b = scene(3, true);
	struct wb_retrans_decision d;

	(void)state;
	shape(b, 0, 20 * MS, 10000000, 100000, 0);
	shape(b, 1, 10 * MS, 10000000, 100000, 0);
	shape(b, 2, 1 * MS, 100000000, 1000000, 0);
	push_dsn(b, 1000, 0x3);
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[1]);
	d = retrans(b, WB_RETRANS_RTO);
	assert_ptr_equal(d.uplink, &b->uplinks[1]);
	/* The others gone: the backup then. */
	b->uplinks[0].state = b->uplinks[1].state = WB_UPLINK_STALE;
	assert_ptr_equal(wb_sched_rto_uplink(b), &b->uplinks[2]);
}

/* A filter that loses every n-th data message the client sends on uplink 0. */
struct lossy {
	unsigned every, seen, dropped;
};

/* The filter: counts the client's data messages on uplink 0 and loses every n-th. */
static bool drop_some_on_uplink_0(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d,
				  void *arg)
{
	struct lossy *l = arg;

	(void)pp;
	if (from->is_server || pair_datagram_uplink(d) != 0 || d->len < 500)
		return false;
	if (++l->seen % l->every)
		return false;
	l->dropped++;
	return true;
}

/*
 * Real traffic with a lossy fast uplink and a slow one (so resends and
 * copies happen) and a backup that is up: the backup carries no packet of
 * any kind, and the receiver gets everything in order.
 */
static void test_the_backup_carries_nothing_under_loss_and_reinjection(void **state)
{
	struct wb_bond *b = established_up(&(struct pair_options){ .n_uplinks = 3, .backup_last = true });
	struct lossy l = { .every = 25 };

	(void)state;
	p.delay_ns[1] = 40 * MS;
	pair_run_until(&p, p.now + 1 * SEC);
	p.filter = drop_some_on_uplink_0;
	p.filter_arg = &l;
	for (uint64_t id = 1; id <= 2000; id++) {
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, L), 0);
		if (id % 100 == 0)
			pair_run_until(&p, p.now + 30 * MS); /* pauses: application limited */
	}
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_delivered_in_order(&p.server, 2000);
	assert_true(l.dropped > 0);
	assert_true(b->c.retransmits > 0);
	assert_true(b->c.opp_reinject > 0);
	assert_int_equal(b->uplinks[2].state, WB_UPLINK_UP);
	assert_int_equal(b->uplinks[2].c.data_packets, 0);
	assert_int_equal(b->uplinks[2].c.retransmits, 0);
	assert_int_equal(b->uplinks[2].c.reinjected, 0);
	assert_int_equal(b->uplinks[2].c.tx_ip_packets, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_four_policies_are_found_by_name),
		cmocka_unit_test_teardown(test_set_scheduler_refuses_an_unknown_name_and_changes_nothing, teardown),
		cmocka_unit_test_teardown(test_a_bond_with_an_unknown_scheduler_is_refused, teardown),
		cmocka_unit_test_teardown(test_a_tun_mtu_beyond_what_udp_carries_is_refused, teardown),
		cmocka_unit_test(test_rule_names_map_to_flags_and_back),
		cmocka_unit_test_teardown(test_a_rule_is_on_unless_switched_off, teardown),

		cmocka_unit_test_teardown(test_completion_time_is_queue_over_rate_plus_half_rtt, teardown),
		cmocka_unit_test_teardown(test_default_picks_the_lowest_completion_time, teardown),
		cmocka_unit_test_teardown(test_default_shares_by_weight_between_uplinks_alike, teardown),
		cmocka_unit_test_teardown(test_default_weight_does_not_pull_traffic_onto_a_slower_uplink, teardown),
		cmocka_unit_test_teardown(test_default_weights_split_real_packets, teardown),
		cmocka_unit_test_teardown(test_arrival_counts_pacing_window_queue_and_half_the_rtt, teardown),
		cmocka_unit_test_teardown(test_arrival_counts_a_probing_pace, teardown),
		cmocka_unit_test_teardown(test_arrival_waits_for_the_fast_uplink_unless_the_queue_is_long, teardown),
		cmocka_unit_test_teardown(test_arrival_lets_a_worthwhile_uplink_deliver_within_the_spread, teardown),
		cmocka_unit_test_teardown(test_arrival_feeds_an_uplink_still_in_startup, teardown),
		cmocka_unit_test_teardown(test_arrival_spreads_over_equal_uplinks, teardown),
		cmocka_unit_test_teardown(test_queue_target_grows_with_the_delay_spread, teardown),
		cmocka_unit_test_teardown(test_default_skips_an_uplink_with_a_full_window, teardown),
		cmocka_unit_test_teardown(test_default_passes_over_an_uplink_not_yet_due_by_pacing, teardown),
		cmocka_unit_test_teardown(test_default_keeps_off_the_uplinks_in_avoid, teardown),
		cmocka_unit_test_teardown(test_default_uses_a_backup_only_when_no_other_is_usable, teardown),
		cmocka_unit_test_teardown(test_a_packet_keeps_off_an_uplink_whose_path_is_too_small, teardown),
		cmocka_unit_test_teardown(test_a_packet_too_big_for_every_path_is_dropped, teardown),
		cmocka_unit_test_teardown(test_pacing_is_never_slower_than_the_minimum_window_per_rtt, teardown),
		cmocka_unit_test_teardown(test_a_resend_too_big_for_every_path_is_given_up, teardown),

		cmocka_unit_test_teardown(test_avoid_blocking_waits_for_the_fast_uplink_when_the_peer_window_is_short,
					  teardown),
		cmocka_unit_test_teardown(test_avoid_blocking_counts_our_send_buffer_as_the_window_when_smaller,
					  teardown),
		cmocka_unit_test_teardown(test_avoid_blocking_counts_what_is_outstanding, teardown),
		cmocka_unit_test_teardown(test_avoid_blocking_counts_the_fast_uplinks_queue, teardown),
		cmocka_unit_test_teardown(test_avoid_blocking_off_sends_on_the_slow_uplink, teardown),
		cmocka_unit_test_teardown(test_avoid_blocking_does_not_wait_for_a_timed_out_or_later_uplink, teardown),
		cmocka_unit_test_teardown(test_avoid_blocking_waits_when_the_fast_uplink_drains_the_backlog_first,
					  teardown),

		cmocka_unit_test_teardown(test_roundrobin_rotates_one_packet_each, teardown),
		cmocka_unit_test_teardown(test_roundrobin_passes_over_an_uplink_that_cannot_send, teardown),
		cmocka_unit_test_teardown(test_roundrobin_spreads_real_packets_in_turn, teardown),

		cmocka_unit_test_teardown(test_first_uses_only_the_first_usable_uplink, teardown),
		cmocka_unit_test_teardown(test_first_fails_over_in_order_and_to_the_backup_last, teardown),
		cmocka_unit_test_teardown(test_first_sends_real_packets_on_one_uplink, teardown),

		cmocka_unit_test_teardown(test_blocked_none_when_nothing_is_outstanding, teardown),
		cmocka_unit_test_teardown(test_blocked_app_limited_when_the_queue_is_empty, teardown),
		cmocka_unit_test_teardown(test_blocked_rwnd_full_when_the_peer_window_is_the_edge, teardown),
		cmocka_unit_test_teardown(test_blocked_sndbuf_full_when_our_buffer_is_the_edge_or_both_are, teardown),
		cmocka_unit_test_teardown(test_blocked_counts_small_packets_as_window_units, teardown),

		cmocka_unit_test_teardown(test_reinjection_copies_a_slow_holder_onto_the_idle_fast_uplink, teardown),
		cmocka_unit_test_teardown(test_reinjection_budget_is_capped_by_the_idle_window, teardown),
		cmocka_unit_test_teardown(test_reinjection_needs_a_holder_rtt_over_three_idle_min_rtts, teardown),
		cmocka_unit_test_teardown(test_reinjection_not_from_a_holder_pacing_as_fast, teardown),
		cmocka_unit_test_teardown(test_reinjection_from_a_gone_holder_is_limited_only_by_the_window, teardown),
		cmocka_unit_test_teardown(test_no_reinjection_for_a_holder_with_an_rto_without_progress, teardown),
		cmocka_unit_test_teardown(test_reinjection_takes_every_qualifying_holder_and_the_largest_budget,
					  teardown),
		cmocka_unit_test_teardown(test_the_idle_uplink_is_the_lowest_rtt_one_that_is_idle, teardown),
		cmocka_unit_test_teardown(test_no_idle_uplink_no_reinjection, teardown),
		cmocka_unit_test_teardown(test_a_backup_is_never_the_idle_uplink, teardown),
		cmocka_unit_test_teardown(test_each_reinjection_reason_has_its_switch, teardown),
		cmocka_unit_test_teardown(test_the_bond_timeout_picks_the_lowest_rtt_uplink_not_holding_snd_una,
					  teardown),
		cmocka_unit_test_teardown(test_the_bond_timeout_starts_a_walk_from_snd_una, teardown),
		cmocka_unit_test_teardown(test_the_bond_timeout_without_get_retrans_resends_a_window, teardown),

		cmocka_unit_test_teardown(test_a_bond_ack_starts_copies_once_per_snd_una, teardown),
		cmocka_unit_test_teardown(test_a_check_without_an_idle_uplink_does_not_use_up_snd_una, teardown),
		cmocka_unit_test_teardown(test_a_refusal_with_an_idle_uplink_is_final_for_that_snd_una, teardown),
		cmocka_unit_test_teardown(test_no_check_while_a_walk_goes_on, teardown),
		cmocka_unit_test_teardown(test_no_check_when_not_blocked_or_without_get_retrans, teardown),

		cmocka_unit_test_teardown(test_walk_copies_what_holders_in_from_carry_lowest_first, teardown),
		cmocka_unit_test_teardown(test_walk_copies_a_dsn_two_holders_carry_once, teardown),
		cmocka_unit_test_teardown(test_walk_skips_delivered_dsns_and_those_its_uplink_holds, teardown),
		cmocka_unit_test_teardown(test_walk_limit_is_exact_in_bytes, teardown),
		cmocka_unit_test_teardown(test_walk_goes_before_new_data_and_stops_at_the_decision, teardown),
		cmocka_unit_test_teardown(test_walk_stops_at_snd_nxt_of_the_decision, teardown),
		cmocka_unit_test_teardown(test_timeout_walk_resends_any_undelivered_dsn, teardown),
		cmocka_unit_test_teardown(test_timeout_walk_resends_snd_una_even_if_seen_delivered, teardown),
		cmocka_unit_test_teardown(test_walk_ends_when_its_uplink_goes, teardown),
		cmocka_unit_test_teardown(test_no_reinjection_event_for_an_uplink_that_holds_no_dsn, teardown),
		cmocka_unit_test_teardown(test_measure_copies_are_counted_apart_from_reinjection, teardown),

		cmocka_unit_test_teardown(test_penalty_halves_the_slow_window_limited_holder_of_snd_una, teardown),
		cmocka_unit_test_teardown(test_penalty_at_most_once_per_srtt, teardown),
		cmocka_unit_test_teardown(test_penalty_never_below_four_packets, teardown),
		cmocka_unit_test_teardown(test_no_penalty_when_not_window_limited, teardown),
		cmocka_unit_test_teardown(test_no_penalty_for_a_holder_that_is_not_slower, teardown),
		cmocka_unit_test_teardown(test_penalty_guard_spares_a_full_receive_window, teardown),
		cmocka_unit_test_teardown(test_no_penalty_when_switched_off_or_app_limited, teardown),
		cmocka_unit_test_teardown(test_a_bond_ack_while_blocked_penalises, teardown),

		cmocka_unit_test_teardown(test_redundant_sends_each_packet_on_every_uplink, teardown),

		cmocka_unit_test_teardown(test_resends_never_go_on_a_backup_while_another_is_usable, teardown),
		cmocka_unit_test_teardown(test_the_queue_holds_through_an_outage_of_a_big_uplink, teardown),
		cmocka_unit_test_teardown(test_the_bond_timeout_never_picks_a_backup_while_another_is_usable, teardown),
		cmocka_unit_test_teardown(test_the_backup_carries_nothing_under_loss_and_reinjection, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
