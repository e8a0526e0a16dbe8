/* SPDX-License-Identifier: MIT */
/*
 * The receiving side of one uplink's acks: which packet numbers arrived, and
 * when an ack is due. An ack goes out after every second ack-eliciting
 * packet, at once on reordering or a gap (loss detection wants it fast), or
 * at the latest WB_MAX_ACK_DELAY after the first packet it has not acked.
 */
#ifndef WB_ACKGEN_H
#define WB_ACKGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "nsec.h"

#define WB_MAX_ACK_DELAY_NS (5 * WB_NSEC_PER_MSEC)
#define WB_ACK_EVERY 2

struct wb_ackgen {
	struct wb_range r[WB_ACK_MAX_RANGES]; /* received, descending */
	unsigned n;
	uint64_t largest_at_ns;   /* when the largest arrived, for the ack delay */
	unsigned unacked;         /* ack-eliciting packets not acked yet */
	uint64_t deadline_ns;     /* an ack is due then (0: none) */
	bool changed;             /* something to ack since the last ack */
};

void wb_ackgen_init(struct wb_ackgen *g);

/* A packet arrived. Returns false for one already seen (a duplicate). */
bool wb_ackgen_on_packet(struct wb_ackgen *g, uint64_t pn, bool ack_eliciting, bool urgent, uint64_t now);

/* An ack is worth sending now (piggybacked or alone). */
bool wb_ackgen_due(const struct wb_ackgen *g, uint64_t now);
/* Any ack at all is waiting (send one if a packet leaves anyway). */
bool wb_ackgen_pending(const struct wb_ackgen *g);

/* The ack as it stands now (nothing changes: see wb_ackgen_sent). */
void wb_ackgen_build(const struct wb_ackgen *g, uint64_t now, struct wb_ack *out);
/* The ack built went out. */
void wb_ackgen_sent(struct wb_ackgen *g);

#endif
