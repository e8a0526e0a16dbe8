// SPDX-License-Identifier: MIT
#include "ackgen.h"

#include <string.h>

void wb_ackgen_init(struct wb_ackgen *g)
{
	memset(g, 0, sizeof(*g));
}

/*
 * Inserts pn into the descending ranges. The walk stops at the first range
 * that pn joins or lies above; ranges before it start above pn + 1, so only
 * the range below can come to touch the one pn joined. When every slot is
 * taken, the lowest range goes: those packets were acked many times already.
 */
static bool insert(struct wb_ackgen *g, uint64_t pn)
{
	unsigned i = 0;

	while (i < g->n && g->r[i].lo > pn + 1)
		i++;
	if (i < g->n && pn >= g->r[i].lo && pn <= g->r[i].hi)
		return false;
	if (i < g->n && pn + 1 == g->r[i].lo) {
		g->r[i].lo = pn;
		if (i + 1 < g->n && g->r[i + 1].hi + 1 == pn) {
			g->r[i].lo = g->r[i + 1].lo;
			memmove(&g->r[i + 1], &g->r[i + 2], (g->n - i - 2) * sizeof(g->r[0]));
			g->n--;
		}
		return true;
	}
	if (i < g->n && pn == g->r[i].hi + 1) {
		g->r[i].hi = pn;
		return true;
	}
	if (g->n == WB_ACK_MAX_RANGES) {
		if (i == g->n)
			return true; /* below everything kept */
		g->n--;
	}
	memmove(&g->r[i + 1], &g->r[i], (g->n - i) * sizeof(g->r[0]));
	g->r[i] = (struct wb_range){ pn, pn };
	g->n++;
	return true;
}

bool wb_ackgen_on_packet(struct wb_ackgen *g, uint64_t pn, bool ack_eliciting, bool urgent, uint64_t now)
{
	bool in_order = !g->n || pn == g->r[0].hi + 1;
	bool newest = !g->n || pn > g->r[0].hi;

	if (!insert(g, pn))
		return false;
	if (newest)
		g->largest_at_ns = now;
	g->changed = true;
	if (!ack_eliciting)
		return true;
	g->unacked++;
	if (urgent || !in_order || g->unacked >= WB_ACK_EVERY)
		g->deadline_ns = now; /* at once */
	else if (!g->deadline_ns)
		g->deadline_ns = now + WB_MAX_ACK_DELAY_NS;
	return true;
}

bool wb_ackgen_due(const struct wb_ackgen *g, uint64_t now)
{
	return g->deadline_ns && g->deadline_ns <= now;
}

bool wb_ackgen_pending(const struct wb_ackgen *g)
{
	return g->changed && g->n;
}

void wb_ackgen_build(const struct wb_ackgen *g, uint64_t now, struct wb_ack *out)
{
	out->delay_us = now > g->largest_at_ns ? (now - g->largest_at_ns) / 1000 : 0;
	out->n = g->n;
	memcpy(out->r, g->r, g->n * sizeof(g->r[0]));
}

void wb_ackgen_sent(struct wb_ackgen *g)
{
	g->unacked = 0;
	g->deadline_ns = 0;
	g->changed = false;
}
