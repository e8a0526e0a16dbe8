/* SPDX-License-Identifier: MIT */
/*
 * A client's uplinks in the daemon. A slot is one uplink: its entry of the
 * running configuration, its UDP socket (the slot's number is the socket number
 * and the library's uplink id), its policy rule and what rtnetlink says of
 * its interface. Everything that makes, changes or ends an uplink goes
 * through here: the start, SIGHUP's reload, the control socket's add, del
 * and set, and the interface's link and address events, so there is one
 * way to set a slot up and one to clear it.
 */
#ifndef WB_DAEMON_UPLINKS_H
#define WB_DAEMON_UPLINKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "log.h"
#include "udp.h"

struct daemon;

/* A socket: a client uplink's, in its slot, or the server's one. */
struct sock_ctx {
	struct daemon *d;
	struct udp_sock udp;
	const char *uplink;  /* its uplink's name, NULL on a server */
	bool open;
	char why[128];       /* why it is not open */
	struct log_limit error_limit;
};

struct uplink_slot {
	struct sock_ctx sock;
	struct wb_conf_uplink *conf; /* its entry of the running configuration (d->cfg.uplinks[slot]) */
	bool in_use;                /* false: free, until an uplink is added in it */
	bool disabled;              /* by the operator: kept out of use */
	int ifindex;                /* of its interface, 0 if unknown or none */
	bool link_down;             /* its interface is down or gone (rtnetlink says) */
	bool iface_down;            /* its interface is down as the network manager says (hotplug's ifdown) */
};

/* The configuration's uplinks: slots, sockets' buffers, policy rules, interfaces followed. -errno, said. */
int uplinks_start(struct daemon *d);
/* Opens what is missing (at start, and now and then after an interface or address came late). */
void uplinks_reopen(struct daemon *d, uint64_t now);
/* Removes the policy rules and frees the sockets. */
void uplinks_stop(struct daemon *d);

/* The slot of uplink i, NULL on a server or for a free slot. */
const struct uplink_slot *uplinks_slot(const struct daemon *d, unsigned i);

/*
 * At run time: adds an uplink (its socket opens at once or when its
 * interface appears), or removes one. 0 or -errno, with what is wrong in err.
 */
int uplinks_add(struct daemon *d, const struct wb_conf_uplink *up, char *err, size_t errlen);
int uplinks_remove(struct daemon *d, unsigned i, char *err, size_t errlen);
/* The operator takes uplink i out of use (enabled false) or gives it back. */
void uplinks_enable(struct daemon *d, unsigned i, bool enabled, uint64_t now);
/*
 * The network manager says uplink i's interface went down or came up
 * (OpenWrt's hotplug: netifd's ifdown, ifup). Kept apart from the
 * operator's switch: an ifup never gives back what the operator took.
 */
void uplinks_set_iface_up(struct daemon *d, unsigned i, bool up, uint64_t now);
/* Makes uplink i a backup or an active one, with a weight. */
void uplinks_set_role(struct daemon *d, unsigned i, bool backup, uint32_t weight);

/*
 * SIGHUP: an uplink gone from the file is removed, a new one added, one
 * bound otherwise (interface, source, mark, rule) removed and added again;
 * a role or weight changes in place. The others are untouched. Returns how
 * many changes failed (each said).
 */
int uplinks_reload(struct daemon *d, const struct wb_config *next);

#endif
