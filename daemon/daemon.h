/* SPDX-License-Identifier: MIT */
/*
 * The daemon's context: one per process, no other mutable globals. It joins
 * the protocol library (a wb_device) to the system: TUN devices, UDP
 * sockets, rtnetlink, the event loop.
 */
#ifndef WB_DAEMON_H
#define WB_DAEMON_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "control.h"
#include "log.h"
#include "loop.h"
#include "rtnl.h"
#include "rtnl_events.h"
#include "udp.h"
#include "wanbond.h"

/* A bond's side in the daemon: its TUN device. */
struct bond_ctx {
	struct daemon *d;
	struct wb_bond *bond;
	const struct wb_conf_peer *conf;
	struct loop_fd tun;
	char tun_name[IFNAMSIZ];
	int tun_ifindex;
	uint32_t mtu;      /* the TUN device's now */
	uint32_t mtu_cap;  /* the largest it may get: the library's and the read buffer's size */
	bool mtu_auto;     /* from the uplinks and the outer family, not from the configuration */
	uint8_t *buf;  /* one packet read from TUN, with the library's headroom and tailroom */
	uint64_t tun_write_errors, tun_read_errors;
	struct log_limit write_limit;
	int routes_added;
	/* The preshared key's hash, for a reload to compare: the key itself is kept by the library only. */
	uint8_t psk_digest[WB_HASH_LEN];
	struct ctl_server ctl;
};

/* A socket: a client uplink's, or the server's one. */
struct sock_ctx {
	struct daemon *d;
	struct udp_sock udp;
	const struct wb_conf_uplink *conf; /* NULL on a server */
	bool open;
	bool disabled;                     /* by the operator: kept out of use */
	int ifindex;                       /* of its interface, 0 if unknown or none */
	bool link_down;                    /* its interface is down or gone (rtnetlink says) */
	bool removed;                      /* removed at run time: the slot waits for the next uplink */
	char why[128];                     /* why it is not open */
	struct log_limit error_limit;
};

struct daemon {
	struct wb_config cfg;
	struct loop loop;
	struct wb_device *dev;
	struct wb_rtnl *rtnl;
	struct rtnl_events events; /* client: the uplinks' interfaces followed */
	bool rules_added;          /* client: the policy rules, removed at exit */
	struct bond_ctx bonds[WB_MAX_PEERS];
	int n_bonds;
	struct sock_ctx socks[WB_MAX_UPLINKS];
	int n_socks;
	uint64_t next_reopen_ns; /* client: when to try again to open missing uplink sockets */
	uint64_t next_mtu_check_ns; /* server: when to fit the TUN MTUs to the peers' outer family again */
	uint64_t started_ns;
	uint8_t own_public_key[WB_KEY_LEN]; /* of the private key started with (that one is wiped): a reload compares */
	/* The service manager: watchdog pings and the STATUS= line. */
	uint64_t watchdog_ns, next_watchdog_ns;
	uint64_t next_status_ns, status_tx_bytes, status_rx_bytes;
	/*
	 * Why the last reload failed ("FILE:LINE: what"), "" after a good one:
	 * every STATUS= line leads with it until a reload succeeds.
	 */
	char reload_error[512];
};

/* Builds everything from d->cfg (loaded); on error says what and returns -errno. */
int daemon_start(struct daemon *d);
int daemon_run(struct daemon *d);
/* Tears down in reverse: tells peers, removes routes, closes devices and sockets. */
void daemon_stop(struct daemon *d);

/*
 * Client, at run time: adds an uplink (its slot is its socket number; the
 * socket opens at once or when its interface appears), or removes one.
 * 0 or -errno, with what is wrong in err.
 */
int daemon_add_uplink(struct daemon *d, const struct wb_conf_uplink *up, char *err, size_t errlen);
int daemon_remove_uplink(struct daemon *d, int i, char *err, size_t errlen);

/* SIGHUP: reads the file again and applies what can change while running. */
void daemon_reload(struct daemon *d);

/* Client: the operator takes uplink i out of use (enabled false) or gives it back. */
void daemon_enable_uplink(struct daemon *d, int i, bool enabled, uint64_t now);

/* status.c: every counter in the log (SIGUSR1). */
void status_log(const struct daemon *d);

#endif
