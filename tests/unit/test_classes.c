// SPDX-License-Identifier: MIT
/*
 * Traffic classes between two library devices (tests/unit/pair.h): a call's
 * packet (the interactive class, by its DSCP) is delivered as soon as it
 * arrives, never behind a bulk packet lost on another uplink; it goes where
 * it arrives first and a copy where it arrives next; it takes the next DSN
 * before bulk packets queued ahead of it; a packet lost on every uplink is
 * rebuilt from the class's parity with no resend; the outer datagram
 * carries the inner DSCP when asked to. The same without classes shows what
 * changed: the call's packet waits for the gap. A peer that reads no
 * traffic-class frames (an older wanbondd) gets the call as ordinary data.
 *
 * Packets are IPv4 headers whose first 8 bytes are also the pair's id: the
 * version and header length, the TOS with its DSCP, then a number.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "classify.h"
#include "device.h"
#include "frame.h"
#include "keypair.h"
#include "pair.h"
#include "uplink.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define DSCP_EF 46

static struct pair p;

/*
 * The id of packet n with DSCP dscp: its first 8 bytes, an IPv4 header's
 * start (version and length, the TOS), then n; as the pair reads an id, in
 * the host's order, whatever it is.
 */
static uint64_t ip_id(unsigned dscp, uint64_t n)
{
	uint8_t b[8] = { 0x45, (uint8_t)(dscp << 2), (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16) };
	uint64_t id;

	memcpy(&id, b, sizeof(id));
	return id;
}

static int send_packet(unsigned dscp, uint64_t n, size_t len)
{
	return pair_send_ip(&p, &p.client, ip_id(dscp, n), len);
}

static const struct wb_bond_counters *bondc(const struct pair_side *s)
{
	return wb_bond_counters(s->bond);
}

static struct wb_bond_tuning with_classes(enum wb_class_policy policy)
{
	struct wb_bond_tuning t = { .classes = { .policy = policy, .fec = true }, .outer_dscp = true };

	wb_class_rules_default(&t.classes.rules);
	return t;
}

/* A session, and after a second the n uplinks up on both sides. */
static void established_up(const struct wb_bond_tuning *t, int n)
{
	pair_init(&p, &(struct pair_options){ .n_uplinks = n, .tuning = *t });
	pair_run_until(&p, p.now + 10 * MS);
	pair_run_until(&p, p.now + 1 * SEC);
	for (int i = 0; i < n; i++) {
		assert_int_equal(wb_bond_uplink(p.client.bond, (unsigned)i)->state, WB_UPLINK_UP);
		assert_int_equal(wb_bond_uplink(p.server.bond, (unsigned)i)->state, WB_UPLINK_UP);
	}
}

static int teardown(void **state)
{
	(void)state;
	pair_free(&p);
	return 0;
}

/* Opens a copy of a data message the client queued, with the server's keys; the body's length or -1. */
static int open_copy(const struct pair_datagram *d, uint8_t *body)
{
	const struct wb_keypair *kp = p.server.bond->current;
	uint8_t nonce[WB_NONCE_LEN];

	if (pair_datagram_uplink(d) < 0 || d->len < WB_DATA_OVERHEAD || !kp ||
	    kp->local_index != wb_data_receiver_index(d->data))
		return -1;
	wb_data_nonce(nonce, wb_data_uplink(d->data), wb_data_counter(d->data));
	if (wb_aead_open(kp->recv, nonce, d->data, WB_DATA_HEADER_LEN, d->data + WB_DATA_HEADER_LEN,
			 d->len - WB_DATA_HEADER_LEN, body))
		return -1;
	return (int)(d->len - WB_DATA_OVERHEAD);
}

/* The id of the IP packet a client datagram carries (0 if none), and the type of its data frame. */
static uint64_t carried_id(const struct pair_datagram *d, enum wb_frame_type *type)
{
	uint8_t body[sizeof(d->data)];
	int n = open_copy(d, body);
	const uint8_t *pos = body;
	struct wb_frame f;
	uint64_t id = 0;

	while (n > 0 && wb_frame_next(&pos, body + n, &f) > 0)
		if (wb_frame_is_data(f.type)) {
			memcpy(&id, f.data.data, f.data.len < 8 ? f.data.len : 8);
			if (type)
				*type = f.type;
		}
	return id;
}

/* Loses every copy of the client's packets whose ids are listed (0 ends the list), as often as they go. */
static bool lose_ids(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	const uint64_t *ids = arg;
	uint64_t id;

	(void)pp;
	if (from->is_server || !(id = carried_id(d, NULL)))
		return false;
	for (; *ids; ids++)
		if (*ids == id)
			return true;
	return false;
}

/* Loses the client's packets of the listed ids once each: the first time they go (0 ends the list). */
static bool lose_ids_once(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	uint64_t *ids = arg;
	uint64_t id;

	(void)pp;
	if (from->is_server || !(id = carried_id(d, NULL)))
		return false;
	for (; *ids; ids++)
		if (*ids == id) {
			*ids = ~0ULL; /* lost once */
			return true;
		}
	return false;
}

/* Where in the server's deliveries id is, or -1. */
static long delivered_at(uint64_t id)
{
	for (size_t i = 0; i < p.server.n_delivered; i++)
		if (p.server.delivered[i] == id)
			return (long)i;
	return -1;
}

/* A bulk packet lost on its uplink, the next one held behind the gap, then a call's packet. */
static void call_behind_a_gap(void)
{
	static uint64_t lost[2];

	lost[0] = ip_id(0, 1);
	lost[1] = 0;
	p.filter = lose_ids_once;
	p.filter_arg = lost;
	assert_int_equal(send_packet(0, 1, 1000), 0);
	assert_int_equal(send_packet(0, 2, 1000), 0);
	assert_int_equal(send_packet(DSCP_EF, 3, 200), 0);
	pair_flush(&p);
	assert_int_equal(lost[0], ~0ULL);
	assert_int_equal(delivered_at(ip_id(0, 1)), -1);
	assert_int_equal(delivered_at(ip_id(0, 2)), -1); /* held behind the gap */
}

static void test_a_call_is_delivered_ahead_of_a_bulk_gap(void **state)
{
	(void)state;
	established_up(&(struct wb_bond_tuning){ 0 }, 2);
	p.server.bond->tuning.classes = with_classes(WB_CLASS_POLICY_DUPLICATE).classes;
	p.client.bond->tuning.classes = p.server.bond->tuning.classes;
	call_behind_a_gap();
	/* It did not wait. */
	assert_int_equal(delivered_at(ip_id(DSCP_EF, 3)), 0);
	assert_int_equal(bondc(&p.server)->interactive_rx_packets, 1);
	assert_int_equal(bondc(&p.server)->interactive_rx_early, 1);
	/* Its copy on the other uplink is a duplicate. */
	assert_int_equal(bondc(&p.client)->interactive_tx_packets, 1);
	assert_int_equal(bondc(&p.client)->interactive_copies, 1);
	assert_int_equal(bondc(&p.server)->rx_duplicates, 1);
	/* The gap fills with the resend: the bulk packets in order, the call's packet not again. */
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_int_equal(p.server.n_delivered, 3);
	assert_int_equal(delivered_at(ip_id(0, 1)), 1);
	assert_int_equal(delivered_at(ip_id(0, 2)), 2);
	assert_int_equal(bondc(&p.client)->retransmits, 1);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
}

static void test_without_classes_the_call_waits_for_the_gap(void **state)
{
	(void)state;
	established_up(&(struct wb_bond_tuning){ 0 }, 2);
	call_behind_a_gap();
	assert_int_equal(delivered_at(ip_id(DSCP_EF, 3)), -1);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_int_equal(delivered_at(ip_id(0, 1)), 0);
	assert_int_equal(delivered_at(ip_id(DSCP_EF, 3)), 2);
	assert_int_equal(bondc(&p.client)->interactive_tx_packets, 0);
	assert_int_equal(bondc(&p.server)->interactive_rx_packets, 0);
}

/* The uplinks of the data messages the client has queued that carry id, a bit each. */
static unsigned uplinks_carrying(uint64_t id, enum wb_frame_type *type)
{
	unsigned mask = 0;

	for (size_t i = 0; i < p.client.queued; i++)
		if (carried_id(&p.client.queue[i], type) == id)
			mask |= 1u << pair_datagram_uplink(&p.client.queue[i]);
	return mask;
}

static void test_a_call_goes_where_it_arrives_first_and_a_copy_where_next(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);
	enum wb_frame_type type = WB_FRAME_PADDING;

	(void)state;
	established_up(&t, 3);
	/* Uplink 0 the slowest, 1 the fastest, 2 between. */
	p.delay_ns[0] = 40 * MS;
	p.delay_ns[1] = 5 * MS;
	p.delay_ns[2] = 15 * MS;
	pair_run_until(&p, p.now + 5 * SEC);
	assert_int_equal(send_packet(DSCP_EF, 1, 200), 0);
	assert_int_equal(uplinks_carrying(ip_id(DSCP_EF, 1), &type), 1u << 1 | 1u << 2);
	assert_int_equal(type, WB_FRAME_DATA_UNORDERED);
	/* Redundant: on all three. */
	p.client.bond->tuning.classes.policy = WB_CLASS_POLICY_REDUNDANT;
	assert_int_equal(send_packet(DSCP_EF, 2, 200), 0);
	assert_int_equal(uplinks_carrying(ip_id(DSCP_EF, 2), NULL), 7);
	/* Ordered: the frame the receiver holds in order. */
	p.client.bond->tuning.classes.ordered = true;
	assert_int_equal(send_packet(DSCP_EF, 3, 200), 0);
	assert_int_equal(uplinks_carrying(ip_id(DSCP_EF, 3), &type), 7);
	assert_int_equal(type, WB_FRAME_DATA);
	assert_int_equal(bondc(&p.client)->interactive_copies, 1 + 2 + 2);
}

static void test_a_call_takes_the_next_dsn_before_queued_bulk(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);
	uint64_t bulk_queued;

	(void)state;
	established_up(&t, 2);
	/* More bulk than the uplinks' windows take at once: the rest waits in the send queue. */
	for (uint64_t n = 1; n <= 300; n++)
		assert_int_equal(send_packet(0, n, 1400), 0);
	bulk_queued = p.client.bond->txq.n;
	assert_true(bulk_queued > 0);
	assert_int_equal(send_packet(DSCP_EF, 1000, 200), 0);
	/* It went at once, ahead of every bulk packet still queued. */
	assert_int_equal(p.client.bond->txq_interactive.n, 0);
	assert_int_equal(p.client.bond->txq.n, bulk_queued);
	assert_true(uplinks_carrying(ip_id(DSCP_EF, 1000), NULL) != 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_int_equal(p.server.n_delivered, 301);
}

/* Each uplink loses a fifth of what it carries: a call's two copies are both lost 4% of the time. */
static void lossy_uplinks(void)
{
	for (unsigned i = 0; i < 2; i++)
		p.client.bond->uplinks[i].loss_ppm = 200000;
}

/* Whether a datagram the client queued carries a parity frame, and on which uplink. */
static int parity_uplink(void)
{
	for (size_t i = 0; i < p.client.queued; i++) {
		uint8_t body[sizeof(p.client.queue[i].data)];
		int n = open_copy(&p.client.queue[i], body);
		const uint8_t *pos = body;
		struct wb_frame f;

		while (n > 0 && wb_frame_next(&pos, body + n, &f) > 0)
			if (f.type == WB_FRAME_FEC_PARITY)
				return pair_datagram_uplink(&p.client.queue[i]);
	}
	return -1;
}

static void test_a_packet_lost_everywhere_is_rebuilt_from_the_parity(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);
	uint64_t lost[] = { ip_id(DSCP_EF, 3), 0 };

	(void)state;
	established_up(&t, 2);
	lossy_uplinks();
	/* 4% meets K = 2: the second packet closes the block, its parity goes at once, on a datagram of its own. */
	assert_int_equal(send_packet(DSCP_EF, 1, 160), 0);
	assert_int_equal(send_packet(DSCP_EF, 2, 200), 0);
	assert_int_equal(bondc(&p.client)->fec_parity_sent, 1);
	assert_true(parity_uplink() >= 0);
	assert_true(bondc(&p.client)->fec_overhead_bytes > 200);
	/* The first parity makes the receiver keep the class's packets: the next block can be rebuilt. */
	pair_flush(&p);
	p.filter = lose_ids;
	p.filter_arg = lost;
	assert_int_equal(send_packet(DSCP_EF, 3, 160), 0);
	assert_int_equal(send_packet(DSCP_EF, 4, 200), 0);
	pair_flush(&p);
	assert_int_equal(bondc(&p.server)->fec_repaired, 1);
	assert_int_equal(delivered_at(ip_id(DSCP_EF, 4)), 2);
	assert_int_equal(delivered_at(ip_id(DSCP_EF, 3)), 3);
	/* Delivered once; acked as received, so resent at most by a loss detection that came first. */
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_true(bondc(&p.client)->retransmits <= 1);
	assert_int_equal(p.server.n_delivered, 4);
}

static void test_a_block_the_stream_left_unfilled_goes_after_its_time(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);

	(void)state;
	established_up(&t, 1);
	/* 0.6% on the one uplink: blocks of 16. */
	p.client.bond->uplinks[0].loss_ppm = 6000;
	assert_int_equal(send_packet(DSCP_EF, 1, 200), 0);
	assert_int_equal(send_packet(DSCP_EF, 2, 200), 0);
	assert_int_equal(p.client.bond->fec_tx.k, 16);
	pair_run_until(&p, p.now + 39 * MS);
	assert_int_equal(bondc(&p.client)->fec_parity_sent, 0);
	pair_run_until(&p, p.now + 2 * MS);
	assert_int_equal(bondc(&p.client)->fec_parity_sent, 1);
	/* Where the uplinks lose less than the target, no parity at all. */
	p.client.bond->uplinks[0].loss_ppm = 500;
	for (uint64_t n = 3; n < 40; n++)
		assert_int_equal(send_packet(DSCP_EF, n, 200), 0);
	pair_run_until(&p, p.now + 100 * MS);
	assert_int_equal(bondc(&p.client)->fec_parity_sent, 1);
}

/* The DSCP the client asked for each queued datagram carrying id (the last one found). */
static int outer_dscp_of(uint64_t id)
{
	int dscp = -1;

	for (size_t i = 0; i < p.client.queued; i++)
		if (carried_id(&p.client.queue[i], NULL) == id)
			dscp = p.client.queue[i].dscp;
	return dscp;
}

static void test_the_outer_datagram_carries_the_inner_dscp(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);

	(void)state;
	established_up(&t, 2);
	assert_int_equal(send_packet(DSCP_EF, 1, 200), 0);
	assert_int_equal(outer_dscp_of(ip_id(DSCP_EF, 1)), DSCP_EF);
	assert_int_equal(send_packet(10, 2, 200), 0); /* AF11: bulk, its mark copied too */
	assert_int_equal(outer_dscp_of(ip_id(10, 2)), 10);
	p.client.bond->tuning.outer_dscp = false;
	assert_int_equal(send_packet(DSCP_EF, 3, 200), 0);
	assert_int_equal(outer_dscp_of(ip_id(DSCP_EF, 3)), 0);
}

/* The packet send_packet(dscp, n, len) sends, for wb_bond_can_queue. */
static const uint8_t *packet_of(unsigned dscp, uint64_t n, size_t len)
{
	static uint8_t ip[1500];
	uint64_t id = ip_id(dscp, n);

	memset(ip, 0, len);
	memcpy(ip, &id, 8);
	return ip;
}

static void test_a_full_bulk_queue_has_room_for_a_call(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);
	uint64_t n = 0;

	(void)state;
	established_up(&t, 2);
	while (wb_bond_can_queue(p.client.bond, packet_of(0, n, 1400), 1400))
		assert_int_equal(send_packet(0, n++, 1400), 0);
	assert_true(n > 100);
	assert_int_equal(send_packet(0, n, 1400), -ENOBUFS);
	assert_true(wb_bond_can_queue(p.client.bond, packet_of(DSCP_EF, 1, 200), 200));
	assert_int_equal(send_packet(DSCP_EF, 1, 200), 0);
	assert_int_equal(bondc(&p.client)->interactive_queue_drops, 0);
}

static void test_an_older_peer_gets_the_call_as_ordinary_data(void **state)
{
	struct wb_bond_tuning t = with_classes(WB_CLASS_POLICY_DUPLICATE);
	enum wb_frame_type type = WB_FRAME_PADDING;

	(void)state;
	/* The server says in its response that it reads none of the new frames, as one before them. */
	pair_init(&p, &(struct pair_options){ .n_uplinks = 2, .tuning = t });
	p.server.dev->local.caps = 0;
	pair_run_until(&p, p.now + 10 * MS);
	pair_run_until(&p, p.now + 1 * SEC);
	assert_int_equal(p.client.bond->peer_caps, 0);
	assert_int_equal(p.server.bond->peer_caps, WB_CAPS_ALL);
	lossy_uplinks();
	/* Still first, still copied, but in the frame it reads and with no parity. */
	assert_int_equal(send_packet(DSCP_EF, 1, 160), 0);
	assert_int_equal(send_packet(DSCP_EF, 2, 200), 0);
	assert_int_equal(uplinks_carrying(ip_id(DSCP_EF, 1), &type), 3);
	assert_int_equal(type, WB_FRAME_DATA);
	assert_int_equal(uplinks_carrying(ip_id(DSCP_EF, 2), &type), 3);
	assert_int_equal(type, WB_FRAME_DATA);
	assert_int_equal(bondc(&p.client)->interactive_tx_packets, 2);
	assert_int_equal(bondc(&p.client)->fec_parity_sent, 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_int_equal(p.server.n_delivered, 2);
	assert_int_equal(bondc(&p.server)->interactive_rx_early, 0);
}

#define T(f) cmocka_unit_test_teardown(f, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_a_call_is_delivered_ahead_of_a_bulk_gap),
		T(test_without_classes_the_call_waits_for_the_gap),
		T(test_a_call_goes_where_it_arrives_first_and_a_copy_where_next),
		T(test_a_call_takes_the_next_dsn_before_queued_bulk),
		T(test_a_packet_lost_everywhere_is_rebuilt_from_the_parity),
		T(test_a_block_the_stream_left_unfilled_goes_after_its_time),
		T(test_the_outer_datagram_carries_the_inner_dscp),
		T(test_a_full_bulk_queue_has_room_for_a_call),
		T(test_an_older_peer_gets_the_call_as_ordinary_data),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
