/* SPDX-License-Identifier: MIT */
/*
 * The control socket of each bond (DIRECTORY/BOND.sock, SOCK_SEQPACKET):
 * the wanbond CLI reads the bond and its uplinks, resets counters, changes
 * the scheduler and the uplinks, and subscribes to events, in the messages
 * of lib/ctl.h. Anyone who can connect may read (the socket is the
 * daemon's user's and control.group's, rw for both; sockfile.h makes it);
 * changes need root or control.admin_group, judged once per connection,
 * from its credentials when it connected (peer_cred.h). Who may hold how
 * many connections, and for how long without a request, is ctl_slots.h's.
 */
#ifndef WB_DAEMON_CONTROL_H
#define WB_DAEMON_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "ctl_slots.h"
#include "log.h"
#include "peer_cred.h"
#include "loop.h"
#include "sockfile.h"
#include "wanbond.h"
#include "wire.h"

struct bond_ctx;
struct ctl_client;
struct nlmsghdr;

/*
 * Bursts (reinjections, penalties, reorder skips) are told at most once a
 * second: what comes meanwhile is held here and told with the next.
 */
enum { CTL_BURST_REINJECTION, CTL_BURST_PENALTY, CTL_BURST_REORDER_SKIP, CTL_BURSTS };

struct ctl_bursts {
	uint64_t pending[CTL_BURSTS];
	uint64_t due_ns; /* when the next may be told */
};

struct ctl_server {
	struct bond_ctx *bc;
	struct loop_fd lfd;
	struct sockfile file; /* DIRECTORY/BOND.sock */
	struct ctl_client *clients[CTL_MAX_CLIENTS];
	/* Counters as they were at the last reset: what is shown is the difference. */
	struct wb_bond_counters base;
	struct wb_uplink_counters ubase[WB_MAX_UPLINKS];
	uint32_t ubase_generation[WB_MAX_UPLINKS]; /* of the uplink each was taken of: another's starts from 0 */
	struct ctl_bursts bursts;
	gid_t admin_gid; /* control.admin_group's, PEER_NO_GROUP if none */
	int monitors;
	uint64_t events_dropped; /* a monitor that did not read fast enough */
	/* Told within limits: connections and subscriptions refused; subscriptions and idle closes. */
	struct log_limit refused_log, client_log;
};

struct daemon;

/* Opens every bond's control socket; on error says what and returns -errno. */
int ctl_start(struct daemon *d);
/* Closes them and removes their files. */
void ctl_stop(struct daemon *d);
/* Sends a message to every monitor of the bond; one that does not read loses it (counted). */
void ctl_broadcast(struct ctl_server *srv, const struct nlmsghdr *nlh);

/* ctl_events.c: an event of the library, told to the bond's monitors (daemon.c's ops route it here). */
void ctl_on_event(struct ctl_server *srv, const struct wb_event *ev, uint64_t now);
/* The daemon's timers (timers.c): a client idle too long is closed, a burst held back is told. */
uint64_t ctl_idle_due(const struct ctl_server *srv);
void ctl_close_idle(struct ctl_server *srv, uint64_t now);
/* When the bursts held back are due to be told, UINT64_MAX if none waits; then tells them. */
uint64_t ctl_bursts_due(const struct ctl_server *srv);
void ctl_tell_bursts(struct ctl_server *srv, uint64_t now);

#endif
