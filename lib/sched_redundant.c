// SPDX-License-Identifier: MIT
/*
 * Redundant: every new packet on every active uplink that can take it, the
 * first copy to arrive wins (the receiver drops the others as duplicates).
 * For a latency-critical bond (voice, games, remote control): a packet is
 * as late as the best uplink at that instant, and a loss on one uplink
 * costs nothing while another delivers. It costs the sum of the uplinks'
 * volume, and goes no faster than the fastest uplink.
 */
#include "sched.h"

static void redundant_get_send(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid,
			       struct wb_send_decision *d)
{
	uint16_t mask = wb_sched_uplinks(b);

	d->uplink = wb_sched_earliest(b, mask & (uint16_t)~avoid, bytes, now);
	/* The copies go on every other uplink in use that can take them now, kept free for a resend or not. */
	if (d->uplink)
		d->copies = mask & (uint16_t)~(1u << d->uplink->id);
}

const struct wb_sched_ops wb_sched_redundant = {
	.name = "redundant",
	.get_send = redundant_get_send,
};
