// SPDX-License-Identifier: MIT
/*
 * hsflood: floods a wanbond server with handshake initiations whose mac1 is
 * valid, as anyone who knows the server's public key (every router's
 * configuration holds it) can, for the flood bench.
 *
 *   hsflood [-s PREFIX -n SOURCES] ADDR PORT SERVER_PUBLIC_KEY RATE SECONDS [PRIVATE_KEY_FILE]
 *
 * It makes one initiation and sends it again and again, RATE a second for
 * SECONDS: a replay costs the attacker nothing, and the server the same
 * Diffie-Hellman work as a new one before it can tell. With
 * PRIVATE_KEY_FILE (a tenant of a shared server, whose key is one of the
 * server's peers) that is both of the initiation's DH operations; with a key
 * of its own (none given), one. It answers the server's cookie replies as a
 * real initiator would, so that under load its initiations carry a valid
 * mac2 and reach the per-source limit instead of stopping at the cookie.
 *
 * With -s (ADDR then IPv6), it sends from SOURCES addresses of the /48 of
 * PREFIX in turn, PREFIX:0::1, PREFIX:1::1 and so on, each in a /64 of its
 * own, as anyone with a /48 routed to it can: each address gets and uses
 * its own cookie. The socket may send from addresses it does not have
 * (IPV6_FREEBIND); for the replies to come back, the namespace must take
 * the /48 as local (ip -6 route add local PREFIX/48 dev lo).
 *
 * Prints one line: how many it sent, at what rate, how many cookie replies
 * came back and how many initiations carried a mac2 (and with -s, from how
 * many addresses).
 * Exit 0; 1 on a system error; 2 with a usage line for bad arguments.
 */
#define _GNU_SOURCE /* struct in6_pktinfo */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cookie.h"
#include "crypto.h"
#include "noise.h"
#include "wire.h"

#define EXIT_USAGE 2
#define MAX_RATE 1000000
#define MAX_SECONDS 3600
#define NSEC_PER_SEC 1000000000ULL
#define TICK_NS 1000000ULL /* a batch of initiations every millisecond */
#define MAX_SOURCES 65536  /* the /64s of a /48 */
#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND 78 /* Linux 4.15; older C libraries lack the name */
#endif

static const char usage_text[] =
	"usage: hsflood [-s PREFIX -n SOURCES] ADDR PORT SERVER_PUBLIC_KEY RATE SECONDS [PRIVATE_KEY_FILE]\n";

struct flood {
	int fd;
	struct sockaddr_storage to;
	socklen_t to_len;
	struct wb_noise_remote server;
	struct wb_cookie_jar *jars; /* one a source */
	unsigned sources;           /* 1, or with -s the addresses of the /48 */
	bool from_prefix;           /* -s */
	struct in6_addr prefix;     /* with -s: its first 6 bytes */
	struct wb_msg_initiation msg;
	unsigned long long sent, cookies, with_mac2;
};

/* With -s, source I: the prefix's /48, I as the next 16 bits (its /64), then ::1. */
static struct in6_addr source_addr(const struct flood *fl, unsigned i)
{
	struct in6_addr a = fl->prefix;

	a.s6_addr[6] = (uint8_t)(i >> 8);
	a.s6_addr[7] = (uint8_t)i;
	memset(a.s6_addr + 8, 0, 8);
	a.s6_addr[15] = 1;
	return a;
}

/* The source a reply came to (its destination address), or -1 for none of ours. */
static int source_of(const struct flood *fl, struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		struct in6_pktinfo pi;
		unsigned i;

		if (c->cmsg_level != IPPROTO_IPV6 || c->cmsg_type != IPV6_PKTINFO)
			continue;
		memcpy(&pi, CMSG_DATA(c), sizeof(pi));
		i = (unsigned)pi.ipi6_addr.s6_addr[6] << 8 | pi.ipi6_addr.s6_addr[7];
		return !memcmp(pi.ipi6_addr.s6_addr, fl->prefix.s6_addr, 6) && i < fl->sources ? (int)i : -1;
	}
	return -1;
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
}

static uint64_t wall_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
}

static int usage(const char *why)
{
	fprintf(stderr, "hsflood: %s\n%s", why, usage_text);
	return EXIT_USAGE;
}

static int random_bytes(void *buf, size_t len)
{
	return getrandom(buf, len, 0) == (ssize_t)len ? 0 : -1;
}

/* The key of PRIVATE_KEY_FILE (base64, as wanbondd --genkey writes it), or a fresh one. */
static int local_key(uint8_t key[WB_KEY_LEN], const char *file)
{
	char text[128] = "";
	FILE *f;

	if (!file) {
		if (random_bytes(key, WB_KEY_LEN))
			return -1;
		wb_x25519_clamp(key);
		return 0;
	}
	f = fopen(file, "r");
	if (!f || !fgets(text, sizeof(text), f)) {
		fprintf(stderr, "hsflood: %s: %s\n", file, f ? "empty" : strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	text[strcspn(text, "\r\n")] = 0;
	if (wb_key_from_base64(key, text)) {
		fprintf(stderr, "hsflood: %s: not a base64 key of 32 bytes\n", file);
		return -1;
	}
	wb_wipe(text, sizeof(text));
	return 0;
}

static int make_initiation(struct flood *fl, const uint8_t server_key[WB_KEY_LEN], const char *key_file)
{
	struct wb_noise_local local;
	struct wb_noise_handshake hs;
	uint8_t key[WB_KEY_LEN], seed[WB_KEY_LEN];
	uint32_t index;
	int rc = -1;

	if (!local_key(key, key_file) && !random_bytes(seed, sizeof(seed)) && !random_bytes(&index, sizeof(index)) &&
	    !wb_noise_local_init(&local, key) && !wb_noise_remote_init(&fl->server, &local, server_key, NULL) &&
	    !wb_noise_create_initiation(&fl->msg, &hs, &local, &fl->server, seed, index | 1, wall_ns()))
		rc = 0;
	wb_noise_handshake_clear(&hs);
	wb_wipe(&local, sizeof(local));
	wb_wipe(key, sizeof(key));
	return rc;
}

/* Takes every cookie reply waiting: its source's jar then gives that source's next initiations their mac2. */
static void read_cookies(struct flood *fl, uint64_t now)
{
	struct wb_msg_cookie reply;
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} control;
	ssize_t n;

	for (;;) {
		struct iovec iov = { .iov_base = &reply, .iov_len = sizeof(reply) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = control.buf, .msg_controllen = sizeof(control.buf) };
		int i = 0;

		if ((n = recvmsg(fl->fd, &mh, MSG_DONTWAIT)) < 0)
			return;
		if (fl->from_prefix && (i = source_of(fl, &mh)) < 0)
			continue;
		if (n == (ssize_t)sizeof(reply) && reply.type == WB_MSG_COOKIE &&
		    !wb_cookie_consume_reply(&reply, &fl->jars[i], fl->server.cookie_key, now))
			fl->cookies++;
	}
}

/* From source I: with -s, from its address (IPV6_PKTINFO), else from the socket's. */
static ssize_t send_from(struct flood *fl, unsigned i)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = &fl->msg, .iov_len = sizeof(fl->msg) };
	struct msghdr mh = { .msg_name = &fl->to, .msg_namelen = fl->to_len, .msg_iov = &iov, .msg_iovlen = 1 };

	if (fl->from_prefix) {
		struct in6_pktinfo pi = { .ipi6_addr = source_addr(fl, i) };
		struct cmsghdr *c;

		memset(&control, 0, sizeof(control));
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(c), &pi, sizeof(pi));
	}
	return sendmsg(fl->fd, &mh, 0);
}

/* 1: sent; 0: the socket is full for now (try at the next tick); -1: an error. */
static int send_one(struct flood *fl, uint64_t now)
{
	static const uint8_t zero[WB_MAC_LEN];
	unsigned i = (unsigned)(fl->sent % fl->sources);

	if (wb_cookie_add_macs(&fl->msg, sizeof(fl->msg), fl->server.mac1_key, &fl->jars[i], now))
		return -1;
	if (send_from(fl, i) < 0)
		return errno == ENOBUFS || errno == EAGAIN || errno == ECONNREFUSED ? 0 : -1;
	fl->sent++;
	fl->with_mac2 += memcmp(fl->msg.mac2, zero, WB_MAC_LEN) != 0;
	return 1;
}

static int run(struct flood *fl, unsigned long rate, unsigned long seconds)
{
	uint64_t start = monotonic_ns(), end = start + seconds * NSEC_PER_SEC, now;

	while ((now = monotonic_ns()) < end) {
		/* As many as the rate allows by now: a late wake-up catches up. */
		uint64_t due = (now - start) * rate / NSEC_PER_SEC;

		int rc = 1;

		read_cookies(fl, now);
		while (fl->sent < due && (rc = send_one(fl, now)) > 0)
			;
		if (rc < 0) {
			perror("hsflood: send");
			return 1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = (long)TICK_NS }, NULL);
	}
	read_cookies(fl, monotonic_ns());
	printf("hsflood: sent %llu initiations in %lu s (%llu/s), %llu cookie replies, %llu with mac2", fl->sent,
	       seconds, fl->sent / seconds, fl->cookies, fl->with_mac2);
	if (fl->from_prefix)
		printf(", from %u addresses in as many /64s of one /48", fl->sources);
	printf("\n");
	return 0;
}

/* The socket, and with -s what sending from the /48 needs. */
static int open_socket(struct flood *fl)
{
	int on = 1;

	fl->fd = socket(fl->to.ss_family, SOCK_DGRAM, 0);
	if (fl->fd < 0) {
		perror("hsflood: socket");
		return -1;
	}
	if (fl->from_prefix && (setsockopt(fl->fd, IPPROTO_IPV6, IPV6_FREEBIND, &on, sizeof(on)) ||
				setsockopt(fl->fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on, sizeof(on)))) {
		perror("hsflood: setsockopt");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct flood fl = { .sources = 1 };
	struct sockaddr_in *in4 = (struct sockaddr_in *)&fl.to;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&fl.to;
	uint8_t server_key[WB_KEY_LEN];
	const char *prefix = NULL;
	char *end;
	unsigned long port, rate, seconds, sources = 0;
	int opt;

	while ((opt = getopt(argc, argv, "s:n:")) != -1) {
		if (opt == 's') {
			prefix = optarg;
		} else if (opt == 'n') {
			sources = strtoul(optarg, &end, 10);
			if (*end || !sources || sources > MAX_SOURCES)
				return usage("-n SOURCES: 1..65536");
		} else {
			return usage("unknown option");
		}
	}
	if (!prefix != !sources)
		return usage("-s and -n go together");
	if (prefix && inet_pton(AF_INET6, prefix, &fl.prefix) != 1)
		return usage("-s PREFIX: not an IPv6 address");
	argc -= optind - 1; /* argv[1] is ADDR, as without options */
	argv += optind - 1;
	if (argc != 6 && argc != 7)
		return usage("wrong number of arguments");
	port = strtoul(argv[2], &end, 10);
	if (*end || !port || port > 65535)
		return usage("PORT: not a port");
	if (!prefix && inet_pton(AF_INET, argv[1], &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		fl.to_len = sizeof(*in4);
	} else if (inet_pton(AF_INET6, argv[1], &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		fl.to_len = sizeof(*in6);
	} else {
		return usage(prefix ? "ADDR: not an IPv6 address (-s sends from IPv6)" : "ADDR: not an address");
	}
	if (wb_key_from_base64(server_key, argv[3]))
		return usage("SERVER_PUBLIC_KEY: not a base64 key of 32 bytes");
	rate = strtoul(argv[4], &end, 10);
	if (*end || !rate || rate > MAX_RATE)
		return usage("RATE: 1..1000000 a second");
	seconds = strtoul(argv[5], &end, 10);
	if (*end || !seconds || seconds > MAX_SECONDS)
		return usage("SECONDS: 1..3600");
	if (prefix) {
		fl.from_prefix = true;
		fl.sources = (unsigned)sources;
	}
	fl.jars = calloc(fl.sources, sizeof(*fl.jars));
	if (!fl.jars) {
		perror("hsflood: calloc");
		return 1;
	}
	if (make_initiation(&fl, server_key, argc == 7 ? argv[6] : NULL)) {
		fprintf(stderr, "hsflood: cannot make an initiation\n");
		return 1;
	}
	if (open_socket(&fl))
		return 1;
	return run(&fl, rate, seconds);
}
