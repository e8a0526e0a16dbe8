/* SPDX-License-Identifier: MIT */
/*
 * Buffers for IP packets the bond keeps: waiting to be sent, sent and not yet
 * acknowledged, or held out of order by the receiver. Fixed-size slots from
 * chunks allocated as needed and reused through a free list, up to a limit:
 * nothing is allocated per packet once a bond has reached its working size.
 *
 * Memory goes back when it is no longer needed: a pool keeps what its
 * busiest moment of the last one or two windows (WB_PKTBUF_WINDOW_NS) held,
 * its low-water mark, in its smallest chunks, and frees the others
 * (wb_pktbuf_trim): at once those unused, and those with buffers still out
 * once they are all back. Until then they drain: their buffers go back to
 * the end of the free list, so what is taken comes from the chunks kept.
 *
 * The pools of one device may share a limit (struct wb_pktbuf_limit): the
 * bytes all of them together may allocate, and, with more than one pool, a
 * share per pool (a dynamic threshold, as switches share a packet memory
 * between ports): a pool may grow only while it would still hold no more
 * than the limit leaves free for the others. One pool alone gets half the
 * cap, n busy ones 1/(n+1) each, and there is always room left for one
 * more: a busy bond cannot starve another, nor all of them the device.
 */
#ifndef WB_PKTBUF_H
#define WB_PKTBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "nsec.h"

/* A window of use: a pool keeps the most it held in this window and the one before. */
#define WB_PKTBUF_WINDOW_NS (5 * WB_NSEC_PER_SEC)

/* What the pools of one device may hold together. */
struct wb_pktbuf_limit {
	uint64_t cap;        /* bytes of buffers all the pools may allocate together; UINT64_MAX: no cap */
	uint64_t allocated;  /* bytes they have allocated now */
	uint64_t high_water; /* the most they had allocated at once */
	uint64_t refused;    /* buffers refused at the cap or at a pool's share */
	unsigned pools;      /* pools attached; with more than one each keeps to its share */
};

enum wb_pktbuf_chunk_state {
	WB_PKTBUF_KEEP,    /* in use as any other */
	WB_PKTBUF_DRAIN,   /* to be freed when all its buffers are back: they go to the end of the free list */
	WB_PKTBUF_GO,      /* freed by the trim under way */
};

struct wb_pktbuf_chunk {
	uint8_t *mem;
	uint32_t n;        /* buffers in it */
	uint32_t n_free;   /* scratch of wb_pktbuf_trim */
	enum wb_pktbuf_chunk_state state;
};

struct wb_pktbuf_pool {
	uint32_t slot;     /* bytes of packet per buffer */
	uint32_t max;      /* buffers at most */
	uint32_t allocated, in_use;
	uint32_t high_water; /* the most buffers allocated at once */
	void *free, *free_tail; /* free list, linked through the buffers themselves */
	struct wb_pktbuf_chunk *chunks; /* by address, for finding a buffer's chunk */
	uint32_t nchunks, chunks_cap;
	uint32_t draining; /* chunks in state WB_PKTBUF_DRAIN */
	struct wb_pktbuf_limit *limit;  /* shared with the device's other pools; NULL: none */
	/* The most buffers in use in the current window and in the one before it. */
	uint64_t window_start_ns;
	uint32_t peak, last_peak;
};

void wb_pktbuf_init(struct wb_pktbuf_pool *p, uint32_t slot, uint32_t max);
/* Frees every chunk (buffers still out included) and leaves the limit. */
void wb_pktbuf_destroy(struct wb_pktbuf_pool *p);
/* Makes the pool count against a shared limit (before or after it allocated anything). */
void wb_pktbuf_attach(struct wb_pktbuf_pool *p, struct wb_pktbuf_limit *l);
/* A limit of cap bytes, UINT64_MAX for none, with no pool yet. */
void wb_pktbuf_limit_init(struct wb_pktbuf_limit *l, uint64_t cap);
/* A buffer of p->slot bytes, or NULL at the pool's limit, the shared cap or its share, or without memory. */
uint8_t *wb_pktbuf_get(struct wb_pktbuf_pool *p);
void wb_pktbuf_put(struct wb_pktbuf_pool *p, uint8_t *buf);
/* Whether a get would find a buffer now. */
bool wb_pktbuf_available(const struct wb_pktbuf_pool *p);
/* Bytes the pool has allocated, for the memory a bond reports. */
uint64_t wb_pktbuf_memory(const struct wb_pktbuf_pool *p);

/*
 * Closes the window of use when it is over, and then frees the chunks beyond
 * the low-water mark (the most in use in this window and the last), whole
 * and unused, and drains those with buffers out. Returns the bytes freed.
 */
uint64_t wb_pktbuf_trim(struct wb_pktbuf_pool *p, uint64_t now);
/* When wb_pktbuf_trim next has work: the window's end while the pool holds memory, else UINT64_MAX. */
uint64_t wb_pktbuf_deadline(const struct wb_pktbuf_pool *p);

#endif
