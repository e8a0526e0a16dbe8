/* SPDX-License-Identifier: MIT */
/*
 * The configuration file of wanbondd (libconfig syntax, the 1.5 API), read
 * into a validated struct. One file describes one daemon: a client (a router
 * with its uplinks and one bond to its server) or a server (one listening
 * port, one bond per peer router). See docs/configuration.md.
 */
#ifndef WB_CONFIG_H
#define WB_CONFIG_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "crypto.h"
#include "wanbond.h"
#include "wire.h"

#define WB_NAME_MAX (WB_UPLINK_NAME_MAX + 1) /* bond, peer and uplink names, with the NUL */
#define WB_MAX_PEERS 256      /* bonds one server serves */
#define WB_MAX_ADDRESSES 4    /* inner addresses of one TUN device */
#define WB_MAX_ROUTES 16      /* routes through one bond */
#define WB_PATH_MAX 256

enum wb_role {
	WB_ROLE_CLIENT,
	WB_ROLE_SERVER,
};

/* An address with a prefix length, IPv4 or IPv6: "10.255.0.1/30", "fd00::1/64". */
struct wb_prefix {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	uint8_t len;
};

struct wb_conf_tun {
	char name[IFNAMSIZ];
	struct wb_prefix address[WB_MAX_ADDRESSES];
	int n_address;
	uint32_t mtu; /* 0: derived from the uplinks' MTU less the tunnel overhead */
};

/* One bond seen from this side: the server (on a client) or a router (on a server). */
struct wb_conf_peer {
	char name[WB_NAME_MAX];
	uint8_t public_key[WB_KEY_LEN];
	uint8_t preshared_key[WB_KEY_LEN]; /* all zeros when none is set, as Noise wants */
	bool has_preshared_key;
	struct wb_conf_tun tun;
	struct wb_prefix routes[WB_MAX_ROUTES];
	int n_routes;
	int line;
};

struct wb_conf_uplink {
	char name[WB_NAME_MAX];
	char interface[IFNAMSIZ]; /* "" when not bound to an interface */
	struct sockaddr_storage source; /* family AF_UNSPEC when not set; port 0 unless given */
	uint32_t fwmark;
	bool has_fwmark;
	uint32_t table;         /* a policy rule "fwmark lookup table" for it; 0: none */
	uint32_t rule_priority; /* that rule's priority */
	bool backup;
	uint32_t weight; /* share of new traffic relative to the other uplinks, default 1 */
	int line;
};

/* The policy rules' priorities by default: below mwan3's (1000 and up), one per uplink. */
#define WB_RULE_PRIORITY_BASE 900
/* mwan3's default mark mask: our marks had better stay out of it when both run. */
#define WB_MWAN3_MARK_MASK 0x3F00u

/*
 * Protocol timing; the defaults are the library's, WB_TIMERS_DEFAULT. The
 * flat groups' fields are their settings' names (config_groups.c's tables).
 */
struct wb_conf_timers {
	uint32_t probe_interval_ms;     /* probes per uplink: liveness, RTT, NAT keepalive */
	uint32_t uplink_timeout_ms;     /* silence after which an uplink is down */
	uint32_t handshake_retry_ms;    /* a handshake without answer is retried (on the next uplink) */
	uint32_t rekey_after_seconds;   /* a session older than this is renewed */
	uint64_t rekey_after_messages;  /* ... or one that sealed this many messages */
};

/* The reliable layer; the defaults are the library's (wb_bond_tuning_defaults), zero values mean automatic. */
struct wb_conf_transport {
	char congestion_control[16]; /* "bbr" or "newreno" */
	uint32_t send_buffer_kb;     /* sent and not yet delivered */
	uint32_t receive_window_kb;  /* the reorder buffer */
	uint32_t send_queue_kb;      /* waiting for an uplink */
	uint32_t reorder_hold_ms;    /* 0: from the uplinks' RTTs */
	bool aqm;                    /* CoDel on the send queue */
	uint32_t aqm_target_ms, aqm_interval_ms;
	uint32_t pool_limit_mb;      /* packet buffers of all the bonds together; 0: a quarter of the memory */
	bool outer_dscp;             /* data datagrams carry their IP packet's DSCP */
};

/* Which uplink takes each packet: the policy, and its rules (docs/scheduler.md). */
struct wb_conf_scheduler {
	char policy[16];             /* default, roundrobin, redundant, first */
	uint32_t off;                /* rules turned off, WB_SCHED_RULE_* */
};

/* Traffic classes (config_classes.c): the interactive class's rules and how it is carried. */
struct wb_conf_classes {
	struct wb_class_rules rules;  /* rules.enabled: the group's "enabled" */
	enum wb_class_policy policy;
	bool ordered;
	bool fec;                     /* "auto": parity where the uplinks lose */
};

/*
 * The control sockets: DIRECTORY/BOND.sock; members of group may read,
 * root and members of admin_group may change. The default is the build's (make CONTROL_DIR=...): OpenWrt has
 * /var/run, not /run.
 */
#ifndef WB_CONTROL_DIR
#define WB_CONTROL_DIR "/run/wanbond"
#endif
struct wb_conf_control {
	char directory[96];
	char group[32];              /* "": root's only */
	char admin_group[32];        /* its members may change things too ("": root alone) */
};

#define WB_MAX_CONFIG_WARNINGS 4

struct wb_config {
	char path[WB_PATH_MAX];
	enum wb_role role;
	char name[WB_NAME_MAX];   /* the bond (client) or the server instance */
	uint8_t private_key[WB_KEY_LEN];
	enum wb_cipher cipher;
	struct wb_conf_timers timers;
	struct wb_conf_transport transport;
	struct wb_conf_scheduler scheduler;
	struct wb_conf_classes classes;
	struct wb_conf_control control;

	/* Client: the server and this router's uplinks. peers[0] is the server. */
	struct sockaddr_storage server; /* address and port */
	struct wb_conf_uplink uplinks[WB_MAX_UPLINKS];
	int n_uplinks;

	/* Server: where to listen, and one peer per router. */
	struct sockaddr_storage listen; /* address (any if unset) and port */

	struct wb_conf_peer peers[WB_MAX_PEERS];
	int n_peers;

	/* What is wrong but not fatal, as "FILE:LINE: what" (a key that others can read). */
	char warnings[WB_MAX_CONFIG_WARNINGS][256];
	int n_warnings;
	int inline_secret_line; /* the first line with a secret key written in the file itself; 0: none */
};

/*
 * Reads and validates a configuration file. On error returns a negative errno
 * and writes "FILE:LINE: what is wrong" (or "FILE: ..." when no line applies)
 * into err; cfg is then unspecified.
 */
int wb_config_load(struct wb_config *cfg, const char *path, char *err, size_t errlen);

/*
 * An uplink added at run time (wanbond uplink add), checked as the file's
 * are, and bound otherwise than cfg's other uplinks: 0, or -EINVAL with what
 * is wrong in err, as the file says it but with no line: "uplink 'lte':
 * weight: 0 is out of range 1..1000". ifname and source may be NULL, fwmark
 * 0 (none). A name that cfg has already is not refused here: the bond says
 * so as it adds the uplink.
 */
int wb_config_runtime_uplink(struct wb_conf_uplink *up, const struct wb_config *cfg, const char *name,
			     const char *ifname, const char *source, uint32_t fwmark, bool backup, uint32_t weight,
			     char *err, size_t errlen);

/* The same from a string; name stands for the file in messages. */
int wb_config_parse(struct wb_config *cfg, const char *text, const char *name, char *err, size_t errlen);

/* "10.1.0.0/24" or "fd00::/64" into a prefix; -EINVAL if malformed. */
int wb_prefix_parse(struct wb_prefix *p, const char *s);

#endif
