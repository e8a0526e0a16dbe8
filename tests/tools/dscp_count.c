// SPDX-License-Identifier: MIT
/*
 * dscp_count: the UDP datagrams to or from a port that pass an interface,
 * counted by their IP header's DSCP, for the namespace test of the outer
 * DSCP (tests/netns/test_classes.sh): the machine has no tcpdump or
 * nftables to ask.
 *
 *   dscp_count IFNAME PORT SECONDS
 *       prints "dscp D count N" for each DSCP seen, ascending, after
 *       SECONDS; both directions, IPv4 and IPv6 (no extension headers)
 *
 * Needs CAP_NET_RAW (an AF_PACKET socket). Exit 1 on a system error, 2
 * with a usage line for bad arguments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The DSCP of a UDP datagram from or to port, or -1 if the frame is none. */
static int dscp_of(const uint8_t *p, size_t len, uint16_t port)
{
	size_t l4;
	int dscp;

	if (len >= 20 && p[0] >> 4 == 4 && p[9] == IPPROTO_UDP) {
		l4 = (size_t)(p[0] & 0x0f) * 4;
		dscp = p[1] >> 2;
	} else if (len >= 40 && p[0] >> 4 == 6 && p[6] == IPPROTO_UDP) {
		l4 = 40;
		dscp = ((p[0] & 0x0f) << 2) | (p[1] >> 6);
	} else {
		return -1;
	}
	if (len < l4 + 4)
		return -1;
	if ((p[l4] << 8 | p[l4 + 1]) != port && (p[l4 + 2] << 8 | p[l4 + 3]) != port)
		return -1;
	return dscp;
}

int main(int argc, char **argv)
{
	uint64_t counts[64] = { 0 }, until;
	struct sockaddr_ll at = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	uint8_t frame[65536];
	int fd, port, seconds;

	if (argc != 4 || !(at.sll_ifindex = (int)if_nametoindex(argv[1])) || (port = atoi(argv[2])) <= 0 ||
	    port > 65535 || (seconds = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: dscp_count IFNAME PORT SECONDS\n");
		return 2;
	}
	/* Cooked frames: the IP header first, whatever the link layer. */
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&at, sizeof(at))) {
		perror("dscp_count: AF_PACKET");
		return 1;
	}
	printf("dscp_count: ready\n");
	fflush(stdout);
	until = now_ms() + (uint64_t)seconds * 1000;
	for (uint64_t t; (t = now_ms()) < until;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int d;

		if (poll(&pfd, 1, (int)(until - t)) <= 0)
			continue;
		n = recv(fd, frame, sizeof(frame), MSG_DONTWAIT);
		if (n > 0 && (d = dscp_of(frame, (size_t)n, (uint16_t)port)) >= 0)
			counts[d]++;
	}
	for (int d = 0; d < 64; d++)
		if (counts[d])
			printf("dscp %d count %llu\n", d, (unsigned long long)counts[d]);
	close(fd);
	return 0;
}
