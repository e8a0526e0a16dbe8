/* SPDX-License-Identifier: MIT */
/*
 * The bottleneck of one link direction: when does a packet finish leaving?
 *
 * Departure-time scheduling rather than a token bucket: each packet's
 * departure is computed once, on arrival, from the departure of the one
 * before it. A late wake-up of the emulator then delays packets but never
 * lowers the rate, and a FIFO queue needs no per-tick work.
 *
 * Two modes: a fixed bit rate, or the delivery opportunities of a trace.
 */
#ifndef LINKEM_SHAPER_H
#define LINKEM_SHAPER_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

struct shaper {
	uint64_t rate_bps;        /* 0: no serialisation delay */
	const struct trace *trace; /* set: trace mode, rate_bps is ignored */
	uint64_t t0;              /* time at which the trace starts */
	uint64_t busy_until;      /* when the last accepted packet finishes */
	uint64_t opp;             /* trace: opportunity serving the last packet */
	uint32_t opp_left;        /* trace: bytes left in that opportunity */
	bool started;             /* trace: opp is meaningful (a packet was accepted) */
};

void shaper_init_rate(struct shaper *s, uint64_t rate_bps);
void shaper_init_trace(struct shaper *s, const struct trace *t, uint64_t t0);

/* Serialisation time of bytes at the configured rate, in ns (rate mode). */
uint64_t shaper_tx_time(uint64_t rate_bps, uint64_t bytes);

/*
 * Accept a packet of the given size arriving at now; returns the time its
 * last byte leaves. Times are in ns and must not go back between calls.
 */
uint64_t shaper_depart(struct shaper *s, uint64_t now, uint32_t bytes);

/* Mean rate in bits per second (the trace's mean in trace mode). */
uint64_t shaper_mean_rate(const struct shaper *s);

#endif
