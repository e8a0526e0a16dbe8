// SPDX-License-Identifier: MIT
#include "gro.h"

#include <string.h>

#include "byteorder.h"
#include "inet_csum.h"
#include "tcp_packet.h"

#define IP_MAX_LEN 65535
/* What a packet that joins a run may carry: an acknowledgment, and PSH to end it. */
#define JOINABLE_FLAGS (WB_TCP_ACK | WB_TCP_PSH)

void wb_gro_clear(struct wb_gro *g)
{
	g->used = 0;
	g->n = 0;
	g->packets = 0;
}

static bool checksum_ok(const uint8_t *ip, const struct wb_tcp_packet *t)
{
	uint64_t sum = wb_csum_pseudo(ip, t->family, 6, t->len - t->ip_len);

	if (t->family == 4 && wb_csum_fold(wb_csum_add(0, ip, t->ip_len)) != 0xffff)
		return false;
	return wb_csum_fold(wb_csum_add(sum, ip + t->ip_len, t->len - t->ip_len)) == 0xffff;
}

/* A packet that can begin or join a run: payload, ACK with nothing but PSH beside it, right checksums. */
static bool joinable(const uint8_t *ip, const struct wb_tcp_packet *t)
{
	return t->len > t->hdr_len && (t->flags & ~WB_TCP_PSH) == WB_TCP_ACK &&
	       (t->family == 6 || t->ip_len == 20) && checksum_ok(ip, t);
}

/*
 * The same connection and the same headers but for what changes from one
 * packet of a run to the next: IPv4's length, ID and checksum, TCP's
 * sequence number, PSH and checksum.
 */
static bool same_headers(const uint8_t *a, const uint8_t *b, const struct wb_tcp_packet *t)
{
	const uint8_t *ta = a + t->ip_len, *tb = b + t->ip_len;

	if (t->family == 4) {
		/* Version and TOS; flags (DF) and TTL, protocol; the addresses. */
		if (memcmp(a, b, 2) || a[6] != b[6] || a[8] != b[8] || memcmp(a + 12, b + 12, 8))
			return false;
	} else if (memcmp(a, b, 4) || memcmp(a + 6, b + 6, 34)) {
		/* Version, class, flow label; next header, hop limit, addresses. */
		return false;
	}
	/* Ports; acknowledgment, header length, window; urgent pointer and options. */
	return !memcmp(ta, tb, 4) && !memcmp(ta + 8, tb + 8, 5) && !memcmp(ta + 14, tb + 14, 2) &&
	       !memcmp(ta + 18, tb + 18, t->hdr_len - t->ip_len - 18u);
}

/* The last item of this packet's connection, or NULL: only it may take the packet, or order would change. */
static struct wb_gro_item *last_of_connection(struct wb_gro *g, const uint8_t *ip, const struct wb_tcp_packet *t)
{
	size_t addr_off = t->family == 4 ? 12 : 8, addr_len = t->family == 4 ? 8 : 32;

	for (int i = g->n - 1; i >= 0; i--) {
		struct wb_gro_item *it = &g->items[i];
		const uint8_t *first = g->arena + it->first;

		if (it->family == t->family && !memcmp(first + addr_off, ip + addr_off, addr_len) &&
		    !memcmp(first + it->ip_len, ip + t->ip_len, 4))
			return it;
	}
	return NULL;
}

static bool joins(struct wb_gro *g, struct wb_gro_item *it, const uint8_t *ip, const struct wb_tcp_packet *t)
{
	uint32_t payload = t->len - t->hdr_len;

	return it->open && it->hdr_len == t->hdr_len && it->ip_len == t->ip_len && t->seq == it->next_seq &&
	       payload <= it->seg_size && it->n_segs < WB_GRO_SEGMENTS && it->len + payload <= IP_MAX_LEN &&
	       same_headers(g->arena + it->first, ip, t);
}

/* The payload at arena offset at joins the run. */
static void join(struct wb_gro_item *it, uint32_t at, const struct wb_tcp_packet *t)
{
	uint32_t payload = t->len - t->hdr_len;

	it->seg_at[it->n_segs] = at;
	it->seg_len[it->n_segs] = (uint16_t)payload;
	it->n_segs++;
	it->len += payload;
	it->next_seq += payload;
	/* A shorter packet or PSH ends a run, as it ends a segment the kernel would cut. */
	if (payload < it->seg_size || (t->flags & WB_TCP_PSH)) {
		it->open = false;
		it->push = t->flags & WB_TCP_PSH;
	}
}

static void begin(struct wb_gro_item *it, uint32_t at, const uint8_t *ip, size_t len)
{
	struct wb_tcp_packet t;
	bool tcp = wb_tcp_packet_parse(ip, len, &t);

	*it = (struct wb_gro_item){ .first = at, .len = (uint32_t)len, .n_segs = 1 };
	if (!tcp)
		return;
	/*
	 * Any TCP packet, joinable or not (a pure ACK, a SYN, a bad checksum),
	 * is the last item of its connection: what follows must not join an
	 * item before it.
	 */
	it->family = (uint8_t)t.family;
	it->ip_len = t.ip_len;
	it->hdr_len = t.hdr_len;
	if (!joinable(ip, &t))
		return;
	it->seg_size = (uint16_t)(t.len - t.hdr_len);
	it->next_seq = t.seq + it->seg_size;
	it->open = !(t.flags & WB_TCP_PSH);
}

bool wb_gro_add(struct wb_gro *g, const uint8_t *ip, size_t len)
{
	uint32_t at = g->used;
	struct wb_tcp_packet t;
	struct wb_gro_item *it;

	if (len > sizeof(g->arena) - g->used)
		return false;
	if (wb_tcp_packet_parse(ip, len, &t) && joinable(ip, &t)) {
		it = last_of_connection(g, ip, &t);
		if (it && joins(g, it, ip, &t)) {
			/* Only the payload is kept: the run's headers are its first packet's. */
			memcpy(g->arena + at, ip + t.hdr_len, len - t.hdr_len);
			g->used += (uint32_t)(len - t.hdr_len);
			join(it, at, &t);
			g->packets++;
			return true;
		}
	}
	if (g->n == WB_GRO_ITEMS)
		return false;
	memcpy(g->arena + at, ip, len);
	g->used += (uint32_t)len;
	begin(&g->items[g->n++], at, ip, len);
	g->packets++;
	return true;
}

/* The run's first packet becomes its large segment: lengths, PSH, and the partial checksum the kernel completes. */
static void set_run_headers(struct wb_gro_item *it, uint8_t *ip, struct wb_vnet_hdr *h)
{
	struct wb_tcp_packet t = { .family = it->family, .ip_len = it->ip_len, .len = it->len };
	uint8_t *tcp = ip + it->ip_len;

	wb_tcp_packet_set_ip_len(ip, &t);
	if (it->push)
		tcp[WB_TCP_FLAGS] |= WB_TCP_PSH;
	/* NEEDS_CSUM: the field holds the pseudo-header's sum, not complemented (the kernel adds the rest). */
	{
		uint16_t partial = wb_csum_fold(wb_csum_pseudo(ip, it->family, 6, it->len - it->ip_len));

		memcpy(tcp + WB_TCP_CSUM, &partial, 2);
	}
	*h = (struct wb_vnet_hdr){
		.flags = WB_VNET_F_NEEDS_CSUM,
		.gso_type = it->family == 4 ? WB_VNET_GSO_TCPV4 : WB_VNET_GSO_TCPV6,
		.hdr_len = it->hdr_len,
		.gso_size = it->seg_size,
		.csum_start = it->ip_len,
		.csum_offset = WB_TCP_CSUM,
	};
}

int wb_gro_item_iov(struct wb_gro *g, int i, uint8_t *vnet, struct iovec *iov, unsigned *packets)
{
	struct wb_gro_item *it = &g->items[i];
	uint8_t *ip = g->arena + it->first;
	struct wb_vnet_hdr h = { 0 };
	int n = 2;

	if (it->n_segs > 1)
		set_run_headers(it, ip, &h);
	wb_vnet_hdr_put(vnet, &h);
	iov[0] = (struct iovec){ vnet, WB_VNET_HDR_LEN };
	/* The first packet whole (its own payload included), then the others' payloads. */
	iov[1] = (struct iovec){ ip, it->n_segs > 1 ? (size_t)it->hdr_len + it->seg_size : it->len };
	for (unsigned k = 1; k < it->n_segs; k++)
		iov[n++] = (struct iovec){ g->arena + it->seg_at[k], it->seg_len[k] };
	*packets = it->n_segs;
	return n;
}
