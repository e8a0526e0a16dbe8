/* SPDX-License-Identifier: MIT */
/*
 * The receiver's reorder buffer: packets that arrived ahead of a missing DSN
 * wait here, and leave in DSN order as soon as the gap fills. It is bounded
 * in window units (the receive window the sender respects) and in slots. A
 * gap is held at most the hold time after the first packet that waits
 * behind it arrived; then it is skipped, counted, and delivery goes on, so a
 * dead uplink never stalls the inner flows for long.
 */
#ifndef WB_REORDER_H
#define WB_REORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "frame.h"
#include "pktbuf.h"

struct wb_reorder_slot {
	uint8_t *data; /* NULL: empty, unless delivered_early */
	uint64_t dsn;
	uint64_t arrived_ns;
	uint16_t len;
	/*
	 * An unordered packet delivered when it arrived, ahead of a gap: the
	 * slot only marks its DSN as received (acked, a copy a duplicate)
	 * until delivery in order passes it.
	 */
	bool delivered_early;
};

typedef void (*wb_deliver_fn)(void *ctx, const uint8_t *ip, size_t len);

struct wb_reorder {
	struct wb_reorder_slot *ring;
	uint32_t cap;            /* a power of two; DSNs nxt .. nxt + cap - 1 fit */
	uint64_t nxt;            /* the next DSN to deliver: every one below is delivered or skipped */
	uint64_t capacity;       /* window units the buffer may hold */
	uint64_t held_bytes;
	uint32_t held;           /* packets held and marks of packets delivered early */
	uint32_t marked;         /* ... the marks among them */
	/*
	 * The lowest held ranges, ascending, kept as packets come and go: the
	 * bond ack's SACK, and the lowest packet held, without walking the ring.
	 * Ranges above the last slot are left out (a report, not the truth: the
	 * ring is); the list is rebuilt by a walk in the rare case it runs dry.
	 */
	struct wb_range held_ranges[WB_BOND_ACK_MAX_SACKS];
	unsigned n_ranges;
	uint64_t listed_below;   /* every held DSN below this is in the list (UINT64_MAX: all of them) */
	uint64_t delivered, skipped, duplicates, beyond_window, no_buffer;
	uint64_t delivered_early; /* unordered packets delivered ahead of a gap (counted in delivered too) */
	uint64_t max_held_bytes;
};

int wb_reorder_init(struct wb_reorder *r, uint64_t capacity);
void wb_reorder_free(struct wb_reorder *r, struct wb_pktbuf_pool *pool);
/* Drops what is held and expects DSN 0 next (the peer restarted); the counts go on. Returns the packets dropped. */
uint32_t wb_reorder_restart(struct wb_reorder *r, struct wb_pktbuf_pool *pool);

enum wb_reorder_result {
	WB_REORDER_DELIVERED,   /* in order: delivered with whatever it unblocked */
	WB_REORDER_HELD,
	WB_REORDER_DUPLICATE,   /* delivered (or skipped) before, or held already */
	WB_REORDER_NO_ROOM,     /* beyond the window */
	WB_REORDER_NO_BUFFER,   /* within it, but the pool gave no buffer (its size, the device's cap or the bond's share) */
};

enum wb_reorder_result wb_reorder_receive(struct wb_reorder *r, uint64_t dsn, const uint8_t *ip, uint16_t len,
					  uint64_t now, struct wb_pktbuf_pool *pool, wb_deliver_fn deliver, void *ctx);

/*
 * A packet of a class that needs no order: delivered at once, unless it is
 * a duplicate, and marked as received so that its DSN counts for the bond
 * ack and a later copy is known. Never held behind a gap, and it never
 * holds anything. Results as wb_reorder_receive (never HELD: DELIVERED).
 */
enum wb_reorder_result wb_reorder_receive_unordered(struct wb_reorder *r, uint64_t dsn, const uint8_t *ip,
						    uint16_t len, uint64_t now, struct wb_pktbuf_pool *pool,
						    wb_deliver_fn deliver, void *ctx);

/* When the gap must be skipped, UINT64_MAX if nothing waits. */
uint64_t wb_reorder_deadline(const struct wb_reorder *r, uint64_t hold_ns);

/* Skips the gap if it has been held hold_ns: delivers what then is in order. */
void wb_reorder_skip_due(struct wb_reorder *r, uint64_t now, uint64_t hold_ns, struct wb_pktbuf_pool *pool,
			 wb_deliver_fn deliver, void *ctx);

/* The bond ack for the present state: cum, window, and the held ranges (lowest first). */
void wb_reorder_ack(const struct wb_reorder *r, struct wb_bond_ack *out);

#endif
