/* SPDX-License-Identifier: MIT */
/*
 * IP packets taken from the TUN device that no uplink could take yet, first
 * in first out, with CoDel (RFC 8289) at the head: when packets have waited
 * longer than the target for a whole interval, the head is dropped, and
 * again at intervals that shrink with the square root of the drops. So
 * inner TCP flows get their congestion signal, and the tunnel adds no
 * standing queue of its own. A packet dropped here never had a DSN: the
 * receiver waits for nothing.
 */
#ifndef WB_TXQ_H
#define WB_TXQ_H

#include <stdbool.h>
#include <stdint.h>

#include "pktbuf.h"

struct wb_txq_entry {
	uint8_t *data;
	uint16_t len;
	uint64_t enqueued_ns;
};

struct wb_codel {
	bool enabled;
	uint64_t target_ns, interval_ns;
	uint64_t first_above_ns, drop_next_ns;
	uint32_t count, last_count;
	bool dropping;
	/*
	 * The queue is the tunnel's own, not the inner flows' doing (its
	 * uplinks still ramping up, or one of them in an outage): a packet
	 * that waited less than this is not judged. 0: CoDel as ever.
	 */
	uint64_t hold_ns;
};

struct wb_txq {
	struct wb_txq_entry *ring;
	uint32_t cap, head, n;
	uint64_t bytes, limit;    /* window units (wb_window_bytes) */
	struct wb_codel codel;
	uint64_t aqm_drops, tail_drops;
	uint32_t mtu;             /* CoDel never drops the last packet of a queue under one MTU */
};

int wb_txq_init(struct wb_txq *q, uint64_t limit, uint32_t mtu, bool aqm, uint64_t target_ns, uint64_t interval_ns);
void wb_txq_free(struct wb_txq *q, struct wb_pktbuf_pool *pool);

/*
 * CoDel's judgement for the next packets: its target, its interval (the
 * inner flows' round trip) and how long a packet may wait unjudged (hold_ns).
 */
void wb_txq_set_aqm(struct wb_txq *q, uint64_t target_ns, uint64_t interval_ns, uint64_t hold_ns);

/* Appends a packet; false (nothing changed) when it would go past the limit. */
bool wb_txq_push(struct wb_txq *q, uint8_t *data, uint16_t len, uint64_t now);

/* The packet at the head, without taking it, or NULL. */
const struct wb_txq_entry *wb_txq_peek(const struct wb_txq *q);

/*
 * Takes the head for sending, first letting CoDel drop what it will (those
 * buffers go back to the pool). false when the queue ran empty.
 */
bool wb_txq_pop(struct wb_txq *q, uint64_t now, struct wb_pktbuf_pool *pool, struct wb_txq_entry *out);

/* Room for a packet of len bytes. */
bool wb_txq_has_room(const struct wb_txq *q, uint32_t len);

#endif
