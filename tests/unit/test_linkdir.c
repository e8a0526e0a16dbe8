// SPDX-License-Identifier: MIT
/* Unit tests: linkdir.c, one direction of an emulated link. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linkdir.h"
#include "trace.h"

#define US 1000ULL
#define MS 1000000ULL
#define MBIT 1000000ULL
#define MAX_PKTS 20000

/* Packets are opaque to the model: the address of an element of ids stands for packet i. */
static char ids[MAX_PKTS];

static void *pkt(size_t i)
{
	return &ids[i];
}

static size_t idx(const void *p)
{
	assert_true((const char *)p >= ids && (const char *)p < ids + MAX_PKTS);
	return (size_t)((const char *)p - ids);
}

static struct linkdir_params params(uint64_t rate_bps, uint64_t delay_ns, struct queue_limit limit)
{
	return (struct linkdir_params){ .rate_bps = rate_bps, .delay_ns = delay_ns, .limit = limit };
}

static struct queue_limit packets(uint64_t n)
{
	return (struct queue_limit){ LIMIT_PACKETS, n };
}

static void init(struct linkdir *d, const struct linkdir_params *p, uint64_t seed)
{
	assert_int_equal(linkdir_init(d, p, seed, 0), 0);
}

/* Pops the next packet at its due time; returns its index and the time. */
static size_t pop_next(struct linkdir *d, uint64_t *at)
{
	void *p;

	*at = linkdir_next_due(d);
	assert_true(*at != UINT64_MAX);
	p = linkdir_pop_due(d, *at);
	assert_non_null(p);
	return idx(p);
}

/* ---- queue limits ---- */

static void test_packet_limit_drops_the_fourth(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, packets(3));
	struct linkdir d;

	(void)state;
	init(&d, &p, 1);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(i)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(3)), LINKDIR_DROP_QUEUE);
	assert_int_equal(d.stats.queue_drops, 1);
	/* The first is still leaving until 1.2 ms... */
	assert_int_equal(linkdir_enqueue(&d, 1200 * US - 1, 1500, pkt(4)), LINKDIR_DROP_QUEUE);
	assert_int_equal(d.stats.queue_drops, 2);
	/* ...and once it has left, there is room, behind the other two. */
	assert_int_equal(linkdir_enqueue(&d, 1200 * US, 1500, pkt(5)), LINKDIR_QUEUED);
	assert_int_equal(d.stats.queue_drops, 2);
	assert_int_equal(linkdir_held(&d), 4);
	linkdir_free(&d);
}

/* An MTU black hole: a packet over the mtu vanishes, counted, and takes no room in the queue. */
/* The last LENGTH of every EVERY from t0 the link carries nothing: what arrives then, or would leave then, is lost. */
static void test_outage_drops_in_its_windows(void **state)
{
	struct linkdir_params p = params(12 * MBIT, 5 * MS, packets(100));
	struct linkdir d;

	(void)state;
	p.outage_every_ns = 100 * MS;
	p.outage_len_ns = 20 * MS;
	init(&d, &p, 1);
	assert_false(linkdir_in_outage(&d, 79 * MS));
	assert_true(linkdir_in_outage(&d, 80 * MS));
	assert_true(linkdir_in_outage(&d, 99 * MS));
	assert_false(linkdir_in_outage(&d, 100 * MS));
	assert_true(linkdir_in_outage(&d, 285 * MS));
	assert_int_equal(linkdir_enqueue(&d, 10 * MS, 1500, pkt(0)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 85 * MS, 1500, pkt(1)), LINKDIR_DROP_OUTAGE);
	/* 1500 bytes at 12 Mbit/s take 1 ms: one that arrives at 79.5 ms would leave in the outage. */
	assert_int_equal(linkdir_enqueue(&d, 79 * MS + 500 * US, 1500, pkt(2)), LINKDIR_DROP_OUTAGE);
	assert_int_equal(linkdir_enqueue(&d, 100 * MS, 1500, pkt(3)), LINKDIR_QUEUED);
	assert_int_equal(d.stats.outage_drops, 2);
	assert_int_equal(d.stats.queue_drops + d.stats.loss_drops, 0);
	assert_int_equal(linkdir_held(&d), 2);
	linkdir_free(&d);
}

static void test_mtu_drops_larger_packets(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, packets(2));
	struct linkdir d;

	(void)state;
	p.mtu = 1300;
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1301, pkt(0)), LINKDIR_DROP_MTU);
	assert_int_equal(linkdir_enqueue(&d, 0, 1300, pkt(1)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(2)), LINKDIR_DROP_MTU);
	assert_int_equal(linkdir_enqueue(&d, 0, 40, pkt(3)), LINKDIR_QUEUED);
	assert_int_equal(d.stats.mtu_drops, 2);
	assert_int_equal(d.stats.queue_drops, 0);
	assert_int_equal(linkdir_held(&d), 2);
	linkdir_free(&d);
}

static void test_byte_limit(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, (struct queue_limit){ LIMIT_BYTES, 4000 });
	struct linkdir d;

	(void)state;
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(0)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(1)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(2)), LINKDIR_DROP_QUEUE);
	/* 3000 + 1000 is exactly the limit. */
	assert_int_equal(linkdir_enqueue(&d, 0, 1000, pkt(3)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1, pkt(4)), LINKDIR_DROP_QUEUE);
	assert_int_equal(d.stats.queue_drops, 2);
	linkdir_free(&d);
}

static void test_byte_limit_counts_overhead(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, (struct queue_limit){ LIMIT_BYTES, 3000 });
	struct linkdir d;

	(void)state;
	p.overhead = 24;
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1476, pkt(0)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1476, pkt(1)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1, pkt(2)), LINKDIR_DROP_QUEUE);
	linkdir_free(&d);
}

static void test_time_limit_50ms_at_10mbit_is_62500_bytes(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, (struct queue_limit){ LIMIT_TIME, 50 * MS });
	struct linkdir d;
	size_t i;

	(void)state;
	init(&d, &p, 1);
	assert_int_equal(d.limit_bytes, 62500);
	/* 41 * 1500 = 61500 fit; a 42nd does not; 1000 more fill it exactly. */
	for (i = 0; i < 41; i++)
		assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(i)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(i++)), LINKDIR_DROP_QUEUE);
	assert_int_equal(linkdir_enqueue(&d, 0, 1000, pkt(i++)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1, pkt(i++)), LINKDIR_DROP_QUEUE);
	linkdir_free(&d);
}

static void test_time_limit_in_trace_mode_uses_the_trace_mean_rate(void **state)
{
	struct linkdir_params p = params(0, 0, (struct queue_limit){ LIMIT_TIME, 10 * MS });
	struct linkdir d;
	struct trace t;
	const char *text = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";

	(void)state;
	assert_int_equal(trace_parse(&t, text, strlen(text), NULL, 0), 0);
	p.trace = &t;
	assert_int_equal(linkdir_init(&d, &p, 1, 0), 0);
	/* 12 Mbit/s for 10 ms. */
	assert_int_equal(d.limit_bytes, 15000);
	linkdir_free(&d);
	trace_free(&t);
}

static void test_unlimited_rate_with_time_limit_admits_everything(void **state)
{
	struct linkdir_params p = params(0, 5 * MS, (struct queue_limit){ LIMIT_TIME, 50 * MS });
	struct linkdir d;
	uint64_t at;

	(void)state;
	init(&d, &p, 1);
	for (size_t i = 0; i < 10000; i++)
		assert_int_equal(linkdir_enqueue(&d, 0, 65535, pkt(i)), LINKDIR_QUEUED);
	assert_int_equal(d.stats.queue_drops, 0);
	assert_int_equal(linkdir_held(&d), 10000);
	/* No bottleneck: all due at the delay, in order. */
	for (size_t i = 0; i < 10000; i++) {
		assert_int_equal(pop_next(&d, &at), i);
		assert_int_equal(at, 5 * MS);
	}
	linkdir_free(&d);
}

/* ---- delay and delivery ---- */

static void test_delay_is_added_to_departure_exactly(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 20 * MS, packets(100));
	struct linkdir d;

	(void)state;
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 5 * MS, 1500, pkt(0)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 5 * MS, 1500, pkt(1)), LINKDIR_QUEUED);
	/* Departures 6.2 and 7.4 ms, deliveries 20 ms later. */
	assert_int_equal(linkdir_next_due(&d), 26200 * US);
	assert_ptr_equal(linkdir_pop_due(&d, 26200 * US), pkt(0));
	assert_int_equal(linkdir_next_due(&d), 27400 * US);
	assert_ptr_equal(linkdir_pop_due(&d, 27400 * US), pkt(1));
	linkdir_free(&d);
}

static void test_pop_due_waits_for_the_due_time(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 20 * MS, packets(100));
	struct linkdir d;

	(void)state;
	init(&d, &p, 1);
	assert_null(linkdir_pop_due(&d, UINT64_MAX));
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(7)), LINKDIR_QUEUED);
	assert_null(linkdir_pop_due(&d, 0));
	assert_null(linkdir_pop_due(&d, 21200 * US - 1));
	assert_int_equal(d.stats.out_pkts, 0);
	assert_ptr_equal(linkdir_pop_due(&d, 21200 * US), pkt(7));
	assert_null(linkdir_pop_due(&d, 21200 * US));
	assert_int_equal(d.stats.out_pkts, 1);
	linkdir_free(&d);
}

static void test_pop_due_late_returns_every_due_packet_in_order(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 1 * MS, packets(100));
	struct linkdir d;

	(void)state;
	init(&d, &p, 1);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(i)), LINKDIR_QUEUED);
	/* Woken late at 1 s: all five are due, oldest first. */
	for (size_t i = 0; i < 5; i++)
		assert_ptr_equal(linkdir_pop_due(&d, 1000 * MS), pkt(i));
	assert_null(linkdir_pop_due(&d, 1000 * MS));
	linkdir_free(&d);
}

static void test_equal_delivery_times_stay_fifo(void **state)
{
	struct linkdir_params p = params(0, 3 * MS, packets(1000));
	struct linkdir d;
	uint64_t at;

	(void)state;
	init(&d, &p, 1);
	for (size_t i = 0; i < 300; i++)
		assert_int_equal(linkdir_enqueue(&d, 0, 100, pkt(i)), LINKDIR_QUEUED);
	for (size_t i = 0; i < 300; i++) {
		assert_int_equal(pop_next(&d, &at), i);
		assert_int_equal(at, 3 * MS);
	}
	linkdir_free(&d);
}

static void test_next_due(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 10 * MS, packets(100));
	struct linkdir d;

	(void)state;
	init(&d, &p, 1);
	assert_int_equal(linkdir_next_due(&d), UINT64_MAX);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(0)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(1)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_next_due(&d), 11200 * US);
	assert_non_null(linkdir_pop_due(&d, 11200 * US));
	assert_int_equal(linkdir_next_due(&d), 12400 * US);
	assert_non_null(linkdir_pop_due(&d, 12400 * US));
	assert_int_equal(linkdir_next_due(&d), UINT64_MAX);
	linkdir_free(&d);
}

static void test_overhead_counts_on_the_wire_not_in_stats(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, packets(100));
	struct linkdir d;

	(void)state;
	p.overhead = 40;
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1460, pkt(0)), LINKDIR_QUEUED);
	/* 1500 bytes on the wire at 10 Mbit/s. */
	assert_int_equal(linkdir_next_due(&d), 1200 * US);
	assert_non_null(linkdir_pop_due(&d, 1200 * US));
	assert_int_equal(d.stats.in_bytes, 1460);
	assert_int_equal(d.stats.out_bytes, 1460);
	linkdir_free(&d);
}

/* ---- jitter and reordering ---- */

/* Packets every 1.5 ms (no queue) with 20 ms +- 10 ms of delay: jitter would reorder them. */
static void offer_jittered(struct linkdir *d, bool reorder, uint64_t seed, size_t n)
{
	struct linkdir_params p = params(10 * MBIT, 20 * MS, packets(1000));

	p.jitter_ns = 10 * MS;
	p.reorder = reorder;
	init(d, &p, seed);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(linkdir_enqueue(d, i * 1500 * US, 1500, pkt(i)), LINKDIR_QUEUED);
}

static void test_jitter_keeps_fifo_without_reorder(void **state)
{
	const size_t n = 5000;
	struct linkdir d;
	uint64_t at, prev_at = 0;

	(void)state;
	offer_jittered(&d, false, 3, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(pop_next(&d, &at), i);
		assert_true(at >= prev_at);
		/* Never earlier than departure + delay - jitter. */
		assert_true(at >= i * 1500 * US + 1200 * US + 10 * MS);
		prev_at = at;
	}
	assert_int_equal(linkdir_next_due(&d), UINT64_MAX);
	linkdir_free(&d);
}

static void test_jitter_reorders_with_reorder_on(void **state)
{
	const size_t n = 5000;
	struct linkdir d;
	uint64_t at, prev_at = 0;
	size_t prev = 0, inversions = 0;

	(void)state;
	offer_jittered(&d, true, 3, n);
	for (size_t i = 0; i < n; i++) {
		size_t k = pop_next(&d, &at);

		/* Delivery times still come in order; the packets do not. */
		assert_true(at >= prev_at);
		inversions += i && k < prev;
		prev = k;
		prev_at = at;
	}
	assert_true(inversions > 100);
	linkdir_free(&d);
}

static void test_jitter_stays_within_delay_plus_minus_jitter(void **state)
{
	const size_t n = 10000;
	const uint64_t delay = 20 * MS, jitter = 5 * MS;
	struct linkdir_params p = params(0, delay, packets(MAX_PKTS));
	struct linkdir d;
	uint64_t at, lo = UINT64_MAX, hi = 0;
	double sum = 0;

	(void)state;
	p.jitter_ns = jitter;
	p.reorder = true;
	init(&d, &p, 11);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(linkdir_enqueue(&d, i * 100 * US, 1500, pkt(i)), LINKDIR_QUEUED);
	for (size_t i = 0; i < n; i++) {
		size_t k = pop_next(&d, &at);
		uint64_t delay_k = at - k * 100 * US;

		assert_in_range(delay_k, delay - jitter, delay + jitter);
		lo = delay_k < lo ? delay_k : lo;
		hi = delay_k > hi ? delay_k : hi;
		sum += (double)delay_k;
	}
	/* The whole range is used (10,000 uniform draws reach within 1% of each end)... */
	assert_true(lo < delay - jitter + jitter / 50);
	assert_true(hi > delay + jitter - jitter / 50);
	/* ...centred on the delay: 99.9% bound on the mean of a uniform, sd = 2 * jitter / sqrt(12 n). */
	assert_true(fabs(sum / (double)n - (double)delay) <= 3.2905 * 2 * (double)jitter / sqrt(12.0 * (double)n));
	linkdir_free(&d);
}

static void test_jitter_above_delay_never_goes_negative(void **state)
{
	struct linkdir_params p = params(0, 1 * MS, packets(MAX_PKTS));
	struct linkdir d;
	uint64_t at;
	size_t zero = 0;

	(void)state;
	p.jitter_ns = 5 * MS;
	p.reorder = true;
	init(&d, &p, 5);
	for (size_t i = 0; i < 2000; i++)
		assert_int_equal(linkdir_enqueue(&d, 100 * MS, 100, pkt(i)), LINKDIR_QUEUED);
	for (size_t i = 0; i < 2000; i++) {
		pop_next(&d, &at);
		assert_in_range(at, 100 * MS, 106 * MS);
		zero += at == 100 * MS;
	}
	/* Clamped at zero delay in about 2/5 of the draws. */
	assert_in_range(zero, 600, 1000);
	linkdir_free(&d);
}

/* ---- loss ---- */

static void test_lost_packet_still_uses_its_slot(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 10 * MS, packets(100));
	struct linkdir d;

	(void)state;
	p.loss = (struct loss_params){ .kind = LOSS_BERNOULLI, .p = 1 };
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(0)), LINKDIR_DROP_LOSS);
	assert_int_equal(linkdir_held(&d), 0);
	assert_int_equal(linkdir_next_due(&d), UINT64_MAX);
	/* The wire heals; the next packet still leaves after the lost one. */
	d.loss.params.p = 0;
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(1)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_next_due(&d), 2400 * US + 10 * MS);
	linkdir_free(&d);
}

static void test_lost_packet_occupies_the_queue(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 0, packets(1));
	struct linkdir d;

	(void)state;
	p.loss = (struct loss_params){ .kind = LOSS_BERNOULLI, .p = 1 };
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(0)), LINKDIR_DROP_LOSS);
	/* Still on the wire until 1.2 ms: a one-packet queue is full. */
	assert_int_equal(linkdir_enqueue(&d, 500 * US, 1500, pkt(1)), LINKDIR_DROP_QUEUE);
	assert_int_equal(linkdir_enqueue(&d, 1200 * US, 1500, pkt(2)), LINKDIR_DROP_LOSS);
	assert_int_equal(d.stats.loss_drops, 2);
	assert_int_equal(d.stats.queue_drops, 1);
	linkdir_free(&d);
}

static void test_loss_ratio_through_the_link(void **state)
{
	const size_t n = 20000;
	struct linkdir_params p = params(0, 0, packets(MAX_PKTS));
	struct linkdir d;
	size_t lost = 0;

	(void)state;
	p.loss = (struct loss_params){ .kind = LOSS_BERNOULLI, .p = 0.1 };
	init(&d, &p, 9);
	for (size_t i = 0; i < n; i++)
		lost += linkdir_enqueue(&d, i, 100, pkt(i)) == LINKDIR_DROP_LOSS;
	/* 2000 +- 3.29 * sqrt(20000 * 0.1 * 0.9) = 2000 +- 140. */
	assert_in_range(lost, 1860, 2140);
	assert_int_equal(d.stats.loss_drops, lost);
	assert_int_equal(linkdir_held(&d), n - lost);
	linkdir_free(&d);
}

/* ---- statistics ---- */

/*
 * 10 Mbit/s, 10 ms, 3 packets, and a loss model that alternates (pass, lose,
 * pass, ...) without randomness. At 0: A 1000 B (leaves 0.8 ms), B 1500 B
 * (2.0 ms, lost), C 500 B (2.4 ms), D 1500 B (queue full). At 2.0 ms: E 200 B
 * (A and B have left; starts at 2.4 ms, lost).
 */
static void test_stats_in_a_constructed_scenario(void **state)
{
	struct linkdir_params p = params(10 * MBIT, 10 * MS, packets(3));
	struct linkdir d;

	(void)state;
	p.loss = (struct loss_params){ .kind = LOSS_GILBERT_ELLIOTT, .p = 1, .r = 1, .loss_bad = 1, .loss_good = 0 };
	init(&d, &p, 1);
	assert_int_equal(linkdir_enqueue(&d, 0, 1000, pkt(0)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(1)), LINKDIR_DROP_LOSS);
	assert_int_equal(linkdir_enqueue(&d, 0, 500, pkt(2)), LINKDIR_QUEUED);
	assert_int_equal(linkdir_enqueue(&d, 0, 1500, pkt(3)), LINKDIR_DROP_QUEUE);
	assert_int_equal(linkdir_enqueue(&d, 2 * MS, 200, pkt(4)), LINKDIR_DROP_LOSS);
	assert_null(linkdir_pop_due(&d, 10800 * US - 1));
	assert_ptr_equal(linkdir_pop_due(&d, 10800 * US), pkt(0));
	/* C left at 2.4 ms, behind the lost B. */
	assert_int_equal(linkdir_next_due(&d), 12400 * US);
	assert_ptr_equal(linkdir_pop_due(&d, 12400 * US), pkt(2));

	assert_int_equal(d.stats.in_pkts, 5);
	assert_int_equal(d.stats.in_bytes, 4700);
	assert_int_equal(d.stats.out_pkts, 2);
	assert_int_equal(d.stats.out_bytes, 1500);
	assert_int_equal(d.stats.loss_drops, 2);
	assert_int_equal(d.stats.queue_drops, 1);
	assert_int_equal(d.stats.overflow_drops, 0);
	assert_int_equal(d.stats.max_queue_pkts, 3);
	assert_int_equal(d.stats.max_queue_bytes, 3000);
	assert_int_equal(d.stats.max_queue_delay_ns, 2 * MS);
	linkdir_free(&d);
}

/* ---- teardown ---- */

static void test_drain_returns_every_held_packet(void **state)
{
	const size_t n = 1000;
	struct linkdir_params p = params(10 * MBIT, 50 * MS, packets(MAX_PKTS));
	struct linkdir d;
	bool seen[1000] = { false };
	size_t got = 0;
	void *q;

	(void)state;
	p.jitter_ns = 20 * MS;
	p.reorder = true;
	init(&d, &p, 2);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(linkdir_enqueue(&d, i * 100 * US, 1500, pkt(i)), LINKDIR_QUEUED);
	/* Some delivered, the rest drained. */
	for (size_t i = 0; i < 10; i++) {
		uint64_t at;

		seen[pop_next(&d, &at)] = true;
		got++;
	}
	assert_int_equal(linkdir_held(&d), n - 10);
	while ((q = linkdir_drain(&d))) {
		assert_false(seen[idx(q)]);
		seen[idx(q)] = true;
		got++;
	}
	assert_int_equal(got, n);
	assert_int_equal(linkdir_held(&d), 0);
	assert_null(linkdir_drain(&d));
	assert_int_equal(linkdir_next_due(&d), UINT64_MAX);
	linkdir_free(&d);
}

/* ---- determinism ---- */

struct run_record {
	enum linkdir_verdict verdict[2000];
	uint64_t at[2000];
	size_t order[2000];
	size_t delivered;
};

static void record_run(struct run_record *r, uint64_t seed)
{
	struct linkdir_params p = params(10 * MBIT, 20 * MS, packets(50));
	struct linkdir d;

	p.jitter_ns = 5 * MS;
	p.reorder = true;
	p.loss = (struct loss_params){ .kind = LOSS_GILBERT_ELLIOTT, .p = 0.05, .r = 0.3, .loss_bad = 0.7,
				       .loss_good = 0.01 };
	memset(r, 0, sizeof(*r));
	init(&d, &p, seed);
	for (size_t i = 0; i < 2000; i++)
		r->verdict[i] = linkdir_enqueue(&d, i * 500 * US, 1500, pkt(i));
	while (linkdir_next_due(&d) != UINT64_MAX) {
		r->order[r->delivered] = pop_next(&d, &r->at[r->delivered]);
		r->delivered++;
	}
	linkdir_free(&d);
}

static void test_same_seed_same_run(void **state)
{
	static struct run_record a, b, c;

	(void)state;
	record_run(&a, 1234);
	record_run(&b, 1234);
	record_run(&c, 1235);
	assert_true(a.delivered > 0);
	assert_memory_equal(&a, &b, sizeof(a));
	/* Another seed gives another run. */
	assert_memory_not_equal(&a, &c, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_packet_limit_drops_the_fourth),
		cmocka_unit_test(test_byte_limit),
		cmocka_unit_test(test_mtu_drops_larger_packets),
		cmocka_unit_test(test_outage_drops_in_its_windows),
		cmocka_unit_test(test_byte_limit_counts_overhead),
		cmocka_unit_test(test_time_limit_50ms_at_10mbit_is_62500_bytes),
		cmocka_unit_test(test_time_limit_in_trace_mode_uses_the_trace_mean_rate),
		cmocka_unit_test(test_unlimited_rate_with_time_limit_admits_everything),
		cmocka_unit_test(test_delay_is_added_to_departure_exactly),
		cmocka_unit_test(test_pop_due_waits_for_the_due_time),
		cmocka_unit_test(test_pop_due_late_returns_every_due_packet_in_order),
		cmocka_unit_test(test_equal_delivery_times_stay_fifo),
		cmocka_unit_test(test_next_due),
		cmocka_unit_test(test_overhead_counts_on_the_wire_not_in_stats),
		cmocka_unit_test(test_jitter_keeps_fifo_without_reorder),
		cmocka_unit_test(test_jitter_reorders_with_reorder_on),
		cmocka_unit_test(test_jitter_stays_within_delay_plus_minus_jitter),
		cmocka_unit_test(test_jitter_above_delay_never_goes_negative),
		cmocka_unit_test(test_lost_packet_still_uses_its_slot),
		cmocka_unit_test(test_lost_packet_occupies_the_queue),
		cmocka_unit_test(test_loss_ratio_through_the_link),
		cmocka_unit_test(test_stats_in_a_constructed_scenario),
		cmocka_unit_test(test_drain_returns_every_held_packet),
		cmocka_unit_test(test_same_seed_same_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
