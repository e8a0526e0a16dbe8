/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: a table of operations chosen per bond by name, as Linux
 * MPTCP's net.mptcp.scheduler. The core (bond_tx.c, sched.c, reinject.c)
 * asks, the policy decides:
 *
 * - get_send: the uplink for the next new packet, and the uplinks that
 *   carry copies of it (the redundant policy), asked again for every packet;
 * - get_retrans(reason): the uplink to resend on, and a limit. Reasons: the
 *   bond's timeout, or an idle uplink while nothing new can go out because
 *   the peer's receive window is full, our send buffer is full, or nothing
 *   more waits to be sent. The core, not the policy, then walks the DSNs the
 *   chosen holders carry (reinject.c), lowest first, each once, and resends
 *   them within the limit exactly. A policy without get_retrans never
 *   triggers that check (and the bond's timeout resends on the lowest-RTT
 *   uplink);
 * - on_blocked(reason): told on each bond ack that nothing new can go out
 *   (the default policy penalises a slow uplink there).
 *
 * A policy keeps what it remembers between decisions (round robin's turn,
 * the default policy's penalty times and weighted shares) in its own state,
 * bytes of the bond that wb_sched_state() lends it (at most
 * WB_SCHED_STATE_MAX), zeroed when the bond takes the policy and when it
 * starts over: the core holds nothing of any one policy.
 *
 * Policies: default (sched_default.c), roundrobin, redundant, first.
 */
#ifndef WB_SCHED_H
#define WB_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "uplink.h"

struct wb_bond;
struct wb_uplink;

enum wb_retrans_reason {
	WB_RETRANS_NONE,
	WB_RETRANS_RTO,         /* the bond's own timeout */
	WB_RETRANS_RWND_FULL,   /* nothing new can go: the peer's receive window is full */
	WB_RETRANS_SNDBUF_FULL, /* ... our send buffer is full */
	WB_RETRANS_APP_LIMITED, /* ... nothing more waits to be sent */
	WB_RETRANS_MEASURE,     /* the next packet waits for the uplinks in use: copies may measure another */
};

struct wb_retrans_decision {
	struct wb_uplink *uplink; /* where the copies go; NULL: none */
	uint64_t limit;           /* bytes to resend at most (0: nothing) */
	uint16_t from;            /* whose DSNs to copy, a bit per uplink id; 0: every DSN not delivered */
	bool idle_found;          /* an idle uplink was there: a refusal is final for this snd_una */
};

/* Where one new packet goes. */
struct wb_send_decision {
	struct wb_uplink *uplink; /* its first copy; NULL: it waits */
	uint16_t copies;          /* a bit per uplink id: each of these that can take it now sends it too */
};

/* The most state a policy may keep per bond (sched_*.c assert theirs fits). */
#define WB_SCHED_STATE_MAX 320

struct wb_sched_ops {
	const char *name;
	/*
	 * Where the next new packet of bytes goes (d is preset to nothing: it
	 * waits). Uplinks in avoid are kept free for a resend.
	 */
	void (*get_send)(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid, struct wb_send_decision *d);
	/* NULL: no reinjection check; the bond's timeout resends on the lowest-RTT uplink. */
	void (*get_retrans)(struct wb_bond *b, enum wb_retrans_reason reason, uint64_t now,
			    struct wb_retrans_decision *d);
	/* NULL: nothing to do when blocked. */
	void (*on_blocked)(struct wb_bond *b, enum wb_retrans_reason reason, uint64_t now);
	/* The uplinks it sends on now (resends too); NULL: wb_sched_active(). */
	uint16_t (*uplinks)(const struct wb_bond *b);
	/*
	 * It sends a packet where it arrives first, slower uplinks included
	 * (the arrival rule): the send queue then holds what feeds them in
	 * time, and the AQM's target grows by their delay spread.
	 */
	bool feeds_slower_uplinks;
};

/* NULL for an unknown name. */
const struct wb_sched_ops *wb_sched_find(const char *name);
extern const struct wb_sched_ops wb_sched_default, wb_sched_roundrobin, wb_sched_redundant, wb_sched_first;

/* The bond's policy's own state, zeroed when it was chosen or the bond started over. */
void *wb_sched_state(struct wb_bond *b);
/* Forget what the policy remembers: when it is chosen, and when the bond starts over. */
void wb_sched_reset_state(struct wb_bond *b);

/* Whether a rule (WB_SCHED_RULE_*) is on for the bond. */
bool wb_sched_rule(const struct wb_bond *b, uint32_t rule);

/*
 * ---- what a policy sees of its bond (sched.c) ------------------------------
 * A policy includes this header only: the bond is opaque to it, and these
 * say what it may know of it. Its uplinks (uplink.h) it reads as they are.
 */

/* The slot of uplink id (it may not exist: wb_uplink_usable says whether it carries). */
struct wb_uplink *wb_sched_uplink(struct wb_bond *b, unsigned id);
/* Bytes waiting in the send queue, in window units (wb_window_bytes). */
uint64_t wb_sched_queued_bytes(const struct wb_bond *b);
/* Bytes sent and not yet delivered, in window units. */
uint64_t wb_sched_unacked_bytes(const struct wb_bond *b);
/* How many bytes may be unacked at once: the peer's receive window or our send buffer, the smaller. */
uint64_t wb_sched_window(const struct wb_bond *b);
/* The tunnel's MTU (the largest inner packet). */
uint32_t wb_sched_mtu(const struct wb_bond *b);
/* The AQM's configured target for the send queue. */
uint64_t wb_sched_aqm_target_ns(const struct wb_bond *b);
/* The uplinks that carry the oldest DSN not yet delivered (snd_una), a bit per id; 0 if none waits. */
uint16_t wb_sched_oldest_holders(const struct wb_bond *b);
/* The policy penalised u: counted on u and on the bond, and told to the embedder. */
void wb_sched_count_penalty(struct wb_bond *b, struct wb_uplink *u);

/* ---- what policies share (sched.c) ---------------------------------------- */

/*
 * The bytes a packet of len counts for, wherever the scheduler weighs it:
 * len + WB_TUNNEL_BYTES_WITH_ACKS (wire.h). Every "bytes" below is of this
 * kind.
 */

/* The path takes it: bytes of a packet no larger than u's path carries in one datagram. */
static inline bool wb_sched_fits(const struct wb_uplink *u, uint32_t bytes)
{
	return bytes <= wb_uplink_max_packet(u) + WB_TUNNEL_BYTES_WITH_ACKS;
}

/* The bytes of the largest packet u's path carries. */
static inline uint32_t wb_sched_full_packet(const struct wb_uplink *u)
{
	return wb_uplink_max_packet(u) + WB_TUNNEL_BYTES_WITH_ACKS;
}

/* An interactive packet's wb_sched_can_send: a little past the window allowed, no pacing slot waited for. */
bool wb_sched_can_send_interactive(const struct wb_uplink *u, uint32_t bytes);
/* Among mask, the uplink where an interactive packet of bytes arrives first, of those that can take it now; NULL if none. */
struct wb_uplink *wb_sched_interactive_uplink(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now);
/* Whether u may send bytes now: usable, its path takes them, window room, pacing, packet numbers to track. */
bool wb_sched_can_send(const struct wb_uplink *u, uint32_t bytes, uint64_t now);
/* Expected ns to deliver what u has in flight and bytes more: over its pacing rate, plus half its RTT. */
uint64_t wb_sched_completion_ns(const struct wb_uplink *u, uint32_t bytes);
/*
 * When bytes sent on u now would reach the far end (absolute ns): when u
 * may send them (pacing, window), what u has queued at its bottleneck
 * ahead of them, their own time on the wire, and half the path's minimum
 * RTT. UINT64_MAX/2 if u has no rate yet.
 */
uint64_t wb_sched_arrival_ns(const struct wb_uplink *u, uint32_t bytes, uint64_t now);
/*
 * Where a packet of the interactive class goes under its policy (wanbond.h,
 * enum wb_class_policy): the uplink where it arrives first and the copies,
 * among those that can take it now with the class's allowance (d->uplink
 * NULL: none can, it waits). BONDED
 * asks the bond's policy.
 */
void wb_sched_get_send_interactive(struct wb_bond *b, enum wb_class_policy policy, uint32_t bytes, uint64_t now,
				   uint16_t avoid, struct wb_send_decision *d);
/* Among mask, the usable uplink where bytes sent now would arrive first, whether or not it can send now. */
struct wb_uplink *wb_sched_first_arrival(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now);
/* The same among the uplinks of mask that can send bytes now; NULL if none can. */
struct wb_uplink *wb_sched_earliest_arrival_now(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now);
/* What u delivers per second (bytes): its controller's bandwidth estimate, else its pacing, else cwnd per RTT. */
uint64_t wb_sched_delivery_rate(const struct wb_uplink *u);
/*
 * How much later than the fastest uplink the policy uses the slowest one
 * delivers, among those no more than most later and carrying at least an
 * eighth of the bond's rate: half the difference of their path RTTs.
 */
uint64_t wb_sched_delay_spread_ns(const struct wb_bond *b, uint64_t most);
/* How much later than the fastest uplink the policy uses u delivers: half the difference of their path RTTs. */
uint64_t wb_sched_delay_gap_ns(const struct wb_bond *b, const struct wb_uplink *u);
/*
 * Whether u was measured (now, or before its controller started up again)
 * at less than an eighth of the bond's rate: no queue is kept for it, and
 * it is measured again with copies, not with the inner flows' packets.
 */
bool wb_sched_small(const struct wb_bond *b, const struct wb_uplink *u);
/* Whether u's rate is measured (BBR out of startup; a window-based controller always). */
bool wb_sched_rate_known(const struct wb_uplink *u);
/*
 * Whether the bond knows what its uplinks carry: one of those the policy
 * uses has a measured rate (BBR out of startup). Until then a queue is the
 * tunnel's own, its uplinks' windows still growing, and the AQM holds its
 * drops: an inner TCP in slow start would otherwise lose a packet at a
 * tenth of the path's window, and CUBIC takes ten seconds to come back.
 */
bool wb_sched_capacity_known(const struct wb_bond *b);
/*
 * How much later than the fastest uplink a slower one may deliver and
 * still have the send queue wait for it (the spread's limit): half the
 * AQM's interval, or more where an uplink beyond it carries at least as
 * much as all the uplinks within it together. Then leaving it out would
 * make the bond slower than that uplink alone, and it goes in, with every
 * uplink that delivers sooner than it. (An uplink that carries less adds
 * less than the delay costs: the inner flows would pay it on every packet,
 * and their windows, bounded by their buffers, cover less of the rate.)
 */
uint64_t wb_sched_delay_allowance_ns(const struct wb_bond *b);
/*
 * How long a packet may wait in the send queue before the AQM judges it:
 * a second while an uplink is in an outage or has just come back from one
 * (the queue is the outage's), an interval while no uplink's rate is
 * measured yet (the queue is the tunnel's own: its uplinks still ramp up
 * and an inner TCP in slow start would lose a packet at a tenth of the
 * path's window), else nothing.
 */
uint64_t wb_sched_queue_hold_ns(const struct wb_bond *b, uint64_t now);
/*
 * The AQM's target for the send queue: the configured one, and with the
 * arrival rule the spread of the uplinks' one-way delays on top (within
 * the allowance), the queue it takes to feed a slower uplink what it
 * delivers in time.
 */
uint64_t wb_sched_queue_target_ns(const struct wb_bond *b);
/* The usable uplinks, a bit per id: the non-backup ones, or the backups if no other is usable. */
uint16_t wb_sched_active(const struct wb_bond *b);
/* The uplinks the bond's policy sends on now. */
uint16_t wb_sched_uplinks(const struct wb_bond *b);
/* Among mask, the uplink that can send bytes now and would deliver them first; NULL if none. */
struct wb_uplink *wb_sched_earliest(struct wb_bond *b, uint16_t mask, uint32_t bytes, uint64_t now);
/* The uplinks whose path takes bytes. */
uint16_t wb_sched_fitting(const struct wb_bond *b, uint32_t bytes);
/* Among mask, the usable uplink with the lowest smoothed RTT (sending now or not); NULL if none. */
struct wb_uplink *wb_sched_lowest_rtt(struct wb_bond *b, uint16_t mask);
/*
 * Idle: usable, not a backup, not timed out, and room in its window for
 * bytes more that the bond has nothing to fill with. (Not "nothing in
 * flight": a blocked bond reopens its window in small steps as the slow
 * uplink delivers, and the fast one, given each step, never drains.)
 */
bool wb_sched_idle(const struct wb_uplink *u, uint32_t bytes);

/*
 * For a resent packet: the uplink where it arrives first (as new data
 * would), one that lost it already (lost_on) counted a probe timeout late,
 * and none that timed out while another can take it. If that uplink cannot
 * send this instant, the packet waits for it: NULL, and *reserved says
 * which uplink new data must keep off.
 */
struct wb_uplink *wb_sched_pick_resend(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t lost_on,
				       uint16_t *reserved);

/* Why nothing new can go out now, or WB_RETRANS_NONE. */
enum wb_retrans_reason wb_sched_blocked(const struct wb_bond *b);
/*
 * On a bond ack: the policy's checks, the penalty first, then opportunistic
 * reinjection. Returns true when copies are to go out (wb_bond_push sends them).
 */
bool wb_sched_on_bond_ack(struct wb_bond *b, uint64_t now);
/*
 * The next new packet waits for the uplinks the policy uses: the bond has
 * more to send than they take now. The policy may name an uplink it does
 * not use yet, whose rate it does not know, to carry copies of what the
 * others hold (WB_RETRANS_MEASURE): its rate is then measured with no
 * packet of the inner flows waiting for it. Returns true when copies are
 * to go out.
 */
bool wb_sched_on_waiting(struct wb_bond *b, uint64_t now);
/* For the bond's timeout: the lowest-RTT uplink, one that does not carry snd_una if it can. */
struct wb_uplink *wb_sched_rto_uplink(struct wb_bond *b);
/* The bond's timeout: the policy (or the lowest-RTT uplink) resends from snd_una. */
void wb_sched_on_bond_timeout(struct wb_bond *b, uint64_t now);

#endif
