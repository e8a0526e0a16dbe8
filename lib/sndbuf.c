// SPDX-License-Identifier: MIT
#include "sndbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_CAP 1024

int wb_sndbuf_init(struct wb_sndbuf *s)
{
	memset(s, 0, sizeof(*s));
	s->ring = calloc(INITIAL_CAP, sizeof(*s->ring));
	if (!s->ring)
		return -ENOMEM;
	s->cap = INITIAL_CAP;
	return 0;
}

void wb_sndbuf_free(struct wb_sndbuf *s, struct wb_pktbuf_pool *pool)
{
	if (s->ring)
		wb_sndbuf_ack_cum(s, s->nxt, pool);
	free(s->ring);
	free(s->retx);
	memset(s, 0, sizeof(*s));
}

uint64_t wb_sndbuf_restart(struct wb_sndbuf *s, struct wb_pktbuf_pool *pool)
{
	uint64_t dropped = wb_sndbuf_ack_cum(s, s->nxt, pool);

	memset(s->ring, 0, s->cap * sizeof(*s->ring));
	s->una = s->nxt = 0;
	s->retx_n = 0;
	return dropped;
}

struct wb_sndbuf_entry *wb_sndbuf_get(const struct wb_sndbuf *s, uint64_t dsn)
{
	return dsn >= s->una && dsn < s->nxt ? &s->ring[dsn & (s->cap - 1)] : NULL;
}

static int grow(struct wb_sndbuf *s)
{
	uint32_t cap = s->cap * 2;
	struct wb_sndbuf_entry *ring;

	if (cap > WB_SNDBUF_MAX_PACKETS)
		return -ENOSPC;
	ring = calloc(cap, sizeof(*ring));
	if (!ring)
		return -ENOMEM;
	for (uint64_t d = s->una; d < s->nxt; d++)
		ring[d & (cap - 1)] = s->ring[d & (s->cap - 1)];
	free(s->ring);
	s->ring = ring;
	s->cap = cap;
	return 0;
}

int wb_sndbuf_push(struct wb_sndbuf *s, uint8_t *data, uint16_t len, uint64_t *dsn)
{
	int rc;

	if (s->nxt - s->una == s->cap && (rc = grow(s)))
		return rc;
	s->ring[s->nxt & (s->cap - 1)] = (struct wb_sndbuf_entry){ .data = data, .len = len };
	s->bytes += wb_window_bytes(len);
	*dsn = s->nxt++;
	return 0;
}

uint64_t wb_sndbuf_ack_cum(struct wb_sndbuf *s, uint64_t cum, struct wb_pktbuf_pool *pool)
{
	uint64_t freed = 0;

	if (cum > s->nxt)
		cum = s->nxt;
	for (; s->una < cum; s->una++, freed++) {
		struct wb_sndbuf_entry *e = &s->ring[s->una & (s->cap - 1)];

		s->bytes -= wb_window_bytes(e->len);
		wb_pktbuf_put(pool, e->data);
		e->data = NULL;
	}
	return freed;
}

void wb_sndbuf_mark_delivered(struct wb_sndbuf *s, uint64_t dsn)
{
	struct wb_sndbuf_entry *e = wb_sndbuf_get(s, dsn);

	if (e)
		e->flags |= WB_SND_DELIVERED;
}

static void heap_swap(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

void wb_sndbuf_queue_retx(struct wb_sndbuf *s, uint64_t dsn)
{
	struct wb_sndbuf_entry *e = wb_sndbuf_get(s, dsn);
	uint32_t i;

	if (!e || (e->flags & (WB_SND_DELIVERED | WB_SND_RETX_QUEUED)))
		return;
	if (s->retx_n == s->retx_cap) {
		uint32_t cap = s->retx_cap ? 2 * s->retx_cap : 64;
		uint64_t *h = realloc(s->retx, cap * sizeof(*h));

		if (!h)
			return; /* the bond timeout will resend it */
		s->retx = h;
		s->retx_cap = cap;
	}
	e->flags |= WB_SND_RETX_QUEUED;
	i = s->retx_n++;
	s->retx[i] = dsn;
	while (i && s->retx[i] < s->retx[(i - 1) / 2]) {
		heap_swap(&s->retx[i], &s->retx[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

void wb_sndbuf_pop_retx(struct wb_sndbuf *s)
{
	struct wb_sndbuf_entry *e;
	uint32_t i = 0;

	if (!s->retx_n)
		return;
	e = wb_sndbuf_get(s, s->retx[0]);
	if (e)
		e->flags &= (uint8_t)~WB_SND_RETX_QUEUED;
	s->retx[0] = s->retx[--s->retx_n];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < s->retx_n && s->retx[l] < s->retx[m])
			m = l;
		if (r < s->retx_n && s->retx[r] < s->retx[m])
			m = r;
		if (m == i)
			break;
		heap_swap(&s->retx[i], &s->retx[m]);
		i = m;
	}
}

uint64_t wb_sndbuf_peek_retx(struct wb_sndbuf *s)
{
	while (s->retx_n) {
		struct wb_sndbuf_entry *e = wb_sndbuf_get(s, s->retx[0]);

		if (e && !(e->flags & WB_SND_DELIVERED))
			return s->retx[0];
		wb_sndbuf_pop_retx(s);
	}
	return UINT64_MAX;
}
