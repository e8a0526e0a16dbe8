// SPDX-License-Identifier: MIT
#include "batching.h"
#include "nsec.h"


uint64_t batching_hold(struct batching *b, uint64_t now, uint64_t packets)
{
	uint64_t elapsed = now - b->since_ns, pps, hold;

	if (now < b->since_ns || packets < b->packets_then) {
		/* A count that went back (a bond restarted): measure again from here. */
		b->since_ns = now;
		b->packets_then = packets;
		b->hold_ns = 0;
		return 0;
	}
	if (elapsed < BATCHING_WINDOW_NS)
		return b->hold_ns;
	pps = (packets - b->packets_then) * WB_NSEC_PER_SEC / elapsed;
	b->since_ns = now;
	b->packets_then = packets;
	if (pps < BATCHING_MIN_PPS) {
		b->hold_ns = 0;
		return 0;
	}
	hold = BATCHING_PACKETS * WB_NSEC_PER_SEC / pps;
	b->hold_ns = hold < BATCHING_MAX_HOLD_NS ? hold : BATCHING_MAX_HOLD_NS;
	return b->hold_ns;
}
