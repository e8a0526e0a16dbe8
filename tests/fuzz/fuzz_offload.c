// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the input is a read from a TUN device with offloads,
 * the virtio header (vnet_hdr.h) and a packet, possibly a large TCP segment.
 *
 *   1. wb_tso_split cuts a heap copy of exactly the input (a read past its
 *      end is an ASan report): -EINVAL emits nothing, otherwise it returns
 *      how many it emitted, each inside the input and no longer than it; a
 *      large segment's packets are TCP packets with valid checksums (a
 *      byte-wise reference here, not the library's), in sequence, cut every
 *      gso_size bytes;
 *   2. each packet emitted, copied to a buffer of exactly its length, is
 *      gathered by a wb_gro (written and cleared when full); every item as
 *      written: its iovec inside the arena, its lengths summing to the
 *      virtio header and the item, the packets counted; a joined run's
 *      header says what it is, its checksum once the kernel completes it is
 *      valid, and cut again it gives back as many packets as it took;
 *   3. the packet after the virtio header, as it is, is gathered by another
 *      wb_gro, twice, and written the same way.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "gro.h"
#include "inet_csum.h"
#include "tcp_packet.h"
#include "tso.h"
#include "vnet_hdr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wb_gro gro_cut, gro_raw;

/* The reference: RFC 1071 byte by byte, in network order. */
static uint16_t ref_fold(uint64_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sum += i % 2 ? p[i] : (uint64_t)p[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static bool ref_tcp_ok(const uint8_t *ip, const struct wb_tcp_packet *t)
{
	uint32_t tcp_len = t->len - t->ip_len;
	uint64_t pseudo = (uint64_t)(tcp_len >> 16) + (tcp_len & 0xffff) + 6;

	pseudo = ref_fold(pseudo, t->family == 4 ? ip + 12 : ip + 8, t->family == 4 ? 8 : 32);
	if (t->family == 4 && ref_fold(0, ip, t->ip_len) != 0xffff)
		return false;
	return ref_fold(pseudo, ip + t->ip_len, tcp_len) == 0xffff;
}

static void count(void *arg, uint8_t *ip, size_t len)
{
	(void)ip;
	(void)len;
	++*(unsigned *)arg;
}

/* Every item as the device would be written: returns the packets they carry. */
static uint64_t write_items(struct wb_gro *g)
{
	uint64_t packets = 0;

	for (int i = 0; i < g->n; i++) {
		uint8_t vnet[WB_VNET_HDR_LEN], *pkt;
		struct iovec iov[WB_GRO_IOV];
		struct wb_vnet_hdr h;
		struct wb_tcp_packet t;
		size_t total = 0;
		unsigned n_pkts;
		int n = wb_gro_item_iov(g, i, vnet, iov, &n_pkts);

		assert(n >= 2 && n <= WB_GRO_IOV);
		assert(iov[0].iov_base == vnet && iov[0].iov_len == WB_VNET_HDR_LEN);
		assert(n_pkts >= 1 && n == (n_pkts > 1 ? (int)n_pkts + 1 : 2));
		for (int k = 1; k < n; k++) {
			const uint8_t *b = iov[k].iov_base;

			assert(b >= g->arena && b + iov[k].iov_len <= g->arena + g->used);
			total += iov[k].iov_len;
		}
		assert(total == g->items[i].len);
		packets += n_pkts;
		wb_vnet_hdr_get(&h, vnet);
		if (n_pkts == 1) {
			assert(!h.flags && !h.gso_type && !h.hdr_len && !h.gso_size && !h.csum_start && !h.csum_offset);
			continue;
		}
		/* A run: as one buffer, exactly its length, the way the device takes it. */
		pkt = malloc(WB_VNET_HDR_LEN + total);
		assert(pkt);
		total = 0;
		for (int k = 0; k < n; k++) {
			memcpy(pkt + total, iov[k].iov_base, iov[k].iov_len);
			total += iov[k].iov_len;
		}
		assert(total <= WB_VNET_HDR_LEN + 65535);
		assert(wb_tcp_packet_parse(pkt + WB_VNET_HDR_LEN, total - WB_VNET_HDR_LEN, &t));
		assert(h.flags == WB_VNET_F_NEEDS_CSUM);
		assert(h.gso_type == (t.family == 4 ? WB_VNET_GSO_TCPV4 : WB_VNET_GSO_TCPV6));
		assert(h.hdr_len == t.hdr_len && h.csum_start == t.ip_len && h.csum_offset == WB_TCP_CSUM);
		assert(h.gso_size && t.len - t.hdr_len > h.gso_size);
		assert((t.len - t.hdr_len + h.gso_size - 1) / h.gso_size == n_pkts);
		{
			/* What the kernel does with it: the checksum completed, then the segment cut again. */
			uint8_t *ip = pkt + WB_VNET_HDR_LEN;
			uint64_t sum = wb_csum_add(0, ip + t.ip_len, t.len - t.ip_len);

			wb_csum_store(ip + t.ip_len + WB_TCP_CSUM, sum);
			assert(ref_tcp_ok(ip, &t));
		}
		{
			unsigned again = 0;

			assert(wb_tso_split(pkt, total, count, &again) == (int)n_pkts && again == n_pkts);
		}
		free(pkt);
	}
	assert(packets == g->packets);
	return packets;
}

static void gather(struct wb_gro *g, const uint8_t *ip, size_t len)
{
	/* Exactly its length: a read past it is an ASan report. */
	uint8_t *copy = malloc(len ? len : 1);

	assert(copy);
	memcpy(copy, ip, len);
	if (!wb_gro_add(g, copy, len)) {
		write_items(g);
		wb_gro_clear(g);
		assert(wb_gro_add(g, copy, len));
	}
	free(copy);
}

struct cut {
	const uint8_t *buf;
	size_t size;
	int emitted;
	bool gso;
	int family;
	uint16_t gso_size;
	uint32_t seq;      /* the segment's */
	uint32_t payload;  /* its payload's length */
	uint32_t seen;     /* payload emitted so far */
};

static void emitted(void *arg, uint8_t *ip, size_t len)
{
	struct cut *c = arg;
	struct wb_tcp_packet t;

	assert(ip >= c->buf + WB_VNET_HDR_LEN && ip + len <= c->buf + c->size);
	assert(len <= c->size - WB_VNET_HDR_LEN);
	if (c->gso) {
		assert(wb_tcp_packet_parse(ip, len, &t));
		assert(t.family == c->family);
		assert(ref_tcp_ok(ip, &t));
		assert(t.seq == c->seq + c->seen);
		assert(t.len - t.hdr_len == (c->payload - c->seen < c->gso_size ? c->payload - c->seen : c->gso_size));
		c->seen += t.len - t.hdr_len;
	}
	c->emitted++;
	gather(&gro_cut, ip, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	struct cut c = { .buf = buf, .size = size };
	struct wb_vnet_hdr h;
	struct wb_tcp_packet t;
	int rc;

	assert(buf);
	memcpy(buf, data, size);
	if (size > WB_VNET_HDR_LEN) {
		wb_vnet_hdr_get(&h, data);
		c.gso = (h.gso_type & ~WB_VNET_GSO_ECN) == WB_VNET_GSO_TCPV4 ||
			(h.gso_type & ~WB_VNET_GSO_ECN) == WB_VNET_GSO_TCPV6;
		if (c.gso && wb_tcp_packet_parse(data + WB_VNET_HDR_LEN, size - WB_VNET_HDR_LEN, &t)) {
			c.family = t.family;
			c.gso_size = h.gso_size;
			c.seq = t.seq;
			c.payload = t.len - t.hdr_len;
		}
	}
	wb_gro_clear(&gro_cut);
	rc = wb_tso_split(buf, size, emitted, &c);
	if (rc == -EINVAL) {
		assert(c.emitted == 0);
	} else {
		assert(rc >= 1 && rc == c.emitted);
		if (c.gso)
			assert(c.seen == c.payload);
	}
	write_items(&gro_cut);
	free(buf);

	/* The packet as it is, twice (a copy is never in sequence after itself): two packets written. */
	if (size >= WB_VNET_HDR_LEN) {
		uint64_t packets;

		wb_gro_clear(&gro_raw);
		gather(&gro_raw, data + WB_VNET_HDR_LEN, size - WB_VNET_HDR_LEN);
		gather(&gro_raw, data + WB_VNET_HDR_LEN, size - WB_VNET_HDR_LEN);
		packets = write_items(&gro_raw);
		assert(packets == 2);
	}
	return 0;
}
