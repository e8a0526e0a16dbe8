// SPDX-License-Identifier: MIT
/* Path MTU discovery for one uplink: the search and the black-hole check (pmtu.h). */
#include <string.h>

#include "pmtu.h"

void wb_pmtu_init(struct wb_pmtu *p, uint32_t max)
{
	memset(p, 0, sizeof(*p));
	p->max = max;
	p->size = max < WB_PMTU_BASE ? max : WB_PMTU_BASE;
	p->due_ns = UINT64_MAX;
}

static void finish(struct wb_pmtu *p, uint64_t now)
{
	p->searching = false;
	p->probing = 0;
	p->first = 0;
	p->settled = p->size;
	p->due_ns = p->size < p->max ? now + WB_PMTU_RAISE_NS : UINT64_MAX;
}

/* A probe was settled (or none was out): the next one at once, or the end of the search. */
static void next(struct wb_pmtu *p, uint64_t now)
{
	p->probing = 0;
	p->tries = 0;
	if (p->first && (p->first <= p->size || p->first >= p->hi))
		p->first = 0; /* already known either way */
	if (!p->first && (p->size >= p->max || p->hi - p->size <= WB_PMTU_STEP)) {
		finish(p, now);
		return;
	}
	p->due_ns = now;
}

/* A search between size (it arrives) and max, trying first before halving. */
static void search(struct wb_pmtu *p, uint32_t first, uint64_t now)
{
	p->searching = true;
	p->hi = p->max + 1;
	p->first = first;
	next(p, now);
}

void wb_pmtu_restart(struct wb_pmtu *p, uint64_t now)
{
	p->size = p->max < WB_PMTU_BASE ? p->max : WB_PMTU_BASE;
	p->big_lost = 0;
	p->has_acked = false;
	search(p, p->max, now);
}

static uint32_t next_size(const struct wb_pmtu *p)
{
	return p->first ? p->first : p->size + (p->hi - p->size) / 2;
}

/* The probe out got no answer in time: once more, or that size is too big. */
static enum wb_pmtu_action on_late(struct wb_pmtu *p, uint64_t now, uint64_t timeout_ns, bool later_acked,
				   uint32_t *size)
{
	if (!later_acked) {
		/* Nothing sent after it arrived either: the path may carry nothing at all now. */
		p->due_ns = now + timeout_ns;
		if (p->nudged)
			return WB_PMTU_WAIT;
		p->nudged = true;
		return WB_PMTU_NUDGE;
	}
	if (++p->tries < WB_PMTU_MAX_PROBES) {
		*size = p->probing;
		p->due_ns = now + timeout_ns;
		return WB_PMTU_PROBE;
	}
	p->hi = p->probing;
	next(p, now);
	return WB_PMTU_WAIT;
}

enum wb_pmtu_action wb_pmtu_tick(struct wb_pmtu *p, uint64_t now, uint64_t timeout_ns, bool later_acked,
				 uint32_t *size)
{
	if (now < p->due_ns)
		return WB_PMTU_WAIT;
	if (!p->searching)
		search(p, p->max, now); /* the raise timer: the path may carry more now */
	if (!p->searching)
		return WB_PMTU_WAIT;
	if (p->probing)
		return on_late(p, now, timeout_ns, later_acked, size);
	p->probing = next_size(p);
	p->due_ns = now + timeout_ns;
	*size = p->probing;
	return WB_PMTU_PROBE;
}

void wb_pmtu_probe_sent(struct wb_pmtu *p, uint64_t pn)
{
	p->probe_pn = pn;
	p->nudged = false;
}

void wb_pmtu_on_answer(struct wb_pmtu *p, uint32_t size, uint64_t now)
{
	if (size > p->max)
		size = p->max;
	if (size > p->size)
		p->size = size;
	if (!p->searching) {
		if (p->size > p->settled && p->settled)
			p->settled = p->size; /* a late answer of the search just ended */
		return;
	}
	if (p->hi <= p->size)
		p->hi = p->max + 1; /* a size that once got no answer got one now */
	if (p->probing && size >= p->probing)
		next(p, now);
}

void wb_pmtu_on_acked(struct wb_pmtu *p, uint32_t bytes, uint64_t pn)
{
	if (bytes <= WB_PMTU_BASE) {
		if (pn > p->small_acked_pn || !p->has_acked)
			p->small_acked_pn = pn;
		p->has_acked = true;
		return;
	}
	if (pn > p->big_acked_pn)
		p->big_acked_pn = pn;
	/* A big one sent after the first lost arrived: those were lost some other way. */
	if (p->big_lost && pn > p->first_lost_pn)
		p->big_lost = 0;
}

void wb_pmtu_on_lost(struct wb_pmtu *p, uint32_t bytes, uint64_t pn)
{
	if (bytes <= WB_PMTU_BASE || pn < p->big_acked_pn || pn < p->fresh_pn)
		return;
	if (!p->big_lost++)
		p->first_lost_pn = pn;
	if (pn > p->last_lost_pn || p->big_lost == 1)
		p->last_lost_pn = pn;
}

void wb_pmtu_forget_losses(struct wb_pmtu *p)
{
	p->big_lost = 0;
}

void wb_pmtu_suspect(struct wb_pmtu *p, uint64_t now)
{
	uint32_t old = p->size;

	p->big_lost = 0;
	if (old <= WB_PMTU_BASE)
		return; /* nothing above the base to doubt */
	p->size = WB_PMTU_BASE;
	search(p, old, now);
}

bool wb_pmtu_check_black_hole(struct wb_pmtu *p, uint64_t now, uint64_t next_pn)
{
	if (p->big_lost < WB_PMTU_BLACK_HOLE_LOSSES || !p->has_acked || p->small_acked_pn < p->last_lost_pn)
		return false;
	p->fresh_pn = next_pn; /* what is still in flight of the old size will vanish too: not news */
	wb_pmtu_suspect(p, now);
	return true;
}

uint64_t wb_pmtu_deadline(const struct wb_pmtu *p)
{
	return p->due_ns;
}
