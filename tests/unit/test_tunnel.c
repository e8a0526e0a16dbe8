// SPDX-License-Identifier: MIT
/*
 * The tunnel between two library devices (tests/unit/pair.h): handshake,
 * data both ways, sessions, rekeying, forged and replayed messages, uplinks
 * failing and coming back, roaming, cookies under load, CLOSE.
 *
 * Time is virtual: nothing here depends on the wall clock. The tests look
 * inside the library (bond.h, device.h) where the public view does not show
 * what they check, such as which session a side holds.
 *
 * The bond is reliable: IP packets get DSNs, uplinks ack their packets, what
 * is lost is resent, and the receiver delivers in DSN order. Senders respect
 * the send queue's backpressure (pair_send_ip_waiting runs time forward
 * until there is room), and time runs for pacing, acks and timers; the
 * pair's links have no delay unless a test gives an uplink one.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "byteorder.h"
#include "device.h"
#include "frame.h"
#include "keypair.h"
#include "pair.h"
#include "uplink.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

static struct pair p;

static int teardown(void **state)
{
	(void)state;
	pair_free(&p);
	memset(&p, 0, sizeof(p)); /* a test skipped or failed before pair_init frees nothing twice */
	return 0;
}


/* ---- helpers ----------------------------------------------------------------- */

static struct wb_bond *cbond(void)
{
	return p.client.bond;
}

static struct wb_bond *sbond(void)
{
	return p.server.bond;
}

static const struct wb_device_counters *devc(const struct pair_side *s)
{
	return wb_device_counters(s->dev);
}

static const struct wb_bond_counters *bondc(const struct pair_side *s)
{
	return wb_bond_counters(s->bond);
}

static const struct wb_uplink *uplink(const struct pair_side *s, unsigned i)
{
	const struct wb_uplink *u = wb_bond_uplink(s->bond, i);

	assert_non_null(u);
	return u;
}

static void established(const struct pair_options *o)
{
	pair_init(&p, o);
	pair_run_until(&p, p.now + 10 * MS);
	assert_true(wb_bond_has_session(p.client.bond));
}

/* A session, and after a second every one of the n uplinks up on both sides. */
static void established_up(const struct pair_options *o, int n)
{
	established(o);
	pair_run_until(&p, p.now + 1 * SEC);
	assert_true(wb_bond_has_session(p.server.bond));
	for (unsigned i = 0; i < (unsigned)n; i++) {
		assert_int_equal(uplink(&p.client, i)->state, WB_UPLINK_UP);
		assert_int_equal(uplink(&p.server, i)->state, WB_UPLINK_UP);
	}
}

/* Every id in [1, n] was delivered to s exactly once, and nothing else was. */
static void assert_each_delivered_once(const struct pair_side *s, size_t n)
{
	uint8_t *seen = calloc(n + 1, 1);

	assert_non_null(seen);
	assert_int_equal(s->n_delivered, n);
	for (size_t i = 0; i < s->n_delivered; i++) {
		uint64_t id = s->delivered[i];

		assert_true(id >= 1 && id <= n);
		assert_int_equal(seen[id], 0);
		seen[id] = 1;
	}
	free(seen);
}

/* Every id in [first, first + n) delivered to s exactly once and in that order, from delivered[at] on, and no more. */
static void assert_in_order_from(const struct pair_side *s, size_t at, uint64_t first, size_t n)
{
	assert_int_equal(s->n_delivered, at + n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s->delivered[at + i], first + i);
}

/* Every id in [1, n] delivered to s exactly once, in order, and nothing else. */
static void assert_delivered_in_order(const struct pair_side *s, size_t n)
{
	assert_in_order_from(s, 0, 1, n);
}

/* IP packets side s sent on its uplink i: first copies and resent ones. */
static uint64_t data_sent_on(const struct pair_side *s, unsigned i)
{
	const struct wb_uplink *u = uplink(s, i);

	return u->c.data_packets + u->c.retransmits;
}

/*
 * Opens a copy of a data message queued at `from` with the keys of the side
 * it goes to (nothing changes there, not even its replay windows). Returns
 * the body's length in body, or -1 if it is no data message of a session.
 */
static int open_copy(const struct pair_side *from, const struct pair_datagram *d, uint8_t *body)
{
	const struct pair_side *to = from->is_server ? &p.client : &p.server;
	struct wb_keypair *kps[3] = { to->bond->current, to->bond->previous, to->bond->next };
	const size_t hdr = WB_DATA_HEADER_LEN;
	uint8_t nonce[WB_NONCE_LEN];

	if (pair_datagram_uplink(d) < 0 || d->len < WB_DATA_OVERHEAD)
		return -1;
	wb_data_nonce(nonce, wb_data_uplink(d->data), wb_data_counter(d->data));
	for (int k = 0; k < 3; k++)
		if (kps[k] && kps[k]->local_index == wb_data_receiver_index(d->data))
			return wb_aead_open(kps[k]->recv, nonce, d->data, hdr, d->data + hdr, d->len - hdr, body) ?
				       -1 :
				       (int)(d->len - WB_DATA_OVERHEAD);
	return -1;
}

/* Whether a message queued at `from` carries a frame of this type; for a data frame, its IP packet's id. */
static bool carries(const struct pair_side *from, const struct pair_datagram *d, enum wb_frame_type type,
		    uint64_t *id)
{
	uint8_t body[sizeof(d->data)];
	int n = open_copy(from, d, body);
	const uint8_t *pos = body;
	struct wb_frame f;

	if (n < 0)
		return false;
	while (wb_frame_next(&pos, body + n, &f) > 0) {
		if (f.type != type)
			continue;
		if (id && type == WB_FRAME_DATA) {
			*id = 0;
			memcpy(id, f.data.data, f.data.len < 8 ? f.data.len : 8);
		}
		return true;
	}
	return false;
}

/* The data messages queued at s, counted by the uplink id in their header. */
static void queued_per_uplink(const struct pair_side *s, size_t counts[WB_MAX_UPLINKS])
{
	memset(counts, 0, WB_MAX_UPLINKS * sizeof(counts[0]));
	for (size_t i = 0; i < s->queued; i++) {
		int u = pair_datagram_uplink(&s->queue[i]);

		assert_true(u >= 0 && u < WB_MAX_UPLINKS);
		counts[u]++;
	}
}

/* A copy of the one datagram s has queued, taken off the wire. */
static struct pair_datagram take_only_datagram(struct pair_side *s)
{
	struct pair_datagram d;

	assert_int_equal(s->queued, 1);
	d = s->queue[0];
	s->queued = 0;
	return d;
}

static const struct wb_endpoint elsewhere = { .family = 4, .port = 6666, .addr = { 203, 0, 113, 9 } };

/* The first time an uplink was seen in each state (0: never), from its state_since_ns. */
struct watch {
	uint64_t at[4];
};

static void watch(struct watch *w, const struct pair_side *s, unsigned i)
{
	const struct wb_uplink *u = uplink(s, i);

	if (!w->at[u->state])
		w->at[u->state] = u->state_since_ns;
}

/* ---- handshakes that must fail ------------------------------------------------------ */

static void test_wrong_server_key_is_dropped_at_mac1(void **state)
{
	uint64_t sent;

	(void)state;
	pair_init(&p, &(struct pair_options){ .wrong_server_key = true });
	pair_run_until(&p, p.now + 3 * SEC + 500 * MS);
	assert_false(wb_bond_has_session(cbond()));
	assert_false(wb_bond_has_session(sbond()));
	sent = bondc(&p.client)->handshakes_sent;
	assert_true(sent >= 3);
	/*
	 * bad_mac1, not unknown_peer: mac1 is keyed by a hash of the public key
	 * the client believes the server has, and checking it is the server's
	 * first step. The message never reaches the Noise decryption (where a
	 * wrong key would show as unknown_peer), and costs no handshake budget.
	 */
	assert_int_equal(devc(&p.server)->bad_mac1, sent);
	assert_int_equal(devc(&p.server)->unknown_peer, 0);
	assert_int_equal(devc(&p.server)->under_load, 0);
	assert_int_equal(p.server.sent, 0);
	assert_null(sbond()->next);
	assert_null(wb_bond_uplink(sbond(), 0));
}

static void test_server_not_knowing_the_client_sends_nothing(void **state)
{
	uint64_t sent;

	(void)state;
	pair_init(&p, &(struct pair_options){ .server_does_not_know_client = true });
	pair_run_until(&p, p.now + 3 * SEC + 500 * MS);
	assert_false(wb_bond_has_session(cbond()));
	assert_false(wb_bond_has_session(sbond()));
	sent = bondc(&p.client)->handshakes_sent;
	assert_true(sent >= 3);
	assert_int_equal(devc(&p.server)->unknown_peer, sent);
	assert_int_equal(devc(&p.server)->bad_mac1, 0);
	assert_int_equal(bondc(&p.server)->handshakes_refused, 0);
	assert_int_equal(p.server.sent, 0);
	assert_null(sbond()->next);
}

static void test_wrong_psk_is_refused_by_the_client(void **state)
{
	uint64_t sent;

	(void)state;
	pair_init(&p, &(struct pair_options){ .wrong_psk = true });
	pair_run_until(&p, p.now + 3 * SEC + 500 * MS);
	sent = bondc(&p.client)->handshakes_sent;
	assert_true(sent >= 3);
	/* The server answers (the pre-shared key enters with the response), the client refuses each answer. */
	assert_int_equal(bondc(&p.client)->handshakes_refused, sent);
	assert_int_equal(bondc(&p.client)->handshakes_completed, 0);
	assert_false(wb_bond_has_session(cbond()));
	assert_null(cbond()->previous);
	/* The server's session stays next: unconfirmed, never used to send. */
	assert_false(wb_bond_has_session(sbond()));
	assert_non_null(sbond()->next);
	assert_null(sbond()->previous);
	assert_int_equal(bondc(&p.server)->handshakes_completed, 0);
	assert_int_equal(pair_send_ip(&p, &p.server, 1, 100), -ENOTCONN);
	assert_int_equal(bondc(&p.server)->no_session_drops, 1);
	assert_int_equal(p.client.n_delivered, 0);
}

static void test_replayed_initiation_is_refused_and_changes_nothing(void **state)
{
	struct pair_datagram init;
	struct wb_keypair *next, *current;
	uint32_t next_index;
	uint8_t ts[WB_TAI64N_LEN];
	uint64_t last_ns, sent, count;

	(void)state;
	pair_init(&p, &(struct pair_options){ 0 });
	wb_device_tick(p.client.dev, p.now);
	init = take_only_datagram(&p.client);
	assert_int_equal(init.data[0], WB_MSG_INITIATION);
	pair_inject(&p, &p.server, &init);
	assert_int_equal(p.server.queued, 1); /* the response */
	next = sbond()->next;
	assert_non_null(next);
	next_index = next->local_index;
	memcpy(ts, sbond()->last_timestamp, sizeof(ts));
	last_ns = sbond()->last_initiation_ns;
	sent = p.server.sent;
	count = p.server.dev->index.count;

	/* The same bytes again, later (not refused only for coming too soon). */
	p.now += 100 * MS;
	pair_inject(&p, &p.server, &init);
	assert_int_equal(bondc(&p.server)->handshakes_refused, 1);
	assert_ptr_equal(sbond()->next, next);
	assert_int_equal(sbond()->next->local_index, next_index);
	assert_null(sbond()->current);
	assert_memory_equal(sbond()->last_timestamp, ts, sizeof(ts));
	assert_int_equal(sbond()->last_initiation_ns, last_ns);
	assert_int_equal(p.server.dev->index.count, count);
	assert_int_equal(p.server.sent, sent);

	/* The response to the first copy still completes the handshake. */
	pair_flush(&p);
	assert_true(wb_bond_has_session(cbond()));
	assert_true(wb_bond_has_session(sbond()));
	assert_ptr_equal(sbond()->current, next);

	/* Replayed once the session runs: refused, and the session stays. */
	current = sbond()->current;
	sent = p.server.sent;
	p.now += 100 * MS;
	pair_inject(&p, &p.server, &init);
	assert_int_equal(bondc(&p.server)->handshakes_refused, 2);
	assert_ptr_equal(sbond()->current, current);
	assert_null(sbond()->next);
	assert_int_equal(p.server.sent, sent);
}

/* Drops the server's handshake responses, counting them. */
static bool drop_responses(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	uint64_t *responses = arg;

	(void)pp;
	if (!from->is_server || d->data[0] != WB_MSG_RESPONSE)
		return false;
	(*responses)++;
	return true;
}

/*
 * Initiations from one peer more often than every 20 ms are refused (as
 * WireGuard does), each with a newer timestamp: 17 ms apart is one TAI64N
 * step (2^24 ns) and more, so only the rate refuses the second.
 */
static void test_initiations_too_frequent_are_refused(void **state)
{
	struct wb_timers t = WB_TIMERS_DEFAULT;
	uint64_t responses = 0;

	(void)state;
	t.handshake_retry_ns = 17 * MS;
	pair_init(&p, &(struct pair_options){ .timers = t });
	p.filter = drop_responses;
	p.filter_arg = &responses;
	/* Initiations at 0, 17 and 34 ms: the second comes too soon after the first accepted. */
	pair_run_until(&p, p.now + 40 * MS);
	assert_int_equal(bondc(&p.client)->handshakes_sent, 3);
	assert_int_equal(bondc(&p.server)->handshakes_refused, 1);
	assert_int_equal(responses, 2);
}

/* ---- rekeying and expiry -------------------------------------------------------------- */

static void test_rekey_under_traffic_loses_nothing(void **state)
{
	const size_t n = 30000;
	struct wb_timers t = WB_TIMERS_DEFAULT;

	(void)state;
	t.rekey_after_messages = 1000;
	established_up(&(struct pair_options){ .timers = t }, 2);
	for (size_t i = 1; i <= n; i++) {
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, i, 100 + i % 1300), 0);
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, i, 1400 - i % 1300), 0);
		if (i % 200 == 0)
			pair_run_until(&p, p.now + 50 * MS);
		else if (i % 50 == 0)
			pair_flush(&p);
	}
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_delivered_in_order(&p.server, n);
	assert_delivered_in_order(&p.client, n);
	assert_int_equal(bondc(&p.server)->tun_tx_packets, n);
	assert_int_equal(bondc(&p.client)->tun_tx_packets, n);
	assert_int_equal(bondc(&p.client)->tun_rx_packets, n);
	assert_int_equal(bondc(&p.server)->tun_rx_packets, n);
	assert_true(bondc(&p.client)->rekeys >= 5);
	assert_true(bondc(&p.server)->rekeys >= 5);
	/* Rekeys between two running daemons: the same incarnations, nothing started over. */
	assert_int_equal(bondc(&p.client)->peer_restarts + bondc(&p.server)->peer_restarts, 0);
	assert_int_equal(bondc(&p.client)->replays, 0);
	assert_int_equal(bondc(&p.server)->replays, 0);
	assert_int_equal(devc(&p.client)->unknown_index, 0);
	assert_int_equal(devc(&p.server)->unknown_index, 0);
	/* Nothing was lost on the way: nothing resent, dropped or skipped. */
	for (int side = 0; side < 2; side++) {
		const struct wb_bond_counters *c = bondc(side ? &p.server : &p.client);

		assert_int_equal(c->queue_drops, 0);
		assert_int_equal(c->aqm_drops, 0);
		assert_int_equal(c->reorder_skips, 0);
		assert_int_equal(c->rx_beyond_window, 0);
		assert_int_equal(c->retransmits, 0);
	}
}

static void test_rekey_by_time_switches_without_loss(void **state)
{
	struct wb_timers t = WB_TIMERS_DEFAULT;
	uint32_t c_index, s_index;
	uint64_t born;
	size_t n = 0;

	(void)state;
	t.rekey_after_ns = 10 * SEC;
	t.reject_after_ns = 15 * SEC;
	established_up(&(struct pair_options){ .timers = t }, 2);
	c_index = cbond()->current->local_index;
	s_index = sbond()->current->local_index;
	born = cbond()->current->born_ns;
	while (p.now < born + 12 * SEC) {
		n++;
		assert_int_equal(pair_send_ip(&p, &p.client, n, 200), 0);
		assert_int_equal(pair_send_ip(&p, &p.server, n, 200), 0);
		pair_run_until(&p, p.now + 10 * MS);
	}
	assert_delivered_in_order(&p.server, n);
	assert_delivered_in_order(&p.client, n);
	assert_int_not_equal(cbond()->current->local_index, c_index);
	assert_int_not_equal(sbond()->current->local_index, s_index);
	assert_int_equal(cbond()->previous->local_index, c_index);
	assert_int_equal(sbond()->previous->local_index, s_index);
	assert_int_equal(bondc(&p.client)->rekeys, 1);
	assert_int_equal(bondc(&p.server)->rekeys, 1);
	/* The new session was made when the old one reached rekey_after_ns. */
	assert_true(cbond()->current->born_ns >= born + t.rekey_after_ns);
	assert_true(cbond()->current->born_ns <= born + t.rekey_after_ns + 10 * MS);
	/* The old session is dropped at reject_after_ns; traffic goes on. */
	while (p.now < born + 16 * SEC) {
		n++;
		assert_int_equal(pair_send_ip(&p, &p.client, n, 200), 0);
		assert_int_equal(pair_send_ip(&p, &p.server, n, 200), 0);
		pair_run_until(&p, p.now + 10 * MS);
	}
	assert_null(cbond()->previous);
	assert_null(sbond()->previous);
	assert_true(pair_settle(&p, p.now + 1 * SEC, 0));
	assert_delivered_in_order(&p.server, n);
	assert_delivered_in_order(&p.client, n);
	assert_int_equal(bondc(&p.client)->no_session_drops + bondc(&p.client)->no_uplink_drops, 0);
}

static void test_session_expires_when_the_peer_is_gone(void **state)
{
	struct wb_timers t = WB_TIMERS_DEFAULT;
	uint64_t sent;

	(void)state;
	t.rekey_after_ns = 4 * SEC;
	t.reject_after_ns = 6 * SEC;
	established_up(&(struct pair_options){ .timers = t }, 2);
	sent = bondc(&p.client)->handshakes_sent;
	/* Everything lost, both ways, for longer than reject_after. */
	pair_run_until_dropping_mask(&p, p.now + 7 * SEC, 0x3);
	assert_false(wb_bond_has_session(sbond()));
	assert_null(sbond()->previous);
	assert_null(sbond()->next);
	assert_int_equal(p.server.dev->index.count, 0);
	assert_false(wb_bond_has_session(cbond()));
	assert_null(cbond()->previous);
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(uplink(&p.server, i)->state, WB_UPLINK_DOWN);
		assert_int_equal(uplink(&p.client, i)->state, WB_UPLINK_DOWN);
	}
	assert_true(bondc(&p.client)->handshakes_sent > sent); /* it kept trying */
	assert_int_equal(pair_send_ip(&p, &p.client, 1, 100), -ENOTCONN);
	/* The way is open again: a new session, and traffic. */
	pair_run_until(&p, p.now + 3 * SEC);
	assert_true(wb_bond_has_session(cbond()));
	assert_true(wb_bond_has_session(sbond()));
	assert_int_equal(pair_send_ip(&p, &p.client, 1, 100), 0);
	assert_int_equal(pair_send_ip(&p, &p.server, 1, 100), 0);
	pair_flush(&p);
	assert_each_delivered_once(&p.server, 1);
	assert_each_delivered_once(&p.client, 1);
}

/*
 * A session that ends while the sender waits for its uplinks' pacing: the
 * wake-up it had set is no timer any more (nothing goes out without a
 * session). Left armed, the deadline stays in the past and the embedder's
 * loop wakes at once, again and again, until a new session.
 */
static void test_no_pacing_wakeup_outlives_the_session(void **state)
{
	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	/* As a sender that has data and window room, held back by pacing alone, leaves it (wb_bond_pacing_wake). */
	sbond()->pace_wake_ns = p.now + MS;
	wb_bond_close(cbond(), p.now);
	pair_flush(&p); /* the CLOSE reaches the server */
	assert_false(wb_bond_has_session(sbond()));
	p.now += SEC;
	wb_device_tick(p.server.dev, p.now);
	assert_true(wb_device_next_deadline(p.server.dev) > p.now);
}

/* ---- forged, replayed, cut data messages ------------------------------------------------ */

static void assert_counters_unchanged(const struct wb_device_counters *d0, const struct wb_bond_counters *b0)
{
	struct wb_device_counters d = *devc(&p.server);

	/* rx_datagrams counts every arrival; the rest must not move. */
	d.rx_datagrams = d0->rx_datagrams;
	assert_memory_equal(&d, d0, sizeof(d));
	assert_memory_equal(bondc(&p.server), b0, sizeof(*b0));
}

static void test_flipped_bit_in_data_is_refused_everywhere(void **state)
{
	struct pair_datagram msg;
	struct wb_endpoint ep[2];
	struct wb_uplink_counters uc[2];
	int up;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(pair_send_ip(&p, &p.client, 0xabc, 64), 0);
	msg = take_only_datagram(&p.client);
	up = pair_datagram_uplink(&msg);
	for (unsigned i = 0; i < 2; i++) {
		ep[i] = uplink(&p.server, i)->endpoint;
		uc[i] = uplink(&p.server, i)->c;
	}
	for (size_t bit = 0; bit < (size_t)msg.len * 8; bit++) {
		struct pair_datagram bad = msg;
		size_t at = bit / 8;
		struct wb_device_counters d0 = *devc(&p.server);
		struct wb_bond_counters b0 = *bondc(&p.server);
		uint64_t auth, replay, unknown, shortc;

		bad.data[at] ^= (uint8_t)(1 << (bit % 8));
		bad.from = elsewhere;
		pair_inject(&p, &p.server, &bad);
		auth = bondc(&p.server)->auth_failures - b0.auth_failures;
		replay = bondc(&p.server)->replays - b0.replays;
		unknown = devc(&p.server)->unknown_index - d0.unknown_index;
		shortc = devc(&p.server)->short_or_unknown - d0.short_or_unknown;
		assert_int_equal(auth + replay + unknown + shortc, 1);
		if (at == 0)
			assert_int_equal(shortc, 1); /* no message type is one bit away from data */
		else if (at >= 4 && at < 8)
			assert_int_equal(unknown, 1);
		else if (at == 2 || at == 3 || at >= sizeof(struct wb_msg_data))
			assert_int_equal(auth, 1);
		else /* the uplink id or the counter: another window, or a counter already seen */
			assert_int_equal(auth + replay, 1);
		assert_int_equal(p.server.n_delivered, 0);
		assert_int_equal(p.server.queued, 0);
	}
	/* Nothing moved: endpoints, uplink counters. */
	for (unsigned i = 0; i < 2; i++) {
		assert_true(wb_endpoint_equal(&uplink(&p.server, i)->endpoint, &ep[i]));
		assert_memory_equal(&uplink(&p.server, i)->c, &uc[i], sizeof(uc[i]));
	}
	/* The original arrives after all of them: no forged counter moved its window. */
	pair_inject(&p, &p.server, &msg);
	assert_int_equal(p.server.n_delivered, 1);
	assert_int_equal(p.server.delivered[0], 0xabc);
	assert_int_equal(uplink(&p.server, (unsigned)up)->c.rx_ip_packets, uc[up].rx_ip_packets + 1);
}

static void test_replayed_data_is_delivered_once(void **state)
{
	struct pair_datagram msg;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(pair_send_ip(&p, &p.server, 77, 500), 0);
	msg = take_only_datagram(&p.server);
	pair_inject(&p, &p.client, &msg);
	for (int k = 0; k < 5; k++)
		pair_inject(&p, &p.client, &msg);
	assert_int_equal(p.client.n_delivered, 1);
	assert_int_equal(bondc(&p.client)->replays, 5);
	assert_int_equal(bondc(&p.client)->auth_failures, 0);
}

static void test_truncated_data_is_short_or_refused(void **state)
{
	struct pair_datagram msg;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(pair_send_ip(&p, &p.client, 5, 100), 0);
	msg = take_only_datagram(&p.client);
	for (uint16_t len = 0; len < WB_DATA_OVERHEAD; len++) {
		struct pair_datagram cut = msg;
		struct wb_device_counters d0 = *devc(&p.server);
		struct wb_bond_counters b0 = *bondc(&p.server);

		cut.len = len;
		pair_inject(&p, &p.server, &cut);
		d0.short_or_unknown++;
		assert_counters_unchanged(&d0, &b0);
	}
	/* Long enough for a header and a tag, shorter than sealed: it does not authenticate. */
	for (uint16_t len = WB_DATA_OVERHEAD; len < msg.len; len++) {
		struct pair_datagram cut = msg;
		uint64_t failures = bondc(&p.server)->auth_failures;

		cut.len = len;
		pair_inject(&p, &p.server, &cut);
		assert_int_equal(bondc(&p.server)->auth_failures, failures + 1);
	}
	assert_int_equal(p.server.n_delivered, 0);
	/* Handshake messages of any other length than their own are short too. */
	{
		static const uint16_t lens[] = { 1, 147, 149, 91, 93, 51, 53 };
		static const uint8_t types[] = { 1, 1, 1, 2, 2, 3, 3 };
		uint64_t before = devc(&p.server)->short_or_unknown;

		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			struct pair_datagram d = { .from = p.client_ep[0], .len = lens[k] };

			d.data[0] = types[k];
			pair_inject(&p, &p.server, &d);
		}
		assert_int_equal(devc(&p.server)->short_or_unknown, before + 7);
	}
	pair_inject(&p, &p.server, &msg);
	assert_int_equal(p.server.n_delivered, 1);
}

static void test_data_for_an_unknown_index_is_counted(void **state)
{
	struct pair_datagram msg;
	uint32_t index;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(pair_send_ip(&p, &p.client, 5, 100), 0);
	msg = take_only_datagram(&p.client);
	for (index = wb_data_receiver_index(msg.data) + 1; wb_index_find(&p.server.dev->index, index); index++)
		;
	wb_data_put_header(msg.data, wb_data_uplink(msg.data), index, wb_data_counter(msg.data));
	pair_inject(&p, &p.server, &msg);
	assert_int_equal(devc(&p.server)->unknown_index, 1);
	assert_int_equal(bondc(&p.server)->auth_failures, 0);
	assert_int_equal(p.server.n_delivered, 0);
}

/* A data message sealed with the sender's real session key: any body, on any uplink id and counter. */
static struct pair_datagram forge_body(const struct pair_side *from, uint8_t uplink_id, uint64_t counter,
				       const uint8_t *body, size_t body_len)
{
	struct wb_keypair *kp = from->bond->current;
	struct pair_datagram d = { .from = from->is_server ? p.server_ep : p.client_ep[0] };
	const size_t hdr = WB_DATA_HEADER_LEN;
	uint8_t nonce[WB_NONCE_LEN];

	assert_non_null(kp);
	assert_true(WB_DATA_OVERHEAD + body_len <= sizeof(d.data));
	d.to = from->is_server ? p.client_ep[0] : p.server_ep;
	wb_data_put_header(d.data, uplink_id, kp->remote_index, counter);
	memcpy(d.data + hdr, body, body_len);
	wb_data_nonce(nonce, uplink_id, counter);
	assert_int_equal(wb_aead_seal(kp->send, nonce, d.data, hdr, d.data + hdr, body_len, d.data + hdr), 0);
	d.len = (uint16_t)(WB_DATA_OVERHEAD + body_len);
	return d;
}

/* The DSN the other side expects next: a forged data frame with it is delivered at once. */
static uint64_t next_dsn_at_peer(const struct pair_side *from)
{
	return (from == &p.client ? sbond() : cbond())->rcv.nxt;
}

/* The same with one IP packet of 20 bytes, whose first 8 carry id, at the DSN the peer expects. */
static struct pair_datagram forge_authentic(const struct pair_side *from, uint8_t uplink_id, uint64_t counter,
					    uint64_t id)
{
	uint8_t body[WB_FRAME_DATA_HEADER + 20] = { 0 };

	wb_frame_put_data_header(body, next_dsn_at_peer(from), 20);
	memcpy(body + WB_FRAME_DATA_HEADER, &id, sizeof(id));
	return forge_body(from, uplink_id, counter, body, sizeof(body));
}

static void test_data_with_uplink_id_16_or_more_is_refused(void **state)
{
	static const uint8_t ids[] = { 16, 17, 100, 255 };
	struct pair_datagram d;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	/* The forgery is right: on uplink 0 with a fresh counter it is delivered. */
	d = forge_authentic(&p.client, 0, 1000000, 42);
	pair_inject(&p, &p.server, &d);
	assert_int_equal(p.server.n_delivered, 1);
	for (size_t k = 0; k < sizeof(ids); k++) {
		d = forge_authentic(&p.client, ids[k], 7, 43);
		pair_inject(&p, &p.server, &d);
		assert_int_equal(bondc(&p.server)->auth_failures, k + 1);
		d = forge_authentic(&p.server, ids[k], 7, 44);
		pair_inject(&p, &p.client, &d);
		assert_int_equal(bondc(&p.client)->auth_failures, k + 1);
	}
	assert_int_equal(p.server.n_delivered, 1);
	assert_int_equal(p.client.n_delivered, 0);
	assert_int_equal(bondc(&p.server)->malformed, 0);
	/* And the server made no uplink for them (its slots end at 15 anyway). */
	for (unsigned i = 2; i < WB_MAX_UPLINKS; i++)
		assert_null(wb_bond_uplink(sbond(), i));
}

/*
 * An authenticated body whose frames do not all parse: none of them acts
 * (not even the IP packet before the bad frame), and it is counted.
 */
static void test_authenticated_malformed_body_acts_not_at_all(void **state)
{
	uint8_t body[64] = { 0 };
	struct pair_datagram d;
	const struct wb_uplink *u;
	uint64_t rx_packets, sent;
	size_t n;
	uint64_t id = 55;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	u = uplink(&p.server, 0);
	rx_packets = u->c.rx_packets;
	sent = p.server.sent;
	/* An IP packet, a probe (which would be answered), then a frame of no known type. */
	wb_frame_put_data_header(body, next_dsn_at_peer(&p.client), 20);
	memcpy(body + WB_FRAME_DATA_HEADER, &id, sizeof(id));
	n = WB_FRAME_DATA_HEADER + 20;
	n += wb_frame_put_probe(body + n, &(struct wb_probe){ 1, p.now, 1 });
	body[n++] = 0x7f;
	d = forge_body(&p.client, 0, 1000000, body, n);
	pair_inject(&p, &p.server, &d);
	assert_int_equal(bondc(&p.server)->malformed, 1);
	assert_int_equal(p.server.n_delivered, 0);
	assert_int_equal(p.server.sent, sent);
	assert_int_equal(u->c.rx_packets, rx_packets);
	/* Without the bad frame, the same frames act. */
	n--;
	d = forge_body(&p.client, 0, 1000001, body, n);
	pair_inject(&p, &p.server, &d);
	assert_int_equal(bondc(&p.server)->malformed, 1);
	assert_int_equal(p.server.n_delivered, 1);
	assert_int_equal(p.server.sent, sent + 1);
	assert_int_equal(u->c.rx_packets, rx_packets + 1);
}

/* A probe ack echoes our own clock: one from the future is no answer (and no RTT sample). */
static void test_probe_ack_from_the_future_is_ignored(void **state)
{
	uint8_t body[64];
	struct pair_datagram d;
	const struct wb_uplink *u;
	uint64_t acks, last;
	size_t n;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	u = uplink(&p.client, 0);
	acks = u->c.probe_acks;
	last = u->last_answer_ns;
	p.now += 1 * MS;
	n = wb_frame_put_probe_ack(body, &(struct wb_probe_ack){ 999, p.now + 1, 0, 0 });
	d = forge_body(&p.server, 0, 1000000, body, n);
	pair_inject(&p, &p.client, &d);
	assert_int_equal(u->c.probe_acks, acks);
	assert_int_equal(u->last_answer_ns, last);
	/* The same echoing now: an answer. */
	n = wb_frame_put_probe_ack(body, &(struct wb_probe_ack){ 999, p.now, 0, 0 });
	d = forge_body(&p.server, 0, 1000001, body, n);
	pair_inject(&p, &p.client, &d);
	assert_int_equal(u->c.probe_acks, acks + 1);
	assert_int_equal(u->last_answer_ns, p.now);
}

/* ---- uplinks: reordering, failover, backup, roaming ------------------------------------------ */

/*
 * Uplink 1 has 150 ms more delay each way than uplink 0: what it carries
 * arrives thousands of packets behind what uplink 0 carries at the same
 * time. The reorder buffer puts every packet back in order, and none is
 * lost or resent.
 */
static void test_two_uplinks_reordered_by_thousands_are_put_back_in_order(void **state)
{
	const size_t n = 20000;
	uint64_t sent1;

	(void)state;
	/*
	 * Without the rules that keep a slow uplink from blocking the window
	 * and from delivering late: here it must carry some.
	 */
	established_up(&(struct pair_options){
		.tuning.sched_off = WB_SCHED_RULE_AVOID_BLOCKING | WB_SCHED_RULE_ARRIVAL }, 2);
	p.delay_ns[1] = 150 * MS;
	pair_run_until(&p, p.now + 2 * SEC);
	assert_int_equal(uplink(&p.server, 1)->state, WB_UPLINK_UP);
	sent1 = data_sent_on(&p.server, 1);
	for (size_t i = 1; i <= n; i++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, i, 60 + i % 1000), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_delivered_in_order(&p.client, n);
	/*
	 * Uplink 1 did carry packets (the scheduler gives it one when uplink 0
	 * cannot take it at once), and the client held thousands of packets
	 * behind them.
	 */
	assert_true(data_sent_on(&p.server, 1) - sent1 >= 10);
	assert_true(bondc(&p.client)->reorder_held_max >= 1000 * WB_WINDOW_MIN_UNIT);
	assert_int_equal(bondc(&p.client)->reorder_skips, 0);
	assert_int_equal(bondc(&p.client)->rx_beyond_window, 0);
	assert_int_equal(bondc(&p.client)->replays, 0);
	assert_int_equal(bondc(&p.client)->auth_failures, 0);
	assert_int_equal(bondc(&p.server)->retransmits, 0);
	assert_int_equal(bondc(&p.client)->rx_duplicates, 0);
}

/*
 * Uplink 1 dies for 2.5 s (its datagrams lost both ways), with or without
 * traffic; records when each side saw it stale and down, the last answer
 * before it died, and how many IP packets each side had sent on it when
 * it first saw it out of use.
 */
struct failover {
	struct watch c, s;
	uint64_t start, last_c, last_s;
	uint64_t sent_c, sent_s; /* on uplink 1, when first seen not up */
	uint64_t ids;            /* ids 1 .. ids - 1 were sent each way */
};

enum traffic { IDLE, LIGHT, BURSTS };

/* LIGHT: a packet each way every 10 ms (all on uplink 0); BURSTS: 20 at once, so both uplinks carry some. */
static void run_failover(struct failover *f, enum traffic busy)
{
	uint64_t id = 1;

	memset(f, 0, sizeof(*f));
	established_up(&(struct pair_options){ 0 }, 2);
	f->start = p.now;
	f->last_c = uplink(&p.client, 1)->last_answer_ns;
	f->last_s = uplink(&p.server, 1)->last_answer_ns;
	f->sent_c = f->sent_s = UINT64_MAX;
	assert_true(f->last_c > 0 && f->last_s > 0);
	while (p.now < f->start + 2500 * MS) {
		for (int k = 0; k < (busy == BURSTS ? 20 : busy == LIGHT); k++) {
			assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
			assert_int_equal(pair_send_ip(&p, &p.server, id, 1000), 0);
			id++;
		}
		pair_run_until_dropping(&p, p.now + 10 * MS, 1);
		watch(&f->c, &p.client, 1);
		watch(&f->s, &p.server, 1);
		if (f->sent_c == UINT64_MAX && uplink(&p.client, 1)->state != WB_UPLINK_UP)
			f->sent_c = data_sent_on(&p.client, 1);
		if (f->sent_s == UINT64_MAX && uplink(&p.server, 1)->state != WB_UPLINK_UP)
			f->sent_s = data_sent_on(&p.server, 1);
	}
	f->ids = id;
	assert_true(f->c.at[WB_UPLINK_STALE] && f->c.at[WB_UPLINK_DOWN]);
	assert_true(f->s.at[WB_UPLINK_STALE] && f->s.at[WB_UPLINK_DOWN]);
	assert_true(f->c.at[WB_UPLINK_STALE] < f->c.at[WB_UPLINK_DOWN]);
	assert_true(f->s.at[WB_UPLINK_STALE] < f->s.at[WB_UPLINK_DOWN]);
}

static void test_failover_to_the_other_uplink_and_back(void **state)
{
	const struct wb_timers t = WB_TIMERS_DEFAULT;
	struct failover f;
	uint64_t acks_c, acks_s, c0, s0, c1, s1, up_acks_c = 0, up_acks_s = 0;
	size_t before_c, before_s;
	bool probing_c = false, probing_s = false;

	(void)state;
	run_failover(&f, BURSTS);
	/*
	 * Stale after two probe intervals and the RTT allowance of silence (the RTT
	 * is 0 here, so its allowance is too); down within uplink_timeout and a
	 * margin of one probe interval plus that stale delay (see
	 * test_uplink_is_down_after_uplink_timeout_of_silence for the exact bound).
	 */
	assert_true(f.c.at[WB_UPLINK_STALE] - f.last_c <= 2 * t.probe_interval_ns + 10 * MS);
	assert_true(f.s.at[WB_UPLINK_STALE] - f.last_s <= 2 * t.probe_interval_ns + 10 * MS);
	assert_true(f.c.at[WB_UPLINK_DOWN] - f.last_c <= t.uplink_timeout_ns + 3 * t.probe_interval_ns);
	assert_true(f.s.at[WB_UPLINK_DOWN] - f.last_s <= t.uplink_timeout_ns + 3 * t.probe_interval_ns);
	assert_int_equal(uplink(&p.client, 0)->state, WB_UPLINK_UP);
	assert_int_equal(uplink(&p.server, 0)->state, WB_UPLINK_UP);
	/* Once out of use, uplink 1 took no IP packet, new or resent. */
	assert_int_equal(data_sent_on(&p.client, 1), f.sent_c);
	assert_int_equal(data_sent_on(&p.server, 1), f.sent_s);
	/* What it swallowed was resent on uplink 0: every packet arrived, once, in order. */
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0x2));
	assert_delivered_in_order(&p.server, f.ids - 1);
	assert_delivered_in_order(&p.client, f.ids - 1);
	assert_true(uplink(&p.client, 0)->c.retransmits > 0);
	assert_true(uplink(&p.server, 0)->c.retransmits > 0);

	/* New IP packets all go to uplink 0, both ways, and all arrive. */
	before_c = p.client.n_delivered;
	before_s = p.server.n_delivered;
	c0 = data_sent_on(&p.client, 0);
	s0 = data_sent_on(&p.server, 0);
	for (uint64_t id = 1000000; id < 1000100; id++) {
		assert_int_equal(pair_send_ip_waiting_mask(&p, &p.client, id, 300, 0x2), 0);
		assert_int_equal(pair_send_ip_waiting_mask(&p, &p.server, id, 300, 0x2), 0);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0x2));
	assert_int_equal(data_sent_on(&p.client, 0) - c0, 100);
	assert_int_equal(data_sent_on(&p.server, 0) - s0, 100);
	assert_int_equal(data_sent_on(&p.client, 1), f.sent_c);
	assert_int_equal(data_sent_on(&p.server, 1), f.sent_s);
	assert_in_order_from(&p.server, before_s, 1000000, 100);
	assert_in_order_from(&p.client, before_c, 1000000, 100);

	/* Uplink 1 works again: probing, and up only after 3 answers in a row (checked at the end). */
	acks_c = uplink(&p.client, 1)->c.probe_acks;
	acks_s = uplink(&p.server, 1)->c.probe_acks;
	for (int k = 0; k < 300; k++) {
		const struct wb_uplink *uc = uplink(&p.client, 1), *us = uplink(&p.server, 1);

		probing_c |= uc->state == WB_UPLINK_PROBING;
		probing_s |= us->state == WB_UPLINK_PROBING;
		if (uc->state == WB_UPLINK_UP && !up_acks_c)
			up_acks_c = uc->c.probe_acks - acks_c;
		if (us->state == WB_UPLINK_UP && !up_acks_s)
			up_acks_s = us->c.probe_acks - acks_s;
		if (uc->state == WB_UPLINK_UP && us->state == WB_UPLINK_UP)
			break;
		pair_run_until(&p, p.now + 10 * MS);
	}
	assert_true(probing_c && probing_s);
	assert_int_equal(uplink(&p.client, 1)->state, WB_UPLINK_UP);
	assert_int_equal(uplink(&p.server, 1)->state, WB_UPLINK_UP);
	/*
	 * And it carries traffic again: with uplink 0 out of use, a burst
	 * each way goes over uplink 1. (With both, uplink 0, which these
	 * links give no rate limit, delivers every packet first: the arrival
	 * rule would keep the burst there.)
	 */
	wb_bond_set_uplink_available(p.client.bond, 0, false, p.now, NULL);
	wb_bond_set_uplink_available(p.server.bond, 0, false, p.now, NULL);
	before_c = p.client.n_delivered;
	before_s = p.server.n_delivered;
	c1 = data_sent_on(&p.client, 1);
	s1 = data_sent_on(&p.server, 1);
	for (uint64_t id = 2000000; id < 2002000; id++) {
		assert_int_equal(pair_send_ip(&p, &p.client, id, 300), 0);
		assert_int_equal(pair_send_ip(&p, &p.server, id, 300), 0);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_true(data_sent_on(&p.client, 1) - c1 >= 10);
	assert_true(data_sent_on(&p.server, 1) - s1 >= 10);
	assert_in_order_from(&p.server, before_s, 2000000, 2000);
	assert_in_order_from(&p.client, before_c, 2000000, 2000);
	/* uplink.h: "probing --3 answers in a row--> up": three probe acks at least when it went up. */
	assert_true(up_acks_c >= WB_UPLINK_UP_AFTER_ACKS);
	assert_true(up_acks_s >= WB_UPLINK_UP_AFTER_ACKS);
}

static void test_idle_uplink_dies_as_fast_as_a_busy_one(void **state)
{
	struct failover busy, idle;

	(void)state;
	run_failover(&busy, LIGHT);
	pair_free(&p);
	memset(&p, 0, sizeof(p));
	run_failover(&idle, IDLE);
	/* The same seed and schedule: the same probes, so the same times to the nanosecond. */
	assert_int_equal(idle.c.at[WB_UPLINK_STALE] - idle.last_c, busy.c.at[WB_UPLINK_STALE] - busy.last_c);
	assert_int_equal(idle.c.at[WB_UPLINK_DOWN] - idle.last_c, busy.c.at[WB_UPLINK_DOWN] - busy.last_c);
	assert_int_equal(idle.s.at[WB_UPLINK_DOWN] - idle.last_s, busy.s.at[WB_UPLINK_DOWN] - busy.last_s);
	assert_true(idle.c.at[WB_UPLINK_DOWN] < idle.start + 2500 * MS);
}

/*
 * uplink.h: "silence" is time without an answer; down after uplink_timeout
 * of it (wanbond.h: "down after a second of silence"), however long the
 * uplink was stale before. (It once came uplink_timeout after going stale:
 * 1.5 s after the last answer with the default timers.)
 */
static void test_uplink_is_down_after_uplink_timeout_of_silence(void **state)
{
	const struct wb_timers t = WB_TIMERS_DEFAULT;
	struct failover f;

	(void)state;
	run_failover(&f, IDLE);
	/* Timers run at their deadlines: exactly uplink_timeout (and a nanosecond) after the last answer. */
	assert_true(f.c.at[WB_UPLINK_DOWN] - f.last_c <= t.uplink_timeout_ns + 1 * MS);
	assert_true(f.s.at[WB_UPLINK_DOWN] - f.last_s <= t.uplink_timeout_ns + 1 * MS);
	assert_true(f.c.at[WB_UPLINK_DOWN] - f.last_c >= t.uplink_timeout_ns);
	assert_true(f.s.at[WB_UPLINK_DOWN] - f.last_s >= t.uplink_timeout_ns);
}

/*
 * Drops every other answer to the client's probes on uplink 1: the server's
 * messages there that carry a probe ack (the ack of the probe's packet
 * number rides in the same message, and is lost with it).
 */
static bool drop_every_other_answer_on_uplink_1(struct pair *pp, const struct pair_side *from,
						const struct pair_datagram *d, void *arg)
{
	unsigned *n = arg;

	(void)pp;
	if (!from->is_server || pair_datagram_uplink(d) != 1 || !carries(from, d, WB_FRAME_PROBE_ACK, NULL))
		return false;
	return (*n)++ % 2 == 1;
}

/*
 * uplink.h: "down --answer--> probing --3 answers in a row--> up". An uplink
 * that comes back answering only every other probe never answers 3 in a row:
 * it must stay probing (its silences, 500 ms, are too short to take it down).
 */
static void test_probing_needs_three_answers_in_a_row(void **state)
{
	struct failover f;
	unsigned n = 0;
	bool up = false;

	(void)state;
	run_failover(&f, IDLE);
	assert_int_equal(uplink(&p.client, 1)->state, WB_UPLINK_DOWN);
	p.filter = drop_every_other_answer_on_uplink_1;
	p.filter_arg = &n;
	for (int k = 0; k < 300; k++) {
		pair_run_until(&p, p.now + 10 * MS);
		up |= uplink(&p.client, 1)->state == WB_UPLINK_UP;
	}
	assert_true(n >= 8); /* answers went by, half of them lost */
	assert_true(uplink(&p.client, 1)->c.probe_acks >= 4);
	assert_true(!up);
}

/* The scheduler no longer spreads by weight: no IP packet over a backup while another uplink is up. */
static void test_backup_uplink_only_when_the_others_are_down(void **state)
{
	uint64_t c2, s2, c01, s01;
	size_t before_c, before_s;

	(void)state;
	established_up(&(struct pair_options){ .n_uplinks = 3, .backup_last = true }, 3);
	assert_true(uplink(&p.server, 2)->backup); /* learnt from the client's uplink info */
	for (uint64_t id = 1; id <= 3000; id++) {
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 300), 0);
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, id, 300), 0);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 3000);
	assert_delivered_in_order(&p.client, 3000);
	assert_int_equal(data_sent_on(&p.client, 2), 0);
	assert_int_equal(data_sent_on(&p.server, 2), 0);
	assert_int_equal(uplink(&p.client, 0)->c.data_packets + uplink(&p.client, 1)->c.data_packets, 3000);
	assert_int_equal(uplink(&p.server, 0)->c.data_packets + uplink(&p.server, 1)->c.data_packets, 3000);

	/* Uplinks 0 and 1 die: traffic moves to the backup, once they are out of use. */
	for (int k = 0; k < 300; k++) {
		pair_run_until_dropping_mask(&p, p.now + 10 * MS, 0x3);
		if (uplink(&p.client, 0)->state == WB_UPLINK_DOWN && uplink(&p.client, 1)->state == WB_UPLINK_DOWN &&
		    uplink(&p.server, 0)->state == WB_UPLINK_DOWN && uplink(&p.server, 1)->state == WB_UPLINK_DOWN)
			break;
	}
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(uplink(&p.client, i)->state, WB_UPLINK_DOWN);
		assert_int_equal(uplink(&p.server, i)->state, WB_UPLINK_DOWN);
	}
	assert_int_equal(uplink(&p.client, 2)->state, WB_UPLINK_UP);
	assert_int_equal(uplink(&p.server, 2)->state, WB_UPLINK_UP);
	assert_true(wb_bond_has_session(cbond()));
	before_c = p.client.n_delivered;
	before_s = p.server.n_delivered;
	for (uint64_t id = 10001; id <= 10100; id++) {
		assert_int_equal(pair_send_ip_waiting_mask(&p, &p.client, id, 300, 0x3), 0);
		assert_int_equal(pair_send_ip_waiting_mask(&p, &p.server, id, 300, 0x3), 0);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0x3));
	assert_int_equal(uplink(&p.client, 2)->c.data_packets, 100);
	assert_int_equal(uplink(&p.server, 2)->c.data_packets, 100);
	assert_in_order_from(&p.client, before_c, 10001, 100);
	assert_in_order_from(&p.server, before_s, 10001, 100);

	/* They come back: the backup rests again. */
	pair_run_until(&p, p.now + 2 * SEC);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(uplink(&p.client, i)->state, WB_UPLINK_UP);
		assert_int_equal(uplink(&p.server, i)->state, WB_UPLINK_UP);
	}
	c2 = data_sent_on(&p.client, 2);
	s2 = data_sent_on(&p.server, 2);
	c01 = data_sent_on(&p.client, 0) + data_sent_on(&p.client, 1);
	s01 = data_sent_on(&p.server, 0) + data_sent_on(&p.server, 1);
	for (uint64_t id = 20001; id <= 23000; id++) {
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 300), 0);
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, id, 300), 0);
	}
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_int_equal(data_sent_on(&p.client, 2), c2);
	assert_int_equal(data_sent_on(&p.server, 2), s2);
	assert_int_equal(data_sent_on(&p.client, 0) + data_sent_on(&p.client, 1) - c01, 3000);
	assert_int_equal(data_sent_on(&p.server, 0) + data_sent_on(&p.server, 1) - s01, 3000);
}

static void test_roaming_follows_authenticated_packets_only(void **state)
{
	const struct wb_endpoint moved = { .family = 4, .port = 50000, .addr = { 198, 51, 100, 7 } };
	struct wb_endpoint old;
	struct pair_datagram msg, bad;
	uint64_t misaddressed, tx0;
	size_t before;

	(void)state;
	established_up(&(struct pair_options){ .drop_misaddressed = true }, 2);
	old = p.client_ep[0];
	assert_true(wb_endpoint_equal(&uplink(&p.server, 0)->endpoint, &old));

	/* An authentic message (a probe on uplink 0), replayed from another address: refused, the endpoint stays. */
	wb_bond_send_probe(cbond(), &cbond()->uplinks[0], p.now);
	msg = p.client.queue[p.client.queued - 1];
	assert_int_equal(pair_datagram_uplink(&msg), 0);
	pair_flush(&p);
	bad = msg;
	bad.from = elsewhere;
	pair_inject(&p, &p.server, &bad);
	assert_int_equal(bondc(&p.server)->replays, 1);
	/* Garbage with the right receiver index, from another address: refused, the endpoint stays. */
	for (int k = 0; k < 64; k++) {
		bad = msg;
		bad.from = elsewhere;
		for (size_t i = 8; i < bad.len; i++)
			bad.data[i] = (uint8_t)(i * 31 + (size_t)k);
		pair_inject(&p, &p.server, &bad);
	}
	assert_int_equal(bondc(&p.server)->auth_failures, 64);
	assert_true(wb_endpoint_equal(&uplink(&p.server, 0)->endpoint, &old));
	assert_int_equal(uplink(&p.server, 0)->c.endpoint_changes, 0);

	/* The client's NAT gives uplink 0 a new address: its next authenticated packet moves the server. */
	p.client_ep[0] = moved;
	pair_run_until(&p, p.now + 300 * MS); /* a probe at least */
	assert_true(wb_endpoint_equal(&uplink(&p.server, 0)->endpoint, &moved));
	assert_int_equal(uplink(&p.server, 0)->c.endpoint_changes, 1);
	assert_int_equal(uplink(&p.server, 1)->c.endpoint_changes, 0);

	/* Traffic to the client goes to the new address and arrives there. */
	misaddressed = p.misaddressed;
	before = p.client.n_delivered;
	tx0 = uplink(&p.server, 0)->c.tx_packets;
	for (uint64_t id = 100; id < 2100; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, id, 400), 0);
	for (size_t i = 0; i < p.server.queued; i++)
		if (pair_datagram_uplink(&p.server.queue[i]) == 0)
			assert_true(wb_endpoint_equal(&p.server.queue[i].to, &moved));
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_in_order_from(&p.client, before, 100, 2000);
	assert_int_equal(p.misaddressed, misaddressed);
	assert_true(uplink(&p.server, 0)->c.tx_packets > tx0);
	pair_run_until(&p, p.now + 1 * SEC);
	assert_int_equal(p.misaddressed, misaddressed);
	assert_int_equal(uplink(&p.server, 0)->state, WB_UPLINK_UP);
	assert_int_equal(uplink(&p.client, 0)->state, WB_UPLINK_UP);
}

/* ---- the reliable layer ------------------------------------------------------------------------ */

/* Drops the client's first message that carries the IP packet of a given id, once. */
struct drop_one {
	uint64_t id;
	unsigned dropped;
	int uplink; /* where it travelled */
};

static bool drop_one_data(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	struct drop_one *o = arg;
	uint64_t id;

	(void)pp;
	if (from->is_server || o->dropped || !carries(from, d, WB_FRAME_DATA, &id) || id != o->id)
		return false;
	o->dropped++;
	o->uplink = pair_datagram_uplink(d);
	return true;
}

static void test_a_lost_data_datagram_is_resent_and_delivered_in_order(void **state)
{
	struct drop_one o = { .id = 40 };

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	p.filter = drop_one_data;
	p.filter_arg = &o;
	for (uint64_t id = 1; id <= 200; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 500), 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_int_equal(o.dropped, 1);
	assert_delivered_in_order(&p.server, 200);
	/* Resent once, and counted. */
	assert_int_equal(bondc(&p.client)->retransmits, 1);
	assert_int_equal(bondc(&p.client)->retransmit_bytes, 500);
	assert_int_equal(uplink(&p.client, 0)->c.retransmits + uplink(&p.client, 1)->c.retransmits, 1);
	assert_int_equal(uplink(&p.client, 0)->c.data_packets + uplink(&p.client, 1)->c.data_packets, 200);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	assert_int_equal(bondc(&p.server)->rx_duplicates, 0);
	/* The client's send buffer is empty: all acknowledged. */
	assert_int_equal(cbond()->snd.una, cbond()->snd.nxt);
}

struct lose_bond_acks {
	uint64_t until;
	unsigned dropped;
};

/* Loses every datagram of the server that carries a bond ack, until a time. */
static bool drop_bond_acks(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	struct lose_bond_acks *l = arg;

	if (!from->is_server || pp->now >= l->until || !carries(from, d, WB_FRAME_BOND_ACK, NULL))
		return false;
	l->dropped++;
	return true;
}

/*
 * The bond acks are lost for a while, with the sender's window full: the
 * uplink acks that travel without them (answers to probes and resends)
 * tell the sender every DSN arrived, so it has nothing to resend, and the
 * receiver has nothing new to acknowledge. Probes and their answers carry
 * the bond ack again, and the bond's timeout sends snd_una again even if it
 * arrived: the transfer goes on as soon as the acks do.
 */
static void test_lost_bond_acks_with_the_window_full_do_not_stall_the_bond(void **state)
{
	struct pair_options o = { .tuning.receive_window = 64 * 1024 };
	struct lose_bond_acks l = { 0 };

	(void)state;
	established_up(&o, 1);
	l.until = p.now + 300 * MS;
	p.filter = drop_bond_acks;
	p.filter_arg = &l;
	for (uint64_t id = 1; id <= 200; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
	pair_run_until(&p, l.until);
	assert_true(l.dropped > 0);
	assert_true(sbond()->rcv.nxt > cbond()->snd.una);
	/* Within a second (a few probe intervals) it is done: before, it stopped for good here. */
	pair_run_until(&p, l.until + 1 * SEC);
	assert_delivered_in_order(&p.server, 200);
	assert_int_equal(cbond()->snd.una, cbond()->snd.nxt);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
}

/*
 * Uplink 1 dies with IP packets in flight on it: those are resent on
 * uplink 0, and arrive in order with everything else.
 */
static void test_data_lost_on_a_dead_uplink_is_resent_on_the_other(void **state)
{
	size_t counts[WB_MAX_UPLINKS];
	uint64_t on1 = 0, id;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	/* A burst: more than one uplink takes at once, so both carry some. */
	for (id = 1; id <= 40; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
	queued_per_uplink(&p.client, counts);
	for (size_t i = 0; i < p.client.queued; i++)
		on1 += pair_datagram_uplink(&p.client.queue[i]) == 1 &&
		       carries(&p.client, &p.client.queue[i], WB_FRAME_DATA, NULL);
	assert_true(on1 > 0 && counts[0] > 0);
	/* Uplink 1 is dead from now on, both ways. */
	for (; id <= 400; id++)
		assert_int_equal(pair_send_ip_waiting_mask(&p, &p.client, id, 1000, 0x2), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0x2));
	assert_delivered_in_order(&p.server, 400);
	assert_true(uplink(&p.client, 0)->c.retransmits >= on1);
	assert_int_equal(uplink(&p.client, 1)->c.retransmits, 0);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	assert_true(uplink(&p.client, 1)->state != WB_UPLINK_UP);
}

/*
 * The same DSN on two uplinks: its message on uplink 1 is late, so long that
 * the client resends it on uplink 0; then the late one arrives. Delivered
 * once, the second counted as a duplicate.
 */
static void test_the_same_dsn_on_two_uplinks_is_delivered_once(void **state)
{
	struct pair_datagram late = { 0 };
	uint64_t id = 0;
	bool found = false;

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(pair_send_ip(&p, &p.client, 1, 200), 0);
	assert_int_equal(pair_send_ip(&p, &p.client, 2, 200), 0);
	/* Take the one on uplink 1 off the wire. */
	for (size_t i = 0; i < p.client.queued; i++) {
		if (pair_datagram_uplink(&p.client.queue[i]) != 1 ||
		    !carries(&p.client, &p.client.queue[i], WB_FRAME_DATA, &id))
			continue;
		late = p.client.queue[i];
		memmove(&p.client.queue[i], &p.client.queue[i + 1], (p.client.queued - i - 1) * sizeof(late));
		p.client.queued--;
		found = true;
		break;
	}
	assert_true(found);
	assert_int_equal(id, 2);
	/* Its loss is found (a probe's ack on uplink 1 comes back, or a timeout) and it is resent on uplink 0. */
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 2);
	assert_int_equal(uplink(&p.client, 0)->c.retransmits, 1);
	assert_int_equal(bondc(&p.server)->rx_duplicates, 0);
	/* The late copy arrives after all. */
	pair_inject(&p, &p.server, &late);
	assert_delivered_in_order(&p.server, 2);
	assert_int_equal(bondc(&p.server)->rx_duplicates, 1);
	assert_int_equal(bondc(&p.server)->tun_tx_packets, 2);
}

/* Checks, at every datagram that arrives, that the client never has more than the window outstanding. */
struct window_watch {
	uint64_t window, most;
	unsigned checks;
};

static bool watch_window(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	struct window_watch *w = arg;

	(void)from, (void)d;
	if (pp->client.bond->snd.bytes > w->most)
		w->most = pp->client.bond->snd.bytes;
	w->checks++;
	return false;
}

static void test_the_receive_window_is_respected(void **state)
{
	struct pair_options o = { 0 };
	struct window_watch w = { .window = 64 * 1024 };

	(void)state;
	o.tuning.receive_window = w.window;
	established_up(&o, 2);
	assert_int_equal(cbond()->peer_rwnd, w.window);
	/* Uplink 1 is slow: what it carries holds up the window for its RTT. */
	p.delay_ns[1] = 30 * MS;
	pair_run_until(&p, p.now + 1 * SEC);
	p.filter = watch_window;
	p.filter_arg = &w;
	for (uint64_t id = 1; id <= 3000; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 1000), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_delivered_in_order(&p.server, 3000);
	assert_true(w.checks > 3000);
	/* The window was used, never exceeded; the receiver never had to refuse. */
	assert_true(w.most <= w.window);
	assert_true(w.most > w.window / 2);
	assert_true(bondc(&p.server)->reorder_held_max <= w.window);
	assert_int_equal(bondc(&p.server)->rx_beyond_window, 0);
}

/*
 * The two ends are configured apart: the server's receive window is 4 KB,
 * the client starts from its own 6 MB until the first bond ack says
 * otherwise, so its first burst overruns the server, whose reorder buffer
 * must refuse what does not fit (uplink 1 is slow: what uplink 0 brings
 * waits behind it). A refused packet is not acked on its uplink: the
 * client sees it lost and sends it again. Acked, it would count as
 * delivered, never be resent, and the server would skip it after the hold
 * time.
 */
static void test_a_dsn_refused_by_the_receiver_is_sent_again(void **state)
{
	const struct wb_bond_tuning small = { .receive_window = 4 * 1024, .no_aqm = true };
	struct pair_options o = { .tuning.no_aqm = true, .server_tuning = &small };

	(void)state;
	established_up(&o, 2);
	p.delay_ns[1] = 40 * MS;
	p.delay_ns[0] = 2 * MS;
	cbond()->peer_rwnd = 6ULL << 20; /* as before the server's first bond ack */
	for (uint64_t id = 1; id <= 300; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_true(bondc(&p.server)->rx_beyond_window > 0);
	assert_delivered_in_order(&p.server, 300);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	assert_true(bondc(&p.client)->retransmits >= bondc(&p.server)->rx_beyond_window);
}

/*
 * A caller that lends its send buffer (the daemon's batch) gets every data
 * message built and sealed there, and the same pointer back to send: none
 * is copied. The handshake's messages are built apart and copied.
 */
static void test_data_messages_are_sealed_in_a_lent_buffer(void **state)
{
	uint64_t client_sent, server_sent;

	(void)state;
	established_up(&(struct pair_options){ .lend_tx_buffers = true }, 2);
	assert_int_equal(p.client.sent - p.client.sent_in_place, 1); /* the initiation */
	assert_int_equal(p.server.sent - p.server.sent_in_place, 1); /* the response */
	client_sent = p.client.sent;
	server_sent = p.server.sent;
	for (uint64_t id = 1; id <= 100; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 1200), 0);
	assert_true(pair_settle(&p, p.now + 2 * SEC, 0));
	assert_delivered_in_order(&p.server, 100);
	assert_true(p.client.sent - client_sent >= 100 && p.server.sent > server_sent);
	assert_int_equal(p.client.sent - p.client.sent_in_place, 1);
	assert_int_equal(p.server.sent - p.server.sent_in_place, 1);
}

/*
 * An ack frame that names a packet number the uplink never sent (a bug or a
 * forged peer: the frame authenticates) is refused and counted. Taken as it
 * stands, the largest acked would be past everything in flight, and all of
 * it declared lost at once.
 */
static void test_an_ack_of_packets_never_sent_is_refused(void **state)
{
	struct wb_uplink *cu, *su;
	struct wb_ack ack = { .n = 1 };
	uint8_t buf[WB_DATA_OVERHEAD + WB_FRAME_ACK_MAX_LEN];
	uint64_t in_flight, lost;
	int n;

	(void)state;
	established_up(&(struct pair_options){ .n_uplinks = 1 }, 1);
	p.delay_ns[0] = 20 * MS;
	cu = &cbond()->uplinks[0];
	su = &sbond()->uplinks[0];
	for (uint64_t id = 1; id <= 10; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
	in_flight = cu->rec->bytes_in_flight;
	lost = cu->rec->lost_packets;
	assert_true(in_flight > 0);
	/* From the server, sealed as its next message on uplink 0: packets up to 1000 past the client's last. */
	ack.r[0] = (struct wb_range){ cu->rec->base, cu->tx_pn + 1000 };
	n = (int)wb_frame_put_ack(buf + WB_DATA_HEADER_LEN, &ack);
	n = wb_keypair_seal(sbond()->current, 0, su->tx_pn++, buf, (size_t)n);
	assert_true(n > 0);
	wb_device_receive(p.client.dev, p.now, 0, &p.server_ep, buf, (size_t)n);
	assert_int_equal(cu->rec->bytes_in_flight, in_flight);
	assert_int_equal(cu->rec->lost_packets, lost);
	assert_int_equal(cu->c.bad_acks, 1);
	assert_int_equal(bondc(&p.client)->malformed, 0);
	/* The rest goes on as if it had never come. */
	assert_true(pair_settle(&p, p.now + 2 * SEC, 0));
	assert_delivered_in_order(&p.server, 10);
	assert_int_equal(bondc(&p.client)->retransmits, 0);
}

/*
 * A DSN that can never arrive: its message is lost, and the sender is told
 * (by a bond ack crafted for it) that the receiver holds it, so it does not
 * resend it (until the bond's timeout, 200 ms at least: the hold time here
 * is shorter). The receiver holds what came after it for the hold time,
 * then skips the gap, counts it, and delivery goes on.
 */
static void test_a_gap_that_never_fills_is_skipped_after_the_hold_time(void **state)
{
	struct pair_options o = { 0 };
	struct pair_datagram d;
	struct wb_bond_ack back = { 0 };
	uint8_t body[WB_FRAME_BOND_ACK_MAX_LEN];
	uint64_t base = 0, id = 0, arrived;
	size_t n;

	(void)state;
	o.tuning.hold_ns = 100 * MS;
	established_up(&o, 2);
	base = sbond()->rcv.nxt;
	assert_int_equal(base, cbond()->snd.nxt);
	for (uint64_t k = 1; k <= 5; k++)
		assert_int_equal(pair_send_ip(&p, &p.client, k, 100), 0);
	/* The message with id 3 (DSN base + 2) is lost. */
	for (size_t i = 0; i < p.client.queued; i++) {
		if (!carries(&p.client, &p.client.queue[i], WB_FRAME_DATA, &id) || id != 3)
			continue;
		memmove(&p.client.queue[i], &p.client.queue[i + 1], (p.client.queued - i - 1) * sizeof(d));
		p.client.queued--;
		break;
	}
	assert_int_equal(id, 3);
	/* The client hears that the server holds it. */
	back.cum = base;
	back.rwnd = sbond()->tuning.receive_window;
	back.n = 1;
	back.s[0] = (struct wb_range){ base + 2, base + 2 };
	n = wb_frame_put_bond_ack(body, &back);
	/*
	 * A counter a little ahead of the server's: the client's replay window
	 * moves only that far (the server's own message with it will be refused,
	 * and resent if it matters).
	 */
	d = forge_body(&p.server, 0, sbond()->uplinks[0].tx_pn + 64, body, n);
	pair_inject(&p, &p.client, &d);
	assert_true(wb_sndbuf_get(&cbond()->snd, base + 2)->flags & WB_SND_DELIVERED);
	/* 1 and 2 delivered, 4 and 5 held. */
	pair_flush(&p);
	arrived = p.now;
	assert_in_order_from(&p.server, 0, 1, 2);
	assert_int_equal(sbond()->rcv.held, 2);
	assert_int_equal(wb_reorder_deadline(&sbond()->rcv, wb_bond_hold_ns(sbond())), arrived + 100 * MS);
	/* Held the hold time, not a nanosecond less. */
	pair_run_until(&p, arrived + 100 * MS - 1);
	assert_int_equal(p.server.n_delivered, 2);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	pair_run_until(&p, arrived + 100 * MS);
	assert_int_equal(bondc(&p.server)->reorder_skips, 1);
	assert_int_equal(p.server.n_delivered, 4);
	assert_int_equal(p.server.delivered[2], 4);
	assert_int_equal(p.server.delivered[3], 5);
	/* The client never resent it, and frees its buffer once the server's cum passes it. */
	assert_int_equal(bondc(&p.client)->retransmits, 0);
	/* And delivery goes on. */
	for (uint64_t k = 6; k <= 100; k++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, k, 100), 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_in_order_from(&p.server, 4, 6, 95);
	assert_int_equal(bondc(&p.server)->reorder_skips, 1);
	assert_int_equal(cbond()->snd.una, cbond()->snd.nxt);
}

/*
 * Every uplink goes out of use (nothing answers for 800 ms) while the
 * application keeps sending: the send queue sits far above the AQM's
 * target (5 ms, the default). Once the uplinks answer again (20 ms each
 * way, windows back at their minimum after the timeouts), the queue takes
 * far longer than CoDel's interval (100 ms) to drain, and CoDel drops from
 * its head; without AQM nothing is dropped. Either way nothing else is
 * lost, and what is delivered is in order.
 */
static uint64_t stale_then_drain(bool aqm)
{
	struct pair_options o = { 0 };
	uint64_t id = 1, until;

	o.tuning.no_aqm = !aqm;
	established_up(&o, 2);
	p.delay_ns[0] = p.delay_ns[1] = 20 * MS;
	pair_run_until(&p, p.now + 1 * SEC);
	until = p.now + 800 * MS;
	while (p.now < until) {
		for (int k = 0; k < 10; k++, id++)
			assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
		pair_run_until_dropping_mask(&p, p.now + 10 * MS, 0x3);
	}
	for (unsigned i = 0; i < 2; i++)
		assert_false(wb_uplink_usable(uplink(&p.client, i)));
	assert_true(cbond()->txq.n > 300);
	assert_int_equal(bondc(&p.client)->aqm_drops, 0); /* nothing leaves, nothing is judged yet */
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	/* Delivered in order, with gaps only for what CoDel dropped (it never had a DSN). */
	for (size_t i = 1; i < p.server.n_delivered; i++)
		assert_true(p.server.delivered[i] > p.server.delivered[i - 1]);
	assert_int_equal(p.server.n_delivered + bondc(&p.client)->aqm_drops, id - 1);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	assert_int_equal(bondc(&p.client)->queue_drops, 0);
	return bondc(&p.client)->aqm_drops;
}

static void test_codel_drops_from_a_queue_above_its_target(void **state)
{
	(void)state;
	assert_true(stale_then_drain(true) > 0);
}

static void test_no_aqm_drops_nothing(void **state)
{
	(void)state;
	assert_int_equal(stale_then_drain(false), 0);
}

/*
 * An outage longer than the send queue: the packets it has no room for
 * are counted as lost to the outage (no_uplink_drops), not as congestion
 * (queue_drops), and the account balances.
 */
static void test_a_full_queue_with_no_uplink_up_counts_no_uplink_drops(void **state)
{
	struct pair_options o = { 0 };
	uint64_t id = 1, refused = 0, rx0;

	(void)state;
	o.tuning.send_queue = 64 * 1024;
	established_up(&o, 2);
	pair_run_until(&p, p.now + 1 * SEC);
	/* Nothing answers: both uplinks go out of use. */
	pair_run_until_dropping_mask(&p, p.now + 2 * SEC, 0x3);
	for (unsigned i = 0; i < 2; i++)
		assert_false(wb_uplink_usable(uplink(&p.client, i)));
	rx0 = bondc(&p.client)->tun_rx_packets;
	for (; id <= 200; id++)
		if (pair_send_ip(&p, &p.client, id, 1000) == -ENOBUFS)
			refused++;
	assert_true(refused > 100); /* 64 KB hold about 60 of them */
	assert_int_equal(bondc(&p.client)->tun_rx_packets - rx0, 200);
	assert_int_equal(bondc(&p.client)->no_uplink_drops, refused);
	assert_int_equal(bondc(&p.client)->queue_drops, 0);
}

/* ---- cookies under load --------------------------------------------------------------------- */

struct handshake_tap {
	bool drop_responses;
	uint64_t responses, initiations, cookies;
	struct pair_datagram last_initiation;
};

static bool tap(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	struct handshake_tap *t = arg;

	(void)pp;
	if (!from->is_server && d->data[0] == WB_MSG_INITIATION) {
		t->initiations++;
		t->last_initiation = *d;
	}
	if (from->is_server && d->data[0] == WB_MSG_COOKIE)
		t->cookies++;
	if (from->is_server && d->data[0] == WB_MSG_RESPONSE) {
		t->responses++;
		return t->drop_responses;
	}
	return false;
}

/*
 * One initiation a second is the budget; the client retries every 100 ms
 * because the server's responses are lost. The first initiation is answered,
 * the second meets the load limit without mac2 and gets a cookie, and from
 * then on the initiations carry mac2 and are answered although the server is
 * still over its budget.
 */
static void cookie_under_load(int n_uplinks, struct handshake_tap *tp)
{
	struct wb_timers t = WB_TIMERS_DEFAULT;

	t.handshake_retry_ns = 100 * MS;
	memset(tp, 0, sizeof(*tp));
	tp->drop_responses = true;
	pair_init(&p, &(struct pair_options){ .n_uplinks = n_uplinks, .timers = t, .handshakes_per_second = 1 });
	p.filter = tap;
	p.filter_arg = tp;
	pair_run_until(&p, p.now + 550 * MS);
}

static void test_cookie_reply_under_load_then_mac2_is_answered(void **state)
{
	struct handshake_tap t;
	uint64_t under_load;

	(void)state;
	cookie_under_load(1, &t);
	assert_int_equal(t.initiations, 6);
	assert_int_equal(devc(&p.server)->cookie_replies_sent, 1);
	assert_int_equal(t.cookies, 1);
	assert_int_equal(bondc(&p.client)->cookies_received, 1);
	assert_int_equal(devc(&p.server)->under_load, 5);
	assert_int_equal(t.responses, 5); /* all but the one answered by a cookie */
	/* The last initiation carried a valid mac2 for its source. */
	assert_int_equal(wb_cookie_validate(&p.server.dev->cookies, &p.server.dev->local, t.last_initiation.data,
					    t.last_initiation.len, &t.last_initiation.from),
			 WB_MAC1_MAC2_OK);
	/* Responses get through again: the next initiation, still over budget, makes a session. */
	t.drop_responses = false;
	under_load = devc(&p.server)->under_load;
	pair_run_until(&p, p.now + 100 * MS);
	assert_true(wb_bond_has_session(cbond()));
	assert_int_equal(devc(&p.server)->under_load, under_load + 1);
	assert_int_equal(devc(&p.server)->cookie_replies_sent, 1);
	pair_run_until(&p, p.now + 100 * MS);
	assert_true(wb_bond_has_session(sbond()));
}

/*
 * The same with two uplinks. A cookie is bound to the source address, which
 * is the uplink's, and the client sends each initiation on the next uplink in
 * turn: each uplink needs a cookie of its own, and then its initiations with
 * mac2 are answered. (With one cookie per bond, the cookie of one uplink's
 * address made mac2 on the other: every initiation got a new cookie reply
 * instead of an answer, for as long as the server was over its budget.)
 */
static void test_cookie_under_load_with_two_uplinks(void **state)
{
	struct handshake_tap t;

	(void)state;
	cookie_under_load(2, &t);
	assert_int_equal(t.initiations, 6);
	assert_int_equal(devc(&p.server)->under_load, 5);
	/* One cookie per uplink, at most; every other initiation answered. */
	assert_true(devc(&p.server)->cookie_replies_sent <= 2);
	assert_int_equal(bondc(&p.client)->cookies_received, devc(&p.server)->cookie_replies_sent);
	assert_int_equal(t.responses, t.initiations - devc(&p.server)->cookie_replies_sent);
	assert_int_equal(wb_cookie_validate(&p.server.dev->cookies, &p.server.dev->local, t.last_initiation.data,
					    t.last_initiation.len, &t.last_initiation.from),
			 WB_MAC1_MAC2_OK);
	t.drop_responses = false;
	pair_run_until(&p, p.now + 100 * MS);
	assert_true(wb_bond_has_session(cbond()));
}

/*
 * A source with a valid cookie, under load, that sends initiations every 10
 * ms for 2 s (its responses are lost, so it keeps trying): after the first
 * burst, the server looks at 20 a second of them and drops the rest before
 * any Diffie-Hellman. Without the per-source limit it answered or refused
 * (both after the DH operations) every one.
 */
static void test_one_source_with_a_cookie_is_limited_to_20_a_second(void **state)
{
	struct wb_timers t = WB_TIMERS_DEFAULT;
	struct handshake_tap tp = { .drop_responses = true };
	const struct wb_device_counters *dc;
	uint64_t looked_at, lines;

	(void)state;
	t.handshake_retry_ns = 10 * MS;
	pair_init(&p, &(struct pair_options){ .n_uplinks = 1, .timers = t, .handshakes_per_second = 1 });
	p.filter = tap;
	p.filter_arg = &tp;
	pair_run_until(&p, p.now + 2000 * MS);
	dc = devc(&p.server);
	looked_at = tp.responses + bondc(&p.server)->handshakes_refused;
	assert_true(tp.initiations >= 190);
	assert_int_equal(dc->cookie_replies_sent, 1);
	/* One answered before the load limit, the burst, then 20 a second; the rest dropped. */
	assert_in_range(looked_at, 1 + WB_RATELIMIT_BURST + 30, 1 + WB_RATELIMIT_BURST + 2 * WB_RATELIMIT_PER_SECOND + 1);
	assert_int_equal(dc->rate_limited, tp.initiations - 1 - dc->cookie_replies_sent - looked_at + 1);
	/* The flood is summed up in the log, not a line per datagram. */
	lines = p.server.log_lines;
	assert_true(lines < 10);
}

/* A replayed initiation, 40 times a second: counted each time, logged once per 10 s. */
static void test_a_replayed_initiation_is_logged_once_per_interval(void **state)
{
	struct pair_datagram init;
	uint64_t lines;

	(void)state;
	pair_init(&p, &(struct pair_options){ 0 });
	wb_device_tick(p.client.dev, p.now);
	init = take_only_datagram(&p.client);
	pair_inject(&p, &p.server, &init);
	lines = p.server.log_lines;
	for (int i = 0; i < 400; i++) {
		p.now += 25 * MS;
		pair_inject(&p, &p.server, &init);
	}
	assert_int_equal(bondc(&p.server)->handshakes_refused, 400);
	assert_int_equal(devc(&p.server)->under_load, 0);
	assert_int_equal(p.server.log_lines - lines, 1);
	p.now += 25 * MS; /* 10 s after the first refusal: one line saying how many were held back */
	pair_inject(&p, &p.server, &init);
	assert_int_equal(p.server.log_lines - lines, 2);
}

static void test_bad_mac1_flood_costs_nothing_else(void **state)
{
	struct prng rng;
	uint64_t budget, checked, sent;
	struct wb_device_counters d0;

	(void)state;
	established_up(&(struct pair_options){ .handshakes_per_second = 1 }, 2);
	prng_seed(&rng, 99);
	budget = p.server.dev->load_budget_ns;
	checked = p.server.dev->load_checked_ns;
	sent = p.server.sent;
	d0 = *devc(&p.server);
	for (int k = 0; k < 1000; k++) {
		struct pair_datagram d = { .len = sizeof(struct wb_msg_initiation) };

		for (size_t i = 0; i < d.len; i++)
			d.data[i] = (uint8_t)prng_next(&rng);
		d.data[0] = WB_MSG_INITIATION;
		d.from = (struct wb_endpoint){ .family = 4, .port = (uint16_t)prng_next(&rng),
					       .addr = { 10, (uint8_t)k, (uint8_t)(k >> 8), 1 } };
		p.now += 1 * MS;
		pair_inject(&p, &p.server, &d);
	}
	assert_int_equal(devc(&p.server)->bad_mac1, d0.bad_mac1 + 1000);
	assert_int_equal(devc(&p.server)->under_load, d0.under_load);
	assert_int_equal(devc(&p.server)->cookie_replies_sent, d0.cookie_replies_sent);
	assert_int_equal(devc(&p.server)->unknown_peer, d0.unknown_peer);
	assert_int_equal(p.server.sent, sent);
	assert_int_equal(p.server.queued, 0);
	/* Not even the load budget moved. */
	assert_int_equal(p.server.dev->load_budget_ns, budget);
	assert_int_equal(p.server.dev->load_checked_ns, checked);
	assert_int_equal(bondc(&p.server)->handshakes_refused, 0);
}

/* ---- CLOSE, uplink info ---------------------------------------------------------------------- */

static void test_close_ends_the_server_session_and_the_client_comes_back(void **state)
{
	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	wb_bond_close(cbond(), p.now);
	pair_flush(&p);
	assert_int_equal(bondc(&p.server)->closes_received, 1);
	assert_false(wb_bond_has_session(sbond()));
	assert_null(sbond()->previous);
	assert_null(sbond()->next);
	assert_int_equal(p.server.dev->index.count, 0);
	/* The CLOSE sent on the other uplink finds no session any more. */
	assert_int_equal(devc(&p.server)->unknown_index, 1);
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(uplink(&p.server, i)->state, WB_UPLINK_DOWN);
	assert_int_equal(pair_send_ip(&p, &p.server, 1, 100), -ENOTCONN);

	/* The client notices the silence, handshakes again, and everything comes back. */
	pair_run_until(&p, p.now + 5 * SEC);
	assert_int_equal(bondc(&p.client)->handshakes_completed, 2);
	assert_true(wb_bond_has_session(cbond()));
	assert_true(wb_bond_has_session(sbond()));
	for (unsigned i = 0; i < 2; i++) {
		assert_int_equal(uplink(&p.client, i)->state, WB_UPLINK_UP);
		assert_int_equal(uplink(&p.server, i)->state, WB_UPLINK_UP);
	}
	assert_int_equal(pair_send_ip(&p, &p.client, 1, 100), 0);
	assert_int_equal(pair_send_ip(&p, &p.server, 1, 100), 0);
	pair_flush(&p);
	assert_each_delivered_once(&p.server, 1);
	assert_each_delivered_once(&p.client, 1);
}

static void test_server_learns_uplink_names_weights_and_backup(void **state)
{
	static const struct wb_uplink_params ups[3] = {
		{ .name = "dsl", .weight = 3 },
		{ .name = "lte-backup", .weight = 7, .backup = true },
		{ .name = "0123456789012345678901234567890", .weight = 5 }, /* the longest name */
	};

	(void)state;
	established_up(&(struct pair_options){ .n_uplinks = 3, .uplinks = ups }, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_string_equal(uplink(&p.server, i)->name, ups[i].name);
		assert_int_equal(uplink(&p.server, i)->weight, ups[i].weight);
		assert_int_equal(uplink(&p.server, i)->backup, ups[i].backup);
	}
	/*
	 * Weights no longer steer the spread (the scheduler goes by expected
	 * completion); what the server learnt of the backup does: nothing of
	 * its traffic goes there while the others are up.
	 */
	for (uint64_t id = 1; id <= 800; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.server, id, 100), 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.client, 800);
	assert_int_equal(data_sent_on(&p.server, 1), 0);
	assert_int_equal(uplink(&p.server, 0)->c.data_packets + uplink(&p.server, 2)->c.data_packets, 800);
	/* And it learns again when they change (a client restarted with another configuration). */
	snprintf(cbond()->uplinks[2].name, sizeof(cbond()->uplinks[2].name), "fibre");
	cbond()->uplinks[2].weight = 9;
	cbond()->uplinks[2].backup = true;
	pair_run_until(&p, p.now + 300 * MS);
	assert_string_equal(uplink(&p.server, 2)->name, "fibre");
	assert_int_equal(uplink(&p.server, 2)->weight, 9);
	assert_true(uplink(&p.server, 2)->backup);
}

/*
 * An uplink added at run time: it takes the first free slot, comes up once
 * its socket is there, the server learns its name, and it carries traffic.
 * A taken name, and a server, are refused.
 */
static void test_an_uplink_added_at_run_time_comes_up_and_carries_traffic(void **state)
{
	const struct wb_uplink_params fibre = { .name = "fibre", .weight = 2 };

	(void)state;
	established_up(&(struct pair_options){ 0 }, 2);
	assert_int_equal(wb_bond_add_uplink(cbond(), &fibre, p.now), 2);
	assert_int_equal(wb_bond_add_uplink(cbond(), &fibre, p.now), -EEXIST);
	assert_int_equal(wb_bond_add_uplink(sbond(), &fibre, p.now), -EPERM);
	assert_int_equal(uplink(&p.client, 2)->state, WB_UPLINK_DOWN); /* no socket yet */
	wb_bond_set_uplink_available(cbond(), 2, true, p.now, NULL);
	pair_run_until(&p, p.now + 1 * SEC);
	assert_int_equal(uplink(&p.client, 2)->state, WB_UPLINK_UP);
	assert_string_equal(uplink(&p.server, 2)->name, "fibre");
	assert_int_equal(uplink(&p.server, 2)->weight, 2);
	for (uint64_t id = 1; id <= 600; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 1000), 0);
	assert_true(pair_settle(&p, p.now + 5 * SEC, 0));
	assert_delivered_in_order(&p.server, 600);
	assert_true(data_sent_on(&p.client, 2) > 0);
}

/*
 * An uplink removed at run time with data in flight on it: that data goes
 * out again on the others and everything arrives once, in order; no entry
 * of the send buffer names it any more. Its slot is free for the next one,
 * whose packet numbers go on from where it stopped (a nonce never repeats
 * under the session's keys).
 */
static void test_an_uplink_removed_at_run_time_loses_nothing(void **state)
{
	const struct wb_uplink_params again = { .name = "again" };
	uint64_t id, tx_pn;
	size_t counts[WB_MAX_UPLINKS];

	(void)state;
	established_up(&(struct pair_options){ .n_uplinks = 3 }, 3);
	for (id = 1; id <= 60; id++)
		assert_int_equal(pair_send_ip(&p, &p.client, id, 1000), 0);
	queued_per_uplink(&p.client, counts);
	assert_true(counts[1] > 0);
	tx_pn = uplink(&p.client, 1)->tx_pn;
	assert_int_equal(wb_bond_remove_uplink(cbond(), 1, p.now), 0);
	assert_null(wb_bond_uplink(cbond(), 1));
	assert_int_equal(wb_bond_remove_uplink(cbond(), 1, p.now), -ENOENT);
	assert_int_equal(wb_bond_remove_uplink(sbond(), 0, p.now), -EPERM);
	for (uint64_t d = cbond()->snd.una; d < cbond()->snd.nxt; d++)
		assert_int_equal(wb_sndbuf_get(&cbond()->snd, d)->holders & 0x2, 0);
	/* What was queued on it never arrives: its socket is gone. */
	for (; id <= 400; id++)
		assert_int_equal(pair_send_ip_waiting_mask(&p, &p.client, id, 1000, 0x2), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0x2));
	assert_delivered_in_order(&p.server, 400);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	assert_int_equal(wb_bond_add_uplink(cbond(), &again, p.now), 1);
	assert_int_equal(uplink(&p.client, 1)->tx_pn, tx_pn);
	assert_int_equal(uplink(&p.client, 1)->c.tx_packets, 0);
}

/*
 * wb_device_receive takes a uint8_t buffer and asks for no alignment: a
 * handshake message at an odd address must work, and under UBSan must not
 * be read through a misaligned struct pointer (handshake.c once did).
 */
static void test_receive_of_a_misaligned_buffer(void **state)
{
	struct pair_datagram d;
	uint8_t *raw;

	(void)state;
	pair_init(&p, &(struct pair_options){ 0 });
	raw = malloc(sizeof(d.data) + 1);
	assert_non_null(raw);
	/* An initiation to the server, its response to the client, each at an odd address. */
	wb_device_tick(p.client.dev, p.now);
	d = take_only_datagram(&p.client);
	memcpy(raw + 1, d.data, d.len);
	wb_device_receive(p.server.dev, p.now, 0, &d.from, raw + 1, d.len);
	assert_non_null(sbond()->next);
	d = take_only_datagram(&p.server);
	assert_int_equal(d.data[0], WB_MSG_RESPONSE);
	memcpy(raw + 1, d.data, d.len);
	wb_device_receive(p.client.dev, p.now, 0, &d.from, raw + 1, d.len);
	assert_true(wb_bond_has_session(cbond()));
	/* And data, both ways. */
	pair_flush(&p);
	assert_int_equal(pair_send_ip(&p, &p.client, 9, 99), 0);
	d = take_only_datagram(&p.client);
	memcpy(raw + 1, d.data, d.len);
	wb_device_receive(p.server.dev, p.now, 0, &d.from, raw + 1, d.len);
	assert_int_equal(p.server.n_delivered, 1);
	free(raw);
}

/*
 * wanbond.h: "Anything that does not authenticate is counted". A response or
 * a cookie reply is for the initiator: a server that receives one must count
 * it (as a client counts an initiation it receives, in short_or_unknown).
 */
static void test_handshake_replies_received_by_a_server_are_counted(void **state)
{
	struct pair_datagram init, resp;
	uint64_t before;

	(void)state;
	pair_init(&p, &(struct pair_options){ 0 });
	wb_device_tick(p.client.dev, p.now);
	init = take_only_datagram(&p.client);
	/* An initiation to the client: counted. */
	before = devc(&p.client)->short_or_unknown + devc(&p.client)->unknown_index;
	pair_inject(&p, &p.client, &init);
	assert_int_equal(devc(&p.client)->short_or_unknown + devc(&p.client)->unknown_index, before + 1);
	/* A response to the server. */
	pair_inject(&p, &p.server, &init);
	resp = take_only_datagram(&p.server);
	resp.from = p.server_ep;
	before = devc(&p.server)->short_or_unknown + devc(&p.server)->unknown_index + devc(&p.server)->bad_mac1;
	pair_inject(&p, &p.server, &resp);
	assert_true(devc(&p.server)->short_or_unknown + devc(&p.server)->unknown_index +
				 devc(&p.server)->bad_mac1 == before + 1);
	/* A cookie reply to the server. */
	{
		struct pair_datagram cookie = { .from = p.server_ep, .len = sizeof(struct wb_msg_cookie) };

		cookie.data[0] = WB_MSG_COOKIE;
		memcpy(cookie.data + 4, init.data + 4, 4); /* the client's index: a real one, on the other side */
		before = devc(&p.server)->short_or_unknown + devc(&p.server)->unknown_index;
		pair_inject(&p, &p.server, &cookie);
		assert_true(devc(&p.server)->short_or_unknown + devc(&p.server)->unknown_index == before + 1);
	}
}

/* ---- the first two ------------------------------------------------------------------------- */

static void test_handshake_and_data_both_ways(void **state)
{
	(void)state;
	established(&(struct pair_options){ 0 });
	/* The server's session is confirmed by the client's first probes. */
	assert_true(wb_bond_has_session(p.server.bond));
	assert_int_equal(pair_send_ip(&p, &p.client, 0x1111, 100), 0);
	assert_int_equal(pair_send_ip(&p, &p.server, 0x2222, 1400), 0);
	pair_flush(&p);
	assert_int_equal(p.server.n_delivered, 1);
	assert_int_equal(p.server.delivered[0], 0x1111);
	assert_int_equal(p.client.n_delivered, 1);
	assert_int_equal(p.client.delivered[0], 0x2222);
}

static void test_every_uplink_comes_up(void **state)
{
	(void)state;
	established(&(struct pair_options){ .n_uplinks = 3 });
	pair_run_until(&p, p.now + 1 * SEC);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(wb_bond_uplink(p.client.bond, i)->state, WB_UPLINK_UP);
		assert_non_null(wb_bond_uplink(p.server.bond, i));
		assert_int_equal(wb_bond_uplink(p.server.bond, i)->state, WB_UPLINK_UP);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_handshake_and_data_both_ways, teardown),
		cmocka_unit_test_teardown(test_every_uplink_comes_up, teardown),
		cmocka_unit_test_teardown(test_an_uplink_added_at_run_time_comes_up_and_carries_traffic, teardown),
		cmocka_unit_test_teardown(test_an_uplink_removed_at_run_time_loses_nothing, teardown),
		cmocka_unit_test_teardown(test_wrong_server_key_is_dropped_at_mac1, teardown),
		cmocka_unit_test_teardown(test_server_not_knowing_the_client_sends_nothing, teardown),
		cmocka_unit_test_teardown(test_wrong_psk_is_refused_by_the_client, teardown),
		cmocka_unit_test_teardown(test_replayed_initiation_is_refused_and_changes_nothing, teardown),
		cmocka_unit_test_teardown(test_initiations_too_frequent_are_refused, teardown),
		cmocka_unit_test_teardown(test_rekey_under_traffic_loses_nothing, teardown),
		cmocka_unit_test_teardown(test_rekey_by_time_switches_without_loss, teardown),
		cmocka_unit_test_teardown(test_session_expires_when_the_peer_is_gone, teardown),
		cmocka_unit_test_teardown(test_no_pacing_wakeup_outlives_the_session, teardown),
		cmocka_unit_test_teardown(test_flipped_bit_in_data_is_refused_everywhere, teardown),
		cmocka_unit_test_teardown(test_replayed_data_is_delivered_once, teardown),
		cmocka_unit_test_teardown(test_truncated_data_is_short_or_refused, teardown),
		cmocka_unit_test_teardown(test_data_for_an_unknown_index_is_counted, teardown),
		cmocka_unit_test_teardown(test_data_with_uplink_id_16_or_more_is_refused, teardown),
		cmocka_unit_test_teardown(test_authenticated_malformed_body_acts_not_at_all, teardown),
		cmocka_unit_test_teardown(test_probe_ack_from_the_future_is_ignored, teardown),
		cmocka_unit_test_teardown(test_two_uplinks_reordered_by_thousands_are_put_back_in_order, teardown),
		cmocka_unit_test_teardown(test_failover_to_the_other_uplink_and_back, teardown),
		cmocka_unit_test_teardown(test_idle_uplink_dies_as_fast_as_a_busy_one, teardown),
		cmocka_unit_test_teardown(test_uplink_is_down_after_uplink_timeout_of_silence, teardown),
		cmocka_unit_test_teardown(test_probing_needs_three_answers_in_a_row, teardown),
		cmocka_unit_test_teardown(test_backup_uplink_only_when_the_others_are_down, teardown),
		cmocka_unit_test_teardown(test_roaming_follows_authenticated_packets_only, teardown),
		cmocka_unit_test_teardown(test_cookie_reply_under_load_then_mac2_is_answered, teardown),
		cmocka_unit_test_teardown(test_cookie_under_load_with_two_uplinks, teardown),
		cmocka_unit_test_teardown(test_one_source_with_a_cookie_is_limited_to_20_a_second, teardown),
		cmocka_unit_test_teardown(test_a_replayed_initiation_is_logged_once_per_interval, teardown),
		cmocka_unit_test_teardown(test_bad_mac1_flood_costs_nothing_else, teardown),
		cmocka_unit_test_teardown(test_close_ends_the_server_session_and_the_client_comes_back, teardown),
		cmocka_unit_test_teardown(test_server_learns_uplink_names_weights_and_backup, teardown),
		cmocka_unit_test_teardown(test_receive_of_a_misaligned_buffer, teardown),
		cmocka_unit_test_teardown(test_handshake_replies_received_by_a_server_are_counted, teardown),
		cmocka_unit_test_teardown(test_a_lost_data_datagram_is_resent_and_delivered_in_order, teardown),
		cmocka_unit_test_teardown(test_data_lost_on_a_dead_uplink_is_resent_on_the_other, teardown),
		cmocka_unit_test_teardown(test_lost_bond_acks_with_the_window_full_do_not_stall_the_bond, teardown),
		cmocka_unit_test_teardown(test_the_same_dsn_on_two_uplinks_is_delivered_once, teardown),
		cmocka_unit_test_teardown(test_the_receive_window_is_respected, teardown),
		cmocka_unit_test_teardown(test_a_dsn_refused_by_the_receiver_is_sent_again, teardown),
		cmocka_unit_test_teardown(test_an_ack_of_packets_never_sent_is_refused, teardown),
		cmocka_unit_test_teardown(test_data_messages_are_sealed_in_a_lent_buffer, teardown),
		cmocka_unit_test_teardown(test_a_gap_that_never_fills_is_skipped_after_the_hold_time, teardown),
		cmocka_unit_test_teardown(test_codel_drops_from_a_queue_above_its_target, teardown),
		cmocka_unit_test_teardown(test_no_aqm_drops_nothing, teardown),
		cmocka_unit_test_teardown(test_a_full_queue_with_no_uplink_up_counts_no_uplink_drops, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
