/* SPDX-License-Identifier: MIT */
/*
 * Raw frame I/O on one interface: an AF_PACKET socket bound to it, read and
 * written in batches (recvmmsg / sendmmsg).
 *
 * Why AF_PACKET with batched syscalls: it sees every frame (ARP and IPv6
 * neighbour discovery included) with no bridge or routing set-up, works on
 * any kernel and needs no eBPF; recvmmsg and sendmmsg amortise the syscall
 * over up to PKTIO_BATCH frames, and since the emulator must copy each frame
 * into its delay line anyway, a mmap ring would save no copy. PACKET_MMAP
 * version 3 would also hold frames up to its block timeout, which adds delay.
 */
#ifndef LINKEM_PKTIO_H
#define LINKEM_PKTIO_H

#include <stdint.h>

#include "pool.h"

#define PKTIO_BATCH 64
#define PKTIO_L2_HEADER 14 /* Ethernet */

struct pktio {
	int fd;
	int ifindex;
	uint32_t mtu;
	const char *name;
	uint64_t rx_truncated; /* frames longer than the buffers, dropped */
	uint64_t tx_errors;    /* frames the kernel refused to send */
};

/* Returns 0, -ENODEV if the interface does not exist, or -errno. */
int pktio_open(struct pktio *io, const char *ifname);
void pktio_close(struct pktio *io);

/*
 * Reads up to n frames into frames[] (each with pool->frame_size bytes of
 * room). Returns how many were read (0 when none is waiting) or -errno.
 * Frames the interface sent itself are skipped.
 */
int pktio_recv(struct pktio *io, struct frame *frames[], int n, uint32_t room);

/* Sends n frames; a frame the kernel refuses is counted and dropped. */
void pktio_send(struct pktio *io, struct frame *const frames[], int n);

#endif
