// SPDX-License-Identifier: MIT
#include "pool.h"

#include <stdlib.h>

#define POOL_CHUNK_FRAMES 1024u

void pool_init(struct pool *p, uint32_t frame_size, uint32_t max_frames)
{
	*p = (struct pool){ .frame_size = frame_size, .max_frames = max_frames };
}

void pool_destroy(struct pool *p)
{
	for (uint32_t i = 0; i < p->nchunks; i++)
		free(p->chunks[i]);
	free(p->chunks);
	*p = (struct pool){ 0 };
}

static size_t stride(const struct pool *p)
{
	size_t s = sizeof(struct frame) + p->frame_size;

	return (s + 63) & ~(size_t)63; /* one frame never shares a cache line */
}

static int pool_grow(struct pool *p)
{
	uint32_t n = POOL_CHUNK_FRAMES;
	uint8_t *chunk;

	if (p->allocated + n > p->max_frames)
		n = p->max_frames - p->allocated;
	if (!n)
		return -1;
	if (p->nchunks == p->chunks_cap) {
		uint32_t ncap = p->chunks_cap ? p->chunks_cap * 2 : 16;
		void **nc = realloc(p->chunks, ncap * sizeof(*nc));

		if (!nc)
			return -1;
		p->chunks = nc;
		p->chunks_cap = ncap;
	}
	chunk = aligned_alloc(64, n * stride(p));
	if (!chunk)
		return -1;
	p->chunks[p->nchunks++] = chunk;
	for (uint32_t i = 0; i < n; i++)
		pool_put(p, (struct frame *)(chunk + i * stride(p)));
	p->allocated += n;
	return 0;
}

struct frame *pool_get(struct pool *p)
{
	struct frame *f;

	if (!p->free && pool_grow(p))
		return NULL;
	f = p->free;
	p->free = f->next_free;
	f->len = 0;
	return f;
}

void pool_put(struct pool *p, struct frame *f)
{
	f->next_free = p->free;
	p->free = f;
}
