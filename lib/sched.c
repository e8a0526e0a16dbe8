// SPDX-License-Identifier: MIT
/*
 * The scheduler's core: the registry of policies, what they share (which
 * uplinks may send, which would deliver first), the choice of an uplink
 * for a resent packet, and the checks a bond ack or the bond's timeout
 * runs through the policy (sched.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "nsec.h"

/* The shortest RTT a rate is worked out over (a LAN's is below a timer's precision). */
#define MIN_RATE_RTT_NS WB_NSEC_PER_MSEC
/*
 * An uplink that carries less than 1/SPREAD_MIN_SHARE of the bond's rate
 * gets no queue of its own: 4% more throughput is not worth every
 * packet's waiting its delay gap (an inner CUBIC, whose window must cover
 * that wait, lost more than it gained).
 */
#define SPREAD_MIN_SHARE 8
/*
 * For this long after an uplink left "up" (an outage began: it went stale
 * or down), the send queue may hold up to OUTAGE_QUEUE_NS before the AQM
 * judges it: the queue is the outage's, the capacity that went away for a
 * moment, and the inner flows, told by drops to slow down to the uplinks
 * left, took seconds to come back once it returned (a CUBIC halved five
 * times over a one-second outage of a satellite link). An uplink dead for
 * good holds the queue this long once, then the AQM judges as ever.
 */
#define OUTAGE_HOLD_NS (5ULL * WB_NSEC_PER_SEC)
#define OUTAGE_QUEUE_NS (1ULL * WB_NSEC_PER_SEC)

static const struct wb_sched_ops *const policies[] = {
	&wb_sched_default, &wb_sched_roundrobin, &wb_sched_redundant, &wb_sched_first,
};

const struct wb_sched_ops *wb_sched_find(const char *name)
{
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (!strcmp(policies[i]->name, name))
			return policies[i];
	return NULL;
}

static const struct {
	const char *name;
	uint32_t flag;
} rules[] = {
	{ "penalise", WB_SCHED_RULE_PENALISE },
	{ "penalise_guard", WB_SCHED_RULE_PENALISE_GUARD },
	{ "reinject", WB_SCHED_RULE_REINJECT },
	{ "reinject_on_rwnd", WB_SCHED_RULE_REINJECT_RWND },
	{ "reinject_on_sndbuf", WB_SCHED_RULE_REINJECT_SNDBUF },
	{ "reinject_on_app_limited", WB_SCHED_RULE_REINJECT_APP_LIMITED },
	{ "avoid_blocking", WB_SCHED_RULE_AVOID_BLOCKING },
	{ "arrival", WB_SCHED_RULE_ARRIVAL },
	{ "measure", WB_SCHED_RULE_MEASURE },
};

uint32_t wb_sched_rule_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rules[i].name, name))
			return rules[i].flag;
	return 0;
}

const char *wb_sched_rule_name(uint32_t flag)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].flag == flag)
			return rules[i].name;
	return NULL;
}

bool wb_sched_exists(const char *name)
{
	return wb_sched_find(name) != NULL;
}

bool wb_sched_rule(const struct wb_bond *b, uint32_t rule)
{
	return !(b->tuning.sched_off & rule);
}

int wb_bond_set_scheduler(struct wb_bond *b, const char *name, uint32_t sched_off)
{
	const struct wb_sched_ops *ops = wb_sched_find(name);

	if (!ops)
		return -EINVAL;
	if (ops != b->sched)
		wb_sched_reset_state(b); /* a new policy starts with nothing remembered; new rules keep it */
	b->sched = ops;
	snprintf(b->tuning.scheduler, sizeof(b->tuning.scheduler), "%s", ops->name);
	b->tuning.sched_off = sched_off;
	b->reinj.active = false;
	wb_bond_timers_changed(b);
	return 0;
}

void *wb_sched_state(struct wb_bond *b)
{
	return b->sched_state;
}

void wb_sched_reset_state(struct wb_bond *b)
{
	memset(b->sched_state, 0, sizeof(b->sched_state));
}

const char *wb_bond_scheduler(const struct wb_bond *b)
{
	return b->sched->name;
}

/* ---- what a policy sees of its bond ------------------------------------------ */

struct wb_uplink *wb_sched_uplink(struct wb_bond *b, unsigned id)
{
	return &b->uplinks[id];
}

uint64_t wb_sched_queued_bytes(const struct wb_bond *b)
{
	return b->txq.bytes;
}

uint64_t wb_sched_unacked_bytes(const struct wb_bond *b)
{
	return b->snd.bytes;
}

uint64_t wb_sched_window(const struct wb_bond *b)
{
	return b->peer_rwnd < b->tuning.send_buffer ? b->peer_rwnd : b->tuning.send_buffer;
}

uint32_t wb_sched_mtu(const struct wb_bond *b)
{
	return b->tuning.mtu;
}

uint64_t wb_sched_aqm_target_ns(const struct wb_bond *b)
{
	return b->tuning.aqm_target_ns;
}

uint16_t wb_sched_oldest_holders(const struct wb_bond *b)
{
	const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, b->snd.una);

	return e && !(e->flags & WB_SND_DELIVERED) ? e->holders : 0;
}

void wb_sched_count_penalty(struct wb_bond *b, struct wb_uplink *u)
{
	u->c.penalties++;
	b->c.penalised++;
	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_PENALTY, .uplink = u->name, .count = 1 });
}

/* ---- what policies share ------------------------------------------------- */

bool wb_sched_can_send(const struct wb_uplink *u, uint32_t bytes, uint64_t now)
{
	return wb_uplink_usable(u) && u->rec && wb_sched_fits(u, bytes) && wb_recovery_can_send(u->rec) &&
	       u->rec->bytes_in_flight + bytes <= u->cc.cwnd && now >= u->next_send_ns;
}

/*
 * A call's packet may go past its uplink's window by a few packets, and
 * without waiting for its pacing slot: it is small and comes 50 times a
 * second, and under a bulk load an ack or a slot is a wait it would pay on
 * every packet. The allowance bounds what the class adds beyond the
 * window: more interactive traffic than that waits for the window as bulk.
 */
#define INTERACTIVE_ALLOWANCE (4 * 1500)

bool wb_sched_can_send_interactive(const struct wb_uplink *u, uint32_t bytes)
{
	return wb_uplink_usable(u) && u->rec && wb_sched_fits(u, bytes) && wb_recovery_can_send(u->rec) &&
	       u->rec->bytes_in_flight + bytes <= u->cc.cwnd + INTERACTIVE_ALLOWANCE;
}

uint64_t wb_sched_completion_ns(const struct wb_uplink *u, uint32_t bytes)
{
	uint64_t queued = u->rec->bytes_in_flight + bytes;
	uint64_t rate = u->cc.pacing_rate;

	if (!rate && u->rtt.srtt_ns)
		rate = u->cc.cwnd * WB_NSEC_PER_SEC / u->rtt.srtt_ns;
	if (!rate)
		return UINT64_MAX / 2;
	return queued * WB_NSEC_PER_SEC / rate + u->rtt.srtt_ns / 2;
}

/*
 * Whether u's rate is measured: BBR out of startup. An uplink the bond has
 * not used yet shows its initial window per RTT, which says nothing of
 * what it could carry: its share is not held against it.
 */
bool wb_sched_rate_known(const struct wb_uplink *u)
{
	return u->cc.ops != &wb_cc_bbr || u->cc.bbr.filled_pipe;
}

/*
 * The path's propagation RTT: BBR's minimum of the last ten seconds when
 * the uplink runs BBR (a path whose delay grew is seen within that), else
 * the lowest RTT ever measured.
 */
static uint64_t path_rtt_ns(const struct wb_uplink *u)
{
	if (u->cc.ops == &wb_cc_bbr && u->cc.bbr.min_rtt_ns != UINT64_MAX)
		return u->cc.bbr.min_rtt_ns;
	return u->rtt.min_ns;
}

uint64_t wb_sched_delivery_rate(const struct wb_uplink *u)
{
	uint64_t rate = u->cc.ops == &wb_cc_bbr ? u->cc.bbr.btl_bw : u->cc.pacing_rate;
	uint64_t rtt = u->rtt.srtt_ns > MIN_RATE_RTT_NS ? u->rtt.srtt_ns : MIN_RATE_RTT_NS;
	/*
	 * An uplink that carried only probes has measured a rate of bytes a
	 * second; its initial window per RTT is the least it can deliver.
	 */
	uint64_t floor = (uint64_t)WB_CC_INITIAL_WINDOW_PACKETS * u->cc.mss * WB_NSEC_PER_SEC / rtt;

	return rate > floor ? rate : floor;
}

/*
 * The standing queue u's own packets make at its bottleneck: what it has
 * in flight beyond its bandwidth-delay product, seen at once. (The
 * smoothed RTT above the minimum would show other senders' queues too, but
 * late, and with the peer's ack delay in it: between two equal uplinks it
 * picks one by noise.)
 */
static uint64_t queue_delay_ns(const struct wb_uplink *u, uint64_t rate)
{
	uint64_t pipe = rate * (path_rtt_ns(u) / 1000) / 1000000, in_flight = u->rec->bytes_in_flight;

	return in_flight > pipe ? (in_flight - pipe) * WB_NSEC_PER_SEC / rate : 0;
}

uint64_t wb_sched_arrival_ns(const struct wb_uplink *u, uint32_t bytes, uint64_t now)
{
	uint64_t rate = wb_sched_delivery_rate(u), start = now > u->next_send_ns ? now : u->next_send_ns;
	uint64_t in_flight = u->rec->bytes_in_flight, wait = 0, queue;

	/*
	 * BBR probes for more bandwidth by pacing a quarter above its estimate
	 * for a round: predicted at the estimate, that extra went to other
	 * uplinks, and the estimate never grew past what the uplink was first
	 * given. (Not in startup: there the pace is three times a rate that is
	 * only what the uplink carried so far; ramping_up feeds it instead.)
	 */
	if (wb_sched_rate_known(u) && u->cc.pacing_rate > rate)
		rate = u->cc.pacing_rate;
	if (!rate || !u->rtt.has_sample)
		return UINT64_MAX / 2;
	/* A full window opens as acks come back, at the rate the uplink delivers. */
	if (in_flight + bytes > u->cc.cwnd)
		wait = (in_flight + bytes - u->cc.cwnd) * WB_NSEC_PER_SEC / rate;
	queue = queue_delay_ns(u, rate);
	return start + (wait > queue ? wait : queue) + (uint64_t)bytes * WB_NSEC_PER_SEC / rate + path_rtt_ns(u) / 2;
}

/* Among mask, the uplink where bytes would arrive first: of all that may send (ready false), or of those that can now. */
static struct wb_uplink *first_arrival(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now, bool ready)
{
	struct wb_uplink *best = NULL;
	uint64_t best_t = UINT64_MAX;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];
		uint64_t t;

		if (!(mask & (1u << i)) || !wb_uplink_usable(u) || !u->rec || !wb_sched_fits(u, bytes) ||
		    !wb_recovery_can_send(u->rec) || (ready && !wb_sched_can_send(u, bytes, now)))
			continue;
		t = wb_sched_arrival_ns(u, bytes, now);
		/* On a tie, the one that can send now, else the lower id. */
		if (t < best_t || (t == best_t && best && !wb_sched_can_send(best, bytes, now) && wb_sched_can_send(u, bytes, now))) {
			best = u;
			best_t = t;
		}
	}
	return best;
}

struct wb_uplink *wb_sched_first_arrival(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now)
{
	return first_arrival(b, mask, bytes, now, false);
}

struct wb_uplink *wb_sched_earliest_arrival_now(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now)
{
	return first_arrival(b, mask, bytes, now, true);
}

/*
 * The interactive class: a call's packet is worth more than the bytes it
 * costs twice, so it goes where it arrives first and a copy where it
 * arrives next (or on every uplink in use), whatever the bond's policy
 * does with bulk. Both are chosen among the uplinks that can take it now
 * with the class's allowance beyond their window (wb_sched_can_send_interactive):
 * one whose allowance a flow of the class used up is passed over, not
 * waited for; the packet waits only when no uplink can take it.
 */
void wb_sched_get_send_interactive(struct wb_bond *b, enum wb_class_policy policy, uint32_t bytes, uint64_t now,
				   uint16_t avoid, struct wb_send_decision *d)
{
	uint16_t mask = wb_sched_active(b);
	struct wb_uplink *next;

	switch (policy) {
	case WB_CLASS_POLICY_BONDED:
		b->sched->get_send(b, bytes, now, avoid, d);
		return;
	case WB_CLASS_POLICY_REDUNDANT:
		d->uplink = wb_sched_interactive_uplink(b, mask, bytes, now);
		d->copies = mask;
		break;
	case WB_CLASS_POLICY_DUPLICATE:
		d->uplink = wb_sched_interactive_uplink(b, mask, bytes, now);
		next = d->uplink ? wb_sched_interactive_uplink(b, mask & (uint16_t)~(1u << d->uplink->id), bytes, now) :
				   NULL;
		d->copies = next ? (uint16_t)(1u << next->id) : 0;
		break;
	}
}

struct wb_uplink *wb_sched_interactive_uplink(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now)
{
	uint16_t can = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if ((mask & (1u << i)) && wb_sched_can_send_interactive(&b->uplinks[i], bytes))
			can |= (uint16_t)(1u << i);
	return first_arrival(b, can, bytes, now, false);
}

bool wb_sched_capacity_known(const struct wb_bond *b)
{
	uint16_t mask = wb_sched_uplinks(b);

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if ((mask & (1u << i)) && wb_uplink_usable(u) && u->rec && wb_sched_rate_known(u))
			return true;
	}
	return false;
}

/* Whether u is one the spread counts: usable, with an RTT measured. */
static bool has_path_rtt(const struct wb_uplink *u)
{
	return wb_uplink_usable(u) && u->rec && u->rtt.has_sample;
}

/* The lowest path RTT of the uplinks the policy uses; UINT64_MAX if none has one. */
static uint64_t lowest_path_rtt_ns(const struct wb_bond *b)
{
	uint64_t lo = UINT64_MAX;
	uint16_t mask = wb_sched_uplinks(b);

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if ((mask & (1u << i)) && has_path_rtt(&b->uplinks[i]) && path_rtt_ns(&b->uplinks[i]) < lo)
			lo = path_rtt_ns(&b->uplinks[i]);
	return lo;
}

/* Half of u's path RTT above the lowest of the bond's uplinks: how much later its packets arrive. */
uint64_t wb_sched_delay_gap_ns(const struct wb_bond *b, const struct wb_uplink *u)
{
	uint64_t lo = lowest_path_rtt_ns(b), own = path_rtt_ns(u);

	return own > lo ? (own - lo) / 2 : 0;
}

/* The total delivery rate of the uplinks the policy uses that have an RTT. */
static uint64_t total_rate(const struct wb_bond *b)
{
	uint16_t mask = wb_sched_uplinks(b);
	uint64_t total = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if ((mask & (1u << i)) && has_path_rtt(&b->uplinks[i]))
			total += wb_sched_delivery_rate(&b->uplinks[i]);
	return total;
}

/*
 * Whether u was measured (now, or before its model started up again: the
 * rate it had is kept) and carries less than an eighth of the bond's rate.
 */
bool wb_sched_small(const struct wb_bond *b, const struct wb_uplink *u)
{
	bool measured = u->cc.ops != &wb_cc_bbr || u->cc.bbr.measured;

	return measured && wb_sched_delivery_rate(u) * SPREAD_MIN_SHARE < total_rate(b);
}

uint64_t wb_sched_delay_spread_ns(const struct wb_bond *b, uint64_t most)
{
	uint64_t lo = lowest_path_rtt_ns(b), spread = 0;
	uint16_t mask = wb_sched_uplinks(b);

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];
		uint64_t gap;

		if (!(mask & (1u << i)) || !has_path_rtt(u) || wb_sched_small(b, u))
			continue;
		gap = (path_rtt_ns(u) - lo) / 2;
		if (gap <= most && gap > spread)
			spread = gap;
	}
	return spread;
}

/* The total delivery rate of the uplinks of mask no more than allow later than the fastest. */
static uint64_t rate_within(const struct wb_bond *b, uint16_t mask, uint64_t lo, uint64_t allow)
{
	uint64_t total = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if ((mask & (1u << i)) && has_path_rtt(u) && (path_rtt_ns(u) - lo) / 2 <= allow)
			total += wb_sched_delivery_rate(u);
	}
	return total;
}

/*
 * Whether u carries at least within. While its rate is not measured, three
 * quarters will do: it is being measured with copies of what the others
 * carry (WB_RETRANS_MEASURE), which come no faster than they deliver.
 */
static bool carries_as_much(const struct wb_uplink *u, uint64_t within)
{
	uint64_t rate = wb_sched_delivery_rate(u);

	return wb_sched_rate_known(u) ? rate >= within : 4 * rate >= 3 * within;
}

uint64_t wb_sched_delay_allowance_ns(const struct wb_bond *b)
{
	uint64_t allow = b->tuning.aqm_interval_ns / 2, lo = lowest_path_rtt_ns(b);
	uint16_t mask = wb_sched_uplinks(b);

	for (;;) {
		uint64_t within = rate_within(b, mask, lo, allow), next = UINT64_MAX;

		/* The nearest uplink beyond the allowance that alone carries at least all those within it. */
		for (int i = 0; i < WB_MAX_UPLINKS; i++) {
			const struct wb_uplink *u = &b->uplinks[i];
			uint64_t gap;

			if (!(mask & (1u << i)) || !has_path_rtt(u))
				continue;
			gap = (path_rtt_ns(u) - lo) / 2;
			if (gap > allow && gap < next && carries_as_much(u, within))
				next = gap;
		}
		if (next == UINT64_MAX)
			return allow;
		allow = next;
	}
}

/*
 * Whether an uplink that is not a backup left "up" (an outage began)
 * within OUTAGE_HOLD_NS, taking at least a quarter of the bond's rate with
 * it: it may be out still, or back and ramping up. (A small one that comes
 * and goes, as an LTE line while driving, takes little capacity away: the
 * queue it leaves is not worth holding, and a queue held at every one of
 * its outages was bufferbloat most of the time.)
 */
static bool outage_lately(const struct wb_bond *b, uint64_t now)
{
	uint64_t rest = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (wb_uplink_usable(&b->uplinks[i]) && b->uplinks[i].rec && !b->uplinks[i].backup)
			rest += wb_sched_delivery_rate(&b->uplinks[i]);
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if (u->exists && !u->backup && u->left_up_ns && now - u->left_up_ns < OUTAGE_HOLD_NS &&
		    3 * u->left_up_rate >= rest)
			return true;
	}
	return false;
}

uint64_t wb_sched_queue_hold_ns(const struct wb_bond *b, uint64_t now)
{
	if (outage_lately(b, now))
		return OUTAGE_QUEUE_NS;
	return wb_sched_capacity_known(b) ? 0 : b->tuning.aqm_interval_ns;
}

uint64_t wb_sched_queue_target_ns(const struct wb_bond *b)
{
	if (!b->sched->feeds_slower_uplinks || !wb_sched_rule(b, WB_SCHED_RULE_ARRIVAL))
		return b->tuning.aqm_target_ns;
	return b->tuning.aqm_target_ns + wb_sched_delay_spread_ns(b, wb_sched_delay_allowance_ns(b));
}

uint16_t wb_sched_active(const struct wb_bond *b)
{
	uint16_t active = 0, backups = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if (!wb_uplink_usable(u) || !u->rec)
			continue;
		if (u->backup)
			backups |= (uint16_t)(1u << i);
		else
			active |= (uint16_t)(1u << i);
	}
	/* Backup uplinks carry traffic only while no other uplink is up. */
	return active ? active : backups;
}

uint16_t wb_sched_fitting(const struct wb_bond *b, uint32_t bytes)
{
	uint16_t mask = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists && wb_sched_fits(&b->uplinks[i], bytes))
			mask |= (uint16_t)(1u << i);
	return mask;
}

uint16_t wb_sched_uplinks(const struct wb_bond *b)
{
	return b->sched->uplinks ? b->sched->uplinks(b) : wb_sched_active(b);
}

struct wb_uplink *wb_sched_earliest(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now)
{
	struct wb_uplink *best = NULL;
	uint64_t best_t = UINT64_MAX;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];
		uint64_t t;

		if (!(mask & (1u << i)) || !wb_sched_can_send(u, bytes, now))
			continue;
		t = wb_sched_completion_ns(u, bytes);
		if (t < best_t) {
			best = u;
			best_t = t;
		}
	}
	return best;
}

struct wb_uplink *wb_sched_lowest_rtt(struct wb_bond *b, uint16_t mask)
{
	struct wb_uplink *best = NULL;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		if ((mask & (1u << i)) && wb_uplink_usable(u) && u->rec &&
		    (!best || u->rtt.srtt_ns < best->rtt.srtt_ns))
			best = u;
	}
	return best;
}

bool wb_sched_idle(const struct wb_uplink *u, uint32_t bytes)
{
	return wb_uplink_usable(u) && !u->backup && u->rec && !u->rec->timed_out && u->rtt.has_sample &&
	       wb_sched_fits(u, bytes) && u->rec->bytes_in_flight + bytes <= u->cc.cwnd;
}

/*
 * When a resend of bytes on u would reach the far end: its arrival as new
 * data's, and for an uplink that lost it already, a probe timeout of it
 * later (what losing it again would cost, the time to find it lost: an
 * uplink whose queue overflowed or that is dying may well lose it again).
 * So a packet lost at random on a fast uplink goes again on it, not on one
 * ten times slower, whose delay the receiver's reorder buffer, and the
 * inner TCP, would then wait for; between uplinks alike, on another.
 */
static uint64_t resend_arrival_ns(const struct wb_uplink *u, uint32_t bytes, uint64_t now, uint16_t lost_on)
{
	uint64_t t = wb_sched_arrival_ns(u, bytes, now);

	return lost_on & (1u << u->id) ? t + wb_recovery_pto(&u->rtt) : t;
}

struct wb_uplink *wb_sched_pick_resend(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t lost_on,
				       uint16_t *reserved)
{
	uint16_t mask = wb_sched_uplinks(b) & wb_sched_fitting(b, bytes);
	struct wb_uplink *best = NULL;
	uint64_t best_t = UINT64_MAX;

	*reserved = 0;
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];
		uint64_t t;

		if (!(mask & (1u << i)) || !wb_uplink_usable(u) || !u->rec || u->rec->timed_out ||
		    !wb_recovery_can_send(u->rec))
			continue;
		t = resend_arrival_ns(u, bytes, now, lost_on);
		if (t < best_t || (t == best_t && !wb_sched_can_send(best, bytes, now))) {
			best = u;
			best_t = t;
		}
	}
	if (!best) /* every one timed out: the one that can send now and delivers first */
		return wb_sched_earliest(b, mask, bytes, now);
	/* It arrives first even counting the wait for its pacing or window: the packet waits for it, new data keeps off it. */
	if (!wb_sched_can_send(best, bytes, now)) {
		*reserved = (uint16_t)(1u << best->id);
		return NULL;
	}
	return best;
}

/* ---- the checks a bond ack and the bond's timeout run ---------------------- */

enum wb_retrans_reason wb_sched_blocked(const struct wb_bond *b)
{
	const struct wb_txq_entry *head = wb_txq_peek(&b->txq); /* the interactive class has its reserve */
	uint64_t after;

	if (b->snd.una == b->snd.nxt)
		return WB_RETRANS_NONE; /* nothing outstanding: nothing holds the bond up */
	if (!head)
		return WB_RETRANS_APP_LIMITED;
	after = b->snd.bytes + wb_window_bytes(head->len);
	/*
	 * The receiver is what limits only when its window is smaller than our
	 * buffer (as TCP's "data queued past the window's edge"); with both
	 * full at once, it is our buffer.
	 */
	if (after > b->peer_rwnd && b->peer_rwnd < b->tuning.send_buffer)
		return WB_RETRANS_RWND_FULL;
	if (after > b->tuning.send_buffer || after > b->peer_rwnd)
		return WB_RETRANS_SNDBUF_FULL;
	return WB_RETRANS_NONE;
}

bool wb_sched_on_bond_ack(struct wb_bond *b, uint64_t now)
{
	enum wb_retrans_reason why = wb_sched_blocked(b);
	struct wb_retrans_decision d = { 0 };

	if (why == WB_RETRANS_NONE)
		return false;
	if (b->sched->on_blocked)
		b->sched->on_blocked(b, why, now);
	/* One check per snd_una that met an idle uplink; none while copies still go out. */
	if (!b->sched->get_retrans || b->reinj.active || b->snd.una == b->oppr_una)
		return false;
	b->sched->get_retrans(b, why, now, &d);
	if (d.idle_found)
		b->oppr_una = b->snd.una;
	if (!d.uplink || !d.limit)
		return false;
	wb_reinject_start(b, &d, why);
	return true;
}

bool wb_sched_on_waiting(struct wb_bond *b, uint64_t now)
{
	struct wb_retrans_decision d = { 0 };

	if (!b->sched->get_retrans || b->reinj.active)
		return false;
	b->sched->get_retrans(b, WB_RETRANS_MEASURE, now, &d);
	if (!d.uplink || !d.limit)
		return false;
	wb_reinject_start(b, &d, WB_RETRANS_MEASURE);
	return true;
}

struct wb_uplink *wb_sched_rto_uplink(struct wb_bond *b)
{
	const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, b->snd.una);
	uint16_t mask = wb_sched_uplinks(b);
	struct wb_uplink *u = e ? wb_sched_lowest_rtt(b, mask & (uint16_t)~e->holders) : NULL;

	/* One that does not carry snd_una already, if there is one. */
	return u ? u : wb_sched_lowest_rtt(b, mask);
}

void wb_sched_on_bond_timeout(struct wb_bond *b, uint64_t now)
{
	struct wb_retrans_decision d = { 0 };

	if (b->sched->get_retrans) {
		b->sched->get_retrans(b, WB_RETRANS_RTO, now, &d);
	} else {
		d.uplink = wb_sched_rto_uplink(b);
		d.limit = d.uplink ? d.uplink->cc.cwnd : 0;
	}
	if (d.uplink && d.limit)
		wb_reinject_start(b, &d, WB_RETRANS_RTO);
}
