// SPDX-License-Identifier: MIT
#include "lp_args.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "lp_wire.h"

#define NSEC_PER_SEC 1000000000ULL

const char lp_usage[] =
	"usage: wb-latprobe send --to ADDR:PORT --rate PPS --size BYTES --duration SECONDS\n"
	"                        [--dscp NAME|NUM] [--bind ADDR[:PORT]] [--stream ID] [-J]\n"
	"       wb-latprobe recv --bind ADDR:PORT --duration SECONDS [--expect N]\n"
	"                        [--stream ID] [--delays FILE] [-J]\n"
	"A stream of UDP packets at a fixed rate (a voice or game flow), each with its\n"
	"sequence number and send time (CLOCK_MONOTONIC: sender and receiver on one host,\n"
	"network namespaces included), and its receiver's one-way delay figures.\n"
	"  --to ADDR:PORT       send: the receiver ([ADDR]:PORT for IPv6)\n"
	"  --rate PPS           send: packets a second (1..100000)\n"
	"  --size BYTES         send: UDP payload of each packet (32..65507)\n"
	"  --dscp NAME|NUM      send: EF, CS0..CS7, AF11..AF43, VA, LE, DF, or 0..63\n"
	"  --bind ADDR[:PORT]   send: the source address; recv: where to listen (port needed)\n"
	"  --duration SECONDS   how long to send, or to listen (0.5, 20, 20s, 1500ms)\n"
	"  --stream ID          send: the stream id written (default 1); recv: count only it\n"
	"                       (default: the first stream heard)\n"
	"  --expect N           recv: packets sent, when more than the highest sequence + 1\n"
	"  --delays FILE        recv: each packet's one-way delay in ms, one a line\n"
	"  -J, --json           the figures as one JSON object\n"
	"recv prints sent, received, lost, duplicates, reordered, the delay's p50, p99,\n"
	"p99.9 and max (nearest rank) and the RFC 3550 jitter, in ms.\n";

struct cursor {
	int argc, i;
	char *const *argv;
	char *err;
	size_t errlen;
};

static int fail(struct cursor *c, const char *fmt, ...)
{
	va_list ap;

	if (c->errlen) {
		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A whole decimal number, at most max. */
static int parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

/* "20", "0.5", "20s", "1500ms": at most max_s seconds, to the nanosecond. */
static int parse_duration(const char *s, uint64_t max_s, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = NSEC_PER_SEC, v;
	size_t n = strlen(s), digits = 0;
	const char *p = s, *end = s + n;
	bool any = false;

	if (n >= 2 && !strcmp(s + n - 2, "ms")) {
		scale = 1000000;
		end -= 2;
	} else if (n >= 1 && s[n - 1] == 's') {
		end -= 1;
	}
	for (; p < end && *p >= '0' && *p <= '9'; p++, any = true) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > max_s * (NSEC_PER_SEC / scale))
			return -ERANGE;
	}
	if (p < end && *p == '.') {
		uint64_t place = scale;

		for (p++; p < end && *p >= '0' && *p <= '9'; p++, any = true) {
			if (digits++ < 9) {
				place /= 10;
				frac += place * (uint64_t)(*p - '0');
			}
		}
	}
	if (!any || p != end)
		return -EINVAL;
	v = whole * scale + frac;
	if (v > max_s * NSEC_PER_SEC)
		return -ERANGE;
	*ns = v;
	return 0;
}

int lp_dscp_parse(const char *s)
{
	static const struct {
		const char *name;
		int value;
	} names[] = { { "EF", 46 }, { "VA", 44 }, { "LE", 1 }, { "DF", 0 }, { "BE", 0 } };
	uint64_t v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(s, names[i].name))
			return names[i].value;
	if (!strncasecmp(s, "CS", 2) && s[2] >= '0' && s[2] <= '7' && !s[3])
		return 8 * (s[2] - '0');
	if (!strncasecmp(s, "AF", 2) && s[2] >= '1' && s[2] <= '4' && s[3] >= '1' && s[3] <= '3' && !s[4])
		return 8 * (s[2] - '0') + 2 * (s[3] - '0');
	if (!parse_uint(s, 63, &v))
		return (int)v;
	return -1;
}

int lp_addr_parse(const char *s, bool port_optional, struct lp_addr *out)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *port = NULL, *colon = strrchr(s, ':');
	size_t hlen;
	uint64_t pv = 0;

	memset(out, 0, sizeof(*out));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || (close[1] && close[1] != ':'))
			return -EINVAL;
		hlen = (size_t)(close - s - 1);
		s++;
		if (close[1] == ':')
			port = close + 2;
	} else if (colon && strchr(s, ':') == colon) {
		hlen = (size_t)(colon - s); /* one colon: IPv4:PORT */
		port = colon + 1;
	} else {
		hlen = strlen(s); /* no colon (IPv4) or several (bare IPv6) */
	}
	if (!hlen || hlen >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, hlen);
	host[hlen] = 0;
	if (port ? parse_uint(port, 65535, &pv) : !port_optional)
		return -EINVAL;
	if (port && !port_optional && !pv)
		return -EINVAL;
	struct sockaddr_in *in = (struct sockaddr_in *)&out->ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&out->ss;

	if (inet_pton(AF_INET, host, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)pv);
		out->len = sizeof(*in);
	} else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)pv);
		out->len = sizeof(*in6);
	} else {
		return -EINVAL;
	}
	return 0;
}

uint64_t lp_packet_count(uint32_t rate, uint64_t duration_ns)
{
	return duration_ns / NSEC_PER_SEC * rate + (duration_ns % NSEC_PER_SEC * rate + NSEC_PER_SEC / 2) / NSEC_PER_SEC;
}

uint64_t lp_send_offset_ns(uint64_t i, uint32_t rate)
{
	if (!rate)
		return 0;
	return i / rate * NSEC_PER_SEC + i % rate * NSEC_PER_SEC / rate;
}

/* The value of an option: after '=' in the same word, or the next word. */
static int value_of(struct cursor *c, const char *word, const char *eq, const char **v)
{
	if (eq) {
		*v = eq + 1;
		return 0;
	}
	if (c->i >= c->argc)
		return fail(c, "%s: missing value", word);
	*v = c->argv[c->i++];
	return 0;
}

enum opt { O_TO, O_RATE, O_SIZE, O_DSCP, O_BIND, O_DURATION, O_STREAM, O_EXPECT, O_DELAYS, O_COUNT };

static const struct {
	const char *name;
	unsigned modes; /* 1 << LP_MODE_SEND | 1 << LP_MODE_RECV */
} opts[O_COUNT] = {
	[O_TO] = { "--to", 1 << LP_MODE_SEND },
	[O_RATE] = { "--rate", 1 << LP_MODE_SEND },
	[O_SIZE] = { "--size", 1 << LP_MODE_SEND },
	[O_DSCP] = { "--dscp", 1 << LP_MODE_SEND },
	[O_BIND] = { "--bind", 1 << LP_MODE_SEND | 1 << LP_MODE_RECV },
	[O_DURATION] = { "--duration", 1 << LP_MODE_SEND | 1 << LP_MODE_RECV },
	[O_STREAM] = { "--stream", 1 << LP_MODE_SEND | 1 << LP_MODE_RECV },
	[O_EXPECT] = { "--expect", 1 << LP_MODE_RECV },
	[O_DELAYS] = { "--delays", 1 << LP_MODE_RECV },
};

static int set_option(struct cursor *c, struct lp_args *a, enum opt o, const char *word, const char *v)
{
	uint64_t n;
	int rc;

	switch (o) {
	case O_TO:
		if (lp_addr_parse(v, false, &a->to))
			return fail(c, "%s: '%s' is not ADDR:PORT ([ADDR]:PORT for IPv6, port 1..65535)", word, v);
		return 0;
	case O_BIND:
		if (lp_addr_parse(v, a->mode == LP_MODE_SEND, &a->bind))
			return fail(c, "%s: '%s' is not %s", word, v,
				    a->mode == LP_MODE_SEND ? "ADDR or ADDR:PORT" : "ADDR:PORT (port 1..65535)");
		return 0;
	case O_RATE:
		if (parse_uint(v, LP_MAX_RATE, &n) || !n)
			return fail(c, "%s: '%s' is not a rate of 1..%u packets a second", word, v, LP_MAX_RATE);
		a->rate = (uint32_t)n;
		return 0;
	case O_SIZE:
		if (parse_uint(v, LP_MAX_LEN, &n) || n < LP_HDR_LEN)
			return fail(c, "%s: '%s' is not a size of %d..%d bytes", word, v, LP_HDR_LEN, LP_MAX_LEN);
		a->size = (uint32_t)n;
		return 0;
	case O_DSCP:
		if ((rc = lp_dscp_parse(v)) < 0)
			return fail(c, "%s: '%s' is not a DSCP (EF, CS0..CS7, AF11..AF43, VA, LE, DF, or 0..63)", word, v);
		a->dscp = rc;
		return 0;
	case O_DURATION:
		if (parse_duration(v, LP_MAX_DURATION_S, &a->duration_ns) || !a->duration_ns)
			return fail(c, "%s: '%s' is not a time above 0 and up to %u s (20, 0.5, 1500ms)", word, v,
				    LP_MAX_DURATION_S);
		return 0;
	case O_STREAM:
		if (parse_uint(v, UINT32_MAX, &n))
			return fail(c, "%s: '%s' is not a stream id (0..%u)", word, v, UINT32_MAX);
		a->stream = (uint32_t)n;
		a->stream_set = true;
		return 0;
	case O_EXPECT:
		if (parse_uint(v, UINT64_MAX, &n))
			return fail(c, "%s: '%s' is not a count of packets", word, v);
		a->expect = n;
		return 0;
	case O_DELAYS:
		if (!*v)
			return fail(c, "%s: an empty file name", word);
		a->delays_path = v;
		return 0;
	case O_COUNT:
		break;
	}
	return fail(c, "%s: unknown option", word);
}

static int check_complete(struct cursor *c, const struct lp_args *a)
{
	if (a->mode == LP_MODE_SEND) {
		if (!a->to.len)
			return fail(c, "send: --to ADDR:PORT is required");
		if (!a->rate)
			return fail(c, "send: --rate PPS is required");
		if (!a->size)
			return fail(c, "send: --size BYTES is required");
		if (a->bind.len && a->bind.ss.ss_family != a->to.ss.ss_family)
			return fail(c, "send: --bind and --to are not of one address family");
	} else {
		if (!a->bind.len)
			return fail(c, "recv: --bind ADDR:PORT is required");
	}
	if (!a->duration_ns)
		return fail(c, "%s: --duration SECONDS is required", a->mode == LP_MODE_SEND ? "send" : "recv");
	return 0;
}

int lp_args_parse(struct lp_args *a, int argc, char *const argv[], char *err, size_t errlen)
{
	struct cursor c = { .argc = argc, .i = 1, .argv = argv, .err = err, .errlen = errlen };
	const char *mode;

	memset(a, 0, sizeof(*a));
	a->dscp = -1;
	a->stream = 1;
	if (errlen)
		err[0] = 0;
	if (c.i >= argc)
		return fail(&c, "a mode is required: send or recv");
	mode = argv[c.i++];
	if (!strcmp(mode, "-h") || !strcmp(mode, "--help")) {
		a->help = true;
		return 0;
	}
	if (!strcmp(mode, "send"))
		a->mode = LP_MODE_SEND;
	else if (!strcmp(mode, "recv"))
		a->mode = LP_MODE_RECV;
	else
		return fail(&c, "'%s': not a mode (send or recv)", mode);

	while (c.i < argc) {
		const char *word = argv[c.i++], *eq = NULL, *v = NULL;
		char name[16];
		size_t nlen;
		enum opt o;

		if (!strcmp(word, "-h") || !strcmp(word, "--help")) {
			a->help = true;
			return 0;
		}
		if (!strcmp(word, "-J") || !strcmp(word, "--json")) {
			a->json = true;
			continue;
		}
		eq = word[0] == '-' && word[1] == '-' ? strchr(word, '=') : NULL;
		nlen = eq ? (size_t)(eq - word) : strlen(word);
		if (nlen >= sizeof(name))
			return fail(&c, "'%s': unknown option", word);
		memcpy(name, word, nlen);
		name[nlen] = 0;
		for (o = 0; o < O_COUNT; o++)
			if (!strcmp(name, opts[o].name))
				break;
		if (o == O_COUNT)
			return fail(&c, "'%s': unknown option", name);
		if (!(opts[o].modes & 1u << a->mode))
			return fail(&c, "%s: not an option of %s", name, mode);
		if (value_of(&c, name, eq, &v) || set_option(&c, a, o, name, v))
			return -EINVAL;
	}
	return check_complete(&c, a);
}
