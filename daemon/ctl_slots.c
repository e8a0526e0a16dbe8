// SPDX-License-Identifier: MIT
#include "ctl_slots.h"

bool ctl_slot_allowed(const struct ctl_census *c, bool privileged)
{
	if (c->privileged + c->unprivileged >= CTL_MAX_CLIENTS)
		return false;
	return privileged || c->unprivileged < CTL_MAX_CLIENTS - CTL_RESERVED_SLOTS;
}

bool ctl_monitor_allowed(const struct ctl_census *c, bool privileged)
{
	return privileged || c->unprivileged_monitors < CTL_MAX_UNPRIVILEGED_MONITORS;
}

uint64_t ctl_idle_deadline(uint64_t last_request_ns, bool monitor)
{
	return monitor ? UINT64_MAX : last_request_ns + CTL_IDLE_TIMEOUT_NS;
}
