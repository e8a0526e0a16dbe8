// SPDX-License-Identifier: MIT
/*
 * What the library tells its caller as it happens (wanbond.h, struct
 * wb_event): where the state an operator watches changes, not by anyone
 * comparing snapshots after the fact.
 */
#include "bond.h"
#include "device.h"

void wb_bond_event(struct wb_bond *b, const struct wb_event *ev)
{
	if (b->dev->ops.event)
		b->dev->ops.event(b->dev->ctx, b, ev);
}

/* After anything that changes which uplinks carry traffic: did the backups take over, or hand back? */
void wb_bond_check_failover(struct wb_bond *b)
{
	bool on_backup = wb_bond_on_backup(b);

	if (on_backup == b->on_backup)
		return;
	b->on_backup = on_backup;
	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_FAILOVER, .to_backup = on_backup });
}
