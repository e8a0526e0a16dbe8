// SPDX-License-Identifier: MIT
#include "recovery.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ackgen.h"
#include "nsec.h"

#define INITIAL_RING 256
#define INITIAL_RTT_NS (333 * WB_NSEC_PER_MSEC) /* RFC 9002's, until a sample */
#define MIN_LOSS_DELAY_NS WB_NSEC_PER_MSEC

int wb_recovery_init(struct wb_recovery *r, uint64_t first_pn)
{
	memset(r, 0, sizeof(*r));
	r->ring = calloc(INITIAL_RING, sizeof(*r->ring));
	if (!r->ring)
		return -ENOMEM;
	r->cap = INITIAL_RING;
	r->base = r->next_pn = first_pn;
	r->reo_wnd_mult = 1;
	return 0;
}

void wb_recovery_reset(struct wb_recovery *r, uint64_t first_pn)
{
	struct wb_recovery was = *r;

	memset(r->ring, 0, r->cap * sizeof(*r->ring));
	memset(r, 0, sizeof(*r));
	r->ring = was.ring;
	r->cap = was.cap;
	r->base = r->next_pn = first_pn;
	r->reo_wnd_mult = 1;
	/* The counts are the operator's: they go on. */
	r->acked_packets = was.acked_packets;
	r->lost_packets = was.lost_packets;
	r->lost_bytes = was.lost_bytes;
	r->timeouts = was.timeouts;
	r->spurious = was.spurious;
}

void wb_recovery_free(struct wb_recovery *r)
{
	free(r->ring);
	r->ring = NULL;
}

static struct wb_sent *slot(const struct wb_recovery *r, uint64_t pn)
{
	return &r->ring[pn % r->cap];
}

static int grow(struct wb_recovery *r)
{
	uint32_t cap = r->cap * 2;
	struct wb_sent *ring;

	if (cap > WB_RECOVERY_MAX_TRACKED)
		return -ENOSPC;
	ring = calloc(cap, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (uint64_t pn = r->base; pn < r->next_pn; pn++)
		ring[pn % cap] = *slot(r, pn);
	free(r->ring);
	r->ring = ring;
	r->cap = cap;
	return 0;
}

bool wb_recovery_can_send(const struct wb_recovery *r)
{
	return r->next_pn - r->base < r->cap || r->cap < WB_RECOVERY_MAX_TRACKED;
}

void wb_recovery_note_app_limited(struct wb_recovery *r)
{
	uint64_t mark = r->delivered + r->bytes_in_flight;

	r->app_limited_until = mark ? mark : 1;
}

void wb_recovery_on_sent(struct wb_recovery *r, struct wb_cc *cc, uint64_t now, uint32_t bytes, uint64_t dsn,
			 bool ack_eliciting, bool app_limited)
{
	struct wb_sent *p;

	if (r->next_pn - r->base >= r->cap && grow(r)) {
		/* Cannot happen while callers check wb_recovery_can_send; keep the number unique anyway. */
		r->next_pn++;
		return;
	}
	if (!r->bytes_in_flight) /* the first packet after an idle time starts a new rate interval */
		r->first_sent_ns = r->delivered_ns = now;
	if (app_limited)
		r->app_limited_until = r->delivered + r->bytes_in_flight + bytes;
	p = slot(r, r->next_pn);
	*p = (struct wb_sent){
		.pn = r->next_pn++, .sent_ns = now, .dsn = dsn, .bytes = bytes,
		.delivered = r->delivered, .delivered_ns = r->delivered_ns, .first_sent_ns = r->first_sent_ns,
		.app_limited = r->app_limited_until != 0,
		.flags = (uint8_t)(ack_eliciting ? WB_SENT_ACK_ELICITING | WB_SENT_IN_FLIGHT : 0),
	};
	if (ack_eliciting) {
		r->bytes_in_flight += bytes;
		r->last_eliciting_sent_ns = now;
		cc->ops->on_sent(cc, now, bytes, r->bytes_in_flight);
	}
}

/*
 * Packets no longer needed leave the front of the ring. A lost one stays an
 * RTT and a half longer: if its ack still comes, the loss was spurious, and
 * the reordering window must grow.
 */
static void trim(struct wb_recovery *r, const struct wb_rtt *rtt, uint64_t now)
{
	uint64_t keep = rtt->has_sample ? rtt->srtt_ns * 3 / 2 : INITIAL_RTT_NS;

	while (r->base < r->next_pn) {
		const struct wb_sent *p = slot(r, r->base);

		if ((p->flags & WB_SENT_LOST) && now - p->lost_ns < keep && r->next_pn - r->base < r->cap)
			break;
		if (!(p->flags & (WB_SENT_ACKED | WB_SENT_LOST)) && (p->flags & WB_SENT_ACK_ELICITING))
			break;
		r->base++;
	}
}

static void mark_lost(struct wb_recovery *r, struct wb_sent *p, uint64_t now, const struct wb_recovery_events *ev)
{
	p->flags |= WB_SENT_LOST;
	p->lost_ns = now;
	if (p->flags & WB_SENT_IN_FLIGHT) {
		p->flags &= (uint8_t)~WB_SENT_IN_FLIGHT;
		r->bytes_in_flight -= p->bytes;
	}
	r->lost_packets++;
	r->lost_bytes += p->bytes;
	ev->lost(ev->ctx, p);
}

#define REO_WND_MAX_MULT 16
#define REO_WND_DECAY_ACKS 16384 /* acked packets without a spurious loss, per step back */

static uint64_t reo_wnd(const struct wb_recovery *r, const struct wb_rtt *rtt)
{
	uint64_t w;

	if (!r->reordering_seen)
		return rtt->min_ns / 8; /* RFC 9002's 9/8 of an RTT */
	w = (uint64_t)r->reo_wnd_mult * rtt->min_ns / 4;
	return w < rtt->srtt_ns ? w : rtt->srtt_ns;
}

static uint64_t loss_delay(const struct wb_recovery *r, const struct wb_rtt *rtt)
{
	uint64_t d;

	if (!rtt->has_sample)
		return INITIAL_RTT_NS * 9 / 8;
	d = (rtt->latest_ns > rtt->srtt_ns ? rtt->latest_ns : rtt->srtt_ns) + reo_wnd(r, rtt);
	return d > MIN_LOSS_DELAY_NS ? d : MIN_LOSS_DELAY_NS;
}

/* RFC 9002 6.1: by packet threshold or time threshold, below the largest acked. */
static void detect_lost(struct wb_recovery *r, const struct wb_rtt *rtt, struct wb_cc *cc, uint64_t now,
			const struct wb_recovery_events *ev)
{
	uint64_t delay = loss_delay(r, rtt), largest_lost_sent = 0, lost_bytes = 0;

	r->loss_time = 0;
	if (!r->has_acked)
		return;
	for (uint64_t pn = r->base; pn < r->largest_acked && pn < r->next_pn; pn++) {
		struct wb_sent *p = slot(r, pn);

		if ((p->flags & (WB_SENT_ACKED | WB_SENT_LOST)) || !(p->flags & WB_SENT_ACK_ELICITING))
			continue;
		if (p->sent_ns + delay <= now || (!r->reordering_seen && r->largest_acked >= pn + WB_PACKET_THRESHOLD)) {
			lost_bytes += p->bytes;
			if (p->sent_ns > largest_lost_sent)
				largest_lost_sent = p->sent_ns;
			mark_lost(r, p, now, ev);
		} else if (!r->loss_time || p->sent_ns + delay < r->loss_time) {
			r->loss_time = p->sent_ns + delay;
		}
	}
	if (lost_bytes)
		cc->ops->on_loss(cc, now, lost_bytes, largest_lost_sent, r->bytes_in_flight);
}

/* Marks one packet acked; returns it if it was not acked before. */
static struct wb_sent *ack_one(struct wb_recovery *r, uint64_t pn)
{
	struct wb_sent *p = slot(r, pn);

	if (p->pn != pn || (p->flags & WB_SENT_ACKED))
		return NULL;
	/* Acked below one acked before: the path reorders. */
	if (r->has_acked && pn < r->largest_acked)
		r->reordering_seen = true;
	if (p->flags & WB_SENT_LOST) {
		/* It arrived after all: the resent copy was not needed, and the window was too tight. */
		r->spurious++;
		r->reordering_seen = true;
		if (r->reo_wnd_mult < REO_WND_MAX_MULT)
			r->reo_wnd_mult++;
		r->acked_since_spurious = 0;
	} else if (++r->acked_since_spurious >= REO_WND_DECAY_ACKS) {
		r->acked_since_spurious = 0;
		if (r->reo_wnd_mult > 1)
			r->reo_wnd_mult--;
	}
	p->flags |= WB_SENT_ACKED;
	if (p->flags & WB_SENT_IN_FLIGHT) {
		p->flags &= (uint8_t)~WB_SENT_IN_FLIGHT;
		r->bytes_in_flight -= p->bytes;
	}
	r->acked_packets++;
	r->delivered += p->bytes;
	return p;
}

static void sample_rtt(struct wb_rtt *rtt, const struct wb_sent *largest, const struct wb_ack *ack, uint64_t now)
{
	uint64_t sample = now - largest->sent_ns, delay = ack->delay_us * 1000;

	if (delay > WB_MAX_ACK_DELAY_NS)
		delay = WB_MAX_ACK_DELAY_NS;
	/* Take the peer's holding time out, but never below the minimum seen. */
	if (rtt->has_sample && sample >= rtt->min_ns + delay)
		sample -= delay;
	wb_rtt_sample(rtt, sample);
}

/*
 * Takes each packet the ack's ranges name off the books (ranges are
 * descending: the first one's top is the largest named), adding its bytes
 * to the sample. Gives the newest sent of them and the largest named, if
 * still in flight (NULL otherwise).
 */
static struct wb_sent *take_acked(struct wb_recovery *r, const struct wb_ack *ack, const struct wb_recovery_events *ev,
				  struct wb_rate_sample *rs, struct wb_sent **largest)
{
	struct wb_sent *newest = NULL;

	*largest = NULL;
	for (unsigned i = 0; i < ack->n; i++) {
		uint64_t lo = ack->r[i].lo > r->base ? ack->r[i].lo : r->base;

		for (uint64_t pn = lo; pn <= ack->r[i].hi; pn++) {
			struct wb_sent *p = ack_one(r, pn);

			if (!p)
				continue;
			if (pn == ack->r[0].hi)
				*largest = p;
			if (!newest || p->sent_ns > newest->sent_ns)
				newest = p;
			rs->acked_bytes += p->bytes;
			ev->acked(ev->ctx, p);
		}
	}
	return newest;
}

/* Delivery since newest was sent: the rate sample's interval and amount (as Linux's tcp_rate.c). */
static void rate_sample(struct wb_recovery *r, const struct wb_sent *newest, uint64_t now, struct wb_rate_sample *rs)
{
	rs->prior_delivered = newest->delivered;
	rs->delivered = r->delivered - newest->delivered;
	rs->interval_ns = now - newest->delivered_ns;
	if (newest->sent_ns - newest->first_sent_ns > rs->interval_ns)
		rs->interval_ns = newest->sent_ns - newest->first_sent_ns;
	rs->app_limited = newest->app_limited;
	r->first_sent_ns = newest->sent_ns;
	if (r->app_limited_until && r->delivered > r->app_limited_until)
		r->app_limited_until = 0;
}

int wb_recovery_on_ack(struct wb_recovery *r, struct wb_rtt *rtt, struct wb_cc *cc, const struct wb_ack *ack,
		       uint64_t now, const struct wb_recovery_events *ev)
{
	struct wb_rate_sample rs = { 0 };
	struct wb_sent *newest, *largest;

	if (!ack->n)
		return 0;
	if (ack->r[0].hi >= r->next_pn)
		return -EPROTO;
	newest = take_acked(r, ack, ev, &rs, &largest);
	if (!newest)
		return 0;
	if (!r->has_acked || ack->r[0].hi > r->largest_acked) {
		r->largest_acked = ack->r[0].hi;
		r->has_acked = true;
	}
	r->pto_count = 0;
	r->timed_out = false;
	r->delivered_ns = now;
	if (newest->pn < r->samples_from_pn) {
		/* Sent on the path the uplink had before it went down: it measures that one. */
		detect_lost(r, rtt, cc, now, ev);
		trim(r, rtt, now);
		return 1;
	}
	if (largest && (largest->flags & WB_SENT_ACK_ELICITING) && largest->pn >= r->samples_from_pn) {
		sample_rtt(rtt, largest, ack, now);
		rs.rtt_ns = rtt->latest_ns;
	}
	rate_sample(r, newest, now, &rs);
	detect_lost(r, rtt, cc, now, ev);
	rs.total_delivered = r->delivered;
	rs.bytes_in_flight = r->bytes_in_flight;
	rs.min_rtt_ns = rtt->min_ns;
	rs.srtt_ns = rtt->srtt_ns;
	cc->ops->on_ack(cc, &rs, now);
	trim(r, rtt, now);
	return 1;
}

uint64_t wb_recovery_pto(const struct wb_rtt *rtt)
{
	uint64_t var = rtt->has_sample ? 4 * rtt->rttvar_ns : INITIAL_RTT_NS * 2;

	if (var < MIN_LOSS_DELAY_NS)
		var = MIN_LOSS_DELAY_NS;
	return (rtt->has_sample ? rtt->srtt_ns : INITIAL_RTT_NS) + var + WB_MAX_ACK_DELAY_NS;
}

/*
 * The probe timer runs from the oldest packet still in flight, not the
 * newest: probes keep leaving on an uplink that has died, and must not keep
 * pushing the timeout of the data it swallowed further away.
 */
static uint64_t oldest_in_flight_ns(const struct wb_recovery *r)
{
	for (uint64_t pn = r->base; pn < r->next_pn; pn++) {
		const struct wb_sent *p = slot(r, pn);

		if (p->flags & WB_SENT_IN_FLIGHT)
			return p->sent_ns > r->last_timeout_ns ? p->sent_ns : r->last_timeout_ns;
	}
	return r->last_eliciting_sent_ns;
}

uint64_t wb_recovery_deadline(const struct wb_recovery *r, const struct wb_rtt *rtt)
{
	unsigned shift = r->pto_count < 10 ? r->pto_count : 10;

	if (r->loss_time)
		return r->loss_time;
	if (!r->bytes_in_flight)
		return UINT64_MAX;
	return oldest_in_flight_ns(r) + (wb_recovery_pto(rtt) << shift);
}

void wb_recovery_new_path(struct wb_recovery *r)
{
	r->samples_from_pn = r->next_pn;
}

void wb_recovery_abandon(struct wb_recovery *r, const struct wb_rtt *rtt, uint64_t now,
			 const struct wb_recovery_events *ev)
{
	for (uint64_t pn = r->base; pn < r->next_pn; pn++) {
		struct wb_sent *p = slot(r, pn);

		if ((p->flags & WB_SENT_ACK_ELICITING) && !(p->flags & (WB_SENT_ACKED | WB_SENT_LOST)))
			mark_lost(r, p, now, ev);
	}
	r->loss_time = 0;
	trim(r, rtt, now);
}

bool wb_recovery_on_timer(struct wb_recovery *r, const struct wb_rtt *rtt, struct wb_cc *cc, uint64_t now,
			  const struct wb_recovery_events *ev)
{
	if (r->loss_time) {
		if (now >= r->loss_time) {
			detect_lost(r, rtt, cc, now, ev);
			trim(r, rtt, now);
		}
		return false;
	}
	if (!r->bytes_in_flight || now < wb_recovery_deadline(r, rtt))
		return false;
	if (++r->pto_count >= 2) {
		/* Two probe timeouts without an ack: what is in flight is gone. */
		r->timeouts++;
		r->timed_out = true;
		wb_recovery_abandon(r, rtt, now, ev);
		cc->ops->on_timeout(cc, now);
	}
	/* The next timeout counts from now, whatever is in flight then. */
	r->last_timeout_ns = now;
	return true;
}
