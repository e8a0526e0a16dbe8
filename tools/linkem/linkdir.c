// SPDX-License-Identifier: MIT
#include "linkdir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"

static uint64_t resolve_limit_bytes(const struct linkdir_params *p, const struct shaper *s)
{
	switch (p->limit.kind) {
	case LIMIT_BYTES:
		return p->limit.value;
	case LIMIT_TIME:
		if (!shaper_mean_rate(s))
			return UINT64_MAX; /* no bottleneck, no queue */
		return units_muldiv(shaper_mean_rate(s), p->limit.value, 8 * NSEC_PER_SEC);
	case LIMIT_PACKETS:
		break;
	}
	return UINT64_MAX;
}

int linkdir_init(struct linkdir *d, const struct linkdir_params *p, uint64_t seed, uint64_t t0)
{
	memset(d, 0, sizeof(*d));
	d->params = *p;
	d->t0 = t0;
	if (p->trace)
		shaper_init_trace(&d->shaper, p->trace, t0);
	else
		shaper_init_rate(&d->shaper, p->rate_bps);
	d->limit_bytes = resolve_limit_bytes(p, &d->shaper);
	loss_init(&d->loss, &p->loss);
	prng_seed(&d->rng, seed);
	d->queue_cap = 256;
	d->flight_cap = 256;
	d->queue = calloc(d->queue_cap, sizeof(*d->queue));
	d->flight = calloc(d->flight_cap, sizeof(*d->flight));
	if (!d->queue || !d->flight) {
		linkdir_free(d);
		return -ENOMEM;
	}
	return 0;
}

void linkdir_free(struct linkdir *d)
{
	free(d->queue);
	free(d->flight);
	d->queue = NULL;
	d->flight = NULL;
	d->queue_len = d->flight_len = 0;
}

/* Packets whose last byte has left are no longer in the queue. */
static void queue_advance(struct linkdir *d, uint64_t now)
{
	while (d->queue_len) {
		struct linkdir_departure *dep = &d->queue[d->queue_head];

		if (dep->at > now)
			break;
		d->queue_bytes -= dep->bytes;
		d->queue_head = (d->queue_head + 1) % d->queue_cap;
		d->queue_len--;
	}
}

static bool queue_admits(const struct linkdir *d, uint32_t bytes)
{
	if (d->params.limit.kind == LIMIT_PACKETS)
		return d->queue_len < d->params.limit.value;
	return d->queue_bytes + bytes <= d->limit_bytes;
}

/* Doubles the ring, unrolling it so the head is at 0. */
static int queue_grow(struct linkdir *d)
{
	uint32_t ncap = d->queue_cap * 2;
	struct linkdir_departure *nq;

	if (d->queue_cap >= LINKDIR_MAX_PACKETS)
		return -ENOSPC;
	nq = malloc((size_t)ncap * sizeof(*nq));
	if (!nq)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->queue_len; i++)
		nq[i] = d->queue[(d->queue_head + i) % d->queue_cap];
	free(d->queue);
	d->queue = nq;
	d->queue_cap = ncap;
	d->queue_head = 0;
	return 0;
}

static int queue_push(struct linkdir *d, uint64_t at, uint32_t bytes)
{
	if (d->queue_len == d->queue_cap && queue_grow(d))
		return -ENOSPC;
	d->queue[(d->queue_head + d->queue_len) % d->queue_cap] =
		(struct linkdir_departure){ .at = at, .bytes = bytes };
	d->queue_len++;
	d->queue_bytes += bytes;
	return 0;
}

static bool flight_before(const struct linkdir_flight *a, const struct linkdir_flight *b)
{
	return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void flight_swap(struct linkdir_flight *a, struct linkdir_flight *b)
{
	struct linkdir_flight t = *a;

	*a = *b;
	*b = t;
}

static int flight_reserve(struct linkdir *d)
{
	uint32_t ncap = d->flight_cap * 2;
	struct linkdir_flight *nf;

	if (d->flight_len < d->flight_cap)
		return 0;
	if (d->flight_cap >= LINKDIR_MAX_PACKETS)
		return -ENOSPC;
	nf = realloc(d->flight, (size_t)ncap * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	d->flight = nf;
	d->flight_cap = ncap;
	return 0;
}

static void flight_push(struct linkdir *d, struct linkdir_flight f)
{
	uint32_t i = d->flight_len++;

	d->flight[i] = f;
	while (i && flight_before(&d->flight[i], &d->flight[(i - 1) / 2])) {
		flight_swap(&d->flight[i], &d->flight[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
}

static struct linkdir_flight flight_pop(struct linkdir *d)
{
	struct linkdir_flight top = d->flight[0];
	uint32_t i = 0;

	d->flight[0] = d->flight[--d->flight_len];
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < d->flight_len && flight_before(&d->flight[l], &d->flight[m]))
			m = l;
		if (r < d->flight_len && flight_before(&d->flight[r], &d->flight[m]))
			m = r;
		if (m == i)
			break;
		flight_swap(&d->flight[i], &d->flight[m]);
		i = m;
	}
	return top;
}

/* Delay plus a uniform jitter in [-jitter, +jitter], never below zero. */
static uint64_t propagation_delay(struct linkdir *d)
{
	const struct linkdir_params *p = &d->params;
	double offset;

	if (!p->jitter_ns)
		return p->delay_ns;
	offset = (2 * prng_unit(&d->rng) - 1) * (double)p->jitter_ns;
	if (offset < 0 && (uint64_t)-offset >= p->delay_ns)
		return 0;
	return (uint64_t)((double)p->delay_ns + offset);
}

static void note_queue_peak(struct linkdir *d, uint64_t wait)
{
	struct linkdir_stats *st = &d->stats;

	if (d->queue_len > st->max_queue_pkts)
		st->max_queue_pkts = d->queue_len;
	if (d->queue_bytes > st->max_queue_bytes)
		st->max_queue_bytes = d->queue_bytes;
	if (wait > st->max_queue_delay_ns)
		st->max_queue_delay_ns = wait;
}

enum linkdir_verdict linkdir_enqueue(struct linkdir *d, uint64_t now, uint32_t bytes, void *pkt)
{
	uint32_t wire = bytes + d->params.overhead;
	uint64_t start, departs, at;

	d->stats.in_pkts++;
	d->stats.in_bytes += bytes;
	if (d->params.mtu && bytes > d->params.mtu) {
		d->stats.mtu_drops++;
		return LINKDIR_DROP_MTU;
	}
	queue_advance(d, now);
	if (!queue_admits(d, wire)) {
		d->stats.queue_drops++;
		return LINKDIR_DROP_QUEUE;
	}
	if (flight_reserve(d) || (d->queue_len == d->queue_cap && queue_grow(d))) {
		d->stats.overflow_drops++;
		return LINKDIR_DROP_OVERFLOW;
	}
	if (linkdir_in_outage(d, now)) {
		d->stats.outage_drops++;
		return LINKDIR_DROP_OUTAGE;
	}
	start = d->shaper.busy_until > now ? d->shaper.busy_until : now;
	departs = shaper_depart(&d->shaper, now, wire);
	queue_push(d, departs, wire);
	note_queue_peak(d, start - now);

	/* Its slot was taken: an outage does not make the queue drain faster. */
	if (linkdir_in_outage(d, departs)) {
		d->stats.outage_drops++;
		return LINKDIR_DROP_OUTAGE;
	}
	if (loss_draw(&d->loss, &d->rng)) {
		d->stats.loss_drops++;
		return LINKDIR_DROP_LOSS;
	}
	at = departs + propagation_delay(d);
	if (!d->params.reorder && at < d->last_delivery)
		at = d->last_delivery;
	d->last_delivery = at;
	flight_push(d, (struct linkdir_flight){ .at = at, .seq = d->next_seq++, .pkt = pkt, .bytes = bytes });
	return LINKDIR_QUEUED;
}

void *linkdir_pop_due(struct linkdir *d, uint64_t now)
{
	struct linkdir_flight f;

	if (!d->flight_len || d->flight[0].at > now)
		return NULL;
	f = flight_pop(d);
	d->stats.out_pkts++;
	d->stats.out_bytes += f.bytes;
	return f.pkt;
}

uint64_t linkdir_next_due(const struct linkdir *d)
{
	return d->flight_len ? d->flight[0].at : UINT64_MAX;
}

bool linkdir_in_outage(const struct linkdir *d, uint64_t t)
{
	const struct linkdir_params *p = &d->params;

	return p->outage_every_ns && t >= d->t0 &&
	       (t - d->t0) % p->outage_every_ns >= p->outage_every_ns - p->outage_len_ns;
}

uint32_t linkdir_held(const struct linkdir *d)
{
	return d->flight_len;
}

void *linkdir_drain(struct linkdir *d)
{
	return d->flight_len ? flight_pop(d).pkt : NULL;
}
