// SPDX-License-Identifier: MIT
/*
 * The values of the settings that the configuration file, the control
 * socket and the CLI share (validate.h). The phrases are the configuration
 * file's (docs/configuration.md shows them), whoever asks.
 */
#include "validate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "wire.h"

/* A value quoted in a phrase, escaped; a longer one is cut (a name or an address is far shorter). */
#define QUOTE_MAX 96

static int say(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes the phrase into why, if there is one, and returns -EINVAL. */
static int say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static const char *quote(char out[QUOTE_MAX], const char *v)
{
	return wb_escape(out, QUOTE_MAX, v);
}

static int in_range(long long v, long long lo, long long hi, char *why, size_t len)
{
	if (v < lo || v > hi)
		return say(why, len, "%lld is out of range %lld..%lld", v, lo, hi);
	return 0;
}

int wb_validate_name(const char *name, char *why, size_t len)
{
	size_t n = strlen(name);
	char q[QUOTE_MAX];

	if (!n)
		return say(why, len, "the name is empty");
	if (n > WB_UPLINK_NAME_MAX)
		return say(why, len, "'%s' is longer than %d characters", quote(q, name), WB_UPLINK_NAME_MAX);
	if (strspn(name, WB_NAME_CHARS) != n)
		return say(why, len, "'%s' has characters other than A-Z a-z 0-9 _ . -", quote(q, name));
	return 0;
}

int wb_validate_ifname(const char *ifname, char *why, size_t len)
{
	size_t n = strlen(ifname);
	char q[QUOTE_MAX];

	if (n >= IFNAMSIZ)
		return say(why, len, "'%s' is longer than %d characters", quote(q, ifname), IFNAMSIZ - 1);
	if (!n || !strcmp(ifname, ".") || !strcmp(ifname, "..") || strcspn(ifname, "/: \t\n\v\f\r") != n)
		return say(why, len, "'%s' is not a valid interface name", quote(q, ifname));
	return 0;
}

int wb_validate_weight(long long weight, char *why, size_t len)
{
	return in_range(weight, WB_WEIGHT_MIN, WB_WEIGHT_MAX, why, len);
}

int wb_validate_fwmark(long long fwmark, char *why, size_t len)
{
	return in_range(fwmark, 1, UINT32_MAX, why, len);
}

int wb_validate_binding(bool interface, bool source, bool fwmark, char *why, size_t len)
{
	if (!interface && !source && !fwmark)
		return say(why, len, "needs at least one of interface, source and fwmark");
	return 0;
}

int wb_parse_port(const char *s, uint16_t *port)
{
	size_t len = strlen(s);
	unsigned long v;

	if (!len || len > 5 || strspn(s, "0123456789") != len)
		return -EINVAL;
	v = strtoul(s, NULL, 10);
	if (v < 1 || v > 65535)
		return -EINVAL;
	*port = (uint16_t)v;
	return 0;
}

static int parse_address(struct sockaddr_storage *ss, const char *addr, int family, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family != AF_INET6 && inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		return 0;
	}
	memset(ss, 0, sizeof(*ss));
	if (family != AF_INET && inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		return 0;
	}
	memset(ss, 0, sizeof(*ss));
	return -EINVAL;
}

int wb_validate_address(struct sockaddr_storage *ss, const char *addr, int family, uint16_t port, char *why,
			size_t len)
{
	char q[QUOTE_MAX];

	if (parse_address(ss, addr, family, port))
		return say(why, len, "'%s' is not an IPv4 or IPv6 address", quote(q, addr));
	return 0;
}

/* The host part and the port: "[v6]" and "[v6]:port" are IPv6; one colon is IPv4's port; more, IPv6 alone. */
static int parse_source(struct sockaddr_storage *ss, const char *s)
{
	char host[INET6_ADDRSTRLEN];
	const char *end, *port_text = NULL;
	uint16_t port = 0;
	int family = AF_UNSPEC;
	size_t len = 0;

	if (*s == '[') {
		end = strchr(++s, ']');
		if (!end || (end[1] && end[1] != ':'))
			return -EINVAL;
		port_text = end[1] ? end + 2 : NULL;
		family = AF_INET6;
	} else if ((end = strchr(s, ':')) && !strchr(end + 1, ':')) {
		port_text = end + 1;
		family = AF_INET;
	} else {
		end = s + strlen(s);
	}
	len = (size_t)(end - s);
	if (len >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, len);
	host[len] = '\0';
	if (port_text && wb_parse_port(port_text, &port))
		return -EINVAL;
	return parse_address(ss, host, family, port);
}

int wb_validate_source(struct sockaddr_storage *ss, const char *source, char *why, size_t len)
{
	struct sockaddr_storage scratch;
	char q[QUOTE_MAX];

	if (parse_source(ss ? ss : &scratch, source))
		return say(why, len, "'%s' is not an address, address:port or [address]:port", quote(q, source));
	return 0;
}
