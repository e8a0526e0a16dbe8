// SPDX-License-Identifier: MIT
/*
 * Unit tests: the congestion controls behind cc.h. NewReno on acks and
 * losses given by hand; BBR on constructed rate-sample streams (exact
 * checks of its state machine and its window), and once over a simulated
 * bottleneck with the real recovery.c producing the samples.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cc.h"
#include "recovery.h"

#define MS 1000000ULL
#define SEC 1000000000ULL
#define T0 (1 * SEC)
#define MSS 1000

/* cc_bbr.c's modes, in its order (not exported). */
enum { STARTUP, DRAIN, PROBE_BW, PROBE_RTT };
#define UNIT 256

static void test_cc_find(void **state)
{
	(void)state;
	assert_ptr_equal(wb_cc_find("bbr"), &wb_cc_bbr);
	assert_ptr_equal(wb_cc_find("newreno"), &wb_cc_newreno);
	assert_string_equal(wb_cc_bbr.name, "bbr");
	assert_string_equal(wb_cc_newreno.name, "newreno");
	assert_null(wb_cc_find(""));
	assert_null(wb_cc_find("BBR"));
	assert_null(wb_cc_find("bbr "));
	assert_null(wb_cc_find("cubic"));
	assert_null(wb_cc_find("newrenoo"));
	/* Every operation is there. */
	assert_non_null(wb_cc_bbr.init);
	assert_non_null(wb_cc_bbr.on_sent);
	assert_non_null(wb_cc_bbr.on_ack);
	assert_non_null(wb_cc_bbr.on_loss);
	assert_non_null(wb_cc_bbr.on_timeout);
	assert_non_null(wb_cc_newreno.init);
	assert_non_null(wb_cc_newreno.on_sent);
	assert_non_null(wb_cc_newreno.on_ack);
	assert_non_null(wb_cc_newreno.on_loss);
	assert_non_null(wb_cc_newreno.on_timeout);
}

/* ---- NewReno ------------------------------------------------------------------------- */

static void reno_init(struct wb_cc *cc)
{
	memset(cc, 0, sizeof(*cc));
	cc->ops = &wb_cc_newreno;
	cc->ops->init(cc, MSS, 0, T0);
}

/* bytes acked one MSS per ack (the last ack takes the rest), with a smoothed RTT. */
static void reno_ack(struct wb_cc *cc, uint64_t bytes, uint64_t srtt)
{
	while (bytes) {
		struct wb_rate_sample rs = { .acked_bytes = bytes < MSS ? bytes : MSS, .srtt_ns = srtt };

		bytes -= rs.acked_bytes;
		cc->ops->on_ack(cc, &rs, T0);
	}
}

static void test_newreno_slow_start_doubles_per_window(void **state)
{
	struct wb_cc cc;

	(void)state;
	reno_init(&cc);
	assert_int_equal(cc.mss, MSS);
	assert_int_equal(cc.cwnd, WB_CC_INITIAL_WINDOW_PACKETS * MSS);
	assert_int_equal(cc.pacing_rate, 0); /* no RTT yet: not paced */
	for (int round = 0; round < 6; round++) {
		uint64_t w = cc.cwnd;

		reno_ack(&cc, w, 0);
		assert_int_equal(cc.cwnd, 2 * w);
	}
	assert_int_equal(cc.pacing_rate, 0);
	/* Paced at 1.25 windows per smoothed RTT once there is one. */
	reno_ack(&cc, MSS, 100 * MS);
	assert_int_equal(cc.pacing_rate, cc.cwnd * 5 / 4 * 10);
}

static void test_newreno_one_reduction_per_loss_event(void **state)
{
	struct wb_cc cc;
	uint64_t w;

	(void)state;
	reno_init(&cc);
	reno_ack(&cc, 30 * MSS, 0);
	w = cc.cwnd;
	assert_int_equal(w, 40 * MSS);
	/* Lost at 10 s, sent at 9.9 s: halved, and the slow start ends there. */
	cc.ops->on_loss(&cc, 10 * SEC, MSS, 10 * SEC - 100 * MS, 30 * MSS);
	assert_int_equal(cc.cwnd, w / 2);
	assert_int_equal(cc.reno.ssthresh, w / 2);
	/* More losses of packets sent before the reduction: the same event. */
	cc.ops->on_loss(&cc, 10 * SEC + 5 * MS, 3 * MSS, 10 * SEC - 1, 20 * MSS);
	cc.ops->on_loss(&cc, 10 * SEC + 6 * MS, 3 * MSS, 10 * SEC, 20 * MSS);
	assert_int_equal(cc.cwnd, w / 2);
	/* A packet sent after it is lost: a new event. */
	cc.ops->on_loss(&cc, 10 * SEC + 200 * MS, MSS, 10 * SEC + 1, 10 * MSS);
	assert_int_equal(cc.cwnd, w / 4);
	assert_int_equal(cc.reno.ssthresh, w / 4);
	/* Never below the minimum window. */
	for (uint64_t k = 1; k < 10; k++)
		cc.ops->on_loss(&cc, 20 * SEC + k * SEC, MSS, 20 * SEC + k * SEC - 1, 0);
	assert_int_equal(cc.cwnd, WB_CC_MIN_WINDOW_PACKETS * MSS);
	assert_int_equal(cc.reno.ssthresh, WB_CC_MIN_WINDOW_PACKETS * MSS);
}

static void test_newreno_congestion_avoidance_adds_one_mss_per_window(void **state)
{
	struct wb_cc cc;
	uint64_t w;

	(void)state;
	reno_init(&cc);
	reno_ack(&cc, 30 * MSS, 0);
	cc.ops->on_loss(&cc, 10 * SEC, MSS, 10 * SEC - 1, 0);
	w = cc.cwnd;
	assert_int_equal(w, 20 * MSS);
	for (int round = 0; round < 5; round++) {
		/* One MSS short of a window: no growth yet; the last MSS of the window: one MSS more. */
		reno_ack(&cc, w - MSS, 0);
		assert_int_equal(cc.cwnd, w);
		reno_ack(&cc, MSS, 0);
		assert_int_equal(cc.cwnd, w + MSS);
		w += MSS;
	}
	/* Acks in odd pieces add up the same. */
	for (uint64_t k = 0; k < w; k += 7)
		reno_ack(&cc, k + 7 <= w ? 7 : w - k, 0);
	assert_int_equal(cc.cwnd, w + MSS);
}

static void test_newreno_timeout_drops_to_the_minimum_window(void **state)
{
	struct wb_cc cc;

	(void)state;
	reno_init(&cc);
	reno_ack(&cc, 50 * MSS, 0);
	assert_int_equal(cc.cwnd, 60 * MSS);
	cc.ops->on_timeout(&cc, 10 * SEC);
	assert_int_equal(cc.cwnd, WB_CC_MIN_WINDOW_PACKETS * MSS);
	assert_int_equal(cc.reno.ssthresh, 30 * MSS);
	/* Slow start again up to the threshold, then one MSS a window. */
	reno_ack(&cc, 4 * MSS, 0);
	reno_ack(&cc, 8 * MSS, 0);
	assert_int_equal(cc.cwnd, 16 * MSS);
	/* Slow start ends at the threshold, whatever is acked beyond it in the same window. */
	reno_ack(&cc, 14 * MSS, 0);
	assert_int_equal(cc.cwnd, 30 * MSS);
	reno_ack(&cc, 29 * MSS, 0);
	assert_int_equal(cc.cwnd, 30 * MSS);
	reno_ack(&cc, MSS, 0);
	assert_int_equal(cc.cwnd, 31 * MSS);
	/* Losses of packets sent before the timeout belong to it. */
	cc.ops->on_loss(&cc, 11 * SEC, MSS, 10 * SEC - 1, 0);
	assert_int_equal(cc.cwnd, 31 * MSS);
}

/* ---- BBR on constructed rate samples --------------------------------------------------- */

struct feed {
	struct wb_cc cc;
	uint64_t now, total; /* delivered so far */
};

static void bbr_start(struct feed *f, uint64_t srtt)
{
	memset(f, 0, sizeof(*f));
	f->cc.ops = &wb_cc_bbr;
	f->now = T0;
	f->cc.ops->init(&f->cc, MSS, srtt, f->now);
}

/*
 * One ack that starts a round (its packet left after the previous round's
 * last delivery), with a delivery-rate sample of bw over one RTT of rtt.
 */
static void bbr_round_after(struct feed *f, uint64_t dt, uint64_t bw, uint64_t rtt, uint64_t in_flight,
			    bool app_limited)
{
	struct wb_rate_sample rs = { 0 };
	uint64_t delivered = bw * rtt / SEC;

	f->now += dt;
	rs.prior_delivered = f->total;
	f->total += delivered;
	rs.acked_bytes = delivered;
	rs.delivered = delivered;
	rs.interval_ns = rtt;
	rs.total_delivered = f->total;
	rs.rtt_ns = rtt;
	rs.min_rtt_ns = rtt;
	rs.srtt_ns = rtt;
	rs.bytes_in_flight = in_flight;
	rs.app_limited = app_limited;
	f->cc.ops->on_ack(&f->cc, &rs, f->now);
}

static void bbr_round(struct feed *f, uint64_t bw, uint64_t rtt, uint64_t in_flight, bool app_limited)
{
	bbr_round_after(f, rtt, bw, rtt, in_flight, app_limited);
}

/* An ack within a round (no round start), dt after the last, with the same rate. */
static void bbr_ack(struct feed *f, uint64_t dt, uint64_t bw, uint64_t rtt, uint64_t in_flight)
{
	struct wb_rate_sample rs = { 0 };

	f->now += dt;
	rs.prior_delivered = f->total > MSS ? f->total - MSS : 0; /* below the round's end: no round start */
	f->total += MSS;
	rs.acked_bytes = MSS;
	rs.delivered = bw * rtt / SEC;
	rs.interval_ns = rtt;
	rs.total_delivered = f->total;
	rs.rtt_ns = rtt;
	rs.min_rtt_ns = rtt;
	rs.srtt_ns = rtt;
	rs.bytes_in_flight = in_flight;
	f->cc.ops->on_ack(&f->cc, &rs, f->now);
}

#define BW (10 * 1000 * 1000ULL) /* 10 MB/s */
#define RTT (20 * MS)
#define BDP (BW * RTT / SEC)     /* 200 kB */

/* Startup until the pipe is full: the bandwidth doubles each round, then stops growing. */
static void test_bbr_startup_fills_the_pipe_after_three_rounds_without_growth(void **state)
{
	struct feed f;
	uint64_t bw = BW / 16, pacing, cwnd;

	(void)state;
	bbr_start(&f, RTT);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	assert_int_equal(f.cc.cwnd, WB_CC_INITIAL_WINDOW_PACKETS * MSS);
	/* The initial window per RTT at the startup gain (2/ln 2, 739/256). */
	assert_int_equal(f.cc.pacing_rate, WB_CC_INITIAL_WINDOW_PACKETS * MSS * 739 / 256 * SEC / RTT);
	pacing = f.cc.pacing_rate;
	cwnd = f.cc.cwnd;
	for (; bw < BW; bw *= 2) {
		bbr_round(&f, bw, RTT, f.cc.cwnd, false);
		assert_int_equal(f.cc.bbr.mode, STARTUP);
		assert_false(f.cc.bbr.filled_pipe);
		assert_true(f.cc.pacing_rate >= pacing);
		assert_true(f.cc.cwnd > cwnd);
		pacing = f.cc.pacing_rate;
		cwnd = f.cc.cwnd;
	}
	/* Paced at the startup gain over the best bandwidth. */
	assert_int_equal(f.cc.bbr.btl_bw, BW / 2);
	assert_int_equal(f.cc.pacing_rate, BW / 2 * 739 / 256);
	/* The full bandwidth now, and a little more (less than a quarter) for three rounds. */
	bbr_round(&f, BW, RTT, f.cc.cwnd, false);
	assert_false(f.cc.bbr.filled_pipe);
	bbr_round(&f, BW + BW / 5, RTT, f.cc.cwnd, false);
	assert_false(f.cc.bbr.filled_pipe);
	bbr_round(&f, BW + BW / 5, RTT, f.cc.cwnd, false);
	assert_false(f.cc.bbr.filled_pipe);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	bbr_round(&f, BW + BW / 5, RTT, 3 * BDP, false);
	assert_true(f.cc.bbr.filled_pipe);
	/* Drain: paced below the bandwidth until what is in flight is one BDP. */
	assert_int_equal(f.cc.bbr.mode, DRAIN);
	assert_true(f.cc.bbr.pacing_gain < UNIT);
	assert_int_equal(f.cc.pacing_rate, (BW + BW / 5) * f.cc.bbr.pacing_gain / UNIT);
}

/* A quarter more resets the count: three rounds in a row without it are needed. */
static void test_bbr_growth_of_a_quarter_restarts_the_count(void **state)
{
	struct feed f;
	uint64_t bw = BW;

	(void)state;
	bbr_start(&f, RTT);
	bbr_round(&f, bw, RTT, BDP, false);
	bbr_round(&f, bw, RTT, BDP, false);
	bbr_round(&f, bw, RTT, BDP, false);
	assert_false(f.cc.bbr.filled_pipe);
	bw = bw * 5 / 4;
	bbr_round(&f, bw, RTT, BDP, false);
	bbr_round(&f, bw, RTT, BDP, false);
	assert_false(f.cc.bbr.filled_pipe);
	bw = bw * 5 / 4;
	bbr_round(&f, bw, RTT, BDP, false);
	bbr_round(&f, bw, RTT, BDP, false);
	bbr_round(&f, bw, RTT, BDP, false);
	assert_false(f.cc.bbr.filled_pipe);
	/* An application-limited round says nothing about a full pipe. */
	bbr_round(&f, bw, RTT, BDP, true);
	assert_false(f.cc.bbr.filled_pipe);
	bbr_round(&f, bw, RTT, BDP, false);
	assert_true(f.cc.bbr.filled_pipe);
}

/* From startup to probe-bw; returns with the feed in the cruising phase at BW and RTT. */
/*
 * An uplink used now and then: application-limited rounds only, which
 * never end startup by themselves. An RTT half again the minimum does:
 * a queue builds (at exactly half again, not yet).
 */
static void test_bbr_startup_ends_when_the_rtt_grows_by_half(void **state)
{
	struct feed f;

	(void)state;
	bbr_start(&f, RTT);
	for (int k = 0; k < 6; k++)
		bbr_round(&f, BW / 8, RTT, f.cc.cwnd, true);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	bbr_round(&f, BW / 8, RTT + RTT / 2, f.cc.cwnd, true);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	bbr_round(&f, BW / 8, RTT + RTT / 2 + 1, f.cc.cwnd, true);
	assert_true(f.cc.bbr.filled_pipe);
	assert_int_not_equal(f.cc.bbr.mode, STARTUP);
}

/*
 * The feed's rounds come as one ack each: a round's delivery at once,
 * which the ack aggregation estimate takes for a burst a window must
 * cover. Tests of the window's other parts start without it.
 */
static void no_aggregation(struct feed *f)
{
	f->cc.bbr.extra_acked[0] = f->cc.bbr.extra_acked[1] = 0;
	f->cc.bbr.ack_epoch_acked = 0;
	f->cc.bbr.ack_epoch_ns = f->now;
}

static void to_probe_bw(struct feed *f);

/*
 * An idle uplink's probes, one at a time (app-limited), see the queue of
 * other traffic on the path: RTTs three times the minimum. That is no
 * queue of its own: its startup does not end, and so its rate, which it
 * has not measured, is not taken as known (it was: an idle bond's second
 * uplink then carried nothing after two minutes beside other traffic).
 */
static void test_bbr_probes_through_others_queue_do_not_end_startup(void **state)
{
	struct feed f;

	(void)state;
	bbr_start(&f, RTT);
	bbr_round(&f, 1000, RTT, MSS, true);
	for (int k = 0; k < 50; k++)
		bbr_round(&f, 1000, 3 * RTT, MSS, true);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	assert_false(f.cc.bbr.filled_pipe);
}

/*
 * On a path whose delay jitters, the RTT rises with the load while the
 * rate still doubles each round: startup goes on. Once the rate stops
 * growing with the RTT still up, it ends; the RTT its busy rounds kept
 * above the minimum becomes the jitter its window covers.
 */
static void test_bbr_startup_rides_out_jitter_and_its_window_covers_it(void **state)
{
	struct feed f;
	uint64_t bw = BW / 16, jitter = RTT * 3 / 4;

	(void)state;
	bbr_start(&f, RTT);
	bbr_round(&f, bw, RTT, MSS, true); /* a probe at the path's least delay */
	for (; bw <= BW; bw *= 2) {
		bbr_round(&f, bw, RTT + jitter, 4 * BDP, false);
		assert_int_equal(f.cc.bbr.mode, STARTUP);
	}
	bbr_round(&f, BW, RTT + jitter, 4 * BDP, false);
	assert_false(f.cc.bbr.filled_pipe);
	bbr_round(&f, BW, RTT + jitter, 4 * BDP, false);
	assert_true(f.cc.bbr.filled_pipe);
	assert_int_equal(f.cc.bbr.min_rtt_ns, RTT);
	assert_int_equal(f.cc.bbr.jitter_ns, jitter);
	/* In probe-bw, two products of the minimum and the rate times the jitter. */
	bbr_ack(&f, MS, BW, RTT + jitter, BDP);
	bbr_ack(&f, MS, BW, RTT + jitter, BDP / 2);
	no_aggregation(&f);
	for (int k = 0; k < 2000; k++)
		bbr_ack(&f, 100000, BW, RTT + jitter, BDP);
	assert_int_equal(f.cc.bbr.mode, PROBE_BW);
	assert_int_equal(f.cc.cwnd, 2 * BDP + BW * jitter / SEC + 3 * MSS + MSS);
}

/*
 * Ten seconds without a sample of a busy uplink (idle but for its probes,
 * or left out by the scheduler): the model starts up again from the rate
 * it had, so it is measured anew when it is used, not held to what it was.
 */
static void test_bbr_a_model_unused_for_ten_seconds_starts_up_again(void **state)
{
	struct feed f;

	(void)state;
	bbr_start(&f, RTT);
	for (uint64_t bw = BW / 8; bw < BW; bw *= 2)
		bbr_round(&f, bw, RTT, f.cc.cwnd, false);
	for (int k = 0; k < 4; k++)
		bbr_round(&f, BW, RTT, 2 * BDP, false);
	assert_true(f.cc.bbr.filled_pipe);
	for (int k = 0; k < 39; k++) {
		bbr_round_after(&f, 250 * MS, 1000, RTT, MSS, true);
		assert_true(f.cc.bbr.filled_pipe);
	}
	bbr_round_after(&f, 250 * MS, 1000, RTT, MSS, true);
	bbr_round_after(&f, 250 * MS, 1000, RTT, MSS, true);
	assert_false(f.cc.bbr.filled_pipe);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	assert_int_equal(f.cc.bbr.pacing_gain, 739);
	/* It paces at its startup gain from the rate it had: not from nothing. */
	assert_true(f.cc.pacing_rate >= BW);
}

/*
 * An uplink that carried only the acks of a download going the other way:
 * its startup ended on the RTT the download's queue added, every sample
 * application-limited, at the acks' rate. An upload then queues more than
 * a round trip of that rate, and the uplink may send none of it: it starts
 * up again. A startup so begun that finds no more than a quarter above
 * where it began makes the estimate a measure (no other follows); one that
 * ended on its own busy rounds begins none.
 */
static void test_bbr_a_backlog_starts_up_an_estimate_of_acks_only(void **state)
{
	struct feed f;
	uint64_t acks = BW / 20;

	(void)state;
	bbr_start(&f, RTT);
	for (int k = 0; k < 6; k++)
		bbr_round(&f, acks, RTT, acks * RTT / SEC, true);
	bbr_round(&f, acks, RTT * 2, acks * RTT * 2 / SEC, true);
	bbr_round(&f, acks, RTT * 2, acks * RTT * 2 / SEC, true);
	assert_true(f.cc.bbr.filled_pipe);
	bbr_ack(&f, MS, acks, RTT, 0);
	assert_int_equal(f.cc.bbr.mode, PROBE_BW);
	/* A backlog of less than a round trip at the rate: acks waiting for their pace. */
	f.cc.ops->on_backlog(&f.cc, f.now, acks * RTT / SEC);
	assert_int_equal(f.cc.bbr.mode, PROBE_BW);
	f.cc.ops->on_backlog(&f.cc, f.now, 4 * acks * RTT / SEC);
	assert_int_equal(f.cc.bbr.mode, STARTUP);
	assert_int_equal(f.cc.bbr.pacing_gain, 739);
	/* It finds nothing more (a path as slow as the acks were): the estimate is the rate. */
	for (int k = 0; k < 4; k++)
		bbr_round(&f, acks, RTT, 2 * acks * RTT / SEC, false);
	assert_true(f.cc.bbr.filled_pipe);
	assert_true(f.cc.bbr.capacity_seen);
	bbr_ack(&f, MS, acks, RTT, 0);
	f.cc.ops->on_backlog(&f.cc, f.now, 100 * acks * RTT / SEC);
	assert_int_not_equal(f.cc.bbr.mode, STARTUP);

	/* A model whose startup ended on its own busy rounds is a measure. */
	to_probe_bw(&f);
	assert_true(f.cc.bbr.capacity_seen);
	f.cc.ops->on_backlog(&f.cc, f.now, 100 * BDP);
	assert_int_equal(f.cc.bbr.mode, PROBE_BW);
}

/*
 * Acks in bursts (an aggregating link, a receiver's delayed acks): what
 * came above the rate since acks last fell behind it is a burst the
 * window must cover, kept as a maximum over two windows of five rounds,
 * and at most 100 ms at the rate.
 */
static void test_bbr_ack_aggregation_widens_the_window(void **state)
{
	struct feed f;

	(void)state;
	to_probe_bw(&f);
	no_aggregation(&f);
	/* Nothing for 5 ms, then 5 ms of acks at once (a round's start, so the windows turn over). */
	f.now += 5 * MS;
	for (int k = 0; k < 50; k++)
		bbr_ack(&f, k ? 1 : 0, BW, RTT, BDP);
	assert_true(f.cc.bbr.extra_acked[0] + f.cc.bbr.extra_acked[1] >= 49 * MSS);
	assert_true(f.cc.cwnd > 2 * BDP + 3 * MSS);
	/* A burst of a second's worth counts for 100 ms of the rate at most. */
	f.cc.bbr.extra_acked[0] = BW;
	bbr_ack(&f, 100000, BW, RTT, BDP);
	assert_true(f.cc.cwnd <= 2 * BDP + BW / 10 + 3 * MSS);
}

static void to_probe_bw(struct feed *f)
{
	bbr_start(f, RTT);
	for (uint64_t bw = BW / 8; bw < BW; bw *= 2)
		bbr_round(f, bw, RTT, f->cc.cwnd, false);
	for (int k = 0; k < 4; k++)
		bbr_round(f, BW, RTT, 2 * BDP, false);
	assert_int_equal(f->cc.bbr.mode, DRAIN);
	/* Still more than a BDP in flight: draining. */
	bbr_ack(f, MS, BW, RTT, BDP + MSS);
	assert_int_equal(f->cc.bbr.mode, DRAIN);
	bbr_ack(f, MS, BW, RTT, BDP);
	assert_int_equal(f->cc.bbr.mode, PROBE_BW);
}

static void test_bbr_drain_then_probe_bw_cycles_its_gains(void **state)
{
	static const uint32_t expect[] = { 256, 256, 256, 256, 256, 256, 320, 192, 256, 256 };
	struct feed f;
	unsigned k = 0;
	uint32_t gain;

	(void)state;
	to_probe_bw(&f);
	assert_int_equal(f.cc.bbr.cwnd_gain, 2 * UNIT);
	gain = f.cc.bbr.pacing_gain;
	assert_int_equal(gain, expect[k]);
	assert_int_equal(f.cc.pacing_rate, BW * gain / UNIT);
	/*
	 * An ack a millisecond with a BDP in flight: each cruising phase lasts
	 * one min RTT; the probe (1.25) lasts until 1.25 BDP are in flight; the
	 * drain (0.75) ends once a BDP or less is in flight.
	 */
	for (int ms = 0; ms < 400 && k + 1 < sizeof(expect) / sizeof(expect[0]); ms++) {
		uint64_t cycle = f.cc.bbr.cycle_index, in_flight = BDP + MSS;

		if (f.cc.bbr.pacing_gain > UNIT)
			in_flight = ms % 40 < 30 ? BDP : BDP * 5 / 4; /* the probe's extra gets in flight */
		bbr_ack(&f, MS, BW, RTT, in_flight);
		assert_int_equal(f.cc.bbr.mode, PROBE_BW);
		if (f.cc.bbr.cycle_index != cycle) {
			assert_int_equal(f.cc.bbr.cycle_index, (cycle + 1) % 8);
			gain = f.cc.bbr.pacing_gain;
			assert_int_equal(gain, expect[++k]);
		}
		assert_int_equal(f.cc.pacing_rate, BW * f.cc.bbr.pacing_gain / UNIT);
	}
	assert_int_equal(k + 1, sizeof(expect) / sizeof(expect[0]));
}

/* The window in probe-bw on a steady stream: two BDPs and 3 MSS, exactly. */
static void test_bbr_probe_bw_window_is_two_bdp_and_3_mss(void **state)
{
	struct feed f;
	uint64_t target;

	(void)state;
	to_probe_bw(&f);
	no_aggregation(&f);
	for (int k = 0; k < 2000; k++)
		bbr_ack(&f, 100000, BW, RTT, BDP);
	/* Acks at the rate, a packet each: the aggregation estimate is the one packet an ack brings. */
	assert_int_equal(f.cc.bbr.extra_acked[0] > f.cc.bbr.extra_acked[1] ? f.cc.bbr.extra_acked[0]
									     : f.cc.bbr.extra_acked[1], MSS);
	target = BW * 2 * (RTT / 1000) / 1000000 + 3 * MSS;
	assert_int_equal(target, 2 * BDP + 3 * MSS);
	assert_int_equal(f.cc.bbr.btl_bw, BW);
	assert_int_equal(f.cc.bbr.min_rtt_ns, RTT);
	assert_int_equal(f.cc.bbr.jitter_ns, 0);
	assert_int_equal(f.cc.cwnd, target + MSS);
}

/* Ten seconds without a new minimum RTT: probe-rtt at 4 MSS for 200 ms and a round, then back. */
static void test_bbr_probe_rtt_after_ten_seconds_and_back(void **state)
{
	struct feed f;
	uint64_t cwnd, stamp, done;

	(void)state;
	to_probe_bw(&f);
	no_aggregation(&f);
	for (int k = 0; k < 2000; k++)
		bbr_ack(&f, 100000, BW, RTT, BDP);
	cwnd = f.cc.cwnd;
	stamp = f.cc.bbr.min_rtt_stamp;
	/* RTTs above the minimum, an ack every 10 ms, until 10 s after the minimum was last seen. */
	while (f.now + 10 * MS <= stamp + 10 * SEC) {
		bbr_ack(&f, 10 * MS, BW, RTT + 5 * MS, BDP);
		assert_int_not_equal(f.cc.bbr.mode, PROBE_RTT);
	}
	assert_int_equal(f.cc.bbr.min_rtt_ns, RTT);
	bbr_ack(&f, 10 * MS, BW, RTT + 5 * MS, BDP);
	assert_int_equal(f.cc.bbr.mode, PROBE_RTT);
	/* Half the product (of the 25 ms just taken as the minimum), not four packets. */
	assert_int_equal(f.cc.cwnd, BW / 2 * (RTT + 5 * MS) / SEC);
	assert_int_equal(f.cc.bbr.prior_cwnd, cwnd);
	assert_int_equal(f.cc.pacing_rate, BW); /* gain 1 */
	/* Until in flight falls to half the product, it waits; then 200 ms and a round. */
	bbr_ack(&f, 1 * MS, BW, RTT, BDP / 2 + MSS);
	assert_int_equal(f.cc.bbr.mode, PROBE_RTT);
	assert_int_equal(f.cc.bbr.probe_rtt_done, 0);
	bbr_ack(&f, 1 * MS, BW, RTT, BDP / 2);
	done = f.now + 200 * MS;
	assert_int_equal(f.cc.bbr.probe_rtt_done, done);
	while (f.now + 10 * MS < done) {
		bbr_round_after(&f, 10 * MS, BW, RTT, BDP / 2, false);
		assert_int_equal(f.cc.bbr.mode, PROBE_RTT);
		assert_int_equal(f.cc.cwnd, BDP / 2);
	}
	bbr_round_after(&f, done - f.now, BW, RTT, BDP / 2, false);
	assert_int_equal(f.cc.bbr.mode, PROBE_BW);
	assert_int_equal(f.cc.bbr.min_rtt_stamp, f.now);
	/* The window it had, at once (and the round that came as one ack: the aggregation estimate's). */
	assert_int_equal(f.cc.cwnd, cwnd + BDP);
	assert_int_equal(f.cc.bbr.cwnd_gain, 2 * UNIT);
}

/*
 * A burst of acks: three times the bandwidth delivered over a quarter of
 * the minimum RTT. Such a sample measures the acks, not the path, and is
 * dropped; over a whole RTT the same rate counts.
 */
static void test_bbr_ignores_samples_shorter_than_the_minimum_rtt(void **state)
{
	struct feed f;
	struct wb_rate_sample rs = { 0 };

	(void)state;
	to_probe_bw(&f);
	assert_int_equal(f.cc.bbr.btl_bw, BW);
	f.now += MS;
	rs.prior_delivered = f.total;
	f.total += 3 * BW * (RTT / 4) / SEC;
	rs.acked_bytes = rs.delivered = 3 * BW * (RTT / 4) / SEC;
	rs.interval_ns = RTT / 4;
	rs.total_delivered = f.total;
	rs.rtt_ns = rs.min_rtt_ns = rs.srtt_ns = RTT;
	rs.bytes_in_flight = BDP;
	f.cc.ops->on_ack(&f.cc, &rs, f.now);
	assert_int_equal(f.cc.bbr.btl_bw, BW);
	bbr_round(&f, 3 * BW, RTT, BDP, false);
	assert_int_equal(f.cc.bbr.btl_bw, 3 * BW);
}

/* RTT samples within an eighth of the minimum confirm it: no probe-rtt, however long. */
static void test_bbr_no_probe_rtt_while_the_minimum_is_confirmed(void **state)
{
	struct feed f;
	uint64_t stamp;

	(void)state;
	to_probe_bw(&f);
	stamp = f.cc.bbr.min_rtt_stamp;
	while (f.now <= stamp + 30 * SEC) {
		bbr_ack(&f, 10 * MS, BW, RTT + RTT / 8, BDP);
		assert_int_not_equal(f.cc.bbr.mode, PROBE_RTT);
	}
	assert_int_equal(f.cc.bbr.min_rtt_ns, RTT);
	/* A little more, for ten seconds: the probe comes. */
	stamp = f.now;
	while (f.now <= stamp + 10 * SEC && f.cc.bbr.mode != PROBE_RTT)
		bbr_ack(&f, 10 * MS, BW, RTT + RTT / 8 + MS, BDP);
	assert_int_equal(f.cc.bbr.mode, PROBE_RTT);
}

/*
 * Probe-rtt's rounds deliver less than the bandwidth: on a 20 ms uplink
 * they are ten rounds, the bandwidth filter's whole window. Their samples,
 * and those of the packets sent then, must not become the estimate.
 */
static void test_bbr_probe_rtt_keeps_the_bandwidth(void **state)
{
	struct feed f;
	uint64_t stamp;

	(void)state;
	to_probe_bw(&f);
	for (int k = 0; k < 2000; k++)
		bbr_ack(&f, 100000, BW, RTT, BDP);
	stamp = f.cc.bbr.min_rtt_stamp;
	while (f.now <= stamp + 10 * SEC)
		bbr_ack(&f, 10 * MS, BW, RTT + 5 * MS, BDP);
	assert_int_equal(f.cc.bbr.mode, PROBE_RTT);
	/* Twelve rounds at a quarter of the bandwidth, through probe-rtt and just after it. */
	for (int k = 0; k < 12; k++)
		bbr_round_after(&f, 20 * MS, BW / 4, RTT, BDP / 2, false);
	assert_int_equal(f.cc.bbr.mode, PROBE_BW);
	assert_int_equal(f.cc.bbr.btl_bw, BW);
	/* Packets sent after it say what the uplink does again. */
	for (int k = 0; k < 12; k++)
		bbr_round_after(&f, 20 * MS, BW / 2, RTT, BDP, false);
	assert_int_equal(f.cc.bbr.btl_bw, BW / 2);
}

static void test_bbr_timeout_to_the_minimum_window(void **state)
{
	struct feed f;

	(void)state;
	to_probe_bw(&f);
	for (int k = 0; k < 500; k++)
		bbr_ack(&f, 100000, BW, RTT, BDP);
	f.cc.ops->on_timeout(&f.cc, f.now);
	assert_int_equal(f.cc.cwnd, WB_CC_MIN_WINDOW_PACKETS * MSS);
	/* Losses are no signal. */
	f.cc.ops->on_loss(&f.cc, f.now, 100 * MSS, f.now - 1, BDP);
	assert_int_equal(f.cc.cwnd, WB_CC_MIN_WINDOW_PACKETS * MSS);
	/* The model rebuilds the window from acks. */
	bbr_ack(&f, MS, BW, RTT, 0);
	assert_int_equal(f.cc.cwnd, (WB_CC_MIN_WINDOW_PACKETS + 1) * MSS);
}

/*
 * cc.h: "windowed max filter: best, second, third", over ten rounds. When
 * the best expires, the best of the rounds since then takes over: 10, then 8
 * three rounds later, then 5 for every round after: rounds 11 to 13 still
 * have the 8 of round 3 in their window.
 */
static void test_bbr_bandwidth_is_the_max_over_ten_rounds(void **state)
{
	struct feed f;

	(void)state;
	bbr_start(&f, RTT);
	bbr_round(&f, 10 * MSS * 1000, RTT, BDP, false); /* round 1 */
	assert_int_equal(f.cc.bbr.btl_bw, 10 * MSS * 1000);
	bbr_round(&f, 9 * MSS * 1000, RTT, BDP, false);
	bbr_round(&f, 9 * MSS * 1000, RTT, BDP, false);
	bbr_round(&f, 8 * MSS * 1000, RTT, BDP, false); /* round 4 */
	for (int round = 5; round <= 11; round++) {
		bbr_round(&f, 5 * MSS * 1000, RTT, BDP, false);
		assert_int_equal(f.cc.bbr.btl_bw, 10 * MSS * 1000);
	}
	/* Round 12: the 10 of round 1 is out of the window; 9 (rounds 2, 3) is the best left. */
	bbr_round(&f, 5 * MSS * 1000, RTT, BDP, false);
	assert_int_equal(f.cc.bbr.round_count, 12);
	assert_int_equal(f.cc.bbr.btl_bw, 9 * MSS * 1000);
	bbr_round(&f, 5 * MSS * 1000, RTT, BDP, false);
	bbr_round(&f, 5 * MSS * 1000, RTT, BDP, false);
	assert_true(f.cc.bbr.btl_bw >= 8 * MSS * 1000);
	for (int k = 0; k < 12; k++)
		bbr_round(&f, 5 * MSS * 1000, RTT, BDP, false);
	assert_int_equal(f.cc.bbr.btl_bw, 5 * MSS * 1000);
}

/* ---- BBR over a simulated bottleneck, samples from recovery.c ------------------------------ */

static void nop_event(void *ctx, const struct wb_sent *p)
{
	(void)ctx, (void)p;
}

#define LINK_BW (5 * 1000 * 1000ULL) /* 5 packets a millisecond */
#define LINK_RTT (30 * MS)
#define MAX_FLIGHT 8192

/*
 * One uplink with a bottleneck of LINK_BW and a propagation RTT of
 * LINK_RTT, an unbounded queue, every packet acked on arrival. The sender
 * always has data; it sends as the window and the pacing allow.
 */
static void test_bbr_over_a_simulated_bottleneck(void **state)
{
	static uint64_t ack_at[MAX_FLIGHT];
	struct wb_recovery rec;
	struct wb_rtt rtt = { 0 };
	struct wb_cc cc;
	const struct wb_recovery_events ev = { .acked = nop_event, .lost = nop_event };
	uint64_t now = T0, next_send = T0, link_free = T0, pn_acked = 0, pacing0, filled_at = 0, top = 0;
	uint64_t tx = MSS * SEC / LINK_BW, bdp = LINK_BW * (LINK_RTT + tx) / SEC;
	int mode = STARTUP;
	bool drained = false;

	(void)state;
	assert_int_equal(wb_recovery_init(&rec, 0), 0);
	memset(&cc, 0, sizeof(cc));
	cc.ops = &wb_cc_bbr;
	cc.ops->init(&cc, MSS, LINK_RTT, now);
	pacing0 = cc.pacing_rate;
	while (now < T0 + 3 * SEC) {
		uint64_t next_ack;

		/* Send what may go now. */
		while (rec.bytes_in_flight + MSS <= cc.cwnd && now >= next_send) {
			uint64_t pn = rec.next_pn;

			assert_true(pn - pn_acked < MAX_FLIGHT);
			wb_recovery_on_sent(&rec, &cc, now, MSS, pn, true, false);
			link_free = (link_free > now ? link_free : now) + tx;
			ack_at[pn % MAX_FLIGHT] = link_free + LINK_RTT;
			next_send = cc.pacing_rate ? now + MSS * SEC / cc.pacing_rate : now;
		}
		next_ack = pn_acked < rec.next_pn ? ack_at[pn_acked % MAX_FLIGHT] : UINT64_MAX;
		if (rec.bytes_in_flight + MSS <= cc.cwnd && next_send < next_ack)
			now = next_send;
		else
			now = next_ack;
		while (pn_acked < rec.next_pn && ack_at[pn_acked % MAX_FLIGHT] <= now) {
			struct wb_ack a = { .n = 1, .r = { { 0, pn_acked } } };

			wb_recovery_on_ack(&rec, &rtt, &cc, &a, now, &ev);
			pn_acked++;
		}
		/* Startup, drain, probe-bw, in that order; startup never slows its pacing. */
		if (mode == STARTUP && cc.bbr.mode == STARTUP) {
			assert_true(cc.pacing_rate >= top);
			top = cc.pacing_rate;
		}
		if (cc.bbr.mode != mode) {
			assert_int_equal(cc.bbr.mode, mode + 1);
			mode = cc.bbr.mode;
			if (mode == DRAIN) {
				filled_at = now;
				/* The bandwidth estimate is the bottleneck's (what the queue let through). */
				assert_true(cc.bbr.btl_bw >= LINK_BW * 95 / 100 && cc.bbr.btl_bw <= LINK_BW * 105 / 100);
			}
			if (mode == PROBE_BW)
				drained = true;
		}
		if (mode == PROBE_BW && now > filled_at + 1 * SEC)
			break;
	}
	assert_true(drained);
	assert_true(filled_at > 0 && filled_at < T0 + 1 * SEC);
	/* Startup paced at twice the bottleneck and more (2/ln 2), from a fifth of it. */
	assert_true(pacing0 < LINK_BW / 4);
	assert_true(top > 2 * LINK_BW);
	assert_true(cc.pacing_rate >= LINK_BW * 3 / 4 * 95 / 100 && cc.pacing_rate <= LINK_BW * 5 / 4 * 105 / 100);
	/* In probe-bw: about two BDPs and 3 MSS, the exact target of its own estimates. */
	assert_true(cc.bbr.min_rtt_ns >= LINK_RTT + tx && cc.bbr.min_rtt_ns <= LINK_RTT + 2 * tx);
	assert_true(cc.cwnd >= (2 * bdp + 3 * MSS) * 9 / 10 && cc.cwnd <= (2 * bdp + 3 * MSS) * 11 / 10);
	/* Exactly, but for the aggregation estimate: acks one by one, at most a packet or two above the rate. */
	assert_true(cc.cwnd >= cc.bbr.btl_bw * 2 * (cc.bbr.min_rtt_ns / 1000) / 1000000 + 3 * MSS);
	assert_true(cc.cwnd <= cc.bbr.btl_bw * 2 * (cc.bbr.min_rtt_ns / 1000) / 1000000 + 5 * MSS);
	assert_int_equal(cc.bbr.jitter_ns, 0);
	wb_recovery_free(&rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cc_find),
		cmocka_unit_test(test_newreno_slow_start_doubles_per_window),
		cmocka_unit_test(test_newreno_one_reduction_per_loss_event),
		cmocka_unit_test(test_newreno_congestion_avoidance_adds_one_mss_per_window),
		cmocka_unit_test(test_newreno_timeout_drops_to_the_minimum_window),
		cmocka_unit_test(test_bbr_startup_fills_the_pipe_after_three_rounds_without_growth),
		cmocka_unit_test(test_bbr_growth_of_a_quarter_restarts_the_count),
		cmocka_unit_test(test_bbr_drain_then_probe_bw_cycles_its_gains),
		cmocka_unit_test(test_bbr_probe_bw_window_is_two_bdp_and_3_mss),
		cmocka_unit_test(test_bbr_probes_through_others_queue_do_not_end_startup),
		cmocka_unit_test(test_bbr_startup_rides_out_jitter_and_its_window_covers_it),
		cmocka_unit_test(test_bbr_a_model_unused_for_ten_seconds_starts_up_again),
		cmocka_unit_test(test_bbr_a_backlog_starts_up_an_estimate_of_acks_only),
		cmocka_unit_test(test_bbr_ack_aggregation_widens_the_window),
		cmocka_unit_test(test_bbr_probe_rtt_after_ten_seconds_and_back),
		cmocka_unit_test(test_bbr_probe_rtt_keeps_the_bandwidth),
		cmocka_unit_test(test_bbr_no_probe_rtt_while_the_minimum_is_confirmed),
		cmocka_unit_test(test_bbr_ignores_samples_shorter_than_the_minimum_rtt),
		cmocka_unit_test(test_bbr_startup_ends_when_the_rtt_grows_by_half),
		cmocka_unit_test(test_bbr_timeout_to_the_minimum_window),
		cmocka_unit_test(test_bbr_bandwidth_is_the_max_over_ten_rounds),
		cmocka_unit_test(test_bbr_over_a_simulated_bottleneck),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
