// SPDX-License-Identifier: MIT
/*
 * A model-based controller after BBR (version 1, Cardwell et al., 2016): it
 * estimates the bottleneck bandwidth (the windowed maximum of delivery-rate
 * samples over ten round trips) and the round-trip propagation time (the
 * minimum RTT over ten seconds), paces at their product's rate and keeps
 * about two bandwidth-delay products in flight. Startup doubles the rate per
 * round until the bandwidth stops growing, drain empties the queue startup
 * built, probe-bw cycles the pacing gain (1.25, 0.75, then 1 for six rounds)
 * and probe-rtt lets the queue empty for 200 ms every ten seconds, so the
 * uplink's queue stays short. Losses are not a signal, with one exception
 * taken from BBR's later versions: startup ends after a round that lost over
 * 2% (an uplink used only now and then, as a bond's slow one, may never show
 * the three rounds of flat bandwidth startup waits for, and keeps
 * overfilling its queue), and one whose RTT sample is half again the
 * minimum (a queue builds). A timeout shrinks the window to the minimum, from
 * which the model rebuilds it in a round trip.
 *
 * Probe-rtt keeps half a bandwidth-delay product in flight, as BBR's second
 * version does, not four packets: a bond's fast uplink held at four packets
 * for 200 ms sends its traffic onto the slow ones, and the inner TCP pays
 * for the reordering. What the uplink delivers meanwhile, and until the
 * packets it sent then are acked, is no measure of its bandwidth (Linux
 * marks it application-limited): without that, the ten short rounds of
 * probe-rtt on a 20 ms uplink flush the bandwidth filter, and the uplink
 * starts again from a fraction of its rate.
 *
 * And probe-rtt is skipped while RTT samples keep coming within an eighth
 * of the minimum: the queue already empties now and then, so the minimum
 * is confirmed without cutting the window (BBR's later versions probe
 * less for the same reason). Each probe costs an inner TCP a loss or two
 * in the tunnel's queue; a path whose RTT grew still gets its probe.
 */
#include "cc.h"
#include "nsec.h"

enum { STARTUP, DRAIN, PROBE_BW, PROBE_RTT };

/* Gains in 1/256 units: routers without an FPU pay dearly for floating point. */
#define UNIT 256
#define HIGH_GAIN 739 /* 2/ln 2 */
#define DRAIN_GAIN 89 /* its inverse */
#define BW_WINDOW_ROUNDS 10
#define MIN_RTT_WINDOW_NS (10 * WB_NSEC_PER_SEC)
#define PROBE_RTT_TIME_NS (200 * WB_NSEC_PER_MSEC)
#define PROBE_RTT_CWND_GAIN (UNIT / 2)
#define MIN_RTT_CONFIRM_SHIFT 3 /* a sample within min_rtt / 8 of it confirms the minimum */
#define FULL_BW_ROUNDS 3
/* Startup ends after a round that lost more than this (in 1/256) and at least this many packets. */
#define STARTUP_LOSS_THRESH 5 /* 2% */
#define STARTUP_LOSS_PACKETS 8
/* The ack aggregation's maximum is kept over two windows of this many rounds each. */
#define EXTRA_ACKED_ROUNDS 5
/* The window it adds is at most this much time at the bottleneck rate. */
#define EXTRA_ACKED_MAX_NS (100 * WB_NSEC_PER_MSEC)
/* A model that measured nothing while busy for this long starts up again (restart_stale). */
#define MODEL_STALE_NS (10 * WB_NSEC_PER_SEC)
/* After a startup bbr_on_backlog began found no more, none begins for this long. */
#define BACKLOG_QUIET_NS (10 * WB_NSEC_PER_SEC)

static const uint32_t cycle_gains[8] = { 320, 192, 256, 256, 256, 256, 256, 256 };

/*
 * The bottleneck bandwidth: the exact maximum of the samples of the last
 * BW_WINDOW_ROUNDS rounds, kept as one maximum per round in a ring.
 */
static void bw_filter_update(struct wb_bbr *b, uint64_t round, uint64_t bw)
{
	unsigned slot = (unsigned)(round % WB_BBR_BW_ROUNDS);

	if (b->bw_round[slot] != round || bw > b->bw_max[slot]) {
		if (b->bw_round[slot] != round)
			b->bw_max[slot] = 0;
		b->bw_round[slot] = round;
		if (bw > b->bw_max[slot])
			b->bw_max[slot] = bw;
	}
	b->btl_bw = 0;
	for (unsigned i = 0; i < WB_BBR_BW_ROUNDS; i++)
		if (round - b->bw_round[i] <= BW_WINDOW_ROUNDS && b->bw_max[i] > b->btl_bw)
			b->btl_bw = b->bw_max[i];
}

/* gain/256 bandwidth-delay products, in bytes; 0 until both estimates exist. */
static uint64_t bdp(const struct wb_bbr *b, uint32_t gain)
{
	if (!b->btl_bw || b->min_rtt_ns == UINT64_MAX)
		return 0;
	/* bytes/s times µs stays far from 2^64 for any real link. */
	return b->btl_bw * gain / UNIT * (b->min_rtt_ns / 1000) / 1000000;
}

/*
 * The window a path's jitter needs on top: the rate times how much the
 * RTT stays above the ten-second minimum when the uplink is busy with no
 * queue of its own. On most paths that is nothing. On a path whose delay
 * jitters, packets that may not overtake each other all take about the
 * longest delay once the uplink is busy, while an idle probe now and then
 * comes through at the shortest: a window of two products at that
 * shortest RTT ran dry within each RTT, the uplink delivered a fraction of
 * its rate, measured that, and spiralled down.
 *
 * It is measured only where the uplink's own queue is known to be empty,
 * so that a queue cannot feed itself through it (the window grows, the
 * queue with it, the RTT with that): when startup ends, as the least RTT
 * of its last busy rounds (those before the queue it built), and at the
 * end of each probe-rtt, as the least RTT while half a product was in
 * flight.
 */
static uint64_t jitter_cwnd(const struct wb_bbr *b)
{
	return b->btl_bw * (b->jitter_ns / 1000) / 1000000;
}

/* The RTT the path keeps with no queue of ours: what it was, less the minimum. */
static void set_jitter(struct wb_bbr *b, uint64_t rtt_ns)
{
	b->jitter_ns = rtt_ns && b->min_rtt_ns != UINT64_MAX && rtt_ns > b->min_rtt_ns ? rtt_ns - b->min_rtt_ns : 0;
}

/* A busy sample's RTT into its round's minimum; the minimum of the rounds of the bandwidth window. */
static void update_loaded_rtt(struct wb_bbr *b, const struct wb_rate_sample *rs)
{
	unsigned slot = (unsigned)(b->round_count % WB_BBR_BW_ROUNDS);

	if (rs->rtt_ns && !rs->app_limited) {
		if (b->rtt_round[slot] != b->round_count || !b->rtt_min[slot] || rs->rtt_ns < b->rtt_min[slot])
			b->rtt_min[slot] = rs->rtt_ns;
		b->rtt_round[slot] = b->round_count;
	}
	b->loaded_rtt_ns = 0;
	for (unsigned i = 0; i < WB_BBR_BW_ROUNDS; i++)
		if (b->rtt_min[i] && b->round_count - b->rtt_round[i] <= BW_WINDOW_ROUNDS &&
		    (!b->loaded_rtt_ns || b->rtt_min[i] < b->loaded_rtt_ns))
			b->loaded_rtt_ns = b->rtt_min[i];
}

/* The initial window per RTT at the startup gain; without an RTT yet, per millisecond. */
static void init_pacing(struct wb_cc *cc, uint64_t srtt_ns)
{
	cc->pacing_rate = cc->cwnd * HIGH_GAIN / UNIT * WB_NSEC_PER_SEC / (srtt_ns ? srtt_ns : WB_NSEC_PER_MSEC);
}

static void bbr_init(struct wb_cc *cc, uint32_t mss, uint64_t srtt_ns, uint64_t now)
{
	struct wb_bbr *b = &cc->bbr;

	cc->mss = mss;
	cc->cwnd = (uint64_t)WB_CC_INITIAL_WINDOW_PACKETS * mss;
	*b = (struct wb_bbr){ .mode = STARTUP, .min_rtt_ns = UINT64_MAX, .min_rtt_stamp = now,
			      .pacing_gain = HIGH_GAIN, .cwnd_gain = HIGH_GAIN, .has_seen_rtt = srtt_ns != 0 };
	init_pacing(cc, srtt_ns);
}

static void bbr_on_sent(struct wb_cc *cc, uint64_t now, uint32_t bytes, uint64_t in_flight)
{
	(void)cc, (void)now, (void)bytes, (void)in_flight;
}

static void update_round(struct wb_bbr *b, const struct wb_rate_sample *rs)
{
	b->round_start = false;
	if (rs->prior_delivered >= b->next_round_delivered) {
		b->next_round_delivered = rs->total_delivered;
		b->round_count++;
		b->round_start = true;
		b->round_bw[1] = b->round_bw[0];
		b->round_bw[0] = b->btl_bw;
	}
}

static void update_bandwidth(struct wb_bbr *b, const struct wb_rate_sample *rs)
{
	uint64_t bw;

	/*
	 * A sample over less than the minimum RTT measures a burst of acks,
	 * not the path: Linux's rate sampler drops it too. Kept, it sets the
	 * windowed maximum, and the uplink's queue fills to a window sized
	 * for three times its rate.
	 */
	if (!rs->interval_ns || rs->interval_ns < rs->min_rtt_ns)
		return;
	bw = rs->delivered * WB_NSEC_PER_SEC / rs->interval_ns;
	/* An application-limited sample only counts when it shows more than the model. */
	if ((!rs->app_limited && rs->prior_delivered >= b->low_samples_until) || bw >= b->btl_bw)
		bw_filter_update(b, b->round_count, bw);
}

/*
 * Ack aggregation (as Linux's BBR, from 4.19): on a path whose delay
 * jitters (Wi-Fi, cable, LTE, an emulator's jitter without reordering),
 * acks come in bursts, and a window of two bandwidth-delay products at
 * the least RTT ever seen runs dry between them: the uplink delivers less
 * than its rate, measures that, and its estimate spirals down (an 89
 * Mbit/s path with 5 ms of jitter carried 8). What was acked beyond the
 * rate since the acks last came slower than it is the window a burst
 * needs: its maximum over about ten rounds goes on top of the target.
 */
static void update_ack_aggregation(struct wb_bbr *b, const struct wb_rate_sample *rs, uint64_t now)
{
	uint64_t expected, extra;

	if (!rs->acked_bytes || !b->btl_bw)
		return;
	if (b->round_start && ++b->extra_acked_rounds >= EXTRA_ACKED_ROUNDS) {
		b->extra_acked_rounds = 0;
		b->extra_acked_slot ^= 1;
		b->extra_acked[b->extra_acked_slot] = 0;
	}
	expected = b->btl_bw * ((now - b->ack_epoch_ns) / 1000) / 1000000;
	if (b->ack_epoch_acked <= expected) { /* acks at or below the rate: a new epoch */
		b->ack_epoch_acked = 0;
		b->ack_epoch_ns = now;
		expected = 0;
	}
	b->ack_epoch_acked += rs->acked_bytes;
	extra = b->ack_epoch_acked - expected;
	if (extra > b->extra_acked[b->extra_acked_slot])
		b->extra_acked[b->extra_acked_slot] = extra;
}

/* The window ack aggregation asks for: the larger of the two windows' maxima, at most EXTRA_ACKED_MAX_NS at the rate. */
static uint64_t aggregation_cwnd(const struct wb_cc *cc)
{
	const struct wb_bbr *b = &cc->bbr;
	uint64_t extra = b->extra_acked[0] > b->extra_acked[1] ? b->extra_acked[0] : b->extra_acked[1];
	uint64_t most = b->btl_bw * (EXTRA_ACKED_MAX_NS / 1000) / 1000000;

	if (!b->filled_pipe)
		return 0;
	extra = extra < cc->cwnd ? extra : cc->cwnd;
	return extra < most ? extra : most;
}

/*
 * The pipe is full. loaded: the signal came while the uplink was busy, so
 * the estimate is a measure of what the path carries; a delay signal while
 * it sent only what it was given (another sender's queue on the path, or
 * the reverse path's) says nothing of that (bbr_on_backlog).
 */
static void end_startup(struct wb_bbr *b, bool loaded)
{
	b->filled_pipe = true;
	b->capacity_seen = loaded;
}

static void check_full_pipe(struct wb_bbr *b, const struct wb_rate_sample *rs)
{
	if (b->filled_pipe || !b->round_start || rs->app_limited)
		return;
	/* Still growing by a quarter per round: not full yet. */
	if (b->btl_bw >= b->full_bw + b->full_bw / 4) {
		b->full_bw = b->btl_bw;
		b->full_bw_rounds = 0;
		return;
	}
	if (++b->full_bw_rounds >= FULL_BW_ROUNDS)
		end_startup(b, true);
}

/*
 * Startup also ends when an RTT sample is half again the minimum: the
 * pipe is full and a queue builds (HyStart's signal, and BBR's later
 * versions'). An uplink a bond uses now and then sends only application-
 * limited rounds, which never show the flat bandwidth startup waits for;
 * it stayed in startup, pacing at nearly three times its rate, and filled
 * its bottleneck's queue behind the scheduler's back.
 */
static void check_startup_delay(struct wb_cc *cc, const struct wb_rate_sample *rs)
{
	struct wb_bbr *b = &cc->bbr;
	/*
	 * Only a queue of its own making says the pipe is full: more in flight
	 * than the pipe it measured holds. An uplink that sends only its probes
	 * sees other traffic's queue, or a path's jitter, and ended its startup
	 * having measured nothing (then it was reckoned at bytes a second, and
	 * starved).
	 */
	uint64_t base = b->min_rtt_ns, own = bdp(b, UNIT) > 4ULL * cc->mss ? bdp(b, UNIT) : 4ULL * cc->mss;
	/* And the rate stopped growing: on a path whose delay jitters, the RTT rises with the load while the rate still doubles. */
	bool growing = b->btl_bw >= b->round_bw[1] + b->round_bw[1] / 4;

	if (!b->filled_pipe && rs->rtt_ns && b->min_rtt_ns != UINT64_MAX && rs->rtt_ns > base + base / 2 &&
	    rs->bytes_in_flight > own && !growing)
		end_startup(b, !rs->app_limited);
}

/* At the start of a round: did the last one lose too much for startup to go on? */
static void check_startup_loss(struct wb_cc *cc, const struct wb_rate_sample *rs)
{
	struct wb_bbr *b = &cc->bbr;
	uint64_t delivered = rs->total_delivered - b->round_delivered_start;

	if (!b->round_start)
		return;
	if (!b->filled_pipe && b->round_lost >= (uint64_t)STARTUP_LOSS_PACKETS * cc->mss &&
	    b->round_lost * UNIT > (delivered + b->round_lost) * STARTUP_LOSS_THRESH)
		end_startup(b, true);
	b->round_lost = 0;
	b->round_delivered_start = rs->total_delivered;
}

static void enter_probe_bw(struct wb_bbr *b, uint64_t now)
{
	b->mode = PROBE_BW;
	b->cwnd_gain = 2 * UNIT;
	b->cycle_index = 2; /* start in a cruising phase, not right into a probe */
	b->cycle_stamp = now;
	b->pacing_gain = cycle_gains[b->cycle_index];
}

static void advance_cycle(struct wb_bbr *b, const struct wb_rate_sample *rs, uint64_t now)
{
	bool long_enough = now - b->cycle_stamp > b->min_rtt_ns;
	uint32_t gain = b->pacing_gain;

	/* Probing up lasts until the extra is in flight; draining ends once the queue is gone. */
	if (gain > UNIT && (!long_enough || rs->bytes_in_flight < bdp(b, gain)))
		return;
	if (gain < UNIT && !long_enough && rs->bytes_in_flight > bdp(b, UNIT))
		return;
	if (gain == UNIT && !long_enough)
		return;
	b->cycle_index = (b->cycle_index + 1) % 8;
	b->cycle_stamp = now;
	b->pacing_gain = cycle_gains[b->cycle_index];
}

/*
 * When a startup bbr_on_backlog began ends: if it found no more, the
 * estimate was a measure, and no other begins for BACKLOG_QUIET_NS.
 */
static void judge_backlog_startup(struct wb_bbr *b, uint64_t now)
{
	if (b->backlog_bw && b->btl_bw < b->backlog_bw + b->backlog_bw / 4) {
		b->capacity_seen = true;
		b->backlog_quiet_until = now + BACKLOG_QUIET_NS;
	}
	b->backlog_bw = 0;
}

static void update_mode(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	struct wb_bbr *b = &cc->bbr;

	if (b->mode == STARTUP && b->filled_pipe) {
		b->measured = true;
		judge_backlog_startup(b, now);
		set_jitter(b, b->loaded_rtt_ns);
		b->mode = DRAIN;
		b->pacing_gain = DRAIN_GAIN;
		b->cwnd_gain = HIGH_GAIN;
	}
	if (b->mode == DRAIN && rs->bytes_in_flight <= bdp(b, UNIT))
		enter_probe_bw(b, now);
	if (b->mode == PROBE_BW)
		advance_cycle(b, rs, now);
}

static void enter_probe_rtt(struct wb_cc *cc)
{
	struct wb_bbr *b = &cc->bbr;

	b->mode = PROBE_RTT;
	b->pacing_gain = UNIT;
	b->cwnd_gain = UNIT;
	b->prior_cwnd = cc->cwnd;
	b->probe_rtt_done = 0;
	b->probe_rtt_min = 0;
}

/* The window of probe-rtt: half a bandwidth-delay product, at least the minimum. */
static uint64_t probe_rtt_cwnd(const struct wb_cc *cc)
{
	uint64_t floor = (uint64_t)WB_CC_MIN_WINDOW_PACKETS * cc->mss, half = bdp(&cc->bbr, PROBE_RTT_CWND_GAIN);

	return half > floor ? half : floor;
}

static void handle_probe_rtt(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	struct wb_bbr *b = &cc->bbr;

	b->low_samples_until = rs->total_delivered + rs->bytes_in_flight + 1;
	if (!b->probe_rtt_done && rs->bytes_in_flight <= probe_rtt_cwnd(cc)) {
		b->probe_rtt_done = now + PROBE_RTT_TIME_NS;
		b->probe_rtt_round_started = false;
		b->next_round_delivered = rs->total_delivered;
	} else if (b->probe_rtt_done) {
		if (rs->rtt_ns && (!b->probe_rtt_min || rs->rtt_ns < b->probe_rtt_min))
			b->probe_rtt_min = rs->rtt_ns;
		if (b->round_start)
			b->probe_rtt_round_started = true;
		if (b->probe_rtt_round_started && now >= b->probe_rtt_done) {
			set_jitter(b, b->probe_rtt_min);
			b->min_rtt_stamp = now;
			cc->cwnd = cc->cwnd > b->prior_cwnd ? cc->cwnd : b->prior_cwnd;
			if (b->filled_pipe) {
				enter_probe_bw(b, now);
			} else {
				b->mode = STARTUP;
				b->pacing_gain = b->cwnd_gain = HIGH_GAIN;
			}
		}
	}
}

static void update_min_rtt(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	struct wb_bbr *b = &cc->bbr;
	bool expired = now - b->min_rtt_stamp > MIN_RTT_WINDOW_NS;

	if (rs->rtt_ns && (rs->rtt_ns <= b->min_rtt_ns || expired)) {
		b->min_rtt_ns = rs->rtt_ns;
		b->min_rtt_stamp = now;
	} else if (rs->rtt_ns && rs->rtt_ns <= b->min_rtt_ns + (b->min_rtt_ns >> MIN_RTT_CONFIRM_SHIFT)) {
		b->min_rtt_stamp = now;
	}
	if (expired && b->mode != PROBE_RTT)
		enter_probe_rtt(cc);
	if (b->mode == PROBE_RTT)
		handle_probe_rtt(cc, rs, now);
}

static void set_pacing_and_window(struct wb_cc *cc, const struct wb_rate_sample *rs)
{
	struct wb_bbr *b = &cc->bbr;
	uint64_t floor = (uint64_t)WB_CC_MIN_WINDOW_PACKETS * cc->mss;
	uint64_t target = bdp(b, b->cwnd_gain) + jitter_cwnd(b) + aggregation_cwnd(cc) + 3ULL * cc->mss;
	uint64_t rate = b->btl_bw * b->pacing_gain / UNIT;

	/*
	 * The first RTT measured sets the startup pace (the guess of a
	 * millisecond would otherwise stay: startup never slows down).
	 */
	if (!b->has_seen_rtt && rs->srtt_ns) {
		b->has_seen_rtt = true;
		init_pacing(cc, rs->srtt_ns);
	}
	/* Never pace below the rate the model has; in startup never slow down. */
	if (b->btl_bw && (b->filled_pipe || rate > cc->pacing_rate))
		cc->pacing_rate = rate;
	if (!bdp(b, UNIT))
		target = cc->cwnd + rs->acked_bytes;
	if (b->filled_pipe)
		cc->cwnd = cc->cwnd + rs->acked_bytes < target ? cc->cwnd + rs->acked_bytes : target;
	else if (cc->cwnd < target || !bdp(b, UNIT))
		cc->cwnd += rs->acked_bytes;
	if (cc->cwnd < floor)
		cc->cwnd = floor;
	if (b->mode == PROBE_RTT && cc->cwnd > probe_rtt_cwnd(cc))
		cc->cwnd = probe_rtt_cwnd(cc);
}

/* Startup from the rate the model has: a few rounds at the high gain find the path's rate again. */
static void start_up_again(struct wb_bbr *b)
{
	b->mode = STARTUP;
	b->filled_pipe = false;
	b->full_bw = 0;
	b->full_bw_rounds = 0;
	b->pacing_gain = b->cwnd_gain = HIGH_GAIN;
}

/*
 * A model that has measured nothing for MODEL_STALE_NS (the uplink idle,
 * or left unused by the scheduler) starts up again: what it knew is old,
 * and the scheduler takes an uplink whose rate is not measured as one to
 * measure, not as one whose rate is known to be what it was. Startup
 * paces at its high gain from the rate it had, so an uplink whose path
 * did not change is back at it within a few rounds, one whose path
 * changed finds its new rate, and neither is held to a figure of minutes
 * ago (an uplink left out for carrying little would otherwise stay out
 * for good: it measures nothing while it is not used). Its ten-second
 * minimum RTT is kept: probes confirm it while idle.
 */
static void restart_stale(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	struct wb_bbr *b = &cc->bbr;

	if (!rs->app_limited) {
		b->loaded_ns = now;
		return;
	}
	if (!b->filled_pipe || b->mode == PROBE_RTT || now - b->loaded_ns <= MODEL_STALE_NS)
		return;
	start_up_again(b);
}

/*
 * Probing up for over two round trips: what the uplink was given never
 * filled the probe, so its demand, not its path, held the estimate (an
 * uplink carrying the acks of a download keeps probing, whatever its
 * startup measured).
 */
static bool probe_unfilled(const struct wb_bbr *b, uint64_t now)
{
	return b->pacing_gain > UNIT && now - b->cycle_stamp > 2 * b->min_rtt_ns;
}

/*
 * The bond's queue holds more than all its uplinks' windows let out in a
 * round trip (bond_tx.c), so the models, not the paths, hold it back, and
 * this uplink may send none of it. If its estimate was never tested by
 * demand (its last startup ended while it sent only what it was given,
 * the acks of a download going the other way, say, or it keeps probing up
 * without filling the probe), it is what the uplink was given, not what
 * it can carry. Probe-bw would raise it by a quarter every eight rounds,
 * while an inner TCP's slow start doubles each round, fills the send
 * queue meanwhile and loses there (an upload right after a download
 * ramped over six seconds, at a Reno's pace). Startup finds the rate in a
 * few rounds. One so begun that found no more than a quarter above where
 * it began says the estimate was the rate after all, however it ended (in
 * a bond an uplink at its rate often looks application-limited: the
 * scheduler gave it just its share): none other begins for
 * BACKLOG_QUIET_NS.
 */
static void bbr_on_backlog(struct wb_cc *cc, uint64_t now, uint64_t backlog)
{
	struct wb_bbr *b = &cc->bbr;

	if (b->mode != PROBE_BW || backlog <= bdp(b, UNIT) || now < b->backlog_quiet_until)
		return;
	if (b->capacity_seen && !probe_unfilled(b, now))
		return;
	b->backlog_bw = b->btl_bw;
	start_up_again(b);
}

static void bbr_on_ack(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now)
{
	struct wb_bbr *b = &cc->bbr;

	restart_stale(cc, rs, now);
	update_round(b, rs);
	update_loaded_rtt(b, rs);
	update_bandwidth(b, rs);
	update_ack_aggregation(b, rs, now);
	check_full_pipe(b, rs);
	check_startup_delay(cc, rs);
	check_startup_loss(cc, rs);
	update_mode(cc, rs, now);
	update_min_rtt(cc, rs, now);
	set_pacing_and_window(cc, rs);
}

static void bbr_on_loss(struct wb_cc *cc, uint64_t now, uint64_t lost_bytes, uint64_t largest_lost_sent_ns,
			uint64_t in_flight)
{
	(void)now, (void)largest_lost_sent_ns, (void)in_flight;
	cc->bbr.round_lost += lost_bytes;
}

static void bbr_on_timeout(struct wb_cc *cc, uint64_t now)
{
	(void)now;
	cc->cwnd = (uint64_t)WB_CC_MIN_WINDOW_PACKETS * cc->mss;
}

/*
 * Half the window, as a loss would for a loss-based controller. The model
 * is left alone: the window grows back by what is acked, so a penalty
 * repeated once per round trip keeps it between half and the target.
 */
static void bbr_on_penalty(struct wb_cc *cc, uint64_t now)
{
	uint64_t floor = (uint64_t)WB_CC_MIN_WINDOW_PACKETS * cc->mss;

	(void)now;
	cc->cwnd = cc->cwnd / 2 > floor ? cc->cwnd / 2 : floor;
}

const struct wb_cc_ops wb_cc_bbr = {
	.name = "bbr",
	.init = bbr_init,
	.on_sent = bbr_on_sent,
	.on_ack = bbr_on_ack,
	.on_loss = bbr_on_loss,
	.on_timeout = bbr_on_timeout,
	.on_penalty = bbr_on_penalty,
	.on_backlog = bbr_on_backlog,
};
