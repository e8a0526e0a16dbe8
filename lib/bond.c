// SPDX-License-Identifier: MIT
/*
 * The bond's data path for this tunnel: IP packets out over the
 * spread of up uplinks, data messages in (frames: IP, probes, uplink info,
 * close), and the uplinks' probes and state machine.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "frame.h"

#define DATA_HEADER ((size_t)sizeof(struct wb_msg_data))
/* A control message: header, a probe, an uplink info with the longest name, the tag. */
#define CONTROL_BUF (DATA_HEADER + WB_FRAME_PROBE_ACK_LEN + 5 + WB_UPLINK_NAME_MAX + WB_TAG_LEN)

void wb_bond_log(const struct wb_bond *b, enum wb_log_level level, const struct wb_uplink *u, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!b->dev->ops.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	b->dev->ops.log(b->dev->ctx, level, b->name, u ? u->name : NULL, msg);
}

void wb_bond_init(struct wb_bond *b, struct wb_device *d, const struct wb_bond_params *p)
{
	memset(b, 0, sizeof(*b));
	b->dev = d;
	b->user = p->user;
	snprintf(b->name, sizeof(b->name), "%s", p->name);
	b->server = p->server;
	b->n_allowed = p->n_allowed < WB_MAX_ALLOWED ? p->n_allowed : WB_MAX_ALLOWED;
	memcpy(b->allowed, p->allowed, (size_t)b->n_allowed * sizeof(b->allowed[0]));
	for (int i = 0; i < p->n_uplinks && i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		u->exists = true;
		u->id = (uint8_t)i;
		snprintf(u->name, sizeof(u->name), "%s", p->uplinks[i].name);
		u->backup = p->uplinks[i].backup;
		u->weight = p->uplinks[i].weight ? p->uplinks[i].weight : 1;
		u->endpoint = p->server;
	}
}

void wb_bond_uplink_transition(struct wb_bond *b, struct wb_uplink *u, enum wb_uplink_state to, uint64_t now,
			       const char *why)
{
	enum wb_uplink_state from = u->state;

	if (from == to)
		return;
	u->state = to;
	u->state_since_ns = now;
	if (to == WB_UPLINK_DOWN || to == WB_UPLINK_STALE)
		u->answers_in_row = 0;
	if (to == WB_UPLINK_DOWN)
		u->c.went_down++;
	if (to == WB_UPLINK_UP)
		u->ever_up = true;
	wb_device_timers_changed(b->dev);
	wb_bond_log(b, to == WB_UPLINK_UP || to == WB_UPLINK_DOWN ? WB_LOG_NOTICE : WB_LOG_INFO, u, "%s -> %s (%s)",
		    wb_uplink_state_name(from), wb_uplink_state_name(to), why);
}

void wb_bond_transmit(struct wb_bond *b, struct wb_uplink *u, const uint8_t *data, size_t len)
{
	struct wb_device *d = b->dev;

	d->ops.send(d->ctx, d->p.server ? 0 : u->id, d->p.server ? &u->endpoint : &b->server, data, len);
	u->c.tx_packets++;
	u->c.tx_bytes += len;
}

/* Seals a body (after the header room in buf) with the current session and sends it on u. */
static int seal_and_send(struct wb_bond *b, struct wb_uplink *u, uint8_t *buf, size_t body_len)
{
	int n;

	if (!b->current)
		return -ENOTCONN;
	n = wb_keypair_seal(b->current, u->id, buf, body_len);
	if (n < 0)
		return n;
	u->data_tx++;
	wb_bond_transmit(b, u, buf, (size_t)n);
	return 0;
}

static void send_probe(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	uint8_t buf[CONTROL_BUF];
	struct wb_probe probe = { .seq = ++u->probe_seq, .sent_ns = now, .tx_packets = u->data_tx + 1 };
	size_t n = wb_frame_put_probe(buf + DATA_HEADER, &probe);

	/* The client tells the server what it must know of its uplinks. */
	if (!b->dev->p.server) {
		struct wb_uplink_info info = { .flags = u->backup ? WB_UPLINK_BACKUP : 0, .weight = u->weight };

		snprintf(info.name, sizeof(info.name), "%s", u->name);
		n += wb_frame_put_uplink_info(buf + DATA_HEADER + n, &info);
	}
	u->next_probe_ns = now + b->dev->p.timers.probe_interval_ns;
	if (!seal_and_send(b, u, buf, n))
		u->c.probes_sent++;
	wb_device_timers_changed(b->dev);
}

static void send_probe_ack(struct wb_bond *b, struct wb_uplink *u, const struct wb_probe *probe)
{
	uint8_t buf[CONTROL_BUF];
	struct wb_probe_ack ack = {
		.seq = probe->seq, .sent_ns = probe->sent_ns, .tx_packets = probe->tx_packets, .rx_packets = u->data_rx,
	};

	seal_and_send(b, u, buf, wb_frame_put_probe_ack(buf + DATA_HEADER, &ack));
}

/* An answer to one of our probes (or the handshake): the uplink works both ways. */
static void uplink_answered(struct wb_bond *b, struct wb_uplink *u, uint64_t now, uint64_t rtt_ns)
{
	u->last_answer_ns = now;
	u->answers_in_row++;
	wb_rtt_sample(&u->rtt, rtt_ns);
	switch (u->state) {
	case WB_UPLINK_DOWN:
		/* A first answer is enough for an uplink never seen up; one that failed must prove itself. */
		if (!u->ever_up)
			wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answers");
		else
			wb_bond_uplink_transition(b, u, WB_UPLINK_PROBING, now, "answers again");
		break;
	case WB_UPLINK_PROBING:
		if (u->answers_in_row >= WB_UPLINK_UP_AFTER_ACKS)
			wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answered 3 probes in a row");
		break;
	case WB_UPLINK_STALE:
		wb_bond_uplink_transition(b, u, WB_UPLINK_UP, now, "answers again");
		break;
	case WB_UPLINK_UP:
		break;
	}
}

static void on_probe_ack(struct wb_bond *b, struct wb_uplink *u, const struct wb_probe_ack *ack, uint64_t now)
{
	/* The echoed time is our own clock; a time ahead of now is not ours to trust. */
	if (ack->sent_ns > now)
		return;
	/* "In a row": an answer after a probe that got none starts the count again. */
	if (ack->seq != u->answered_seq + 1)
		u->answers_in_row = 0;
	if (ack->seq > u->answered_seq)
		u->answered_seq = ack->seq;
	u->c.probe_acks++;
	wb_uplink_note_loss(u, ack->tx_packets, ack->rx_packets);
	uplink_answered(b, u, now, now - ack->sent_ns);
}

static void on_uplink_info(struct wb_bond *b, struct wb_uplink *u, const struct wb_uplink_info *info)
{
	/* Only a server learns uplinks from its peer; the client has its own configuration. */
	if (!b->dev->p.server)
		return;
	if (strcmp(u->name, info->name))
		wb_bond_log(b, WB_LOG_INFO, u, "uplink %u is named %s", u->id, info->name);
	snprintf(u->name, sizeof(u->name), "%s", info->name);
	u->backup = info->flags & WB_UPLINK_BACKUP;
	u->weight = info->weight ? info->weight : 1;
}

/*
 * The uplink a data message came by. A server creates its slot on the first
 * message and follows its endpoint: any authenticated message from a new
 * address moves it there (NAT rebinding, a new LTE address).
 */
static struct wb_uplink *uplink_for_rx(struct wb_bond *b, uint8_t id, const struct wb_endpoint *from, uint64_t now)
{
	struct wb_uplink *u = &b->uplinks[id];
	char was[WB_ENDPOINT_STRLEN], is[WB_ENDPOINT_STRLEN];

	if (!b->dev->p.server)
		return u->exists ? u : NULL;
	if (!u->exists) {
		u->exists = true;
		u->id = id;
		u->weight = 1;
		snprintf(u->name, sizeof(u->name), "uplink%u", id);
	}
	if (!u->available || !wb_endpoint_equal(&u->endpoint, from)) {
		wb_endpoint_format(was, &u->endpoint);
		wb_endpoint_format(is, from);
		if (u->available)
			u->c.endpoint_changes++;
		wb_bond_log(b, WB_LOG_INFO, u, "endpoint %s -> %s", was, is);
		u->endpoint = *from;
		if (!u->available)
			u->available_since_ns = now;
		u->available = true;
		u->next_probe_ns = now;
		wb_device_timers_changed(b->dev);
	}
	return u;
}

/* The first pass: every frame must parse before any of them acts. */
static bool body_is_valid(const uint8_t *body, size_t len)
{
	const uint8_t *pos = body, *end = body + len;
	struct wb_frame f;
	int rc;

	while ((rc = wb_frame_next(&pos, end, &f)) > 0)
		;
	return rc == 0;
}

static void deliver_ip(struct wb_bond *b, struct wb_uplink *u, const struct wb_frame *f)
{
	if (!wb_source_allowed(b->allowed, b->n_allowed, f->ip.data, f->ip.len)) {
		b->c.source_rejected++;
		return;
	}
	b->c.tun_tx_packets++;
	b->c.tun_tx_bytes += f->ip.len;
	u->c.rx_ip_packets++;
	b->dev->ops.deliver(b->dev->ctx, b, f->ip.data, f->ip.len);
}

void wb_bond_on_data(struct wb_bond *b, uint64_t now, unsigned sock, const struct wb_endpoint *from,
		     uint8_t uplink, const uint8_t *body, size_t len)
{
	const uint8_t *pos = body, *end = body + len;
	struct wb_uplink *u;
	struct wb_frame f;
	bool closed = false;

	(void)sock;
	if (uplink >= WB_MAX_UPLINKS || !body_is_valid(body, len) || !(u = uplink_for_rx(b, uplink, from, now))) {
		b->c.malformed++;
		return;
	}
	u->c.rx_packets++;
	u->c.rx_bytes += len + DATA_HEADER + WB_TAG_LEN;
	u->data_rx++;
	while (wb_frame_next(&pos, end, &f) > 0) {
		switch (f.type) {
		case WB_FRAME_IP:
			deliver_ip(b, u, &f);
			break;
		case WB_FRAME_PROBE:
			send_probe_ack(b, u, &f.probe);
			break;
		case WB_FRAME_PROBE_ACK:
			on_probe_ack(b, u, &f.probe_ack, now);
			break;
		case WB_FRAME_UPLINK_INFO:
			on_uplink_info(b, u, &f.uplink_info);
			break;
		case WB_FRAME_CLOSE:
			closed = true;
			break;
		case WB_FRAME_PADDING:
			break;
		}
	}
	if (closed) {
		b->c.closes_received++;
		wb_handshake_clear_sessions(b);
		wb_bond_session_ended(b, now, "the peer closed the session");
	}
}

int wb_bond_send_ip(struct wb_bond *b, uint64_t now, uint8_t *ip, size_t len)
{
	uint8_t *buf = ip - WB_SEND_HEADROOM;
	struct wb_uplink *u;
	int rc;

	(void)now;
	b->c.tun_rx_packets++;
	b->c.tun_rx_bytes += len;
	if (!b->current) {
		b->c.no_session_drops++;
		return -ENOTCONN;
	}
	if (!len || len > UINT16_MAX)
		return -EMSGSIZE;
	u = wb_spread_pick(b);
	if (!u) {
		b->c.no_uplink_drops++;
		return -ENETUNREACH;
	}
	wb_frame_put_ip_header(buf + DATA_HEADER, len);
	rc = seal_and_send(b, u, buf, WB_FRAME_IP_HEADER + len);
	if (!rc)
		u->c.tx_ip_packets++;
	return rc;
}

/* Silence starts at the last answer, or when the uplink could first send; state changes do not restart it. */
static uint64_t quiet_since(const struct wb_uplink *u)
{
	return u->last_answer_ns > u->available_since_ns ? u->last_answer_ns : u->available_since_ns;
}

static uint64_t silence(const struct wb_uplink *u, uint64_t now)
{
	uint64_t since = quiet_since(u);

	return now > since ? now - since : 0;
}

static void tick_uplink(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	const struct wb_timers *t = &b->dev->p.timers;
	uint64_t quiet = silence(u, now);
	char why[64];

	if (b->current && now >= u->next_probe_ns)
		send_probe(b, u, now);
	snprintf(why, sizeof(why), "no answer for %llu ms", (unsigned long long)(quiet / 1000000));
	if (u->state == WB_UPLINK_UP && quiet > wb_uplink_stale_after(u, t->probe_interval_ns))
		wb_bond_uplink_transition(b, u, WB_UPLINK_STALE, now, why);
	else if ((u->state == WB_UPLINK_STALE || u->state == WB_UPLINK_PROBING) && quiet > t->uplink_timeout_ns)
		wb_bond_uplink_transition(b, u, WB_UPLINK_DOWN, now, why);
}

void wb_bond_tick(struct wb_bond *b, uint64_t now)
{
	wb_handshake_tick(b, now);
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists && b->uplinks[i].available)
			tick_uplink(b, &b->uplinks[i], now);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t uplink_deadline(const struct wb_bond *b, const struct wb_uplink *u)
{
	const struct wb_timers *t = &b->dev->p.timers;
	uint64_t since = quiet_since(u);
	uint64_t due = b->current ? u->next_probe_ns : UINT64_MAX;

	if (u->state == WB_UPLINK_UP)
		due = min_u64(due, since + wb_uplink_stale_after(u, t->probe_interval_ns) + 1);
	else if (u->state == WB_UPLINK_STALE || u->state == WB_UPLINK_PROBING)
		due = min_u64(due, since + t->uplink_timeout_ns + 1);
	return due;
}

uint64_t wb_bond_deadline(const struct wb_bond *b)
{
	uint64_t due = wb_handshake_deadline(b);

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists && b->uplinks[i].available)
			due = min_u64(due, uplink_deadline(b, &b->uplinks[i]));
	return due;
}

void wb_bond_session_started(struct wb_bond *b, uint64_t now, int hint_uplink)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		if (!u->exists || !u->available)
			continue;
		if (i == hint_uplink && b->hs_sent_ns && now >= b->hs_sent_ns)
			uplink_answered(b, u, now, now - b->hs_sent_ns);
		/* Probe every uplink now: it confirms the session to the server and shows it our endpoints. */
		send_probe(b, u, now);
	}
}

void wb_bond_session_ended(struct wb_bond *b, uint64_t now, const char *why)
{
	wb_bond_log(b, WB_LOG_NOTICE, NULL, "no session: %s", why);
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists)
			wb_bond_uplink_transition(b, &b->uplinks[i], WB_UPLINK_DOWN, now, why);
}

void wb_bond_set_uplink_available(struct wb_bond *b, unsigned i, bool available, uint64_t now)
{
	struct wb_uplink *u = i < WB_MAX_UPLINKS ? &b->uplinks[i] : NULL;

	if (!u || !u->exists || u->available == available)
		return;
	u->available = available;
	if (!available) {
		wb_bond_uplink_transition(b, u, WB_UPLINK_DOWN, now, "no usable socket");
	} else {
		u->available_since_ns = now;
		u->next_probe_ns = now;
	}
	wb_device_timers_changed(b->dev);
}

void wb_bond_close(struct wb_bond *b, uint64_t now)
{
	uint8_t buf[CONTROL_BUF];

	(void)now;
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		if (u->exists && u->available)
			seal_and_send(b, u, buf, wb_frame_put_close(buf + DATA_HEADER, WB_CLOSE_SHUTDOWN));
	}
}

void *wb_bond_user(const struct wb_bond *b)
{
	return b->user;
}

const char *wb_bond_name(const struct wb_bond *b)
{
	return b->name;
}

const struct wb_bond_counters *wb_bond_counters(const struct wb_bond *b)
{
	return &b->c;
}

bool wb_bond_has_session(const struct wb_bond *b)
{
	return b->current != NULL;
}

const struct wb_uplink *wb_bond_uplink(const struct wb_bond *b, unsigned i)
{
	return i < WB_MAX_UPLINKS && b->uplinks[i].exists ? &b->uplinks[i] : NULL;
}
