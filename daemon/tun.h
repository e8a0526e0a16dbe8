/* SPDX-License-Identifier: MIT */
/*
 * The TUN device of a bond. It is opened with a virtio header before each
 * packet (IFF_VNET_HDR) and, where the kernel allows, TCP segmentation
 * offload: a read brings a large TCP segment of up to 64 kB that the
 * library's tso.c cuts, and a write takes a run that gro.c merged. One
 * system call then carries dozens of packets each way.
 */
#ifndef WB_TUN_H
#define WB_TUN_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "gro.h"
#include "udp.h"

/* A read's size: the virtio header and the largest segment the kernel hands over. */
#define TUN_READ_SIZE (WB_VNET_HDR_LEN + 65535 + 40)

/*
 * Opens (creating if needed) TUN device name, non-blocking, with virtio
 * headers. *offload says whether the kernel took the offloads (large
 * segments come only then). Returns the fd or -errno.
 */
int tun_open(const char *name, char actual[IFNAMSIZ], bool *offload);

/* Writes each packet or run g gathered, then clears it; counts the writes, the packets and the failures. */
void tun_write_gathered(int fd, struct wb_gro *g, struct io_count *io, uint64_t *errors, int *last_errno);

#endif
