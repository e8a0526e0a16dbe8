// SPDX-License-Identifier: MIT
/*
 * Reinjection's walk (reinject.h): it plans, the sending side (bond_tx.c)
 * sends, so no call leads from here back into the send path.
 */
#include "bond.h"

void wb_reinject_start(struct wb_bond *b, const struct wb_retrans_decision *d, enum wb_retrans_reason reason)
{
	struct wb_reinject *r = &b->reinj;

	*r = (struct wb_reinject){
		.active = true, .reason = reason, .uplink = d->uplink->id, .from = d->from,
		.next = b->snd.una, .end = b->snd.nxt, .budget = d->limit,
	};
	if (reason != WB_RETRANS_RTO && reason != WB_RETRANS_MEASURE) {
		b->c.opp_reinject_events++;
		wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_REINJECTION, .uplink = d->uplink->name,
						     .count = 1 });
	}
}

/* The next DSN to copy at or after the walk's position, UINT64_MAX if none is left. */
static uint64_t next_dsn(struct wb_bond *b, struct wb_reinject *r)
{
	uint16_t me = (uint16_t)(1u << r->uplink);

	if (r->next < b->snd.una)
		r->next = b->snd.una; /* delivered meanwhile */
	for (; r->next < r->end; r->next++) {
		const struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, r->next);

		if (!e || (e->holders & me))
			continue;
		/*
		 * After the bond's timeout, snd_una goes again even if an uplink
		 * saw it arrive: then the bond ack that should have followed was
		 * lost, and a copy makes the peer send another.
		 */
		if (r->reason == WB_RETRANS_RTO && r->next == b->snd.una)
			return r->next;
		if (e->flags & WB_SND_DELIVERED)
			continue;
		if (!r->from || (e->holders & r->from))
			return r->next;
	}
	return UINT64_MAX;
}

bool wb_reinject_next(struct wb_bond *b, uint64_t now, struct wb_reinject_copy *out)
{
	struct wb_reinject *r = &b->reinj;
	struct wb_uplink *u;
	const struct wb_sndbuf_entry *e;
	uint64_t dsn;

	if (!r->active)
		return false;
	u = &b->uplinks[r->uplink];
	dsn = next_dsn(b, r);
	e = dsn == UINT64_MAX ? NULL : wb_sndbuf_get(&b->snd, dsn);
	/* Done: nothing left to copy, the limit reached (exactly: the next would pass it), or the uplink gone. */
	if (!e || e->len > r->budget || !wb_uplink_usable(u)) {
		r->active = false;
		return false;
	}
	if (!wb_sched_can_send(u, (uint32_t)e->len + WB_TUNNEL_BYTES_WITH_ACKS, now))
		return false;
	*out = (struct wb_reinject_copy){ .uplink = u, .dsn = dsn, .reason = r->reason };
	return true;
}

void wb_reinject_sent(struct wb_bond *b, const struct wb_reinject_copy *c, bool sent)
{
	struct wb_reinject *r = &b->reinj;

	if (!sent) {
		r->active = false; /* no session to seal with: nothing more goes out */
		return;
	}
	r->budget -= wb_sndbuf_get(&b->snd, c->dsn)->len;
	r->next = c->dsn + 1;
}
