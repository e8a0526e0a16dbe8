/* SPDX-License-Identifier: MIT */
/*
 * Reinjection, the core's half: once a policy has chosen an uplink, whose
 * DSNs to copy and how many bytes (sched.h, get_retrans), this walks the
 * send buffer from snd_una up to where it ended at the decision, and sends
 * on that uplink each DSN that one of those holders carries and that is
 * not yet delivered nor already on it: lowest first, each once however many
 * uplinks hold it, and never more bytes than the limit. It goes out as the
 * uplink's window and pacing allow, ahead of new data.
 */
#ifndef WB_REINJECT_H
#define WB_REINJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "sched.h"

struct wb_bond;

struct wb_reinject {
	bool active;
	enum wb_retrans_reason reason;
	uint8_t uplink;     /* where the copies go */
	uint16_t from;      /* whose DSNs, a bit per uplink id (0: any, for the bond's timeout) */
	uint64_t next, end; /* the walk: the next DSN to look at, and snd_nxt at the decision */
	uint64_t budget;    /* bytes it may still send */
};

/* Starts copying what d says (an earlier walk still going is replaced). */
void wb_reinject_start(struct wb_bond *b, const struct wb_retrans_decision *d, enum wb_retrans_reason reason);

/* A copy to send: the DSN, on its uplink, for the walk's reason. */
struct wb_reinject_copy {
	struct wb_uplink *uplink;
	uint64_t dsn;
	enum wb_retrans_reason reason;
};

/* The walk's next copy, if its uplink can take it now; false if none (and the walk is over when nothing is left). */
bool wb_reinject_next(struct wb_bond *b, uint64_t now, struct wb_reinject_copy *out);
/* The copy went out (sent), or could not be sealed: then no session is left and the walk ends. */
void wb_reinject_sent(struct wb_bond *b, const struct wb_reinject_copy *c, bool sent);

#endif
