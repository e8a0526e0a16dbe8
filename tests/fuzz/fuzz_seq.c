// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the reliable layer over time, many datagrams at once:
 * reordering, SACK and recovery together. A pair (fuzz_pair.h) with its
 * session up; the input is a setup byte (bits 0-1 the scheduler: default,
 * roundrobin, redundant, first; bit 2 NewReno instead of BBR), then
 * operations, each a byte (bits 0-2 the operation, bit 3 the direction:
 * client to server or back, bits 4-7 its parameter v) and what it takes:
 *
 *   SEND      v + 1 IP packets from that side's TUN device, each one byte
 *             for its size (20 + 5 * b bytes, up to 1295); each carries its
 *             number in the direction and bytes that follow from it
 *   DELIVER   one byte k: datagram k (mod what is in flight that way) arrives
 *   DROP      one byte k: datagram k is lost
 *   DUP       one byte k: a copy of datagram k arrives (it stays in flight)
 *   REORDER   one byte k: datagram k goes behind everything in flight
 *   ALL       what is in flight that way arrives, in order; v odd: both
 *             ways until quiet
 *   UPLINK    everything in flight on uplink v % 2, both ways, is lost
 *   TIME      the timers run for v * v * 8 + 1 ms, nothing delivered
 *
 * Small buffers (send buffer 48 kB, receive window 32 kB, send queue
 * 16 kB) so that the windows fill. What must hold, after every operation:
 *
 *   - what a TUN device delivers was sent to it, byte for byte, in the order
 *     sent: the numbers strictly increase (gaps are what was given up),
 *     so nothing arrives twice; each side's delivery counter agrees;
 *   - every SACK range the receiver would send names packets it holds (a
 *     false one would make the sender free what never arrived), in
 *     ascending order, above its cumulative ack, at most as many as fit;
 *   - nothing leaves a send buffer before the peer has delivered or given
 *     it up (the sender's snd_una never passes the receiver's next DSN);
 *   - the buffers stay within their bounds and every packet buffer in use
 *     is held by a queue (fp_bounds_broken);
 * and at the end, once the network loses nothing more, one more packet
 * each way (it makes the receivers give up any gap left) and both sides
 * settle within a minute: then taken in = dropped at the door + delivered
 * + refused + given up, both ways.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "fuzz_pair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                            \
	do {                                                                                \
		if (!(c)) {                                                                 \
			fprintf(stderr, "fuzz_seq: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                            \
		}                                                                           \
	} while (0)

enum op { OP_SEND, OP_DELIVER, OP_DROP, OP_DUP, OP_REORDER, OP_ALL, OP_UPLINK, OP_TIME };

#define FS_MAX_SENT 4096          /* packets a direction may send in one input */
#define FS_SETTLE_STEPS 600       /* of 100 ms: a minute */
#define FS_ID_LEN 8

/* One direction: what its sender's TUN device gave it, and what the receiver's delivered. */
struct fs_dir {
	struct fp_side *from, *to;
	uint8_t marker;                 /* in every packet of the direction */
	uint64_t next_id;
	uint16_t len[FS_MAX_SENT];      /* 0: refused by wb_bond_send_ip */
	uint64_t last_delivered;        /* id + 1 of the last delivered, 0 before the first */
	uint64_t delivered;
};

static struct fp f;
static struct fs_dir up, down;

static uint8_t fill_byte(uint64_t id, size_t i)
{
	return (uint8_t)(id * 31 + i * 7 + 1);
}

static void make_packet(const struct fs_dir *d, uint64_t id, uint8_t *ip, size_t len)
{
	for (size_t i = 0; i < len; i++)
		ip[i] = fill_byte(id, i);
	ip[0] = 0x45;
	ip[1] = d->marker;
	wb_put_le64(ip + 2, id);
}

/* A packet delivered to a side's TUN device: the next in its direction's order, as it was sent. */
static void on_ip(struct fp_side *s, const uint8_t *ip, size_t len)
{
	struct fs_dir *d = s == &f.s ? &up : &down;
	uint64_t id;

	CHECK(len >= 2 + FS_ID_LEN && ip[1] == d->marker);
	id = wb_get_le64(ip + 2);
	CHECK(id < d->next_id && d->len[id] == len);
	CHECK(id + 1 > d->last_delivered); /* in order, and never twice */
	for (size_t i = 2 + FS_ID_LEN; i < len; i++)
		CHECK(ip[i] == fill_byte(id, i));
	d->last_delivered = id + 1;
	d->delivered++;
}

static void send_packets(struct fs_dir *d, unsigned n, const uint8_t *sizes)
{
	uint8_t ip[1400];

	for (unsigned i = 0; i < n && d->next_id < FS_MAX_SENT; i++) {
		size_t len = 20 + 5 * (size_t)sizes[i];
		uint64_t id = d->next_id++;

		make_packet(d, id, ip, len);
		if (wb_bond_send_ip(d->from->bond, f.now, ip, len) == 0)
			d->len[id] = (uint16_t)len;
	}
}

/* ---- the network: datagrams in flight, by position ---------------------------------------------- */

/* The uplink a datagram in flight travels on. */
static unsigned uplink_of(const struct fp_side *from, const struct fp_datagram *d)
{
	if (!from->server)
		return d->sock;
	for (unsigned k = 0; k < FP_UPLINKS; k++)
		if (wb_endpoint_equal(&d->to, &f.client_ep[k]))
			return k;
	return 0;
}

/* A copy of a datagram in flight arrives, on the socket and from the address its uplink gives. */
static void arrive(struct fp_side *from, const struct fp_datagram *d)
{
	unsigned k = uplink_of(from, d) % FP_UPLINKS;

	if (from->server)
		fp_receive(&f, &f.c, k, &f.server_ep, d->data, d->len);
	else
		fp_receive(&f, &f.s, 0, &f.client_ep[k], d->data, d->len);
}

static void remove_at(struct fp_side *s, size_t i)
{
	free(s->q[i].data);
	memmove(&s->q[i], &s->q[i + 1], (s->queued - i - 1) * sizeof(s->q[0]));
	s->queued--;
}

static void deliver_at(struct fp_side *s, size_t i)
{
	struct fp_datagram d = s->q[i];

	/* Out of the queue first: what the receiver sends back may fill it again. */
	memmove(&s->q[i], &s->q[i + 1], (s->queued - i - 1) * sizeof(s->q[0]));
	s->queued--;
	arrive(s, &d);
	free(d.data);
}

static void reorder_at(struct fp_side *s, size_t i)
{
	struct fp_datagram d = s->q[i];

	memmove(&s->q[i], &s->q[i + 1], (s->queued - i - 1) * sizeof(s->q[0]));
	s->q[s->queued - 1] = d;
}

static void drop_uplink(unsigned k)
{
	struct fp_side *sides[] = { &f.c, &f.s };

	for (int j = 0; j < 2; j++)
		for (size_t i = sides[j]->queued; i-- > 0;)
			if (uplink_of(sides[j], &sides[j]->q[i]) == k)
				remove_at(sides[j], i);
}

static void deliver_all(struct fp_side *s)
{
	size_t n = s->queued;

	for (size_t i = 0; i < n && s->queued; i++)
		deliver_at(s, 0);
}

/* The timers up to t, ticking at each deadline, delivering nothing. */
static void run_quiet(uint64_t t)
{
	for (int steps = 0; steps < 1000; steps++) {
		uint64_t c = wb_device_next_deadline(f.c.dev), s = wb_device_next_deadline(f.s.dev);
		uint64_t due = c < s ? c : s;

		if (due > t)
			break;
		if (due > f.now)
			f.now = due;
		fp_tick(&f);
	}
	f.now = t;
	fp_tick(&f);
}

/* ---- the invariants ---------------------------------------------------------------------------- */

static bool held(const struct wb_reorder *r, uint64_t dsn)
{
	const struct wb_reorder_slot *s = &r->ring[dsn & (r->cap - 1)];

	return s->data && s->dsn == dsn;
}

/* The bond ack the receiver would send: every SACKed DSN is held, the ranges ascend above cum. */
static void check_sacks(const struct wb_bond *b)
{
	struct wb_bond_ack a;
	uint64_t floor;

	wb_reorder_ack(&b->rcv, &a);
	CHECK(a.cum == b->rcv.nxt && a.n <= WB_BOND_ACK_MAX_SACKS);
	floor = a.cum + 1; /* the next range starts above this, with a gap: a range ending at cum - 1 would be the cum */
	for (unsigned i = 0; i < a.n; i++) {
		CHECK(a.s[i].lo >= floor && a.s[i].lo <= a.s[i].hi && a.s[i].hi - a.cum < b->rcv.cap);
		for (uint64_t d = a.s[i].lo; d <= a.s[i].hi; d++)
			CHECK(held(&b->rcv, d));
		floor = a.s[i].hi + 2;
	}
}

static void check_bounds(const char *who, const struct wb_bond *b)
{
	const char *broken = fp_bounds_broken(b);

	if (broken) {
		fprintf(stderr, "fuzz_seq: %s: %s\n", who, broken);
		abort();
	}
}

static void check_all(void)
{
	check_sacks(f.c.bond);
	check_sacks(f.s.bond);
	/* The sender frees only what the receiver delivered or gave up. */
	CHECK(f.c.bond->snd.una <= f.s.bond->rcv.nxt && f.s.bond->snd.una <= f.c.bond->rcv.nxt);
	check_bounds("client", f.c.bond);
	check_bounds("server", f.s.bond);
	CHECK(wb_bond_counters(f.s.bond)->tun_tx_packets == up.delivered);
	CHECK(wb_bond_counters(f.c.bond)->tun_tx_packets == down.delivered);
}

/* ---- the input ----------------------------------------------------------------------------------- */

struct reader {
	const uint8_t *p;
	size_t left;
};

static uint8_t take_byte(struct reader *r)
{
	if (!r->left)
		return 0;
	r->left--;
	return *r->p++;
}

static void op_send(struct reader *r, struct fs_dir *d, unsigned v)
{
	uint8_t sizes[16];

	for (unsigned i = 0; i <= v; i++)
		sizes[i] = take_byte(r);
	send_packets(d, v + 1, sizes);
}

/* DELIVER, DROP, DUP, REORDER: the datagram at a position of the input's choosing. */
static void op_at(struct reader *r, struct fp_side *s, enum op op)
{
	uint8_t k = take_byte(r);
	size_t i;

	if (!s->queued)
		return;
	i = k % s->queued;
	switch (op) {
	case OP_DELIVER: deliver_at(s, i); break;
	case OP_DROP: remove_at(s, i); break;
	case OP_DUP: arrive(s, &s->q[i]); break;
	case OP_REORDER: reorder_at(s, i); break;
	default: break;
	}
}

static void run_op(struct reader *r)
{
	uint8_t op = take_byte(r);
	bool back = op & 0x08;
	unsigned v = op >> 4;
	struct fp_side *s = back ? &f.s : &f.c;

	switch ((enum op)(op & 7)) {
	case OP_SEND: op_send(r, back ? &down : &up, v); break;
	case OP_DELIVER:
	case OP_DROP:
	case OP_DUP:
	case OP_REORDER: op_at(r, s, (enum op)(op & 7)); break;
	case OP_ALL:
		if (v & 1)
			fp_flush(&f);
		else
			deliver_all(s);
		break;
	case OP_UPLINK: drop_uplink(v % FP_UPLINKS); break;
	case OP_TIME: run_quiet(f.now + ((uint64_t)v * v * 8 + 1) * FP_MS); break;
	}
}

/* Lossless from now on: a last packet each way, then time until both sides are idle. */
static void settle(void)
{
	static const uint8_t small = 10;
	int steps = 0;

	fp_flush(&f);
	fp_run_until(&f, f.now + 2 * FP_SEC); /* uplinks that went down answer again */
	send_packets(&up, 1, &small);
	send_packets(&down, 1, &small);
	while (!(fp_side_idle(&f.c) && fp_side_idle(&f.s))) {
		CHECK(++steps <= FS_SETTLE_STEPS); /* still busy after a minute of a lossless network */
		fp_run_until(&f, f.now + 100 * FP_MS);
	}
	fp_tick(&f); /* what was given up, into the counters */
	check_all();
	CHECK(fp_unsettled(&f.c, &f.s) == 0 && fp_unsettled(&f.s, &f.c) == 0);
}

static int setup(uint8_t cfg)
{
	static const char *const scheds[] = { "default", "roundrobin", "redundant", "first" };
	struct fp_options o = {
		.tuning = { .mtu = 1400, .send_buffer = 48 << 10, .receive_window = 32 << 10, .send_queue = 16 << 10 },
	};

	snprintf(o.tuning.scheduler, sizeof(o.tuning.scheduler), "%s", scheds[cfg & 3]);
	snprintf(o.tuning.cc, sizeof(o.tuning.cc), "%s", cfg & 4 ? "newreno" : "bbr");
	if (fp_init_with(&f, &o))
		return -1;
	up = (struct fs_dir){ .from = &f.c, .to = &f.s, .marker = 0xc5 };
	down = (struct fs_dir){ .from = &f.s, .to = &f.c, .marker = 0x5c };
	f.c.on_ip = f.s.on_ip = on_ip;
	/* The session, and a second for every uplink to come up both ways. */
	fp_start_handshake(&f);
	fp_flush(&f);
	fp_run_until(&f, f.now + FP_SEC);
	CHECK(f.c.bond->current && f.s.bond->current);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };

	if (!size || setup(take_byte(&r)))
		return 0;
	while (r.left) {
		run_op(&r);
		check_all();
	}
	settle();
	fp_free(&f);
	return 0;
}
