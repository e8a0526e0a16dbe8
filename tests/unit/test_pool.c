// SPDX-License-Identifier: MIT
/*
 * Unit tests: the bond's packet pool in a running tunnel (tests/unit/pair.h),
 * on the server's side: the memory a burst took comes back once the bond
 * has been idle for a window or two of its pool (its ticks ask for it, with
 * nothing else to do); a device's cap on its bonds' buffers holds under a
 * burst that would take more, what found no buffer is counted and, unacked,
 * resent until every packet is delivered in order; and beside a second bond
 * the busy one keeps to its share, leaving room for the other.
 *
 * The burst: 3000 packets of 1000 bytes from the client, uplink 1 30 ms
 * slower than uplink 0, so the server holds what uplink 0 brings ahead of
 * the gaps uplink 1 leaves. No CoDel: the resends that a cap causes slow the
 * client's queue down, and CoDel would drop from it (an inner TCP's signal),
 * where these tests count every packet.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "pair.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define BURST 3000

static struct pair p;

static int teardown(void **state)
{
	(void)state;
	pair_free(&p);
	memset(&p, 0, sizeof(p));
	return 0;
}

static const struct wb_bond_counters *bondc(const struct pair_side *s)
{
	return wb_bond_counters(s->bond);
}

static void established_up(const struct pair_options *o)
{
	pair_init(&p, o);
	pair_run_until(&p, p.now + 1 * SEC);
	assert_true(wb_bond_has_session(p.client.bond));
	assert_true(wb_bond_has_session(p.server.bond));
	p.delay_ns[1] = 30 * MS;
	pair_run_until(&p, p.now + 1 * SEC);
}

/* Every id in [1, n] delivered to s exactly once, in order. */
static void assert_delivered_in_order(const struct pair_side *s, size_t n)
{
	assert_int_equal(s->n_delivered, n);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s->delivered[i], i + 1);
}

/* The most the server's bonds held together, and its bond alone, seen at every datagram. */
struct pool_watch {
	uint64_t most_device, most_bond;
	struct wb_bond *other; /* a second bond of the server: it must always find a buffer */
	unsigned other_starved;
};

static bool watch_pool(struct pair *pp, const struct pair_side *from, const struct pair_datagram *d, void *arg)
{
	struct pool_watch *w = arg;
	const struct wb_pktbuf_limit *l = wb_device_pool(pp->server.dev);

	(void)from, (void)d;
	if (l->allocated > w->most_device)
		w->most_device = l->allocated;
	if (wb_pktbuf_memory(&pp->server.bond->pool) > w->most_bond)
		w->most_bond = wb_pktbuf_memory(&pp->server.bond->pool);
	if (w->other && !wb_pktbuf_available(&w->other->pool))
		w->other_starved++;
	return false;
}

static void burst(struct pool_watch *w)
{
	p.filter = watch_pool;
	p.filter_arg = w;
	for (uint64_t id = 1; id <= BURST; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 1000), 0);
	assert_true(pair_settle(&p, p.now + 30 * SEC, 0));
	p.filter = NULL;
	assert_delivered_in_order(&p.server, BURST);
}

/*
 * After the burst the server's pool holds what its reorder buffer needed
 * (the counters say so: the gauges are the pool's own figures); idle, the
 * bond gives it all back within two windows, and its high-water mark
 * stays. A second burst grows the pool again and is delivered.
 */
static void test_memory_comes_back_when_the_bond_is_idle(void **state)
{
	struct pair_options o = { .tuning.no_aqm = true };
	struct pool_watch w = { 0 };
	uint64_t busy;

	(void)state;
	established_up(&o);
	burst(&w);
	busy = bondc(&p.server)->pool_bytes;
	assert_int_equal(busy, wb_pktbuf_memory(&p.server.bond->pool));
	assert_true(busy > 100 * 1024); /* the reorder buffer held packets behind uplink 1 */
	assert_int_equal(bondc(&p.server)->pool_in_use_bytes, 0);
	assert_true(bondc(&p.server)->pool_high_water >= busy);
	assert_int_equal(bondc(&p.server)->pool_full_drops, 0);
	/* Idle, only probes: within two windows everything goes back, on both sides. */
	pair_run_until(&p, p.now + 2 * WB_PKTBUF_WINDOW_NS + 1 * SEC);
	assert_int_equal(bondc(&p.server)->pool_bytes, 0);
	assert_int_equal(bondc(&p.client)->pool_bytes, 0);
	assert_int_equal(wb_device_pool(p.server.dev)->allocated, 0);
	assert_true(bondc(&p.server)->pool_high_water >= busy);
	/* Nothing left to give back: the pool asks for no more ticks of its own. */
	assert_int_equal(wb_pktbuf_deadline(&p.server.bond->pool), UINT64_MAX);
	p.server.n_delivered = 0;
	p.client.n_delivered = 0;
	for (uint64_t id = 1; id <= 200; id++)
		assert_int_equal(pair_send_ip_waiting(&p, &p.client, id, 1000), 0);
	assert_true(pair_settle(&p, p.now + 10 * SEC, 0));
	assert_delivered_in_order(&p.server, 200);
}

/*
 * A server whose cap (128 KiB: 92 buffers) is far below what the burst
 * would hold: the cap is never passed; what found no buffer is counted,
 * left unacked and resent by the client; every packet arrives, in order,
 * none given up.
 */
static void test_the_cap_holds_and_what_misses_it_is_resent(void **state)
{
	const uint64_t cap = 128 * 1024;
	struct pair_options o = { .tuning.no_aqm = true, .server_pool_limit = cap };
	struct pool_watch w = { 0 };

	(void)state;
	established_up(&o);
	burst(&w);
	assert_true(w.most_device <= cap);
	assert_true(w.most_device > cap / 2);
	assert_true(wb_device_pool(p.server.dev)->high_water <= cap);
	assert_true(bondc(&p.server)->pool_full_drops > 0);
	assert_true(bondc(&p.client)->retransmits >= bondc(&p.server)->pool_full_drops);
	assert_int_equal(bondc(&p.server)->reorder_skips, 0);
	assert_int_equal(bondc(&p.server)->rx_beyond_window, 0);
	assert_true(wb_device_pool(p.server.dev)->refused > 0);
}

/*
 * Beside a second bond (a router configured, not connected), the busy bond
 * keeps to its share: at most half the cap, and the other bond could have
 * had a buffer at every moment of the burst.
 */
static void test_a_busy_bond_leaves_room_for_another(void **state)
{
	const uint64_t cap = 512 * 1024;
	struct pair_options o = { .tuning.no_aqm = true, .server_pool_limit = cap };
	struct pool_watch w = { 0 };
	struct wb_bond_params other = { .name = "other" };

	(void)state;
	established_up(&o);
	memset(other.public_key, 9, WB_KEY_LEN);
	assert_int_equal(wb_device_add_bond(p.server.dev, &other, &w.other), 0);
	assert_int_equal(wb_device_pool(p.server.dev)->pools, 2);
	burst(&w);
	assert_true(w.most_bond <= cap / 2);
	assert_true(w.most_device <= cap);
	assert_int_equal(w.other_starved, 0);
	assert_true(bondc(&p.server)->pool_full_drops > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_memory_comes_back_when_the_bond_is_idle, teardown),
		cmocka_unit_test_teardown(test_the_cap_holds_and_what_misses_it_is_resent, teardown),
		cmocka_unit_test_teardown(test_a_busy_bond_leaves_room_for_another, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
