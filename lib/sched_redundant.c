// SPDX-License-Identifier: MIT
/*
 * Redundant: every new packet on every active uplink that can take it, the
 * first copy to arrive wins (the receiver drops the others as duplicates).
 * For a latency-critical bond (voice, games, remote control): a packet is
 * as late as the best uplink at that instant, and a loss on one uplink
 * costs nothing while another delivers. It costs the sum of the uplinks'
 * volume, and goes no faster than the fastest uplink.
 */
#include "bond.h"

static struct wb_uplink *redundant_get_send(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid,
					    uint32_t *send_limit)
{
	*send_limit = bytes; /* each packet: the first copy here, the others beside (bond_tx.c) */
	return wb_sched_earliest(b, wb_sched_uplinks(b) & (uint16_t)~avoid, bytes, now);
}

const struct wb_sched_ops wb_sched_redundant = {
	.name = "redundant",
	.get_send = redundant_get_send,
	.redundant = true,
};
