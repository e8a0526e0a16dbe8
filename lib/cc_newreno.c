// SPDX-License-Identifier: MIT
/*
 * NewReno (RFC 6582, 9002's form): slow start, then one MSS per window of
 * acked bytes; a loss event (at most one per round trip) halves the window;
 * a timeout drops it to the minimum. Paced at 1.25 windows per smoothed RTT,
 * so a whole window never leaves as one burst.
 */
#include "cc.h"
#include "nsec.h"

static uint64_t min_window(const struct wb_cc *cc)
{
	return (uint64_t)WB_CC_MIN_WINDOW_PACKETS * cc->mss;
}

static void reno_init(struct wb_cc *cc, uint32_t mss, uint64_t srtt_ns, uint64_t now)
{
	(void)now, (void)srtt_ns;
	cc->mss = mss;
	cc->cwnd = (uint64_t)WB_CC_INITIAL_WINDOW_PACKETS * mss;
	cc->pacing_rate = 0;
	cc->reno = (struct wb_newreno){ .ssthresh = UINT64_MAX };
}

static void reno_on_sent(struct wb_cc *cc, uint64_t now, uint32_t bytes, uint64_t in_flight)
{
	(void)cc, (void)now, (void)bytes, (void)in_flight;
}

static void set_pacing(struct wb_cc *cc, uint64_t srtt_ns)
{
	if (srtt_ns)
		cc->pacing_rate = cc->cwnd * 5 / 4 * WB_NSEC_PER_SEC / srtt_ns;
}

static void reno_on_ack(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	struct wb_newreno *r = &cc->reno;

	(void)now;
	if (cc->cwnd < r->ssthresh) {
		cc->cwnd += rs->acked_bytes;
	} else {
		r->acked_in_round += rs->acked_bytes;
		if (r->acked_in_round >= cc->cwnd) {
			r->acked_in_round -= cc->cwnd;
			cc->cwnd += cc->mss;
		}
	}
	set_pacing(cc, rs->srtt_ns);
}

static void reno_on_loss(struct wb_cc *cc, uint64_t now, uint64_t lost_bytes, uint64_t largest_lost_sent_ns,
			 uint64_t in_flight)
{
	struct wb_newreno *r = &cc->reno;

	(void)lost_bytes, (void)in_flight;
	if (largest_lost_sent_ns <= r->recovery_start_ns)
		return; /* the same congestion event */
	r->recovery_start_ns = now;
	r->ssthresh = cc->cwnd / 2 > min_window(cc) ? cc->cwnd / 2 : min_window(cc);
	cc->cwnd = r->ssthresh;
	r->acked_in_round = 0;
}

static void reno_on_timeout(struct wb_cc *cc, uint64_t now)
{
	cc->reno.recovery_start_ns = now;
	cc->reno.ssthresh = cc->cwnd / 2 > min_window(cc) ? cc->cwnd / 2 : min_window(cc);
	cc->cwnd = min_window(cc);
}

/* As a congestion event: half the window, and the threshold with it. */
static void reno_on_penalty(struct wb_cc *cc, uint64_t now)
{
	cc->reno.recovery_start_ns = now;
	cc->reno.ssthresh = cc->cwnd / 2 > min_window(cc) ? cc->cwnd / 2 : min_window(cc);
	cc->cwnd = cc->reno.ssthresh;
	cc->reno.acked_in_round = 0;
}

const struct wb_cc_ops wb_cc_newreno = {
	.name = "newreno",
	.init = reno_init,
	.on_sent = reno_on_sent,
	.on_ack = reno_on_ack,
	.on_loss = reno_on_loss,
	.on_timeout = reno_on_timeout,
	.on_penalty = reno_on_penalty,
};
