/* SPDX-License-Identifier: MIT */
/*
 * A client device and a server device joined in memory, for unit tests of
 * the protocol library: datagrams go into a queue per direction instead of
 * sockets, and the test decides when (and whether) each one arrives. Time is
 * the test's; randomness is a seeded generator, so every run is the same.
 */
#ifndef WB_TEST_PAIR_H
#define WB_TEST_PAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "prng.h"
#include "wanbond.h"

#define PAIR_MAX_QUEUE 65536
#define PAIR_MAX_DELIVERED 65536

struct pair_datagram {
	unsigned sock;              /* client: the uplink's socket; server: 0 */
	struct wb_endpoint from, to;
	uint64_t at;                /* when it may arrive: sent, and its uplink's delay */
	uint16_t len;
	uint8_t dscp;               /* what the library asked its outer header to carry */
	/*
	 * Aligned as a receive buffer from malloc would be (a datagram at an odd
	 * address is test_tunnel.c's test_receive_of_a_misaligned_buffer).
	 */
	_Alignas(16) uint8_t data[1600];
};

/* An event the library told a side, kept whole (its strings are valid only during the call). */
struct pair_event {
	struct wb_event ev;
	char uplink[WB_UPLINK_NAME_MAX + 1];
	char text[64];
};

#define PAIR_MAX_EVENTS 1024

struct pair_side {
	struct wb_device *dev;
	struct wb_bond *bond;
	struct pair *pair;
	bool is_server;
	/* Datagrams this side sent, waiting to arrive at the other. */
	struct pair_datagram *queue;
	size_t queued;
	/* IP packets delivered to this side's TUN, kept as their first 8 bytes (an id). */
	uint64_t *delivered;
	size_t n_delivered;
	uint64_t sent; /* datagrams this side ever sent */
	uint64_t sent_in_place; /* ... of them sealed in the queue entry it lent (pair.lend_tx_buffers) */
	uint64_t log_lines; /* lines the library logged above debug level */
	/* The events it told, in order (the first PAIR_MAX_EVENTS; n_events counts them all). */
	struct pair_event events[PAIR_MAX_EVENTS];
	size_t n_events;
	/* How far this side's real-time clock is off (a router that booted without one: behind). */
	int64_t wall_error_ns;
	/* What made the side, so pair_restart can make it again. */
	struct wb_device_params dp;
	struct wb_bond_params bp;
};

struct pair;

/* Decides, as a datagram is about to arrive, whether it is lost instead (true: dropped). */
typedef bool (*pair_filter)(struct pair *p, const struct pair_side *from, const struct pair_datagram *d, void *arg);

struct pair {
	struct pair_side client, server;
	struct prng rng;
	uint64_t now;
	struct wb_endpoint server_ep;
	struct wb_endpoint client_ep[WB_MAX_UPLINKS]; /* each uplink's address as the server sees it */
	int n_uplinks;
	int log_level; /* lines at or below it are printed */
	/* Optional: loses the datagrams it returns true for (set and cleared by the test). */
	pair_filter filter;
	void *filter_arg;
	/* Server datagrams sent to an address that no client uplink has (after the client moved). */
	uint64_t misaddressed;
	bool drop_misaddressed; /* they are lost (else they reach the client's socket 0) */
	bool lend_tx_buffers;   /* the library builds datagrams in the next queue entry, as the daemon's batch */
	/*
	 * One-way delay of each uplink, both ways (0: none, the default). A
	 * datagram waits in its queue until then; flushes and runs deliver it
	 * when its time has come, in the order sent. Set by the test.
	 */
	uint64_t delay_ns[WB_MAX_UPLINKS];
};

/* Keys and options; zero values give defaults. */
struct pair_options {
	int n_uplinks;                   /* default 2 */
	bool backup_last;                /* the last uplink is a backup */
	struct wb_timers timers;         /* default WB_TIMERS_DEFAULT */
	bool wrong_server_key;           /* the client believes in another server key */
	bool wrong_psk;                  /* client and server hold different pre-shared keys */
	bool server_does_not_know_client;/* the server has no bond for the client's key */
	uint32_t handshakes_per_second;
	uint64_t seed;
	/* The client's uplinks (n_uplinks of them) instead of "up0", "up1"... of weight 1. */
	const struct wb_uplink_params *uplinks;
	bool drop_misaddressed;          /* see struct pair */
	bool lend_tx_buffers;            /* see struct pair */
	/* The reliable layer of both bonds (zero fields: the defaults). */
	struct wb_bond_tuning tuning;
	/* The server's instead, if set (the two ends configured apart). */
	const struct wb_bond_tuning *server_tuning;
	/* The server device's cap on the packet buffers of its bonds (wb_device_params.pool_limit; 0: none). */
	uint64_t server_pool_limit;
};

void pair_init(struct pair *p, const struct pair_options *o);
void pair_free(struct pair *p);

/*
 * The side's daemon dies (no CLOSE, as a kill -9 or a power cut) and a new
 * one starts with the same keys and configuration: a new incarnation with
 * empty state. What the old one sent is still on its way; what it held is
 * gone. A client's uplinks have their sockets again at once.
 */
void pair_restart(struct pair *p, struct pair_side *s);

/* The Unix time the side's real-time clock reads now. */
uint64_t pair_wall_clock(const struct pair_side *s);

/* Delivers every queued datagram whose time has come, both ways, until none is left to deliver now. */
void pair_flush(struct pair *p);
/* Like pair_flush, but drops what travels on uplink `uplink` (in both directions). */
void pair_flush_dropping(struct pair *p, int uplink);
/* Runs the devices' timers (and the uplinks' delays) up to time t, flushing in between. */
void pair_run_until(struct pair *p, uint64_t t);
/* The same, with uplink `uplink` dead (its datagrams lost both ways). */
void pair_run_until_dropping(struct pair *p, uint64_t t, int uplink);

/* The same, losing every uplink whose bit is set in mask. */
void pair_flush_dropping_mask(struct pair *p, unsigned mask);
void pair_run_until_dropping_mask(struct pair *p, uint64_t t, unsigned mask);

/*
 * Delivers the datagrams queued at `from` that travel on uplink `uplink`, in
 * their order, and leaves the others queued. What the receiver sends back
 * stays queued too. Returns how many were delivered.
 */
size_t pair_deliver_uplink(struct pair *p, struct pair_side *from, int uplink);

/*
 * Delivers a copy of one datagram (the device decrypts in place) to the side
 * `to`, from d->from, on the socket its address reaches. Queues nothing.
 */
void pair_inject(struct pair *p, struct pair_side *to, const struct pair_datagram *d);

/* How many times side s had the IP packet of this id delivered. */
size_t pair_count_delivered(const struct pair_side *s, uint64_t id);

/* Sends an IP packet whose first 8 bytes carry id; returns wb_bond_send_ip's result. */
int pair_send_ip(struct pair *p, struct pair_side *from, uint64_t id, size_t len);

/* The uplink id in a queued data message (its header), or -1 for a handshake message. */
int pair_datagram_uplink(const struct pair_datagram *d);

/*
 * Backpressure: runs virtual time forward a millisecond at a time (losing
 * the uplinks in drop_mask) until side s can queue the packet of that id
 * and len bytes (as pair_send_ip makes it), for at most max_ms. Returns
 * whether it can.
 */
bool pair_wait_for_room(struct pair *p, struct pair_side *s, uint64_t id, size_t len, unsigned drop_mask,
			unsigned max_ms);

/* pair_send_ip once there is room (waiting up to 10 s of virtual time, losing nothing). */
int pair_send_ip_waiting(struct pair *p, struct pair_side *from, uint64_t id, size_t len);

/* The same, losing the uplinks in drop_mask meanwhile. */
int pair_send_ip_waiting_mask(struct pair *p, struct pair_side *from, uint64_t id, size_t len, unsigned drop_mask);

/* Whether side s has nothing left to send, resend or deliver: its queue, send buffer and reorder buffer are empty. */
bool pair_side_idle(const struct pair_side *s);

/*
 * Runs virtual time forward a millisecond at a time (losing the uplinks in
 * drop_mask) until both sides are idle, at most until t. Returns whether
 * they are.
 */
bool pair_settle(struct pair *p, uint64_t t, unsigned drop_mask);

#endif
