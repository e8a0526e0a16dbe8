// SPDX-License-Identifier: MIT
/*
 * First: all traffic on one uplink, the first usable one in the order of
 * the configuration (active before backup); the others are its failover
 * and carry nothing while it is up. For a metered uplink that must stay
 * idle, or an operator who wants one path at a time.
 */
#include "sched.h"

static uint16_t first_uplinks(const struct wb_bond *b)
{
	uint16_t active = wb_sched_active(b);

	/* The lowest bit: the first uplink configured among those usable. */
	return active & (uint16_t)-active;
}

static void first_get_send(struct wb_bond *b, uint32_t bytes, uint64_t now, uint16_t avoid,
			   struct wb_send_decision *d)
{
	d->uplink = wb_sched_earliest(b, first_uplinks(b) & (uint16_t)~avoid, bytes, now);
}

const struct wb_sched_ops wb_sched_first = {
	.name = "first",
	.get_send = first_get_send,
	.uplinks = first_uplinks,
};
