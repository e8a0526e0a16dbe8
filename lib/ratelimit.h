/* SPDX-License-Identifier: MIT */
/*
 * Handshake initiations per source, as WireGuard's ratelimiter counts them:
 * a token bucket of 20 a second with a burst of 5 for each source address
 * (an IPv4 address, or an IPv6 /64, which one host usually holds whole).
 *
 * Under load the device already asks for a cookie, which proves that the
 * source receives at its address; this bucket then bounds what one such
 * source can make the server spend on Diffie-Hellman, however many packets it
 * sends. The table is a fixed array: a source is forgotten once its bucket
 * would be full again, which loses nothing, and a slot is found by a keyed
 * hash, so no one can aim sources at a router's slot. A source that finds no
 * slot in its probe window is refused: only more distinct, cookie-proven
 * sources than the table holds within a quarter second could cause that.
 */
#ifndef WB_RATELIMIT_H
#define WB_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto.h"
#include "endpoint.h"

#define WB_RATELIMIT_PER_SECOND 20
#define WB_RATELIMIT_BURST 5
#define WB_RATELIMIT_SLOTS 1024 /* 32 KiB */

struct wb_ratelimit_slot {
	uint64_t seen_ns;    /* when the bucket was last refilled */
	uint32_t tokens_ns;  /* work left, in ns of the refill clock */
	bool used;
	uint8_t source[9];   /* family, then the IPv4 address or the IPv6 /64 */
};

struct wb_ratelimit {
	uint8_t hash_key[WB_HASH_LEN];
	struct wb_ratelimit_slot slots[WB_RATELIMIT_SLOTS];
};

/* hash_key: random bytes, drawn once per device. */
void wb_ratelimit_init(struct wb_ratelimit *r, const uint8_t hash_key[WB_HASH_LEN]);
/* True when src may have one more initiation looked at now; spends a token. */
bool wb_ratelimit_allow(struct wb_ratelimit *r, const struct wb_endpoint *src, uint64_t now);

#endif
