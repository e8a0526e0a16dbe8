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
	if (!p->free)
		p->free_tail = b;
	p->free = b;
}

/* At the end of the free list: taken only once the others are. */
static void append_free(struct wb_pktbuf_pool *p, uint8_t *b)
{
	static void *const none;

	memcpy(b, &none, sizeof(void *));
	if (p->free_tail)
		memcpy(p->free_tail, &b, sizeof(void *));
	else
		p->free = b;
	p->free_tail = b;
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
	if (!p->free)
		p->free_tail = NULL;
	if (++p->in_use > p->peak)
		p->peak = p->in_use;
	return b;
}

static struct wb_pktbuf_chunk *chunk_of(const struct wb_pktbuf_pool *p, const uint8_t *b);

void wb_pktbuf_put(struct wb_pktbuf_pool *p, uint8_t *b)
{
	/* A draining chunk's buffer waits at the end, so that its chunk empties. */
	if (p->draining && chunk_of(p, b)->state == WB_PKTBUF_DRAIN)
		append_free(p, b);
	else
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

/* The smallest chunk not yet kept, NULL if none is left. */
static struct wb_pktbuf_chunk *smallest_undecided(struct wb_pktbuf_pool *p)
{
	struct wb_pktbuf_chunk *best = NULL;

	for (uint32_t i = 0; i < p->nchunks; i++)
		if (p->chunks[i].state != WB_PKTBUF_KEEP && (!best || p->chunks[i].n < best->n))
			best = &p->chunks[i];
	return best;
}

/*
 * Which chunks stay: the smallest, until they have room for keep buffers
 * (an idle bond's few buffers in use then gather in one small chunk, not
 * in whichever big one they were in); of the others, those unused go now,
 * those with buffers out drain. Returns the buffers that go.
 */
static uint32_t plan(struct wb_pktbuf_pool *p, uint32_t keep)
{
	struct wb_pktbuf_chunk *c;
	uint32_t room = 0, going = 0;

	for (uint32_t i = 0; i < p->nchunks; i++)
		p->chunks[i].state = WB_PKTBUF_DRAIN;
	while (room < keep && (c = smallest_undecided(p))) {
		c->state = WB_PKTBUF_KEEP;
		room += c->n;
	}
	p->draining = 0;
	for (uint32_t i = 0; i < p->nchunks; i++) {
		c = &p->chunks[i];
		if (c->state == WB_PKTBUF_DRAIN && c->n_free == c->n) {
			c->state = WB_PKTBUF_GO;
			going += c->n;
		} else if (c->state == WB_PKTBUF_DRAIN) {
			p->draining++;
		}
	}
	return going;
}

/* The free list again: the kept chunks' buffers first, the draining ones' after, none of those that go. */
static void rebuild_free_list(struct wb_pktbuf_pool *p)
{
	uint8_t *b = p->free, *next;

	p->free = p->free_tail = NULL;
	for (; b; b = next) {
		enum wb_pktbuf_chunk_state st = chunk_of(p, b)->state;

		memcpy(&next, b, sizeof(void *));
		if (st == WB_PKTBUF_KEEP)
			push_free(p, b);
		else if (st == WB_PKTBUF_DRAIN)
			append_free(p, b);
	}
}

static void free_going(struct wb_pktbuf_pool *p)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < p->nchunks; i++) {
		struct wb_pktbuf_chunk *c = &p->chunks[i];

		if (c->state != WB_PKTBUF_GO) {
			p->chunks[kept++] = *c;
			continue;
		}
		p->allocated -= c->n;
		if (p->limit)
			p->limit->allocated -= (uint64_t)c->n * p->slot;
		free(c->mem);
	}
	p->nchunks = kept;
}

/* Busy again: nothing drains (the next trim decides anew). */
static void stop_draining(struct wb_pktbuf_pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		p->chunks[i].state = WB_PKTBUF_KEEP;
	p->draining = 0;
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
	if (p->allocated <= keep) {
		stop_draining(p);
		return 0;
	}
	count_free(p);
	going = plan(p, keep);
	rebuild_free_list(p);
	free_going(p);
	return (uint64_t)going * p->slot;
}

uint64_t wb_pktbuf_deadline(const struct wb_pktbuf_pool *p)
{
	return p->allocated ? p->window_start_ns + WB_PKTBUF_WINDOW_NS : UINT64_MAX;
}
