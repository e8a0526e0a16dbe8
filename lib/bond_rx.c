// SPDX-License-Identifier: MIT
/*
 * What a bond receives. A data message is one uplink packet: its packet
 * number goes to that uplink's acks, and its frames act in turn: data into
 * the reorder buffer (and on to the TUN device in DSN order), acks to the
 * uplink's recovery (and through it to the send buffer), the bond ack to
 * the send buffer, probes to the uplink's state.
 */
#include <stdio.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "frame.h"
#include "nsec.h"

/*
 * An ack of data: the uplink works both ways. It keeps an up uplink alive and
 * brings a stale one back, but only probe answers count towards the three in
 * a row a failed uplink needs (a probe's answer carries an ack as well).
 */
static void uplink_acked(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	if (!u->available)
		return; /* an answer to what it sent before it went out of use brings nothing back */
	u->last_answer_ns = now;
	if (u->state == WB_UPLINK_STALE)
		wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answers again");
}

/* One of our probes (or the handshake) was answered. */
void wb_bond_uplink_answered(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	/* Out of use (no socket, or switched off): answers to its last probes bring it back only once it is usable. */
	if (!u->available)
		return;
	u->last_answer_ns = now;
	u->answers_in_row++;
	switch (u->state) {
	case WB_UPLINK_DOWN:
		/* A first answer is enough for an uplink never seen up; one that failed must prove itself. */
		if (!u->ever_up)
			wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answers");
		else
			wb_bond_uplink_transition(b, u, WB_UPLINK_PROBING, now, "answers again");
		break;
	case WB_UPLINK_PROBING:
		if (u->answers_in_row >= WB_UPLINK_UP_AFTER_ACKS)
			wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answered 3 probes in a row");
		break;
	case WB_UPLINK_STALE:
		wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answers again");
		break;
	case WB_UPLINK_UP:
		break;
	}
}

static void on_probe_ack(struct wb_bond *b, struct wb_uplink *u, const struct wb_probe_ack *ack, uint64_t now)
{
	/* The echoed time is our own clock; a time ahead of now is not ours to trust. */
	if (ack->sent_ns > now)
		return;
	/* "In a row": an answer after a probe that got none starts the count again. */
	if (ack->seq != u->answered_seq + 1)
		u->answers_in_row = 0;
	if (ack->seq > u->answered_seq)
		u->answered_seq = ack->seq;
	u->c.probe_acks++;
	wb_uplink_note_loss(u, ack->tx_packets, ack->rx_packets);
	wb_rtt_sample(&u->rtt, now - ack->sent_ns);
	wb_bond_uplink_answered(b, u, now);
}

static void on_uplink_info(struct wb_bond *b, struct wb_uplink *u, const struct wb_uplink_info *info)
{
	/* Only a server learns uplinks from its peer; the client has its own configuration. */
	if (!b->dev->p.server)
		return;
	if (strcmp(u->name, info->name))
		wb_bond_log(b, WB_LOG_INFO, u, "uplink %u is named %s", u->id, info->name);
	snprintf(u->name, sizeof(u->name), "%s", info->name);
	u->backup = info->flags & WB_UPLINK_BACKUP;
	u->weight = info->weight ? info->weight : 1;
	wb_bond_check_failover(b);
}

/*
 * The uplink a data message came by. A server creates its slot on the first
 * message and follows its endpoint: any authenticated message from a new
 * address moves it there (NAT rebinding, a new LTE address).
 */
static struct wb_uplink *uplink_for_rx(struct wb_bond *b, uint8_t id, const struct wb_endpoint *from, uint64_t now)
{
	struct wb_uplink *u = &b->uplinks[id];
	char was[WB_ENDPOINT_STRLEN], is[WB_ENDPOINT_STRLEN];

	if (!b->dev->p.server)
		return u->exists ? u : NULL;
	if (!u->exists) {
		u->id = id;
		u->weight = 1;
		snprintf(u->name, sizeof(u->name), "uplink%u", id);
		if (wb_bond_uplink_start(b, u, now))
			return NULL;
		u->exists = true;
	}
	if (!u->available || !wb_endpoint_equal(&u->endpoint, from)) {
		wb_endpoint_format(was, &u->endpoint);
		wb_endpoint_format(is, from);
		wb_bond_log(b, WB_LOG_INFO, u, "endpoint %s -> %s", was, is);
		if (u->available) {
			char text[WB_ENDPOINT_STRLEN + 16];

			u->c.endpoint_changes++;
			snprintf(text, sizeof(text), "peer now at %s", is);
			wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_ADDRESS_CHANGE, .uplink = u->name,
							     .count = 1, .text = text });
		}
		if (u->available && u->state == WB_UPLINK_UP)
			wb_pmtu_restart(&u->pmtu, now); /* another path, perhaps */
		u->endpoint = *from;
		if (!u->available)
			u->available_since_ns = now;
		u->available = true;
		u->next_probe_ns = now;
		}
	return u;
}

/* ---- received messages ---------------------------------------------------------- */

/* The first pass: every frame must parse before any acts. It also says what the packet asks of our acks. */
static bool body_is_valid(const uint8_t *body, size_t len, bool *ack_eliciting, bool *urgent)
{
	const uint8_t *pos = body, *end = body + len;
	struct wb_frame f;
	int rc;

	*ack_eliciting = *urgent = false;
	while ((rc = wb_frame_next(&pos, end, &f)) > 0) {
		if (wb_frame_is_data(f.type) || f.type == WB_FRAME_PROBE)
			*ack_eliciting = true;
		if (f.type == WB_FRAME_PROBE)
			*urgent = true; /* a probe's sender times its answer: ack it at once */
	}
	return rc == 0;
}

void wb_bond_deliver_ip(void *ctx, const uint8_t *ip, size_t len)
{
	struct wb_bond *b = ctx;

	/* The DSN is used up either way; only allowed sources reach the TUN device. */
	if (!wb_source_allowed(b->allowed, b->n_allowed, ip, len)) {
		b->c.source_rejected++;
		return;
	}
	b->c.tun_tx_packets++;
	b->c.tun_tx_bytes += len;
	b->dev->ops.deliver(b->dev->ctx, b, ip, len);
}

/*
 * An interactive packet delivered: counted, and apart if it went ahead of
 * a gap; kept for the parity that may come, once one came (the decoder's
 * ring, 96 KiB, is allocated for a peer that sends parity, at its first).
 */
static void count_unordered(struct wb_bond *b, uint64_t dsn, const uint8_t *ip, uint16_t len)
{
	b->c.interactive_rx_packets++;
	b->c.interactive_rx_early = b->rcv.delivered_early;
	if (b->fec_rx.data)
		wb_fec_note_received(&b->fec_rx, dsn, ip, len);
}

/*
 * A parity of the interactive class: the one packet of its block that did
 * not come is rebuilt, delivered as if it had come, and acked with the
 * rest; its sender never resends it. A parity at odds with what came is
 * counted as malformed.
 */
static void on_parity(struct wb_bond *b, const struct wb_fec_parity *p, uint64_t now)
{
	uint8_t out[WB_FEC_MAX_PAYLOAD];
	uint64_t dsn;
	size_t len;
	int rc;

	if (!b->fec_rx.data) {
		/* The first parity: its block came before the ring did, the next ones are kept. */
		wb_fec_decoder_init(&b->fec_rx);
		return;
	}
	rc = wb_fec_recover(&b->fec_rx, p, b->rcv.nxt, &dsn, out, &len);
	if (rc < 0)
		b->c.malformed++;
	if (rc <= 0 || len > b->tuning.mtu)
		return;
	if (wb_reorder_receive_unordered(&b->rcv, dsn, out, (uint16_t)len, now, &b->pool, wb_bond_deliver_ip, b) !=
	    WB_REORDER_DELIVERED)
		return;
	b->c.fec_repaired++;
	b->c.interactive_rx_packets++;
	b->c.interactive_rx_early = b->rcv.delivered_early;
	b->bond_ack_pending = true;
}

/* Returns false if the reorder buffer had no room for it: then it is as if it never arrived. */
static bool on_data_frame(struct wb_bond *b, struct wb_uplink *u, const struct wb_frame *f, uint64_t now)
{
	uint64_t dsn = wb_dsn_expand(f->data.dsn, b->rcv.nxt);
	const uint8_t *ip = f->data.data;
	uint16_t len = (uint16_t)f->data.len;
	enum wb_reorder_result res;
	bool taken = true;

	u->c.rx_ip_packets++;
	if (f->type == WB_FRAME_DATA_UNORDERED)
		res = wb_reorder_receive_unordered(&b->rcv, dsn, ip, len, now, &b->pool, wb_bond_deliver_ip, b);
	else
		res = wb_reorder_receive(&b->rcv, dsn, ip, len, now, &b->pool, wb_bond_deliver_ip, b);
	switch (res) {
	case WB_REORDER_DUPLICATE:
		b->c.rx_duplicates++;
		break;
	case WB_REORDER_NO_ROOM:
		b->c.rx_beyond_window++;
		taken = false;
		break;
	case WB_REORDER_NO_BUFFER:
		wb_bond_pool_full(b, now, "a packet received out of order");
		taken = false;
		break;
	case WB_REORDER_DELIVERED:
		if (f->type == WB_FRAME_DATA_UNORDERED)
			count_unordered(b, dsn, ip, len);
		break;
	case WB_REORDER_HELD:
		break;
	}
	if (b->rcv.max_held_bytes > b->c.reorder_held_max)
		b->c.reorder_held_max = b->rcv.max_held_bytes;
	b->bond_ack_pending = true;
	return taken;
}

/* A search ended: said when it changed what the path takes, and counted when it found less than before. */
void wb_bond_pmtu_search_ended(struct wb_bond *b, struct wb_uplink *u, uint32_t before)
{
	if (before && u->pmtu.settled < before)
		u->c.pmtu_lowered++;
	wb_bond_log(b, u->pmtu.settled != before ? WB_LOG_NOTICE : WB_LOG_DEBUG, u,
		    "path mtu: datagrams of %u bytes pass (IP packets of %u)%s", u->pmtu.settled,
		    wb_uplink_max_packet(u), u->pmtu.settled < u->pmtu.max ? ", larger ones do not" : "");
}

void wb_bond_check_black_hole(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	uint32_t was = u->pmtu.size;

	if (!wb_pmtu_check_black_hole(&u->pmtu, now, u->tx_pn))
		return;
	wb_bond_log(b, WB_LOG_NOTICE, u, "datagrams of %u bytes vanish while small ones pass: down to %u, searching", was,
		    u->pmtu.size);
}

static void on_ack_frame(struct wb_bond *b, struct wb_uplink *u, const struct wb_ack *ack, uint64_t now)
{
	struct wb_recovery_events ev = wb_bond_recovery_events(b, u);
	int rc = wb_recovery_on_ack(u->rec, &u->rtt, &u->cc, ack, now, &ev);

	if (rc < 0)
		u->c.bad_acks++; /* it names packets never sent: taken as it stands, it would lose all in flight */
	else if (rc > 0)
		uplink_acked(b, u, now);
	wb_bond_check_black_hole(b, u, now);
}

static void on_pmtu_ack(struct wb_bond *b, struct wb_uplink *u, uint16_t size, uint64_t now)
{
	bool searching = u->pmtu.searching;
	uint32_t settled = u->pmtu.settled;

	wb_pmtu_on_answer(&u->pmtu, size, now);
	if (searching && !u->pmtu.searching)
		wb_bond_pmtu_search_ended(b, u, settled);
}

/* Entries about to leave the send buffer: their holders carry one copy less to account for. */
static void release_holders(struct wb_bond *b, uint64_t cum)
{
	for (uint64_t d = b->snd.una; d < cum && d < b->snd.nxt; d++) {
		const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, d);

		for (uint16_t h = e->holders; h; h &= (uint16_t)(h - 1))
			b->uplinks[__builtin_ctz(h)].dsns_held--;
	}
}

static void on_bond_ack(struct wb_bond *b, const struct wb_bond_ack *a, uint64_t now)
{
	if (a->cum > b->snd.una)
		release_holders(b, a->cum);
	if (a->cum > b->snd.una && wb_sndbuf_ack_cum(&b->snd, a->cum, &b->pool)) {
		b->progress_ns = now;
		b->rto_backoff = 0;
	}
	for (unsigned i = 0; i < a->n; i++)
		for (uint64_t d = a->s[i].lo > b->snd.una ? a->s[i].lo : b->snd.una; d <= a->s[i].hi && d < b->snd.nxt; d++)
			wb_sndbuf_mark_delivered(&b->snd, d);
	b->peer_rwnd = a->rwnd;
	b->bond_ack_seen = true;
}

/* What a message's frames leave to do once all have acted. */
struct after_frames {
	bool closed;          /* a CLOSE */
	bool refused;         /* a data frame found no room */
	bool probed;          /* a probe, answered last (probe) */
	struct wb_probe probe;
	bool pmtu_probed;     /* a path MTU probe: answered with the size it came in */
};

static void act_on_frame(struct wb_bond *b, struct wb_uplink *u, const struct wb_frame *f, uint64_t now,
			 struct after_frames *after)
{
	switch (f->type) {
	case WB_FRAME_DATA:
	case WB_FRAME_DATA_UNORDERED:
		after->refused |= !on_data_frame(b, u, f, now);
		break;
	case WB_FRAME_ACK:
		on_ack_frame(b, u, &f->ack, now);
		break;
	case WB_FRAME_BOND_ACK:
		on_bond_ack(b, &f->bond_ack, now);
		break;
	case WB_FRAME_PROBE:
		after->probed = true;
		after->probe = f->probe;
		break;
	case WB_FRAME_PROBE_ACK:
		on_probe_ack(b, u, &f->probe_ack, now);
		break;
	case WB_FRAME_UPLINK_INFO:
		on_uplink_info(b, u, &f->uplink_info);
		break;
	case WB_FRAME_PMTU_PROBE:
		after->pmtu_probed = true;
		break;
	case WB_FRAME_PMTU_ACK:
		on_pmtu_ack(b, u, f->pmtu_size, now);
		break;
	case WB_FRAME_CLOSE:
		after->closed = true;
		break;
	case WB_FRAME_FEC_PARITY:
		on_parity(b, &f->fec_parity, now);
		break;
	case WB_FRAME_PADDING:
		break;
	}
}

void wb_bond_on_data(struct wb_bond *b, uint64_t now, const struct wb_keypair *kp, const struct wb_endpoint *from,
		     uint8_t uplink, uint64_t pn, const uint8_t *body, size_t len)
{
	const uint8_t *pos = body, *end = body + len;
	struct after_frames after = { 0 };
	bool eliciting, urgent;
	struct wb_uplink *u;
	struct wb_frame f;

	if (uplink >= WB_MAX_UPLINKS || !body_is_valid(body, len, &eliciting, &urgent) ||
	    !(u = uplink_for_rx(b, uplink, from, now))) {
		b->c.malformed++;
		return;
	}
	u->c.rx_packets++;
	u->c.rx_bytes += len + WB_DATA_OVERHEAD;
	u->data_rx++;
	while (wb_frame_next(&pos, end, &f) > 0)
		act_on_frame(b, u, &f, now, &after);
	/*
	 * A packet whose data found no room is not acked: its sender must see it
	 * lost and send the DSN again, as if the network had dropped it. Acked,
	 * the sender would take the DSN as delivered and never resend it.
	 */
	if (!after.refused)
		wb_ackgen_on_packet(&u->ackgen, pn, eliciting, urgent, now);
	if (after.closed) {
		b->c.closes_received++;
		if (wb_handshake_close(b, kp))
			wb_bond_session_ended(b, now, "the peer closed the session");
		return;
	}
	/* The answer to a probe goes after, so its ack names the probe's own packet. */
	if (after.probed)
		wb_bond_send_probe_ack(b, u, &after.probe, now);
	if (after.pmtu_probed)
		wb_bond_send_pmtu_ack(b, u, (uint16_t)(len + WB_DATA_OVERHEAD), now);
	wb_bond_push(b, now);
	/* After what could go out went: is the bond held up, and can an idle uplink help? */
	if (b->bond_ack_seen) {
		b->bond_ack_seen = false;
		if (wb_sched_on_bond_ack(b, now))
			wb_bond_push(b, now);
	}
}
