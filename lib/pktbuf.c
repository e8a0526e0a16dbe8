// SPDX-License-Identifier: MIT
#include "pktbuf.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK 256

void wb_pktbuf_init(struct wb_pktbuf_pool *p, uint32_t slot, uint32_t max)
{
	memset(p, 0, sizeof(*p));
	/* Room for the free-list link, and 16-byte alignment of every buffer. */
	p->slot = ((slot < sizeof(void *) ? (uint32_t)sizeof(void *) : slot) + 15) & ~15u;
	p->max = max;
}

void wb_pktbuf_destroy(struct wb_pktbuf_pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	memset(p, 0, sizeof(*p));
}

static int grow(struct wb_pktbuf_pool *p)
{
	uint32_t n = p->max - p->allocated < CHUNK ? p->max - p->allocated : CHUNK;
	uint8_t *chunk;

	if (!n)
		return -1;
	if (p->nchunks == p->chunks_cap) {
		uint32_t cap = p->chunks_cap ? 2 * p->chunks_cap : 8;
		void **c = realloc(p->chunks, cap * sizeof(*c));

		if (!c)
			return -1;
		p->chunks = c;
		p->chunks_cap = cap;
	}
	chunk = aligned_alloc(16, (size_t)n * p->slot);
	if (!chunk)
		return -1;
	p->chunks[p->nchunks++] = chunk;
	p->allocated += n;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t *b = chunk + (size_t)i * p->slot;

		memcpy(b, &p->free, sizeof(void *));
		p->free = b;
	}
	return 0;
}

uint8_t *wb_pktbuf_get(struct wb_pktbuf_pool *p)
{
	uint8_t *b;

	if (!p->free && grow(p))
		return NULL;
	b = p->free;
	memcpy(&p->free, b, sizeof(void *));
	p->in_use++;
	return b;
}

void wb_pktbuf_put(struct wb_pktbuf_pool *p, uint8_t *b)
{
	memcpy(b, &p->free, sizeof(void *));
	p->free = b;
	p->in_use--;
}

uint64_t wb_pktbuf_memory(const struct wb_pktbuf_pool *p)
{
	return (uint64_t)p->allocated * p->slot;
}
