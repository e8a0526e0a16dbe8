// SPDX-License-Identifier: MIT
/*
 * The traffic classifier (classify.h): the IP header's DSCP, the transport
 * header's ports behind it, and the configuration's texts for both.
 */
#include "classify.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "allowed.h"
#include "byteorder.h"
#include "validate.h"

/* The class selectors and assured forwarding (RFC 2474, RFC 2597): CSn, AFxy. */
#define DSCP_CS(n) ((n) * 8)
#define DSCP_AF(x, y) ((x) * 8 + (y) * 2)
#define DSCP_BIT(d) (UINT64_C(1) << (d))
#define DSCP_EF 46

/* IPv4's fragment offset, in the 16 bits after the ID (the flags above it). */
#define IPV4_FRAG_OFFSET 0x1fff
/* IPv6 extension headers walked at the most: real packets have one or two, and a packet is not a loop. */
#define IPV6_MAX_EXT 8
/* An extension header's smallest size, and the fragment header's only one (RFC 8200). */
#define IPV6_EXT_MIN 8

_Static_assert(WB_CLASS_COUNT == WB_CLASS_INTERACTIVE + 1, "a name per class");

static const char *const class_names[WB_CLASS_COUNT] = {
	[WB_CLASS_BULK] = "bulk",
	[WB_CLASS_INTERACTIVE] = "interactive",
};

/* The DSCPs with a name of their own; CSn and AFxy are computed. */
static const struct {
	const char *name;
	uint8_t dscp;
} dscp_names[] = {
	{ "EF", DSCP_EF }, /* expedited forwarding, RFC 3246 */
	{ "VA", 44 },      /* voice admit, RFC 5865 */
	{ "LE", 1 },       /* lower effort, RFC 8622 */
};

void wb_class_rules_default(struct wb_class_rules *r)
{
	/* RFC 4594's real-time classes: telephony, signaling, real-time interactive, conferencing, network control. */
	*r = (struct wb_class_rules){
		.enabled = true,
		.dscp = DSCP_BIT(DSCP_EF) | DSCP_BIT(DSCP_CS(4)) | DSCP_BIT(DSCP_CS(5)) | DSCP_BIT(DSCP_CS(6)) |
			DSCP_BIT(DSCP_AF(4, 1)) | DSCP_BIT(DSCP_AF(4, 2)) | DSCP_BIT(DSCP_AF(4, 3)),
	};
}

/*
 * The fixed header: the version as allowed.c reads it, then IPv4's header
 * length. Returns the family (4 or 6) and sets the DSCP, the first
 * protocol and where the header ends; 0 if malformed (out untouched).
 */
static int ip_fixed(const uint8_t *ip, size_t len, struct wb_ip_info *out, size_t *hlen)
{
	const uint8_t *addr;
	uint8_t family;

	if (!wb_ip_source(ip, len, &family, &addr))
		return 0;
	if (family == 4) {
		*hlen = (size_t)(ip[0] & 0x0f) * 4;
		if (*hlen < 20 || *hlen > len)
			return 0;
		out->dscp = ip[1] >> 2;
		out->proto = ip[9];
		return 4;
	}
	*hlen = 40;
	out->dscp = (uint8_t)((ip[0] & 0x0f) << 2 | ip[1] >> 6);
	out->proto = ip[6];
	return 6;
}

/* The transport header at off: its ports, if it is TCP's or UDP's and its first four bytes are there. */
static void read_ports(const uint8_t *ip, size_t len, size_t off, struct wb_ip_info *out)
{
	if ((out->proto != IPPROTO_TCP && out->proto != IPPROTO_UDP) || off > len || len - off < 4)
		return;
	out->has_ports = true;
	out->sport = wb_get_be16(ip + off);
	out->dport = wb_get_be16(ip + off + 2);
}

static bool ipv6_ext(uint8_t next)
{
	return next == IPPROTO_HOPOPTS || next == IPPROTO_ROUTING || next == IPPROTO_DSTOPTS ||
	       next == IPPROTO_FRAGMENT;
}

/*
 * From the fixed header to the transport's, through the extension headers
 * whose length is theirs to say. The walk stops at a header cut short (its
 * type stays the protocol) and at a later fragment (the protocol is the
 * fragment's, and there are no ports to read).
 */
static void ipv6_transport(const uint8_t *ip, size_t len, struct wb_ip_info *out)
{
	size_t off = 40;

	for (int i = 0; i < IPV6_MAX_EXT && ipv6_ext(out->proto); i++) {
		const uint8_t *h = ip + off;
		bool frag = out->proto == IPPROTO_FRAGMENT;
		size_t ext_len;

		if (len - off < IPV6_EXT_MIN)
			return;
		ext_len = frag ? IPV6_EXT_MIN : ((size_t)h[1] + 1) * 8;
		if (len - off < ext_len)
			return;
		out->proto = h[0];
		if (frag && wb_get_be16(h + 2) >> 3)
			return;
		off += ext_len;
	}
	if (!ipv6_ext(out->proto))
		read_ports(ip, len, off, out);
}

bool wb_ip_info(const uint8_t *ip, size_t len, struct wb_ip_info *out)
{
	size_t hlen;
	int family;

	*out = (struct wb_ip_info){ 0 };
	family = ip_fixed(ip, len, out, &hlen);
	if (family == 6)
		ipv6_transport(ip, len, out);
	else if (family == 4 && !(wb_get_be16(ip + 6) & IPV4_FRAG_OFFSET))
		read_ports(ip, len, hlen, out); /* a later fragment carries no transport header */
	return family != 0;
}

static bool port_in(const struct wb_port_rule *p, uint16_t port)
{
	return port >= p->lo && port <= p->hi;
}

static bool ports_match(const struct wb_class_rules *r, const struct wb_ip_info *info)
{
	unsigned n = r->n_ports < WB_CLASS_MAX_PORT_RULES ? r->n_ports : WB_CLASS_MAX_PORT_RULES;

	if (!info->has_ports)
		return false;
	for (unsigned i = 0; i < n; i++) {
		const struct wb_port_rule *p = &r->ports[i];

		if ((!p->proto || p->proto == info->proto) && (port_in(p, info->sport) || port_in(p, info->dport)))
			return true;
	}
	return false;
}

enum wb_class wb_classify(const struct wb_class_rules *r, const uint8_t *ip, size_t len)
{
	struct wb_ip_info info;

	if (!r->enabled || !wb_ip_info(ip, len, &info))
		return WB_CLASS_BULK;
	if (r->dscp >> info.dscp & 1 || ports_match(r, &info))
		return WB_CLASS_INTERACTIVE;
	return WB_CLASS_BULK;
}

uint8_t wb_ip_dscp(const uint8_t *ip, size_t len)
{
	struct wb_ip_info info = { 0 };
	size_t hlen;

	return ip_fixed(ip, len, &info, &hlen) ? info.dscp : 0;
}

/* "0".."63": one or two decimal digits. */
static int dscp_number(const char *s)
{
	size_t n = strlen(s);
	int v;

	if (!n || n > 2 || strspn(s, "0123456789") != n)
		return -1;
	v = n == 2 ? (s[0] - '0') * 10 + (s[1] - '0') : s[0] - '0';
	return v < 64 ? v : -1;
}

/* ASCII only, whatever the locale: a configuration reads the same everywhere. */
static char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static int dscp_named(const char *s)
{
	size_t n = strlen(s);
	char u[5];

	if (n < 2 || n > 4)
		return -1;
	for (size_t i = 0; i <= n; i++)
		u[i] = upper(s[i]);
	for (size_t i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++)
		if (!strcmp(u, dscp_names[i].name))
			return dscp_names[i].dscp;
	if (n == 3 && !memcmp(u, "CS", 2) && u[2] >= '0' && u[2] <= '7')
		return DSCP_CS(u[2] - '0');
	if (n == 4 && !memcmp(u, "AF", 2) && u[2] >= '1' && u[2] <= '4' && u[3] >= '1' && u[3] <= '3')
		return DSCP_AF(u[2] - '0', u[3] - '0');
	return -1;
}

int wb_dscp_parse(const char *text)
{
	return text[0] >= '0' && text[0] <= '9' ? dscp_number(text) : dscp_named(text);
}

const char *wb_dscp_name(uint8_t dscp, char *buf, size_t size)
{
	unsigned cls = dscp >> 3, low = dscp & 7;

	for (size_t i = 0; i < sizeof(dscp_names) / sizeof(dscp_names[0]); i++)
		if (dscp == dscp_names[i].dscp) {
			snprintf(buf, size, "%s", dscp_names[i].name);
			return buf;
		}
	if (dscp < 64 && !low)
		snprintf(buf, size, "CS%u", cls);
	else if (cls >= 1 && cls <= 4 && !(low & 1))
		snprintf(buf, size, "AF%u%u", cls, low / 2);
	else
		snprintf(buf, size, "%u", dscp);
	return buf;
}

/* "udp:", "tcp:" or no protocol (both): the rule's protocol and where its ports begin. */
static int rule_proto(const char *text, uint8_t *proto, const char **ports)
{
	const char *colon = strchr(text, ':');

	*ports = colon ? colon + 1 : text;
	if (!colon)
		*proto = 0;
	else if (colon - text == 3 && !memcmp(text, "udp", 3))
		*proto = IPPROTO_UDP;
	else if (colon - text == 3 && !memcmp(text, "tcp", 3))
		*proto = IPPROTO_TCP;
	else
		return -EINVAL;
	return 0;
}

/* The first n bytes of s as a port ("1".."65535", as a source address's port is read). */
static int port_prefix(const char *s, size_t n, uint16_t *port)
{
	char text[8];

	if (n >= sizeof(text))
		return -EINVAL;
	memcpy(text, s, n);
	text[n] = '\0';
	return wb_parse_port(text, port);
}

int wb_port_rule_parse(const char *text, struct wb_port_rule *out)
{
	struct wb_port_rule r;
	const char *ports, *dash;

	if (rule_proto(text, &r.proto, &ports))
		return -EINVAL;
	dash = strchr(ports, '-');
	if (!dash) {
		if (wb_parse_port(ports, &r.lo))
			return -EINVAL;
		r.hi = r.lo;
	} else if (port_prefix(ports, (size_t)(dash - ports), &r.lo) || wb_parse_port(dash + 1, &r.hi) ||
		   r.lo > r.hi) {
		return -EINVAL;
	}
	*out = r;
	return 0;
}

const char *wb_class_name(enum wb_class c)
{
	return (unsigned)c < WB_CLASS_COUNT ? class_names[c] : "?";
}

int wb_class_parse(const char *name)
{
	for (int c = 0; c < WB_CLASS_COUNT; c++)
		if (!strcmp(name, class_names[c]))
			return c;
	return -1;
}
