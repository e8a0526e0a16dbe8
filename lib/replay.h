/* SPDX-License-Identifier: MIT */
/*
 * Sliding anti-replay window over message counters (RFC 6479's ring of
 * words). One per uplink and session key: each uplink has its own counter,
 * so a slow uplink delivering thousands of packets after a fast one is never
 * mistaken for a replay, and within one uplink reordering is small.
 */
#ifndef WB_REPLAY_H
#define WB_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#define WB_REPLAY_BITS 4096
/* How far behind the highest counter a message may still arrive. */
#define WB_REPLAY_WINDOW (WB_REPLAY_BITS - 64)
/* As WireGuard: a key is retired well before its counter could wrap. */
#define WB_REJECT_AFTER_MESSAGES (UINT64_MAX - (1ULL << 13) - 1)

struct wb_replay {
	uint64_t highest;
	uint64_t bits[WB_REPLAY_BITS / 64];
};

void wb_replay_init(struct wb_replay *r);

/* Would this counter be accepted? A cheap check before decrypting. */
bool wb_replay_check(const struct wb_replay *r, uint64_t counter);

/* Accepts the counter of an authenticated message: false for a replay or one too old. */
bool wb_replay_accept(struct wb_replay *r, uint64_t counter);

#endif
