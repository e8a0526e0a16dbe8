/* SPDX-License-Identifier: MIT */
/*
 * latprobe's receive statistics, from the packets as they arrive: loss,
 * duplicates and reordering by sequence number, the one-way delay's
 * percentiles and the RFC 3550 interarrival jitter. Pure: no system call, the
 * times are passed in (nanoseconds of one clock, the sender's and ours).
 *
 * Counting, by sequence number (the sender numbers its packets 0, 1, 2...):
 *
 *   received    distinct sequence numbers that arrived (the first copy of each)
 *   duplicates  copies of a sequence number that had arrived already
 *   reordered   first copies that arrived after a higher sequence number had
 *   too_old     packets more than LP_SEQ_WINDOW below the highest sequence
 *               number seen: whether they are copies cannot be told any more
 *               (the memory of what arrived is that window), so they count in
 *               nothing else
 *   sent        the highest sequence number seen + 1, or what the caller
 *               expected if that is more (a loss at the end of a stream shows
 *               only against an expected count)
 *   lost        sent - received: never arrived, after any late arrival
 *
 * A late packet counts as received; its delay is among the others. Delays
 * are those of first copies (a duplicate's delay says nothing of the path the
 * application waited on). The jitter follows RFC 3550 (6.4.1) over first
 * copies in arrival order: D = the difference of consecutive packets'
 * transit times, J += (|D| - J) / 16.
 *
 * Percentiles are nearest-rank: the pth percentile of n sorted delays is the
 * one at rank ceil(p / 100 * n) (1-based), so it is always a delay that was
 * measured; p100 is the maximum.
 */
#ifndef LATPROBE_STATS_H
#define LATPROBE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The memory for duplicates: a bit per sequence number below the highest. */
#define LP_SEQ_WINDOW 65536
/* At most this many delays are kept (32 MiB): later ones count but are not in the percentiles. */
#define LP_MAX_DELAYS (1u << 22)

struct lp_stats {
	bool any;
	uint64_t highest;
	uint64_t seen[LP_SEQ_WINDOW / 64];
	uint64_t received, duplicates, reordered, too_old;
	int64_t *delays; /* ns, first copies in arrival order */
	size_t n_delays, cap_delays;
	uint64_t delays_not_kept;
	bool have_transit;
	int64_t last_transit;
	double jitter_ns;
};

enum lp_verdict { LP_FIRST, LP_REORDERED, LP_DUPLICATE, LP_TOO_OLD };

struct lp_summary {
	uint64_t sent, received, lost, duplicates, reordered, too_old;
	double loss_pct;
	size_t n_delays;    /* 0: the delay figures below are meaningless */
	int64_t min_ns, p50_ns, p99_ns, p999_ns, max_ns;
	double jitter_ns;
};

void lp_stats_init(struct lp_stats *s);
void lp_stats_free(struct lp_stats *s);

/*
 * One packet: its sequence number, its send time and its arrival time.
 * Returns what it was. A first copy whose delay cannot be kept (no memory, or
 * LP_MAX_DELAYS reached) still counts; delays_not_kept says so.
 */
enum lp_verdict lp_stats_add(struct lp_stats *s, uint64_t seq, uint64_t sent_ns, uint64_t recv_ns);

/*
 * The receive path: a datagram as the socket gave it, parsed (lp_wire.h) and,
 * when it is one of ours and of the stream counted, added to the statistics.
 * The stream counted is the one given (want_stream), or else the first one
 * heard; the others are counted apart and otherwise ignored, as is
 * everything that does not parse.
 */
struct lp_receiver {
	struct lp_stats st;
	bool locked;
	uint32_t stream;
	uint64_t foreign;      /* not our packet */
	uint64_t other_stream; /* ours, of another stream */
};

enum lp_take { LP_TAKEN, LP_FOREIGN, LP_OTHER_STREAM };

void lp_receiver_init(struct lp_receiver *r, bool want, uint32_t want_stream);
/* What became of the datagram; when LP_TAKEN, *verdict says what it was. */
enum lp_take lp_receive(struct lp_receiver *r, const uint8_t *buf, size_t len, uint64_t recv_ns,
			enum lp_verdict *verdict);

/* The summary, with expect (0: none) as the least number sent. Returns 0 or -ENOMEM. */
int lp_stats_summary(const struct lp_stats *s, uint64_t expect, struct lp_summary *out);

/*
 * The nearest-rank percentile of n sorted values, p in thousandths of a
 * percent (50000 is the median, 99900 the 99.9th); n must be above 0.
 */
int64_t lp_percentile(const int64_t *sorted, size_t n, uint32_t p_milli);

#endif
