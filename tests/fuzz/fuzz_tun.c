// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the TUN input path. The input is a sequence of IP
 * packets as the daemon reads them from either side's TUN device
 * (wb_bond_send_ip), between steps of time, for a pair (fuzz_pair.h) whose
 * server takes only some sources from the client (the allowed prefixes
 * below), over a network that loses nothing of its own. Small buffers (a
 * send queue of 8 kB, windows of 32 kB) and packets up to 2000 bytes (the
 * MTU is 1400) reach the full queue and the too-big packet.
 *
 * Each record: a control byte, then (unless bit 1 says there is no packet)
 * a 16-bit little-endian length and the packet's bytes (the last record
 * takes what is left).
 *
 *   bit 0     the side whose TUN device it comes from: 0 client, 1 server
 *   bit 1     no packet: only the step of time
 *   bits 2-3  then: 0 nothing (datagrams stay in flight), 1 deliver both
 *             ways until quiet, 2 run the timers for a while, delivering,
 *             3 tick both devices a little later, delivering nothing
 *   bits 4-7  how long: (v * v * 4 + 1) ms, 1 ms to 0.9 s
 *
 * What must hold:
 *   - every packet is counted as taken in, with its bytes; the outcome is
 *     the one its state calls for, and counted as such: 0 (a session, and
 *     1..MTU bytes), -ENOTCONN (no session: no_session_drops), -EMSGSIZE
 *     (above the MTU: too_big_drops; an empty read is no packet and counts
 *     nothing), -ENOBUFS (the send queue is full: queue_drops; or the
 *     bond's pool has no buffer: pool_full_drops);
 *   - what the other side delivers is what was sent, byte for byte, in the
 *     order sent, each at most once, and on the server only from an
 *     allowed source (the harness's own reading of the prefixes);
 *   - the bonds' buffers stay within their bounds after every step, and
 *     every packet buffer in use is held by a queue;
 *   - at the end, over the lossless network, both sides settle (nothing to
 *     send, resend or reorder) within a minute, and the counters balance
 *     both ways: taken in = dropped at the door + delivered + refused for
 *     the source + given up by the reorder buffer (fp_unsettled); when
 *     nothing was dropped after the door and nothing given up, exactly the
 *     allowed packets were delivered and the others refused.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FT_MAX_PACKET 2000
#define FT_MTU 1400
#define FT_SETTLE_STEPS 600 /* of 100 ms: a minute */

#define CHECK(c)                                                                            \
	do {                                                                                \
		if (!(c)) {                                                                 \
			fprintf(stderr, "fuzz_tun: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                            \
		}                                                                           \
	} while (0)

/* The sources the server takes from the client: byte and bit boundaries, IPv4 and IPv6. */
static const struct wb_ip_prefix allowed[] = {
	{ 4, 24, { 10, 1, 0, 0 } },
	{ 4, 17, { 192, 168, 128, 0 } },
	{ 4, 32, { 10, 9, 9, 9 } },
	{ 6, 64, { 0xfd, 0x00, 0x00, 0x01 } },
	{ 6, 10, { 0xfe, 0x80 } },
};

/* The packets one side took in (returned 0 for), in order, as the other side must see them. */
struct ft_sent {
	size_t off, len;
	bool allowed; /* by the receiver's prefixes */
};

struct ft_dir {
	struct fp_side *from, *to;
	bool filtered;          /* the receiver checks sources (the server) */
	uint8_t *bytes;         /* the packets, one after another */
	size_t bytes_len, bytes_cap;
	struct ft_sent *sent;
	size_t n, cap;
	size_t next;            /* the first one that may still arrive */
	size_t delivered;
	uint64_t door_drops;    /* refused by wb_bond_send_ip, as the harness saw */
};

static struct fp f;
static struct ft_dir up, down; /* client to server, server to client */

static bool bit_set(const uint8_t *a, unsigned i)
{
	return a[i / 8] >> (7 - i % 8) & 1;
}

/* The harness's own reading of a prefix, bit by bit. */
static bool in_prefix(const struct wb_ip_prefix *p, uint8_t family, const uint8_t *addr)
{
	if (p->family != family)
		return false;
	for (unsigned i = 0; i < p->len; i++)
		if (bit_set(p->addr, i) != bit_set(addr, i))
			return false;
	return true;
}

static bool source_allowed(const uint8_t *ip, size_t len)
{
	uint8_t family = len ? ip[0] >> 4 : 0;
	const uint8_t *src;

	if (family == 4 && len >= 20)
		src = ip + 12;
	else if (family == 6 && len >= 40)
		src = ip + 8;
	else
		return false;
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (in_prefix(&allowed[i], family, src))
			return true;
	return false;
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	*cap = need * 2;
	p = realloc(p, *cap * size);
	CHECK(p);
	return p;
}

static void keep(struct ft_dir *d, const uint8_t *ip, size_t len)
{
	d->bytes = grow(d->bytes, &d->bytes_cap, d->bytes_len + len, 1);
	d->sent = grow(d->sent, &d->cap, d->n + 1, sizeof(*d->sent));
	memcpy(d->bytes + d->bytes_len, ip, len);
	d->sent[d->n++] = (struct ft_sent){ d->bytes_len, len, !d->filtered || source_allowed(ip, len) };
	d->bytes_len += len;
}

/* A packet delivered to a side's TUN device: the next one of those sent to it that it can be. */
static void on_ip(struct fp_side *s, const uint8_t *ip, size_t len)
{
	struct ft_dir *d = s == &f.s ? &up : &down;

	while (d->next < d->n &&
	       (d->sent[d->next].len != len || memcmp(d->bytes + d->sent[d->next].off, ip, len)))
		d->next++;
	CHECK(d->next < d->n); /* not sent, sent once and delivered twice, or out of order */
	CHECK(d->sent[d->next].allowed);
	d->next++;
	d->delivered++;
}

/* wb_bond_send_ip on a heap copy of exactly the packet: a read past its end is an ASan report. */
static int send_copy(struct wb_bond *b, const uint8_t *ip, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	CHECK(copy);
	memcpy(copy, ip, len);
	rc = wb_bond_send_ip(b, f.now, copy, len);
	free(copy);
	return rc;
}

/* One packet read from the TUN device of d's sender. */
static void send_one(struct ft_dir *d, const uint8_t *ip, size_t len)
{
	struct wb_bond *b = d->from->bond;
	const struct wb_bond_counters *c = wb_bond_counters(b);
	struct wb_bond_counters was = *c;
	bool session = wb_bond_has_session(b);
	int rc = send_copy(b, ip, len);

	if (len)
		CHECK(c->tun_rx_packets == was.tun_rx_packets + 1 && c->tun_rx_bytes == was.tun_rx_bytes + len);
	switch (rc) {
	case 0:
		CHECK(session && len > 0 && len <= FT_MTU);
		keep(d, ip, len);
		return;
	case -ENOTCONN:
		CHECK(!session && len && c->no_session_drops == was.no_session_drops + 1);
		break;
	case -EMSGSIZE:
		CHECK(len == 0 || len > FT_MTU);
		if (len)
			CHECK(c->too_big_drops == was.too_big_drops + 1);
		else
			CHECK(c->tun_rx_packets == was.tun_rx_packets); /* no packet: nothing taken in */
		break;
	case -ENOBUFS: /* the send queue full (no_uplink_drops while no uplink is up), or no buffer in the bond's pool */
		CHECK(session && c->queue_drops + c->no_uplink_drops + c->pool_full_drops ==
				      was.queue_drops + was.no_uplink_drops + was.pool_full_drops + 1);
		break;
	default:
		CHECK(!"an outcome wb_bond_send_ip does not have");
	}
	if (len)
		d->door_drops++;
}

static uint64_t step_ms(uint8_t ctl)
{
	unsigned v = ctl >> 4;

	return (uint64_t)v * v * 4 + 1;
}

static void step_time(uint8_t ctl)
{
	switch (ctl >> 2 & 3) {
	case 0:
		break;
	case 1:
		fp_flush(&f);
		break;
	case 2:
		fp_run_until(&f, f.now + step_ms(ctl) * FP_MS);
		break;
	case 3:
		f.now += step_ms(ctl) * FP_MS;
		fp_tick(&f);
		break;
	}
}

static void check_bounds(void)
{
	const char *c = fp_bounds_broken(f.c.bond), *s = fp_bounds_broken(f.s.bond);

	if (c || s) {
		fprintf(stderr, "fuzz_tun: %s: %s\n", c ? "client" : "server", c ? c : s);
		abort();
	}
}

/* Runs on until both sides are idle: over a network that loses nothing, everything goes through. */
static void settle(void)
{
	int steps = 0;

	fp_flush(&f);
	while (!(fp_side_idle(&f.c) && fp_side_idle(&f.s))) {
		CHECK(++steps <= FT_SETTLE_STEPS); /* still busy after a minute of a lossless network */
		fp_run_until(&f, f.now + 100 * FP_MS);
	}
	/* Ticks once more, so that what the reorder buffer gave up is in its counter. */
	fp_tick(&f);
}

static void check_balance(const struct ft_dir *d)
{
	const struct wb_bond_counters *a = wb_bond_counters(d->from->bond), *b = wb_bond_counters(d->to->bond);
	uint64_t door = a->no_session_drops + a->no_uplink_drops + a->queue_drops + a->aqm_drops + a->too_big_drops +
			a->pool_full_drops;
	size_t allowed_n = 0;

	CHECK(fp_unsettled(d->from, d->to) == 0);
	CHECK(b->tun_tx_packets == d->delivered && d->to->delivered == d->delivered);
	for (size_t i = 0; i < d->n; i++)
		allowed_n += d->sent[i].allowed;
	CHECK(d->delivered <= allowed_n && b->source_rejected <= d->n - allowed_n);
	/* Nothing dropped past the door, nothing given up: every packet arrived. */
	if (door == d->door_drops && !b->reorder_skips)
		CHECK(d->delivered == allowed_n && b->source_rejected == d->n - allowed_n);
}

static void dir_free(struct ft_dir *d)
{
	free(d->bytes);
	free(d->sent);
	memset(d, 0, sizeof(*d));
}

static int setup(void)
{
	struct fp_options o = {
		.tuning = { .mtu = FT_MTU, .send_buffer = 32 << 10, .receive_window = 32 << 10, .send_queue = 8 << 10 },
		.n_allowed = sizeof(allowed) / sizeof(allowed[0]),
		.allowed = allowed,
	};

	if (fp_init_with(&f, &o))
		return -1;
	up = (struct ft_dir){ .from = &f.c, .to = &f.s, .filtered = true };
	down = (struct ft_dir){ .from = &f.s, .to = &f.c };
	f.c.on_ip = f.s.on_ip = on_ip;
	fp_start_handshake(&f);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t pos = 0;

	if (setup())
		return 0;
	while (pos < size) {
		uint8_t ctl = data[pos++];

		if (!(ctl & 2)) {
			size_t len = size - pos >= 2 ? (size_t)data[pos] | (size_t)data[pos + 1] << 8 : 0;

			pos += size - pos >= 2 ? 2 : size - pos;
			if (len > size - pos)
				len = size - pos;
			send_one(ctl & 1 ? &down : &up, data + pos, len < FT_MAX_PACKET ? len : FT_MAX_PACKET);
			pos += len;
		}
		step_time(ctl);
		check_bounds();
	}
	settle();
	check_bounds();
	check_balance(&up);
	check_balance(&down);
	fp_free(&f);
	dir_free(&up);
	dir_free(&down);
	return 0;
}
