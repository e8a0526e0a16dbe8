/* SPDX-License-Identifier: MIT */
/*
 * Which traffic class an IP packet from the TUN device belongs to.
 * Interactive traffic (calls, games) must never wait behind bulk data: the
 * bond delivers it without ordering and sends it on two uplinks. Bulk is
 * everything else. A packet is interactive by its DSCP (what the
 * application or the LAN's router marked) or by its ports (for what nobody
 * marks), as the configuration's rules say.
 *
 * Pure and per packet: it reads the IP header and at most the transport
 * header's first four bytes, and never past len.
 */
#ifndef WB_CLASSIFY_H
#define WB_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wb_class { WB_CLASS_BULK = 0, WB_CLASS_INTERACTIVE = 1 };
#define WB_CLASS_COUNT 2
#define WB_CLASS_MAX_PORT_RULES 16

/*
 * A port rule: a protocol (IPPROTO_UDP, IPPROTO_TCP, or 0 for both) and an
 * inclusive port range; it matches a packet whose source OR destination
 * port is in the range.
 */
struct wb_port_rule {
	uint8_t proto;
	uint16_t lo, hi;
};

struct wb_class_rules {
	bool enabled;                /* false: every packet is bulk */
	uint64_t dscp;               /* a bit per DSCP value 0..63 that makes a packet interactive */
	struct wb_port_rule ports[WB_CLASS_MAX_PORT_RULES];
	unsigned n_ports;            /* at most WB_CLASS_MAX_PORT_RULES are read */
};

/* The defaults: enabled, DSCP EF, CS4, CS5, CS6, AF41, AF42, AF43; no port rules. */
void wb_class_rules_default(struct wb_class_rules *r);

/* What the classifier reads of an IP packet (IPv4 or IPv6). */
struct wb_ip_info {
	uint8_t dscp;      /* the DSCP (upper 6 bits of TOS / traffic class) */
	uint8_t proto;     /* the transport protocol (after IPv6 extension headers) */
	bool has_ports;    /* a TCP or UDP header with its ports is there (not a later fragment) */
	uint16_t sport, dport;
};

/*
 * Reads the packet's DSCP, protocol and ports; false (and out zeroed) if it
 * is not a well-formed IPv4/IPv6 header (too short, wrong version, header
 * length out of bounds). Never reads past len.
 *
 * Only the fixed header decides: an IPv6 packet whose extension headers are
 * cut short, or more than the walk takes (8), is read (its DSCP counts)
 * with proto the next header where the walk stopped and no ports.
 */
bool wb_ip_info(const uint8_t *ip, size_t len, struct wb_ip_info *out);

/*
 * The packet's class under the rules: interactive when its DSCP is in the
 * set or a port rule matches; bulk otherwise, and for anything wb_ip_info
 * cannot read.
 */
enum wb_class wb_classify(const struct wb_class_rules *r, const uint8_t *ip, size_t len);

/* The DSCP of the packet (0 if unreadable), for copying onto the outer datagram. */
uint8_t wb_ip_dscp(const uint8_t *ip, size_t len);

/*
 * Parsers for the configuration (the daemon calls them and reports the
 * error with file:line).
 *
 * A DSCP by name ("EF", "CS0".."CS7", "AF11".."AF43" (classes 1-4, drop
 * precedence 1-3), "VA" (voice admit, 44), "LE" (lower effort, 1),
 * case-insensitive) or as a number "0".."63" (one or two digits); -1 if
 * invalid.
 */
int wb_dscp_parse(const char *text);

/*
 * The name of a DSCP value for display ("EF", "AF41", "CS5", or the number
 * as text), into buf of at least 8 bytes; returns buf. wb_dscp_parse reads
 * it back as the same value.
 */
const char *wb_dscp_name(uint8_t dscp, char *buf, size_t size);

/*
 * A port rule: "udp:5060", "tcp:27015-27030", "5060" (both protocols),
 * "3478-3481"; the protocol in lower case, port 1..65535 in decimal digits,
 * lo <= hi; returns 0 or -EINVAL (out is written only on success).
 */
int wb_port_rule_parse(const char *text, struct wb_port_rule *out);

/* The class's name ("bulk", "interactive") and back (-1 if unknown). */
const char *wb_class_name(enum wb_class c);
int wb_class_parse(const char *name);

#endif
