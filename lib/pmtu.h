/* SPDX-License-Identifier: MIT */
/*
 * Packetization-layer path MTU discovery for one uplink (RFC 8899, for
 * datagram transports). Sizes are of the datagram: the UDP payload, which
 * the tunnel builds itself, so they do not depend on the outer family.
 *
 * Every path is taken to carry WB_PMTU_BASE; data datagrams stay within
 * `size`, a size the peer confirmed. A search sends padded probes, which the
 * peer answers with the size that arrived: first the largest the bond ever
 * builds (most paths carry it, and then one round trip ends the search),
 * else halving the interval between the largest size that arrived and the
 * smallest that did not. A probe counts as lost only when a packet sent
 * after it was acked: an uplink that carries nothing (an outage) proves
 * nothing about size. A search that ends below the largest size is tried
 * again after WB_PMTU_RAISE_NS: a path can grow.
 *
 * A black hole (the path shrank: big data datagrams vanish while smaller
 * ones arrive) is seen from the data itself: several datagrams above the
 * base lost, none as big as them sent after them delivered, and a smaller
 * one sent after them delivered. Sizes are compared in classes (pmtu.c),
 * so that a path that carries 1276 bytes, with datagrams of 1250 passing
 * among the 1472 that vanish, is seen as well as one that carries only
 * small ones. An uplink that went stale and answers again
 * is suspect too: a busy uplink whose big datagrams all vanish has nothing
 * acked but its probes, and goes stale before its losses are counted.
 * Either way the size falls to the base and a search starts with the old
 * size, so a false alarm costs one round trip.
 *
 * Pure state: time is an argument and the caller sends the probes.
 */
#ifndef WB_PMTU_H
#define WB_PMTU_H

#include <stdbool.h>
#include <stdint.h>

#include "nsec.h"

#define WB_PMTU_BASE 1200          /* RFC 8899's BASE_PLPMTU: taken to pass on every path */
#define WB_PMTU_MAX_PROBES 3       /* unanswered probes of one size before it counts as too big */
#define WB_PMTU_STEP 8             /* a search ends when the bounds are this close */
#define WB_PMTU_RAISE_NS (600 * WB_NSEC_PER_SEC) /* RFC 8899's PMTU_RAISE_TIMER */
#define WB_PMTU_BLACK_HOLE_LOSSES 5 /* big data datagrams lost in a row that, with a small one through, mean a black hole */
#define WB_PMTU_CLASSES 18         /* size classes: at or below the base, then equal steps up to the largest */

struct wb_pmtu {
	uint32_t size;     /* data datagrams stay within it */
	uint32_t settled;  /* what the last search found; 0 before one ended (it outlives a new search) */
	uint32_t max;      /* the largest datagram the bond builds: no point in probing above */
	bool searching;
	uint32_t hi;       /* the smallest size that did not arrive in this search; max + 1 if none */
	uint32_t first;    /* a size to try before halving, 0 if none */
	uint32_t probing;  /* the size of the probe out, 0 if none */
	uint64_t probe_pn; /* its packet number */
	unsigned tries;    /* probes of that size that went unanswered */
	bool nudged;       /* a small packet went after it to find out whether the path carries anything */
	uint64_t due_ns;   /* searching: the next probe, or the late one's deadline; else the next search */

	/* Black-hole detection, by packet number and size class. */
	uint64_t acked_pn[WB_PMTU_CLASSES]; /* the largest pn that arrived, per class; 0: none */
	uint32_t class_step;    /* bytes per class above the base */
	unsigned lost_class;    /* the smallest class among the losses counted */
	uint64_t first_lost_pn, last_lost_pn; /* the losses counted */
	uint32_t big_lost;
	uint64_t fresh_pn;      /* losses of packets sent before the last black hole was seen are its echo */
};

/* What the caller does for a search now. */
enum wb_pmtu_action {
	WB_PMTU_WAIT,  /* nothing */
	WB_PMTU_PROBE, /* send a probe of *size bytes, then wb_pmtu_probe_sent */
	WB_PMTU_NUDGE, /* send a small ack-eliciting packet: the probe's fate depends on what follows it */
};

/* A path not yet searched: the base, or max if that is smaller. */
void wb_pmtu_init(struct wb_pmtu *p, uint32_t max);

/* A new path (an uplink up after down, a new endpoint): back to the base, and a search from max. */
void wb_pmtu_restart(struct wb_pmtu *p, uint64_t now);

/* What to do at now. timeout: how long an answer may take; later_acked: a packet sent after the probe out arrived. */
enum wb_pmtu_action wb_pmtu_tick(struct wb_pmtu *p, uint64_t now, uint64_t timeout_ns, bool later_acked,
				 uint32_t *size);
void wb_pmtu_probe_sent(struct wb_pmtu *p, uint64_t pn);

/* The peer says a probe of size bytes arrived. */
void wb_pmtu_on_answer(struct wb_pmtu *p, uint32_t size, uint64_t now);

/* A datagram of bytes with packet number pn arrived, or was declared lost. */
void wb_pmtu_on_acked(struct wb_pmtu *p, uint32_t bytes, uint64_t pn);
void wb_pmtu_on_lost(struct wb_pmtu *p, uint32_t bytes, uint64_t pn);

/* The uplink fell silent: the losses so far are an outage's, not the path's size. */
void wb_pmtu_forget_losses(struct wb_pmtu *p);

/* The path may have shrunk: down to the base, and a search that tries the old size first. */
void wb_pmtu_suspect(struct wb_pmtu *p, uint64_t now);

/*
 * After acks and losses were taken: a black hole? Then the size is the base
 * again and a search began. next_pn: the packet number the uplink sends next.
 */
bool wb_pmtu_check_black_hole(struct wb_pmtu *p, uint64_t now, uint64_t next_pn);

/* When wb_pmtu_tick has something to do; UINT64_MAX if never. */
uint64_t wb_pmtu_deadline(const struct wb_pmtu *p);

#endif
