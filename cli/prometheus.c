// SPDX-License-Identifier: MIT
#include "prometheus.h"

#include <inttypes.h>
#include <string.h>

#include "wanbond.h"

/*
 * A value is printed as n / 10^scale, exactly, in decimal: nanoseconds as
 * seconds (scale 9), parts per million as a ratio (scale 6). No floating
 * point, so nothing is rounded.
 */
struct value {
	uint64_t n;
	unsigned scale;
};

#define SCALE_NS 9  /* nanoseconds, printed as seconds */
#define SCALE_PPM 6 /* parts per million, printed as a ratio */

static void put_value(FILE *f, struct value v)
{
	uint64_t div = 1;

	for (unsigned i = 0; i < v.scale; i++)
		div *= 10;
	if (v.scale)
		fprintf(f, "%" PRIu64 ".%0*" PRIu64 "\n", v.n / div, (int)v.scale, v.n % div);
	else
		fprintf(f, "%" PRIu64 "\n", v.n);
}

/* The format's escapes: a label value's backslash, double quote and newline; HELP's backslash and newline. */
static void put_escaped(FILE *f, const char *s, bool label)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '"' && label)
			fputs("\\\"", f);
		else
			fputc(*s, f);
	}
}

static void put_label(FILE *f, bool first, const char *name, const char *value)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	put_escaped(f, value, true);
	fputc('"', f);
}

/* A family's header; no HELP line when it has none (the format allows that). */
static void put_family(FILE *f, const char *name, const char *suffix, const char *type, const char *help)
{
	if (help) {
		fprintf(f, "# HELP %s%s ", name, suffix);
		put_escaped(f, help, false);
		fputc('\n', f);
	}
	fprintf(f, "# TYPE %s%s %s\n", name, suffix, type);
}

/* name{bond="B"} or name{bond="B",uplink="U"}, then a space: the value follows. */
static void put_sample_start(FILE *f, const char *name, const char *suffix, const struct cli_bond *b,
			     const struct cli_uplink *u)
{
	fprintf(f, "%s%s{", name, suffix);
	put_label(f, true, "bond", b->name);
	if (u)
		put_label(f, false, "uplink", u->name);
	fputs("} ", f);
}

int cli_prometheus_state_number(const char *state)
{
	/* The daemon's own order (enum wb_uplink_state), by the names it gives them. */
	for (int s = WB_UPLINK_DOWN; s <= WB_UPLINK_STALE; s++)
		if (!strcmp(state, wb_uplink_state_name((enum wb_uplink_state)s)))
			return s;
	return -1;
}

/* ---- the bond's gauges -------------------------------------------------------------------- */

struct bond_gauge {
	const char *name, *help;
	/* The value; false when the bond has none (no handshake yet). */
	bool (*value)(const struct cli_bond *b, struct value *v);
};

#define BOND_GAUGE(fn, expr, scale)                                    \
	static bool fn(const struct cli_bond *b, struct value *v)     \
	{                                                              \
		*v = (struct value){ (uint64_t)(expr), (scale) };      \
		return true;                                           \
	}
BOND_GAUGE(session_up, b->session, 0)
BOND_GAUGE(uptime, b->uptime, SCALE_NS)
BOND_GAUGE(mtu, b->mtu, 0)
BOND_GAUGE(send_buffer, b->send_buffer, 0)
BOND_GAUGE(receive_window, b->receive_window, 0)
BOND_GAUGE(send_queue, b->send_queue, 0)
BOND_GAUGE(memory, b->memory, 0)
#undef BOND_GAUGE

static bool handshake_age(const struct cli_bond *b, struct value *v)
{
	*v = (struct value){ b->handshake_ago, SCALE_NS };
	return b->has_handshake;
}

static const struct bond_gauge bond_gauges[] = {
	{ "wanbond_bond_session_up", "1 while the bond has a session with its peer, else 0.", session_up },
	{ "wanbond_bond_handshake_age_seconds", "Seconds since the current session's handshake (absent: no session).",
	  handshake_age },
	{ "wanbond_daemon_uptime_seconds", "Seconds since the daemon running the bond started.", uptime },
	{ "wanbond_bond_mtu_bytes", "The MTU of the bond's TUN device.", mtu },
	{ "wanbond_bond_send_buffer_bytes", "The size of the bond's send buffer.", send_buffer },
	{ "wanbond_bond_receive_window_bytes", "The bond's receive window.", receive_window },
	{ "wanbond_bond_send_queue_bytes", "Bytes waiting in the bond's send queue.", send_queue },
	{ "wanbond_bond_memory_bytes", "Bytes the bond has allocated.", memory },
};

static void put_bond_info(FILE *f, const struct cli_bond *bonds, int n)
{
	put_family(f, "wanbond_bond_info", "", "gauge",
		   "Always 1: the bond's role, TUN device, peer key, scheduler policy and rules turned off.");
	for (int i = 0; i < n; i++) {
		const struct cli_bond *b = &bonds[i];
		char rules[160];

		cli_rules_off(rules, sizeof(rules), b->sched_off);
		fputs("wanbond_bond_info{", f);
		put_label(f, true, "bond", b->name);
		put_label(f, false, "role", b->role);
		put_label(f, false, "tun", b->tun);
		put_label(f, false, "peer", b->peer);
		put_label(f, false, "policy", b->policy);
		put_label(f, false, "rules_off", rules);
		fputs("} 1\n", f);
	}
}

static void put_bond_gauges(FILE *f, const struct cli_bond *bonds, int n)
{
	for (size_t g = 0; g < sizeof(bond_gauges) / sizeof(bond_gauges[0]); g++) {
		put_family(f, bond_gauges[g].name, "", "gauge", bond_gauges[g].help);
		for (int i = 0; i < n; i++) {
			struct value v;

			if (!bond_gauges[g].value(&bonds[i], &v))
				continue;
			put_sample_start(f, bond_gauges[g].name, "", &bonds[i], NULL);
			put_value(f, v);
		}
	}
}

/* ---- the counters, from the control family's lists ------------------------------------------ */

/*
 * What the lists do not say: each counter's HELP, and which of them are
 * not counters (a peak, and the packet pool's gauges: not reset, not
 * _total) with the unit their name then takes. Keyed by the lists' own
 * enumerators (ctl.h), so a counter renamed there fails the build here;
 * one added there is exported at once, and the unit test asks for its HELP.
 */
struct counter_meta {
	const char *help;
	bool gauge;
	const char *gauge_unit; /* appended to a gauge's name: "_bytes" */
};

#define B(f) [WB_CTL_BOND_COUNTER_ONCE_##f]
static const struct counter_meta bond_meta[WB_CTL_N_BOND_COUNTERS] = {
	B(tun_rx_packets) = { "IP packets taken from the TUN device to send." },
	B(tun_rx_bytes) = { "Bytes of the IP packets taken from the TUN device to send." },
	B(tun_tx_packets) = { "IP packets delivered to the TUN device." },
	B(tun_tx_bytes) = { "Bytes of the IP packets delivered to the TUN device." },
	B(no_session_drops) = { "IP packets to send dropped: no session yet." },
	B(no_uplink_drops) = { "IP packets to send dropped: no uplink up." },
	B(auth_failures) = { "Data messages that did not authenticate." },
	B(replays) = { "Data messages seen before, or too old." },
	B(malformed) = { "Authenticated messages whose frames do not parse." },
	B(source_rejected) = { "IP packets from a source the peer may not use." },
	B(aqm_drops) = { "Packets dropped from the head of the send queue by CoDel." },
	B(queue_drops) = { "Packets dropped: the send queue was full." },
	B(retransmits) = { "DSNs sent again." },
	B(retransmit_bytes) = { "Bytes of the DSNs sent again." },
	B(bond_timeouts) = { "The bond's own timeout resent from snd_una." },
	B(opp_reinject_events) = { "An idle uplink was given what slower or gone ones held." },
	B(opp_reinject) = { "Packets sent as opportunistic reinjections." },
	B(opp_reinject_bytes) = { "Bytes sent as opportunistic reinjections." },
	B(penalised) = { "A slow uplink's window halved for holding up the bond." },
	B(redundant_copies) = { "Extra copies of new packets (the redundant policy)." },
	B(rx_duplicates) = { "DSNs that arrived twice (copies on two uplinks)." },
	B(rx_beyond_window) = { "DSNs the receive window had no room for." },
	B(reorder_skips) = { "DSNs given up by the reorder buffer after the hold time." },
	B(reorder_held_max) = { "The most the reorder buffer held, in window bytes (a peak since the daemon started).",
				true, "_bytes" },
	B(handshakes_sent) = { "Handshake initiations sent." },
	B(handshakes_completed) = { "Handshakes completed." },
	B(handshakes_refused) = { "Initiations refused: replayed, too frequent, or not decrypting." },
	B(rekeys) = { "Sessions that replaced an earlier one." },
	B(cookies_received) = { "Cookie replies received." },
	B(closes_received) = { "Close messages received from the peer." },
	B(peer_restarts) = { "The peer came back as a new incarnation: the reliable layer started over." },
	B(restart_drops) = { "Packets given up when the peer restarted." },
	B(too_big_drops) = { "IP packets larger than the MTU or any usable uplink's path carries, dropped." },
	B(pool_bytes) = { "Bytes of packet buffers the bond's pool has allocated now.", true, "" },
	B(pool_in_use_bytes) = { "Bytes of the bond's packet buffers holding packets now.", true, "" },
	B(pool_high_water) = { "The most the bond's packet pool has allocated (a peak since the daemon started).",
			       true, "_bytes" },
	B(pool_full_drops) = { "Packets with no buffer to go in: the bond's pool or the device's cap was full." },
	B(measure_copies) = { "Copies sent to measure an uplink whose rate is not known." },
	B(measure_copy_bytes) = { "Bytes of the copies sent to measure an uplink whose rate is not known." },
	B(interactive_tx_packets) = { "IP packets taken from the TUN device as the interactive class." },
	B(interactive_tx_bytes) = { "Bytes of the IP packets taken from the TUN device as the interactive class." },
	B(interactive_copies) = { "Extra copies of interactive packets on other uplinks." },
	B(interactive_queue_drops) = { "Interactive packets dropped: their queue was full." },
	B(interactive_rx_packets) = { "Interactive packets received unordered and delivered to the TUN device." },
	B(interactive_rx_early) = { "Interactive packets delivered ahead of a gap in the DSNs." },
	B(fec_parity_sent) = { "Parity frames sent for the interactive class (forward error correction)." },
	B(fec_overhead_bytes) = { "Bytes of the datagrams that carried parity frames." },
	B(fec_repaired) = { "Interactive packets rebuilt from a parity frame, without a resend." },
};
#undef B

#define U(f) [WB_CTL_UPLINK_COUNTER_ONCE_##f]
static const struct counter_meta uplink_meta[WB_CTL_N_UPLINK_COUNTERS] = {
	U(tx_packets) = { "Datagrams sent on the uplink." },
	U(tx_bytes) = { "Bytes of the datagrams sent on the uplink." },
	U(rx_packets) = { "Authenticated datagrams received on the uplink." },
	U(rx_bytes) = { "Bytes of the authenticated datagrams received on the uplink." },
	U(tx_ip_packets) = { "Tunnelled IP packets among the datagrams sent." },
	U(rx_ip_packets) = { "Tunnelled IP packets among the datagrams received." },
	U(probes_sent) = { "Probes sent." },
	U(probe_acks) = { "Probe answers received." },
	U(endpoint_changes) = { "The peer's address or port on the uplink moved (NAT, roaming)." },
	U(went_down) = { "Transitions into down." },
	U(data_packets) = { "IP packets sent on the uplink, first copies." },
	U(retransmits) = { "IP packets resent on the uplink (lost elsewhere or here)." },
	U(acks_sent) = { "Ack-only messages sent." },
	U(reinjected) = { "Copies the uplink carried of what slower or gone uplinks held." },
	U(penalties) = { "The uplink's window halved for holding up the bond." },
	U(bad_acks) = { "Ack frames naming packets never sent on the uplink, refused." },
	U(pmtu_probes) = { "Padded probes of the uplink's path MTU." },
	U(pmtu_lowered) = { "Path MTU searches that found less than the uplink had." },
	U(measure_copies) = { "Copies the uplink carried of what the others held, to measure its rate." },
};
#undef U

#define D(f) [WB_CTL_DEVICE_COUNTER_ONCE_##f]
static const struct counter_meta device_meta[WB_CTL_N_DEVICE_COUNTERS] = {
	D(rx_datagrams) = { "Datagrams received on the daemon's sockets (every bond's of this daemon)." },
	D(short_or_unknown) = { "Datagrams too short for their type, or of no type we know." },
	D(unknown_index) = { "Messages for a session or handshake the daemon does not have." },
	D(bad_mac1) = { "Handshake messages not meant for this daemon: dropped at a hash." },
	D(unknown_peer) = { "Initiations from a key that is none of the daemon's peers." },
	D(under_load) = { "Handshake messages that met the load limit." },
	D(rate_limited) = { "Initiations with a valid cookie refused by the per-source limit." },
	D(cookie_replies_sent) = { "Cookie replies sent instead of a handshake response, under load." },
};
#undef D

/* A bond's counter set, in its list's order. */
typedef void counter_values_fn(const struct cli_bond *b, uint64_t *v);

static void bond_values(const struct cli_bond *b, uint64_t *v)
{
	wb_ctl_bond_counter_values(&b->c, v);
}

/*
 * The device's: the bonds of one daemon (a server's peers) share its
 * sockets and show the same values, so they are aggregated with max, not sum.
 */
static void device_values(const struct cli_bond *b, uint64_t *v)
{
	wb_ctl_device_counter_values(&b->dev, v);
}

/* One family per counter: PREFIX_NAME_total (or the gauge's name), a sample per bond. */
static void put_per_bond_counters(FILE *f, const char *prefix, const char *const *names,
				  const struct counter_meta *meta, int n_counters, counter_values_fn *values,
				  const struct cli_bond *bonds, int n)
{
	char name[96];

	for (int k = 0; k < n_counters; k++) {
		const struct counter_meta *m = &meta[k];
		const char *suffix = m->gauge ? m->gauge_unit : "_total";

		snprintf(name, sizeof(name), "%s_%s", prefix, names[k]);
		put_family(f, name, suffix, m->gauge ? "gauge" : "counter", m->help);
		for (int i = 0; i < n; i++) {
			uint64_t v[WB_CTL_N_BOND_COUNTERS]; /* the longest list (ctl.h) */

			values(&bonds[i], v);
			put_sample_start(f, name, suffix, &bonds[i], NULL);
			put_value(f, (struct value){ v[k], 0 });
		}
	}
}

static void put_uplink_counters(FILE *f, const struct cli_bond *bonds, int n)
{
	char name[96];

	for (int k = 0; k < WB_CTL_N_UPLINK_COUNTERS; k++) {
		const struct counter_meta *m = &uplink_meta[k];
		const char *suffix = m->gauge ? m->gauge_unit : "_total";

		snprintf(name, sizeof(name), "wanbond_uplink_%s", wb_ctl_uplink_counter_names[k]);
		put_family(f, name, suffix, m->gauge ? "gauge" : "counter", m->help);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < bonds[i].n_uplinks; j++) {
				const struct cli_uplink *u = &bonds[i].up[j];
				uint64_t v[WB_CTL_N_UPLINK_COUNTERS];

				wb_ctl_uplink_counter_values(&u->c, v);
				put_sample_start(f, name, suffix, &bonds[i], u);
				put_value(f, (struct value){ v[k], 0 });
			}
	}
}

/* ---- the uplinks' gauges ---------------------------------------------------------------------- */

struct uplink_gauge {
	const char *name, *help;
	struct value (*value)(const struct cli_uplink *u);
};

#define UPLINK_GAUGE(fn, expr, scale)                                   \
	static struct value fn(const struct cli_uplink *u)             \
	{                                                               \
		return (struct value){ (uint64_t)(expr), (scale) };     \
	}
UPLINK_GAUGE(up, !strcmp(u->state, "up"), 0)
UPLINK_GAUGE(enabled, u->enabled, 0)
UPLINK_GAUGE(backup, u->backup, 0)
UPLINK_GAUGE(weight, u->weight, 0)
UPLINK_GAUGE(srtt, u->srtt, SCALE_NS)
UPLINK_GAUGE(min_rtt, u->min_rtt, SCALE_NS)
UPLINK_GAUGE(rttvar, u->rttvar, SCALE_NS)
UPLINK_GAUGE(loss, u->loss_ppm, SCALE_PPM)
UPLINK_GAUGE(cwnd, u->cwnd, 0)
UPLINK_GAUGE(in_flight, u->in_flight, 0)
UPLINK_GAUGE(pacing_rate, u->pacing_rate, 0)
UPLINK_GAUGE(pmtu, u->pmtu, 0)
UPLINK_GAUGE(max_packet, u->pmtu > WB_TUNNEL_BYTES_INSIDE_UDP ? u->pmtu - WB_TUNNEL_BYTES_INSIDE_UDP : 0, 0)
UPLINK_GAUGE(pmtu_searching, u->pmtu_searching, 0)
#undef UPLINK_GAUGE

static const struct uplink_gauge uplink_gauges[] = {
	{ "wanbond_uplink_up", "1 while the uplink is up (carries the bond's traffic), else 0.", up },
	{ "wanbond_uplink_enabled", "0 while the operator keeps the uplink out of use (wanbond uplink set NAME down).",
	  enabled },
	{ "wanbond_uplink_backup", "1 for a backup uplink, 0 for an active one.", backup },
	{ "wanbond_uplink_weight", "The uplink's scheduler weight, 1 to 1000.", weight },
	{ "wanbond_uplink_rtt_seconds", "The uplink's smoothed round-trip time.", srtt },
	{ "wanbond_uplink_min_rtt_seconds", "The uplink's minimum round-trip time.", min_rtt },
	{ "wanbond_uplink_rtt_variation_seconds", "The uplink's round-trip time variation (RFC 6298 RTTVAR).", rttvar },
	{ "wanbond_uplink_loss_ratio", "The uplink's probe loss, 0 to 1.", loss },
	{ "wanbond_uplink_cwnd_bytes", "The uplink's congestion window (0: no congestion control yet).", cwnd },
	{ "wanbond_uplink_in_flight_bytes", "Bytes sent on the uplink and not yet acknowledged.", in_flight },
	{ "wanbond_uplink_pacing_rate_bytes_per_second", "The uplink's pacing rate.", pacing_rate },
	{ "wanbond_uplink_pmtu_bytes", "The largest datagram (UDP payload) the uplink's path carries, as found (0: none yet).",
	  pmtu },
	{ "wanbond_uplink_max_packet_bytes", "The largest IP packet of the bond the uplink's path carries (0: not known).",
	  max_packet },
	{ "wanbond_uplink_pmtu_searching", "1 while the uplink probes for its path's MTU.", pmtu_searching },
};

static void put_uplink_state(FILE *f, const struct cli_bond *bonds, int n)
{
	put_family(f, "wanbond_uplink_state", "", "gauge",
		   "The uplink's state as a number: 0 down, 1 probing, 2 up, 3 stale.");
	for (int i = 0; i < n; i++)
		for (int j = 0; j < bonds[i].n_uplinks; j++) {
			int s = cli_prometheus_state_number(bonds[i].up[j].state);

			if (s < 0)
				continue;
			put_sample_start(f, "wanbond_uplink_state", "", &bonds[i], &bonds[i].up[j]);
			put_value(f, (struct value){ (uint64_t)s, 0 });
		}
}

static void put_uplink_info(FILE *f, const struct cli_bond *bonds, int n)
{
	put_family(f, "wanbond_uplink_info", "", "gauge",
		   "Always 1: the uplink's state by name, what made it so (reason), why its socket is closed "
		   "(socket_error, empty when open), its interface and the peer's address on it.");
	for (int i = 0; i < n; i++)
		for (int j = 0; j < bonds[i].n_uplinks; j++) {
			const struct cli_uplink *u = &bonds[i].up[j];

			fputs("wanbond_uplink_info{", f);
			put_label(f, true, "bond", bonds[i].name);
			put_label(f, false, "uplink", u->name);
			put_label(f, false, "state", u->state);
			put_label(f, false, "reason", u->state_why);
			put_label(f, false, "socket_error", u->socket);
			put_label(f, false, "device", u->device);
			put_label(f, false, "endpoint", u->endpoint);
			fputs("} 1\n", f);
		}
}

static void put_uplink_gauges(FILE *f, const struct cli_bond *bonds, int n)
{
	for (size_t g = 0; g < sizeof(uplink_gauges) / sizeof(uplink_gauges[0]); g++) {
		put_family(f, uplink_gauges[g].name, "", "gauge", uplink_gauges[g].help);
		for (int i = 0; i < n; i++)
			for (int j = 0; j < bonds[i].n_uplinks; j++) {
				put_sample_start(f, uplink_gauges[g].name, "", &bonds[i], &bonds[i].up[j]);
				put_value(f, uplink_gauges[g].value(&bonds[i].up[j]));
			}
	}
}

void cli_print_prometheus(FILE *f, const struct cli_bond *bonds, int n)
{
	put_bond_info(f, bonds, n);
	put_bond_gauges(f, bonds, n);
	put_per_bond_counters(f, "wanbond_bond", wb_ctl_bond_counter_names, bond_meta, WB_CTL_N_BOND_COUNTERS,
			      bond_values, bonds, n);
	put_per_bond_counters(f, "wanbond_device", wb_ctl_device_counter_names, device_meta, WB_CTL_N_DEVICE_COUNTERS,
			      device_values, bonds, n);
	put_uplink_info(f, bonds, n);
	put_uplink_state(f, bonds, n);
	put_uplink_gauges(f, bonds, n);
	put_uplink_counters(f, bonds, n);
}
