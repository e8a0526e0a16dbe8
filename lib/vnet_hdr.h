/* SPDX-License-Identifier: MIT */
/*
 * The header a TUN device opened with IFF_VNET_HDR puts before each packet
 * it hands over and expects before each it takes (struct virtio_net_hdr, 10
 * bytes, the host's byte order as the device uses it unless told
 * otherwise). It says whether the packet is a large TCP segment to be cut
 * into packets of gso_size bytes of payload, and whether its checksum is
 * still to be computed from csum_start on, into csum_start + csum_offset.
 */
#ifndef WB_VNET_HDR_H
#define WB_VNET_HDR_H

#include <stdint.h>
#include <string.h>

#define WB_VNET_HDR_LEN 10

#define WB_VNET_F_NEEDS_CSUM 1
#define WB_VNET_GSO_NONE 0
#define WB_VNET_GSO_TCPV4 1
#define WB_VNET_GSO_TCPV6 4
#define WB_VNET_GSO_ECN 0x80 /* the segment carries CWR: the first packet cut from it keeps it */

struct wb_vnet_hdr {
	uint8_t flags, gso_type;
	uint16_t hdr_len, gso_size, csum_start, csum_offset;
};

static inline void wb_vnet_hdr_get(struct wb_vnet_hdr *h, const uint8_t *p)
{
	h->flags = p[0];
	h->gso_type = p[1];
	memcpy(&h->hdr_len, p + 2, 2);
	memcpy(&h->gso_size, p + 4, 2);
	memcpy(&h->csum_start, p + 6, 2);
	memcpy(&h->csum_offset, p + 8, 2);
}

static inline void wb_vnet_hdr_put(uint8_t *p, const struct wb_vnet_hdr *h)
{
	p[0] = h->flags;
	p[1] = h->gso_type;
	memcpy(p + 2, &h->hdr_len, 2);
	memcpy(p + 4, &h->gso_size, 2);
	memcpy(p + 6, &h->csum_start, 2);
	memcpy(p + 8, &h->csum_offset, 2);
}

#endif
