/* SPDX-License-Identifier: MIT */
/*
 * The UDP sockets of the tunnel: on a client one per uplink, bound to its
 * interface, source address or firewall mark; on a server one for all
 * bonds. Datagrams are written in batches (sendmmsg) and read in batches
 * (recvmmsg), and the buffers are sized for a fast uplink next to a CPU the
 * emulator and the traffic share.
 */
#ifndef WB_UDP_H
#define WB_UDP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "config.h"
#include "endpoint.h"
#include "loop.h"

#define UDP_BATCH 64

/* System calls on a path and the packets they carried: how well it batches. */
struct io_count {
	uint64_t calls, packets;
};
#define UDP_SOCKET_BUFFER (8 * 1024 * 1024)
/* A run of datagrams sent as one message (UDP_SEGMENT): the kernel's limits on segments and bytes. */
#define UDP_GSO_SEGMENTS 64
#define UDP_GSO_BYTES (65535 - 40 - 8)

struct udp_rx {
	int n;
	uint32_t len[UDP_BATCH];
	struct wb_endpoint from[UDP_BATCH];
	uint8_t *buf[UDP_BATCH];
};

struct udp_sock {
	struct loop_fd lfd;
	unsigned index;        /* the socket number the library knows it by */
	int family;
	uint32_t slot;         /* bytes per batch buffer */
	uint8_t *tx_bufs, *rx_bufs;
	int tx_n;
	uint32_t tx_len[UDP_BATCH];
	uint8_t tx_dscp[UDP_BATCH]; /* the DSCP each carries (0: the socket's own) */
	struct sockaddr_storage tx_to[UDP_BATCH];
	uint32_t rx_overflows; /* the kernel's count of datagrams dropped for a full receive buffer */
	uint64_t rx_truncated, tx_dropped, tx_errors;
	int last_tx_errno;
	bool gso;              /* runs to one address go as one message (udp_flush) */
	struct io_count tx_io, rx_io; /* sendmmsg and recvmmsg calls, and the datagrams they carried */
};

/* Buffers for batches of datagrams of up to slot bytes; fd stays -1. */
int udp_init(struct udp_sock *s, unsigned index, uint32_t slot);
void udp_free(struct udp_sock *s);

/*
 * A client uplink's socket, towards a server of the given family. On error
 * returns -errno and says in what (up to 120 bytes): "interface wan9 does not
 * exist", "cannot bind to 192.0.2.7: Cannot assign requested address".
 */
int udp_open_uplink(struct udp_sock *s, const struct wb_conf_uplink *u, int family, char *what, size_t whatlen);
/* The server's socket on its listen address and port (IPv6 any also takes IPv4). */
int udp_open_server(struct udp_sock *s, const struct sockaddr_storage *listen, char *what, size_t whatlen);
void udp_close(struct udp_sock *s);

/*
 * Where the next datagram of the batch goes, len bytes at most: built
 * there, it is queued without a copy. NULL if the socket is closed or the
 * datagram would not fit. Valid until the next udp_queue or udp_flush.
 */
uint8_t *udp_tx_slot(struct udp_sock *s, size_t len);
/* Adds a datagram to the send batch (copied, unless built in udp_tx_slot's); sends the batch when it is full. */
void udp_queue(struct udp_sock *s, const struct wb_endpoint *to, const uint8_t *data, size_t len, uint8_t dscp);
void udp_flush(struct udp_sock *s);

/* Reads up to UDP_BATCH datagrams; rx->n is 0 when none waits. -errno on error. */
int udp_recv(struct udp_sock *s, struct udp_rx *rx);

void udp_endpoint_from_sockaddr(struct wb_endpoint *e, const struct sockaddr_storage *ss);
/* For a socket of family: IPv4 endpoints on an IPv6 socket become v4-mapped addresses. */
socklen_t udp_sockaddr_from_endpoint(struct sockaddr_storage *ss, const struct wb_endpoint *e, int family);

#endif
