// SPDX-License-Identifier: MIT
#include "ratelimit.h"

#include <string.h>

#include "nsec.h"

#define COST_NS (WB_NSEC_PER_SEC / WB_RATELIMIT_PER_SECOND)
#define FULL_NS (COST_NS * WB_RATELIMIT_BURST)
/* Slots looked at from a source's hash before it is refused. */
#define PROBES 8

void wb_ratelimit_init(struct wb_ratelimit *r, const uint8_t hash_key[WB_HASH_LEN])
{
	memset(r, 0, sizeof(*r));
	memcpy(r->hash_key, hash_key, WB_HASH_LEN);
}

static void source_of(uint8_t out[9], const struct wb_endpoint *src)
{
	memset(out, 0, 9);
	out[0] = src->family;
	memcpy(out + 1, src->addr, src->family == 6 ? 8 : 4);
}

static unsigned first_slot(const struct wb_ratelimit *r, const uint8_t source[9])
{
	uint8_t h[WB_MAC_LEN];

	if (wb_mac(h, sizeof(h), r->hash_key, WB_HASH_LEN, source, 9))
		return 0; /* cannot happen with a working libcrypto; slot 0 is as good as any */
	return ((unsigned)h[0] | (unsigned)h[1] << 8) % WB_RATELIMIT_SLOTS;
}

/* A bucket that would have refilled to full by now says nothing a new one would not. */
static bool forgotten(const struct wb_ratelimit_slot *s, uint64_t now)
{
	return !s->used || now - s->seen_ns >= FULL_NS;
}

static struct wb_ratelimit_slot *slot_for(struct wb_ratelimit *r, const uint8_t source[9], uint64_t now)
{
	struct wb_ratelimit_slot *free_slot = NULL;
	unsigned at = first_slot(r, source);

	for (unsigned i = 0; i < PROBES; i++) {
		struct wb_ratelimit_slot *s = &r->slots[(at + i) % WB_RATELIMIT_SLOTS];

		if (s->used && !memcmp(s->source, source, 9))
			return s;
		if (!free_slot && forgotten(s, now))
			free_slot = s;
	}
	if (free_slot) {
		free_slot->used = true;
		memcpy(free_slot->source, source, 9);
		free_slot->seen_ns = now;
		free_slot->tokens_ns = FULL_NS;
	}
	return free_slot;
}

bool wb_ratelimit_allow(struct wb_ratelimit *r, const struct wb_endpoint *src, uint64_t now)
{
	uint8_t source[9];
	struct wb_ratelimit_slot *s;
	uint64_t tokens;

	source_of(source, src);
	s = slot_for(r, source, now);
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
