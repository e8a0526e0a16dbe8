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
	p->class_step = max > WB_PMTU_BASE ? (max - WB_PMTU_BASE + WB_PMTU_CLASSES - 2) / (WB_PMTU_CLASSES - 1) : 1;
	if (!p->class_step)
		p->class_step = 1;
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
	memset(p->acked_pn, 0, sizeof(p->acked_pn));
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
	/*
	 * An answer is awaited one timeout of the path as it is known now. One
	 * set while the RTT was a minute (a path that held everything) would
	 * hold the search, and every packet waiting for its size, that long
	 * after the path came back.
	 */
	if (p->searching && p->due_ns > now + timeout_ns)
		p->due_ns = now + timeout_ns;
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

/* 0 at or below the base, then classes of class_step bytes up to the largest. */
static unsigned size_class(const struct wb_pmtu *p, uint32_t bytes)
{
	unsigned c;

	if (bytes <= WB_PMTU_BASE)
		return 0;
	c = 1 + (bytes - WB_PMTU_BASE - 1) / p->class_step;
	return c < WB_PMTU_CLASSES ? c : WB_PMTU_CLASSES - 1;
}

/* The newest pn that arrived in a class from..to (inclusive). */
static uint64_t newest_acked(const struct wb_pmtu *p, unsigned from, unsigned to)
{
	uint64_t pn = 0;

	for (unsigned c = from; c <= to && c < WB_PMTU_CLASSES; c++)
		if (p->acked_pn[c] > pn)
			pn = p->acked_pn[c];
	return pn;
}

void wb_pmtu_on_acked(struct wb_pmtu *p, uint32_t bytes, uint64_t pn)
{
	unsigned c = size_class(p, bytes);

	/* pn + 1: 0 means none, and packet numbers start at 0. */
	if (pn + 1 > p->acked_pn[c])
		p->acked_pn[c] = pn + 1;
	/* One as big as those lost, sent after the first, arrived: they were lost some other way. */
	if (p->big_lost && c >= p->lost_class && pn > p->first_lost_pn)
		p->big_lost = 0;
}

void wb_pmtu_on_lost(struct wb_pmtu *p, uint32_t bytes, uint64_t pn)
{
	unsigned c = size_class(p, bytes);

	if (!c || pn < p->fresh_pn)
		return;
	/* One as big, sent after it, arrived before the ack that declared it lost: congestion. */
	if (newest_acked(p, c, WB_PMTU_CLASSES - 1) > pn + 1)
		return;
	if (!p->big_lost++) {
		p->first_lost_pn = p->last_lost_pn = pn;
		p->lost_class = c;
	}
	if (c < p->lost_class)
		p->lost_class = c;
	if (pn > p->last_lost_pn)
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
	/* Smaller ones sent after the last of them arrived: the path carries those, and not these. */
	if (p->big_lost < WB_PMTU_BLACK_HOLE_LOSSES || newest_acked(p, 0, p->lost_class - 1) <= p->last_lost_pn + 1)
		return false;
	p->fresh_pn = next_pn; /* what is still in flight of the old size will vanish too: not news */
	wb_pmtu_suspect(p, now);
	return true;
}

uint64_t wb_pmtu_deadline(const struct wb_pmtu *p)
{
	return p->due_ns;
}
