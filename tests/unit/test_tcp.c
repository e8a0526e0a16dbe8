// SPDX-License-Identifier: MIT
/*
 * Unit tests: the simulator's inner TCP model (tests/sim/tcp.c), on its
 * own over one emulated path (linkem's model, no bond), so its figures can
 * be held against what Linux gets on the same path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/tcp.h"
#include "linkdir.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define MBIT 1000000ULL
#define T0 SEC

struct packet {
	uint32_t len;
	uint8_t data[];
};

/* One path: [0] carries client to server, [1] server to client. */
struct path {
	struct linkdir dir[2];
	struct tcp_conn *c;
	uint64_t now;
	uint32_t drop_seq_from, drop_seq_to; /* the client's data segments to drop, once each, by sequence number */
	bool dropped[64];
	uint64_t hold_from, hold_to; /* nothing reaches the server meanwhile, and then all at once, in order */
};

struct path_conf {
	uint64_t rate_bps, delay_ns, limit_ns;
	double loss;        /* each way */
	enum tcp_cc cc;
	uint64_t seconds;
	uint64_t seed;
	uint64_t bytes;     /* 0: as much as the window takes */
};

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool xmit(void *ctx, enum tcp_end from, const uint8_t *ip, size_t len)
{
	struct path *p = ctx;
	struct packet *k;
	uint32_t seq = be32(ip + 24);

	if (from == TCP_CLIENT && len > TCP_HEADERS + 12 && seq >= p->drop_seq_from && seq < p->drop_seq_to &&
	    !p->dropped[(seq - p->drop_seq_from) / 1448]) {
		p->dropped[(seq - p->drop_seq_from) / 1448] = true;
		return true; /* lost on the way: the sender does not know */
	}
	k = malloc(sizeof(*k) + len);
	assert_non_null(k);
	k->len = (uint32_t)len;
	memcpy(k->data, ip, len);
	if (linkdir_enqueue(&p->dir[from], p->now, (uint32_t)len, k) != LINKDIR_QUEUED)
		free(k);
	return true;
}

static void path_open(struct path *p, const struct path_conf *c)
{
	struct tcp_params tp = { .cc = c->cc, .mtu = 1500, .measure_from = T0 + SEC, .client_port = 40000,
				 .seed = c->seed, .xmit = xmit, .ctx = p };

	memset(p, 0, sizeof(*p));
	for (int d = 0; d < 2; d++) {
		struct linkdir_params lp = { .rate_bps = c->rate_bps, .delay_ns = c->delay_ns,
					     .limit = { LIMIT_TIME, c->limit_ns } };

		if (c->loss > 0)
			lp.loss = (struct loss_params){ .kind = LOSS_BERNOULLI, .p = c->loss };
		assert_int_equal(linkdir_init(&p->dir[d], &lp, c->seed * 2 + (uint64_t)d, T0), 0);
	}
	p->now = T0;
	p->c = tcp_conn_new(&tp, T0);
	assert_non_null(p->c);
}

static void path_close(struct path *p)
{
	for (int d = 0; d < 2; d++) {
		void *k;

		while ((k = linkdir_drain(&p->dir[d])))
			free(k);
		linkdir_free(&p->dir[d]);
	}
	tcp_conn_free(p->c);
}

/* Runs until end: the client writes what it may (or c->bytes in all), the server reads. */
static void path_run(struct path *p, uint64_t end, uint64_t bytes)
{
	uint64_t written = 0, spins = 0;

	while (p->now < end) {
		uint64_t next;

		for (int d = 0; d < 2; d++) {
			struct packet *k;

			if (!d && p->now >= p->hold_from && p->now < p->hold_to)
				continue;
			while ((k = linkdir_pop_due(&p->dir[d], p->now))) {
				tcp_input(p->c, d ? TCP_CLIENT : TCP_SERVER, p->now, k->data, k->len);
				free(k);
			}
		}
		{
			uint64_t room = tcp_writable(p->c, TCP_CLIENT);

			if (bytes && room > bytes - written)
				room = bytes - written;
			tcp_write(p->c, TCP_CLIENT, room);
			written += room;
		}
		tcp_run(p->c, p->now);
		next = tcp_next_deadline(p->c);
		for (int d = 0; d < 2; d++) {
			bool held = !d && p->now >= p->hold_from && p->now < p->hold_to;
			uint64_t t = held ? p->hold_to : linkdir_next_due(&p->dir[d]);

			if (t < next)
				next = t;
		}
		if (next > p->now) {
			p->now = next < end ? next : end;
			spins = 0;
		} else {
			assert_true(++spins < 1000); /* something due now that never gets done */
		}
	}
}

/* Goodput in Mbit/s from 1 s to the end, and the server's and the client's view. */
static double run_bulk(const struct path_conf *c, struct tcp_stats *snd, struct tcp_stats *rcv)
{
	struct path p;
	double mbit;

	path_open(&p, c);
	path_run(&p, T0 + c->seconds * SEC, c->bytes);
	tcp_get_stats(p.c, TCP_CLIENT, snd);
	tcp_get_stats(p.c, TCP_SERVER, rcv);
	mbit = (double)rcv->measured_bytes * 8 / (double)(c->seconds - 1) / 1e6;
	print_message("      %s %.0f Mbit/s %.0f ms RTT loss %.0f%%: %.2f Mbit/s, retrans %" PRIu64 ", rto %" PRIu64
		      ", tlp %" PRIu64 ", spurious %" PRIu64 ", ofo %" PRIu64 ", srtt %.1f ms, cwnd %u, rwnd %" PRIu64
		      " KB\n",
		      tcp_cc_name(c->cc), (double)c->rate_bps / 1e6, 2.0 * (double)c->delay_ns / 1e6, c->loss * 100, mbit,
		      snd->retransmits, snd->rto, snd->tlp, snd->spurious, rcv->ofo_segments, snd->srtt_mean_ms, snd->cwnd,
		      rcv->rwnd / 1024);
	path_close(&p);
	return mbit;
}

/*
 * The sanity check that matters: on a clean 100 Mbit/s, 20 ms path with a 50 ms queue, Linux gets
 * 0.93-0.97 of the rate.
 */
static void test_cubic_fills_a_clean_path(void **state)
{
	struct path_conf c = { .rate_bps = 100 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .cc = TCP_CC_CUBIC,
			       .seconds = 15, .seed = 1 };
	struct tcp_stats s, r;
	double mbit = run_bulk(&c, &s, &r);

	(void)state;
	assert_true(mbit >= 93 && mbit <= 97);
	assert_int_equal(s.rto, 0);
	assert_int_equal(r.wire_late, 0);
}

static void test_bbr_fills_a_clean_path(void **state)
{
	struct path_conf c = { .rate_bps = 100 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .cc = TCP_CC_BBR,
			       .seconds = 15, .seed = 1 };
	struct tcp_stats s, r;
	double mbit = run_bulk(&c, &s, &r);

	(void)state;
	assert_true(mbit >= 93 && mbit <= 97);
	assert_int_equal(s.rto, 0);
	/* BBR keeps the queue short: the RTT stays near the path's 20 ms, far below the 70 ms a full queue gives */
	assert_true(s.srtt_mean_ms < 40);
}

static void test_newreno_fills_a_clean_path(void **state)
{
	struct path_conf c = { .rate_bps = 100 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS,
			       .cc = TCP_CC_NEWRENO, .seconds = 15, .seed = 1 };
	struct tcp_stats s, r;

	(void)state;
	assert_true(run_bulk(&c, &s, &r) >= 85);
}

/*
 * 5% loss each way on 40 Mbit/s, 20 ms: loss-based congestion control gets
 * a small share, of the order Mathis' formula gives (MSS/RTT * 1.22/sqrt(p):
 * 3.2 Mbit/s). The model gets about 2.3: its RTT is 25 ms with the delayed
 * acks, and recoveries and the odd timeout cost more.
 */
static void test_cubic_under_five_percent_loss(void **state)
{
	struct path_conf c = { .rate_bps = 40 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .loss = 0.05,
			       .cc = TCP_CC_CUBIC, .seconds = 15, .seed = 3 };
	struct tcp_stats s, r;
	double mbit = run_bulk(&c, &s, &r);

	(void)state;
	assert_true(mbit >= 1.6 && mbit <= 8);
	assert_true(s.retransmits > 0);
	assert_true(r.ofo_segments > 0);
}

/* BBR does not take random loss for congestion: it keeps most of the rate. */
static void test_bbr_under_five_percent_loss(void **state)
{
	struct path_conf c = { .rate_bps = 40 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .loss = 0.05,
			       .cc = TCP_CC_BBR, .seconds = 15, .seed = 3 };
	struct tcp_stats s, r;

	(void)state;
	assert_true(run_bulk(&c, &s, &r) >= 25);
}

/* A long fat path: the receive window must grow well past its 128 KB start (autotuning) to fill it. */
static void test_window_autotuning_fills_a_long_path(void **state)
{
	struct path_conf c = { .rate_bps = 100 * MBIT, .delay_ns = 50 * MS, .limit_ns = 100 * MS, .cc = TCP_CC_BBR,
			       .seconds = 15, .seed = 1 };
	struct tcp_stats s, r;
	double mbit = run_bulk(&c, &s, &r);

	(void)state;
	assert_true(r.rwnd > 4u << 20);
	assert_true(mbit >= 85);
}

/* One data segment lost: SACK and RACK resend it at once; no timeout, nothing out of order on the wire. */
static void test_one_loss_is_repaired_without_timeout(void **state)
{
	struct path_conf c = { .rate_bps = 50 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .cc = TCP_CC_CUBIC,
			       .seconds = 3, .seed = 1 };
	struct tcp_stats s, r;
	struct path p;

	(void)state;
	path_open(&p, &c);
	p.drop_seq_from = 1 + 500 * 1448;
	p.drop_seq_to = 1 + 501 * 1448;
	path_run(&p, T0 + 3 * SEC, 0);
	tcp_get_stats(p.c, TCP_CLIENT, &s);
	tcp_get_stats(p.c, TCP_SERVER, &r);
	assert_int_equal(s.retransmits, 1);
	assert_int_equal(s.rto, 0);
	assert_int_equal(s.recoveries, 1);
	assert_true(r.ofo_segments > 0);
	assert_int_equal(r.wire_late, 0);
	assert_int_equal(r.wire_gaps, 1); /* the one this test dropped */
	path_close(&p);
}

/* A lost tail (the last segments of a transfer): the loss probe repairs it in about two RTTs, without an RTO. */
static void test_lost_tail_is_probed(void **state)
{
	struct path_conf c = { .rate_bps = 50 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .cc = TCP_CC_CUBIC,
			       .seconds = 2, .seed = 1 };
	struct tcp_stats s, r;
	struct path p;

	(void)state;
	path_open(&p, &c);
	p.drop_seq_from = 1 + 98 * 1448;
	p.drop_seq_to = 1 + 100 * 1448;
	path_run(&p, T0 + 2 * SEC, 100 * 1448);
	tcp_get_stats(p.c, TCP_CLIENT, &s);
	tcp_get_stats(p.c, TCP_SERVER, &r);
	assert_int_equal(r.delivered_bytes, 100 * 1448);
	assert_true(s.tlp >= 1);
	assert_int_equal(s.rto, 0);
	path_close(&p);
}

/*
 * The path holds everything for 600 ms, then delivers it in order, as a
 * bond waiting for a slow uplink does: the RTO fires, but the echo of the
 * originals' timestamps shows it was spurious and the window comes back.
 */
static void test_spurious_timeout_is_undone(void **state)
{
	struct path_conf c = { .rate_bps = 50 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .cc = TCP_CC_CUBIC,
			       .seconds = 4, .seed = 1 };
	struct tcp_stats s, r;
	struct path p;

	(void)state;
	path_open(&p, &c);
	p.hold_from = T0 + 2 * SEC;
	p.hold_to = p.hold_from + 600 * MS;
	path_run(&p, T0 + 4 * SEC, 0);
	tcp_get_stats(p.c, TCP_CLIENT, &s);
	tcp_get_stats(p.c, TCP_SERVER, &r);
	print_message("      held 600 ms: rto %" PRIu64 ", undone %" PRIu64 ", spurious %" PRIu64 ", tlp %" PRIu64
		      ", cwnd %u\n", s.rto, s.undo, s.spurious, s.tlp, s.cwnd);
	assert_true(s.rto >= 1);
	assert_true(s.undo >= 1);
	assert_true(s.spurious >= 1);
	assert_true(s.cwnd > 100);
	assert_int_equal(r.wire_late, 0);
	path_close(&p);
}

/* The same seed gives the same run, bit for bit. */
static void test_deterministic(void **state)
{
	struct path_conf c = { .rate_bps = 40 * MBIT, .delay_ns = 10 * MS, .limit_ns = 50 * MS, .loss = 0.02,
			       .cc = TCP_CC_BBR, .seconds = 4, .seed = 9 };
	struct tcp_stats a1, b1, a2, b2;

	(void)state;
	run_bulk(&c, &a1, &b1);
	run_bulk(&c, &a2, &b2);
	assert_memory_equal(&a1, &a2, sizeof(a1));
	assert_memory_equal(&b1, &b2, sizeof(b1));
}

static void test_names(void **state)
{
	enum tcp_cc cc;

	(void)state;
	assert_int_equal(tcp_cc_by_name("bbr", &cc), 0);
	assert_int_equal(cc, TCP_CC_BBR);
	assert_int_equal(tcp_cc_by_name("newreno", &cc), 0);
	assert_int_equal(cc, TCP_CC_NEWRENO);
	assert_int_equal(tcp_cc_by_name("cubic", &cc), 0);
	assert_int_equal(cc, TCP_CC_CUBIC);
	assert_int_equal(tcp_cc_by_name("vegas", &cc), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_one_loss_is_repaired_without_timeout),
		cmocka_unit_test(test_lost_tail_is_probed),
		cmocka_unit_test(test_spurious_timeout_is_undone),
		cmocka_unit_test(test_cubic_fills_a_clean_path),
		cmocka_unit_test(test_bbr_fills_a_clean_path),
		cmocka_unit_test(test_newreno_fills_a_clean_path),
		cmocka_unit_test(test_cubic_under_five_percent_loss),
		cmocka_unit_test(test_bbr_under_five_percent_loss),
		cmocka_unit_test(test_window_autotuning_fills_a_long_path),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
