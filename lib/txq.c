// SPDX-License-Identifier: MIT
#include "txq.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sndbuf.h"

#define INITIAL_CAP 256
#define MAX_CAP (1u << 20)

int wb_txq_init(struct wb_txq *q, uint64_t limit, uint32_t mtu, bool aqm, uint64_t target_ns, uint64_t interval_ns)
{
	memset(q, 0, sizeof(*q));
	q->ring = calloc(INITIAL_CAP, sizeof(*q->ring));
	if (!q->ring)
		return -ENOMEM;
	q->cap = INITIAL_CAP;
	q->limit = limit;
	q->mtu = mtu;
	q->codel = (struct wb_codel){ .enabled = aqm, .target_ns = target_ns, .interval_ns = interval_ns };
	return 0;
}

void wb_txq_free(struct wb_txq *q, struct wb_pktbuf_pool *pool)
{
	for (uint32_t i = 0; i < q->n; i++)
		wb_pktbuf_put(pool, q->ring[(q->head + i) % q->cap].data);
	free(q->ring);
	memset(q, 0, sizeof(*q));
}

bool wb_txq_has_room(const struct wb_txq *q, uint32_t len)
{
	return q->bytes + wb_window_bytes(len) <= q->limit && q->n < MAX_CAP;
}

static int grow(struct wb_txq *q)
{
	uint32_t cap = q->cap * 2;
	struct wb_txq_entry *ring = calloc(cap, sizeof(*ring));

	if (!ring)
		return -ENOMEM;
	for (uint32_t i = 0; i < q->n; i++)
		ring[i] = q->ring[(q->head + i) % q->cap];
	free(q->ring);
	q->ring = ring;
	q->cap = cap;
	q->head = 0;
	return 0;
}

bool wb_txq_push(struct wb_txq *q, uint8_t *data, uint16_t len, uint64_t now)
{
	if (!wb_txq_has_room(q, len) || (q->n == q->cap && grow(q))) {
		q->tail_drops++;
		return false;
	}
	q->ring[(q->head + q->n++) % q->cap] = (struct wb_txq_entry){ data, len, now };
	q->bytes += wb_window_bytes(len);
	return true;
}

const struct wb_txq_entry *wb_txq_peek(const struct wb_txq *q)
{
	return q->n ? &q->ring[q->head] : NULL;
}

static void take(struct wb_txq *q, struct wb_txq_entry *out)
{
	*out = q->ring[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	q->bytes -= wb_window_bytes(out->len);
}

/* Integer square root, for the control law without floating point. */
static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0, bit = 1ULL << 62;

	while (bit > x)
		bit >>= 2;
	while (bit) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

/* The next drop: interval / sqrt(count) after t. */
static uint64_t control_law(const struct wb_codel *c, uint64_t t)
{
	return t + (c->interval_ns << 16) / isqrt((uint64_t)c->count << 32);
}

/* RFC 8289's dodequeue: may the head be dropped? */
static bool ok_to_drop(struct wb_txq *q, uint64_t now)
{
	struct wb_codel *c = &q->codel;
	const struct wb_txq_entry *e = wb_txq_peek(q);
	uint64_t sojourn = e ? now - e->enqueued_ns : 0;

	/* While the queue is the tunnel's own (hold_ns: uplinks ramping up, an outage), a younger packet is not judged. */
	if (!e || sojourn < c->target_ns || sojourn < c->hold_ns || q->bytes <= q->mtu) {
		c->first_above_ns = 0;
		return false;
	}
	if (!c->first_above_ns) {
		c->first_above_ns = now + c->interval_ns;
		return false;
	}
	return now >= c->first_above_ns;
}

static void drop_head(struct wb_txq *q, struct wb_pktbuf_pool *pool)
{
	struct wb_txq_entry e;

	take(q, &e);
	wb_pktbuf_put(pool, e.data);
	q->aqm_drops++;
}

static void codel(struct wb_txq *q, uint64_t now, struct wb_pktbuf_pool *pool)
{
	struct wb_codel *c = &q->codel;
	bool drop = ok_to_drop(q, now);

	if (c->dropping) {
		if (!drop)
			c->dropping = false;
		while (c->dropping && now >= c->drop_next_ns) {
			drop_head(q, pool);
			c->count++;
			if (!ok_to_drop(q, now))
				c->dropping = false;
			else
				c->drop_next_ns = control_law(c, c->drop_next_ns);
		}
	} else if (drop) {
		uint32_t delta = c->count - c->last_count;

		drop_head(q, pool);
		c->dropping = true;
		/* Back into dropping soon after the last time: start from where it was. */
		c->count = delta > 1 && now - c->drop_next_ns < 16 * c->interval_ns ? delta : 1;
		c->drop_next_ns = control_law(c, now);
		c->last_count = c->count;
	}
}

bool wb_txq_pop(struct wb_txq *q, uint64_t now, struct wb_pktbuf_pool *pool, struct wb_txq_entry *out)
{
	if (q->codel.enabled)
		codel(q, now, pool);
	if (!q->n)
		return false;
	take(q, out);
	return true;
}

void wb_txq_set_aqm(struct wb_txq *q, uint64_t target_ns, uint64_t interval_ns, uint64_t hold_ns)
{
	q->codel.target_ns = target_ns;
	q->codel.interval_ns = interval_ns;
	q->codel.hold_ns = hold_ns;
}
