// SPDX-License-Identifier: MIT
/*
 * Every counter, as log lines (SIGUSR1): for a system without the CLI at
 * hand, and for a bug report's log. A bond and each of its uplinks are said
 * in words, then their counters come by the names of the control family's
 * lists (ctl.h), as `wanbond stats` prints them.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ctl.h"
#include "daemon.h"

/* The pairs of one line: log.c cuts a line at 511 bytes. */
#define COUNTER_LINE 480

/* "counters: name value, name value, ...", as many lines as they take. */
static void log_counters(const char *bond, const char *uplink, const char *const *names, const uint64_t *v, int n)
{
	char line[COUNTER_LINE];
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		char pair[64];
		int k = snprintf(pair, sizeof(pair), "%s %" PRIu64, names[i], v[i]);

		if (len && len + 2 + (size_t)k >= sizeof(line)) {
			log_line(LOG_LVL_NOTICE, bond, uplink, "counters: %s", line);
			len = 0;
		}
		len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s", len ? ", " : "", pair);
	}
	if (len)
		log_line(LOG_LVL_NOTICE, bond, uplink, "counters: %s", line);
}

static void log_uplink(const struct bond_ctx *bc, const struct wb_uplink_status *u)
{
	uint64_t v[WB_CTL_N_UPLINK_COUNTERS];
	char ep[WB_ENDPOINT_STRLEN];

	wb_endpoint_format(ep, &u->endpoint);
	log_line(LOG_LVL_NOTICE, bc->conf->name, u->name,
		 "%s (%s)%s, endpoint %s, rtt %.1f ms (min %.1f, var %.1f), loss %.2f%%, weight %u",
		 wb_uplink_state_name(u->state), u->state_why[0] ? u->state_why : "never changed",
		 u->backup ? ", backup" : "", ep, u->srtt_ns / 1e6, u->min_rtt_ns / 1e6, u->rttvar_ns / 1e6,
		 u->loss_ppm / 1e4, u->weight);
	log_line(LOG_LVL_NOTICE, bc->conf->name, u->name,
		 "cwnd %" PRIu64 " B, in flight %" PRIu64 " B, pacing %.1f Mbit/s; lost %" PRIu64 " (spurious %" PRIu64
		 "), timeouts %" PRIu64 "%s; path: datagrams of %u bytes%s",
		 u->cwnd, u->bytes_in_flight, u->pacing_rate * 8 / 1e6, u->lost_packets, u->spurious_losses, u->timeouts,
		 u->timed_out ? " (timed out)" : "", u->pmtu, u->pmtu_searching ? " (searching)" : "");
	wb_ctl_uplink_counter_values(&u->c, v);
	log_counters(bc->conf->name, u->name, wb_ctl_uplink_counter_names, v, WB_CTL_N_UPLINK_COUNTERS);
}

static void log_bond(const struct bond_ctx *bc)
{
	uint64_t v[WB_CTL_N_BOND_COUNTERS];
	struct wb_bond_status s;

	wb_bond_status(bc->bond, &s);
	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL,
		 "%s, %s; scheduler %s; memory %" PRIu64 " B; tun read errors %" PRIu64 ", write errors %" PRIu64,
		 bc->tun_name, s.session ? "session up" : "no session", s.scheduler, s.memory, bc->tun_read_errors,
		 bc->tun_write_errors);
	log_line(LOG_LVL_NOTICE, bc->conf->name, NULL,
		 "%s%s: read %" PRIu64 " packets in %" PRIu64 " calls, wrote %" PRIu64 " packets in %" PRIu64 " calls",
		 bc->tun_name, bc->offload ? " (segmentation offload)" : "", bc->tun_rx_io.packets, bc->tun_rx_io.calls,
		 bc->tun_tx_io.packets, bc->tun_tx_io.calls);
	wb_ctl_bond_counter_values(&s.c, v);
	log_counters(bc->conf->name, NULL, wb_ctl_bond_counter_names, v, WB_CTL_N_BOND_COUNTERS);
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink_status u;

		if (wb_bond_uplink_status(bc->bond, i, &u))
			log_uplink(bc, &u);
	}
}

/* A socket's counters; closed_why: NULL if it is open. */
static void log_socket(const struct daemon *d, const char *uplink, const struct udp_sock *s, const char *closed_why)
{
	log_line(LOG_LVL_NOTICE, d->cfg.name, uplink,
		 "socket %s%s: receive buffer overflows %" PRIu32 ", truncated %" PRIu64 ", send drops %" PRIu64
		 ", send errors %" PRIu64 "; sent %" PRIu64 " datagrams in %" PRIu64 " calls, received %" PRIu64
		 " in %" PRIu64 " calls",
		 closed_why ? "closed: " : "open", closed_why ? closed_why : "", s->rx_overflows, s->rx_truncated, s->tx_dropped,
		 s->tx_errors, s->tx_io.packets, s->tx_io.calls, s->rx_io.packets, s->rx_io.calls);
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
	log_line(LOG_LVL_NOTICE, d->cfg.name, NULL,
		 "event loop: %" PRIu64 " waits, timer set %" PRIu64 " times, held %" PRIu64 " times (now %" PRIu64 " us)",
		 d->loop.waits, d->loop.timer_sets, d->loop.holds, d->loop.hold_ns / 1000);
	if (d->cfg.role == WB_ROLE_SERVER)
		log_socket(d, NULL, &d->server.udp, d->server.udp.lfd.fd >= 0 ? NULL : "");
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		struct uplink_info u;

		if (uplinks_info(&d->uplinks, i, &u))
			log_socket(d, u.name, u.udp, u.socket_why);
	}
	for (int i = 0; i < d->n_bonds; i++)
		if (d->bonds[i].bond)
			log_bond(&d->bonds[i]);
}
