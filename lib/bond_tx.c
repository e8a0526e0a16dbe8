// SPDX-License-Identifier: MIT
/*
 * The sending side of a bond. wb_bond_push drains what it can: DSNs to
 * resend first (lowest first, each on the uplink that delivers it first),
 * then the copies the scheduler asked for (reinject.c), then the send queue
 * (each packet on the uplink the scheduler's policy picks, under the peer's
 * receive window and our send buffer), then the acks that are due and found
 * no packet to ride on. Every message takes
 * the uplink's next packet number and is tracked by its recovery state.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "frame.h"
#include "nsec.h"

/* A pacing burst: a millisecond at the rate, and never less than two packets. */
#define PACING_BURST_NS WB_NSEC_PER_MSEC

/* The socket u's datagrams leave by: the uplink's own on a client, the one socket on a server. */
static unsigned sock_of(const struct wb_bond *b, const struct wb_uplink *u)
{
	return b->dev->p.server ? 0 : u->id;
}

void wb_bond_transmit(struct wb_bond *b, struct wb_uplink *u, const uint8_t *data, size_t len, uint8_t dscp)
{
	struct wb_device *d = b->dev;

	d->ops.send(d->ctx, sock_of(b, u), d->p.server ? &u->endpoint : &b->server, data, len, dscp);
	u->c.tx_packets++;
	u->c.tx_bytes += len;
}

/*
 * Where the next data message on u is built and sealed: in the caller's
 * send buffer when it lends one (then it goes out with no copy), else in
 * the bond's own.
 */
static uint8_t *datagram_buffer(struct wb_bond *b, const struct wb_uplink *u)
{
	struct wb_device *d = b->dev;
	uint8_t *buf = NULL;

	if (d->ops.tx_buffer)
		buf = d->ops.tx_buffer(d->ctx, sock_of(b, u), WB_DATA_OVERHEAD + b->max_body);
	return buf ? buf : b->scratch;
}

/*
 * The controller's rate, but never slower than the minimum window per
 * smoothed RTT: the window lets that much out whatever the model says, and
 * pacing must not hold back less. A model can learn a rate of bytes a
 * second (a path that held its probes through a minute of silence and then
 * delivered them at once): paced at that, an uplink sends too little to
 * ever measure more, and a full-size packet waits a minute for its turn.
 */
static uint64_t pacing_rate(const struct wb_uplink *u)
{
	uint64_t rate = u->cc.pacing_rate, floor;

	if (!rate || !u->rtt.has_sample)
		return rate;
	if (!u->rtt.srtt_ns)
		return 0; /* no time at all between send and ack: nothing to pace */
	floor = (uint64_t)WB_CC_MIN_WINDOW_PACKETS * u->cc.mss * WB_NSEC_PER_SEC / u->rtt.srtt_ns;
	return rate > floor ? rate : floor;
}

/* The time a pacing burst takes at rate: a millisecond, or two packets when they take longer. */
static uint64_t burst_ns(const struct wb_uplink *u, uint64_t rate)
{
	uint64_t burst = rate * PACING_BURST_NS / WB_NSEC_PER_SEC;

	if (burst < 2ULL * u->cc.mss)
		burst = 2ULL * u->cc.mss;
	return burst * WB_NSEC_PER_SEC / rate;
}

static void pace(struct wb_uplink *u, uint64_t now, uint32_t bytes)
{
	uint64_t rate = pacing_rate(u), credit, start;

	if (!rate) {
		u->next_send_ns = now;
		return;
	}
	/* Credit unused while idle is capped at the burst. */
	credit = burst_ns(u, rate);
	start = now > credit ? now - credit : 0;
	if (start < u->next_send_ns)
		start = u->next_send_ns;
	u->next_send_ns = start + (uint64_t)bytes * WB_NSEC_PER_SEC / rate;
}

/* The largest body a datagram on u may hold: the bond's, or less where its path carries less. */
static size_t body_room(const struct wb_bond *b, const struct wb_uplink *u)
{
	size_t path = u->pmtu.size - WB_DATA_OVERHEAD;

	return path < b->max_body ? path : b->max_body;
}

/* Adds the uplink's ack and the bond ack to a body when they are waiting and fit. */
static size_t add_acks(struct wb_bond *b, struct wb_uplink *u, uint8_t *body, size_t n, uint64_t now)
{
	size_t room = body_room(b, u);
	struct wb_ack ack;
	struct wb_bond_ack back;

	if (wb_ackgen_pending(&u->ackgen)) {
		wb_ackgen_build(&u->ackgen, now, &ack);
		if (n + wb_frame_ack_len(&ack) <= room) {
			n += wb_frame_put_ack(body + n, &ack);
			wb_ackgen_sent(&u->ackgen);
		}
	}
	if (b->bond_ack_pending) {
		wb_reorder_ack(&b->rcv, &back);
		if (n + wb_frame_bond_ack_len(&back) <= room) {
			n += wb_frame_put_bond_ack(body + n, &back);
			b->bond_ack_pending = false;
		}
	}
	return n;
}

/*
 * Seals the body in buf (from datagram_buffer) with the uplink's next
 * packet number and sends it. Returns the datagram length, or a negative
 * errno.
 */
static int seal_and_send_dscp(struct wb_bond *b, struct wb_uplink *u, uint8_t *buf, size_t body_len, uint64_t now,
			      uint64_t dsn, bool ack_eliciting, bool app_limited, uint8_t dscp)
{
	int n;

	if (!b->current)
		return -ENOTCONN;
	n = wb_keypair_seal(b->current, u->id, u->tx_pn, buf, body_len);
	if (n < 0)
		return n;
	u->tx_pn++;
	u->data_tx++;
	wb_recovery_on_sent(u->rec, &u->cc, now, (uint32_t)n, dsn, ack_eliciting, app_limited);
	if (ack_eliciting)
		pace(u, now, (uint32_t)n);
	wb_bond_transmit(b, u, buf, (size_t)n, dscp);
	return n;
}

/* The same for what carries no IP packet: the socket's own DSCP. */
static int seal_and_send(struct wb_bond *b, struct wb_uplink *u, uint8_t *buf, size_t body_len, uint64_t now,
			 uint64_t dsn, bool ack_eliciting, bool app_limited)
{
	return seal_and_send_dscp(b, u, buf, body_len, now, dsn, ack_eliciting, app_limited, 0);
}

static void count_send(struct wb_bond *b, struct wb_uplink *u, const struct wb_sndbuf_entry *e,
		       enum wb_send_kind kind)
{
	switch (kind) {
	case WB_SEND_NEW:
		u->c.data_packets++;
		u->c.tx_ip_packets++;
		break;
	case WB_SEND_RESEND:
	case WB_SEND_TIMEOUT:
		u->c.retransmits++;
		b->c.retransmits++;
		b->c.retransmit_bytes += e->len;
		break;
	case WB_SEND_REINJECT:
		u->c.reinjected++;
		b->c.opp_reinject++;
		b->c.opp_reinject_bytes += e->len;
		break;
	case WB_SEND_MEASURE:
		u->c.measure_copies++;
		b->c.measure_copies++;
		b->c.measure_copy_bytes += e->len;
		break;
	case WB_SEND_REDUNDANT:
		u->c.tx_ip_packets++;
		b->c.redundant_copies++;
		if (e->flags & WB_SND_INTERACTIVE)
			b->c.interactive_copies++;
		break;
	}
}

bool wb_bond_send_dsn(struct wb_bond *b, struct wb_uplink *u, uint64_t dsn, uint64_t now, enum wb_send_kind kind)
{
	struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, dsn);
	uint8_t *buf = datagram_buffer(b, u), *body = buf + WB_DATA_HEADER_LEN;
	size_t n = WB_FRAME_DATA_HEADER + e->len;
	/* The last packet of a burst leaves the uplink's window unfilled: its rate sample says little. */
	bool app_limited = kind == WB_SEND_NEW && !wb_bond_has_queued(b);
	enum wb_frame_type type = e->flags & WB_SND_UNORDERED ? WB_FRAME_DATA_UNORDERED : WB_FRAME_DATA;
	uint8_t dscp = b->tuning.outer_dscp ? wb_ip_dscp(e->data, e->len) : 0;

	wb_frame_put_data_header_of(body, type, dsn, e->len);
	memcpy(body + WB_FRAME_DATA_HEADER, e->data, e->len);
	n = add_acks(b, u, body, n, now);
	if (seal_and_send_dscp(b, u, buf, n, now, dsn, true, app_limited, dscp) < 0)
		return false;
	if (!e->sends++)
		e->first_sent_ns = now;
	if (!(e->holders & (1u << u->id)))
		u->dsns_held++;
	e->holders |= (uint16_t)(1u << u->id);
	count_send(b, u, e, kind);
	return true;
}

/*
 * The interactive class may take a DSN past the peer's receive window and
 * our send buffer by this much: a bulk DSN lost on an uplink that fell
 * silent fills both until its resend, and a call must not stop for it. Its
 * packets hold no bytes in the receiver's buffer (delivered on arrival),
 * only a slot, of which the buffer has one per window unit (reorder.c):
 * past them, a packet is refused and resent, never lost.
 */
#define INTERACTIVE_WINDOW_RESERVE (64 * 1024)

/* The peer's receive window and our send buffer: may a packet of len get a DSN? reserve: bytes more it may take. */
static bool window_open(const struct wb_bond *b, uint32_t len, uint64_t reserve)
{
	uint64_t after = b->snd.bytes + wb_window_bytes(len);

	return after <= b->tuning.send_buffer + reserve && after <= b->peer_rwnd + reserve;
}

/*
 * A packet that no uplink the policy may use can carry, with none of them
 * still searching for more: it would wait forever. It is dropped, as a
 * router drops what its next hop cannot carry, and counted.
 */
static bool too_big(const struct wb_bond *b, uint32_t len)
{
	uint16_t mask = wb_sched_uplinks(b);

	if (!mask)
		return false; /* no uplink at all: it waits for one */
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if ((mask & (1u << i)) && (len <= wb_uplink_max_packet(u) || u->pmtu.searching))
			return false;
	}
	return true;
}

/* Resends the lowest DSN queued, if an uplink takes it now; else says which uplinks it waits for. */
static bool resend_one(struct wb_bond *b, uint64_t now, uint16_t *reserved)
{
	uint64_t dsn;
	struct wb_sndbuf_entry *e;
	struct wb_uplink *u;

	*reserved = 0;
	for (;;) {
		dsn = wb_sndbuf_peek_retx(&b->snd);
		if (dsn == UINT64_MAX)
			return false;
		e = wb_sndbuf_get(&b->snd, dsn);
		if (!e->holders)
			break;
		wb_sndbuf_pop_retx(&b->snd); /* a copy went out since it was queued (a reinjection) */
	}
	if (too_big(b, e->len)) {
		/*
		 * Its path shrank after it went out. As good as delivered for us:
		 * the peer's reorder buffer gives it up after its hold time and
		 * counts it there (reorder_skips), so too_big_drops counts only
		 * packets dropped before they had a DSN.
		 */
		wb_sndbuf_pop_retx(&b->snd);
		e->flags |= WB_SND_DELIVERED;
		return true;
	}
	u = wb_sched_pick_resend(b, e->len + WB_TUNNEL_BYTES_WITH_ACKS, now, e->lost_on, reserved);
	if (!u)
		return false;
	wb_sndbuf_pop_retx(&b->snd);
	wb_bond_send_dsn(b, u, dsn, now, WB_SEND_RESEND);
	return true;
}

/*
 * How the walk's copies are counted: resends after the bond's timeout,
 * copies that measure an uplink whose rate is not known (counted apart:
 * they rescue nothing held up), or opportunistic reinjection.
 */
static enum wb_send_kind send_kind(enum wb_retrans_reason reason)
{
	switch (reason) {
	case WB_RETRANS_RTO:
		return WB_SEND_TIMEOUT;
	case WB_RETRANS_MEASURE:
		return WB_SEND_MEASURE;
	default:
		return WB_SEND_REINJECT;
	}
}

bool wb_reinject_send_one(struct wb_bond *b, uint64_t now)
{
	struct wb_reinject_copy c;
	bool sent;

	if (!wb_reinject_next(b, now, &c))
		return false;
	sent = wb_bond_send_dsn(b, c.uplink, c.dsn, now, send_kind(c.reason));
	wb_reinject_sent(b, &c, sent);
	return sent;
}

/*
 * The same DSN on each uplink of copies that can take it now (the
 * redundant policy's, the interactive class's with its allowance).
 */
static void send_copies(struct wb_bond *b, uint16_t copies, uint64_t dsn, uint32_t bytes, uint64_t now)
{
	bool interactive = wb_sndbuf_get(&b->snd, dsn)->flags & WB_SND_INTERACTIVE;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if ((copies & (1u << i)) &&
		    (interactive ? wb_sched_can_send_interactive(u, bytes) : wb_sched_can_send(u, bytes, now)))
			wb_bond_send_dsn(b, &b->uplinks[i], dsn, now, WB_SEND_REDUNDANT);
	}
}

/* The send queue's AQM, from what the scheduler says of the uplinks now (sched.h). */
static void judge_queue(struct wb_bond *b, uint64_t now)
{
	uint64_t target = wb_sched_queue_target_ns(b);

	/* CoDel's interval covers the round trip of the inner flows, which the spread lengthens. */
	wb_txq_set_aqm(&b->txq, target, b->tuning.aqm_interval_ns + (target - b->tuning.aqm_target_ns),
		       wb_sched_queue_hold_ns(b, now));
}

/* ---- forward error correction of the interactive class (fec.h) ---- */

/*
 * The loss a packet meets that went on the uplinks of holders: theirs,
 * multiplied (its copies are lost only together), parts per million.
 */
static uint32_t carried_loss_ppm(const struct wb_bond *b, uint16_t holders)
{
	uint64_t ppm = 1000000;

	for (uint16_t h = holders; h; h &= (uint16_t)(h - 1))
		ppm = ppm * b->uplinks[__builtin_ctz(h)].loss_ppm / 1000000;
	return (uint32_t)ppm;
}

/*
 * A new unordered interactive packet, gone on the uplinks of its holders,
 * joins the parity block at the K the loss it met asks for (0: none, where
 * the uplinks lose too little for parity to pay); a full block's parity
 * goes at once. The block's DSCP and uplinks are its last packet's.
 */
static void fec_protect(struct wb_bond *b, uint64_t dsn, uint64_t now)
{
	const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, dsn);
	unsigned k = b->tuning.classes.fec ? wb_fec_choose_k(carried_loss_ppm(b, e->holders)) : 0;

	if (k != b->fec_tx.k)
		wb_fec_set_k(&b->fec_tx, k);
	/* A ready parity that could not go is dropped by the next packet, which starts a block (fec.h). */
	if (!b->fec_tx.n || b->fec_tx.ready)
		b->fec_block_ns = now;
	b->fec_dscp = wb_ip_dscp(e->data, e->len);
	b->fec_holders = e->holders;
	if (wb_fec_add(&b->fec_tx, dsn, e->data, e->len))
		wb_bond_send_parity(b, now);
}

/*
 * The parity goes in a datagram of its own, on an uplink the block's last
 * packet did not take when another can take it: lost with that packet's
 * datagram, it would rebuild nothing. It is paced and counted in flight
 * as the class's packets are (within their allowance), and carries their
 * DSCP with outer_dscp.
 */
void wb_bond_send_parity(struct wb_bond *b, uint64_t now)
{
	size_t len = wb_fec_parity_len(&b->fec_tx);
	uint16_t mask = wb_sched_active(b);
	uint8_t dscp = b->tuning.outer_dscp ? b->fec_dscp : 0;
	struct wb_uplink *u;
	uint8_t *buf, *body;
	size_t n;
	int sent;

	if (!len)
		return;
	u = wb_sched_interactive_uplink(b, mask & (uint16_t)~b->fec_holders, (uint32_t)len, now);
	if (!u)
		u = wb_sched_interactive_uplink(b, mask, (uint32_t)len, now);
	/* A parity that cannot go now is of no use later: the next packet drops it (fec.h). */
	if (!u || len > body_room(b, u))
		return;
	buf = datagram_buffer(b, u);
	body = buf + WB_DATA_HEADER_LEN;
	n = add_acks(b, u, body, wb_fec_put_parity(body, &b->fec_tx), now);
	sent = seal_and_send_dscp(b, u, buf, n, now, WB_NO_DSN, true, false, dscp);
	if (sent > 0) {
		b->c.fec_parity_sent++;
		b->c.fec_overhead_bytes += (uint64_t)sent - (n - len); /* the acks beside it would have gone anyway */
	}
}

/*
 * What an interactive packet is sent as: its class, and unordered unless the
 * class keeps order or the peer cannot read it so (an older wanbondd, which
 * gets it as ordinary data: wire.h, WB_CAP_CLASSES).
 */
static uint8_t class_flags(const struct wb_bond *b, const struct wb_txq *q)
{
	bool unordered = !b->tuning.classes.ordered && (b->peer_caps & WB_CAP_CLASSES);

	if (q != &b->txq_interactive)
		return 0;
	return (uint8_t)(WB_SND_INTERACTIVE | (unordered ? WB_SND_UNORDERED : 0));
}

/*
 * The next packet of the send queues gets its DSN and goes: the
 * interactive class's first, where its policy says (sched.c), then bulk,
 * where the bond's policy says, judged by the AQM.
 */
static bool send_new(struct wb_bond *b, uint64_t now, uint16_t reserved)
{
	struct wb_txq *q = wb_bond_next_queue(b);
	const struct wb_txq_entry *head = wb_txq_peek(q);
	struct wb_send_decision d = { 0 };
	struct wb_txq_entry e;
	uint32_t bytes;
	uint64_t dsn;

	if (!head)
		return false;
	bytes = head->len + WB_TUNNEL_BYTES_WITH_ACKS;
	if (too_big(b, head->len)) {
		if (wb_txq_pop(q, now, &b->pool, &e)) {
			wb_pktbuf_put(&b->pool, e.data);
			b->c.too_big_drops++;
		}
		return true;
	}
	if (!window_open(b, head->len, q == &b->txq_interactive ? INTERACTIVE_WINDOW_RESERVE : 0))
		return false;
	if (q == &b->txq_interactive)
		wb_sched_get_send_interactive(b, b->tuning.classes.policy, bytes, now, reserved, &d);
	else
		b->sched->get_send(b, bytes, now, reserved, &d);
	/* Copies may measure an uplink the policy does not use yet; with nothing to copy, the walk must not start over for ever. */
	if (!d.uplink)
		return wb_sched_on_waiting(b, now) && wb_reinject_send_one(b, now);
	if (q == &b->txq)
		judge_queue(b, now);
	if (!wb_txq_pop(q, now, &b->pool, &e))
		return false; /* CoDel dropped the rest */
	if (wb_sndbuf_push(&b->snd, e.data, e.len, &dsn)) {
		wb_pktbuf_put(&b->pool, e.data);
		b->c.queue_drops++;
		return true;
	}
	wb_sndbuf_get(&b->snd, dsn)->flags = class_flags(b, q);
	if (b->snd.una + 1 == b->snd.nxt)
		b->progress_ns = now; /* the bond timeout counts from the first packet out of an empty buffer */
	wb_bond_send_dsn(b, d.uplink, dsn, now, WB_SEND_NEW);
	send_copies(b, d.copies & (uint16_t)~(1u << d.uplink->id), dsn, e.len + WB_TUNNEL_BYTES_WITH_ACKS, now);
	if (class_flags(b, q) & WB_SND_UNORDERED)
		fec_protect(b, dsn, now);
	return true;
}

/* An ack-only message (with the bond ack when due) on an uplink whose ack is due. */
void wb_bond_send_ack(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	uint8_t *buf = datagram_buffer(b, u);
	size_t n = add_acks(b, u, buf + WB_DATA_HEADER_LEN, 0, now);

	if (n && seal_and_send(b, u, buf, n, now, WB_NO_DSN, false, false) >= 0)
		u->c.acks_sent++;
}

/*
 * The send queue's bytes when they are more than all the usable uplinks'
 * windows together let out in a round trip, else 0: then the uplinks'
 * models, not their paths, hold the bond back (an uplink that carried
 * only the acks of a download, an upload starting on it), and each model
 * is told (on_backlog). Less than that waits on the paths, or on the
 * scheduler's choice among uplinks.
 */
static uint64_t models_behind(const struct wb_bond *b)
{
	uint64_t windows = 0;

	if (!b->txq.bytes)
		return 0; /* the common case of a bond keeping up: no sum to make */
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (wb_uplink_usable(&b->uplinks[i]))
			windows += b->uplinks[i].cc.cwnd;
	return b->txq.bytes > windows ? b->txq.bytes : 0;
}

/*
 * The send walk: resent packets first, then copies the scheduler asked
 * for (they unblock the bond), then new ones on what they leave (they may
 * wait for a better uplink).
 */
static void send_what_can_go(struct wb_bond *b, uint64_t now)
{
	uint16_t reserved;

	for (;;) {
		if (resend_one(b, now, &reserved))
			continue;
		if (wb_sndbuf_peek_retx(&b->snd) != UINT64_MAX && !reserved)
			break; /* no uplink at all can take it: nor a new one */
		if (wb_reinject_send_one(b, now))
			continue;
		if (!send_new(b, now, reserved))
			break;
	}
}

/* What the walk left tells each uplink's model: given too little (app-limited), or the queue's backlog. */
static void tell_models(struct wb_bond *b, uint64_t now)
{
	uint64_t backlog = models_behind(b);

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		/* Free to send a full packet, and given nothing: what it delivers now understates it. */
		if (wb_sched_can_send(u, wb_sched_full_packet(u), now))
			wb_recovery_note_app_limited(u->rec);
		else if (backlog && wb_uplink_usable(u) && u->cc.ops->on_backlog)
			u->cc.ops->on_backlog(&u->cc, now, backlog);
	}
}

void wb_bond_push(struct wb_bond *b, uint64_t now)
{
	if (!b->current)
		return;
	send_what_can_go(b, now);
	b->c.aqm_drops = b->txq.aqm_drops;
	tell_models(b, now);
	wb_bond_send_due_acks(b, now);
	b->pace_wake_ns = wb_bond_pacing_wake(b, now);
}

/*
 * When pacing lets u send again. Each packet's own time, unless the device
 * allows slack (a busy daemon, wb_device_set_pacing_slack): then later, up
 * to when a millisecond's packets may leave. The rate is the same, and a
 * wakeup sends a burst instead of one packet: at 100 Mbit/s eight
 * datagrams in one system call instead of a wakeup every 120 us, which
 * cost the daemon half its CPU. Below the rate at which a millisecond
 * holds more than two packets the wakeups are few, and each packet keeps
 * its own time: an uplink that carries only acks keeps its samples of
 * them as they are (its startup must see it is given too little,
 * bbr_on_backlog).
 */
static uint64_t burst_due(const struct wb_uplink *u, uint64_t slack)
{
	uint64_t rate = pacing_rate(u), packet, late;

	if (!slack || !rate || rate * PACING_BURST_NS / WB_NSEC_PER_SEC <= 2ULL * u->cc.mss)
		return u->next_send_ns;
	packet = (uint64_t)u->cc.mss * WB_NSEC_PER_SEC / rate;
	late = PACING_BURST_NS - packet;
	return u->next_send_ns + (late < slack ? late : slack);
}

uint64_t wb_bond_pacing_wake(const struct wb_bond *b, uint64_t now)
{
	uint64_t due = UINT64_MAX;

	if (!b->current || (!wb_bond_has_queued(b) && !b->snd.retx_n && !b->reinj.active))
		return UINT64_MAX;
	/* An uplink with window room that only pacing holds back. */
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];
		uint64_t at;

		if (!wb_uplink_usable(u) || !u->rec || u->rec->bytes_in_flight + u->cc.mss > u->cc.cwnd ||
		    u->next_send_ns <= now)
			continue;
		at = burst_due(u, b->dev->pacing_slack_ns);
		if (at < due)
			due = at;
	}
	return due;
}

/* ---- control messages ---------------------------------------------------- */

/*
 * Probes and their answers carry the bond ack again, whether or not it
 * changed: if the last one was lost while the sender's window was full, the
 * sender has nothing to send and we nothing to ack, and only this ends it.
 */
static void refresh_bond_ack(struct wb_bond *b)
{
	if (b->rcv.nxt || b->rcv.held)
		b->bond_ack_pending = true;
}

void wb_bond_send_probe(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	uint8_t *buf = datagram_buffer(b, u), *body = buf + WB_DATA_HEADER_LEN;
	struct wb_probe probe = { .seq = ++u->probe_seq, .sent_ns = now, .tx_packets = u->data_tx + 1 };
	size_t n = wb_frame_put_probe(body, &probe);

	/* The client tells the server what it must know of its uplinks. */
	if (!b->dev->p.server) {
		struct wb_uplink_info info = { .flags = u->backup ? WB_UPLINK_BACKUP : 0, .weight = u->weight };

		snprintf(info.name, sizeof(info.name), "%s", u->name);
		n += wb_frame_put_uplink_info(body + n, &info);
	}
	refresh_bond_ack(b);
	n = add_acks(b, u, body, n, now);
	u->next_probe_ns = now + b->dev->p.timers.probe_interval_ns;
	/*
	 * A probe on an idle uplink says nothing of its capacity: its rate
	 * sample must not lower the model. On a busy one it is just one more
	 * packet (marking it would taint every sample of the round).
	 */
	if (seal_and_send(b, u, buf, n, now, WB_NO_DSN, true, !u->rec->bytes_in_flight) >= 0)
		u->c.probes_sent++;
}

void wb_bond_send_pmtu_probe(struct wb_bond *b, struct wb_uplink *u, uint32_t size, uint64_t now)
{
	uint64_t pn = u->tx_pn;
	uint8_t *buf = datagram_buffer(b, u);

	/* Not in flight: its loss is the path's size, not congestion, and the window does not wait for it. */
	if (seal_and_send(b, u, buf, wb_frame_put_pmtu_probe(buf + WB_DATA_HEADER_LEN, size - WB_DATA_OVERHEAD), now,
			  WB_NO_DSN, false, false) < 0)
		return;
	wb_pmtu_probe_sent(&u->pmtu, pn);
	u->c.pmtu_probes++;
}

void wb_bond_send_pmtu_ack(struct wb_bond *b, struct wb_uplink *u, uint16_t size, uint64_t now)
{
	uint8_t *buf = datagram_buffer(b, u), *body = buf + WB_DATA_HEADER_LEN;
	size_t n = wb_frame_put_pmtu_ack(body, size);

	seal_and_send(b, u, buf, add_acks(b, u, body, n, now), now, WB_NO_DSN, false, false);
}

void wb_bond_send_probe_ack(struct wb_bond *b, struct wb_uplink *u, const struct wb_probe *probe, uint64_t now)
{
	uint8_t *buf = datagram_buffer(b, u), *body = buf + WB_DATA_HEADER_LEN;
	struct wb_probe_ack ack = {
		.seq = probe->seq, .sent_ns = probe->sent_ns, .tx_packets = probe->tx_packets, .rx_packets = u->data_rx,
	};
	size_t n = wb_frame_put_probe_ack(body, &ack);

	refresh_bond_ack(b);
	seal_and_send(b, u, buf, add_acks(b, u, body, n, now), now, WB_NO_DSN, false, false);
}

void wb_bond_send_close(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	uint8_t *buf = datagram_buffer(b, u);

	seal_and_send(b, u, buf, wb_frame_put_close(buf + WB_DATA_HEADER_LEN, WB_CLOSE_SHUTDOWN), now, WB_NO_DSN,
		      false, false);
}

/* ---- what acks and losses of an uplink mean for the send buffer ------------ */

/* The uplink no longer carries a copy of the entry. */
static void drop_holder(struct wb_uplink *u, struct wb_sndbuf_entry *e)
{
	if (e->holders & (1u << u->id))
		u->dsns_held--;
	e->holders &= (uint16_t)~(1u << u->id);
}

static void on_acked(void *ctx, const struct wb_sent *p)
{
	struct wb_uplink *u = ctx;
	struct wb_sndbuf_entry *e = p->dsn == WB_NO_DSN ? NULL : wb_sndbuf_get(&u->bond->snd, p->dsn);

	wb_pmtu_on_acked(&u->pmtu, p->bytes, p->pn);
	if (!e)
		return;
	/* The datagram reached the peer: so did its DSN, whatever its bond ack says yet. */
	drop_holder(u, e);
	e->flags |= WB_SND_DELIVERED;
}

static void on_lost(void *ctx, const struct wb_sent *p)
{
	struct wb_uplink *u = ctx;
	struct wb_sndbuf_entry *e = p->dsn == WB_NO_DSN ? NULL : wb_sndbuf_get(&u->bond->snd, p->dsn);

	/* Lost while up: maybe too big for the path. Lost as it fell silent (stale, down): an outage. */
	if (u->state == WB_UPLINK_UP)
		wb_pmtu_on_lost(&u->pmtu, p->bytes, p->pn);
	if (!e)
		return;
	drop_holder(u, e);
	e->lost_on |= (uint16_t)(1u << u->id);
	/* Resend only when no other uplink still carries a copy. */
	if (!e->holders)
		wb_sndbuf_queue_retx(&u->bond->snd, p->dsn);
}

struct wb_recovery_events wb_bond_recovery_events(struct wb_bond *b, struct wb_uplink *u)
{
	(void)b;
	return (struct wb_recovery_events){ .acked = on_acked, .lost = on_lost, .ctx = u };
}
