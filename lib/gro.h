/* SPDX-License-Identifier: MIT */
/*
 * Merging the packets the tunnel delivers into large TCP segments for a
 * TUN device with offloads (the reverse of tso.c), so that one write takes
 * what would be up to 45: the packets of one wakeup are gathered, a TCP
 * packet that continues the last one gathered of its connection (same
 * addresses, ports, acknowledgment, window, options; in sequence; a valid
 * checksum) joins it, and each gathered packet or joined run is written
 * with its virtio header. Packets of one connection keep their order; no
 * packet is held past the end of the wakeup it came in.
 */
#ifndef WB_GRO_H
#define WB_GRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "vnet_hdr.h"

#define WB_GRO_ITEMS 64       /* packets or runs gathered before they must be written */
#define WB_GRO_SEGMENTS 48    /* packets in a run: 64 kB of 1360-byte payloads */
#define WB_GRO_ARENA (192 * 1024)
/* The iovec entries one item needs: its virtio header, its first packet, and the other packets' payloads. */
#define WB_GRO_IOV (WB_GRO_SEGMENTS + 1)

struct wb_gro_item {
	uint32_t first;       /* where the first packet is in the arena */
	uint32_t len;         /* the run's IP packet, all its bytes */
	uint16_t hdr_len, ip_len;
	uint16_t seg_size;    /* the first packet's payload: the size the kernel cuts the run to again */
	uint16_t n_segs;
	uint32_t next_seq;
	uint8_t family;
	bool open;            /* may take more: a TCP packet with payload and nothing that ends a run */
	bool push;            /* a joined packet had PSH: the run ends with it */
	uint32_t seg_at[WB_GRO_SEGMENTS]; /* the joined packets' payloads in the arena (the first's is in its packet) */
	uint16_t seg_len[WB_GRO_SEGMENTS];
};

struct wb_gro {
	uint8_t arena[WB_GRO_ARENA];
	uint32_t used;
	int n;
	struct wb_gro_item items[WB_GRO_ITEMS];
	uint64_t packets;  /* gathered since the last wb_gro_clear */
};

void wb_gro_clear(struct wb_gro *g);

/* Gathers one IP packet (copied); false when there is no room: write and clear, then add again. */
bool wb_gro_add(struct wb_gro *g, const uint8_t *ip, size_t len);

/*
 * Item i as a write to the device: iov (WB_GRO_IOV entries) gets the
 * virtio header, written into vnet (WB_VNET_HDR_LEN bytes), and the
 * packet or run, whose headers are set for the run. Returns the number of
 * iov entries; *packets the number of packets it carries.
 */
int wb_gro_item_iov(struct wb_gro *g, int i, uint8_t *vnet, struct iovec *iov, unsigned *packets);

#endif
