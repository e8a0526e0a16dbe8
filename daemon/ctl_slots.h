/* SPDX-License-Identifier: MIT */
/*
 * Who may hold a bond's control connections: the policy alone, with no
 * system call (control.c applies it). Every member of control.group may
 * connect and read, so the table of connections must not be theirs to
 * fill: some slots are kept for privileged peers (uid 0, or a member of
 * control.admin_group: the admin, OpenWrt's hotplug scripts),
 * a connection that asks nothing for a while is closed, and subscriptions
 * to the events, which are kept however quiet, are few for the others.
 */
#ifndef WB_DAEMON_CTL_SLOTS_H
#define WB_DAEMON_CTL_SLOTS_H

#include <stdbool.h>
#include <stdint.h>

#include "nsec.h"

/*
 * Connections per bond at once. A CLI command holds one for milliseconds,
 * `wanbond monitor` one for as long as it runs.
 */
#define CTL_MAX_CLIENTS 16

/*
 * The slots only a privileged peer may take: unprivileged peers hold at
 * most CTL_MAX_CLIENTS - CTL_RESERVED_SLOTS at once, so readers that fill
 * their share still leave room for an admin's monitor, a change, and a
 * hotplug script or two at the same time.
 */
#define CTL_RESERVED_SLOTS 4

/*
 * Subscriptions of unprivileged peers. A monitor holds its slot for as
 * long as it runs, and is never closed for being quiet (events are what
 * it waits for), so readers could otherwise hold their whole share that
 * way, out of the idle timeout's reach; 4 leaves 8 of their slots to
 * one-shot commands.
 */
#define CTL_MAX_UNPRIVILEGED_MONITORS 4

/*
 * A connection that has sent no request for this long is closed (a
 * monitor excepted). The CLI sends its request as soon as it has
 * connected and closes after the reply, so 10 s is only reached by a
 * client that is stuck, stopped, or holding the slot on purpose.
 */
#define CTL_IDLE_TIMEOUT_NS (10 * WB_NSEC_PER_SEC)

_Static_assert(CTL_RESERVED_SLOTS > 0 && CTL_RESERVED_SLOTS < CTL_MAX_CLIENTS,
	       "privileged and unprivileged peers each need slots");
_Static_assert(CTL_MAX_UNPRIVILEGED_MONITORS < CTL_MAX_CLIENTS - CTL_RESERVED_SLOTS,
	       "unprivileged monitors must leave unprivileged peers a slot for a command");

/* The connections a bond holds now. */
struct ctl_census {
	int privileged;
	int unprivileged;
	int unprivileged_monitors; /* of the unprivileged, those subscribed to the events */
};

/* Whether one more connection of a peer so privileged (or not) may be kept. */
bool ctl_slot_allowed(const struct ctl_census *c, bool privileged);

/* Whether a connection of a peer so privileged (or not), not yet subscribed, may subscribe. */
bool ctl_monitor_allowed(const struct ctl_census *c, bool privileged);

/*
 * When a connection whose last request (or its accept) was at
 * last_request_ns is to be closed for idleness: UINT64_MAX (never) for a
 * monitor.
 */
uint64_t ctl_idle_deadline(uint64_t last_request_ns, bool monitor);

#endif
