// SPDX-License-Identifier: MIT
/*
 * Round robin: one packet per uplink in turn, among the active uplinks that
 * can send now (one that cannot is passed over, not waited for). Simple and
 * fair in packets, blind to speed: on unequal uplinks the slow one sets the
 * pace of the receiver. For comparison and for equal uplinks.
 */
#include "sched.h"

struct rr_state {
	uint8_t next; /* the uplink whose turn it is */
};
_Static_assert(sizeof(struct rr_state) <= WB_SCHED_STATE_MAX, "round robin's state fits the bond's");

static void rr_get_send(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid, struct wb_send_decision *d)
{
	struct rr_state *st = wb_sched_state(b);
	uint16_t mask = wb_sched_uplinks(b) & (uint16_t)~avoid;

	for (int k = 0; k < WB_MAX_UPLINKS; k++) {
		int i = (st->next + k) % WB_MAX_UPLINKS;

		if ((mask & (1u << i)) && wb_sched_can_send(wb_sched_uplink(b, (unsigned)i), bytes, now)) {
			st->next = (uint8_t)((i + 1) % WB_MAX_UPLINKS);
			d->uplink = wb_sched_uplink(b, (unsigned)i);
			return;
		}
	}
}

const struct wb_sched_ops wb_sched_roundrobin = {
	.name = "roundrobin",
	.get_send = rr_get_send,
};
