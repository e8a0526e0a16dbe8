// SPDX-License-Identifier: MIT
/*
 * Unit tests: recovery.c, the sending side of one uplink's reliability: acks,
 * RTT samples, loss by packet and time threshold, the probe timeout and the
 * double-PTO timeout, bytes in flight, delivery-rate samples, ring growth.
 * The congestion control is NewReno behind a table that also records what it
 * is told; the events go to a fake bond that records every packet reported.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ackgen.h"
#include "cc.h"
#include "prng.h"
#include "recovery.h"
#include "varint.h"

#define MS 1000000ULL
#define US 1000ULL
#define T0 (1000 * MS)
#define MSS 1200
#define MAX_PN 200000

/* ---- a congestion control that records, and a bond that records --------------------- */

static struct {
	unsigned acks, losses, timeouts;
	struct wb_rate_sample rs;
	uint64_t lost_bytes, largest_lost_sent_ns;
} ccrec;

static void rec_on_ack(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	ccrec.acks++;
	ccrec.rs = *rs;
	wb_cc_newreno.on_ack(cc, rs, now);
}

static void rec_on_loss(struct wb_cc *cc, uint64_t now, uint64_t lost_bytes, uint64_t largest_lost_sent_ns,
			uint64_t in_flight)
{
	ccrec.losses++;
	ccrec.lost_bytes = lost_bytes;
	ccrec.largest_lost_sent_ns = largest_lost_sent_ns;
	wb_cc_newreno.on_loss(cc, now, lost_bytes, largest_lost_sent_ns, in_flight);
}

static void rec_on_timeout(struct wb_cc *cc, uint64_t now)
{
	ccrec.timeouts++;
	wb_cc_newreno.on_timeout(cc, now);
}

static struct wb_cc_ops rec_ops;

enum { NONE = 0, ACKED = 1, LOST = 2 };

struct bond {
	uint8_t *state;       /* per packet number: ACKED and LOST bits */
	uint64_t *dsn;        /* the DSN reported with it */
	uint32_t *bytes;
	unsigned acked, lost, acked_after_lost;
	uint64_t last_acked, last_lost;
};

static struct bond fb;

static void on_acked(void *ctx, const struct wb_sent *p)
{
	struct bond *b = ctx;

	assert_true(p->pn < MAX_PN);
	assert_false(b->state[p->pn] & ACKED); /* never twice */
	if (b->state[p->pn] & LOST)
		b->acked_after_lost++;
	b->state[p->pn] |= ACKED;
	b->dsn[p->pn] = p->dsn;
	b->bytes[p->pn] = p->bytes;
	b->acked++;
	b->last_acked = p->pn;
}

static void on_lost(void *ctx, const struct wb_sent *p)
{
	struct bond *b = ctx;

	assert_true(p->pn < MAX_PN);
	assert_int_equal(b->state[p->pn], NONE); /* never twice, never after an ack */
	assert_true(p->flags & WB_SENT_ACK_ELICITING);
	b->state[p->pn] |= LOST;
	b->dsn[p->pn] = p->dsn;
	b->bytes[p->pn] = p->bytes;
	b->lost++;
	b->last_lost = p->pn;
}

static const struct wb_recovery_events ev = { .acked = on_acked, .lost = on_lost, .ctx = &fb };

/* One uplink's sending side. */
static struct wb_recovery r;
static struct wb_cc cc;
static struct wb_rtt rtt;

static int setup(void **state)
{
	(void)state;
	memset(&ccrec, 0, sizeof(ccrec));
	rec_ops = wb_cc_newreno;
	rec_ops.name = "recording newreno";
	rec_ops.on_ack = rec_on_ack;
	rec_ops.on_loss = rec_on_loss;
	rec_ops.on_timeout = rec_on_timeout;
	memset(&cc, 0, sizeof(cc));
	cc.ops = &rec_ops;
	cc.ops->init(&cc, MSS, 0, T0);
	memset(&rtt, 0, sizeof(rtt));
	memset(&fb, 0, sizeof(fb));
	fb.state = calloc(MAX_PN, 1);
	fb.dsn = calloc(MAX_PN, sizeof(*fb.dsn));
	fb.bytes = calloc(MAX_PN, sizeof(*fb.bytes));
	if (!fb.state || !fb.dsn || !fb.bytes)
		return -1;
	return wb_recovery_init(&r, 0);
}

static int teardown(void **state)
{
	(void)state;
	wb_recovery_free(&r);
	free(fb.state);
	free(fb.dsn);
	free(fb.bytes);
	return 0;
}

static void sent(uint64_t now, uint32_t bytes, uint64_t dsn)
{
	wb_recovery_on_sent(&r, &cc, now, bytes, dsn, true, false);
}

static void sent_ack_only(uint64_t now, uint32_t bytes)
{
	wb_recovery_on_sent(&r, &cc, now, bytes, WB_NO_DSN, false, false);
}

/* An ack of the ranges given as lo, hi pairs (descending), with a delay in µs. */
/* wb_recovery_on_ack on n ranges (lo, hi pairs): 1 (something new), 0, or -EPROTO. */
static int ack_rc(uint64_t now, uint64_t delay_us, unsigned n, va_list ap)
{
	struct wb_ack a = { .delay_us = delay_us, .n = n };

	for (unsigned i = 0; i < n; i++) {
		a.r[i].lo = va_arg(ap, uint64_t);
		a.r[i].hi = va_arg(ap, uint64_t);
	}
	return wb_recovery_on_ack(&r, &rtt, &cc, &a, now, &ev);
}

/* Whether an ack acked anything new (a refused one fails the caller's assert_true as well). */
static bool ack(uint64_t now, uint64_t delay_us, unsigned n, ...)
{
	va_list ap;
	int rc;

	va_start(ap, n);
	rc = ack_rc(now, delay_us, n, ap);
	va_end(ap);
	assert_true(rc >= 0);
	return rc > 0;
}

/* The result of an ack that must be refused. */
static int refused_ack(uint64_t now, unsigned n, ...)
{
	va_list ap;
	int rc;

	va_start(ap, n);
	rc = ack_rc(now, 0, n, ap);
	va_end(ap);
	return rc;
}

#define A(x) ((uint64_t)(x))

/* ---- acks ------------------------------------------------------------------------------ */

static void test_acks_mark_packets_and_call_acked(void **state)
{
	uint64_t cwnd0 = cc.cwnd;

	(void)state;
	/* Numbers start where the uplink's counter is. */
	wb_recovery_free(&r);
	assert_int_equal(wb_recovery_init(&r, 100), 0);
	for (uint64_t i = 0; i < 10; i++)
		sent(T0 + i * MS, 1000, 500 + i);
	assert_int_equal(r.next_pn, 110);
	assert_int_equal(r.bytes_in_flight, 10000);
	assert_true(ack(T0 + 50 * MS, 0, 1, A(100), A(104)));
	assert_int_equal(fb.acked, 5);
	for (uint64_t pn = 100; pn <= 104; pn++) {
		assert_int_equal(fb.state[pn], ACKED);
		assert_int_equal(fb.dsn[pn], 500 + pn - 100);
		assert_int_equal(fb.bytes[pn], 1000);
	}
	assert_int_equal(fb.state[105], NONE);
	assert_int_equal(r.bytes_in_flight, 5000);
	assert_int_equal(r.acked_packets, 5);
	assert_int_equal(r.largest_acked, 104);
	assert_int_equal(ccrec.acks, 1);
	assert_int_equal(ccrec.rs.acked_bytes, 5000);
	assert_int_equal(cc.cwnd, cwnd0 + 5000); /* slow start */
	/* The same ack again: nothing new, nothing told. */
	assert_false(ack(T0 + 51 * MS, 0, 1, A(100), A(104)));
	assert_int_equal(fb.acked, 5);
	assert_int_equal(ccrec.acks, 1);
	/* An ack past what was sent is refused whole: nothing acked, nothing lost. */
	assert_int_equal(refused_ack(T0 + 52 * MS, 1, A(105), A(1000)), -EPROTO);
	assert_int_equal(refused_ack(T0 + 52 * MS, 2, A(110), A(110), A(105), A(107)), -EPROTO);
	assert_int_equal(fb.acked, 5);
	assert_int_equal(fb.lost, 0);
	assert_int_equal(r.largest_acked, 104);
	assert_int_equal(r.bytes_in_flight, 5000);
	assert_int_equal(ccrec.acks, 1);
	/* The last one sent is the largest an ack may name. */
	assert_true(ack(T0 + 52 * MS, 0, 1, A(105), A(109)));
	assert_int_equal(fb.acked, 10);
	assert_int_equal(r.largest_acked, 109);
	assert_int_equal(r.bytes_in_flight, 0);
	/* Below the first number, or after everything was acked: nothing. */
	assert_false(ack(T0 + 53 * MS, 0, 1, A(0), A(99)));
	assert_int_equal(fb.acked, 10);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), UINT64_MAX);
}

static void test_acks_of_several_ranges(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 20; i++)
		sent(T0, 100 + (uint32_t)i, i);
	assert_true(ack(T0 + 10 * MS, 0, 3, A(15), A(17), A(9), A(11), A(2), A(2)));
	assert_int_equal(fb.acked, 7);
	for (uint64_t pn = 0; pn < 20; pn++) {
		bool in = (pn >= 15 && pn <= 17) || (pn >= 9 && pn <= 11) || pn == 2;

		if (!in)
			assert_false(fb.state[pn] & ACKED);
		else
			assert_int_equal(fb.state[pn], ACKED);
	}
}

/* ---- RTT samples --------------------------------------------------------------------- */

static void test_rtt_sample_only_from_a_newly_acked_eliciting_largest(void **state)
{
	(void)state;
	sent(T0, 1000, 0);
	sent_ack_only(T0 + 1 * MS, 50);
	/* The largest acked carried no data and asked for no ack: no sample, though 0 is newly acked. */
	assert_true(ack(T0 + 20 * MS, 0, 1, A(0), A(1)));
	assert_false(rtt.has_sample);
	assert_int_equal(ccrec.rs.rtt_ns, 0);
	sent(T0 + 30 * MS, 1000, 1);
	assert_true(ack(T0 + 50 * MS, 0, 1, A(0), A(2)));
	assert_true(rtt.has_sample);
	assert_int_equal(rtt.latest_ns, 20 * MS);
	assert_int_equal(ccrec.rs.rtt_ns, 20 * MS);
	/* Acked again, later: no new sample. */
	assert_false(ack(T0 + 90 * MS, 0, 1, A(0), A(2)));
	assert_int_equal(rtt.latest_ns, 20 * MS);
	/* 3 and 4; 4 acked first (sample 10 ms), then 3 with 4 again: 4 is not newly acked, no sample. */
	sent(T0 + 100 * MS, 1000, 3);
	sent(T0 + 100 * MS, 1000, 4);
	assert_true(ack(T0 + 110 * MS, 0, 2, A(4), A(4), A(0), A(2)));
	assert_int_equal(rtt.latest_ns, 10 * MS);
	assert_true(ack(T0 + 150 * MS, 0, 1, A(0), A(4)));
	assert_int_equal(rtt.latest_ns, 10 * MS);
	assert_int_equal(ccrec.rs.rtt_ns, 0);
	assert_int_equal(rtt.min_ns, 10 * MS);
}

static void test_ack_delay_is_subtracted_but_never_below_min_rtt(void **state)
{
	(void)state;
	/* The first sample is taken whole: there is no minimum yet to guard. */
	sent(T0, 1000, 0);
	assert_true(ack(T0 + 20 * MS, 3000, 1, A(0), A(0)));
	assert_int_equal(rtt.latest_ns, 20 * MS);
	assert_int_equal(rtt.min_ns, 20 * MS);
	/* 30 ms with 4 ms held by the peer: 26 ms. */
	sent(T0 + 100 * MS, 1000, 1);
	assert_true(ack(T0 + 130 * MS, 4000, 1, A(1), A(1)));
	assert_int_equal(rtt.latest_ns, 26 * MS);
	/* 22 ms with 5 ms held: 17 ms would be below the 20 ms minimum, so taken whole. */
	sent(T0 + 200 * MS, 1000, 2);
	assert_true(ack(T0 + 222 * MS, 5000, 1, A(2), A(2)));
	assert_int_equal(rtt.latest_ns, 22 * MS);
	/* Exactly at the minimum after the subtraction: subtracted. */
	sent(T0 + 300 * MS, 1000, 3);
	assert_true(ack(T0 + 325 * MS, 5000, 1, A(3), A(3)));
	assert_int_equal(rtt.latest_ns, 20 * MS);
	/* A delay above the largest we allow counts as that largest (5 ms). */
	sent(T0 + 400 * MS, 1000, 4);
	assert_true(ack(T0 + 440 * MS, 50000, 1, A(4), A(4)));
	assert_int_equal(rtt.latest_ns, 40 * MS - WB_MAX_ACK_DELAY_NS);
	sent(T0 + 500 * MS, 1000, 5);
	assert_true(ack(T0 + 540 * MS, WB_VARINT_MAX, 1, A(5), A(5)));
	assert_int_equal(rtt.latest_ns, 40 * MS - WB_MAX_ACK_DELAY_NS);
	assert_int_equal(rtt.min_ns, 20 * MS);
}

/* ---- loss ------------------------------------------------------------------------------ */

static void test_packet_threshold_loss(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 8; i++)
		sent(T0 + i * MS, 1000, 100 + i);
	/* 3 acked: 0 has 3 later packets acked, 1 and 2 not yet (and not old enough for time). */
	assert_true(ack(T0 + 100 * MS, 0, 1, A(3), A(3)));
	assert_int_equal(fb.lost, 1);
	assert_int_equal(fb.state[0], LOST);
	assert_int_equal(fb.dsn[0], 100);
	assert_int_equal(fb.state[1], NONE);
	assert_int_equal(fb.state[2], NONE);
	assert_int_equal(r.lost_packets, 1);
	assert_int_equal(r.lost_bytes, 1000);
	assert_int_equal(r.bytes_in_flight, 6000);
	assert_int_equal(ccrec.losses, 1);
	assert_int_equal(ccrec.lost_bytes, 1000);
	assert_int_equal(ccrec.largest_lost_sent_ns, T0);
	/* The loss timer is armed for 1: sent at 1 ms, 9/8 of the 97 ms RTT later. */
	assert_int_equal(r.loss_time, T0 + 1 * MS + 97 * MS * 9 / 8);
	/* 5 acked: 1 and 2 have 3 later ones acked now (3, 4?, 5: 5 >= 2 + 3). */
	assert_true(ack(T0 + 101 * MS, 0, 2, A(5), A(5), A(3), A(3)));
	assert_int_equal(fb.lost, 3);
	assert_int_equal(fb.state[1], LOST);
	assert_int_equal(fb.state[2], LOST);
	assert_int_equal(fb.state[4], NONE);
	assert_int_equal(r.bytes_in_flight, 3000); /* 4, 6, 7 */
	assert_int_equal(ccrec.losses, 2);
	assert_int_equal(ccrec.lost_bytes, 2000);
	assert_int_equal(ccrec.largest_lost_sent_ns, T0 + 2 * MS);
}

static void test_packets_without_ack_eliciting_are_never_lost(void **state)
{
	(void)state;
	sent(T0, 1000, 0);
	sent_ack_only(T0, 40);
	sent_ack_only(T0, 40);
	sent(T0, 1000, 3);
	sent(T0, 1000, 4);
	sent(T0, 1000, 5);
	sent(T0, 1000, 6);
	assert_int_equal(r.bytes_in_flight, 5000);
	assert_true(ack(T0 + 10 * MS, 0, 1, A(6), A(6)));
	assert_int_equal(fb.lost, 2);
	assert_int_equal(fb.state[0], LOST);
	assert_int_equal(fb.state[1], NONE);
	assert_int_equal(fb.state[2], NONE);
	assert_int_equal(fb.state[3], LOST);
	assert_int_equal(r.bytes_in_flight, 2000);
}

static void test_time_threshold_loss_by_the_loss_timer(void **state)
{
	uint64_t cwnd, deadline;

	(void)state;
	sent(T0, 1000, 0);
	sent(T0 + 1 * MS, 1000, 1);
	sent(T0 + 2 * MS, 1000, 2);
	/* 2 acked after 48 ms: 0 and 1 are below it, too few later packets, and not old enough yet. */
	assert_true(ack(T0 + 50 * MS, 0, 1, A(2), A(2)));
	assert_int_equal(rtt.latest_ns, 48 * MS);
	assert_int_equal(fb.lost, 0);
	/* The timer: the oldest one's send time and 9/8 of the RTT. */
	deadline = T0 + 48 * MS * 9 / 8;
	assert_int_equal(r.loss_time, deadline);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), deadline);
	cwnd = cc.cwnd;
	assert_false(wb_recovery_on_timer(&r, &rtt, &cc, deadline - 1, &ev));
	assert_int_equal(fb.lost, 0);
	assert_false(wb_recovery_on_timer(&r, &rtt, &cc, deadline, &ev));
	assert_int_equal(fb.lost, 1);
	assert_int_equal(fb.state[0], LOST);
	assert_int_equal(fb.state[1], NONE);
	assert_int_equal(ccrec.losses, 1);
	assert_int_equal(cc.cwnd, cwnd / 2);
	/* Re-armed for 1. */
	assert_int_equal(r.loss_time, T0 + 1 * MS + 48 * MS * 9 / 8);
	assert_false(wb_recovery_on_timer(&r, &rtt, &cc, r.loss_time, &ev));
	assert_int_equal(fb.state[1], LOST);
	assert_int_equal(r.loss_time, 0);
	assert_int_equal(r.bytes_in_flight, 0);
	/* One congestion event: the second loss was sent before the first reduction. */
	assert_int_equal(ccrec.losses, 2);
	assert_int_equal(cc.cwnd, cwnd / 2);
}

/*
 * A packet declared lost that is acked later after all: counted as spurious
 * (its resent copy was not needed). Here the lost packet is the oldest one
 * outstanding, which is how most losses look.
 */
static void test_spurious_loss_of_the_oldest_packet_is_counted(void **state)
{
	(void)state;
	for (uint64_t i = 0; i < 5; i++)
		sent(T0, 1000, i);
	assert_true(ack(T0 + 10 * MS, 0, 1, A(1), A(3)));
	assert_int_equal(fb.state[0], LOST);
	assert_int_equal(r.spurious, 0);
	/* 0 was only late. */
	ack(T0 + 11 * MS, 0, 2, A(4), A(4), A(0), A(3));
	assert_int_equal(r.spurious, 1);
	assert_int_equal(fb.acked_after_lost, 1);
}

/*
 * The same after a timeout: everything in flight was declared lost, then the
 * acks come after all (a delay spike, not a loss). Both were spurious.
 */
static void test_spurious_losses_after_a_timeout_are_counted(void **state)
{
	uint64_t pto, t;

	(void)state;
	sent(T0, 1000, 0);
	assert_true(ack(T0 + 10 * MS, 0, 1, A(0), A(0)));
	pto = wb_recovery_pto(&rtt);
	t = T0 + 100 * MS;
	sent(t, 1000, 1);
	sent(t, 1000, 2);
	assert_true(wb_recovery_on_timer(&r, &rtt, &cc, t + pto, &ev));
	assert_true(wb_recovery_on_timer(&r, &rtt, &cc, t + 3 * pto, &ev));
	assert_true(r.timed_out);
	assert_int_equal(fb.lost, 2);
	ack(t + 3 * pto + MS, 0, 1, A(0), A(2));
	assert_int_equal(r.spurious, 2);
	assert_int_equal(fb.acked_after_lost, 2);
}

/*
 * recovery.h: once packets were acked out of order, the packet threshold is
 * off; a loss then needs its time threshold, wider after spurious losses.
 */
static void test_after_reordering_only_time_declares_a_loss(void **state)
{
	uint64_t t = T0 + 50 * MS;

	(void)state;
	for (uint64_t i = 0; i < 10; i++)
		sent(T0, 1000, i);
	assert_true(ack(T0 + 40 * MS, 0, 1, A(5), A(5)));
	assert_int_equal(fb.lost, 3); /* 0, 1, 2 by count */
	assert_false(r.reordering_seen);
	/* They were only late. */
	assert_true(ack(T0 + 41 * MS, 0, 1, A(0), A(9)));
	assert_int_equal(r.spurious, 3);
	assert_true(r.reordering_seen);
	/* 15 acked with 10..14 outstanding: not lost by count any more, and not old enough. */
	for (uint64_t i = 10; i < 20; i++)
		sent(t, 1000, i);
	assert_true(ack(t + 40 * MS, 0, 1, A(15), A(19)));
	assert_int_equal(fb.lost, 3);
	for (uint64_t pn = 10; pn < 15; pn++)
		assert_int_equal(fb.state[pn], NONE);
	assert_true(r.loss_time > t + 40 * MS);
	/* At the timer, all five by time. */
	assert_false(wb_recovery_on_timer(&r, &rtt, &cc, r.loss_time, &ev));
	assert_int_equal(fb.lost, 8);
	assert_int_equal(r.bytes_in_flight, 0);
}

/* ---- the probe timeout ------------------------------------------------------------------ */

static void test_pto_without_a_sample_is_rfc_9002s_initial(void **state)
{
	(void)state;
	assert_int_equal(wb_recovery_pto(&rtt), 333 * MS + 666 * MS + WB_MAX_ACK_DELAY_NS);
	rtt = (struct wb_rtt){ .has_sample = true, .srtt_ns = 10 * MS, .rttvar_ns = 100 * US, .min_ns = 10 * MS };
	/* Four variances, but at least a millisecond. */
	assert_int_equal(wb_recovery_pto(&rtt), 10 * MS + 1 * MS + WB_MAX_ACK_DELAY_NS);
	rtt.rttvar_ns = 2 * MS;
	assert_int_equal(wb_recovery_pto(&rtt), 10 * MS + 8 * MS + WB_MAX_ACK_DELAY_NS);
}

/*
 * recovery.h: the probe timeout runs from the oldest packet in flight; the
 * second in a row (twice as long, from the first's expiry) declares
 * everything in flight lost.
 */
static void test_pto_deadline_doubles_and_the_second_abandons_everything(void **state)
{
	uint64_t pto, t1, t2;

	(void)state;
	assert_int_equal(wb_recovery_deadline(&r, &rtt), UINT64_MAX);
	sent(T0, 1000, 0);
	assert_true(ack(T0 + 20 * MS, 0, 1, A(0), A(0)));
	pto = wb_recovery_pto(&rtt);
	assert_int_equal(pto, 20 * MS + 40 * MS + WB_MAX_ACK_DELAY_NS);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), UINT64_MAX); /* nothing in flight */
	t1 = T0 + 100 * MS;
	sent(t1, 1000, 1);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), t1 + pto);
	/* Later packets, eliciting or not, do not push it away. */
	sent(t1 + 1 * MS, 1000, 2);
	sent_ack_only(t1 + 2 * MS, 40);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), t1 + pto);
	assert_false(wb_recovery_on_timer(&r, &rtt, &cc, t1 + pto - 1, &ev));
	assert_int_equal(r.pto_count, 0);
	/* The first: the caller sends a probe; nothing is declared lost. */
	assert_true(wb_recovery_on_timer(&r, &rtt, &cc, t1 + pto, &ev));
	assert_int_equal(r.pto_count, 1);
	assert_int_equal(fb.lost, 0);
	assert_int_equal(r.bytes_in_flight, 2000);
	assert_false(r.timed_out);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), t1 + pto + 2 * pto);
	/* The probe goes out: the doubled timeout still counts from the first expiry. */
	t2 = t1 + pto;
	sent(t2, 100, WB_NO_DSN);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), t2 + 2 * pto);
	assert_false(wb_recovery_on_timer(&r, &rtt, &cc, t2 + 2 * pto - 1, &ev));
	assert_int_equal(r.pto_count, 1);
	/* The second in a row: everything in flight is lost, the window is the minimum. */
	assert_true(wb_recovery_on_timer(&r, &rtt, &cc, t2 + 2 * pto, &ev));
	assert_int_equal(r.pto_count, 2);
	assert_int_equal(fb.lost, 3);
	assert_int_equal(fb.state[1], LOST);
	assert_int_equal(fb.state[2], LOST);
	assert_int_equal(fb.state[4], LOST);
	assert_int_equal(fb.state[3], NONE);
	assert_int_equal(fb.dsn[1], 1);
	assert_int_equal(fb.dsn[4], WB_NO_DSN);
	assert_int_equal(r.bytes_in_flight, 0);
	assert_true(r.timed_out);
	assert_int_equal(r.timeouts, 1);
	assert_int_equal(ccrec.timeouts, 1);
	assert_int_equal(cc.cwnd, (uint64_t)WB_CC_MIN_WINDOW_PACKETS * MSS);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), UINT64_MAX);
	/* What goes out next waits four timeouts; an ack clears it all. */
	sent(t2 + 3 * pto, 1000, 5);
	assert_int_equal(wb_recovery_deadline(&r, &rtt), t2 + 3 * pto + 4 * pto);
	assert_true(r.timed_out);
	assert_true(ack(t2 + 3 * pto + 20 * MS, 0, 1, A(5), A(5)));
	assert_false(r.timed_out);
	assert_int_equal(r.pto_count, 0);
	assert_int_equal(r.timeouts, 1);
	assert_int_equal(r.bytes_in_flight, 0);
}

/* An ack of anything resets the count: two timeouts must come in a row. */
static void test_an_ack_between_two_ptos_resets_the_count(void **state)
{
	uint64_t pto, t;

	(void)state;
	sent(T0, 1000, 0);
	assert_true(ack(T0 + 10 * MS, 0, 1, A(0), A(0)));
	pto = wb_recovery_pto(&rtt);
	t = T0 + 100 * MS;
	sent(t, 1000, 1);
	sent(t, 1000, 2);
	assert_true(wb_recovery_on_timer(&r, &rtt, &cc, t + pto, &ev));
	assert_int_equal(r.pto_count, 1);
	sent(t + pto, 100, WB_NO_DSN);
	assert_true(ack(t + 2 * pto, 0, 1, A(3), A(3)));
	assert_int_equal(r.pto_count, 0);
	/* 1 and 2 are old now: lost by time, not by a timeout. */
	assert_int_equal(fb.lost, 2);
	assert_int_equal(r.timeouts, 0);
	assert_false(r.timed_out);
}

/* ---- bytes in flight ---------------------------------------------------------------------- */

/*
 * Random traffic: packets of random sizes (some not eliciting), acks of
 * random ranges (late, duplicated, beyond), timers. After every step the
 * bytes in flight are exactly those of the eliciting packets neither acked
 * nor lost, every packet is reported at most once each way, and never lost
 * after an ack.
 */
static void test_bytes_in_flight_stay_exact(void **state)
{
	struct prng rng;
	uint8_t *eliciting = calloc(MAX_PN, 1);
	uint64_t now = T0, next = 0;

	(void)state;
	assert_non_null(eliciting);
	prng_seed(&rng, 77);
	for (int step = 0; step < 60000 && next < MAX_PN - 64; step++) {
		uint64_t k = prng_next(&rng) % 100, expect = 0;

		now += prng_next(&rng) % (2 * MS);
		if (k < 55 && wb_recovery_can_send(&r)) {
			bool e = prng_next(&rng) % 5 != 0;

			eliciting[next] = e;
			wb_recovery_on_sent(&r, &cc, now, 40 + (uint32_t)(prng_next(&rng) % 1400), next, e,
					    prng_next(&rng) % 3 == 0);
			next++;
		} else if (k < 95 && next) {
			struct wb_ack a = { .delay_us = prng_next(&rng) % 10000 };
			uint64_t hi = next - 1 - (next > 1 ? prng_next(&rng) % (next < 50 ? next : 50) : 0);

			if (prng_next(&rng) % 10 == 0)
				hi += prng_next(&rng) % 5; /* beyond what was sent */
			a.n = 1 + (unsigned)(prng_next(&rng) % 4);
			for (unsigned i = 0; i < a.n; i++) {
				uint64_t len = prng_next(&rng) % 8, gap = 1 + prng_next(&rng) % 6;

				if (hi < len) {
					a.r[i] = (struct wb_range){ 0, hi };
					a.n = i + 1;
					break;
				}
				a.r[i] = (struct wb_range){ hi - len, hi };
				if (a.r[i].lo < gap + 1) {
					a.n = i + 1;
					break;
				}
				hi = a.r[i].lo - gap - 1;
			}
			wb_recovery_on_ack(&r, &rtt, &cc, &a, now, &ev);
		} else if (now >= wb_recovery_deadline(&r, &rtt)) {
			wb_recovery_on_timer(&r, &rtt, &cc, now, &ev);
		}
		for (uint64_t pn = r.base; pn < r.next_pn; pn++)
			if (eliciting[pn] && !fb.state[pn])
				expect += r.ring[pn % r.cap].bytes;
		/* Below base, nothing eliciting is outstanding. */
		if (step % 64 == 0)
			for (uint64_t pn = 0; pn < r.base; pn++)
				assert_true(!eliciting[pn] || fb.state[pn]);
		assert_int_equal(r.bytes_in_flight, expect);
	}
	assert_true(fb.acked > 1000 && fb.lost > 100);
	/* No acks any more: the timers declare the rest lost, at the latest by a timeout. */
	for (int k = 0; k < 100 && r.bytes_in_flight; k++) {
		now = wb_recovery_deadline(&r, &rtt);
		assert_true(now != UINT64_MAX);
		wb_recovery_on_timer(&r, &rtt, &cc, now, &ev);
	}
	assert_int_equal(r.bytes_in_flight, 0);
	for (uint64_t pn = 0; pn < next; pn++)
		assert_true(!eliciting[pn] || fb.state[pn]);
	free(eliciting);
}

/* ---- delivery-rate samples ------------------------------------------------------------- */

static void test_delivery_rate_samples(void **state)
{
	(void)state;
	/* Ten packets, one a millisecond, from idle. */
	for (uint64_t i = 0; i < 10; i++)
		sent(T0 + i * MS, 1000, i);
	/* 0..4 acked at 50 ms: the newest acked (4, sent at 4 ms) left with nothing delivered. */
	assert_true(ack(T0 + 50 * MS, 0, 1, A(0), A(4)));
	assert_int_equal(ccrec.rs.acked_bytes, 5000);
	assert_int_equal(ccrec.rs.prior_delivered, 0);
	assert_int_equal(ccrec.rs.delivered, 5000);
	assert_int_equal(ccrec.rs.total_delivered, 5000);
	assert_int_equal(ccrec.rs.interval_ns, 50 * MS); /* the ack interval: longer than the 4 ms of sending */
	assert_int_equal(ccrec.rs.bytes_in_flight, 5000);
	assert_int_equal(ccrec.rs.rtt_ns, 46 * MS);
	assert_int_equal(ccrec.rs.min_rtt_ns, 46 * MS);
	assert_false(ccrec.rs.app_limited);
	/* One more at 60 ms (5000 delivered at 50 ms); 5..10 acked at 80 ms. */
	sent(T0 + 60 * MS, 1000, 10);
	assert_true(ack(T0 + 80 * MS, 0, 1, A(0), A(10)));
	assert_int_equal(ccrec.rs.acked_bytes, 6000);
	assert_int_equal(ccrec.rs.prior_delivered, 5000);
	assert_int_equal(ccrec.rs.delivered, 6000);
	/* The longer of: 30 ms since the delivery it saw, 56 ms of sending (from 4 ms, the last acked's send). */
	assert_int_equal(ccrec.rs.interval_ns, 56 * MS);
	assert_int_equal(ccrec.rs.total_delivered, 11000);
	assert_int_equal(ccrec.rs.bytes_in_flight, 0);
	/* Idle, then a new flight: the interval starts over. */
	sent(T0 + 200 * MS, 1000, 11);
	sent(T0 + 201 * MS, 1000, 12);
	assert_true(ack(T0 + 230 * MS, 0, 1, A(0), A(12)));
	assert_int_equal(ccrec.rs.prior_delivered, 11000);
	assert_int_equal(ccrec.rs.delivered, 2000);
	assert_int_equal(ccrec.rs.interval_ns, 30 * MS);
	/* Sent while the sender had too little: the sample says so until that data is delivered. */
	wb_recovery_on_sent(&r, &cc, T0 + 300 * MS, 1000, 13, true, true);
	sent(T0 + 301 * MS, 1000, 14);
	assert_true(ack(T0 + 320 * MS, 0, 1, A(13), A(13)));
	assert_true(ccrec.rs.app_limited);
	assert_true(ack(T0 + 321 * MS, 0, 1, A(13), A(14)));
	assert_true(ccrec.rs.app_limited); /* 14 left while the app-limited data was in flight */
	sent(T0 + 330 * MS, 1000, 15);
	assert_true(ack(T0 + 340 * MS, 0, 1, A(13), A(15)));
	assert_false(ccrec.rs.app_limited);
	assert_int_equal(r.app_limited_until, 0);
}

/*
 * The uplink went down: what it had in flight is given up and its
 * controller starts over. A packet of then acked a minute later frees what
 * it holds, but its RTT and delivery rate measured the silence.
 */
static void test_acks_of_packets_sent_before_a_new_path_give_no_sample(void **state)
{
	uint64_t srtt, down = T0 + 40 * MS, back = T0 + 60000 * MS;

	(void)state;
	sent(T0, 1000, 0);
	sent(T0 + 1 * MS, 1000, 1);
	assert_true(ack(T0 + 20 * MS, 0, 1, A(0), A(0)));
	assert_int_equal(ccrec.acks, 1);
	srtt = rtt.srtt_ns;
	wb_recovery_abandon(&r, &rtt, down, &ev);
	wb_recovery_new_path(&r);
	assert_int_equal(fb.lost, 1);
	/* 1 arrives after all, a minute late: acked (a spurious loss), no sample. */
	assert_true(ack(back, 0, 1, A(0), A(1)));
	assert_int_equal(fb.acked_after_lost, 1);
	assert_int_equal(ccrec.acks, 1);
	assert_int_equal(rtt.latest_ns, 20 * MS);
	assert_int_equal(rtt.srtt_ns, srtt);
	assert_int_equal(r.pto_count, 0);
	/* What the new path carries measures it. */
	sent(back + 1 * MS, 1000, 2);
	assert_true(ack(back + 16 * MS, 0, 1, A(0), A(2)));
	assert_int_equal(ccrec.acks, 2);
	assert_int_equal(rtt.latest_ns, 15 * MS);
	assert_int_equal(ccrec.rs.rtt_ns, 15 * MS);
	assert_int_equal(ccrec.rs.interval_ns, 15 * MS);
	assert_int_equal(ccrec.rs.delivered, 1000);
}

/* ---- the ring -------------------------------------------------------------------------------- */

static void test_ring_grows_past_256_and_keeps_everything(void **state)
{
	uint64_t pn, in_flight = 0;

	(void)state;
	/* 200 acked first, so the ring wraps when it grows. */
	for (pn = 0; pn < 200; pn++)
		sent(T0, 1000, 1000 + pn);
	assert_true(ack(T0 + 10 * MS, 0, 1, A(0), A(199)));
	assert_int_equal(r.base, 200);
	assert_int_equal(r.cap, 256);
	for (pn = 200; pn < 1200; pn++) {
		assert_true(wb_recovery_can_send(&r));
		sent(T0 + 20 * MS, 100 + (uint32_t)(pn % 7), 1000 + pn);
	}
	assert_true(r.cap >= 1024);
	for (pn = 200; pn < 1200; pn++)
		in_flight += 100 + pn % 7;
	assert_int_equal(r.bytes_in_flight, in_flight);
	/* Every packet is there with its DSN: ack them in pieces, lose a few by threshold. */
	assert_true(ack(T0 + 30 * MS, 0, 2, A(700), A(1199), A(200), A(600)));
	for (pn = 200; pn < 1200; pn++) {
		if (pn > 600 && pn < 700) {
			assert_int_equal(fb.state[pn], LOST);
		} else {
			assert_int_equal(fb.state[pn], ACKED);
		}
		assert_int_equal(fb.dsn[pn], 1000 + pn);
		assert_int_equal(fb.bytes[pn], 100 + pn % 7);
	}
	assert_int_equal(r.bytes_in_flight, 0);
	assert_true(r.base > 600); /* the lost ones may wait a while for a late ack */
}

/*
 * The bound: 2^17 packets in flight; then no room. The bond checks before
 * sending data, but its probes and acks go out whatever the room: those
 * are not tracked, and must not take the place of packets that are.
 */
static void test_ring_is_bounded_and_untracked_packets_overwrite_nothing(void **state)
{
	uint64_t pn;

	(void)state;
	for (pn = 0; pn < WB_RECOVERY_MAX_TRACKED; pn++)
		sent(T0, 1, pn);
	assert_int_equal(r.cap, WB_RECOVERY_MAX_TRACKED);
	assert_false(wb_recovery_can_send(&r));
	assert_int_equal(r.bytes_in_flight, WB_RECOVERY_MAX_TRACKED);
	/* Three probes: their numbers are used, nothing else changes. */
	for (int k = 0; k < 3; k++)
		sent(T0, 1, WB_NO_DSN);
	assert_int_equal(r.next_pn, WB_RECOVERY_MAX_TRACKED + 3);
	assert_int_equal(r.bytes_in_flight, WB_RECOVERY_MAX_TRACKED);
	/* Every tracked packet is still there: acked, each with its DSN. */
	assert_true(ack(T0 + MS, 0, 1, A(0), A(WB_RECOVERY_MAX_TRACKED + 2)));
	assert_int_equal(fb.acked, WB_RECOVERY_MAX_TRACKED);
	for (pn = 0; pn < WB_RECOVERY_MAX_TRACKED; pn++)
		assert_int_equal(fb.dsn[pn], pn);
	assert_int_equal(r.bytes_in_flight, 0);
	assert_true(wb_recovery_can_send(&r));
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_acks_mark_packets_and_call_acked),
		T(test_acks_of_several_ranges),
		T(test_rtt_sample_only_from_a_newly_acked_eliciting_largest),
		T(test_ack_delay_is_subtracted_but_never_below_min_rtt),
		T(test_packet_threshold_loss),
		T(test_packets_without_ack_eliciting_are_never_lost),
		T(test_time_threshold_loss_by_the_loss_timer),
		T(test_spurious_loss_of_the_oldest_packet_is_counted),
		T(test_spurious_losses_after_a_timeout_are_counted),
		T(test_after_reordering_only_time_declares_a_loss),
		T(test_pto_without_a_sample_is_rfc_9002s_initial),
		T(test_pto_deadline_doubles_and_the_second_abandons_everything),
		T(test_an_ack_between_two_ptos_resets_the_count),
		T(test_bytes_in_flight_stay_exact),
		T(test_delivery_rate_samples),
	T(test_acks_of_packets_sent_before_a_new_path_give_no_sample),
		T(test_ring_grows_past_256_and_keeps_everything),
		T(test_ring_is_bounded_and_untracked_packets_overwrite_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
