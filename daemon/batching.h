/* SPDX-License-Identifier: MIT */
/*
 * How long the event loop holds before it waits again (loop.h hold_ns), as
 * a network card moderates its interrupts. At a hundred megabits a packet
 * comes every 100 µs or so: woken for each, the daemon pays a wakeup, a
 * read, a send and a timer for one packet, and on a router's CPU that cost
 * is what limits the tunnel long before the crypto does. Held until a few
 * packets have come, it pays them once for all. The hold follows the rate
 * at which packets come in (from the TUN device and the sockets): none
 * below BATCHING_MIN_PPS, so an idle bond, a ping or a call alone never
 * wait; above, the time BATCHING_PACKETS take to come, at most
 * BATCHING_MAX_HOLD_NS: a packet waits at most that much more on a busy
 * tunnel.
 */
#ifndef WB_BATCHING_H
#define WB_BATCHING_H

#include <stdint.h>

#include "nsec.h"

#define BATCHING_WINDOW_NS (4 * WB_NSEC_PER_MSEC) /* the rate is measured over this */
#define BATCHING_MIN_PPS 2000            /* about 20 Mbit/s of full packets */
#define BATCHING_PACKETS 16
#define BATCHING_MAX_HOLD_NS WB_NSEC_PER_MSEC

struct batching {
	uint64_t since_ns, packets_then;
	uint64_t hold_ns;
};

/* The hold for now, given the packets come in so far (a running count). */
uint64_t batching_hold(struct batching *b, uint64_t now, uint64_t packets);

#endif
