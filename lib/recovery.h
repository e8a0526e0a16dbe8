/* SPDX-License-Identifier: MIT */
/*
 * The sending side of one uplink's reliability: every packet sent (by its
 * packet number), the acks that come back, RTT samples, loss detection and
 * the probe timeout, after RFC 9002 (QUIC) and RACK-TLP (RFC 8985):
 *
 * - a packet is lost when a packet sent at least kPacketThreshold (3) later
 *   is acked (until reordering is seen), or when one sent later is acked and
 *   it is older than an RTT and the reordering window (an eighth of the
 *   minimum RTT; after reordering, a quarter per spurious loss seen, up to
 *   the smoothed RTT); the loss timer fires for the rest;
 * - with nothing acked for a probe timeout (smoothed RTT, four variances and
 *   the peer's ack delay) after the oldest packet in flight left, the caller
 *   sends a probe; after a second one in a row, everything in flight is
 *   declared lost (a timeout) and the uplink stays "timed out" until
 *   something is acked again.
 *
 * It also keeps the delivery-rate state the congestion controller samples.
 * Losses and acks of packets that carried data are reported to the bond,
 * which resends the data.
 */
#ifndef WB_RECOVERY_H
#define WB_RECOVERY_H

#include <stdbool.h>
#include <stdint.h>

#include "cc.h"
#include "frame.h"
#include "uplink.h"

#define WB_NO_DSN UINT64_MAX
#define WB_PACKET_THRESHOLD 3
#define WB_RECOVERY_MAX_TRACKED (1u << 17) /* packets in flight on one uplink, at most */

enum wb_sent_flags {
	WB_SENT_ACK_ELICITING = 1,
	WB_SENT_IN_FLIGHT = 2, /* counts against the window */
	WB_SENT_ACKED = 4,
	WB_SENT_LOST = 8,
};

struct wb_sent {
	uint64_t pn;
	uint64_t sent_ns;
	uint64_t lost_ns;      /* when it was declared lost */
	uint64_t dsn;          /* the data it carried, WB_NO_DSN if none */
	uint64_t delivered, delivered_ns, first_sent_ns; /* rate sampling, at send time */
	uint32_t bytes;
	uint8_t flags;
	bool app_limited;
};

struct wb_recovery {
	struct wb_sent *ring;
	uint32_t cap;
	uint64_t base, next_pn;       /* tracked packets are [base, next_pn) */
	uint64_t bytes_in_flight;
	uint64_t largest_acked;
	bool has_acked;
	uint64_t loss_time;           /* the loss timer, 0 when not armed */
	uint64_t last_eliciting_sent_ns;
	uint64_t last_timeout_ns;     /* the probe timer's last expiry */
	unsigned pto_count;
	bool timed_out;               /* a timeout, and nothing acked since */
	uint64_t delivered, delivered_ns, first_sent_ns;
	uint64_t app_limited_until;   /* delivered count until which samples are app-limited; 0: not */
	uint64_t samples_from_pn;     /* acks of packets below it give no RTT or rate sample */
	/*
	 * RACK's adaptive reordering window (RFC 8985): once packets were seen
	 * acked out of order, the packet threshold is off and a loss needs its
	 * time threshold, widened a quarter of min RTT per spurious loss.
	 */
	bool reordering_seen;
	unsigned reo_wnd_mult;
	uint64_t acked_since_spurious;
	uint64_t acked_packets, lost_packets, lost_bytes, timeouts, spurious;
};

/* What an ack or a timer decided, for the bond. */
struct wb_recovery_events {
	void (*acked)(void *ctx, const struct wb_sent *p);
	void (*lost)(void *ctx, const struct wb_sent *p);
	void *ctx;
};

int wb_recovery_init(struct wb_recovery *r, uint64_t first_pn);
void wb_recovery_free(struct wb_recovery *r);
/* Forgets every packet sent, as if made anew from first_pn (no allocation); the counts go on. */
void wb_recovery_reset(struct wb_recovery *r, uint64_t first_pn);

/* Room to track one more packet (the ring is bounded). */
bool wb_recovery_can_send(const struct wb_recovery *r);

/* A packet left. app_limited: the sender had less to send than the window allowed. */
void wb_recovery_on_sent(struct wb_recovery *r, struct wb_cc *cc, uint64_t now, uint32_t bytes, uint64_t dsn,
			 bool ack_eliciting, bool app_limited);

/*
 * The sender could have sent more on this uplink and had nothing for it:
 * the rate samples of what it sends until all now in flight is delivered
 * say less than the uplink can do (RFC draft "Delivery Rate Estimation").
 */
void wb_recovery_note_app_limited(struct wb_recovery *r);

/*
 * An ack frame for this uplink arrived. Returns 1 if it acked anything new,
 * 0 if not, -EPROTO (and nothing changes) if it names a packet number never
 * sent: taken as it stands, it would declare everything in flight lost.
 */
int wb_recovery_on_ack(struct wb_recovery *r, struct wb_rtt *rtt, struct wb_cc *cc, const struct wb_ack *ack,
		       uint64_t now, const struct wb_recovery_events *ev);

/* When the loss or probe timer fires, UINT64_MAX if neither is armed. */
uint64_t wb_recovery_deadline(const struct wb_recovery *r, const struct wb_rtt *rtt);

/* Runs a timer that is due. Returns true when the caller should send a probe (a probe timeout). */
bool wb_recovery_on_timer(struct wb_recovery *r, const struct wb_rtt *rtt, struct wb_cc *cc, uint64_t now,
			  const struct wb_recovery_events *ev);

/* The probe timeout: smoothed RTT, four variances (at least 1 ms) and the peer's ack delay. */
uint64_t wb_recovery_pto(const struct wb_rtt *rtt);

/*
 * The uplink went down and its controller starts afresh: what is in flight
 * was sent on the path it had. An ack of it still frees what it holds, but
 * its RTT and delivery rate measure the old path or its outage (a packet
 * held through a minute of silence), not the one being learnt: kept, one
 * such sample sets a new model's rate to bytes a second, which it then
 * paces at, and the smoothed RTT to the outage.
 */
void wb_recovery_new_path(struct wb_recovery *r);

/* Declares everything in flight lost (the uplink went down). */
void wb_recovery_abandon(struct wb_recovery *r, const struct wb_rtt *rtt, uint64_t now,
			 const struct wb_recovery_events *ev);

#endif
