// SPDX-License-Identifier: MIT
#include "pair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "crypto.h"

static void on_send(void *ctx, unsigned sock, const struct wb_endpoint *to, const uint8_t *data, size_t len,
		    uint8_t dscp)
{
	struct pair_side *s = ctx;
	struct pair *p = s->pair;
	struct pair_datagram *d;

	if (s->queued == PAIR_MAX_QUEUE || len > sizeof(d->data)) {
		fprintf(stderr, "pair: queue full or datagram too long\n");
		abort();
	}
	d = &s->queue[s->queued++];
	s->sent++;
	d->sock = sock;
	d->to = *to;
	d->from = s->is_server ? p->server_ep : p->client_ep[sock];
	d->len = (uint16_t)len;
	d->dscp = dscp;
	if (data == d->data)
		s->sent_in_place++;
	else
		memcpy(d->data, data, len);
	d->at = p->now;
	if (!s->is_server && sock < WB_MAX_UPLINKS)
		d->at += p->delay_ns[sock];
	for (int k = 0; s->is_server && k < WB_MAX_UPLINKS; k++)
		if (wb_endpoint_equal(to, &p->client_ep[k])) {
			d->at += p->delay_ns[k];
			break;
		}
}

static uint8_t *on_tx_buffer(void *ctx, unsigned sock, size_t len)
{
	struct pair_side *s = ctx;

	(void)sock;
	if (!s->pair->lend_tx_buffers || s->queued == PAIR_MAX_QUEUE || len > sizeof(s->queue[0].data))
		return NULL;
	return s->queue[s->queued].data;
}

static void on_deliver(void *ctx, struct wb_bond *b, const uint8_t *ip, size_t len)
{
	struct pair_side *s = ctx;
	uint64_t id = 0;

	(void)b;
	memcpy(&id, ip, len < 8 ? len : 8);
	if (s->n_delivered < PAIR_MAX_DELIVERED)
		s->delivered[s->n_delivered++] = id;
}

static void on_random(void *ctx, void *buf, size_t len)
{
	struct pair_side *s = ctx;
	uint8_t *b = buf;

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)prng_next(&s->pair->rng);
}

static void on_log(void *ctx, enum wb_log_level level, const char *bond, const char *uplink, const char *msg)
{
	struct pair_side *s = ctx;

	if (level < WB_LOG_DEBUG)
		s->log_lines++;
	if ((int)level <= s->pair->log_level)
		fprintf(stderr, "%s %s%s%s: %s\n", s->is_server ? "server" : "client", bond ? bond : "(device)",
			uplink ? "/" : "", uplink ? uplink : "", msg);
}

#define PAIR_EPOCH_NS (1700000000ULL * 1000000000ULL)

uint64_t pair_wall_clock(const struct pair_side *s)
{
	return PAIR_EPOCH_NS + s->pair->now + (uint64_t)s->wall_error_ns;
}

static uint64_t on_wall_clock(void *ctx)
{
	return pair_wall_clock(ctx);
}

static void on_event(void *ctx, struct wb_bond *b, const struct wb_event *ev)
{
	struct pair_side *s = ctx;
	struct pair_event *e;

	if (b != s->bond)
		abort(); /* an event of a bond this side does not have */
	if (s->n_events++ >= PAIR_MAX_EVENTS)
		return;
	e = &s->events[s->n_events - 1];
	e->ev = *ev;
	snprintf(e->uplink, sizeof(e->uplink), "%s", ev->uplink ? ev->uplink : "");
	snprintf(e->text, sizeof(e->text), "%s", ev->text ? ev->text : "");
	e->ev.uplink = ev->uplink ? e->uplink : NULL;
	e->ev.text = ev->text ? e->text : NULL;
}

static const struct wb_device_ops pair_ops = {
	.send = on_send, .deliver = on_deliver, .random = on_random, .log = on_log, .wall_clock = on_wall_clock,
	.event = on_event, .tx_buffer = on_tx_buffer,
};

static void key_from(struct prng *rng, uint8_t key[WB_KEY_LEN])
{
	for (int i = 0; i < WB_KEY_LEN; i++)
		key[i] = (uint8_t)prng_next(rng);
	wb_x25519_clamp(key);
}

static void side_init(struct pair_side *s, struct pair *p, bool server)
{
	s->pair = p;
	s->is_server = server;
	s->queue = calloc(PAIR_MAX_QUEUE, sizeof(*s->queue));
	s->delivered = calloc(PAIR_MAX_DELIVERED, sizeof(*s->delivered));
	if (!s->queue || !s->delivered)
		abort();
}

static void make_endpoint(struct wb_endpoint *e, uint8_t last, uint16_t port)
{
	*e = (struct wb_endpoint){ .family = 4, .port = port, .addr = { 192, 0, 2, last } };
}

/* Makes the side's device and bond from its parameters (dp, bp). */
static void side_start(struct pair *p, struct pair_side *s)
{
	if (wb_device_new(&s->dev, &s->dp, &pair_ops, s) || wb_device_add_bond(s->dev, &s->bp, &s->bond))
		abort();
	for (int i = 0; !s->is_server && i < p->n_uplinks; i++)
		wb_bond_set_uplink_available(s->bond, (unsigned)i, true, p->now, NULL);
}

void pair_init(struct pair *p, const struct pair_options *o)
{
	uint8_t client_key[WB_KEY_LEN], server_key[WB_KEY_LEN], other[WB_KEY_LEN];
	struct wb_device_params dp = { .cipher = WB_CIPHER_CHACHA20_POLY1305 };
	struct wb_bond_params *cb = &p->client.bp, *sb = &p->server.bp;

	memset(p, 0, sizeof(*p));
	prng_seed(&p->rng, o->seed ? o->seed : 1);
	p->now = 1000000000ULL;
	p->n_uplinks = o->n_uplinks ? o->n_uplinks : 2;
	p->drop_misaddressed = o->drop_misaddressed;
	p->lend_tx_buffers = o->lend_tx_buffers;
	p->log_level = getenv("PAIR_LOG") ? atoi(getenv("PAIR_LOG")) : 0;
	make_endpoint(&p->server_ep, 1, 51820);
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		make_endpoint(&p->client_ep[i], (uint8_t)(100 + i), (uint16_t)(40000 + i));
	side_init(&p->client, p, false);
	side_init(&p->server, p, true);
	key_from(&p->rng, client_key);
	key_from(&p->rng, server_key);
	key_from(&p->rng, other);

	dp.timers = o->timers.probe_interval_ns ? o->timers : WB_TIMERS_DEFAULT;
	dp.handshakes_per_second = o->handshakes_per_second;
	p->client.dp = p->server.dp = dp;
	p->server.dp.server = true;
	p->server.dp.pool_limit = o->server_pool_limit;
	memcpy(p->client.dp.private_key, client_key, WB_KEY_LEN);
	memcpy(p->server.dp.private_key, server_key, WB_KEY_LEN);

	snprintf(cb->name, sizeof(cb->name), "test");
	snprintf(sb->name, sizeof(sb->name), "test");
	wb_x25519_public(cb->public_key, o->wrong_server_key ? other : server_key);
	wb_x25519_public(sb->public_key, o->server_does_not_know_client ? other : client_key);
	cb->tuning = sb->tuning = o->tuning;
	if (o->server_tuning)
		sb->tuning = *o->server_tuning;
	memset(cb->preshared_key, 7, WB_KEY_LEN);
	memset(sb->preshared_key, o->wrong_psk ? 8 : 7, WB_KEY_LEN);
	cb->server = p->server_ep;
	cb->n_uplinks = p->n_uplinks;
	for (int i = 0; i < p->n_uplinks; i++) {
		snprintf(cb->uplinks[i].name, sizeof(cb->uplinks[i].name), "up%d", i);
		cb->uplinks[i].weight = 1;
		cb->uplinks[i].backup = o->backup_last && i == p->n_uplinks - 1;
		if (o->uplinks)
			cb->uplinks[i] = o->uplinks[i];
	}
	side_start(p, &p->client);
	side_start(p, &p->server);
}

void pair_restart(struct pair *p, struct pair_side *s)
{
	wb_device_free(s->dev);
	s->dev = NULL;
	s->bond = NULL;
	side_start(p, s);
}

void pair_free(struct pair *p)
{
	wb_device_free(p->client.dev);
	wb_device_free(p->server.dev);
	free(p->client.queue);
	free(p->server.queue);
	free(p->client.delivered);
	free(p->server.delivered);
}

int pair_datagram_uplink(const struct pair_datagram *d)
{
	return d->len >= WB_DATA_HEADER_LEN && d->data[0] == WB_MSG_DATA ? wb_data_uplink(d->data) : -1;
}

/*
 * Where a datagram arrives: a client datagram travels on the uplink of its
 * socket; a server datagram reaches the client socket (and so travels on the
 * uplink) whose address it was sent to. *uplink is -1 for a server datagram
 * to an address no client uplink has; false if it is lost for that.
 */
static bool route(struct pair *p, const struct pair_side *from, const struct pair_datagram *d, unsigned *sock,
		  int *uplink)
{
	*sock = 0;
	*uplink = from->is_server ? -1 : (int)d->sock;
	if (!from->is_server)
		return true;
	for (int k = 0; k < WB_MAX_UPLINKS; k++)
		if (wb_endpoint_equal(&d->to, &p->client_ep[k]))
			*sock = (unsigned)k, *uplink = k;
	if (*uplink >= 0)
		return true;
	p->misaddressed++;
	return !p->drop_misaddressed;
}

/* Whether a datagram on its way from `from` is lost (its uplink is in the mask, or the filter says so). */
static bool lost(struct pair *p, const struct pair_side *from, const struct pair_datagram *d, int uplink,
		 unsigned drop_mask)
{
	if (uplink >= 0 && uplink < WB_MAX_UPLINKS && (drop_mask >> uplink & 1))
		return true;
	return p->filter && p->filter(p, from, d, p->filter_arg);
}

/*
 * Moves the datagrams of one side's queue whose time has come to the other
 * side; the rest stay, in order. Datagrams sent meanwhile wait for the next
 * round. Returns whether any arrived (or was lost).
 */
static bool deliver_queue(struct pair *p, struct pair_side *from, struct pair_side *to, unsigned drop_mask)
{
	size_t n = from->queued, kept = 0, moved = 0;
	struct pair_datagram *batch;

	if (!n)
		return false;
	batch = malloc(n * sizeof(*batch));
	if (!batch)
		abort();
	memcpy(batch, from->queue, n * sizeof(*batch));
	from->queued = 0;
	for (size_t i = 0; i < n; i++) {
		struct pair_datagram *d = &batch[i];
		unsigned sock;
		int uplink;

		if (d->at > p->now) {
			batch[kept++] = *d; /* kept <= i: never overwrites one not yet looked at */
			continue;
		}
		moved++;
		if (!route(p, from, d, &sock, &uplink) || lost(p, from, d, uplink, drop_mask))
			continue;
		wb_device_receive(to->dev, p->now, sock, &d->from, d->data, d->len);
	}
	/* The ones kept go back in front of what `from` queued meanwhile (only `to` ran: nothing). */
	if (from->queued + kept > PAIR_MAX_QUEUE)
		abort();
	memmove(from->queue + kept, from->queue, from->queued * sizeof(*batch));
	memcpy(from->queue, batch, kept * sizeof(*batch));
	from->queued += kept;
	free(batch);
	return moved > 0;
}

/* The earliest time a queued datagram of s arrives after now, UINT64_MAX if none. */
static uint64_t next_arrival(const struct pair *p, const struct pair_side *s)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < s->queued; i++)
		if (s->queue[i].at > p->now && s->queue[i].at < due)
			due = s->queue[i].at;
	return due;
}

static void flush(struct pair *p, unsigned drop_mask)
{
	for (int rounds = 0; rounds < 1000; rounds++) {
		bool moved = deliver_queue(p, &p->client, &p->server, drop_mask);

		moved |= deliver_queue(p, &p->server, &p->client, drop_mask);
		if (!moved)
			return;
	}
}

static unsigned mask_of(int uplink)
{
	return uplink >= 0 && uplink < WB_MAX_UPLINKS ? 1u << uplink : 0;
}

void pair_flush(struct pair *p)
{
	flush(p, 0);
}

void pair_flush_dropping(struct pair *p, int uplink)
{
	flush(p, mask_of(uplink));
}

void pair_flush_dropping_mask(struct pair *p, unsigned mask)
{
	flush(p, mask);
}

static void run_until(struct pair *p, uint64_t t, unsigned drop_mask)
{
	for (;;) {
		uint64_t c = wb_device_next_deadline(p->client.dev), s = wb_device_next_deadline(p->server.dev);
		uint64_t due = c < s ? c : s, arrival = next_arrival(p, &p->client);

		if (next_arrival(p, &p->server) < arrival)
			arrival = next_arrival(p, &p->server);
		if (arrival < due && arrival <= t) {
			/* Datagrams on their way arrive first; the timers run when they are due. */
			p->now = arrival;
			flush(p, drop_mask);
			continue;
		}
		if (due > t)
			break;
		if (due > p->now)
			p->now = due;
		wb_device_tick(p->client.dev, p->now);
		wb_device_tick(p->server.dev, p->now);
		flush(p, drop_mask);
	}
	p->now = t;
	flush(p, drop_mask);
}

void pair_run_until(struct pair *p, uint64_t t)
{
	run_until(p, t, 0);
}

void pair_run_until_dropping_mask(struct pair *p, uint64_t t, unsigned mask)
{
	run_until(p, t, mask);
}

size_t pair_deliver_uplink(struct pair *p, struct pair_side *from, int uplink)
{
	struct pair_side *to = from->is_server ? &p->client : &p->server;
	size_t n = from->queued, kept = 0, delivered = 0;
	struct pair_datagram *batch;

	if (!n)
		return 0;
	batch = malloc(n * sizeof(*batch));
	if (!batch)
		abort();
	memcpy(batch, from->queue, n * sizeof(*batch));
	from->queued = 0;
	for (size_t i = 0; i < n; i++) {
		struct pair_datagram *d = &batch[i];
		unsigned sock;
		int u;
		bool arrives = route(p, from, d, &sock, &u);

		if (u != uplink) {
			batch[kept++] = *d; /* kept < i + 1: never overwrites one not yet looked at */
			continue;
		}
		if (arrives && !lost(p, from, d, u, 0)) {
			wb_device_receive(to->dev, p->now, sock, &d->from, d->data, d->len);
			delivered++;
		}
	}
	/* The ones kept go back in front of anything `from` queued meanwhile (only `to` ran: nothing). */
	if (from->queued + kept > PAIR_MAX_QUEUE)
		abort();
	memmove(from->queue + kept, from->queue, from->queued * sizeof(*batch));
	memcpy(from->queue, batch, kept * sizeof(*batch));
	from->queued += kept;
	free(batch);
	return delivered;
}

void pair_inject(struct pair *p, struct pair_side *to, const struct pair_datagram *d)
{
	struct pair_datagram copy = *d;
	unsigned sock = 0;

	if (!to->is_server) {
		for (int k = 0; k < WB_MAX_UPLINKS; k++)
			if (wb_endpoint_equal(&d->to, &p->client_ep[k]))
				sock = (unsigned)k;
	}
	wb_device_receive(to->dev, p->now, sock, &copy.from, copy.data, copy.len);
}

size_t pair_count_delivered(const struct pair_side *s, uint64_t id)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_delivered; i++)
		n += s->delivered[i] == id;
	return n;
}

void pair_run_until_dropping(struct pair *p, uint64_t t, int uplink)
{
	run_until(p, t, mask_of(uplink));
}

/* The packet pair_send_ip sends: len bytes (8..1500) whose first 8 are the id, zeros after; its length. */
static size_t make_ip(uint8_t ip[1500], uint64_t id, size_t len)
{
	if (len < 8)
		len = 8;
	if (len > 1500)
		len = 1500;
	memset(ip, 0, len);
	memcpy(ip, &id, 8);
	return len;
}

int pair_send_ip(struct pair *p, struct pair_side *from, uint64_t id, size_t len)
{
	uint8_t ip[1500];

	return wb_bond_send_ip(from->bond, p->now, ip, make_ip(ip, id, len));
}

#define PAIR_MS 1000000ULL

bool pair_wait_for_room(struct pair *p, struct pair_side *s, uint64_t id, size_t len, unsigned drop_mask,
			unsigned max_ms)
{
	uint8_t ip[1500];

	len = make_ip(ip, id, len);
	for (unsigned ms = 0; !wb_bond_can_queue(s->bond, ip, len); ms++) {
		if (ms == max_ms)
			return false;
		run_until(p, p->now + PAIR_MS, drop_mask);
	}
	return true;
}

int pair_send_ip_waiting_mask(struct pair *p, struct pair_side *from, uint64_t id, size_t len, unsigned drop_mask)
{
	pair_wait_for_room(p, from, id, len, drop_mask, 10000);
	return pair_send_ip(p, from, id, len);
}

int pair_send_ip_waiting(struct pair *p, struct pair_side *from, uint64_t id, size_t len)
{
	return pair_send_ip_waiting_mask(p, from, id, len, 0);
}

bool pair_side_idle(const struct pair_side *s)
{
	const struct wb_bond *b = s->bond;

	return !b->txq.n && b->snd.una == b->snd.nxt && !b->rcv.held;
}

bool pair_settle(struct pair *p, uint64_t t, unsigned drop_mask)
{
	while (!pair_side_idle(&p->client) || !pair_side_idle(&p->server)) {
		if (p->now >= t)
			return false;
		run_until(p, p->now + PAIR_MS < t ? p->now + PAIR_MS : t, drop_mask);
	}
	return true;
}
