// SPDX-License-Identifier: MIT
#include "ratelimit.h"

#include <string.h>

#include "nsec.h"

#define COST_NS (WB_NSEC_PER_SEC / WB_RATELIMIT_PER_SECOND)
#define FULL_NS (COST_NS * WB_RATELIMIT_BURST)
/* Slots looked at from a source's hash before it is refused. */
#define PROBES 8
#define SOURCE_LEN 10

_Static_assert(WB_RATELIMIT_V6_BINS <= 256, "a slot keeps its bin in a byte");
_Static_assert(WB_RATELIMIT_V6_PER_48 < 256, "a bin counts in a byte");
_Static_assert(WB_RATELIMIT_V6_BINS * WB_RATELIMIT_V6_PER_48 <= WB_RATELIMIT_SLOTS / 2,
	       "the /64s of any number of /48s leave half the table to the rest");

struct key {
	uint8_t source[SOURCE_LEN];
	unsigned first; /* the first slot of its probe window */
	uint8_t bin;    /* IPv6: its /48's bin */
};

void wb_ratelimit_init(struct wb_ratelimit *r, const uint8_t hash_key[WB_HASH_LEN])
{
	memset(r, 0, sizeof(*r));
	memcpy(r->hash_key, hash_key, WB_HASH_LEN);
}

/* The first BITS of the address, tagged with the family and BITS (a /48 is not a /64 of the same bytes). */
static void make_key(const struct wb_ratelimit *r, struct key *k, const struct wb_endpoint *src, unsigned bits)
{
	uint8_t h[WB_MAC_LEN];

	memset(k->source, 0, SOURCE_LEN);
	k->source[0] = src->family;
	k->source[1] = (uint8_t)bits;
	memcpy(k->source + 2, src->addr, bits / 8);
	if (wb_mac(h, sizeof(h), r->hash_key, WB_HASH_LEN, k->source, SOURCE_LEN))
		memset(h, 0, sizeof(h)); /* cannot happen with a working libcrypto; slot 0 is as good as any */
	k->first = ((unsigned)h[0] | (unsigned)h[1] << 8) % WB_RATELIMIT_SLOTS;
	k->bin = (uint8_t)(h[2] % WB_RATELIMIT_V6_BINS);
}

/* A bucket that has refilled to full by now says nothing a new one would not. */
static bool forgotten(const struct wb_ratelimit_slot *s, uint64_t now)
{
	return (uint64_t)s->tokens_ns + (now > s->seen_ns ? now - s->seen_ns : 0) >= FULL_NS;
}

static void release(struct wb_ratelimit *r, struct wb_ratelimit_slot *s)
{
	if (s->in_bin && r->v6_bin_slots[s->bin])
		r->v6_bin_slots[s->bin]--;
	s->used = false;
	s->in_bin = false;
}

/*
 * The slot of k in its probe window, or NULL; on the way, slots that are
 * forgotten are released (that keeps the bins' counts close to the slots
 * that matter) and *free_slot is the first unused one, if asked for.
 */
static struct wb_ratelimit_slot *find(struct wb_ratelimit *r, const struct key *k, uint64_t now,
				      struct wb_ratelimit_slot **free_slot)
{
	if (free_slot)
		*free_slot = NULL;
	for (unsigned i = 0; i < PROBES; i++) {
		struct wb_ratelimit_slot *s = &r->slots[(k->first + i) % WB_RATELIMIT_SLOTS];

		if (s->used && forgotten(s, now))
			release(r, s);
		if (!s->used) {
			if (free_slot && !*free_slot)
				*free_slot = s;
		} else if (!memcmp(s->source, k->source, SOURCE_LEN)) {
			return s;
		}
	}
	return NULL;
}

static struct wb_ratelimit_slot *take(struct wb_ratelimit_slot *s, const struct key *k, uint64_t now)
{
	if (s) {
		s->used = true;
		s->in_bin = false;
		memcpy(s->source, k->source, SOURCE_LEN);
		s->seen_ns = now;
		s->tokens_ns = FULL_NS;
	}
	return s;
}

static struct wb_ratelimit_slot *find_or_take(struct wb_ratelimit *r, const struct key *k, uint64_t now)
{
	struct wb_ratelimit_slot *free_slot, *s = find(r, k, now, &free_slot);

	return s ? s : take(free_slot, k, now);
}

/*
 * An IPv6 source is its /64 while its /48 holds few /64 slots: the routers
 * of one site, or of one ISP's /48 of customers' /56s, that handshake in
 * the same quarter second are still counted apart. A /48 that sends from
 * more /64s at once than that is one more source, the /48: its other /64s
 * share its bucket for as long as that is not full again, and hold one
 * slot, not one each. (A /64 that holds a slot keeps it; a /64 slot never
 * outlives a quarter second without initiations.) The count is per bin of
 * /48s rather than per /48, so that it has a fixed place and size: two
 * /48s in a bin only get counted whole sooner, each in a bucket of its own,
 * and so does a /48 whose bin's count lags (a forgotten slot is counted off
 * when a probe passes it); neither is refused for it.
 */
static struct wb_ratelimit_slot *slot_for_v6(struct wb_ratelimit *r, const struct wb_endpoint *src, uint64_t now)
{
	struct key k64, k48;
	struct wb_ratelimit_slot *s, *free_slot;

	make_key(r, &k64, src, 64);
	make_key(r, &k48, src, 48);
	s = find(r, &k64, now, &free_slot);
	if (s)
		return s;
	s = find(r, &k48, now, NULL);
	if (s)
		return s;
	if (free_slot && r->v6_bin_slots[k48.bin] < WB_RATELIMIT_V6_PER_48) {
		take(free_slot, &k64, now);
		free_slot->in_bin = true;
		free_slot->bin = k48.bin;
		r->v6_bin_slots[k48.bin]++;
		return free_slot;
	}
	return find_or_take(r, &k48, now);
}

bool wb_ratelimit_allow(struct wb_ratelimit *r, const struct wb_endpoint *src, uint64_t now)
{
	struct wb_ratelimit_slot *s;
	uint64_t tokens;

	if (src->family == 6) {
		s = slot_for_v6(r, src, now);
	} else {
		struct key k;

		make_key(r, &k, src, 32);
		s = find_or_take(r, &k, now);
	}
	if (!s)
		return false;
	tokens = s->tokens_ns + (now > s->seen_ns ? now - s->seen_ns : 0);
	s->seen_ns = now;
	if (tokens > FULL_NS)
		tokens = FULL_NS;
	if (tokens < COST_NS) {
		s->tokens_ns = (uint32_t)tokens;
		return false;
	}
	s->tokens_ns = (uint32_t)(tokens - COST_NS);
	return true;
}
