// SPDX-License-Identifier: MIT
/*
 * Which uplink takes the next packet. For new data: among the up uplinks
 * with room in their congestion window whose pacing lets a packet go now,
 * the one where it would be delivered first, judged by what it already has
 * in flight over its pacing rate (backup uplinks only when no other is up).
 * For a resent packet, which holds up delivery: the one that delivers it
 * first, avoiding the uplinks that already lost it while another can send.
 * (The scheduler framework with its policies and rules builds on this.)
 */
#include "bond.h"

bool wb_sched_can_send(const struct wb_uplink *u, uint32_t bytes, uint64_t now)
{
	return wb_uplink_usable(u) && u->rec && wb_recovery_can_send(u->rec) &&
	       u->rec->bytes_in_flight + bytes <= u->cc.cwnd && now >= u->next_send_ns;
}

/* Expected time to deliver what it holds and this packet, in ns (its pacing rate, else cwnd per RTT). */
static uint64_t completion_ns(const struct wb_uplink *u, uint32_t bytes)
{
	uint64_t queued = u->rec->bytes_in_flight + bytes;
	uint64_t rate = u->cc.pacing_rate;

	if (!rate && u->rtt.srtt_ns)
		rate = u->cc.cwnd * 1000000000ULL / u->rtt.srtt_ns;
	if (!rate)
		return UINT64_MAX / 2;
	return queued * 1000000000ULL / rate + u->rtt.srtt_ns / 2;
}

/* Backup uplinks carry traffic only while no other uplink is up. */
static bool backups_allowed(const struct wb_bond *b)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (wb_uplink_usable(&b->uplinks[i]) && !b->uplinks[i].backup)
			return false;
	return true;
}

struct wb_uplink *wb_sched_pick_new(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t reserved)
{
	bool backups = backups_allowed(b);
	struct wb_uplink *best = NULL;
	uint64_t best_t = UINT64_MAX;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];
		uint64_t t;

		if (u->backup != backups || (reserved & (1u << i)) || !wb_sched_can_send(u, bytes, now))
			continue;
		t = completion_ns(u, bytes);
		if (t < best_t) {
			best = u;
			best_t = t;
		}
	}
	return best;
}

struct wb_uplink *wb_sched_pick_retx(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid,
				     uint16_t *reserved)
{
	bool backups = backups_allowed(b);
	struct wb_uplink *best = NULL;
	uint64_t best_t = UINT64_MAX;
	uint16_t preferred = 0;

	/*
	 * First the uplinks that did not lose it. If one of them is up but
	 * cannot send this instant, the packet waits for it (and new data keeps
	 * off it): the uplink that lost it is likely to lose it again (its
	 * queue overflowed, or it is dying).
	 */
	for (int pass = 0; pass < 2 && !best; pass++) {
		for (int i = 0; i < WB_MAX_UPLINKS; i++) {
			struct wb_uplink *u = &b->uplinks[i];
			uint64_t t;

			if (u->backup != backups || !wb_uplink_usable(u) || (!pass && (avoid & (1u << i))))
				continue;
			if (!pass)
				preferred |= (uint16_t)(1u << i);
			if (!wb_sched_can_send(u, bytes, now))
				continue;
			t = completion_ns(u, bytes);
			if (t < best_t) {
				best = u;
				best_t = t;
			}
		}
		if (!pass && !best && preferred) {
			*reserved = preferred;
			return NULL;
		}
	}
	*reserved = 0;
	return best;
}
