/* SPDX-License-Identifier: MIT */
/*
 * Congestion control of one uplink behind a small table of operations, so
 * the bond can run a model-based controller (BBR-like, the default: it keeps
 * the uplink's queue short) or a loss-based one (NewReno), chosen by name.
 * A controller gives a congestion window and a pacing rate; it learns from
 * rate samples (one per ack), loss events and timeouts.
 */
#ifndef WB_CC_H
#define WB_CC_H

#include <stdbool.h>
#include <stdint.h>

/* What an ack taught: RFC draft "Delivery Rate Estimation", and the RTT. */
struct wb_rate_sample {
	uint64_t acked_bytes;     /* newly acknowledged by this ack */
	uint64_t delivered;       /* bytes delivered over the sample's interval */
	uint64_t interval_ns;     /* 0: no rate sample with this ack */
	uint64_t prior_delivered; /* the delivered count when the sampled packet left */
	uint64_t total_delivered; /* the uplink's delivered count now */
	uint64_t rtt_ns;          /* 0 if no RTT sample */
	uint64_t min_rtt_ns, srtt_ns;
	uint64_t bytes_in_flight; /* after this ack */
	bool app_limited;         /* the sample's packet left while the sender had too little to send */
};

struct wb_cc;

struct wb_cc_ops {
	const char *name;
	/* srtt_ns: the uplink's RTT if one is known (0 if not), to start pacing at the right pace. */
	void (*init)(struct wb_cc *cc, uint32_t mss, uint64_t srtt_ns, uint64_t now);
	void (*on_sent)(struct wb_cc *cc, uint64_t now, uint32_t bytes, uint64_t bytes_in_flight);
	void (*on_ack)(struct wb_cc *cc, const struct wb_rate_sample *rs, uint64_t now);
	/* Packets lost; largest_lost_sent_ns orders congestion events (one per round trip). */
	void (*on_loss)(struct wb_cc *cc, uint64_t now, uint64_t lost_bytes, uint64_t largest_lost_sent_ns,
			uint64_t bytes_in_flight);
	/* Nothing acked for two probe timeouts: everything in flight was declared lost. */
	void (*on_timeout)(struct wb_cc *cc, uint64_t now);
	/* The scheduler halves the window of an uplink that holds the bond up (never below the minimum). */
	void (*on_penalty)(struct wb_cc *cc, uint64_t now);
	/*
	 * The bond has backlog bytes waiting and this uplink, usable, may not
	 * send them: its model holds it back. Optional (NULL: nothing to learn).
	 */
	void (*on_backlog)(struct wb_cc *cc, uint64_t now, uint64_t backlog);
};

#define WB_BBR_BW_ROUNDS 11 /* slots: the rounds of the window and the present one */

struct wb_bbr {
	int mode;
	uint64_t btl_bw;              /* the maximum of the per-round maxima below (bytes/s) */
	uint64_t bw_max[WB_BBR_BW_ROUNDS];   /* the best sample of each of the last rounds */
	uint64_t bw_round[WB_BBR_BW_ROUNDS]; /* the round each slot holds */
	uint64_t min_rtt_ns, min_rtt_stamp;
	uint64_t round_count, next_round_delivered;
	bool round_start;
	uint64_t full_bw;
	unsigned full_bw_rounds;
	uint64_t round_bw[2];         /* the bandwidth estimate when this round and the one before began */
	bool filled_pipe;
	bool measured;                /* startup ended at least once: btl_bw was a measure, if an old one */
	bool capacity_seen;           /* the last startup ended while the uplink was busy (end_startup) */
	bool has_seen_rtt;            /* the pacing rate was set from a measured RTT */
	uint64_t round_lost, round_delivered_start; /* this round's losses, and the delivered count at its start */
	unsigned cycle_index;
	uint64_t cycle_stamp;
	uint64_t probe_rtt_done;
	bool probe_rtt_round_started;
	uint64_t low_samples_until;   /* samples of packets sent before this delivered count say nothing lower */
	uint64_t prior_cwnd;
	uint32_t pacing_gain, cwnd_gain; /* in 1/256 */
	/*
	 * The least RTT of each of the last rounds in which the uplink was
	 * busy (samples not app-limited), and their minimum: the path's delay
	 * under load, which a jittering path keeps above the minimum an idle
	 * probe sees.
	 */
	uint64_t rtt_min[WB_BBR_BW_ROUNDS], rtt_round[WB_BBR_BW_ROUNDS];
	uint64_t loaded_rtt_ns; /* 0: no busy round in the window */
	uint64_t loaded_ns;     /* the last sample of a busy uplink (not app-limited) came then */
	/* A startup bbr_on_backlog began: the estimate it began from, and no other before backlog_quiet_until. */
	uint64_t backlog_bw, backlog_quiet_until;
	uint64_t jitter_ns;     /* how much above the minimum its RTT stays with no queue of its own (jitter_cwnd) */
	uint64_t probe_rtt_min; /* the least RTT seen in this probe-rtt */
	/* Ack aggregation: acks that came sooner than the rate allows, kept as a windowed maximum. */
	uint64_t ack_epoch_ns, ack_epoch_acked;
	uint64_t extra_acked[2];
	unsigned extra_acked_rounds, extra_acked_slot;
};

struct wb_newreno {
	uint64_t ssthresh;
	uint64_t recovery_start_ns; /* losses of packets sent before this are the same event */
	uint64_t acked_in_round;
};

struct wb_cc {
	const struct wb_cc_ops *ops;
	uint32_t mss;
	uint64_t cwnd;        /* bytes */
	uint64_t pacing_rate; /* bytes per second; 0: not paced */
	union {
		struct wb_bbr bbr;
		struct wb_newreno reno;
	};
};

/* NULL for an unknown name. Names: "bbr", "newreno". */
const struct wb_cc_ops *wb_cc_find(const char *name);
extern const struct wb_cc_ops wb_cc_bbr;
extern const struct wb_cc_ops wb_cc_newreno;

#define WB_CC_INITIAL_WINDOW_PACKETS 10
#define WB_CC_MIN_WINDOW_PACKETS 4

#endif
