// SPDX-License-Identifier: MIT
#include "show.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "escape.h"
#include "nsec.h"
#include "validate.h"
#include "wanbond.h"

#define NS_PER_MS 1000000.0

/* ---- reading ---------------------------------------------------------------------- */

/* Every string the daemon sends is escaped as it is read: some came from the peer (escape.h). */
static void copy_str(char *out, size_t len, const struct nlattr *a)
{
	wb_escape(out, len, wb_ctl_str(a, ""));
}

static uint64_t u64_or(const struct nlattr *a, uint64_t def)
{
	return a ? mnl_attr_get_u64(a) : def;
}

static uint32_t u32_or(const struct nlattr *a, uint32_t def)
{
	return a ? mnl_attr_get_u32(a) : def;
}

static int take_bond(const struct wb_ctl_msg *m, void *data)
{
	struct cli_bond *b = data;

	copy_str(b->name, sizeof(b->name), m->a[WB_CTL_A_BOND_NAME]);
	copy_str(b->role, sizeof(b->role), m->a[WB_CTL_A_ROLE]);
	copy_str(b->tun, sizeof(b->tun), m->a[WB_CTL_A_TUN]);
	copy_str(b->peer, sizeof(b->peer), m->a[WB_CTL_A_PEER]);
	copy_str(b->policy, sizeof(b->policy), m->a[WB_CTL_A_SCHED_POLICY]);
	b->session = m->a[WB_CTL_A_SESSION] && mnl_attr_get_u8(m->a[WB_CTL_A_SESSION]);
	b->has_handshake = m->a[WB_CTL_A_HANDSHAKE_AGO] != NULL;
	b->handshake_ago = u64_or(m->a[WB_CTL_A_HANDSHAKE_AGO], 0);
	b->uptime = u64_or(m->a[WB_CTL_A_UPTIME], 0);
	b->send_buffer = u64_or(m->a[WB_CTL_A_SEND_BUFFER], 0);
	b->receive_window = u64_or(m->a[WB_CTL_A_RECEIVE_WINDOW], 0);
	b->send_queue = u64_or(m->a[WB_CTL_A_SEND_QUEUE], 0);
	b->memory = u64_or(m->a[WB_CTL_A_MEMORY], 0);
	b->sched_off = u32_or(m->a[WB_CTL_A_SCHED_OFF], 0);
	b->mtu = u32_or(m->a[WB_CTL_A_MTU], 0);
	wb_ctl_bond_counters_from(&m->counters, &b->c);
	wb_ctl_device_counters_from(&m->device_counters, &b->dev);
	return 0;
}

static int take_uplink(const struct wb_ctl_msg *m, void *data)
{
	struct cli_bond *b = data;
	struct cli_uplink *u;

	if (!m->a[WB_CTL_A_UPLINK] || b->n_uplinks == WB_MAX_UPLINKS)
		return 0;
	u = &b->up[b->n_uplinks++];
	memset(u, 0, sizeof(*u));
	copy_str(u->name, sizeof(u->name), m->u[WB_CTL_U_NAME]);
	copy_str(u->state, sizeof(u->state), m->u[WB_CTL_U_STATE]);
	copy_str(u->state_why, sizeof(u->state_why), m->u[WB_CTL_U_STATE_WHY]);
	u->state_age = u64_or(m->u[WB_CTL_U_STATE_AGE], 0);
	copy_str(u->device, sizeof(u->device), m->u[WB_CTL_U_DEVICE]);
	copy_str(u->endpoint, sizeof(u->endpoint), m->u[WB_CTL_U_ENDPOINT]);
	copy_str(u->socket, sizeof(u->socket), m->u[WB_CTL_U_SOCKET]);
	u->id = u32_or(m->u[WB_CTL_U_ID], 0);
	u->weight = u32_or(m->u[WB_CTL_U_WEIGHT], WB_WEIGHT_DEFAULT);
	u->loss_ppm = u32_or(m->u[WB_CTL_U_LOSS_PPM], 0);
	u->backup = m->u[WB_CTL_U_BACKUP] && mnl_attr_get_u8(m->u[WB_CTL_U_BACKUP]);
	u->enabled = !m->u[WB_CTL_U_ENABLED] || mnl_attr_get_u8(m->u[WB_CTL_U_ENABLED]);
	u->iface_up = !m->u[WB_CTL_U_IFACE_UP] || mnl_attr_get_u8(m->u[WB_CTL_U_IFACE_UP]);
	u->srtt = u64_or(m->u[WB_CTL_U_SRTT], 0);
	u->min_rtt = u64_or(m->u[WB_CTL_U_MIN_RTT], 0);
	u->rttvar = u64_or(m->u[WB_CTL_U_RTTVAR], 0);
	u->has_cc = m->u[WB_CTL_U_CWND] != NULL;
	u->cwnd = u64_or(m->u[WB_CTL_U_CWND], 0);
	u->in_flight = u64_or(m->u[WB_CTL_U_IN_FLIGHT], 0);
	u->pacing_rate = u64_or(m->u[WB_CTL_U_PACING_RATE], 0);
	u->pmtu = u32_or(m->u[WB_CTL_U_PMTU], 0);
	u->pmtu_searching = m->u[WB_CTL_U_PMTU_SEARCHING] && mnl_attr_get_u8(m->u[WB_CTL_U_PMTU_SEARCHING]);
	wb_ctl_uplink_counters_from(&m->uplink_counters, &u->c);
	return 0;
}

int cli_read_bond(struct ctl_conn *c, struct cli_bond *b)
{
	char buf[WB_CTL_MSG_MAX];
	int rc;

	memset(b, 0, sizeof(*b));
	rc = ctl_request(c, wb_ctl_msg_start(buf, WB_CTL_CMD_GET_BOND, 0, 0), take_bond, b);
	if (!rc)
		rc = ctl_request(c, wb_ctl_msg_start(buf, WB_CTL_CMD_GET_UPLINKS, NLM_F_DUMP, 0), take_uplink, b);
	return rc;
}

/* ---- units ------------------------------------------------------------------------------ */

static const char *bytes(char *out, size_t len, uint64_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(out, len, i ? "%.1f %s" : "%.0f %s", v, unit[i]);
	return out;
}

static const char *rate(char *out, size_t len, uint64_t bytes_per_s)
{
	double bits = bytes_per_s * 8.0;

	if (bits >= 1e9)
		snprintf(out, len, "%.2f Gbit/s", bits / 1e9);
	else if (bits >= 1e6)
		snprintf(out, len, "%.1f Mbit/s", bits / 1e6);
	else
		snprintf(out, len, "%.0f kbit/s", bits / 1e3);
	return out;
}

static const char *duration(char *out, size_t len, uint64_t ns)
{
	uint64_t s = ns / WB_NSEC_PER_SEC;

	if (s >= 86400)
		snprintf(out, len, "%" PRIu64 "d %" PRIu64 "h", s / 86400, s % 86400 / 3600);
	else if (s >= 3600)
		snprintf(out, len, "%" PRIu64 "h %" PRIu64 "m", s / 3600, s % 3600 / 60);
	else if (s >= 60)
		snprintf(out, len, "%" PRIu64 "m %" PRIu64 "s", s / 60, s % 60);
	else
		snprintf(out, len, "%" PRIu64 "s", s);
	return out;
}

void cli_rules_off(char *out, size_t len, uint32_t off)
{
	size_t n = 0;

	out[0] = 0;
	for (uint32_t bit = 1; bit && n < len; bit <<= 1) {
		const char *name = (off & bit) ? wb_sched_rule_name(bit) : NULL;

		if (name)
			n += (size_t)snprintf(out + n, len - n, "%s%s", n ? "," : "", name);
	}
	if (!out[0])
		snprintf(out, len, "none");
}

/* ---- the table ------------------------------------------------------------------------- */

static const char *state_colour(const char *state, bool colour)
{
	if (!colour)
		return "";
	if (!strcmp(state, "up"))
		return "\033[32m";
	if (!strcmp(state, "down"))
		return "\033[31m";
	return "\033[33m";
}

/*
 * ", path mtu 1300 (packets of 1233)": the path's IP MTU from the datagram
 * size its search found and the peer's family, and the largest inner packet.
 */
static const char *path_mtu(char *out, size_t len, const struct cli_uplink *u, bool after)
{
	unsigned outer = u->endpoint[0] == '[' ? 48 : 28;

	if (!u->pmtu || u->pmtu <= WB_TUNNEL_BYTES_INSIDE_UDP)
		return "";
	snprintf(out, len, "%spath mtu %u (packets of %u)%s", after ? ", " : "", u->pmtu + outer,
		 u->pmtu - WB_TUNNEL_BYTES_INSIDE_UDP, u->pmtu_searching ? ", searching" : "");
	return out;
}

static void print_uplink_row(FILE *f, const struct cli_bond *b, const struct cli_uplink *u, uint64_t total_tx,
			     bool colour)
{
	char tx[24], rx[24], cw[24], pace[24], st[24], pm[64], age[24];

	snprintf(st, sizeof(st), "%s%s", u->state, u->enabled ? "" : "(off)");
	fprintf(f, "  %-10s %s%-11s%s %-6s %3u %8.1f %8.1f %6.1f %6.2f%% %10s %12s %10s %10s %5.1f%%\n", u->name,
		state_colour(u->state, colour), st, colour ? "\033[0m" : "", u->backup ? "backup" : "active", u->weight,
		u->srtt / NS_PER_MS, u->min_rtt / NS_PER_MS, u->rttvar / NS_PER_MS, u->loss_ppm / 1e4,
		u->has_cc ? bytes(cw, sizeof(cw), u->cwnd) : "-", u->has_cc ? rate(pace, sizeof(pace), u->pacing_rate) : "-",
		bytes(tx, sizeof(tx), u->c.tx_bytes), bytes(rx, sizeof(rx), u->c.rx_bytes),
		total_tx ? 100.0 * (double)u->c.tx_bytes / (double)total_tx : 0.0);
	if (u->device[0] || u->endpoint[0] || u->socket[0] || u->pmtu)
		fprintf(f, "  %-10s %s%s%s%s%s%s%s\n", "", u->device[0] ? "dev " : "", u->device,
			u->endpoint[0] ? (u->device[0] ? ", peer " : "peer ") : "", u->endpoint,
			path_mtu(pm, sizeof(pm), u, u->device[0] || u->endpoint[0]), u->socket[0] ? "; socket closed: " : "",
			u->socket);
	/* Why it is in its state: the answer an operator looks for first when an uplink is not up. */
	if (u->state_why[0])
		fprintf(f, "  %-10s %s for %s: %s\n", "", u->state, duration(age, sizeof(age), u->state_age), u->state_why);
	(void)b;
}

/* The interactive class, once it carried something (docs/scheduler.md, "Traffic classes"). */
static void print_classes(FILE *f, const struct cli_bond *b)
{
	const struct wb_bond_counters *c = &b->c;

	if (!c->interactive_tx_packets && !c->interactive_rx_packets)
		return;
	fprintf(f,
		"  interactive: sent %" PRIu64 " (copies %" PRIu64 ", queue drops %" PRIu64 "), received %" PRIu64
		" (%" PRIu64 " ahead of a gap); parity sent %" PRIu64 ", repaired %" PRIu64 "\n",
		c->interactive_tx_packets, c->interactive_copies, c->interactive_queue_drops, c->interactive_rx_packets,
		c->interactive_rx_early, c->fec_parity_sent, c->fec_repaired);
}

void cli_print_table(FILE *f, const struct cli_bond *b, bool colour)
{
	char up[24], hs[24], tx[24], rx[24], mem[24], rules[160];
	uint64_t total_tx = 0;

	for (int i = 0; i < b->n_uplinks; i++)
		total_tx += b->up[i].c.tx_bytes;
	cli_rules_off(rules, sizeof(rules), b->sched_off);
	fprintf(f, "bond %s%s%s: %s, tun %s (mtu %u), %s", colour ? "\033[1m" : "", b->name, colour ? "\033[0m" : "",
		b->role, b->tun, b->mtu, b->session ? "session up" : "no session");
	if (b->has_handshake)
		fprintf(f, " (handshake %s ago)", duration(hs, sizeof(hs), b->handshake_ago));
	fprintf(f, ", up %s\n", duration(up, sizeof(up), b->uptime));
	fprintf(f, "  peer %s\n", b->peer);
	fprintf(f, "  scheduler %s, rules off: %s; sent %s, received %s; memory %s\n", b->policy, rules,
		bytes(tx, sizeof(tx), b->c.tun_rx_bytes), bytes(rx, sizeof(rx), b->c.tun_tx_bytes),
		bytes(mem, sizeof(mem), b->memory));
	fprintf(f, "  resent %" PRIu64 ", reinjected %" PRIu64 ", penalised %" PRIu64 ", reorder skips %" PRIu64
		   ", auth failures %" PRIu64 "\n",
		b->c.retransmits, b->c.opp_reinject, b->c.penalised, b->c.reorder_skips, b->c.auth_failures);
	print_classes(f, b);
	if (!b->n_uplinks)
		return;
	fprintf(f, "  %-10s %-11s %-6s %3s %8s %8s %6s %7s %10s %12s %10s %10s %6s\n", "uplink", "state", "role", "wt",
		"rtt ms", "min ms", "var ms", "loss", "cwnd", "pacing", "sent", "received", "share");
	for (int i = 0; i < b->n_uplinks; i++)
		print_uplink_row(f, b, &b->up[i], total_tx, colour);
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void json_key_str(FILE *f, const char *key, const char *value)
{
	fprintf(f, "\"%s\":", key);
	json_str(f, value);
}

static void json_counters(FILE *f, const char *const *names, const uint64_t *v, int n)
{
	fputc('{', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", names[i], v[i]);
	fputc('}', f);
}

/* The keys of an uplink, without the braces: `-j show` and `status` print the same ones. */
static void json_uplink_keys(FILE *f, const struct cli_uplink *u)
{
#define VALUE_OF(x) u->c.x,
	const uint64_t v[] = { WB_CTL_UPLINK_COUNTERS(VALUE_OF) };
#undef VALUE_OF

	json_key_str(f, "name", u->name);
	fputc(',', f);
	json_key_str(f, "state", u->state);
	fputc(',', f);
	json_key_str(f, "state_reason", u->state_why);
	fprintf(f, ",\"state_age_ns\":%" PRIu64, u->state_age);
	fprintf(f, ",\"id\":%u,\"backup\":%s,\"enabled\":%s,\"interface_up\":%s,\"weight\":%u,", u->id,
		u->backup ? "true" : "false", u->enabled ? "true" : "false", u->iface_up ? "true" : "false", u->weight);
	json_key_str(f, "device", u->device);
	fputc(',', f);
	json_key_str(f, "endpoint", u->endpoint);
	fputc(',', f);
	json_key_str(f, "socket_error", u->socket);
	fprintf(f,
		",\"srtt_ns\":%" PRIu64 ",\"min_rtt_ns\":%" PRIu64 ",\"rttvar_ns\":%" PRIu64 ",\"loss_ppm\":%u"
		",\"cwnd\":%" PRIu64 ",\"in_flight\":%" PRIu64 ",\"pacing_rate\":%" PRIu64 ",\"pmtu\":%u"
		",\"max_packet\":%u,\"pmtu_searching\":%s,\"counters\":",
		u->srtt, u->min_rtt, u->rttvar, u->loss_ppm, u->cwnd, u->in_flight, u->pacing_rate, u->pmtu,
		u->pmtu > WB_TUNNEL_BYTES_INSIDE_UDP ? u->pmtu - WB_TUNNEL_BYTES_INSIDE_UDP : 0,
		u->pmtu_searching ? "true" : "false");
	json_counters(f, wb_ctl_uplink_counter_names, v, WB_CTL_N_UPLINK_COUNTERS);
}

/* The keys of a bond but its uplinks, without the braces. */
static void json_bond_keys(FILE *f, const struct cli_bond *b)
{
#define VALUE_OF(x) b->c.x,
	const uint64_t v[] = { WB_CTL_BOND_COUNTERS(VALUE_OF) };
#undef VALUE_OF
#define VALUE_OF(x) b->dev.x,
	const uint64_t dv[] = { WB_CTL_DEVICE_COUNTERS(VALUE_OF) };
#undef VALUE_OF
	char rules[160];

	cli_rules_off(rules, sizeof(rules), b->sched_off);
	json_key_str(f, "name", b->name);
	fputc(',', f);
	json_key_str(f, "role", b->role);
	fputc(',', f);
	json_key_str(f, "tun", b->tun);
	fputc(',', f);
	json_key_str(f, "peer", b->peer);
	fprintf(f, ",\"session\":%s,", b->session ? "true" : "false");
	if (b->has_handshake)
		fprintf(f, "\"handshake_ago_ns\":%" PRIu64 ",", b->handshake_ago);
	else
		fputs("\"handshake_ago_ns\":null,", f);
	fputs("\"scheduler\":{", f);
	json_key_str(f, "policy", b->policy);
	fprintf(f, ",\"rules_off\":%u,", b->sched_off);
	json_key_str(f, "rules_off_names", rules);
	fprintf(f, "},\"mtu\":%u,\"send_buffer\":%" PRIu64 ",\"receive_window\":%" PRIu64 ",\"send_queue\":%" PRIu64
		   ",\"memory\":%" PRIu64 ",\"uptime_ns\":%" PRIu64 ",\"counters\":",
		b->mtu, b->send_buffer, b->receive_window, b->send_queue, b->memory, b->uptime);
	json_counters(f, wb_ctl_bond_counter_names, v, WB_CTL_N_BOND_COUNTERS);
	fputs(",\"device_counters\":", f);
	json_counters(f, wb_ctl_device_counter_names, dv, WB_CTL_N_DEVICE_COUNTERS);
}

void cli_print_json(FILE *f, const struct cli_bond *b, bool first)
{
	fputs(first ? "{" : ",{", f);
	json_bond_keys(f, b);
	fputs(",\"uplinks\":[", f);
	for (int i = 0; i < b->n_uplinks; i++) {
		fputs(i ? ",{" : "{", f);
		json_uplink_keys(f, &b->up[i]);
		fputc('}', f);
	}
	fputs("]}", f);
}

/* Why an uplink is in its state, in the daemon's words (the one source of truth): what made it so, else why its socket is closed. */
static const char *uplink_reason(const struct cli_uplink *u)
{
	return u->state_why[0] ? u->state_why : u->socket;
}

void cli_print_status(FILE *f, const struct cli_bond *b, bool first)
{
	uint64_t total_tx = 0;

	for (int i = 0; i < b->n_uplinks; i++)
		total_tx += b->up[i].c.tx_bytes;
	fputs(first ? "" : ",", f);
	json_str(f, b->name);
	fputs(":{", f);
	json_bond_keys(f, b);
	fputs(",\"uplinks\":{", f);
	for (int i = 0; i < b->n_uplinks; i++) {
		const struct cli_uplink *u = &b->up[i];

		fputs(i ? "," : "", f);
		json_str(f, u->name);
		fputs(":{", f);
		json_uplink_keys(f, u);
		fputc(',', f);
		json_key_str(f, "reason", uplink_reason(u));
		/* As the table's share: parts of a million of the bond's bytes sent, an integer as ubus wants. */
		fprintf(f, ",\"share_ppm\":%" PRIu64 "}",
			total_tx ? (uint64_t)((double)u->c.tx_bytes * 1e6 / (double)total_tx + 0.5) : 0);
	}
	fputs("}}", f);
}

/* ---- dump and stats ------------------------------------------------------------------------- */

static const char *or_dash(const char *s)
{
	return *s ? s : "-";
}

void cli_print_dump(FILE *f, const struct cli_bond *b)
{
	fprintf(f, "%s\t%s\t%s\t%s\t%s\t%" PRIu64 "\t%s\t%u\t%" PRIu64 "\t%" PRIu64 "\n", b->name, b->role, b->tun,
		b->peer, b->session ? "session" : "no-session", b->has_handshake ? b->handshake_ago / 1000000000u : (uint64_t)0,
		b->policy, b->sched_off, b->c.tun_rx_bytes, b->c.tun_tx_bytes);
	for (int i = 0; i < b->n_uplinks; i++) {
		const struct cli_uplink *u = &b->up[i];

		fprintf(f,
			"%s\t%s\t%s\t%s\t%s\t%u\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%u\t%" PRIu64 "\t%" PRIu64
			"\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n",
			b->name, u->name, u->state, u->backup ? "backup" : "active", u->enabled ? "on" : "off", u->weight,
			or_dash(u->device), or_dash(u->endpoint), u->srtt, u->min_rtt, u->rttvar, u->loss_ppm, u->cwnd,
			u->pacing_rate, u->c.tx_bytes, u->c.rx_bytes, u->c.retransmits);
	}
}

static void stats_lines(FILE *f, const char *who, const char *const *names, const uint64_t *v, int n, bool brief)
{
	for (int i = 0; i < n; i++)
		if (!brief || v[i])
			fprintf(f, "%-24s %-28s %" PRIu64 "\n", who, names[i], v[i]);
}

void cli_print_stats(FILE *f, const struct cli_bond *b, bool brief)
{
#define VALUE_OF(x) b->c.x,
	const uint64_t v[] = { WB_CTL_BOND_COUNTERS(VALUE_OF) };
#undef VALUE_OF
#define VALUE_OF(x) b->dev.x,
	const uint64_t dv[] = { WB_CTL_DEVICE_COUNTERS(VALUE_OF) };
#undef VALUE_OF
	char who[80];

	stats_lines(f, b->name, wb_ctl_bond_counter_names, v, WB_CTL_N_BOND_COUNTERS, brief);
	for (int i = 0; i < b->n_uplinks; i++) {
#define VALUE_OF(x) b->up[i].c.x,
		const uint64_t uv[] = { WB_CTL_UPLINK_COUNTERS(VALUE_OF) };
#undef VALUE_OF

		snprintf(who, sizeof(who), "%s/%s", b->name, b->up[i].name);
		stats_lines(f, who, wb_ctl_uplink_counter_names, uv, WB_CTL_N_UPLINK_COUNTERS, brief);
	}
	snprintf(who, sizeof(who), "%s:device", b->name);
	stats_lines(f, who, wb_ctl_device_counter_names, dv, WB_CTL_N_DEVICE_COUNTERS, brief);
}
