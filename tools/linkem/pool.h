/* SPDX-License-Identifier: MIT */
/*
 * Fixed-size frame buffers for the emulator, allocated in chunks as the
 * delay line fills and reused through a free list: nothing is allocated per
 * packet once the pool has grown to the link's bandwidth-delay product.
 */
#ifndef LINKEM_POOL_H
#define LINKEM_POOL_H

#include <stdint.h>

struct frame {
	struct frame *next_free;
	uint32_t len;
	uint8_t data[];
};

struct pool {
	uint32_t frame_size; /* bytes of data per frame */
	uint32_t max_frames;
	uint32_t allocated;
	struct frame *free;
	void **chunks;
	uint32_t nchunks, chunks_cap;
};

void pool_init(struct pool *p, uint32_t frame_size, uint32_t max_frames);
void pool_destroy(struct pool *p);

/* NULL when max_frames are in use or memory ran out. */
struct frame *pool_get(struct pool *p);
void pool_put(struct pool *p, struct frame *f);

#endif
