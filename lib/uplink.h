/* SPDX-License-Identifier: MIT */
/*
 * One uplink of a bond: where its datagrams go, whether it answers (the
 * state machine of wb_uplink_state, in wanbond.h, fed by probes), its RTT
 * and loss. The reliable layer adds packet numbers and acks on top.
 */
#ifndef WB_UPLINK_H
#define WB_UPLINK_H

#include <stdbool.h>
#include <stdint.h>

#include "ackgen.h"
#include "cc.h"
#include "cookie.h"
#include "counters.h"
#include "endpoint.h"
#include "pmtu.h"
#include "wanbond.h"
#include "wire.h"

#define WB_UPLINK_UP_AFTER_ACKS 3

struct wb_rtt {
	uint64_t latest_ns, srtt_ns, rttvar_ns, min_ns;
	bool has_sample;
};

struct wb_bond;

struct wb_uplink {
	struct wb_bond *bond;    /* the owner */
	bool exists;             /* the slot is in use (a server learns uplinks as they appear) */
	uint8_t id;
	uint32_t generation;     /* of the uplinks the slot has had: each added at run time gets the next */
	char name[WB_UPLINK_NAME_MAX + 1];
	bool backup;
	uint16_t weight;
	bool available;          /* the client has a socket for it; the server knows its endpoint */
	struct wb_endpoint endpoint; /* where its datagrams go */

	enum wb_uplink_state state;
	char state_why[WB_STATE_WHY_MAX]; /* what made the last change */
	uint64_t state_since_ns;
	uint64_t last_answer_ns; /* last probe answer */
	uint64_t available_since_ns; /* silence is counted from here until a first answer */
	uint32_t answers_in_row;
	uint32_t probe_seq;      /* of the last probe sent */
	uint32_t answered_seq;   /* of the last probe answered */
	uint64_t next_probe_ns;
	bool ever_up;            /* a first answer suffices until the uplink has once been up */
	uint64_t left_up_ns;     /* it last went from up to stale or down then (0: never) */
	uint64_t left_up_rate;   /* ... carrying this (bytes/s, its controller's pace then) */

	struct wb_rtt rtt;
	uint32_t loss_ppm;       /* smoothed loss ratio of its datagrams, parts per million */
	uint64_t answer_tx, answer_rx; /* counts at the last answer, for the loss of the next interval */
	uint64_t data_tx, data_rx;     /* data messages sent and received on it (all sessions) */


	/* The reliable layer: packet numbers (the AEAD counters), acks both ways, congestion control, pacing. */
	uint64_t tx_pn;
	struct wb_recovery *rec; /* allocated with the uplink (it grows with the window) */
	struct wb_cc cc;
	struct wb_ackgen ackgen;
	uint64_t next_send_ns;   /* pacing: the next packet may leave then */
	uint32_t dsns_held;      /* send-buffer entries it carries a copy of (its bit in their holders) */
	struct wb_pmtu pmtu;     /* the largest datagram its path carries */
	/* Client: a cookie is bound to the source address, so each uplink keeps its own. */
	struct wb_cookie_jar cookies;
	struct wb_uplink_counters c;
};

/* Carries traffic: up, and not stale. */
static inline bool wb_uplink_usable(const struct wb_uplink *u)
{
	return u->exists && u->available && u->state == WB_UPLINK_UP;
}

/* The largest IP packet its path carries in one datagram. */
static inline uint32_t wb_uplink_max_packet(const struct wb_uplink *u)
{
	return u->pmtu.size > WB_TUNNEL_BYTES_INSIDE_UDP ? u->pmtu.size - WB_TUNNEL_BYTES_INSIDE_UDP : 0;
}

void wb_rtt_sample(struct wb_rtt *r, uint64_t sample_ns);

/* Silence after which an up uplink is stale: two probe intervals and its RTT with margin. */
uint64_t wb_uplink_stale_after(const struct wb_uplink *u, uint64_t probe_interval_ns);

/*
 * Loss over the interval since the previous answer, from the peer's count of
 * what arrived against ours of what was sent; smoothed 1/8 per answer.
 */
void wb_uplink_note_loss(struct wb_uplink *u, uint64_t tx_packets, uint64_t rx_packets);

#endif
