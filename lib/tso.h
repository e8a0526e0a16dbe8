/* SPDX-License-Identifier: MIT */
/*
 * Cutting what a TUN device with offloads hands over into IP packets. With
 * IFF_VNET_HDR and TCP segmentation offload, one read brings up to 64 kB of
 * one TCP connection (a large segment) instead of one packet: the system
 * call and the kernel's work are paid once for up to 45 packets. The tunnel
 * carries packets no larger than its MTU, so the daemon cuts the segment
 * here, as a NIC would: each packet with its own IP length, IPv4 ID, TCP
 * sequence number and checksums, FIN and PSH only on the last, CWR only on
 * the first. A packet whose checksum the kernel left to the device gets it.
 */
#ifndef WB_TSO_H
#define WB_TSO_H

#include <stddef.h>
#include <stdint.h>

/* Called for each IP packet in order; ip is valid until emit returns. */
typedef void wb_tso_emit_fn(void *ctx, uint8_t *ip, size_t len);

/*
 * buf: len bytes as read, the virtio header (vnet_hdr.h) and a packet. The
 * packets are cut in place: buf is overwritten. Returns how many packets
 * were emitted, or -EINVAL for a header that does not match its packet
 * (nothing emitted).
 */
int wb_tso_split(uint8_t *buf, size_t len, wb_tso_emit_fn *emit, void *ctx);

#endif
