/* SPDX-License-Identifier: MIT */
/*
 * Buffers for IP packets the bond keeps: waiting to be sent, sent and not yet
 * acknowledged, or held out of order by the receiver. Fixed-size slots from
 * chunks allocated as needed and reused through a free list, up to a limit:
 * nothing is allocated per packet once a bond has reached its working size.
 */
#ifndef WB_PKTBUF_H
#define WB_PKTBUF_H

#include <stdint.h>

struct wb_pktbuf_pool {
	uint32_t slot;     /* bytes of packet per buffer */
	uint32_t max;      /* buffers at most */
	uint32_t allocated, in_use;
	void *free;        /* free list, linked through the buffers themselves */
	void **chunks;
	uint32_t nchunks, chunks_cap;
};

void wb_pktbuf_init(struct wb_pktbuf_pool *p, uint32_t slot, uint32_t max);
void wb_pktbuf_destroy(struct wb_pktbuf_pool *p);
/* A buffer of p->slot bytes, or NULL at the limit or without memory. */
uint8_t *wb_pktbuf_get(struct wb_pktbuf_pool *p);
void wb_pktbuf_put(struct wb_pktbuf_pool *p, uint8_t *buf);
/* Bytes the pool has allocated, for the memory a bond reports. */
uint64_t wb_pktbuf_memory(const struct wb_pktbuf_pool *p);

#endif
