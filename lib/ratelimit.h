/* SPDX-License-Identifier: MIT */
/*
 * Handshake initiations per source, as WireGuard's ratelimiter counts them:
 * a token bucket of 20 a second with a burst of 5 for each source (an IPv4
 * address, or an IPv6 /64, which one host usually holds whole).
 *
 * Under load the device already asks for a cookie, which proves that the
 * source receives at its address; this bucket then bounds what one such
 * source can make the server spend on Diffie-Hellman, however many packets it
 * sends. The table is a fixed array: a source is forgotten once its bucket
 * is full again (at most 250 ms after its last initiation, 50 ms after a
 * single one), which loses nothing, and a slot is found by a keyed hash, so
 * no one can aim sources at a router's slot. A source that finds no slot in
 * its probe window is refused.
 *
 * IPv6 prefixes come cheap: whoever has a /48 routed to it gets cookies at
 * 65,536 /64s, and a slot for each would fill the table and keep every router
 * out. So the /64s of one /48 hold at most WB_RATELIMIT_V6_PER_48 slots
 * (counted per bin of /48s); past that, and while the /48 is counted whole,
 * its /64s share one bucket, the /48's. Filling the table then takes some
 * 500 /48s, or 1,000 IPv4 addresses, each sending at least 20 initiations
 * a second to keep its bucket from filling up again.
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
/* Slots the /64s of one /48 may hold before its /64s count as the /48. */
#define WB_RATELIMIT_V6_PER_48 2
/* Bins of /48s (by keyed hash) that count those slots: /64 slots are at most
 * WB_RATELIMIT_V6_BINS * WB_RATELIMIT_V6_PER_48, half the table, whoever sends. */
#define WB_RATELIMIT_V6_BINS 256

struct wb_ratelimit_slot {
	uint64_t seen_ns;   /* when the bucket was last refilled */
	uint32_t tokens_ns; /* work left, in ns of the refill clock */
	bool used;
	bool in_bin;        /* an IPv6 /64, counted in v6_bin_slots[bin] */
	uint8_t bin;
	uint8_t source[10]; /* family, prefix length in bits, then the address bytes in it */
};

struct wb_ratelimit {
	uint8_t hash_key[WB_HASH_LEN];
	uint8_t v6_bin_slots[WB_RATELIMIT_V6_BINS]; /* used /64 slots of the /48s in each bin */
	struct wb_ratelimit_slot slots[WB_RATELIMIT_SLOTS];
};

/* hash_key: random bytes, drawn once per device. */
void wb_ratelimit_init(struct wb_ratelimit *r, const uint8_t hash_key[WB_HASH_LEN]);
/* True when src may have one more initiation looked at now; spends a token. */
bool wb_ratelimit_allow(struct wb_ratelimit *r, const struct wb_endpoint *src, uint64_t now);

#endif
