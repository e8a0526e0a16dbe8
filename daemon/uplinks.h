/* SPDX-License-Identifier: MIT */
/*
 * A client's uplinks in the daemon. A slot is one uplink: its entry of the
 * running configuration, its UDP socket (the slot's number is the socket number
 * and the library's uplink id), its policy rule and what rtnetlink says of
 * its interface. Everything that makes, changes or ends an uplink goes
 * through here: the start, SIGHUP's reload, the control socket's add, del
 * and set, and the interface's link and address events, so there is one
 * way to set a slot up and one to clear it. A slot's state and its
 * transitions are uplink_state.h's; this module carries out what they ask
 * (sockets, policy rules, the library) and knows nothing of the daemon but
 * what it is given at start (struct uplinks_env).
 */
#ifndef WB_DAEMON_UPLINKS_H
#define WB_DAEMON_UPLINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "log.h"
#include "loop.h"
#include "rtnl.h"
#include "rtnl_events.h"
#include "udp.h"
#include "uplink_state.h"
#include "wanbond.h"

/* A socket, a client uplink's or the server's one: what its readiness callback needs. */
struct sock_ctx {
	void *owner;         /* whoever reads its datagrams (the daemon) */
	struct udp_sock udp;
	const char *uplink;  /* its uplink's name, NULL on a server */
	struct log_limit error_limit;
};

/* What the uplinks are given of the daemon, once, at start. */
struct uplinks_env {
	struct loop *loop;      /* the sockets and the interface events are watched on it */
	struct wb_rtnl *rtnl;   /* for the interfaces and the policy rules */
	struct wb_bond *bond;   /* the client's one bond: told of each uplink's use */
	/* The running configuration: uplinks[i] is slot i's entry, what a reload and an add compare with. */
	struct wb_config *cfg;
	uint32_t datagram_size; /* the largest datagram a socket's buffers take */
	void *owner;            /* each socket's sock_ctx.owner */
	void (*on_readable)(struct loop_fd *f, uint32_t events); /* a socket's: container_of(f, struct sock_ctx, udp.lfd) */
};

struct uplink_slot {
	struct sock_ctx sock;
	struct wb_conf_uplink *conf; /* its entry of the running configuration */
	struct uplink_state state;
	int ifindex;                 /* of its interface, 0 if unknown or none */
};

/* The module's own: no one else reads or writes these fields. */
struct uplinks {
	struct uplinks_env env;
	bool started;
	struct uplink_slot slots[WB_MAX_UPLINKS];
	int n_slots;              /* slots with socket buffers, free ones too */
	uint64_t next_reopen_ns;  /* when to try again to open the sockets that wait */
	struct rtnl_events events; /* the uplinks' interfaces followed */
};

/* The configuration's uplinks: slots, sockets' buffers, policy rules, interfaces followed. -errno, said. */
int uplinks_start(struct uplinks *u, const struct uplinks_env *env);
/* Opens what waits, when it is due (at start, and now and then after an interface or address came late). */
void uplinks_reopen(struct uplinks *u, uint64_t now);
/* When uplinks_reopen is next due: UINT64_MAX if nothing waits (or on a server). */
uint64_t uplinks_next_due(const struct uplinks *u);
/* Removes the policy rules and frees the sockets. */
void uplinks_stop(struct uplinks *u);

/* ---- the packet path ---- */

/* Uplink i's socket if it is open, else NULL. */
struct udp_sock *uplinks_open_socket(struct uplinks *u, unsigned i);
/* Sends what every socket has queued. */
void uplinks_flush(struct uplinks *u);

/* ---- what the status and the control socket show ---- */

struct uplink_info {
	const char *name;
	const char *interface;       /* "" if none */
	bool enabled;                /* not taken out by the operator */
	bool iface_up;               /* not down as the network manager says */
	const char *socket_why;      /* why its socket is not open ("" if not known); NULL if it is open */
	const struct udp_sock *udp;  /* its socket's counters */
};

/* Uplink i as it is now; false if there is none (a free slot, or a server). */
bool uplinks_info(const struct uplinks *u, unsigned i, struct uplink_info *out);

/* ---- at run time ---- */

/*
 * Adds an uplink (its socket opens at once or when its interface appears),
 * or removes one. 0 or -errno, with what is wrong in err.
 */
int uplinks_add(struct uplinks *u, const struct wb_conf_uplink *up, char *err, size_t errlen);
int uplinks_remove(struct uplinks *u, unsigned i, char *err, size_t errlen);
/* The operator takes uplink i out of use (enabled false) or gives it back. */
void uplinks_enable(struct uplinks *u, unsigned i, bool enabled, uint64_t now);
/*
 * The network manager says uplink i's interface went down or came up
 * (OpenWrt's hotplug: netifd's ifdown, ifup). Kept apart from the
 * operator's switch: an ifup never gives back what the operator took.
 */
void uplinks_set_iface_up(struct uplinks *u, unsigned i, bool up, uint64_t now);
/* Makes uplink i a backup or an active one, with a weight. */
void uplinks_set_role(struct uplinks *u, unsigned i, bool backup, uint32_t weight);

/*
 * SIGHUP: an uplink gone from the file is removed, a new one added, one
 * bound otherwise (interface, source, mark, rule) removed and added again;
 * a role or weight changes in place. The others are untouched. Returns how
 * many changes failed (each said).
 */
int uplinks_reload(struct uplinks *u, const struct wb_config *next);

#endif
