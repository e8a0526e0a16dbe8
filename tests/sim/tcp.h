/* SPDX-License-Identifier: MIT */
/*
 * The simulator's inner TCP: one connection between a host behind the
 * client's TUN device and one behind the server's, as a Linux kernel would
 * run it, so a scenario measures what the user's own TCP gets through the
 * bond and not what a sender that never backs off gets.
 *
 * Each end has a sender (congestion control CUBIC, NewReno or BBRv1; SACK,
 * RACK loss detection, PRR, tail loss probes, RTO as Linux computes it) and
 * a receiver (delayed and compressed acks, SACK and D-SACK blocks, receive
 * window autotuning). Its packets are real IPv4+TCP headers with
 * timestamps, and MSS-sized: the bond carries them like any others. Time
 * is an argument, packets go out through a callback: the model makes no
 * system calls, and is deterministic.
 *
 * Each packet also carries its end's count of packets sent (in the IPv4
 * identification and the TCP urgent pointer, which no one reads without
 * URG), so the receiving end can check that what carries them delivers
 * nothing twice and nothing out of order.
 */
#ifndef WB_SIM_TCP_H
#define WB_SIM_TCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tcp_cc { TCP_CC_CUBIC, TCP_CC_NEWRENO, TCP_CC_BBR };
enum tcp_end { TCP_CLIENT, TCP_SERVER }; /* the client end opened the connection */

#define TCP_HEADERS 52             /* IPv4, TCP and the timestamp option */
#define TCP_DEFAULT_BUFFER (32u << 20) /* tcp_rmem and tcp_wmem maxima, as the bench sets them */
#define TCP_INITIAL_WINDOW (128u << 10)
#define TCP_SERVER_PORT 5201

/* Sends an IP packet from one end; false if it was dropped on the way in. */
typedef bool (*tcp_xmit_fn)(void *ctx, enum tcp_end from, const uint8_t *ip, size_t len);

struct tcp_params {
	enum tcp_cc cc;
	uint32_t mtu;            /* of the path: the MSS is mtu - TCP_HEADERS */
	uint64_t rmem_max;       /* the receive window may grow to this (0: TCP_DEFAULT_BUFFER) */
	uint64_t wmem_max;       /* bytes sent and not yet acked, at most (0: TCP_DEFAULT_BUFFER) */
	uint64_t rmem_initial;   /* the receive window at the start (0: TCP_INITIAL_WINDOW) */
	uint64_t measure_from;   /* bytes delivered from then on count as goodput */
	uint16_t client_port;    /* names the connection in its packets (tcp_client_port) */
	uint64_t seed;           /* BBR's random choices */
	tcp_xmit_fn xmit;
	void *ctx;
};

/* What one end saw, as a kernel's counters would say it. */
struct tcp_stats {
	uint64_t delivered_bytes;      /* to this end's application, in order */
	uint64_t measured_bytes;       /* of those, since measure_from */
	uint64_t segments_sent, retransmits, rto, tlp, spurious;   /* this end's sender */
	uint64_t undo, recoveries, local_drops;
	uint64_t ofo_segments, dup_segments, acks_sent;            /* this end's receiver */
	double srtt_mean_ms, srtt_ms, min_rtt_ms;                  /* sender: mean of the samples after measure_from */
	uint32_t cwnd, ssthresh, reordering;                      /* segments */
	uint64_t rwnd;                                             /* the receive window it offers */
	uint64_t peer_rwnd;                                        /* the window the peer offers its sender */
	/* What carried the packets to this end: in order, then late or twice, then never (dropped or skipped). */
	uint64_t wire_in_order, wire_late, wire_gaps;
};

struct tcp_conn;

/* A connection, established at now (no handshake: the tunnel is up when it opens); NULL without memory. */
struct tcp_conn *tcp_conn_new(const struct tcp_params *p, uint64_t now);
void tcp_conn_free(struct tcp_conn *c);

/* The client port of a TCP packet of this model, -1 for any other packet. */
int tcp_client_port(const uint8_t *ip, size_t len);

/* A packet for this end (its client port matches): the acks it owes go out at the next tcp_run. */
void tcp_input(struct tcp_conn *c, enum tcp_end to, uint64_t now, const uint8_t *ip, size_t len);

/* Runs the timers that are due and sends what the windows allow. */
void tcp_run(struct tcp_conn *c, uint64_t now);

/* When tcp_run next has work, UINT64_MAX if none (an input may bring some). */
uint64_t tcp_next_deadline(const struct tcp_conn *c);

/* The application: bytes end may still write (the send buffer's room), writes them, bytes it received. */
uint64_t tcp_writable(const struct tcp_conn *c, enum tcp_end end);
void tcp_write(struct tcp_conn *c, enum tcp_end end, uint64_t bytes);
uint64_t tcp_received(const struct tcp_conn *c, enum tcp_end end);

void tcp_get_stats(const struct tcp_conn *c, enum tcp_end end, struct tcp_stats *out);

const char *tcp_cc_name(enum tcp_cc cc);
/* 0 and the congestion control for a name (cubic, newreno, bbr), -1 for none. */
int tcp_cc_by_name(const char *name, enum tcp_cc *out);

#endif
