/* SPDX-License-Identifier: MIT */
/*
 * A client and a server device joined in memory, for the fuzz harnesses of
 * the protocol library and the generator of their seed corpora
 * (gen_corpus.c). tests/unit/pair.c does the same for the unit tests, but
 * the libFuzzer build (`make fuzz`) compiles only lib/, daemon/ and the
 * harness, so this one is a header of static functions.
 *
 * Everything is fixed: the keys, the time, and each side's random bytes (a
 * generator seeded per side, so what one side draws never changes what the
 * other draws). Two runs that receive the same datagrams in the same order
 * make the same handshake and the same session keys: a data message sealed
 * in one run (by gen_corpus) authenticates in another (in the harness).
 */
#ifndef WB_FUZZ_PAIR_H
#define WB_FUZZ_PAIR_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "prng.h"
#include "wanbond.h"

#define FP_QUEUE 512
#define FP_T0 1000000000ULL
#define FP_MS 1000000ULL
#define FP_SEC 1000000000ULL
#define FP_UPLINKS 2

struct fp_datagram {
	unsigned sock;
	struct wb_endpoint to;
	size_t len;
	uint8_t *data; /* malloc'd: aligned as a receive buffer is */
};

struct fp;

struct fp_side {
	struct fp *fp;
	bool server;
	struct wb_device *dev;
	struct wb_bond *bond;
	struct prng rng;
	struct fp_datagram q[FP_QUEUE];
	size_t queued;
	uint64_t delivered, delivered_bytes, lost;
	/* A harness's own look at each IP packet delivered to this side's TUN device (NULL: none). */
	void (*on_ip)(struct fp_side *s, const uint8_t *ip, size_t len);
};

struct fp {
	struct fp_side c, s;
	uint64_t now;
	struct wb_endpoint server_ep, client_ep[FP_UPLINKS];
};

static inline void fp_on_send(void *ctx, unsigned sock, const struct wb_endpoint *to, const uint8_t *data,
			      size_t len, uint8_t dscp)
{
	(void)dscp;
	struct fp_side *s = ctx;
	struct fp_datagram *d;

	if (s->queued == FP_QUEUE || len > WB_MAX_DATAGRAM) {
		s->lost++;
		return;
	}
	d = &s->q[s->queued];
	d->data = malloc(len ? len : 1);
	if (!d->data) {
		s->lost++;
		return;
	}
	memcpy(d->data, data, len);
	d->len = len;
	d->sock = sock;
	d->to = *to;
	s->queued++;
}

static inline void fp_on_deliver(void *ctx, struct wb_bond *b, const uint8_t *ip, size_t len)
{
	struct fp_side *s = ctx;
	volatile uint8_t sink = 0;

	(void)b;
	/* Touch every byte: under ASan a packet that points outside its message is a crash here. */
	for (size_t i = 0; i < len; i++)
		sink ^= ip[i];
	(void)sink;
	s->delivered++;
	s->delivered_bytes += len;
	if (s->on_ip)
		s->on_ip(s, ip, len);
}

static inline void fp_on_random(void *ctx, void *buf, size_t len)
{
	struct fp_side *s = ctx;
	uint8_t *b = buf;

	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)prng_next(&s->rng);
}

static inline void fp_on_log(void *ctx, enum wb_log_level level, const char *bond, const char *uplink, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)bond;
	(void)uplink;
	(void)msg;
}

/* The harness's wall clock: its virtual time, from an epoch in 2023. */
static inline uint64_t fp_on_wall_clock(void *ctx)
{
	const struct fp_side *s = ctx;

	return 1700000000ULL * FP_SEC + s->fp->now;
}

static const struct wb_device_ops fp_ops = {
	.send = fp_on_send, .deliver = fp_on_deliver, .random = fp_on_random, .log = fp_on_log,
	.wall_clock = fp_on_wall_clock,
};

static inline void fp_key(uint8_t key[WB_KEY_LEN], uint8_t v)
{
	for (int i = 0; i < WB_KEY_LEN; i++)
		key[i] = (uint8_t)(v * 37 + i * 11);
	wb_x25519_clamp(key);
}

/*
 * What a harness may set besides the fixed pair; zero fields keep what
 * fp_init makes (neither changes the handshake: the seeds stay valid).
 */
struct fp_options {
	struct wb_bond_tuning tuning;    /* both bonds' reliable layer (zero fields: the defaults) */
	int n_allowed;                   /* the sources the server takes from the client (none: any) */
	const struct wb_ip_prefix *allowed;
	uint32_t handshakes_per_second;  /* the server's, above which it wants cookies (0: 50) */
};

/* 0, or -1 if a device or a bond could not be made (then nothing is left allocated). */
static inline int fp_init_with(struct fp *f, const struct fp_options *o)
{
	struct wb_device_params dp = { .cipher = WB_CIPHER_CHACHA20_POLY1305, .timers = WB_TIMERS_DEFAULT };
	struct wb_bond_params cb = { .name = "fuzz", .tuning = o->tuning };
	struct wb_bond_params sb = { .name = "fuzz", .tuning = o->tuning };
	uint8_t client_key[WB_KEY_LEN], server_key[WB_KEY_LEN];

	memset(f, 0, sizeof(*f));
	f->now = FP_T0;
	f->c.fp = f->s.fp = f;
	f->s.server = true;
	prng_seed(&f->c.rng, 1);
	prng_seed(&f->s.rng, 2);
	f->server_ep = (struct wb_endpoint){ .family = 4, .port = 51820, .addr = { 192, 0, 2, 1 } };
	for (int i = 0; i < FP_UPLINKS; i++)
		f->client_ep[i] = (struct wb_endpoint){ .family = 4, .port = (uint16_t)(40000 + i),
						        .addr = { 192, 0, 2, (uint8_t)(100 + i) } };
	fp_key(client_key, 1);
	fp_key(server_key, 2);

	memcpy(dp.private_key, client_key, WB_KEY_LEN);
	if (wb_device_new(&f->c.dev, &dp, &fp_ops, &f->c))
		return -1;
	dp.server = true;
	dp.handshakes_per_second = o->handshakes_per_second;
	memcpy(dp.private_key, server_key, WB_KEY_LEN);
	if (wb_device_new(&f->s.dev, &dp, &fp_ops, &f->s)) {
		wb_device_free(f->c.dev);
		return -1;
	}
	wb_x25519_public(cb.public_key, server_key);
	wb_x25519_public(sb.public_key, client_key);
	memset(cb.preshared_key, 7, WB_KEY_LEN);
	memset(sb.preshared_key, 7, WB_KEY_LEN);
	sb.n_allowed = o->n_allowed < WB_MAX_ALLOWED ? o->n_allowed : WB_MAX_ALLOWED;
	if (sb.n_allowed > 0)
		memcpy(sb.allowed, o->allowed, (size_t)sb.n_allowed * sizeof(sb.allowed[0]));
	cb.server = f->server_ep;
	cb.n_uplinks = FP_UPLINKS;
	for (int i = 0; i < FP_UPLINKS; i++) {
		cb.uplinks[i].name[0] = (char)('a' + i);
		cb.uplinks[i].weight = (uint16_t)(1 + i);
	}
	if (wb_device_add_bond(f->c.dev, &cb, &f->c.bond) || wb_device_add_bond(f->s.dev, &sb, &f->s.bond)) {
		wb_device_free(f->c.dev);
		wb_device_free(f->s.dev);
		return -1;
	}
	for (unsigned i = 0; i < FP_UPLINKS; i++)
		wb_bond_set_uplink_available(f->c.bond, i, true, f->now, NULL);
	return 0;
}

static inline int fp_init(struct fp *f)
{
	return fp_init_with(f, &(struct fp_options){ 0 });
}

static inline void fp_drop_queue(struct fp_side *s)
{
	for (size_t i = 0; i < s->queued; i++)
		free(s->q[i].data);
	s->queued = 0;
}

static inline void fp_free(struct fp *f)
{
	fp_drop_queue(&f->c);
	fp_drop_queue(&f->s);
	wb_device_free(f->c.dev);
	wb_device_free(f->s.dev);
}

/* A copy of buf, received by side `to` on socket sock from an endpoint, at the current time. */
static inline void fp_receive(struct fp *f, struct fp_side *to, unsigned sock, const struct wb_endpoint *from,
		       const uint8_t *buf, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);

	if (!copy)
		return;
	memcpy(copy, buf, len);
	wb_device_receive(to->dev, f->now, sock, from, copy, len);
	free(copy);
}

/* Moves one side's queue to the other; returns whether anything moved. */
static inline bool fp_deliver_queue(struct fp *f, struct fp_side *from, struct fp_side *to)
{
	size_t n = from->queued;
	struct fp_datagram *batch;

	if (!n)
		return false;
	batch = malloc(n * sizeof(*batch));
	if (!batch) {
		fp_drop_queue(from);
		return true;
	}
	memcpy(batch, from->q, n * sizeof(*batch));
	from->queued = 0;
	for (size_t i = 0; i < n; i++) {
		struct fp_datagram *d = &batch[i];
		unsigned sock = 0;
		const struct wb_endpoint *src = &f->server_ep;

		if (from->server) {
			for (unsigned k = 0; k < FP_UPLINKS; k++)
				if (wb_endpoint_equal(&d->to, &f->client_ep[k]))
					sock = k;
		} else {
			src = &f->client_ep[d->sock < FP_UPLINKS ? d->sock : 0];
		}
		wb_device_receive(to->dev, f->now, sock, src, d->data, d->len);
		free(d->data);
	}
	free(batch);
	return true;
}

/* Delivers both ways until quiet (bounded: a peer that answers everything cannot loop forever). */
static inline void fp_flush(struct fp *f)
{
	for (int rounds = 0; rounds < 64; rounds++) {
		bool moved = fp_deliver_queue(f, &f->c, &f->s);

		moved |= fp_deliver_queue(f, &f->s, &f->c);
		if (!moved)
			return;
	}
	fp_drop_queue(&f->c);
	fp_drop_queue(&f->s);
}

/*
 * Ticks both devices at the current time. A tick does what is due; what
 * that makes due at once (an uplink gone stale may be down already) takes
 * another tick, and a few settle it. A deadline that stays in the past
 * would have the daemon's loop tick again at once, for ever: a busy loop.
 */
#define FP_TICKS_TO_SETTLE 8

static inline void fp_tick(struct fp *f)
{
	for (int i = 0; i < FP_TICKS_TO_SETTLE; i++) {
		wb_device_tick(f->c.dev, f->now);
		wb_device_tick(f->s.dev, f->now);
		if (wb_device_next_deadline(f->c.dev) > f->now && wb_device_next_deadline(f->s.dev) > f->now)
			return;
	}
	fprintf(stderr, "fuzz: the %s still has work due after %d ticks: the daemon's loop would spin\n",
		wb_device_next_deadline(f->c.dev) <= f->now ? "client" : "server", FP_TICKS_TO_SETTLE);
	abort();
}

/* Runs both devices' timers up to t, flushing after each (bounded). */
static inline void fp_run_until(struct fp *f, uint64_t t)
{
	for (int steps = 0; steps < 10000; steps++) {
		uint64_t c = wb_device_next_deadline(f->c.dev), s = wb_device_next_deadline(f->s.dev);
		uint64_t due = c < s ? c : s;

		if (due > t)
			break;
		if (due > f->now)
			f->now = due;
		fp_tick(f);
		fp_flush(f);
	}
	f->now = t;
	fp_flush(f);
}

/* The client's first initiation, queued and not delivered (its first tick). */
static inline void fp_start_handshake(struct fp *f)
{
	wb_device_tick(f->c.dev, f->now);
}

/*
 * Packets `from` took in from its TUN device that are neither dropped at
 * its door nor delivered, refused for their source or given up unreceived
 * by `to`: 0 once nothing moves any more (tests/netns/test_faults.sh keeps
 * the same account between two daemons).
 */
static inline int64_t fp_unsettled(const struct fp_side *from, const struct fp_side *to)
{
	const struct wb_bond_counters *a = wb_bond_counters(from->bond), *b = wb_bond_counters(to->bond);
	uint64_t door = a->no_session_drops + a->no_uplink_drops + a->queue_drops + a->aqm_drops + a->too_big_drops +
			a->pool_full_drops;

	return (int64_t)(a->tun_rx_packets - door) - (int64_t)(b->tun_tx_packets + b->source_rejected + b->reorder_skips);
}

/* Whether a side has nothing left to send, resend or deliver, and nothing of its own in flight. */
static inline bool fp_side_idle(const struct fp_side *s)
{
	const struct wb_bond *b = s->bond;

	return !s->queued && !b->txq.n && b->snd.una == b->snd.nxt && !b->rcv.held;
}

/*
 * The bounds a bond's memory keeps to, whatever it is fed: packet buffers
 * within the pool's limit, and each queue within its window. Returns the
 * first one broken, NULL if none.
 */
static inline const char *fp_bounds_broken(const struct wb_bond *b)
{
	if (b->pool.in_use > b->pool.max || b->pool.allocated > b->pool.max)
		return "packet buffers beyond the pool's limit";
	if (b->txq.bytes > b->txq.limit)
		return "send queue beyond its limit";
	if (b->snd.bytes > b->tuning.send_buffer)
		return "send buffer beyond its size";
	if (b->rcv.held_bytes > b->rcv.capacity || b->rcv.held > b->rcv.cap)
		return "reorder buffer beyond the receive window";
	/* Every buffer in use is held by one of them: none leaked, none in two places. */
	if (b->pool.in_use != (uint64_t)b->txq.n + (b->snd.nxt - b->snd.una) + b->rcv.held)
		return "packet buffers in use that no queue holds, or held twice";
	return NULL;
}

#endif
