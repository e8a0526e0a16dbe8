// SPDX-License-Identifier: MIT
/*
 * The spread of new IP packets over a bond's uplinks, until the scheduler
 * replaces it: a smooth weighted round robin (each pick adds every candidate's
 * weight to its credit, takes the highest, and charges it the total) among
 * the up uplinks that are not backups; the backups only when none is up.
 */
#include "bond.h"

static struct wb_uplink *pick_among(struct wb_bond *b, bool backups)
{
	struct wb_uplink *best = NULL;
	int64_t total = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		if (!wb_uplink_usable(u) || u->backup != backups)
			continue;
		u->spread_credit += u->weight;
		total += u->weight;
		if (!best || u->spread_credit > best->spread_credit)
			best = u;
	}
	if (best)
		best->spread_credit -= total;
	return best;
}

struct wb_uplink *wb_spread_pick(struct wb_bond *b)
{
	struct wb_uplink *u = pick_among(b, false);

	return u ? u : pick_among(b, true);
}
