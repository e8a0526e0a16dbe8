// SPDX-License-Identifier: MIT
/*
 * Every counter, as log lines (SIGUSR1): for a system without the CLI at
 * hand, and for a bug report's log.
 */
#include <inttypes.h>
#include <stdio.h>

#include "daemon.h"

static void log_uplink(const struct bond_ctx *bc, const struct wb_uplink_status *u)
{
	const struct wb_uplink_counters *c = &u->c;
	char ep[WB_ENDPOINT_STRLEN];

	wb_endpoint_format(ep, &u->endpoint);
	log_line(LOG_LVL_NOTICE, bc->conf->name, u->name,
		 "%s (%s)%s, endpoint %s, rtt %.1f ms (min %.1f, var %.1f), loss %.2f%%, weight %u; "
		 "tx %" PRIu64 " pkts %" PRIu64 " B (%" PRIu64 " IP), rx %" PRIu64 " pkts %" PRIu64 " B (%" PRIu64
		 " IP), probes %" PRIu64 "/%" PRIu64 " answered, endpoint changes %" PRIu64 ", went down %" PRIu64,
		 wb_uplink_state_name(u->state), u->state_why[0] ? u->state_why : "never changed",
		 u->backup ? ", backup" : "", ep, u->srtt_ns / 1e6,
		 u->min_rtt_ns / 1e6, u->rttvar_ns / 1e6, u->loss_ppm / 1e4, u->weight, c->tx_packets, c->tx_bytes,
		 c->tx_ip_packets, c->rx_packets, c->rx_bytes, c->rx_ip_packets, c->probe_acks, c->probes_sent,
		 c->endpoint_changes, c->went_down);
	log_line(LOG_LVL_NOTICE, bc->conf->name, u->name,
			 "cwnd %" PRIu64 " B, in flight %" PRIu64 " B, pacing %.1f Mbit/s; data sent %" PRIu64
			 ", resent %" PRIu64 ", lost %" PRIu64 " (spurious %" PRIu64 "), timeouts %" PRIu64
			 "%s, acks sent %" PRIu64 ", reinjected %" PRIu64 ", penalties %" PRIu64 ", bad acks %" PRIu64
			 "; path: datagrams of %u bytes%s, probes %" PRIu64 ", lowered %" PRIu64,
			 u->cwnd, u->bytes_in_flight, u->pacing_rate * 8 / 1e6, c->data_packets, c->retransmits,
			 u->lost_packets, u->spurious_losses, u->timeouts, u->timed_out ? " (timed out)" : "",
			 c->acks_sent, c->reinjected, c->penalties, c->bad_acks, u->pmtu,
			 u->pmtu_searching ? " (searching)" : "", c->pmtu_probes, c->pmtu_lowered);
}

static void log_bond(const struct bond_ctx *bc)
{
	struct wb_bond_status s;
	const struct wb_bond_counters *c = &s.c;

	wb_bond_status(bc->bond, &s);

	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL,
		 "%s, %s; from tun %" PRIu64 " pkts %" PRIu64 " B, to tun %" PRIu64 " pkts %" PRIu64
		 " B; drops: no session %" PRIu64 ", no uplink %" PRIu64 ", tun read errors %" PRIu64 ", write errors %" PRIu64
		 "; auth failures %" PRIu64 ", replays %" PRIu64 ", malformed %" PRIu64 ", source rejected %" PRIu64
		 "; handshakes sent %" PRIu64 ", completed %" PRIu64 ", refused %" PRIu64 ", rekeys %" PRIu64
		 ", cookies %" PRIu64 ", closes %" PRIu64 "; peer restarts %" PRIu64 ", packets given up %" PRIu64,
		 bc->tun_name, s.session ? "session up" : "no session", c->tun_rx_packets,
		 c->tun_rx_bytes, c->tun_tx_packets, c->tun_tx_bytes, c->no_session_drops, c->no_uplink_drops,
		 bc->tun_read_errors, bc->tun_write_errors, c->auth_failures, c->replays, c->malformed, c->source_rejected, c->handshakes_sent,
		 c->handshakes_completed, c->handshakes_refused, c->rekeys, c->cookies_received, c->closes_received,
		 c->peer_restarts, c->restart_drops);
	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL,
		 "reliable layer: resent %" PRIu64 " pkts %" PRIu64 " B, bond timeouts %" PRIu64 ", send queue drops: aqm %"
		 PRIu64 ", full %" PRIu64 "; received twice %" PRIu64 ", beyond the window %" PRIu64 ", given up %" PRIu64
		 ", reorder buffer peak %" PRIu64 " B; too big for every path %" PRIu64 "; memory %" PRIu64
		 " B; packet pool %" PRIu64 " B (in use %" PRIu64 ", peak %" PRIu64 "), no buffer %" PRIu64,
		 c->retransmits, c->retransmit_bytes, c->bond_timeouts, c->aqm_drops, c->queue_drops, c->rx_duplicates,
		 c->rx_beyond_window, c->reorder_skips, c->reorder_held_max, c->too_big_drops, s.memory,
		 c->pool_bytes, c->pool_in_use_bytes, c->pool_high_water, c->pool_full_drops);
	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL,
		 "scheduler %s: reinjected %" PRIu64 " pkts %" PRIu64 " B in %" PRIu64 " times, penalised %" PRIu64
		 ", redundant copies %" PRIu64,
		 s.scheduler, c->opp_reinject, c->opp_reinject_bytes, c->opp_reinject_events, c->penalised,
		 c->redundant_copies);
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink_status u;

		if (wb_bond_uplink_status(bc->bond, i, &u))
			log_uplink(bc, &u);
	}
}

static void log_socket(const struct daemon *d, const struct sock_ctx *sc)
{
	const struct udp_sock *s = &sc->udp;

	log_line(LOG_LVL_NOTICE, d->cfg.name, sc->uplink,
		 "socket %s%s: receive buffer overflows %" PRIu32 ", truncated %" PRIu64 ", send drops %" PRIu64
		 ", send errors %" PRIu64,
		 sc->open ? "open" : "closed: ", sc->open ? "" : sc->why, s->rx_overflows, s->rx_truncated, s->tx_dropped,
		 s->tx_errors);
}

/* The packet buffers of all the bonds, against their cap. */
static void log_pool(const struct daemon *d)
{
	const struct wb_pktbuf_limit *l = wb_device_pool(d->dev);
	char cap[32] = "no cap";

	if (l->cap != UINT64_MAX)
		snprintf(cap, sizeof(cap), "%" PRIu64 " B", l->cap);
	log_line(LOG_LVL_NOTICE, d->cfg.name, NULL,
		 "packet buffers of %u bonds: %" PRIu64 " B of %s, peak %" PRIu64 " B, refused at the cap or a share %" PRIu64,
		 l->pools, l->allocated, cap, l->high_water, l->refused);
}

void status_log(const struct daemon *d)
{
	const struct wb_device_counters *c = wb_device_counters(d->dev);

	log_line(LOG_LVL_NOTICE, d->cfg.name, NULL,
		 "datagrams %" PRIu64 ", short or unknown %" PRIu64 ", unknown index %" PRIu64 ", bad mac1 %" PRIu64
		 ", unknown peer %" PRIu64 ", under load %" PRIu64 ", cookie replies %" PRIu64
		 ", over the per-source limit %" PRIu64,
		 c->rx_datagrams, c->short_or_unknown, c->unknown_index, c->bad_mac1, c->unknown_peer, c->under_load,
		 c->cookie_replies_sent, c->rate_limited);
	log_pool(d);
	if (d->cfg.role == WB_ROLE_SERVER)
		log_socket(d, &d->server);
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++)
		if (uplinks_slot(d, i))
			log_socket(d, &uplinks_slot(d, i)->sock);
	for (int i = 0; i < d->n_bonds; i++)
		if (d->bonds[i].bond)
			log_bond(&d->bonds[i]);
}
