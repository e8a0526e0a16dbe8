/* SPDX-License-Identifier: MIT */
/*
 * One direction of an emulated link, as a pure model (time is an argument):
 *
 *   arrival -> drop-tail queue -> bottleneck (rate or trace) -> loss
 *           -> propagation delay + jitter -> delivery
 *
 * A packet lost on the wire has used its transmission slot, as a corrupted
 * frame does on a real link: loss never frees capacity. Delivery keeps the
 * order of arrival unless reordering is allowed. The emulator and the
 * simulator both drive this model; packets are opaque pointers to it.
 */
#ifndef LINKEM_LINKDIR_H
#define LINKEM_LINKDIR_H

#include <stdbool.h>
#include <stdint.h>

#include "loss.h"
#include "prng.h"
#include "shaper.h"
#include "trace.h"

/* Nothing grows past this many packets per direction (queue or delay line). */
#define LINKDIR_MAX_PACKETS (1u << 20)

enum limit_kind {
	LIMIT_PACKETS,
	LIMIT_BYTES,
	LIMIT_TIME, /* bytes the bottleneck sends in that time */
};

struct queue_limit {
	enum limit_kind kind;
	uint64_t value; /* packets, bytes or ns */
};

struct linkdir_params {
	uint64_t rate_bps;    /* 0: unlimited */
	uint64_t delay_ns;
	uint64_t jitter_ns;   /* each packet's delay is uniform in delay +- jitter */
	bool reorder;         /* let jitter reorder packets */
	struct loss_params loss;
	struct queue_limit limit;
	uint32_t overhead;    /* bytes added to each packet's size on the bottleneck */
	uint32_t mtu;         /* 0: none; a larger packet vanishes, as on a path that drops it without a word */
	/*
	 * Periodic outages (0: none): the last outage_len_ns of every
	 * outage_every_ns from the start the link carries nothing, as a
	 * satellite link between two satellites. A packet that arrives then,
	 * or would leave the bottleneck then, is lost.
	 */
	uint64_t outage_every_ns, outage_len_ns;
	const struct trace *trace; /* set: trace mode (rate_bps unused) */
};

struct linkdir_stats {
	uint64_t in_pkts, in_bytes;
	uint64_t out_pkts, out_bytes;
	uint64_t loss_drops;
	uint64_t queue_drops;
	uint64_t overflow_drops; /* LINKDIR_MAX_PACKETS reached */
	uint64_t mtu_drops;      /* larger than the mtu parameter */
	uint64_t outage_drops;   /* arrived, or would have left, during an outage */
	uint64_t max_queue_pkts, max_queue_bytes;
	uint64_t max_queue_delay_ns; /* longest wait before a packet started to leave */
};

enum linkdir_verdict {
	LINKDIR_QUEUED,
	LINKDIR_DROP_LOSS,
	LINKDIR_DROP_QUEUE,
	LINKDIR_DROP_OVERFLOW,
	LINKDIR_DROP_MTU,
	LINKDIR_DROP_OUTAGE,
};

struct linkdir_departure {
	uint64_t at;
	uint32_t bytes;
};

struct linkdir_flight {
	uint64_t at;  /* delivery time */
	uint64_t seq; /* arrival order, breaks ties so equal times stay FIFO */
	void *pkt;
	uint32_t bytes;
};

struct linkdir {
	struct linkdir_params params;
	uint64_t t0;           /* the start of time: of the trace, and of the outages' period */
	uint64_t limit_bytes;  /* LIMIT_BYTES and LIMIT_TIME, resolved */
	struct shaper shaper;
	struct loss_state loss;
	struct prng rng;

	/* Packets in the bottleneck (waiting or leaving), in departure order. */
	struct linkdir_departure *queue;
	uint32_t queue_cap, queue_head, queue_len;
	uint64_t queue_bytes;

	/* Packets past the bottleneck, a min-heap on delivery time. */
	struct linkdir_flight *flight;
	uint32_t flight_cap, flight_len;
	uint64_t last_delivery, next_seq;

	struct linkdir_stats stats;
};

/* t0: the start of time for trace mode and outages. Returns 0 or -ENOMEM. */
int linkdir_init(struct linkdir *d, const struct linkdir_params *p, uint64_t seed, uint64_t t0);
void linkdir_free(struct linkdir *d);

/*
 * Offer a packet of bytes (its size on the link, before overhead) at now.
 * LINKDIR_QUEUED: the model now owns pkt until linkdir_pop_due returns it;
 * any other verdict: the packet is dropped and the caller keeps it.
 */
enum linkdir_verdict linkdir_enqueue(struct linkdir *d, uint64_t now, uint32_t bytes, void *pkt);

/* The next packet due for delivery at now, or NULL. Counts it as out. */
void *linkdir_pop_due(struct linkdir *d, uint64_t now);

/* When the next delivery is due, UINT64_MAX if nothing is in flight. */
uint64_t linkdir_next_due(const struct linkdir *d);

/* Packets the model holds (queued or in flight). */
uint32_t linkdir_held(const struct linkdir *d);

/* Whether the link is in one of its periodic outages at t. */
bool linkdir_in_outage(const struct linkdir *d, uint64_t t);

/* Hand back every held packet (for teardown): returns NULL when empty. */
void *linkdir_drain(struct linkdir *d);

#endif
