/* SPDX-License-Identifier: MIT */
/*
 * A bond, inside the library: its peer, its handshake and sessions, its
 * uplinks, and the reliable layer over them. The daemon sees it only through
 * wanbond.h; the library's own modules share this layout:
 *
 *   handshake.c  sessions (who initiates, rekeying, expiry)
 *   bond.c       the bond's life: its uplinks' states, sessions, the public calls
 *   bond_rx.c    received messages
 *   bond_timers.c  every timer, declared once (due and action)
 *   bond_tx.c    sending: the send queue onto uplinks, control messages
 *   sched.c      the scheduler's core: policies by name, what they share
 *   sched_*.c    the policies
 *   reinject.c   copying what some uplinks hold onto another
 *   bond_restart.c  a peer that restarted: the reliable layer starts over
 */
#ifndef WB_BOND_H
#define WB_BOND_H

/* The build compiles the scheduler's policies (sched_*.c) with WB_SCHED_POLICY: they see a bond through sched.h. */
#ifdef WB_SCHED_POLICY
#error "a scheduler policy sees its bond only through sched.h, not bond.h"
#endif

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "cookie.h"
#include "log_limit.h"
#include "counters.h"
#include "fec.h"
#include "index.h"
#include "keypair.h"
#include "noise.h"
#include "pktbuf.h"
#include "recovery.h"
#include "reinject.h"
#include "reorder.h"
#include "sched.h"
#include "sndbuf.h"
#include "txq.h"
#include "uplink.h"
#include "wanbond.h"

struct wb_bond {
	struct wb_device *dev;
	char name[32];
	void *user;
	/*
	 * The bond's next deadline as last computed (wb_bond_deadline), so a
	 * server with many peers neither ticks nor recomputes those whose
	 * timers did not change: stale once they may have.
	 */
	uint64_t deadline_ns;
	bool deadline_stale;

	struct wb_noise_remote remote;
	struct wb_cookie_jar cookies; /* server: the macs of its responses (it never holds a cookie) */

	/* Initiator: the handshake in flight (state ZEROED when none). */
	struct wb_noise_handshake hs;
	uint64_t hs_sent_ns;
	unsigned hs_next_uplink;
	uint64_t last_sent_time;   /* the newest initiation timestamp sent, Unix ns (wb_tai64n_floor) */
	uint64_t peer_incarnation; /* of the peer behind the current session; 0 before the first */
	uint8_t peer_caps;         /* WB_CAP_*: what it reads (wire.h); 0 before the first session */
	/* Responder: the newest timestamp accepted, and when, against replays and floods. */
	uint8_t last_timestamp[WB_TAI64N_LEN];
	uint64_t last_initiation_ns;
	bool has_timestamp;
	struct wb_log_limit refusal_log; /* a replayed initiation can come a thousand times a second */

	/* Sessions: next is the responder's, until the initiator's first message confirms it. */
	struct wb_keypair *previous, *current, *next;

	struct wb_endpoint server; /* client: where every uplink sends */
	int n_allowed;
	struct wb_ip_prefix allowed[WB_MAX_ALLOWED];
	struct wb_uplink uplinks[WB_MAX_UPLINKS];
	bool on_backup; /* as last told (WB_EVENT_FAILOVER) */

	/* The reliable layer: sending side, then receiving side. */
	struct wb_bond_tuning tuning;
	const struct wb_cc_ops *cc_ops;
	uint32_t max_body;        /* the largest sealed body: an MTU-sized packet in a data frame */
	struct wb_pktbuf_pool pool; /* its buffers; against the device's cap */
	uint64_t next_pool_full_log_ns; /* a packet without a buffer is said again from then on */
	struct wb_txq txq;
	/*
	 * The interactive class's own queue (tuning.classes), served before
	 * txq: a call's packet never waits behind bulk data. No AQM: what it
	 * carries is small and does not back off; its limit bounds it.
	 */
	struct wb_txq txq_interactive;
	/* Its parity (tuning.classes.fec): the block being built, since when; and the receiver's packets. */
	struct wb_fec_encoder fec_tx;
	uint64_t fec_block_ns;
	uint8_t fec_dscp;         /* the block's last packet's DSCP, for its parity's datagram */
	uint16_t fec_holders;     /* ... and its uplinks, which the parity keeps off if it can */
	struct wb_fec_decoder fec_rx; /* allocated at the first unordered packet received */
	struct wb_sndbuf snd;
	uint64_t peer_rwnd;
	uint64_t progress_ns;     /* snd_una last moved (or data first went out after none) */
	unsigned rto_backoff;
	struct wb_reorder rcv;
	bool bond_ack_pending;
	uint64_t pace_wake_ns;    /* work waits only for pacing until then (UINT64_MAX: none) */
	bool bond_ack_seen;       /* a bond ack came in the datagram being handled */

	/* The scheduler (sched.h): its policy, the policy's own state, copies going out. */
	const struct wb_sched_ops *sched;
	_Alignas(uint64_t) unsigned char sched_state[WB_SCHED_STATE_MAX];
	struct wb_reinject reinj;
	uint64_t oppr_una;         /* snd_una at the last check that met an idle uplink */
	uint8_t *scratch;         /* one datagram being built, where the caller lends no buffer (tx_buffer) */

	struct wb_bond_counters c;
};

/* bond.c */
int wb_bond_init(struct wb_bond *b, struct wb_device *d, const struct wb_bond_params *p);
void wb_bond_destroy(struct wb_bond *b);
/* The reliable layer of an uplink, once it exists (a server's: at the first datagram of the peer's uplink). */
int wb_bond_uplink_start(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
/* A session began (a handshake finished): probe every uplink now; hint answered the handshake. */
void wb_bond_session_started(struct wb_bond *b, uint64_t now, int hint_uplink);
/* The session ended (expired, or closed by the peer): the uplinks go down with it. */
void wb_bond_session_ended(struct wb_bond *b, uint64_t now, const char *why);
void wb_bond_uplink_transition(struct wb_bond *b, struct wb_uplink *u, enum wb_uplink_state to, uint64_t now,
			       const char *why);
void wb_bond_log(const struct wb_bond *b, enum wb_log_level level, const struct wb_uplink *u, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The uplink in slot i, NULL if none is there (the library's and its tests' view; others get wb_bond_uplink_status). */
const struct wb_uplink *wb_bond_uplink(const struct wb_bond *b, unsigned i);
/* Whether only backups carry traffic: no active uplink is usable, and a backup is. */
bool wb_bond_on_backup(const struct wb_bond *b);

/* A packet found no buffer (what it was): counted, and said at most every 10 s. */
void wb_bond_pool_full(struct wb_bond *b, uint64_t now, const char *what);

/* bond_rx.c */
/* A data message, opened with kp (a CLOSE in it ends kp's session and those before). */
void wb_bond_on_data(struct wb_bond *b, uint64_t now, const struct wb_keypair *kp, const struct wb_endpoint *from,
		     uint8_t uplink, uint64_t pn, const uint8_t *body, size_t len);
/* The uplink answered a probe (or a handshake): three in a row bring a failed one up. */
void wb_bond_uplink_answered(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
/* Delivers an IP packet the reorder buffer releases to the embedder, if its source is allowed (wb_deliver_fn). */
void wb_bond_deliver_ip(void *ctx, const uint8_t *ip, size_t len);
/* A path MTU search ended on u; before is what it had settled on until then. */
void wb_bond_pmtu_search_ended(struct wb_bond *b, struct wb_uplink *u, uint32_t before);

/* bond_timers.c: every timer of the bond, declared once (due and action). */
/* Runs the timers that are due, and those that look at every tick. */
void wb_bond_tick(struct wb_bond *b, uint64_t now);
/* The earliest due of them: when wb_bond_tick has work. */
uint64_t wb_bond_deadline(const struct wb_bond *b);
/* The acks due on every uplink: at the end of the sending, where none found a data packet to ride on. */
void wb_bond_send_due_acks(struct wb_bond *b, uint64_t now);

/* bond_event.c: tells the caller (its ops' event), if it listens. */
void wb_bond_event(struct wb_bond *b, const struct wb_event *ev);
/* After a change of which uplinks are usable or backups: a failover is told once. */
void wb_bond_check_failover(struct wb_bond *b);
/* After acks or losses on u: a path MTU black hole? Then its size is lowered and a search begins. */
void wb_bond_check_black_hole(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
/* How long the receiver waits for a gap: from the tuning, or from the uplinks' RTTs. */
uint64_t wb_bond_hold_ns(const struct wb_bond *b);
/* The pool's gauges into the counters: at the end of every event that may have changed them. */
void wb_bond_sync_pool(struct wb_bond *b);

/* bond_tx.c */
enum wb_send_kind {
	WB_SEND_NEW,       /* a DSN's first copy */
	WB_SEND_RESEND,    /* lost where it went */
	WB_SEND_REDUNDANT, /* one more copy of a new DSN (the redundant policy) */
	WB_SEND_REINJECT,  /* a copy of what a slower or gone uplink holds, onto an idle one */
	WB_SEND_TIMEOUT,   /* resent after the bond's timeout */
	WB_SEND_MEASURE,   /* a copy of what the others hold, onto an uplink whose rate is not known, to measure it */
};

/* Sends the interactive class's parity that is ready (fec_tx) where it arrives first; none if no uplink takes it. */
void wb_bond_send_parity(struct wb_bond *b, uint64_t now);
/* Sends one DSN of the send buffer on u, with whatever acks fit beside it, and counts it by kind. */
bool wb_bond_send_dsn(struct wb_bond *b, struct wb_uplink *u, uint64_t dsn, uint64_t now, enum wb_send_kind kind);
/* Sends reinjection's next copy (reinject.h) if its uplink can take it now. Returns true if one went out. */
bool wb_reinject_send_one(struct wb_bond *b, uint64_t now);
/* The queue whose head gets the next DSN: the interactive class's, unless it is empty. */
static inline struct wb_txq *wb_bond_next_queue(struct wb_bond *b)
{
	return wb_txq_peek(&b->txq_interactive) ? &b->txq_interactive : &b->txq;
}

/* Whether a packet waits in a send queue for its DSN. */
static inline bool wb_bond_has_queued(const struct wb_bond *b)
{
	return wb_txq_peek(&b->txq_interactive) || wb_txq_peek(&b->txq);
}
/* Sends what can go now: resent packets first, then the send queue; then acks that are due. */
void wb_bond_push(struct wb_bond *b, uint64_t now);
/* Sends a datagram on an uplink, counting it. */
void wb_bond_transmit(struct wb_bond *b, struct wb_uplink *u, const uint8_t *data, size_t len, uint8_t dscp);
void wb_bond_send_probe(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
void wb_bond_send_probe_ack(struct wb_bond *b, struct wb_uplink *u, const struct wb_probe *probe, uint64_t now);
void wb_bond_send_close(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
/* A path MTU probe: a datagram of size bytes, padded. */
void wb_bond_send_pmtu_probe(struct wb_bond *b, struct wb_uplink *u, uint32_t size, uint64_t now);
/* An ack-only message (with the bond ack when due) on u, whose ack is due. */
void wb_bond_send_ack(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
/* Its answer: the size of the datagram it came in. */
void wb_bond_send_pmtu_ack(struct wb_bond *b, struct wb_uplink *u, uint16_t size, uint64_t now);
/* The next time the push loop has work that only pacing holds back, UINT64_MAX if none. */
uint64_t wb_bond_pacing_wake(const struct wb_bond *b, uint64_t now);
/* Where acked and lost packets of an uplink go: the send buffer. */
struct wb_recovery_events wb_bond_recovery_events(struct wb_bond *b, struct wb_uplink *u);

/* bond_restart.c */
/*
 * The peer is a new incarnation (it restarted): drops what was sent and not
 * acknowledged, and what the reorder buffer holds, counting both, and starts
 * the DSNs, every uplink's acks, recovery and congestion state over, as the
 * peer's are. The send queue stays: it goes out under the new session.
 */
void wb_bond_peer_restarted(struct wb_bond *b, uint64_t now);

/* handshake.c */
void wb_handshake_tick(struct wb_bond *b, uint64_t now);
uint64_t wb_handshake_deadline(const struct wb_bond *b);
/* The handshake messages: each returns the bond it acted on, NULL if none (the device marks its timers). */
struct wb_bond *wb_handshake_on_initiation(struct wb_device *d, uint64_t now, const struct wb_endpoint *from,
					   uint8_t *buf, size_t len);
struct wb_bond *wb_handshake_on_response(struct wb_device *d, uint64_t now, unsigned sock,
					 const struct wb_endpoint *from, uint8_t *buf, size_t len);
struct wb_bond *wb_handshake_on_cookie(struct wb_device *d, uint64_t now, unsigned sock, const uint8_t *buf,
				       size_t len);
/* The initiator used the responder's next session: it becomes current. */
void wb_handshake_confirm(struct wb_bond *b, uint64_t now);
/* Drops every session and the handshake in flight (bond teardown, or a CLOSE). */
void wb_handshake_clear_sessions(struct wb_bond *b);
/* A CLOSE came, sealed in kp: true if it ended the session in use (wb_handshake_close). */
bool wb_handshake_close(struct wb_bond *b, const struct wb_keypair *kp);

#endif
