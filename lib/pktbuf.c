// SPDX-License-Identifier: MIT
#include "pktbuf.h"

#include <stdlib.h>
#include <string.h>

/*
 * Chunks double from CHUNK_MIN buffers to CHUNK_MAX as a pool grows. An idle
 * bond that carries a ping now and then keeps one chunk of 16 (23 KB at the
 * default MTU); a busy one grows in steps of 256 (364 KB): few allocations,
 * so growing costs nothing per packet, and big ones, which malloc serves
 * from mmap, so a chunk freed goes back to the system, not to a heap that
 * may keep it.
 */
#define CHUNK_MIN 16u
#define CHUNK_MAX 256u
#define DROP UINT32_MAX /* n_free of a chunk that wb_pktbuf_trim frees */

void wb_pktbuf_init(struct wb_pktbuf_pool *p, uint32_t slot, uint32_t max)
{
	memset(p, 0, sizeof(*p));
	/* Room for the free-list link, and 16-byte alignment of every buffer. */
	p->slot = ((slot < sizeof(void *) ? (uint32_t)sizeof(void *) : slot) + 15) & ~15u;
	p->max = max;
}

void wb_pktbuf_limit_init(struct wb_pktbuf_limit *l, uint64_t cap)
{
	memset(l, 0, sizeof(*l));
	l->cap = cap;
}

static void limit_add(struct wb_pktbuf_limit *l, uint64_t bytes)
{
	l->allocated += bytes;
	if (l->allocated > l->high_water)
		l->high_water = l->allocated;
}

void wb_pktbuf_attach(struct wb_pktbuf_pool *p, struct wb_pktbuf_limit *l)
{
	p->limit = l;
	l->pools++;
	limit_add(l, wb_pktbuf_memory(p));
}

void wb_pktbuf_destroy(struct wb_pktbuf_pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i].mem);
	free(p->chunks);
	if (p->limit) {
		p->limit->allocated -= wb_pktbuf_memory(p);
		p->limit->pools--;
	}
	memset(p, 0, sizeof(*p));
}

uint64_t wb_pktbuf_memory(const struct wb_pktbuf_pool *p)
{
	return (uint64_t)p->allocated * p->slot;
}

/*
 * Buffers the pool may add now: up to its own max, within the shared cap
 * and, beside other pools, its share: k more only if what it then holds,
 * mine + k slots, stays within what is then left free for the others,
 * left - k slots. *by_limit: the cap or the share is what stops it.
 */
static uint32_t room(const struct wb_pktbuf_pool *p, bool *by_limit)
{
	const struct wb_pktbuf_limit *l = p->limit;
	uint64_t n = p->max - p->allocated, left, mine;

	*by_limit = false;
	if (!l)
		return (uint32_t)n;
	left = l->cap > l->allocated ? l->cap - l->allocated : 0;
	mine = wb_pktbuf_memory(p);
	if (l->pools > 1)
		left = left > mine ? (left - mine) / 2 : 0;
	if (left / p->slot < n) {
		n = left / p->slot;
		*by_limit = true;
	}
	return (uint32_t)n;
}

static uint32_t chunk_size(const struct wb_pktbuf_pool *p)
{
	uint32_t n = CHUNK_MIN;

	for (uint32_t i = 0; i < p->nchunks && n < CHUNK_MAX; i++)
		n *= 2;
	return n;
}

static void push_free(struct wb_pktbuf_pool *p, uint8_t *b)
{
	memcpy(b, &p->free, sizeof(void *));
	p->free = b;
}

/* Room in the chunk table for one more; -1 without memory. */
static int reserve_chunk(struct wb_pktbuf_pool *p)
{
	uint32_t cap = p->chunks_cap ? 2 * p->chunks_cap : 8;
	struct wb_pktbuf_chunk *c;

	if (p->nchunks < p->chunks_cap)
		return 0;
	c = realloc(p->chunks, cap * sizeof(*c));
	if (!c)
		return -1;
	p->chunks = c;
	p->chunks_cap = cap;
	return 0;
}

/* Into the table in address order, which chunk_of searches. */
static void insert_chunk(struct wb_pktbuf_pool *p, uint8_t *mem, uint32_t n)
{
	uint32_t i = p->nchunks++;

	for (; i && p->chunks[i - 1].mem > mem; i--)
		p->chunks[i] = p->chunks[i - 1];
	p->chunks[i] = (struct wb_pktbuf_chunk){ .mem = mem, .n = n };
}

static int grow(struct wb_pktbuf_pool *p)
{
	bool by_limit;
	uint32_t n = room(p, &by_limit);
	uint8_t *chunk;

	if (!n) {
		if (by_limit)
			p->limit->refused++;
		return -1;
	}
	if (n > chunk_size(p))
		n = chunk_size(p);
	if (reserve_chunk(p))
		return -1;
	chunk = aligned_alloc(16, (size_t)n * p->slot);
	if (!chunk)
		return -1;
	insert_chunk(p, chunk, n);
	p->allocated += n;
	if (p->allocated > p->high_water)
		p->high_water = p->allocated;
	if (p->limit)
		limit_add(p->limit, (uint64_t)n * p->slot);
	/* Backwards, so that the buffers go out in address order. */
	for (uint32_t i = n; i-- > 0;)
		push_free(p, chunk + (size_t)i * p->slot);
	return 0;
}

uint8_t *wb_pktbuf_get(struct wb_pktbuf_pool *p)
{
	uint8_t *b;

	if (!p->free && grow(p))
		return NULL;
	b = p->free;
	memcpy(&p->free, b, sizeof(void *));
	if (++p->in_use > p->peak)
		p->peak = p->in_use;
	return b;
}

void wb_pktbuf_put(struct wb_pktbuf_pool *p, uint8_t *b)
{
	push_free(p, b);
	p->in_use--;
}

bool wb_pktbuf_available(const struct wb_pktbuf_pool *p)
{
	bool by_limit;

	return p->free || room(p, &by_limit) > 0;
}

/* ---- giving memory back ------------------------------------------------------------ */

/* The chunk that holds buffer b: the last one that starts at or below it. */
static struct wb_pktbuf_chunk *chunk_of(const struct wb_pktbuf_pool *p, const uint8_t *b)
{
	uint32_t lo = 0, hi = p->nchunks;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->chunks[mid].mem <= b)
			lo = mid;
		else
			hi = mid;
	}
	return &p->chunks[lo];
}

static void count_free(struct wb_pktbuf_pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		p->chunks[i].n_free = 0;
	for (uint8_t *b = p->free; b; memcpy(&b, b, sizeof(void *)))
		chunk_of(p, b)->n_free++;
}

/*
 * Marks the chunks to free, largest first (what stays is then the small
 * chunks an idle bond needs), while what remains still holds keep.
 * Returns how many buffers go.
 */
static uint32_t mark_unused(struct wb_pktbuf_pool *p, uint32_t keep)
{
	uint32_t left = p->allocated;

	for (;;) {
		struct wb_pktbuf_chunk *best = NULL;

		for (uint32_t i = 0; i < p->nchunks; i++) {
			struct wb_pktbuf_chunk *c = &p->chunks[i];

			if (c->n_free == c->n && left - c->n >= keep && (!best || c->n > best->n))
				best = c;
		}
		if (!best)
			return p->allocated - left;
		best->n_free = DROP;
		left -= best->n;
	}
}

/* The free list without the buffers of the marked chunks; then those chunks freed. */
static void free_marked(struct wb_pktbuf_pool *p)
{
	uint8_t *b = p->free, *next;
	uint32_t kept = 0;

	p->free = NULL;
	for (; b; b = next) {
		memcpy(&next, b, sizeof(void *));
		if (chunk_of(p, b)->n_free != DROP)
			push_free(p, b);
	}
	for (uint32_t i = 0; i < p->nchunks; i++) {
		if (p->chunks[i].n_free == DROP) {
			p->allocated -= p->chunks[i].n;
			if (p->limit)
				p->limit->allocated -= (uint64_t)p->chunks[i].n * p->slot;
			free(p->chunks[i].mem);
		} else {
			p->chunks[kept++] = p->chunks[i];
		}
	}
	p->nchunks = kept;
}

uint64_t wb_pktbuf_trim(struct wb_pktbuf_pool *p, uint64_t now)
{
	uint32_t keep, going;

	if (now < p->window_start_ns + WB_PKTBUF_WINDOW_NS)
		return 0;
	/* A new window: what the one just over needed is kept one more window. */
	p->last_peak = p->peak;
	p->peak = p->in_use;
	p->window_start_ns = now;
	keep = p->last_peak > p->peak ? p->last_peak : p->peak;
	if (p->allocated <= keep)
		return 0;
	count_free(p);
	going = mark_unused(p, keep);
	if (going)
		free_marked(p);
	return (uint64_t)going * p->slot;
}

uint64_t wb_pktbuf_deadline(const struct wb_pktbuf_pool *p)
{
	return p->allocated ? p->window_start_ns + WB_PKTBUF_WINDOW_NS : UINT64_MAX;
}
