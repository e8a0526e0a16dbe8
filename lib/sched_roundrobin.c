// SPDX-License-Identifier: MIT
/*
 * Round robin: one packet per uplink in turn, among the active uplinks that
 * can send now (one that cannot is passed over, not waited for). Simple and
 * fair in packets, blind to speed: on unequal uplinks the slow one sets the
 * pace of the receiver. For comparison and for equal uplinks.
 */
#include "bond.h"

static struct wb_uplink *rr_get_send(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid,
				     uint32_t *send_limit)
{
	uint16_t mask = wb_sched_uplinks(b) & (uint16_t)~avoid;

	*send_limit = bytes; /* one packet, then the next uplink's turn */
	for (int k = 0; k < WB_MAX_UPLINKS; k++) {
		int i = (b->rr_next + k) % WB_MAX_UPLINKS;

		if ((mask & (1u << i)) && wb_sched_can_send(&b->uplinks[i], bytes, now)) {
			b->rr_next = (uint8_t)((i + 1) % WB_MAX_UPLINKS);
			return &b->uplinks[i];
		}
	}
	return NULL;
}

const struct wb_sched_ops wb_sched_roundrobin = {
	.name = "roundrobin",
	.get_send = rr_get_send,
};
