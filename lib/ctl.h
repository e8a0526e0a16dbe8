/* SPDX-License-Identifier: MIT */
/*
 * The control family: the messages the daemon and the wanbond CLI exchange
 * over a bond's Unix socket (docs/control.yaml is the specification). They
 * are netlink messages: an nlmsghdr of type WB_CTL_MSG_TYPE, a generic
 * header (command, version), then TLV attributes, built and read with
 * libmnl. Errors come back as NLMSG_ERROR with an extended-ack message.
 *
 * This file is the codec only, pure: it builds messages into a caller's
 * buffer and checks received ones against the policy of their command, so
 * the daemon and the CLI agree on one definition and a fuzzer can reach it.
 */
#ifndef WB_CTL_H
#define WB_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libmnl/libmnl.h>

#include "counters.h"

#define WB_CTL_MSG_TYPE 0x57 /* above NLMSG_MIN_TYPE: the family's one message type */
#define WB_CTL_VERSION 1
/* The largest message either side sends or accepts. */
#define WB_CTL_MSG_MAX 8192

/* The generic header after the nlmsghdr (as genlmsghdr). */
struct wb_ctl_hdr {
	uint8_t cmd;
	uint8_t version;
	uint16_t reserved;
};

enum wb_ctl_cmd {
	WB_CTL_CMD_UNSPEC,
	WB_CTL_CMD_GET_BOND,       /* -> one message: the bond */
	WB_CTL_CMD_GET_UPLINKS,    /* -> a dump: one message per uplink, then NLMSG_DONE */
	WB_CTL_CMD_RESET_COUNTERS, /* counters read from zero again (the daemon's view; the protocol's go on) */
	WB_CTL_CMD_SET_SCHED,      /* policy and/or rules on and off */
	WB_CTL_CMD_SET_UPLINK,     /* an uplink's backup, weight, enabled */
	WB_CTL_CMD_MONITOR,        /* subscribe: events follow on this connection */
	WB_CTL_CMD_EVENT,          /* daemon -> monitor */
	WB_CTL_CMD_ADD_UPLINK,     /* a new uplink at run time (client) */
	WB_CTL_CMD_DEL_UPLINK,     /* an uplink removed at run time (client) */
	WB_CTL_CMD_COUNT
};

/* Top-level attributes. */
enum wb_ctl_attr {
	WB_CTL_A_UNSPEC,
	WB_CTL_A_BOND_NAME,      /* string */
	WB_CTL_A_ROLE,           /* string: client, server */
	WB_CTL_A_TUN,            /* string: the TUN device */
	WB_CTL_A_PEER,           /* string: the peer's public key (base64) */
	WB_CTL_A_SESSION,        /* u8: a session is up */
	WB_CTL_A_HANDSHAKE_AGO,  /* u64: ns since the current session's handshake (absent: no session) */
	WB_CTL_A_SCHED_POLICY,   /* string */
	WB_CTL_A_SCHED_OFF,      /* u32: the rules turned off (WB_SCHED_RULE_*) */
	WB_CTL_A_SCHED_SET_ON,   /* u32: rules to turn on (SET_SCHED) */
	WB_CTL_A_SCHED_SET_OFF,  /* u32: rules to turn off (SET_SCHED) */
	WB_CTL_A_MTU,            /* u32 */
	WB_CTL_A_SEND_BUFFER,    /* u64: bytes */
	WB_CTL_A_RECEIVE_WINDOW, /* u64: bytes */
	WB_CTL_A_SEND_QUEUE,     /* u64: bytes */
	WB_CTL_A_MEMORY,         /* u64: bytes allocated */
	WB_CTL_A_UPTIME,         /* u64: ns since the daemon started */
	WB_CTL_A_COUNTERS,       /* nested: bond counters, WB_CTL_BOND_COUNTERS order */
	WB_CTL_A_UPLINK,         /* nested: enum wb_ctl_uplink_attr */
	WB_CTL_A_EVENT,          /* nested: enum wb_ctl_event_attr */
	WB_CTL_A_DEVICE_COUNTERS, /* nested: the daemon's device counters, WB_CTL_DEVICE_COUNTERS order (GET_BOND) */
	WB_CTL_A_COUNT
};

enum wb_ctl_uplink_attr {
	WB_CTL_U_UNSPEC,
	WB_CTL_U_NAME,        /* string */
	WB_CTL_U_ID,          /* u32: its slot */
	WB_CTL_U_STATE,       /* string: down, probing, up, stale */
	WB_CTL_U_BACKUP,      /* u8 */
	WB_CTL_U_ENABLED,     /* u8: the operator's switch (disabled: out of use) */
	WB_CTL_U_WEIGHT,      /* u32: 1..1000 */
	WB_CTL_U_DEVICE,      /* string: the interface it is bound to */
	WB_CTL_U_ENDPOINT,    /* string: the peer's address and port on it */
	WB_CTL_U_SOCKET,      /* string: why its socket is closed (absent: open) */
	WB_CTL_U_SRTT,        /* u64: ns */
	WB_CTL_U_MIN_RTT,     /* u64: ns */
	WB_CTL_U_RTTVAR,      /* u64: ns */
	WB_CTL_U_LOSS_PPM,    /* u32: probe loss, parts per million */
	WB_CTL_U_CWND,        /* u64: bytes */
	WB_CTL_U_IN_FLIGHT,   /* u64: bytes */
	WB_CTL_U_PACING_RATE, /* u64: bytes per second */
	WB_CTL_U_COUNTERS,    /* nested: uplink counters, WB_CTL_UPLINK_COUNTERS order */
	WB_CTL_U_SOURCE,      /* string: the source address (and :port) it binds to (ADD_UPLINK) */
	WB_CTL_U_FWMARK,      /* u32: its packets' mark, 1.. (ADD_UPLINK) */
	WB_CTL_U_PMTU,        /* u32: the largest datagram (UDP payload) its path carries, as found */
	WB_CTL_U_PMTU_SEARCHING, /* u8: 1 while it probes for its path's size */
	WB_CTL_U_STATE_WHY,   /* string: what made its state the one it is ("no answer for 1020 ms"; absent: never changed) */
	WB_CTL_U_STATE_AGE,   /* u64: ns it has been in that state */
	WB_CTL_U_IFACE_UP,    /* u8: its interface is up as the network manager (hotplug) says; not the operator's switch */
	WB_CTL_U_COUNT
};

enum wb_ctl_event_attr {
	WB_CTL_E_UNSPEC,
	WB_CTL_E_TYPE,   /* u32: enum wb_ctl_event */
	WB_CTL_E_UPLINK, /* string: the uplink it is about, if one */
	WB_CTL_E_COUNT,  /* u64: how many in a burst */
	WB_CTL_E_TEXT,   /* string: the detail, for people */
	WB_CTL_E_MAX_ATTR
};

enum wb_ctl_event {
	WB_CTL_EV_UPLINK_UP = 1,
	WB_CTL_EV_UPLINK_DOWN,
	WB_CTL_EV_UPLINK_STALE,
	WB_CTL_EV_ADDRESS_CHANGE, /* the peer's address on an uplink moved */
	WB_CTL_EV_FAILOVER,       /* the backups took over, or handed back */
	WB_CTL_EV_HANDSHAKE,
	WB_CTL_EV_REINJECTION,    /* a burst of opportunistic reinjections */
	WB_CTL_EV_PENALTY,        /* a burst of penalties */
	WB_CTL_EV_REORDER_SKIP,   /* DSNs given up by the reorder buffer */
	WB_CTL_EV_PEER_RESTART,   /* the peer restarted: the reliable layer started over */
	WB_CTL_EV_SESSION_ENDED,  /* the session expired or the peer closed it */
	WB_CTL_EV_COUNT
};

/*
 * The counters as attributes: X(field) in a fixed order, the attribute type
 * of a counter being its position plus one. New counters go at the end, so
 * numbers and JSON keys (the field names) stay stable.
 */
#define WB_CTL_BOND_COUNTERS(X)                                                                          \
	X(tun_rx_packets) X(tun_rx_bytes) X(tun_tx_packets) X(tun_tx_bytes) X(no_session_drops)          \
	X(no_uplink_drops) X(auth_failures) X(replays) X(malformed) X(source_rejected) X(aqm_drops)       \
	X(queue_drops) X(retransmits) X(retransmit_bytes) X(bond_timeouts) X(opp_reinject_events)         \
	X(opp_reinject) X(opp_reinject_bytes) X(penalised) X(redundant_copies) X(rx_duplicates)          \
	X(rx_beyond_window) X(reorder_skips) X(reorder_held_max) X(handshakes_sent) X(handshakes_completed) \
	X(handshakes_refused) X(rekeys) X(cookies_received) X(closes_received) X(peer_restarts)            \
	X(restart_drops) X(too_big_drops) X(pool_bytes) X(pool_in_use_bytes) X(pool_high_water) X(pool_full_drops) \
	X(measure_copies) X(measure_copy_bytes) X(interactive_tx_packets) X(interactive_tx_bytes)          \
	X(interactive_copies) X(interactive_queue_drops) X(interactive_rx_packets) X(interactive_rx_early)      \
	X(fec_parity_sent) X(fec_overhead_bytes) X(fec_repaired)

#define WB_CTL_UPLINK_COUNTERS(X)                                                                       \
	X(tx_packets) X(tx_bytes) X(rx_packets) X(rx_bytes) X(tx_ip_packets) X(rx_ip_packets)             \
	X(probes_sent) X(probe_acks) X(endpoint_changes) X(went_down) X(data_packets) X(retransmits)     \
	X(acks_sent) X(reinjected) X(penalties) X(bad_acks) X(pmtu_probes) X(pmtu_lowered) X(measure_copies)

/*
 * The device's: datagrams on the daemon's sockets before any bond owns
 * them (a server's port is shared by all its peers), so every bond of one
 * daemon reports the same values.
 */
#define WB_CTL_DEVICE_COUNTERS(X)                                                                       \
	X(rx_datagrams) X(short_or_unknown) X(unknown_index) X(bad_mac1) X(unknown_peer) X(under_load)    \
	X(rate_limited) X(cookie_replies_sent)

#define WB_CTL_COUNT_ONE(f) +1
enum { WB_CTL_N_BOND_COUNTERS = 0 WB_CTL_BOND_COUNTERS(WB_CTL_COUNT_ONE),
       WB_CTL_N_UPLINK_COUNTERS = 0 WB_CTL_UPLINK_COUNTERS(WB_CTL_COUNT_ONE),
       WB_CTL_N_DEVICE_COUNTERS = 0 WB_CTL_DEVICE_COUNTERS(WB_CTL_COUNT_ONE) };

/*
 * Each list holds its struct's fields (counters.h), every one once: a
 * counter added to one and not the other, or listed twice, fails the
 * build. Each name is a u64 field; no name comes twice (it would declare
 * an enumerator twice); and the struct has no room for a field more.
 */
#define WB_CTL_COUNTER_IS_FIELD(type, f) \
	_Static_assert(sizeof(((struct type *)0)->f) == sizeof(uint64_t), #f " is a u64 of struct " #type);
#define WB_CTL_BOND_COUNTER_IS_FIELD(f) WB_CTL_COUNTER_IS_FIELD(wb_bond_counters, f)
#define WB_CTL_UPLINK_COUNTER_IS_FIELD(f) WB_CTL_COUNTER_IS_FIELD(wb_uplink_counters, f)
#define WB_CTL_DEVICE_COUNTER_IS_FIELD(f) WB_CTL_COUNTER_IS_FIELD(wb_device_counters, f)
WB_CTL_BOND_COUNTERS(WB_CTL_BOND_COUNTER_IS_FIELD)
WB_CTL_UPLINK_COUNTERS(WB_CTL_UPLINK_COUNTER_IS_FIELD)
WB_CTL_DEVICE_COUNTERS(WB_CTL_DEVICE_COUNTER_IS_FIELD)
#define WB_CTL_BOND_COUNTER_ONCE(f) WB_CTL_BOND_COUNTER_ONCE_##f,
#define WB_CTL_UPLINK_COUNTER_ONCE(f) WB_CTL_UPLINK_COUNTER_ONCE_##f,
#define WB_CTL_DEVICE_COUNTER_ONCE(f) WB_CTL_DEVICE_COUNTER_ONCE_##f,
enum { WB_CTL_BOND_COUNTERS(WB_CTL_BOND_COUNTER_ONCE) };
enum { WB_CTL_UPLINK_COUNTERS(WB_CTL_UPLINK_COUNTER_ONCE) };
enum { WB_CTL_DEVICE_COUNTERS(WB_CTL_DEVICE_COUNTER_ONCE) };
_Static_assert(sizeof(struct wb_bond_counters) == WB_CTL_N_BOND_COUNTERS * sizeof(uint64_t),
	       "every field of struct wb_bond_counters is in WB_CTL_BOND_COUNTERS");
_Static_assert(sizeof(struct wb_uplink_counters) == WB_CTL_N_UPLINK_COUNTERS * sizeof(uint64_t),
	       "every field of struct wb_uplink_counters is in WB_CTL_UPLINK_COUNTERS");
_Static_assert(sizeof(struct wb_device_counters) == WB_CTL_N_DEVICE_COUNTERS * sizeof(uint64_t),
	       "every field of struct wb_device_counters is in WB_CTL_DEVICE_COUNTERS");

/* The counters' names, in attribute order (index = type - 1). */
extern const char *const wb_ctl_bond_counter_names[WB_CTL_N_BOND_COUNTERS];
extern const char *const wb_ctl_uplink_counter_names[WB_CTL_N_UPLINK_COUNTERS];
extern const char *const wb_ctl_device_counter_names[WB_CTL_N_DEVICE_COUNTERS];

/* A counter set read from a message: values by index, and which were present. */
struct wb_ctl_counters {
	uint64_t v[WB_CTL_N_BOND_COUNTERS > WB_CTL_N_UPLINK_COUNTERS ? WB_CTL_N_BOND_COUNTERS
									: WB_CTL_N_UPLINK_COUNTERS];
	uint64_t present; /* bit i: v[i] was in the message */
};
_Static_assert(WB_CTL_N_DEVICE_COUNTERS <= WB_CTL_N_BOND_COUNTERS, "a counter set holds the device's counters");

/* A checked message: its command and attributes (pointers into the message). */
struct wb_ctl_msg {
	uint8_t cmd;
	const struct nlattr *a[WB_CTL_A_COUNT];
	const struct nlattr *u[WB_CTL_U_COUNT];       /* of WB_CTL_A_UPLINK, if present */
	const struct nlattr *e[WB_CTL_E_MAX_ATTR];   /* of WB_CTL_A_EVENT, if present */
	struct wb_ctl_counters counters;              /* of WB_CTL_A_COUNTERS (the bond's) */
	struct wb_ctl_counters uplink_counters;       /* of WB_CTL_U_COUNTERS */
	struct wb_ctl_counters device_counters;       /* of WB_CTL_A_DEVICE_COUNTERS */
};

/* Which side a message came from: requests are held to each command's attributes. */
enum wb_ctl_dir { WB_CTL_REQUEST, WB_CTL_REPLY };

/*
 * Starts a message of the family in buf (WB_CTL_MSG_MAX bytes at least,
 * all zeroed first): nlmsghdr (type, flags, seq) and generic header. Attributes are then
 * added with mnl_attr_put_* (or the helpers below) checked against
 * WB_CTL_MSG_MAX.
 */
struct nlmsghdr *wb_ctl_msg_start(void *buf, uint8_t cmd, uint16_t flags, uint32_t seq);

/* Adds the bond's, an uplink's or the device's counters as a nested attribute of type. */
bool wb_ctl_put_bond_counters(struct nlmsghdr *nlh, uint16_t type, const struct wb_bond_counters *c);
bool wb_ctl_put_uplink_counters(struct nlmsghdr *nlh, uint16_t type, const struct wb_uplink_counters *c);
bool wb_ctl_put_device_counters(struct nlmsghdr *nlh, uint16_t type, const struct wb_device_counters *c);
/* The counters' values in list order, beside the names above (the log prints them so). */
void wb_ctl_bond_counter_values(const struct wb_bond_counters *c, uint64_t v[WB_CTL_N_BOND_COUNTERS]);
void wb_ctl_uplink_counter_values(const struct wb_uplink_counters *c, uint64_t v[WB_CTL_N_UPLINK_COUNTERS]);
void wb_ctl_device_counter_values(const struct wb_device_counters *c, uint64_t v[WB_CTL_N_DEVICE_COUNTERS]);
/* A counter set back into the structures (absent counters read as zero). */
void wb_ctl_bond_counters_from(const struct wb_ctl_counters *in, struct wb_bond_counters *out);
void wb_ctl_uplink_counters_from(const struct wb_ctl_counters *in, struct wb_uplink_counters *out);
void wb_ctl_device_counters_from(const struct wb_ctl_counters *in, struct wb_device_counters *out);

/*
 * Checks a message of the family (len bytes at nlh) and fills m. Requests
 * must carry only their command's attributes, values in range. On error,
 * -EINVAL (or -EPROTO for a version, -EOPNOTSUPP for a command we do not
 * know) and a message in err saying what is wrong; nothing else happens.
 */
int wb_ctl_parse(const struct nlmsghdr *nlh, size_t len, enum wb_ctl_dir dir, struct wb_ctl_msg *m, char *err,
		 size_t err_len);

/*
 * Builds an error (errno > 0, 0 for a plain ack) for the request req into
 * buf (WB_CTL_MSG_MAX bytes, zeroed first), with msg as the extended ack (NLMSGERR_ATTR_MSG) if not NULL.
 */
struct nlmsghdr *wb_ctl_error(void *buf, const struct nlmsghdr *req, int error, const char *msg);
/*
 * Reads an NLMSG_ERROR message: the error (negative errno, 0 for an ack)
 * and its extended-ack message ("" if none). -EINVAL if it is malformed.
 */
int wb_ctl_read_error(const struct nlmsghdr *nlh, size_t len, int *error, const char **msg);

/* Names, for the CLI and the logs; NULL if out of range. */
const char *wb_ctl_cmd_name(unsigned cmd);
const char *wb_ctl_event_name(unsigned ev);

/* The attribute's string (present and NUL-terminated by parsing), or def. */
const char *wb_ctl_str(const struct nlattr *a, const char *def);

#endif
