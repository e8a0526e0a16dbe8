/* SPDX-License-Identifier: MIT */
/*
 * A bond, inside the library: its peer, its handshake and sessions, its
 * uplinks. The daemon sees it only through wanbond.h; the library's own
 * modules (device.c, handshake.c, bond.c, spread.c) share this layout.
 */
#ifndef WB_BOND_H
#define WB_BOND_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "cookie.h"
#include "counters.h"
#include "index.h"
#include "keypair.h"
#include "noise.h"
#include "uplink.h"
#include "wanbond.h"

struct wb_bond {
	struct wb_device *dev;
	char name[32];
	void *user;

	struct wb_noise_remote remote;
	struct wb_cookie_jar cookies; /* server: the macs of its responses (it never holds a cookie) */

	/* Initiator: the handshake in flight (state ZEROED when none). */
	struct wb_noise_handshake hs;
	uint64_t hs_sent_ns;
	unsigned hs_next_uplink;
	/* Responder: the newest timestamp accepted, and when, against replays and floods. */
	uint8_t last_timestamp[WB_TAI64N_LEN];
	uint64_t last_initiation_ns;
	bool has_timestamp;

	/* Sessions: next is the responder's, until the initiator's first message confirms it. */
	struct wb_keypair *previous, *current, *next;

	struct wb_endpoint server; /* client: where every uplink sends */
	int n_allowed;
	struct wb_ip_prefix allowed[WB_MAX_ALLOWED];
	struct wb_uplink uplinks[WB_MAX_UPLINKS];
	struct wb_bond_counters c;
};

/* bond.c: the data path and the uplinks. */
void wb_bond_init(struct wb_bond *b, struct wb_device *d, const struct wb_bond_params *p);
void wb_bond_on_data(struct wb_bond *b, uint64_t now, unsigned sock, const struct wb_endpoint *from,
		     uint8_t uplink, const uint8_t *body, size_t len);
void wb_bond_tick(struct wb_bond *b, uint64_t now);
uint64_t wb_bond_deadline(const struct wb_bond *b);
/* A session began (a handshake finished): probe every uplink now; hint answered the handshake. */
void wb_bond_session_started(struct wb_bond *b, uint64_t now, int hint_uplink);
/* The session ended (expired, or closed by the peer): the uplinks go down with it. */
void wb_bond_session_ended(struct wb_bond *b, uint64_t now, const char *why);
/* Sends a datagram on an uplink, counting it. */
void wb_bond_transmit(struct wb_bond *b, struct wb_uplink *u, const uint8_t *data, size_t len);
void wb_bond_uplink_transition(struct wb_bond *b, struct wb_uplink *u, enum wb_uplink_state to, uint64_t now,
			       const char *why);
void wb_bond_log(const struct wb_bond *b, enum wb_log_level level, const struct wb_uplink *u, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* spread.c: the uplink for the next IP packet (weighted; backups only when no other is up). */
struct wb_uplink *wb_spread_pick(struct wb_bond *b);

/* handshake.c */
void wb_handshake_tick(struct wb_bond *b, uint64_t now);
uint64_t wb_handshake_deadline(const struct wb_bond *b);
void wb_handshake_on_initiation(struct wb_device *d, uint64_t now, const struct wb_endpoint *from,
				uint8_t *buf, size_t len);
void wb_handshake_on_response(struct wb_device *d, uint64_t now, unsigned sock, const struct wb_endpoint *from,
			      uint8_t *buf, size_t len);
void wb_handshake_on_cookie(struct wb_device *d, uint64_t now, unsigned sock, const uint8_t *buf, size_t len);
/* The initiator used the responder's next session: it becomes current. */
void wb_handshake_confirm(struct wb_bond *b, uint64_t now);
/* Drops every session and the handshake in flight (bond teardown, or a CLOSE). */
void wb_handshake_clear_sessions(struct wb_bond *b);

#endif
