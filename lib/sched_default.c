// SPDX-License-Identifier: MIT
/*
 * The default policy. Each new packet goes on the uplink that would
 * deliver it first (what it has in flight over its pacing rate, plus half
 * its RTT), among the active uplinks with room in their window. With
 * uplinks of very different speed, that alone is not enough: the fast one
 * overflows onto the slow one, and the data the slow one holds keeps the
 * receiver waiting until the window closes. Two cures, after Linux MPTCP
 * (docs/scheduler.md), each with a switch:
 *
 * - penalise: the uplink holding snd_una, slower than another, has its
 *   window halved (at most once per its RTT, only if the window is what
 *   limits it), so it takes less of what follows; not while the peer's
 *   receive window is the limit (the guard): the fast uplink shares that
 *   window, so it cannot take up what the slow one gives up;
 * - reinject: an idle fast uplink gets copies of what the slow (or gone)
 *   ones hold, as much as it can send in the time the copies save.
 *
 * Weights share new traffic between uplinks that would deliver a packet
 * about as soon as each other (within the AQM's target): there the choice
 * is free, and the weights make it. They never send a packet on an uplink
 * that would deliver it later than that: speed decides first.
 */
#include "nsec.h"
#include "recovery.h"
#include "sched.h"

/*
 * What the policy remembers between decisions, per uplink slot. A slot
 * given to a new uplink keeps its old one's penalty time: its first
 * penalty may come one RTT late.
 */
struct default_state {
	uint64_t penalised_ns[WB_MAX_UPLINKS]; /* its window was last halved then */
	uint16_t penalised;                    /* a bit per uplink: halved at least once */
	/* Weighted shares: bytes each uplink took, over its weight (start-time fair queueing). */
	uint64_t share[WB_MAX_UPLINKS];
};
_Static_assert(sizeof(struct default_state) <= WB_SCHED_STATE_MAX, "the default policy's state fits the bond's");

/* How far (bytes of weight 1) an uplink may fall behind its share: a burst it may then catch up with. */
#define WEIGHT_CATCH_UP_BYTES (64 * 1024)

/* A holder is worth copying from when its RTT is over this many of the idle uplink's minimum. */
#define REINJECT_RTT_FACTOR 3
/* What the bond's timeout resends at most, in packets of the MTU. */
#define TIMEOUT_RESEND_PACKETS 64

/*
 * Should a packet that u could take now rather wait for the fastest uplink
 * (by RTT)? Two reasons, each an estimate:
 *
 * - the fastest one would deliver everything waiting to be sent, this
 *   packet included, before u delivers this one, and that backlog is long
 *   enough to matter: u adds nothing but a late packet for the receiver
 *   to wait for (ECF, Lim et al., CoNEXT 2017);
 * - while it travels on u, the fastest one goes on delivering what follows
 *   it, and the receiver must hold all of that until it arrives: more than
 *   the window has room for, and the bond blocks (BLEST, Ferlin et al.,
 *   IFIP Networking 2016).
 */
/*
 * ECF's test: the fast uplink (a lower RTT than u) would deliver the
 * whole backlog before u delivers this packet, and the backlog is large
 * enough to be worth waiting for: u would take at least two of the fast uplink's RTTs to send
 * it. Without the second half, a short backlog (an inner TCP's, kept short
 * by the AQM) would never reach u at all.
 */
static bool ecf_wait(const struct wb_bond *b, const struct wb_uplink *fast, const struct wb_uplink *u, uint64_t on_u)
{
	uint64_t queued = wb_sched_queued_bytes(b);
	uint32_t backlog = queued < UINT32_MAX ? (uint32_t)queued : UINT32_MAX;

	if (fast->rtt.srtt_ns >= u->rtt.srtt_ns || !u->cc.pacing_rate ||
	    wb_sched_completion_ns(fast, backlog) >= on_u)
		return false; /* u is as fast, or the fast one is too busy to be worth it */
	return (uint64_t)backlog * WB_NSEC_PER_SEC / u->cc.pacing_rate >= 2 * fast->rtt.srtt_ns;
}

/* BLEST's test: what fast delivers while this packet travels on u would not fit in the window. */
static bool blest_wait(const struct wb_bond *b, const struct wb_uplink *fast, const struct wb_uplink *u,
		       uint32_t bytes)
{
	uint64_t window = wb_sched_window(b);
	uint64_t on_u = wb_sched_completion_ns(u, bytes), on_fast = wb_sched_completion_ns(fast, bytes), ahead;

	if (on_u <= on_fast)
		return false;
	ahead = fast->cc.pacing_rate * ((on_u - on_fast) / 1000) / 1000000;
	return wb_sched_unacked_bytes(b) + bytes + ahead > window;
}

static bool better_wait(struct wb_bond *b, const struct wb_uplink *u, uint32_t bytes)
{
	const struct wb_uplink *fast = wb_sched_lowest_rtt(b, wb_sched_uplinks(b));

	if (!fast || fast == u || fast->rec->timed_out)
		return false;
	return ecf_wait(b, fast, u, wb_sched_completion_ns(u, bytes)) || blest_wait(b, fast, u, bytes);
}

/*
 * An uplink still in startup measures only what it is given: the arrival
 * rule, which feeds it what it would deliver in time at the rate it has
 * measured, gives it little, and it ramps up only after the faster
 * uplinks are full, by then too slowly for the inner flow's own startup
 * to see the bond grow (an inner BBR left its startup at the DSL line's
 * rate in make demo's uplinks). So while its rate is unknown, an uplink
 * no more than the spread's limit later than the fastest takes what the
 * first uplink cannot send now, at its own startup pace.
 */
static bool ramping_up(const struct wb_bond *b, const struct wb_uplink *u)
{
	return !wb_sched_rate_known(u) && !wb_sched_small(b, u) &&
	       wb_sched_delay_gap_ns(b, u) <= wb_sched_delay_allowance_ns(b);
}

/*
 * The arrival rule: each packet goes on the uplink where it would reach
 * the peer first, counting the wait for that uplink's pacing and window.
 * Another uplink that can send now takes it only if it delivers it no
 * later than the first one would deliver the last packet queued behind
 * it (ECF's idea, in arrival times), or no later than the spread of the
 * uplinks' delays after the first one (an inner flow that keeps no queue,
 * as BBR, would otherwise never see a slower uplink's capacity; the spread
 * counts only uplinks worth their wait), and, with avoid_blocking, if what
 * the first one delivers meanwhile fits in the window (BLEST's): the
 * packets then arrive about in the order they left, the reorder buffer
 * holds little, and an inner TCP sees the fast uplink's RTT. The queue
 * that feeds a slower uplink is the one the inner flows keep; the AQM
 * lets it be as long as the uplinks' delays differ
 * (wb_sched_queue_target_ns). Without the rule, the choice is among the
 * uplinks that can send now, and a fast uplink between two paced packets
 * loses the next one to a slow uplink, whose packets the receiver then
 * waits for.
 */
static struct wb_uplink *by_arrival(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now)
{
	struct wb_uplink *first = wb_sched_first_arrival(b, mask, bytes, now), *ready;
	uint64_t rate, behind, slack;

	if (!first || wb_sched_can_send(first, bytes, now))
		return first;
	ready = wb_sched_earliest_arrival_now(b, mask, bytes, now);
	rate = wb_sched_delivery_rate(first);
	if (!ready || !rate)
		return NULL;
	if (ramping_up(b, ready))
		return wb_sched_rule(b, WB_SCHED_RULE_AVOID_BLOCKING) && blest_wait(b, first, ready, bytes) ? NULL : ready;
	behind = wb_sched_queued_bytes(b) * WB_NSEC_PER_SEC / rate;
	slack = wb_sched_delay_spread_ns(b, wb_sched_delay_allowance_ns(b));
	if (wb_sched_arrival_ns(ready, bytes, now) > wb_sched_arrival_ns(first, bytes, now) + (behind > slack ? behind : slack))
		return NULL; /* it waits for the first */
	if (wb_sched_rule(b, WB_SCHED_RULE_AVOID_BLOCKING) && blest_wait(b, first, ready, bytes))
		return NULL;
	return ready;
}

/* Whether the uplinks of mask differ in weight: only then do the weights choose. */
static bool weights_differ(struct wb_bond *b, uint16_t mask)
{
	int seen = -1;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (seen >= 0 && wb_sched_uplink(b, (unsigned)i)->weight != wb_sched_uplink(b, (unsigned)seen)->weight)
			return true;
		seen = i;
	}
	return false;
}

/*
 * The weights' choice: among the uplinks of mask that would deliver bytes
 * no later than the AQM's target after chosen (the speed rules' pick),
 * the one furthest behind its share. If it cannot send this instant (its
 * pacing, its window), the packet waits for it: it still arrives within
 * the target, and an inner TCP's burst is shared as its weights say, not
 * left to whichever uplink has room at once. Each takes bytes over its
 * weight of share when it sends; one that fell far behind (out of use, or
 * too slow to be a candidate) catches up only a burst.
 */
static struct wb_uplink *by_weight(struct wb_bond *b, struct wb_uplink *chosen, uint16_t mask, uint32_t bytes,
				   uint64_t now)
{
	struct default_state *st = wb_sched_state(b);
	uint64_t by = wb_sched_arrival_ns(chosen, bytes, now) + wb_sched_aqm_target_ns(b), ahead = 0;
	struct wb_uplink *pick = chosen;

	if (!weights_differ(b, mask))
		return chosen;
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = wb_sched_uplink(b, (unsigned)i);

		if (!(mask & (1u << i)) || !wb_uplink_usable(u) || !u->rec || !wb_sched_fits(u, bytes) ||
		    wb_sched_arrival_ns(u, bytes, now) > by)
			continue;
		ahead = st->share[i] > ahead ? st->share[i] : ahead;
		if (st->share[i] < st->share[pick->id])
			pick = u;
	}
	if (ahead > WEIGHT_CATCH_UP_BYTES && st->share[pick->id] < ahead - WEIGHT_CATCH_UP_BYTES)
		st->share[pick->id] = ahead - WEIGHT_CATCH_UP_BYTES;
	if (!wb_sched_can_send(pick, bytes, now))
		return NULL; /* it waits for its uplink, charged when it goes */
	st->share[pick->id] += bytes / pick->weight;
	return pick;
}

static struct wb_uplink *by_speed(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now)
{
	struct wb_uplink *u;

	if (wb_sched_rule(b, WB_SCHED_RULE_ARRIVAL))
		return by_arrival(b, mask, bytes, now);
	u = wb_sched_earliest(b, mask, bytes, now);
	if (u && wb_sched_rule(b, WB_SCHED_RULE_AVOID_BLOCKING) && better_wait(b, u, bytes))
		return NULL; /* it waits for the fast uplink */
	return u;
}

static void default_get_send(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid,
			     struct wb_send_decision *d)
{
	uint16_t mask = wb_sched_uplinks(b) & (uint16_t)~avoid;
	struct wb_uplink *u = by_speed(b, mask, bytes, now);

	d->uplink = u ? by_weight(b, u, mask, bytes, now) : NULL;
}

static bool reason_allowed(const struct wb_bond *b, enum wb_retrans_reason why)
{
	switch (why) {
	case WB_RETRANS_RWND_FULL:
		return wb_sched_rule(b, WB_SCHED_RULE_REINJECT_RWND);
	case WB_RETRANS_SNDBUF_FULL:
		return wb_sched_rule(b, WB_SCHED_RULE_REINJECT_SNDBUF);
	case WB_RETRANS_APP_LIMITED:
		return wb_sched_rule(b, WB_SCHED_RULE_REINJECT_APP_LIMITED);
	case WB_RETRANS_NONE:
	case WB_RETRANS_RTO:
	case WB_RETRANS_MEASURE:
		break;
	}
	return false;
}

/* The lowest-RTT idle uplink the policy uses, NULL if none is idle. */
static struct wb_uplink *idle_uplink(struct wb_bond *b)
{
	uint16_t mask = wb_sched_uplinks(b);
	struct wb_uplink *best = NULL;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = wb_sched_uplink(b, (unsigned)i);

		if ((mask & (1u << i)) && wb_sched_idle(u, wb_sched_full_packet(u)) &&
		    (!best || u->rtt.srtt_ns < best->rtt.srtt_ns))
			best = u;
	}
	return best;
}

/*
 * How many bytes idle may copy of what holder carries: 0 if none.
 * A gone holder's data is worth a window; a live one's only if it is
 * slower and the copy arrives at least one RTT of idle sooner, and then as
 * much as idle sends in the time saved (half the RTT difference: the
 * copies arrive, on average, that much sooner).
 */
static uint64_t copy_budget(const struct wb_uplink *idle, const struct wb_uplink *holder)
{
	uint64_t gain_ns;

	if (!holder->exists || !holder->rec || !holder->dsns_held)
		return 0; /* nothing to copy (a probe in flight is no data) */
	if (!wb_uplink_usable(holder))
		return UINT64_MAX; /* no pacing cap: the data is stuck, only the window limits */
	/* It had a timeout and nothing acked since: its own recovery (and the stale detection) decide. */
	if (holder->rec->pto_count || holder->rec->timed_out)
		return 0;
	if (holder->cc.pacing_rate >= idle->cc.pacing_rate ||
	    holder->rtt.srtt_ns <= REINJECT_RTT_FACTOR * idle->rtt.min_ns)
		return 0;
	gain_ns = (holder->rtt.srtt_ns - idle->rtt.min_ns) / 2;
	return idle->cc.pacing_rate * gain_ns / WB_NSEC_PER_SEC;
}

/*
 * An uplink to measure with copies: one the policy uses, up, not a backup,
 * free to send a full packet now, whose rate is not known (never measured,
 * or not for long: cc_bbr.c's restart) and that is beyond the delay
 * allowance, so neither the arrival rule nor the ramp gives it anything
 * to measure itself with. Copies of what the others hold keep its
 * controller busy, and the receiver drops them as duplicates: the inner
 * flows wait for none of them. If its rate proves to be at least that of
 * the uplinks within the allowance, the allowance grows to take it in.
 */
static struct wb_uplink *to_measure(struct wb_bond *b, uint64_t now)
{
	uint16_t mask = wb_sched_uplinks(b);
	uint64_t allow = wb_sched_delay_allowance_ns(b);

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = wb_sched_uplink(b, (unsigned)i);

		if ((mask & (1u << i)) && wb_sched_idle(u, wb_sched_full_packet(u)) && !wb_sched_rate_known(u) &&
		    (wb_sched_delay_gap_ns(b, u) > allow || wb_sched_small(b, u)) &&
		    wb_sched_can_send(u, wb_sched_full_packet(u), now))
			return u;
	}
	return NULL;
}

static void default_get_retrans(struct wb_bond *b, enum wb_retrans_reason why, uint64_t now,
				struct wb_retrans_decision *d)
{
	struct wb_uplink *idle;
	uint64_t budget = 0, room;

	if (why == WB_RETRANS_MEASURE) {
		if (!wb_sched_rule(b, WB_SCHED_RULE_MEASURE) || !(d->uplink = to_measure(b, now)))
			return;
		d->from = wb_sched_uplinks(b) & (uint16_t)~(1u << d->uplink->id);
		d->limit = d->uplink->cc.cwnd - d->uplink->rec->bytes_in_flight;
		return;
	}
	if (why == WB_RETRANS_RTO) {
		d->uplink = wb_sched_rto_uplink(b);
		if (d->uplink)
			d->limit = d->uplink->cc.cwnd < (uint64_t)TIMEOUT_RESEND_PACKETS * wb_sched_mtu(b)
					   ? d->uplink->cc.cwnd
					   : (uint64_t)TIMEOUT_RESEND_PACKETS * wb_sched_mtu(b);
		return;
	}
	if (!wb_sched_rule(b, WB_SCHED_RULE_REINJECT) || !reason_allowed(b, why) || !(idle = idle_uplink(b)))
		return;
	d->idle_found = true;
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		uint64_t n = wb_sched_uplink(b, (unsigned)i) == idle ? 0 : copy_budget(idle, wb_sched_uplink(b, (unsigned)i));

		if (n) {
			d->from |= (uint16_t)(1u << i);
			budget = n > budget ? n : budget;
		}
	}
	if (!d->from)
		return;
	room = idle->cc.cwnd - idle->rec->bytes_in_flight;
	d->uplink = idle;
	d->limit = budget < room ? budget : room;
}

/*
 * The bond can send nothing new: if the uplink holding snd_una is slower
 * than another and its window is what limits it, halve that window.
 */
static void default_on_blocked(struct wb_bond *b, enum wb_retrans_reason why, uint64_t now)
{
	uint16_t holders = wb_sched_oldest_holders(b);
	struct wb_uplink *fastest = wb_sched_lowest_rtt(b, wb_sched_uplinks(b));
	struct default_state *st = wb_sched_state(b);

	if (!wb_sched_rule(b, WB_SCHED_RULE_PENALISE) || (why != WB_RETRANS_RWND_FULL && why != WB_RETRANS_SNDBUF_FULL))
		return;
	if (why == WB_RETRANS_RWND_FULL && wb_sched_rule(b, WB_SCHED_RULE_PENALISE_GUARD))
		return;
	if (!holders || !fastest)
		return;
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *h = wb_sched_uplink(b, (unsigned)i);

		if (!(holders & (1u << i)) || h == fastest || !wb_uplink_usable(h) || !h->rec ||
		    h->rtt.srtt_ns <= fastest->rtt.srtt_ns)
			continue;
		if (h->rec->bytes_in_flight + h->cc.mss <= h->cc.cwnd)
			continue; /* not window-limited: halving would change nothing now */
		if ((st->penalised & (1u << i)) && now < st->penalised_ns[i] + h->rtt.srtt_ns)
			continue; /* once per its RTT */
		h->cc.ops->on_penalty(&h->cc, now);
		st->penalised_ns[i] = now;
		st->penalised |= (uint16_t)(1u << i);
		wb_sched_count_penalty(b, h);
	}
}

const struct wb_sched_ops wb_sched_default = {
	.name = "default",
	.get_send = default_get_send,
	.get_retrans = default_get_retrans,
	.on_blocked = default_on_blocked,
	.feeds_slower_uplinks = true,
};
