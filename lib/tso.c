// SPDX-License-Identifier: MIT
#include "tso.h"

#include <errno.h>
#include <string.h>

#include "byteorder.h"
#include "inet_csum.h"
#include "tcp_packet.h"
#include "vnet_hdr.h"

/* The largest IP and TCP headers: 60 and 60 bytes. */
#define MAX_HEADERS 120

/* A checksum the kernel left to the device: summed from csum_start, stored at csum_offset (RFC 1071 partial sum). */
static int complete_checksum(uint8_t *pkt, size_t len, const struct wb_vnet_hdr *h)
{
	uint64_t sum;

	if (!(h->flags & WB_VNET_F_NEEDS_CSUM))
		return 0;
	if (h->csum_start >= len || (size_t)h->csum_start + h->csum_offset + 2 > len)
		return -EINVAL;
	sum = wb_csum_add(0, pkt + h->csum_start, len - h->csum_start);
	/* A checksum of zero goes as ffff, as the kernel completes it: zero is UDP's "none", which IPv6 drops. */
	wb_csum_store(pkt + h->csum_start + h->csum_offset, wb_csum_fold(sum) == 0xffff ? 0 : sum);
	return 0;
}

/* The headers of packet i: lengths, IPv4 ID, sequence, flags and both checksums; payload follows them. */
static void fix_segment(uint8_t *ip, const struct wb_tcp_packet *t, uint32_t i, uint32_t payload, bool last,
			bool ecn)
{
	uint8_t *tcp = ip + t->ip_len;
	struct wb_tcp_packet seg = *t;

	seg.len = t->hdr_len + payload;
	if (t->family == 4)
		wb_put_be16(ip + 4, (uint16_t)(wb_get_be16(ip + 4) + i));
	wb_tcp_packet_set_ip_len(ip, &seg);
	if (!last)
		tcp[WB_TCP_FLAGS] &= (uint8_t)~(WB_TCP_FIN | WB_TCP_PSH);
	if (i && ecn)
		tcp[WB_TCP_FLAGS] &= (uint8_t)~WB_TCP_CWR;
	tcp[WB_TCP_CSUM] = tcp[WB_TCP_CSUM + 1] = 0;
	wb_csum_store(tcp + WB_TCP_CSUM, wb_csum_add(wb_csum_pseudo(ip, t->family, 6, seg.len - t->ip_len), tcp,
						      seg.len - t->ip_len));
}

static int split_tcp(uint8_t *pkt, size_t len, const struct wb_vnet_hdr *h, wb_tso_emit_fn *emit, void *ctx)
{
	int family = (h->gso_type & ~WB_VNET_GSO_ECN) == WB_VNET_GSO_TCPV4 ? 4 : 6;
	uint8_t headers[MAX_HEADERS];
	struct wb_tcp_packet t;
	uint32_t payload, n;

	if (!wb_tcp_packet_parse(pkt, len, &t) || t.family != family || !h->gso_size)
		return -EINVAL;
	payload = t.len - t.hdr_len;
	n = payload ? (payload + h->gso_size - 1) / h->gso_size : 1;
	memcpy(headers, pkt, t.hdr_len);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t off = i * h->gso_size, size = payload - off < h->gso_size ? payload - off : h->gso_size;
		/*
		 * Packet i's headers go just before its payload, over payload
		 * of packets already emitted (or the original headers, saved).
		 */
		uint8_t *ip = pkt + off;

		if (off)
			memcpy(ip, headers, t.hdr_len);
		wb_put_be32(ip + t.ip_len + WB_TCP_SEQ, t.seq + off);
		fix_segment(ip, &t, i, size, i + 1 == n, h->gso_type & WB_VNET_GSO_ECN);
		emit(ctx, ip, t.hdr_len + size);
	}
	return (int)n;
}

int wb_tso_split(uint8_t *buf, size_t len, wb_tso_emit_fn *emit, void *ctx)
{
	struct wb_vnet_hdr h;
	uint8_t *pkt = buf + WB_VNET_HDR_LEN;

	if (len <= WB_VNET_HDR_LEN)
		return -EINVAL;
	wb_vnet_hdr_get(&h, buf);
	len -= WB_VNET_HDR_LEN;
	switch (h.gso_type & ~WB_VNET_GSO_ECN) {
	case WB_VNET_GSO_NONE:
		if (complete_checksum(pkt, len, &h))
			return -EINVAL;
		emit(ctx, pkt, len);
		return 1;
	case WB_VNET_GSO_TCPV4:
	case WB_VNET_GSO_TCPV6:
		return split_tcp(pkt, len, &h, emit, ctx);
	default:
		return -EINVAL;
	}
}
