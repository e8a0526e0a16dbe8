/* SPDX-License-Identifier: MIT */
/*
 * The protocol library's interface to the daemon (and to the tests and the
 * simulator). A device is one local identity: a client with one bond, or a
 * server with one bond per peer router. It makes no system calls: the
 * caller passes the time in, hands it the datagrams it receives and the IP
 * packets read from TUN devices, and gets datagrams to send and IP packets
 * to deliver through the ops callbacks.
 *
 * Time is CLOCK_MONOTONIC in nanoseconds, passed in. The one other clock,
 * Unix time for the handshake's timestamps, is read through the ops when an
 * initiation is made (a router without a real-time clock has it set by NTP
 * after start).
 */
#ifndef WB_WANBOND_H
#define WB_WANBOND_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "allowed.h"
#include "classify.h"
#include "counters.h"
#include "crypto.h"
#include "endpoint.h"
#include "nsec.h"
#include "pktbuf.h"
#include "wire.h"

struct wb_device;
struct wb_bond;
struct wb_uplink;

struct wb_timers {
	uint64_t probe_interval_ns;
	uint64_t uplink_timeout_ns;
	uint64_t handshake_retry_ns;
	uint64_t rekey_after_ns;
	uint64_t reject_after_ns;
	uint64_t rekey_after_messages;
};

/* WireGuard's session lifetimes; probes four times a second; down after a second of silence. */
#define WB_TIMERS_DEFAULT ((struct wb_timers){ \
	.probe_interval_ns = 250 * WB_NSEC_PER_MSEC, \
	.uplink_timeout_ns = WB_NSEC_PER_SEC, \
	.handshake_retry_ns = WB_NSEC_PER_SEC, \
	.rekey_after_ns = 120 * WB_NSEC_PER_SEC, \
	.reject_after_ns = 180 * WB_NSEC_PER_SEC, \
	.rekey_after_messages = 1ULL << 60 })

struct wb_device_params {
	bool server;
	uint8_t private_key[WB_KEY_LEN];
	enum wb_cipher cipher;
	struct wb_timers timers;
	uint32_t handshakes_per_second; /* above this rate, initiations must carry a cookie; 0: 50 */
	/*
	 * Bytes of packet buffers all the bonds together may allocate (their
	 * pools); 0: no cap but each bond's own. With more than one bond, each
	 * keeps to its share of what is left (pktbuf.h).
	 */
	uint64_t pool_limit;
};

struct wb_uplink_params {
	char name[WB_UPLINK_NAME_MAX + 1];
	bool backup;
	uint16_t weight;
};

/* The reliable layer of a bond; zero fields take the defaults (wb_bond_tuning_defaults). */
/*
 * Traffic classes (docs/scheduler.md, "Traffic classes"): which packets are
 * interactive (classify.h's rules), and how the bond carries them. Bulk is
 * everything else, carried by the bond's policy, in order.
 */
enum wb_class_policy {
	WB_CLASS_POLICY_DUPLICATE, /* each packet on the two uplinks where it arrives first */
	WB_CLASS_POLICY_REDUNDANT, /* ... on every uplink in use */
	WB_CLASS_POLICY_BONDED,    /* as bulk: the bond's policy */
};

struct wb_classes {
	struct wb_class_rules rules; /* all zero: no classes, every packet bulk */
	enum wb_class_policy policy; /* the interactive class's */
	bool ordered;                /* the interactive class is delivered in order, as bulk */
	bool fec;                    /* parity over its packets where the uplinks lose (fec.h) */
};

struct wb_bond_tuning {
	uint32_t mtu;              /* of the TUN device: the largest IP packet */
	uint64_t send_buffer;      /* bytes sent and not yet delivered, kept for resending */
	uint64_t receive_window;   /* bytes the reorder buffer may hold */
	uint64_t send_queue;       /* bytes waiting for an uplink */
	uint64_t hold_ns;          /* how long a gap is waited for; 0: from the uplinks' RTTs */
	bool no_aqm;               /* no CoDel on the send queue (the simulator's lossless mode) */
	uint64_t aqm_target_ns, aqm_interval_ns;
	char cc[16];               /* congestion control: "bbr" or "newreno" */
	char scheduler[16];        /* "default", "roundrobin", "redundant" or "first" */
	uint32_t sched_off;        /* rules of the scheduler turned off (WB_SCHED_RULE_*): all on by default */
	struct wb_classes classes;
	bool outer_dscp;           /* a data datagram carries its IP packet's DSCP (the send op's dscp) */
};

/*
 * The scheduler's rules, a bit each, all on unless sched_off holds its bit:
 * each has a switch so the benchmark can show its worth (docs/scheduler.md).
 */
#define WB_SCHED_RULE_PENALISE 0x01             /* halve the window of a slow uplink that holds up the bond */
#define WB_SCHED_RULE_PENALISE_GUARD 0x02       /* ... even while the peer's receive window is what limits */
#define WB_SCHED_RULE_REINJECT 0x04             /* copy what slow uplinks hold onto an idle fast one */
#define WB_SCHED_RULE_REINJECT_RWND 0x08        /* ... when the receive window is full */
#define WB_SCHED_RULE_REINJECT_SNDBUF 0x10      /* ... when the send buffer is full */
#define WB_SCHED_RULE_REINJECT_APP_LIMITED 0x20 /* ... when nothing more waits to be sent */
#define WB_SCHED_RULE_AVOID_BLOCKING 0x40       /* keep off a slow uplink what would arrive after the window is used up */
#define WB_SCHED_RULE_ARRIVAL 0x80     /* each packet waits for the uplink where it arrives first */
#define WB_SCHED_RULE_MEASURE 0x100             /* copies measure an unused uplink whose rate is not known */

#define WB_DEFAULT_MTU 1413
#define WB_DEFAULT_SEND_BUFFER (6ULL << 20)
#define WB_DEFAULT_RECEIVE_WINDOW (6ULL << 20)
#define WB_DEFAULT_SEND_QUEUE (4ULL << 20)
#define WB_DEFAULT_AQM_TARGET_NS (5 * WB_NSEC_PER_MSEC)
#define WB_DEFAULT_AQM_INTERVAL_NS (100 * WB_NSEC_PER_MSEC)

/* Fills the zero fields of t with the defaults. */
void wb_bond_tuning_defaults(struct wb_bond_tuning *t);

struct wb_bond_params {
	char name[32];
	uint8_t public_key[WB_KEY_LEN];    /* the peer's */
	uint8_t preshared_key[WB_KEY_LEN]; /* zeros for none */
	/* Client only: the server and our uplinks (uplink i uses socket i). */
	struct wb_endpoint server;
	int n_uplinks;
	struct wb_uplink_params uplinks[WB_MAX_UPLINKS];
	/* Sources the peer may use inside the tunnel; none: any (a client takes anything from its server). */
	int n_allowed;
	struct wb_ip_prefix allowed[WB_MAX_ALLOWED];
	struct wb_bond_tuning tuning;
	void *user; /* the caller's, returned by wb_bond_user() */
};

enum wb_log_level { WB_LOG_ERR = 3, WB_LOG_WARNING = 4, WB_LOG_NOTICE = 5, WB_LOG_INFO = 6, WB_LOG_DEBUG = 7 };

/*
 * An uplink's liveness, fed by its probes' answers:
 *
 *   down --answer--> probing --3 answers in a row--> up
 *     ^                 |                            |  ^
 *     |                 |                   silence  v  | answer
 *     +----silence------+----------silence------  stale
 *
 * Silence is time without an answer, counted from the last one (or from
 * when the uplink could first send): stale after a little over two probe
 * intervals (out of use at once), down after uplink_timeout.
 */
enum wb_uplink_state {
	WB_UPLINK_DOWN,
	WB_UPLINK_PROBING,
	WB_UPLINK_UP,
	WB_UPLINK_STALE,
};

const char *wb_uplink_state_name(enum wb_uplink_state s);

#define WB_STATE_WHY_MAX 48

/*
 * What the operator sees of an uplink, copied by wb_bond_uplink_status():
 * the daemon, its control socket and its tools read these and never the
 * library's own structures.
 */
struct wb_uplink_status {
	char name[WB_UPLINK_NAME_MAX + 1];
	unsigned id;                      /* its slot; a client's socket number */
	uint32_t generation;              /* changes when another uplink takes the slot: baselines kept of it are void */
	enum wb_uplink_state state;
	char state_why[WB_STATE_WHY_MAX]; /* what made its last change ("no answer for 1020 ms") */
	uint64_t state_since_ns;
	bool available;                   /* a client has its socket; a server knows its endpoint */
	bool usable;                      /* carries traffic now: available and up */
	bool backup;
	uint16_t weight;
	struct wb_endpoint endpoint;      /* where its datagrams go; family 0 while unknown */
	uint64_t srtt_ns, min_rtt_ns, rttvar_ns; /* 0 before the first sample */
	uint32_t loss_ppm;
	uint64_t cwnd, bytes_in_flight, pacing_rate; /* bytes, bytes, bytes a second */
	uint64_t lost_packets, spurious_losses, timeouts;
	bool timed_out;                   /* a timeout, and nothing acked since */
	uint32_t pmtu;                    /* the largest datagram its path carries */
	bool pmtu_searching;
	struct wb_uplink_counters c;
};

/* What the operator sees of a bond, copied by wb_bond_status(). */
struct wb_bond_status {
	char name[32];
	bool session;
	uint64_t session_born_ns;  /* when the current session's handshake completed; 0: none */
	char scheduler[16];
	uint32_t sched_off;        /* rules turned off (WB_SCHED_RULE_*) */
	uint64_t send_buffer, receive_window, send_queue;
	uint64_t memory;           /* wb_bond_memory() */
	bool on_backup;            /* only backups carry traffic: no active uplink is usable, a backup is */
	uint32_t path_max_packet;  /* wb_bond_path_max_packet() */
	struct wb_bond_counters c;
};

/*
 * What the library tells its caller as it happens, for the operator's
 * monitors. The strings are valid during the call only.
 */
enum wb_event_type {
	WB_EVENT_UPLINK_STATE = 1, /* uplink, from, to, text: why */
	WB_EVENT_ADDRESS_CHANGE,   /* uplink, text: the peer's new endpoint */
	WB_EVENT_SESSION,          /* a session installed (count: 1 for a rekey, 0 for the first) */
	WB_EVENT_SESSION_ENDED,    /* text: why */
	WB_EVENT_FAILOVER,         /* to_backup: the backups took over (true) or handed back */
	WB_EVENT_REINJECTION,      /* a burst of copies begins; uplink: the one that takes them */
	WB_EVENT_PENALTY,          /* uplink: the one whose window was halved */
	WB_EVENT_REORDER_SKIP,     /* count: DSNs given up at once */
	WB_EVENT_PEER_RESTART,     /* count: packets given up by it, text: what happened */
};

struct wb_event {
	enum wb_event_type type;
	const char *uplink;        /* its name, NULL if the event is the bond's */
	enum wb_uplink_state from, to;
	bool to_backup;
	uint64_t count;
	const char *text;
};

struct wb_device_ops {
	/*
	 * Sends one datagram. sock is the uplink's socket on a client (the uplink
	 * id), 0 on a server (its one socket). data is only valid during the call.
	 * dscp: the DSCP its outer IP header should carry (the tunnelled
	 * packet's, with tuning.outer_dscp), 0 for the socket's own.
	 */
	void (*send)(void *ctx, unsigned sock, const struct wb_endpoint *to, const uint8_t *data, size_t len,
		     uint8_t dscp);
	/* An IP packet for the bond's TUN device. */
	void (*deliver)(void *ctx, struct wb_bond *b, const uint8_t *ip, size_t len);
	/* Fills buf with cryptographically random bytes. */
	void (*random)(void *ctx, void *buf, size_t len);
	/* Unix time now, in ns (CLOCK_REALTIME): the timestamp of a handshake initiation. */
	uint64_t (*wall_clock)(void *ctx);
	/* A line for the log; bond and uplink are NULL when none applies. */
	void (*log)(void *ctx, enum wb_log_level level, const char *bond, const char *uplink, const char *msg);
	/* Something an operator cares about changed (NULL: not told). */
	void (*event)(void *ctx, struct wb_bond *b, const struct wb_event *ev);
	/*
	 * Optional: where to build the next datagram for sock, len bytes at
	 * most; NULL for none. The library seals it there in place and passes
	 * the same pointer to send, before any other datagram goes out, so the
	 * caller need not copy it; without one it builds in a buffer of its
	 * own, and send copies.
	 */
	uint8_t *(*tx_buffer)(void *ctx, unsigned sock, size_t len);
};

int wb_device_new(struct wb_device **out, const struct wb_device_params *p, const struct wb_device_ops *ops,
		  void *ctx);
void wb_device_free(struct wb_device *d);

/* Adds a bond: on a client exactly one, on a server one per peer. -EEXIST for a peer key twice. */
int wb_device_add_bond(struct wb_device *d, const struct wb_bond_params *p, struct wb_bond **out);

/*
 * A datagram that arrived on socket sock from an endpoint. buf is decrypted
 * in place. Anything that does not authenticate is counted and changes
 * nothing.
 */
void wb_device_receive(struct wb_device *d, uint64_t now, unsigned sock, const struct wb_endpoint *from,
		       uint8_t *buf, size_t len);

/* Runs what is due (probes, handshakes, state changes, expiries). */
void wb_device_tick(struct wb_device *d, uint64_t now);

/* When wb_device_tick next has work, UINT64_MAX if never. */
uint64_t wb_device_next_deadline(struct wb_device *d);

/*
 * Sends an IP packet over the bond: it is copied into the send queue and
 * goes out as soon as an uplink can take it. 0, or -ENOTCONN (no session
 * yet), -ENOBUFS (the send queue is full), -EMSGSIZE (above the MTU: a
 * too-big drop); each counted. An empty one is no packet: -EMSGSIZE, and
 * nothing counted.
 */
int wb_bond_send_ip(struct wb_bond *b, uint64_t now, const uint8_t *ip, size_t len);

/*
 * Whether the send queue of this IP packet's class has room for it (an
 * application with backpressure): a full bulk queue does not hold up a
 * call's packet, as in wb_bond_send_ip.
 */
bool wb_bond_can_queue(const struct wb_bond *b, const uint8_t *ip, size_t len);

/* Bytes the bond has allocated for packets and its rings, for the operator. */
uint64_t wb_bond_memory(const struct wb_bond *b);

/*
 * The flag of a scheduler rule by its name in the configuration
 * (arrival, avoid_blocking, measure, penalise, penalise_guard, reinject,
 * reinject_on_rwnd, reinject_on_sndbuf, reinject_on_app_limited), 0 if none has that name.
 */
uint32_t wb_sched_rule_by_name(const char *name);
/* The rule's name for a flag, NULL if none. */
const char *wb_sched_rule_name(uint32_t flag);
/* Whether a scheduler of that name exists. */
bool wb_sched_exists(const char *name);

/*
 * Chooses the bond's scheduler and its rules (sched_off: WB_SCHED_RULE_*) at
 * run time. -EINVAL for an unknown name, and nothing changes.
 */
int wb_bond_set_scheduler(struct wb_bond *b, const char *name, uint32_t sched_off);
const char *wb_bond_scheduler(const struct wb_bond *b);
/*
 * The bond's traffic classes from now on (a reload): packets already queued
 * as interactive still go first; a parity block under way is dropped.
 */
void wb_bond_set_classes(struct wb_bond *b, const struct wb_classes *c);

/*
 * Client: whether uplink i has a working socket (its interface exists and
 * is up). why: what took it out of use ("interface wan2 down"), for its
 * state's reason; NULL when it becomes available.
 */
void wb_bond_set_uplink_available(struct wb_bond *b, unsigned uplink, bool available, uint64_t now, const char *why);

/*
 * Client: makes uplink i a backup or an active uplink and sets its weight
 * (1..), at run time; the server learns it from the next probe. -ENOENT
 * if there is no uplink i, -EPERM on a server (its uplinks are the
 * client's), -EINVAL for a weight of 0.
 */
int wb_bond_set_uplink_role(struct wb_bond *b, unsigned i, bool backup, uint16_t weight);

/*
 * Client: a new uplink at run time, in the first free slot; the caller
 * then opens its socket (slot = socket number) and makes it available.
 * Returns the slot, or -EEXIST (its name is taken), -ENOSPC (16 uplinks),
 * -EPERM on a server, -ENOMEM.
 */
int wb_bond_add_uplink(struct wb_bond *b, const struct wb_uplink_params *p, uint64_t now);
/*
 * Client: removes uplink i at run time; what it carried goes out again on
 * the others. -ENOENT if there is none, -EPERM on a server.
 */
int wb_bond_remove_uplink(struct wb_bond *b, unsigned i, uint64_t now);

/* Tells the peer the session ends (a CLOSE on every uplink), e.g. at shutdown. */
void wb_bond_close(struct wb_bond *b, uint64_t now);

/* Read-only views, for status and counters. */
void *wb_bond_user(const struct wb_bond *b);
const struct wb_bond_counters *wb_bond_counters(const struct wb_bond *b);
bool wb_bond_has_session(const struct wb_bond *b);
/* When the current session's handshake completed (0: no session). */
uint64_t wb_bond_session_born(const struct wb_bond *b);
void wb_bond_status(const struct wb_bond *b, struct wb_bond_status *out);
/* The uplink in slot i (0..WB_MAX_UPLINKS-1): false if none is there. */
bool wb_bond_uplink_status(const struct wb_bond *b, unsigned i, struct wb_uplink_status *out);
/* The slot of the uplink of that name, -ENOENT if none. */
int wb_bond_find_uplink(const struct wb_bond *b, const char *name);
/*
 * The largest IP packet that the path of every usable uplink carries in one
 * datagram, as their last path MTU searches found (an uplink still on its
 * first search does not count); 0 if none has found one. A TUN device whose
 * MTU follows it sizes inner packets for the smallest path.
 */
uint32_t wb_bond_path_max_packet(const struct wb_bond *b);
const struct wb_device_counters *wb_device_counters(const struct wb_device *d);
/* The packet buffers of all the device's bonds: the cap, what they hold, their peak, refusals at the cap. */
const struct wb_pktbuf_limit *wb_device_pool(const struct wb_device *d);
/* Bond i of the device (0..), NULL past the last. */
struct wb_bond *wb_device_bond(const struct wb_device *d, unsigned i);
/*
 * How late a pacing deadline may be served, at most: a busy daemon wakes
 * less often and an uplink then sends a burst per wakeup at the same rate
 * (lib/bond_tx.c, burst_due). 0, the default: each packet on its time.
 */
void wb_device_set_pacing_slack(struct wb_device *d, uint64_t ns);

#endif
