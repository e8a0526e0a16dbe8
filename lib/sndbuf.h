/* SPDX-License-Identifier: MIT */
/*
 * The bond's send buffer: every IP packet given a DSN and not yet covered by
 * the peer's cumulative bond ack, kept for resending, with which uplinks
 * hold a copy in flight, and a queue of the DSNs to resend (lowest first).
 * Its size counts against the peer's receive window and its own limit, in
 * window units (wb_window_bytes): small packets count as 256 bytes, so a
 * window in bytes also bounds the packets the receiver may have to hold.
 */
#ifndef WB_SNDBUF_H
#define WB_SNDBUF_H

#include <stdbool.h>
#include <stdint.h>

#include "pktbuf.h"

#define WB_WINDOW_MIN_UNIT 256
#define WB_SNDBUF_MAX_PACKETS (1u << 20)

static inline uint64_t wb_window_bytes(uint32_t len)
{
	return len < WB_WINDOW_MIN_UNIT ? WB_WINDOW_MIN_UNIT : len;
}

enum wb_sndbuf_flags {
	WB_SND_DELIVERED = 1, /* the peer has it: an uplink acked a packet carrying it, or a SACK */
	WB_SND_RETX_QUEUED = 2,
	WB_SND_INTERACTIVE = 4, /* of the interactive class: its copies go as it did */
	WB_SND_UNORDERED = 8,   /* sent in WB_FRAME_DATA_UNORDERED: the receiver delivers it on arrival */
};

struct wb_sndbuf_entry {
	uint8_t *data;
	uint16_t len;
	uint16_t holders;  /* uplinks with a copy in flight, a bit per uplink id */
	uint16_t lost_on;  /* uplinks that lost a copy: a resend avoids them if it can */
	uint8_t flags;
	uint8_t sends;     /* copies sent so far */
	uint64_t first_sent_ns;
};

struct wb_sndbuf {
	struct wb_sndbuf_entry *ring;
	uint32_t cap;      /* a power of two */
	uint64_t una, nxt; /* entries are DSNs [una, nxt) */
	uint64_t bytes;    /* window units of the entries */
	uint64_t *retx;    /* min-heap of DSNs to resend */
	uint32_t retx_n, retx_cap;
};

int wb_sndbuf_init(struct wb_sndbuf *s);
void wb_sndbuf_free(struct wb_sndbuf *s, struct wb_pktbuf_pool *pool);
/* Drops every entry and numbers from DSN 0 again (the peer restarted). Returns the entries dropped. */
uint64_t wb_sndbuf_restart(struct wb_sndbuf *s, struct wb_pktbuf_pool *pool);

/* The entry of a DSN still in the buffer, else NULL. */
struct wb_sndbuf_entry *wb_sndbuf_get(const struct wb_sndbuf *s, uint64_t dsn);

/* Takes a packet (a buffer of the pool) as the next DSN. -ENOSPC at the packet limit. */
int wb_sndbuf_push(struct wb_sndbuf *s, uint8_t *data, uint16_t len, uint64_t *dsn);

/* The peer delivered (or skipped) everything below cum: frees it. Returns the entries freed. */
uint64_t wb_sndbuf_ack_cum(struct wb_sndbuf *s, uint64_t cum, struct wb_pktbuf_pool *pool);

void wb_sndbuf_mark_delivered(struct wb_sndbuf *s, uint64_t dsn);

/* Queues a DSN for resending, unless it is gone, delivered or queued already. */
void wb_sndbuf_queue_retx(struct wb_sndbuf *s, uint64_t dsn);

/* The lowest DSN to resend (stale ones dropped on the way), or UINT64_MAX. Stays queued until popped. */
uint64_t wb_sndbuf_peek_retx(struct wb_sndbuf *s);
void wb_sndbuf_pop_retx(struct wb_sndbuf *s);

#endif
