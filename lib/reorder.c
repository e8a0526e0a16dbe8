// SPDX-License-Identifier: MIT
#include "reorder.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sndbuf.h"

int wb_reorder_init(struct wb_reorder *r, uint64_t capacity)
{
	uint32_t cap = 1024;

	memset(r, 0, sizeof(*r));
	/* One slot per window unit that fits: the sender cannot get further ahead. */
	while ((uint64_t)cap * WB_WINDOW_MIN_UNIT < capacity && cap < (1u << 22))
		cap *= 2;
	r->ring = calloc(cap, sizeof(*r->ring));
	if (!r->ring)
		return -ENOMEM;
	r->cap = cap;
	r->capacity = capacity;
	r->listed_below = UINT64_MAX;
	return 0;
}

void wb_reorder_free(struct wb_reorder *r, struct wb_pktbuf_pool *pool)
{
	for (uint32_t i = 0; r->ring && i < r->cap; i++)
		if (r->ring[i].data)
			wb_pktbuf_put(pool, r->ring[i].data);
	free(r->ring);
	memset(r, 0, sizeof(*r));
}

uint32_t wb_reorder_restart(struct wb_reorder *r, struct wb_pktbuf_pool *pool)
{
	uint32_t dropped = r->held - r->marked; /* a mark's packet was delivered */

	for (uint32_t i = 0; i < r->cap; i++)
		if (r->ring[i].data)
			wb_pktbuf_put(pool, r->ring[i].data);
	memset(r->ring, 0, r->cap * sizeof(*r->ring));
	r->nxt = 0;
	r->held = 0;
	r->marked = 0;
	r->held_bytes = 0;
	r->n_ranges = 0;
	r->listed_below = UINT64_MAX;
	return dropped;
}

static struct wb_reorder_slot *slot(const struct wb_reorder *r, uint64_t dsn)
{
	return &r->ring[dsn & (r->cap - 1)];
}

/* Held, or delivered early and not yet passed by delivery in order. */
static bool present(const struct wb_reorder *r, uint64_t dsn)
{
	const struct wb_reorder_slot *s = slot(r, dsn);

	return (s->data || s->delivered_early) && s->dsn == dsn;
}

/* Rebuilds the range list by walking the ring from nxt (only when it ran dry). */
static void rebuild_ranges(struct wb_reorder *r)
{
	uint32_t left = r->held;

	r->n_ranges = 0;
	r->listed_below = UINT64_MAX;
	for (uint64_t d = r->nxt; left && d < r->nxt + r->cap; d++) {
		if (!present(r, d))
			continue;
		left--;
		if (r->n_ranges && r->held_ranges[r->n_ranges - 1].hi + 1 == d) {
			r->held_ranges[r->n_ranges - 1].hi = d;
		} else if (r->n_ranges < WB_BOND_ACK_MAX_SACKS) {
			r->held_ranges[r->n_ranges++] = (struct wb_range){ d, d };
		} else {
			r->listed_below = d;
			break;
		}
	}
}

/*
 * A packet is held: add it to the ranges (merging). The list keeps the lowest
 * ranges: when it is full, the highest range goes, and from then on nothing
 * at or above where it started is listed (it would skip over what was left
 * out) until the list runs dry and is rebuilt. So the first range is always
 * the lowest packet held.
 */
static void add_range(struct wb_reorder *r, uint64_t dsn)
{
	struct wb_range *v = r->held_ranges;
	unsigned i = 0;

	if (dsn >= r->listed_below)
		return;
	while (i < r->n_ranges && v[i].hi + 1 < dsn)
		i++;
	if (i < r->n_ranges && v[i].hi + 1 == dsn) {
		v[i].hi = dsn;
		if (i + 1 < r->n_ranges && v[i + 1].lo == dsn + 1) {
			v[i].hi = v[i + 1].hi;
			memmove(&v[i + 1], &v[i + 2], (r->n_ranges - i - 2) * sizeof(*v));
			r->n_ranges--;
		}
		return;
	}
	if (i < r->n_ranges && v[i].lo == dsn + 1) {
		v[i].lo = dsn;
		return;
	}
	if (i == WB_BOND_ACK_MAX_SACKS) {
		r->listed_below = dsn; /* above every range kept */
		return;
	}
	if (r->n_ranges == WB_BOND_ACK_MAX_SACKS) {
		r->n_ranges--;
		if (v[r->n_ranges].lo < r->listed_below)
			r->listed_below = v[r->n_ranges].lo;
	}
	memmove(&v[i + 1], &v[i], (r->n_ranges - i) * sizeof(*v));
	v[i] = (struct wb_range){ dsn, dsn };
	r->n_ranges++;
}

/* Everything below nxt left the buffer: so did those ranges. */
static void trim_ranges(struct wb_reorder *r)
{
	unsigned k = 0;

	while (k < r->n_ranges && r->held_ranges[k].hi < r->nxt)
		k++;
	if (k) {
		memmove(r->held_ranges, &r->held_ranges[k], (r->n_ranges - k) * sizeof(r->held_ranges[0]));
		r->n_ranges -= k;
	}
	if (!r->n_ranges && r->held)
		rebuild_ranges(r);
	else if (!r->held)
		r->listed_below = UINT64_MAX;
}

/* Delivers the held packets that are now in order. */
static void drain(struct wb_reorder *r, struct wb_pktbuf_pool *pool, wb_deliver_fn deliver, void *ctx)
{
	while (present(r, r->nxt)) {
		struct wb_reorder_slot *s = slot(r, r->nxt);

		r->held--;
		if (s->delivered_early) {
			s->delivered_early = false; /* it left when it arrived */
			r->marked--;
		} else {
			deliver(ctx, s->data, s->len);
			r->delivered++;
			r->held_bytes -= wb_window_bytes(s->len);
			wb_pktbuf_put(pool, s->data);
			s->data = NULL;
		}
		r->nxt++;
	}
	trim_ranges(r);
}

enum wb_reorder_result wb_reorder_receive(struct wb_reorder *r, uint64_t dsn, const uint8_t *ip, uint16_t len,
					  uint64_t now, struct wb_pktbuf_pool *pool, wb_deliver_fn deliver, void *ctx)
{
	struct wb_reorder_slot *s;

	if (dsn < r->nxt) {
		r->duplicates++;
		return WB_REORDER_DUPLICATE;
	}
	if (dsn == r->nxt) {
		deliver(ctx, ip, len);
		r->delivered++;
		r->nxt++;
		drain(r, pool, deliver, ctx);
		return WB_REORDER_DELIVERED;
	}
	s = slot(r, dsn);
	if (present(r, dsn)) {
		r->duplicates++;
		return WB_REORDER_DUPLICATE;
	}
	if (dsn - r->nxt >= r->cap || r->held_bytes + wb_window_bytes(len) > r->capacity || len > pool->slot) {
		r->beyond_window++;
		return WB_REORDER_NO_ROOM;
	}
	if (!(s->data = wb_pktbuf_get(pool))) {
		r->no_buffer++;
		return WB_REORDER_NO_BUFFER;
	}
	memcpy(s->data, ip, len);
	s->dsn = dsn;
	s->len = len;
	s->arrived_ns = now;
	add_range(r, dsn);
	r->held++;
	r->held_bytes += wb_window_bytes(len);
	if (r->held_bytes > r->max_held_bytes)
		r->max_held_bytes = r->held_bytes;
	return WB_REORDER_HELD;
}

enum wb_reorder_result wb_reorder_receive_unordered(struct wb_reorder *r, uint64_t dsn, const uint8_t *ip,
						    uint16_t len, uint64_t now, struct wb_pktbuf_pool *pool,
						    wb_deliver_fn deliver, void *ctx)
{
	struct wb_reorder_slot *s;

	if (dsn <= r->nxt || present(r, dsn))
		return wb_reorder_receive(r, dsn, ip, len, now, pool, deliver, ctx); /* in order, or a duplicate */
	if (dsn - r->nxt >= r->cap) {
		/* Its mark would not fit: refused, so it is resent, rather than delivered twice. */
		r->beyond_window++;
		return WB_REORDER_NO_ROOM;
	}
	deliver(ctx, ip, len);
	r->delivered++;
	r->delivered_early++;
	s = slot(r, dsn);
	s->dsn = dsn;
	s->len = len;
	s->arrived_ns = now;
	s->delivered_early = true;
	add_range(r, dsn);
	r->held++;
	r->marked++;
	return WB_REORDER_DELIVERED;
}

/* The lowest packet held has waited since it arrived: the gap below it is as old. */
static uint64_t gap_since(const struct wb_reorder *r)
{
	return slot(r, r->held_ranges[0].lo)->arrived_ns;
}

/*
 * A gap is given up the hold time after the first packet above it came,
 * delivered early or held: a DSN its sender gave up (its path shrank)
 * must not leave the marks of a call's packets piling up behind it until
 * the slots run out and nothing is taken any more.
 */
uint64_t wb_reorder_deadline(const struct wb_reorder *r, uint64_t hold_ns)
{
	return r->held && r->n_ranges ? gap_since(r) + hold_ns : UINT64_MAX;
}

void wb_reorder_skip_due(struct wb_reorder *r, uint64_t now, uint64_t hold_ns, struct wb_pktbuf_pool *pool,
			 wb_deliver_fn deliver, void *ctx)
{
	while (r->held && r->n_ranges && now >= gap_since(r) + hold_ns) {
		/* Step over the missing DSNs up to the first one held. */
		r->skipped += r->held_ranges[0].lo - r->nxt;
		r->nxt = r->held_ranges[0].lo;
		drain(r, pool, deliver, ctx);
	}
}

void wb_reorder_ack(const struct wb_reorder *r, struct wb_bond_ack *out)
{
	out->cum = r->nxt;
	out->rwnd = r->capacity;
	out->n = r->n_ranges;
	memcpy(out->s, r->held_ranges, r->n_ranges * sizeof(out->s[0]));
}
