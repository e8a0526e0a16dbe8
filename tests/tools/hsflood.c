// SPDX-License-Identifier: MIT
/*
 * hsflood: floods a wanbond server with handshake initiations whose mac1 is
 * valid, as anyone who knows the server's public key (every router's
 * configuration holds it) can, for the flood bench.
 *
 *   hsflood ADDR PORT SERVER_PUBLIC_KEY RATE SECONDS [PRIVATE_KEY_FILE]
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
 * Prints one line: how many it sent, at what rate, how many cookie replies
 * came back and how many initiations carried a mac2.
 * Exit 0; 1 on a system error; 2 with a usage line for bad arguments.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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

static const char usage_text[] = "usage: hsflood ADDR PORT SERVER_PUBLIC_KEY RATE SECONDS [PRIVATE_KEY_FILE]\n";

struct flood {
	int fd;
	struct sockaddr_in to;
	struct wb_noise_remote server;
	struct wb_cookie_jar jar;
	struct wb_msg_initiation msg;
	unsigned long long sent, cookies, with_mac2;
};

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

/* Takes every cookie reply waiting: the jar then gives the next initiations their mac2. */
static void read_cookies(struct flood *fl, uint64_t now)
{
	struct wb_msg_cookie reply;
	ssize_t n;

	while ((n = recv(fl->fd, &reply, sizeof(reply), MSG_DONTWAIT)) >= 0)
		if (n == (ssize_t)sizeof(reply) && reply.type == WB_MSG_COOKIE &&
		    !wb_cookie_consume_reply(&reply, &fl->jar, fl->server.cookie_key, now))
			fl->cookies++;
}

/* 1: sent; 0: the socket is full for now (try at the next tick); -1: an error. */
static int send_one(struct flood *fl, uint64_t now)
{
	static const uint8_t zero[WB_MAC_LEN];

	if (wb_cookie_add_macs(&fl->msg, sizeof(fl->msg), fl->server.mac1_key, &fl->jar, now))
		return -1;
	if (sendto(fl->fd, &fl->msg, sizeof(fl->msg), 0, (struct sockaddr *)&fl->to, sizeof(fl->to)) < 0)
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
	printf("hsflood: sent %llu initiations in %lu s (%llu/s), %llu cookie replies, %llu with mac2\n", fl->sent,
	       seconds, fl->sent / seconds, fl->cookies, fl->with_mac2);
	return 0;
}

int main(int argc, char **argv)
{
	struct flood fl = { .to = { .sin_family = AF_INET } };
	uint8_t server_key[WB_KEY_LEN];
	char *end;
	unsigned long port, rate, seconds;

	if (argc != 6 && argc != 7)
		return usage("wrong number of arguments");
	if (inet_pton(AF_INET, argv[1], &fl.to.sin_addr) != 1)
		return usage("ADDR: not an IPv4 address");
	port = strtoul(argv[2], &end, 10);
	if (*end || !port || port > 65535)
		return usage("PORT: not a port");
	fl.to.sin_port = htons((uint16_t)port);
	if (wb_key_from_base64(server_key, argv[3]))
		return usage("SERVER_PUBLIC_KEY: not a base64 key of 32 bytes");
	rate = strtoul(argv[4], &end, 10);
	if (*end || !rate || rate > MAX_RATE)
		return usage("RATE: 1..1000000 a second");
	seconds = strtoul(argv[5], &end, 10);
	if (*end || !seconds || seconds > MAX_SECONDS)
		return usage("SECONDS: 1..3600");
	if (make_initiation(&fl, server_key, argc == 7 ? argv[6] : NULL)) {
		fprintf(stderr, "hsflood: cannot make an initiation\n");
		return 1;
	}
	fl.fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fl.fd < 0) {
		perror("hsflood: socket");
		return 1;
	}
	return run(&fl, rate, seconds);
}
