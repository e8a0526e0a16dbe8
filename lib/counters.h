/* SPDX-License-Identifier: MIT */
/*
 * Counters an operator reads: per uplink, per bond, per device. Plain
 * monotonic 64-bit counts; nothing here is reset by the protocol. The
 * exceptions say so: peaks (the most ever), and the packet pool's gauges.
 *
 * The control family carries the uplink's and the bond's in the order of
 * its lists (ctl.h: WB_CTL_UPLINK_COUNTERS, WB_CTL_BOND_COUNTERS), which
 * name them for the CLI and the log too: a counter goes into its list as
 * well, at the end, or the build fails.
 */
#ifndef WB_COUNTERS_H
#define WB_COUNTERS_H

#include <stdint.h>

struct wb_uplink_counters {
	uint64_t tx_packets, tx_bytes;       /* datagrams sent on the uplink, and their bytes */
	uint64_t rx_packets, rx_bytes;       /* authenticated datagrams received */
	uint64_t tx_ip_packets, rx_ip_packets; /* tunnelled IP packets among them */
	uint64_t probes_sent, probe_acks;
	uint64_t endpoint_changes;           /* the peer's address or port moved (NAT, roaming) */
	uint64_t went_down;                  /* transitions into down */
	uint64_t data_packets;               /* IP packets sent on it, first copies */
	uint64_t retransmits;                /* IP packets resent on it (lost elsewhere or here) */
	uint64_t acks_sent;                  /* ack-only messages */
	uint64_t reinjected;                 /* copies it carried of what slower or gone uplinks held */
	uint64_t penalties;                  /* its window halved for holding up the bond */
	uint64_t bad_acks;                   /* ack frames naming packets never sent on it: refused */
	uint64_t pmtu_probes;                /* padded probes of its path MTU */
	uint64_t pmtu_lowered;               /* a path MTU search found less than it had: a black hole, a smaller new path */
	uint64_t measure_copies;             /* copies it carried of what the others held, to measure its rate (the measure rule) */
};

struct wb_bond_counters {
	uint64_t tun_rx_packets, tun_rx_bytes; /* IP packets taken from the TUN device to send */
	uint64_t tun_tx_packets, tun_tx_bytes; /* IP packets delivered to the TUN device */
	uint64_t no_session_drops;   /* an IP packet to send, but no session yet */
	uint64_t no_uplink_drops;    /* an IP packet to send, the queue full, and no uplink up */
	uint64_t auth_failures;      /* a data message that did not authenticate */
	uint64_t replays;            /* a data message seen before, or too old */
	uint64_t malformed;          /* an authenticated message whose frames do not parse */
	uint64_t source_rejected;    /* an IP packet from a source the peer may not use */
	/* The reliable layer. */
	uint64_t aqm_drops;          /* dropped from the head of the send queue by CoDel */
	uint64_t queue_drops;        /* the send queue was full */
	uint64_t retransmits, retransmit_bytes; /* DSNs sent again */
	uint64_t bond_timeouts;      /* the bond's own timeout resent from snd_una */
	/* The scheduler (docs/scheduler.md). */
	uint64_t opp_reinject_events; /* an idle uplink was given what slower or gone ones held */
	uint64_t opp_reinject, opp_reinject_bytes; /* the copies it sent, packets and bytes */
	uint64_t penalised;          /* a slow uplink's window halved for holding up the bond */
	uint64_t redundant_copies;   /* extra copies of new packets (the redundant policy) */
	uint64_t rx_duplicates;      /* a DSN that arrived twice (copies on two uplinks) */
	uint64_t rx_beyond_window;   /* a DSN the receive window had no room for */
	uint64_t reorder_skips;      /* DSNs given up after the hold time */
	uint64_t reorder_held_max;   /* the most the reorder buffer held, in window bytes */
	uint64_t handshakes_sent, handshakes_completed;
	uint64_t handshakes_refused; /* an initiation replayed, too frequent, or not decrypting */
	uint64_t rekeys;             /* sessions that replaced an earlier one */
	uint64_t cookies_received;
	uint64_t closes_received;
	uint64_t peer_restarts;      /* the peer came back as a new incarnation: the reliable layer started over */
	uint64_t restart_drops;      /* packets given up then: sent and unacknowledged, or held for reordering */
	uint64_t too_big_drops;      /* an IP packet larger than the MTU or any usable uplink's path carries, dropped before its DSN */
	/*
	 * The bond's packet pool (pktbuf.h). Two gauges, as of the end of the
	 * bond's last event (a datagram, an IP packet, a tick), then a peak:
	 */
	uint64_t pool_bytes;         /* bytes of packet buffers its pool has allocated now */
	uint64_t pool_in_use_bytes;  /* ... of them holding packets now */
	uint64_t pool_high_water;    /* the most its pool had allocated, bytes */
	/*
	 * Packets with no buffer to go in (the bond's pool at its own size, the
	 * device's cap or the bond's share of it): an IP packet from the TUN
	 * device dropped before its DSN, or a data frame received beyond a gap
	 * refused unacknowledged (its sender resends it).
	 */
	uint64_t pool_full_drops;
	/*
	 * Copies of what the other uplinks hold, sent on one whose rate is not
	 * known so that it measures itself (the measure rule): packets and
	 * bytes. Not in opp_reinject: they rescue nothing held up.
	 */
	uint64_t measure_copies, measure_copy_bytes;
	/*
	 * The interactive class (docs/scheduler.md, "Traffic classes"); bulk is
	 * the rest of the counts above. Sent: IP packets taken from the TUN
	 * device as interactive, their bytes, the extra copies of them on other
	 * uplinks, and those its queue had no room for. Received: IP packets
	 * that came unordered and went to the TUN device, and those of them
	 * delivered ahead of a gap (they would have waited before classes).
	 */
	uint64_t interactive_tx_packets, interactive_tx_bytes, interactive_copies, interactive_queue_drops;
	uint64_t interactive_rx_packets, interactive_rx_early;
	/*
	 * Forward error correction of the interactive class (fec.h): parity
	 * frames sent and the bytes of their datagrams (what it costs), and
	 * packets received rebuilt from a parity, with no round trip.
	 */
	uint64_t fec_parity_sent, fec_overhead_bytes, fec_repaired;
};

struct wb_device_counters {
	uint64_t rx_datagrams;
	uint64_t short_or_unknown;  /* too short for its type, or of no type we know */
	uint64_t unknown_index;     /* a message for a session or handshake we do not have */
	uint64_t bad_mac1;          /* a handshake message not meant for us: dropped at a hash */
	uint64_t unknown_peer;      /* an initiation from a key that is none of our peers */
	uint64_t under_load;        /* handshake messages that met the load limit */
	uint64_t rate_limited;      /* ... and then, with a valid cookie, the per-source limit */
	uint64_t cookie_replies_sent;
};

#endif
