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

#include "batching.h"
#include "config.h"
#include "control.h"
#include "log.h"
#include "loop.h"
#include "rtnl.h"
#include "tun.h"
#include "udp.h"
#include "uplinks.h"
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
	bool offload;      /* the device hands over large TCP segments (tun.h) */
	uint64_t tun_write_errors, tun_read_errors;
	struct io_count tun_rx_io, tun_tx_io; /* reads and writes, and the packets they carried */
	struct log_limit write_limit;
	int routes_added;
	/* The preshared key's hash, for a reload to compare: the key itself is kept by the library only. */
	uint8_t psk_digest[WB_HASH_LEN];
	struct ctl_server ctl;
};

struct daemon {
	struct wb_config cfg;
	struct loop loop;
	struct wb_device *dev;
	struct wb_rtnl *rtnl;
	struct bond_ctx bonds[WB_MAX_PEERS];
	int n_bonds;
	struct uplinks uplinks;  /* client: its uplinks (uplinks.h), theirs alone to change */
	struct sock_ctx server;  /* server: its one socket */
	uint8_t *tun_buf;        /* one read from a TUN device: a virtio header and up to 64 kB */
	/*
	 * The packets delivered since the loop last waited, gathered for one
	 * bond's device (gro_owner) and written before the loop waits again,
	 * or when another bond delivers: one gathering for all the bonds keeps
	 * a server with many small.
	 */
	struct wb_gro *gro;
	struct bond_ctx *gro_owner;
	uint64_t packets_in;       /* read from the TUN devices and the sockets: the rate the loop's hold follows */
	struct batching batching;
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

/* timers.c: runs the daemon's timers that are due; the earliest due of them, the loop's next wake-up. */
void daemon_timers_run(struct daemon *d, uint64_t now);
uint64_t daemon_timers_due(struct daemon *d);
/* The service manager's STATUS= line (a timer's action). */
void daemon_send_status(struct daemon *d, uint64_t now);

/* An uplink interface's MTU when it is not known. */
#define UPLINK_MTU_DEFAULT 1500
/* tun_mtu.c: a bond's TUN MTU at its start, and fitted again to the uplinks and the peer (a timer's action). */
void daemon_choose_mtu(struct daemon *d, struct bond_ctx *bc);
void daemon_fit_mtus(struct daemon *d, uint64_t now);

/* SIGHUP: reads the file again and applies what can change while running. */
void daemon_reload(struct daemon *d);

/* status.c: every counter in the log (SIGUSR1). */
void status_log(const struct daemon *d);

#endif
