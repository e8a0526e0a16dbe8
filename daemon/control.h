/* SPDX-License-Identifier: MIT */
/*
 * The control socket of each bond (DIRECTORY/BOND.sock, SOCK_SEQPACKET):
 * the wanbond CLI reads the bond and its uplinks, resets counters, changes
 * the scheduler and the uplinks, and subscribes to events, in the messages
 * of lib/ctl.h. Anyone who can connect may read (the socket is the
 * daemon's user's and control.group's, rw for both; sockfile.h makes it);
 * changes need root or CAP_NET_ADMIN, judged
 * once per connection, as it is accepted (peer_cred.h). Who may hold how
 * many connections, and for how long without a request, is ctl_slots.h's.
 */
#ifndef WB_DAEMON_CONTROL_H
#define WB_DAEMON_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"
#include "ctl_slots.h"
#include "log.h"
#include "loop.h"
#include "sockfile.h"
#include "wire.h"

struct bond_ctx;
struct ctl_client;

/* What the event watch saw last, to report changes. */
struct ctl_seen {
	uint8_t state[WB_MAX_UPLINKS];
	uint64_t endpoint_changes[WB_MAX_UPLINKS];
	uint64_t session_born, reinject_events, penalised, reorder_skips, peer_restarts;
	bool on_backup;
	uint64_t burst_due_ns; /* bursts (reinjection, penalty, skips) are told at most once a second */
};

struct ctl_server {
	struct bond_ctx *bc;
	struct loop_fd lfd;
	struct sockfile file; /* DIRECTORY/BOND.sock */
	struct ctl_client *clients[CTL_MAX_CLIENTS];
	/* Counters as they were at the last reset: what is shown is the difference. */
	struct wb_bond_counters base;
	struct wb_uplink_counters ubase[WB_MAX_UPLINKS];
	struct ctl_seen seen;      /* kept up to date only while a monitor listens */
	int monitors;
	uint64_t events_dropped; /* a monitor that did not read fast enough */
	/*
	 * A timerfd armed for the earliest idle deadline of the clients: the
	 * loop's own timer is the protocol's, set by daemon.c before each wait.
	 */
	struct loop_fd idle_timer;
	uint64_t idle_armed; /* that deadline, UINT64_MAX if none */
	/* Told within limits: connections and subscriptions refused; subscriptions and idle closes. */
	struct log_limit refused_log, client_log;
};

struct daemon;

/* Opens every bond's control socket; on error says what and returns -errno. */
int ctl_start(struct daemon *d);
/* Closes them and removes their files. */
void ctl_stop(struct daemon *d);
/* Tells the monitors what changed since the last call (nothing to do without one). */
void ctl_watch(struct daemon *d, uint64_t now);

#endif
