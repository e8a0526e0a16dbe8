// SPDX-License-Identifier: MIT
/*
 * wbrr: request and response over TCP, for the application-limited scenario
 * of the scheduler benchmark (a client asks for SIZE bytes, reads them all,
 * waits THINK, asks again): the per-request time, p50 and p95.
 *
 *   wbrr server ADDR PORT
 *       answers each 8-byte request (the size wanted, big-endian) with that
 *       many bytes, until the client closes; one client, then it exits
 *   wbrr client ADDR PORT SIZE THINK_MS SECONDS
 *       asks for SIZE bytes every THINK_MS after the last answer, for
 *       SECONDS; prints "requests N p50_ms X p95_ms Y max_ms Z"
 *   wbrr transfer ADDR PORT up|down SIZE
 *       one transfer of SIZE bytes, to the server (up) or from it (down),
 *       timed as the kernel's MPTCP selftest simult_flows.sh times its
 *       transfers: from before connect to the last byte, which for an
 *       upload is the server's one-byte receipt; prints "seconds X"
 *
 * Runs under mptcpize as any TCP program. Exit 1 on a system error, 2 with
 * a usage line for bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_REQUESTS 100000
/* A request with this bit set announces an upload of the rest of its value in bytes. */
#define UPLOAD_FLAG (1ULL << 63)

static void usage(void)
{
	fputs("usage: wbrr server ADDR PORT | wbrr client ADDR PORT SIZE THINK_MS SECONDS\n"
	      "       wbrr transfer ADDR PORT up|down SIZE\n",
	      stderr);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		usage();
	return v;
}

static int address(const char *addr, const char *port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM }, *ai;

	if (getaddrinfo(addr, port, &hints, &ai))
		usage();
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return ss->ss_family;
}

static int io_all(int fd, void *buf, size_t len, int write_it)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = write_it ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads an upload of size bytes, then confirms it with one byte. */
static int take_upload(int c, uint64_t size)
{
	static uint8_t chunk[65536];
	uint8_t done = 1;

	while (size) {
		size_t n = size < sizeof(chunk) ? (size_t)size : sizeof(chunk);

		if (io_all(c, chunk, n, 0))
			return 1;
		size -= n;
	}
	return io_all(c, &done, 1, 1);
}

static int serve(const char *addr, const char *port)
{
	static uint8_t chunk[65536];
	struct sockaddr_storage ss;
	socklen_t len;
	int one = 1, l, c;
	uint8_t req[8];

	l = socket(address(addr, port, &ss, &len), SOCK_STREAM, 0);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) || bind(l, (void *)&ss, len) ||
	    listen(l, 1)) {
		perror("wbrr server");
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	c = accept(l, NULL, NULL);
	if (c < 0) {
		perror("wbrr accept");
		return 1;
	}
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (!io_all(c, req, sizeof(req), 0)) {
		uint64_t want = 0;

		for (int i = 0; i < 8; i++)
			want = want << 8 | req[i];
		if (want & UPLOAD_FLAG) {
			if (take_upload(c, want & ~UPLOAD_FLAG))
				return 1;
			continue;
		}
		while (want) {
			size_t n = want < sizeof(chunk) ? (size_t)want : sizeof(chunk);

			if (io_all(c, chunk, n, 1))
				return 1;
			want -= n;
		}
	}
	close(c);
	close(l);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct_ms(const uint64_t *t, size_t n, double q)
{
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);

	return n ? (double)t[i] / 1e6 : 0;
}

static void put_request(uint8_t req[8], uint64_t value)
{
	for (int i = 0; i < 8; i++)
		req[i] = (uint8_t)(value >> (56 - 8 * i));
}

static int ask(const char *addr, const char *port, uint64_t size, long think_ms, long seconds)
{
	static uint8_t chunk[65536];
	static uint64_t took[MAX_REQUESTS];
	struct sockaddr_storage ss;
	socklen_t len;
	size_t n = 0;
	int one = 1, fd = socket(address(addr, port, &ss, &len), SOCK_STREAM, 0);
	uint64_t end;

	if (fd < 0 || connect(fd, (void *)&ss, len)) {
		perror("wbrr client");
		return 1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	end = now_ns() + (uint64_t)seconds * 1000000000ULL;
	while (now_ns() < end && n < MAX_REQUESTS) {
		uint8_t req[8];
		uint64_t left = size, t0 = now_ns();
		struct timespec pause = { think_ms / 1000, (think_ms % 1000) * 1000000L };

		put_request(req, size);
		if (io_all(fd, req, sizeof(req), 1))
			return 1;
		while (left) {
			ssize_t got = read(fd, chunk, left < sizeof(chunk) ? (size_t)left : sizeof(chunk));

			if (got <= 0) {
				fputs("wbrr: the server went away\n", stderr);
				return 1;
			}
			left -= (uint64_t)got;
		}
		took[n++] = now_ns() - t0;
		nanosleep(&pause, NULL);
	}
	close(fd);
	qsort(took, n, sizeof(took[0]), cmp_u64);
	printf("requests %zu p50_ms %.1f p95_ms %.1f max_ms %.1f\n", n, pct_ms(took, n, 0.5), pct_ms(took, n, 0.95),
	       n ? (double)took[n - 1] / 1e6 : 0);
	return 0;
}

static int transfer(const char *addr, const char *port, int up, uint64_t size)
{
	static uint8_t chunk[65536];
	struct sockaddr_storage ss;
	socklen_t len;
	uint8_t req[8], done;
	uint64_t t0 = now_ns(), left = size;
	int fd = socket(address(addr, port, &ss, &len), SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (void *)&ss, len)) {
		perror("wbrr transfer");
		return 1;
	}
	put_request(req, up ? size | UPLOAD_FLAG : size);
	if (io_all(fd, req, sizeof(req), 1))
		return 1;
	while (left) {
		size_t n = left < sizeof(chunk) ? (size_t)left : sizeof(chunk);

		if (io_all(fd, chunk, n, !!up)) {
			fputs("wbrr: the server went away\n", stderr);
			return 1;
		}
		left -= n;
	}
	if (up && io_all(fd, &done, 1, 0)) {
		fputs("wbrr: no receipt from the server\n", stderr);
		return 1;
	}
	printf("seconds %.3f\n", (double)(now_ns() - t0) / 1e9);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "server"))
		return serve(argv[2], argv[3]);
	if (argc == 7 && !strcmp(argv[1], "client"))
		return ask(argv[2], argv[3], (uint64_t)number(argv[4], 1, 1L << 30), number(argv[5], 0, 60000),
			   number(argv[6], 1, 3600));
	if (argc == 6 && !strcmp(argv[1], "transfer") && (!strcmp(argv[4], "up") || !strcmp(argv[4], "down")))
		return transfer(argv[2], argv[3], !strcmp(argv[4], "up"), (uint64_t)number(argv[5], 1, 1L << 40));
	usage();
	return 2;
}
