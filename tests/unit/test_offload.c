// SPDX-License-Identifier: MIT
/*
 * Unit tests: the offloads of a TUN device with IFF_VNET_HDR. inet_csum.c
 * (the Internet checksum in host layout), tso.c (a large TCP segment cut in
 * place into packets, a partial checksum completed) and gro.c (delivered
 * packets gathered and joined into large segments again), each checked
 * against a plain byte-wise reference checksum written here, in network
 * order, that shares nothing with the library's.
 *
 * The segments are built by hand: IPv4 and IPv6, a TCP header with
 * timestamps, random payloads. A split must give packets that parse, whose
 * lengths, IDs, sequence numbers, flags and checksums are those a NIC would
 * give, and whose payloads are the segment's slices; the packets gathered
 * again must give the segment back, and the kernel's completion of its
 * partial checksum a valid one. The round trip is drawn a few hundred times
 * from a fixed seed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "gro.h"
#include "inet_csum.h"
#include "prng.h"
#include "tcp_packet.h"
#include "tso.h"
#include "vnet_hdr.h"

#define TCP_HLEN 32 /* 20 and the options: NOP, NOP, timestamps */
#define HDR4 (20 + TCP_HLEN)
#define HDR6 (40 + TCP_HLEN)
#define BUF_MAX (WB_VNET_HDR_LEN + 65535 + 40)

/* ---- the reference checksum: byte by byte, in network order ---------------------------------- */

static uint64_t ref_add(uint64_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sum += i % 2 ? p[i] : (uint64_t)p[i] << 8;
	return sum;
}

static uint16_t ref_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint64_t ref_pseudo(const uint8_t *ip, int family, uint8_t proto, uint32_t len)
{
	uint64_t sum = family == 4 ? ref_add(0, ip + 12, 8) : ref_add(0, ip + 8, 32);

	return sum + (len >> 16) + (len & 0xffff) + proto;
}

static size_t ip_hlen(const uint8_t *ip)
{
	return (ip[0] >> 4) == 4 ? (size_t)(ip[0] & 0x0f) * 4 : 40;
}

static int ip_family(const uint8_t *ip)
{
	return ip[0] >> 4;
}

/* Whether the TCP or UDP checksum of the packet (its IP header's length from ip[0]) is valid. */
static bool ref_l4_ok(const uint8_t *ip, size_t len, uint8_t proto)
{
	size_t ihl = ip_hlen(ip);

	return ref_fold(ref_add(ref_pseudo(ip, ip_family(ip), proto, (uint32_t)(len - ihl)), ip + ihl, len - ihl)) ==
	       0xffff;
}

static bool ref_ip4_ok(const uint8_t *ip)
{
	return ref_fold(ref_add(0, ip, ip_hlen(ip))) == 0xffff;
}

static void ref_put_csum(uint8_t *field, uint64_t sum)
{
	uint16_t c = (uint16_t)~ref_fold(sum);

	field[0] = (uint8_t)(c >> 8);
	field[1] = (uint8_t)c;
}

static void ref_set_l4(uint8_t *ip, size_t len, uint8_t proto, size_t field)
{
	size_t ihl = ip_hlen(ip);

	ip[ihl + field] = ip[ihl + field + 1] = 0;
	ref_put_csum(ip + ihl + field,
		     ref_add(ref_pseudo(ip, ip_family(ip), proto, (uint32_t)(len - ihl)), ip + ihl, len - ihl));
}

/* What the kernel does with a NEEDS_CSUM packet: sums from csum_start on, the field as given, stores it complemented. */
static void kernel_finish(uint8_t *pkt, size_t len, const struct wb_vnet_hdr *h)
{
	assert_true(h->csum_start + h->csum_offset + 2u <= len);
	ref_put_csum(pkt + h->csum_start + h->csum_offset, ref_add(0, pkt + h->csum_start, len - h->csum_start));
}

/* ---- packets built by hand ------------------------------------------------------------------- */

static const uint8_t src4[4] = { 10, 1, 0, 2 }, dst4[4] = { 192, 0, 2, 77 };
static const uint8_t src6[16] = { 0xfd, 0, 0, 1, [15] = 2 }, dst6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0xab, [14] = 0x12,
									    [15] = 0x34 };

struct seg {
	int family;
	uint8_t flags;
	uint16_t sport, dport, id, window;
	uint32_t seq, ack, tsval;
	const uint8_t *payload;
	size_t payload_len;
};

static struct seg seg_default(int family, const uint8_t *payload, size_t payload_len)
{
	return (struct seg){ .family = family, .flags = WB_TCP_ACK, .sport = 40000, .dport = 443, .id = 0xfff0,
			     .window = 501, .seq = 0xfffff000u, .ack = 0x12345678, .tsval = 1000,
			     .payload = payload, .payload_len = payload_len };
}

static size_t seg_hdr(int family)
{
	return family == 4 ? HDR4 : HDR6;
}

/* The IP header of a packet of len bytes, protocol proto. */
static size_t build_ip(uint8_t *ip, int family, uint8_t proto, size_t len, uint16_t id)
{
	if (family == 4) {
		memset(ip, 0, 20);
		ip[0] = 0x45;
		ip[1] = 0x02; /* ECT(0) */
		wb_put_be16(ip + 2, (uint16_t)len);
		wb_put_be16(ip + 4, id);
		ip[6] = 0x40; /* DF */
		ip[8] = 64;
		ip[9] = proto;
		memcpy(ip + 12, src4, 4);
		memcpy(ip + 16, dst4, 4);
		ref_put_csum(ip + 10, ref_add(0, ip, 20));
		return 20;
	}
	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[1] = 0x0b;
	ip[2] = 0xcd;
	ip[3] = 0xef;
	wb_put_be16(ip + 4, (uint16_t)(len - 40));
	ip[6] = proto;
	ip[7] = 64;
	memcpy(ip + 8, src6, 16);
	memcpy(ip + 24, dst6, 16);
	return 40;
}

/* A TCP packet with valid checksums; returns its length. */
static size_t build_tcp(uint8_t *ip, const struct seg *s)
{
	size_t len = seg_hdr(s->family) + s->payload_len;
	size_t ihl = build_ip(ip, s->family, 6, len, s->id);
	uint8_t *tcp = ip + ihl;

	memset(tcp, 0, TCP_HLEN);
	wb_put_be16(tcp, s->sport);
	wb_put_be16(tcp + 2, s->dport);
	wb_put_be32(tcp + 4, s->seq);
	wb_put_be32(tcp + 8, s->ack);
	tcp[12] = (TCP_HLEN / 4) << 4;
	tcp[13] = s->flags;
	wb_put_be16(tcp + 14, s->window);
	tcp[20] = tcp[21] = 1; /* NOP NOP */
	tcp[22] = 8;
	tcp[23] = 10;
	wb_put_be32(tcp + 24, s->tsval);
	wb_put_be32(tcp + 28, 0x0badcafe);
	if (s->payload_len)
		memcpy(tcp + TCP_HLEN, s->payload, s->payload_len);
	ref_set_l4(ip, len, 6, WB_TCP_CSUM);
	return len;
}

/* A UDP packet with a valid checksum. */
static size_t build_udp(uint8_t *ip, int family, uint16_t sport, const uint8_t *payload, size_t payload_len)
{
	size_t len = (family == 4 ? 20 : 40) + 8 + payload_len;
	size_t ihl = build_ip(ip, family, 17, len, 7);

	wb_put_be16(ip + ihl, sport);
	wb_put_be16(ip + ihl + 2, 53);
	wb_put_be16(ip + ihl + 4, (uint16_t)(len - ihl));
	memcpy(ip + ihl + 8, payload, payload_len);
	ref_set_l4(ip, len, 17, 6);
	return len;
}

static void put_vnet(uint8_t *buf, uint8_t flags, uint8_t gso_type, uint16_t hdr_len, uint16_t gso_size,
		     uint16_t csum_start, uint16_t csum_offset)
{
	struct wb_vnet_hdr h = { flags, gso_type, hdr_len, gso_size, csum_start, csum_offset };

	wb_vnet_hdr_put(buf, &h);
}

/* What a TUN read with TSO looks like: the virtio header, the segment, the TCP field holding the pseudo-header's sum. */
static size_t build_tso(uint8_t *buf, const struct seg *s, uint16_t mss, bool ecn)
{
	size_t len = build_tcp(buf + WB_VNET_HDR_LEN, s);
	uint8_t *ip = buf + WB_VNET_HDR_LEN;
	size_t ihl = ip_hlen(ip);
	uint16_t partial = ref_fold(ref_pseudo(ip, s->family, 6, (uint32_t)(len - ihl)));

	wb_put_be16(ip + ihl + WB_TCP_CSUM, partial);
	put_vnet(buf, WB_VNET_F_NEEDS_CSUM,
		 (uint8_t)((s->family == 4 ? WB_VNET_GSO_TCPV4 : WB_VNET_GSO_TCPV6) | (ecn ? WB_VNET_GSO_ECN : 0)),
		 (uint16_t)seg_hdr(s->family), mss, (uint16_t)ihl, WB_TCP_CSUM);
	return WB_VNET_HDR_LEN + len;
}

static void fill_random(struct prng *r, uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)prng_next(r);
}

/*
 * Whether two TCP packets' headers are the same but for what changes from
 * one packet of a segment to the next: IP length, IPv4 ID and checksum, TCP
 * sequence number, flags and checksum.
 */
static void assert_headers_same(const uint8_t *a, const uint8_t *b, size_t hdr_len)
{
	size_t ihl = ip_hlen(a);

	assert_int_equal(ip_hlen(b), ihl);
	for (size_t k = 0; k < hdr_len; k++) {
		size_t t = k - ihl;

		if (ip_family(a) == 4 && ((k >= 2 && k < 6) || k == 10 || k == 11))
			continue;
		if (ip_family(a) == 6 && (k == 4 || k == 5))
			continue;
		if (k >= ihl && ((t >= 4 && t < 8) || t == WB_TCP_FLAGS || t == 16 || t == 17))
			continue;
		if (a[k] != b[k])
			fail_msg("header byte %zu: %02x, not %02x", k, b[k], a[k]);
	}
}

/* ---- what wb_tso_split emits, copied ---------------------------------------------------------- */

struct cap {
	size_t n, cap;
	uint8_t **p;
	size_t *len;
};

static void cap_push(struct cap *c, const uint8_t *ip, size_t len)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->p = realloc(c->p, c->cap * sizeof(*c->p));
		c->len = realloc(c->len, c->cap * sizeof(*c->len));
		assert_non_null(c->p);
		assert_non_null(c->len);
	}
	c->p[c->n] = malloc(len ? len : 1);
	assert_non_null(c->p[c->n]);
	memcpy(c->p[c->n], ip, len);
	c->len[c->n++] = len;
}

static void cap_emit(void *ctx, uint8_t *ip, size_t len)
{
	cap_push(ctx, ip, len);
}

static void cap_free(struct cap *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->p[i]);
	free(c->p);
	free(c->len);
	*c = (struct cap){ 0 };
}

/* Splits a copy of buf; returns wb_tso_split's result. */
static int split(const uint8_t *buf, size_t len, struct cap *c)
{
	uint8_t *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, buf, len);
	rc = wb_tso_split(copy, len, cap_emit, c);
	free(copy);
	return rc;
}

/*
 * The checks of a split of the segment orig (its IP packet with valid
 * checksums, as built), cut every mss bytes of payload.
 */
static void check_split(const uint8_t *orig, size_t orig_len, uint16_t mss, bool ecn, const struct cap *c)
{
	struct wb_tcp_packet t0;
	size_t payload, expect;

	assert_true(wb_tcp_packet_parse(orig, orig_len, &t0));
	payload = orig_len - t0.hdr_len;
	expect = payload ? (payload + mss - 1) / mss : 1;
	assert_int_equal(c->n, expect);
	for (size_t i = 0; i < c->n; i++) {
		const uint8_t *ip = c->p[i];
		size_t off = i * mss, size = payload - off < mss ? payload - off : mss;
		bool last = i + 1 == c->n;
		uint8_t flags = t0.flags;
		struct wb_tcp_packet t;

		assert_int_equal(c->len[i], t0.hdr_len + size);
		assert_true(wb_tcp_packet_parse(ip, c->len[i], &t));
		assert_int_equal(t.family, t0.family);
		assert_int_equal(t.hdr_len, t0.hdr_len);
		if (t.family == 4) {
			assert_int_equal(wb_get_be16(ip + 2), c->len[i]);
			assert_int_equal(wb_get_be16(ip + 4), (uint16_t)(wb_get_be16(orig + 4) + i));
			assert_true(ref_ip4_ok(ip));
		} else {
			assert_int_equal(wb_get_be16(ip + 4), c->len[i] - 40);
		}
		assert_true(ref_l4_ok(ip, c->len[i], 6));
		assert_int_equal(t.seq, (uint32_t)(t0.seq + off));
		assert_memory_equal(ip + t.hdr_len, orig + t0.hdr_len + off, size);
		if (!last)
			flags &= (uint8_t)~(WB_TCP_FIN | WB_TCP_PSH);
		if (i && ecn)
			flags &= (uint8_t)~WB_TCP_CWR;
		assert_int_equal(t.flags, flags);
		assert_headers_same(orig, ip, t0.hdr_len);
	}
}

/* Builds a segment, splits it, checks the packets; returns them in c. */
static void split_and_check(const struct seg *s, uint16_t mss, bool ecn, struct cap *c)
{
	uint8_t *buf = malloc(BUF_MAX);
	size_t len;
	int rc;

	assert_non_null(buf);
	len = build_tso(buf, s, mss, ecn);
	rc = split(buf, len, c);
	assert_int_equal(rc, c->n);
	/* The reference: the segment with valid checksums, as build_tcp makes it. */
	build_tcp(buf, s);
	check_split(buf, len - WB_VNET_HDR_LEN, mss, ecn, c);
	free(buf);
}

/* ---- gathered by wb_gro, each item as written to the device ----------------------------------- */

struct out_item {
	uint8_t *buf; /* the virtio header and the packet */
	size_t len;
	unsigned packets;
};

struct out {
	size_t n;
	struct out_item it[4096];
};

static struct wb_gro *gro_new(void)
{
	struct wb_gro *g = malloc(sizeof(*g));

	assert_non_null(g);
	wb_gro_clear(g);
	return g;
}

static void gro_collect(struct wb_gro *g, struct out *o)
{
	uint64_t packets = 0;

	for (int i = 0; i < g->n; i++) {
		uint8_t vnet[WB_VNET_HDR_LEN];
		struct iovec iov[WB_GRO_IOV];
		struct out_item *it = &o->it[o->n++];
		size_t total = 0;
		int n;

		assert_true(o->n <= sizeof(o->it) / sizeof(o->it[0]));
		n = wb_gro_item_iov(g, i, vnet, iov, &it->packets);
		assert_in_range(n, 2, WB_GRO_IOV);
		assert_ptr_equal(iov[0].iov_base, vnet);
		assert_int_equal(iov[0].iov_len, WB_VNET_HDR_LEN);
		for (int k = 0; k < n; k++) {
			if (k) {
				assert_true((uint8_t *)iov[k].iov_base >= g->arena);
				assert_true((uint8_t *)iov[k].iov_base + iov[k].iov_len <= g->arena + g->used);
			}
			total += iov[k].iov_len;
		}
		assert_int_equal(total, WB_VNET_HDR_LEN + g->items[i].len);
		it->buf = malloc(total);
		assert_non_null(it->buf);
		it->len = 0;
		for (int k = 0; k < n; k++) {
			memcpy(it->buf + it->len, iov[k].iov_base, iov[k].iov_len);
			it->len += iov[k].iov_len;
		}
		packets += it->packets;
	}
	assert_int_equal(packets, g->packets);
}

/* Gathers the packets in order, written and cleared whenever it is full. */
static void gro_feed(struct wb_gro *g, const struct cap *c, struct out *o)
{
	for (size_t i = 0; i < c->n; i++) {
		if (!wb_gro_add(g, c->p[i], c->len[i])) {
			gro_collect(g, o);
			wb_gro_clear(g);
			assert_true(wb_gro_add(g, c->p[i], c->len[i]));
		}
	}
	gro_collect(g, o);
	wb_gro_clear(g);
}

static void out_free(struct out *o)
{
	for (size_t i = 0; i < o->n; i++)
		free(o->it[i].buf);
	o->n = 0;
}

static struct out *out_new(void)
{
	struct out *o = calloc(1, sizeof(*o));

	assert_non_null(o);
	return o;
}

static void assert_vnet_zero(const uint8_t *vnet)
{
	static const uint8_t zero[WB_VNET_HDR_LEN];

	assert_memory_equal(vnet, zero, WB_VNET_HDR_LEN);
}

/*
 * An item that is a run: its virtio header, lengths, and the checksum the
 * kernel completes. Returns the run's IP packet (in it->buf), its checksum
 * completed.
 */
static uint8_t *check_run(struct out_item *it, uint16_t mss)
{
	uint8_t *ip = it->buf + WB_VNET_HDR_LEN;
	size_t len = it->len - WB_VNET_HDR_LEN;
	struct wb_tcp_packet t;
	struct wb_vnet_hdr h;

	wb_vnet_hdr_get(&h, it->buf);
	assert_true(wb_tcp_packet_parse(ip, len, &t));
	assert_int_equal(h.flags, WB_VNET_F_NEEDS_CSUM);
	assert_int_equal(h.gso_type, t.family == 4 ? WB_VNET_GSO_TCPV4 : WB_VNET_GSO_TCPV6);
	assert_int_equal(h.gso_size, mss);
	assert_int_equal(h.hdr_len, t.hdr_len);
	assert_int_equal(h.csum_start, t.ip_len);
	assert_int_equal(h.csum_offset, WB_TCP_CSUM);
	if (t.family == 4) {
		assert_int_equal(wb_get_be16(ip + 2), len);
		assert_true(ref_ip4_ok(ip));
	} else {
		assert_int_equal(wb_get_be16(ip + 4), len - 40);
	}
	/* The field holds the pseudo-header's sum, folded, not complemented. */
	assert_int_equal(wb_get_be16(ip + t.ip_len + WB_TCP_CSUM),
			 ref_fold(ref_pseudo(ip, t.family, 6, (uint32_t)(len - t.ip_len))));
	kernel_finish(ip, len, &h);
	assert_true(ref_l4_ok(ip, len, 6));
	/* Not a GSO packet for the kernel unless it is longer than one segment. */
	assert_true(len - t.hdr_len > mss);
	assert_true((len - t.hdr_len + mss - 1) / mss == it->packets);
	return ip;
}

/*
 * Order: the packets of each connection (keyed by source port), in the
 * items' order with each run cut again at its gso_size, are those given,
 * in the order given.
 */
struct pkt_ref {
	uint32_t key, seq, len;
	const uint8_t *data;
};

static size_t expand(const struct out_item *items, size_t n_items, struct pkt_ref *refs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < n_items; i++) {
		const uint8_t *ip = items[i].buf + WB_VNET_HDR_LEN;
		size_t len = items[i].len - WB_VNET_HDR_LEN;
		struct wb_tcp_packet t;
		struct wb_vnet_hdr h;

		wb_vnet_hdr_get(&h, items[i].buf);
		if (!wb_tcp_packet_parse(ip, len, &t)) {
			assert_int_equal(items[i].packets, 1);
			assert_true(n < max);
			refs[n++] = (struct pkt_ref){ 0x10000u | wb_get_be16(ip + ip_hlen(ip)), 0, (uint32_t)len, ip };
			continue;
		}
		if (items[i].packets == 1) {
			assert_true(n < max);
			refs[n++] = (struct pkt_ref){ wb_get_be16(ip + t.ip_len), t.seq, (uint32_t)(len - t.hdr_len),
						      ip + t.hdr_len };
			continue;
		}
		for (uint32_t off = 0; off < len - t.hdr_len; off += h.gso_size) {
			uint32_t size = (uint32_t)(len - t.hdr_len - off);

			assert_true(n < max);
			refs[n++] = (struct pkt_ref){ wb_get_be16(ip + t.ip_len), t.seq + off,
						      size < h.gso_size ? size : h.gso_size, ip + t.hdr_len + off };
		}
	}
	return n;
}

static void check_order(const struct cap *in, const struct out *o)
{
	struct pkt_ref *want = calloc(in->n + 1, sizeof(*want)), *got = calloc(in->n + 1, sizeof(*got));
	size_t n_got;

	assert_non_null(want);
	assert_non_null(got);
	for (size_t i = 0; i < in->n; i++) {
		uint8_t *buf = malloc(WB_VNET_HDR_LEN + in->len[i]);
		struct out_item one = { buf, WB_VNET_HDR_LEN + in->len[i], 1 };

		assert_non_null(buf);
		memset(buf, 0, WB_VNET_HDR_LEN);
		memcpy(buf + WB_VNET_HDR_LEN, in->p[i], in->len[i]);
		/* Only the references are kept: the data is compared from the input's own copy below. */
		assert_int_equal(expand(&one, 1, &want[i], 1), 1);
		want[i].data = in->p[i] + (want[i].data - (buf + WB_VNET_HDR_LEN));
		free(buf);
	}
	n_got = expand(o->it, o->n, got, in->n + 1);
	assert_int_equal(n_got, in->n);
	/* Per connection, the k-th packet out is the k-th in. */
	for (size_t i = 0; i < n_got; i++) {
		size_t k_got = 0, k_want = 0, j;

		for (j = 0; j < i; j++)
			k_got += got[j].key == got[i].key;
		for (j = 0; j < in->n; j++) {
			if (want[j].key != got[i].key)
				continue;
			if (k_want++ == k_got)
				break;
		}
		assert_true(j < in->n);
		if (want[j].seq != got[i].seq || want[j].len != got[i].len ||
		    memcmp(want[j].data, got[i].data, got[i].len))
			fail_msg("connection %u: packet %zu out is not packet %zu in (seq %u len %u, not seq %u len %u)",
				 got[i].key, k_got, k_got, got[i].seq, got[i].len, want[j].seq, want[j].len);
	}
	free(want);
	free(got);
}

/* ---- 1. the checksum ------------------------------------------------------------------------- */

static uint16_t lib_sum_bytes(const void *p, size_t n)
{
	uint16_t v = wb_csum_fold(wb_csum_add(0, p, n));
	uint8_t b[2];

	/* Host layout: stored as is, it reads right in network order. */
	memcpy(b, &v, 2);
	return (uint16_t)(b[0] << 8 | b[1]);
}

static void test_csum_rfc1071_example(void **state)
{
	/* RFC 1071, 3: the sum of these bytes is dd f2. */
	static const uint8_t bytes[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	(void)state;
	assert_int_equal(lib_sum_bytes(bytes, sizeof(bytes)), 0xddf2);
	assert_int_equal(ref_fold(ref_add(0, bytes, sizeof(bytes))), 0xddf2);
	assert_int_equal(lib_sum_bytes(bytes, 0), 0);
}

static void test_csum_ipv4_header_known(void **state)
{
	/* A header whose checksum is b8 61. */
	uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
			  0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	assert_int_equal(lib_sum_bytes(h, 20), 0xffff);
	h[10] = h[11] = 0;
	wb_csum_store(h + 10, wb_csum_add(0, h, 20));
	assert_int_equal(h[10], 0xb8);
	assert_int_equal(h[11], 0x61);
	/* At an odd address too. */
	{
		uint8_t odd[21];

		memcpy(odd + 1, h, 20);
		odd[11] = odd[12] = 0;
		wb_csum_store(odd + 11, wb_csum_add(0, odd + 1, 20));
		assert_int_equal(odd[11], 0xb8);
		assert_int_equal(odd[12], 0x61);
	}
}

static void test_csum_every_length_and_alignment(void **state)
{
	struct prng r;
	uint8_t buf[300];

	(void)state;
	prng_seed(&r, 1071);
	for (int round = 0; round < 20; round++) {
		fill_random(&r, buf, sizeof(buf));
		for (size_t align = 0; align < 8; align++)
			for (size_t n = 0; n + align <= 280; n++)
				assert_int_equal(lib_sum_bytes(buf + align, n), ref_fold(ref_add(0, buf + align, n)));
	}
	/* Carries: all ones, long; and a sum that folds more than once. */
	{
		uint8_t *ff = malloc(70000);

		assert_non_null(ff);
		memset(ff, 0xff, 70000);
		assert_int_equal(lib_sum_bytes(ff, 70000), 0xffff);
		assert_int_equal(lib_sum_bytes(ff, 69999), ref_fold(ref_add(0, ff, 69999)));
		memset(ff, 0, 70000);
		assert_int_equal(lib_sum_bytes(ff, 70000), 0);
		free(ff);
	}
	/* A start value carried in adds as a number. */
	fill_random(&r, buf, 64);
	assert_int_equal(wb_csum_add(0xffffffffffull, buf, 64), 0xffffffffffull + wb_csum_add(0, buf, 64));
}

static void test_csum_pieces_sum_as_the_whole(void **state)
{
	struct prng r;
	uint8_t buf[2000];

	(void)state;
	prng_seed(&r, 42);
	for (int round = 0; round < 500; round++) {
		size_t n = prng_next(&r) % sizeof(buf), at = 0;
		uint64_t sum = 0;

		fill_random(&r, buf, n);
		/* Even pieces, the last of any length. */
		while (at < n) {
			size_t piece = 2 * (prng_next(&r) % 40);

			if (at + piece > n || !piece)
				piece = n - at;
			sum = wb_csum_add(sum, buf + at, piece);
			at += piece;
		}
		assert_int_equal(wb_csum_fold(sum), wb_csum_fold(wb_csum_add(0, buf, n)));
	}
}

static void test_csum_pseudo_header(void **state)
{
	uint8_t ip4[20], ip6[40];

	(void)state;
	build_ip(ip4, 4, 6, 1500, 1);
	build_ip(ip6, 6, 17, 1500, 1);
	for (uint32_t len = 0; len < 70000; len += 997) {
		uint16_t v;
		uint8_t b[2];

		v = wb_csum_fold(wb_csum_pseudo(ip4, 4, 6, len));
		memcpy(b, &v, 2);
		if (len <= 0xffff)
			assert_int_equal(b[0] << 8 | b[1], ref_fold(ref_pseudo(ip4, 4, 6, len)));
		v = wb_csum_fold(wb_csum_pseudo(ip6, 6, 17, len));
		memcpy(b, &v, 2);
		assert_int_equal(b[0] << 8 | b[1], ref_fold(ref_pseudo(ip6, 6, 17, len)));
	}
}

/* ---- 2. cutting: wb_tso_split ------------------------------------------------------------------ */

static uint8_t *random_payload(uint64_t seed, size_t n)
{
	struct prng r;
	uint8_t *p = malloc(n ? n : 1);

	assert_non_null(p);
	prng_seed(&r, seed);
	fill_random(&r, p, n);
	return p;
}

static void tso_case(int family, size_t payload_len, uint16_t mss, uint8_t flags, bool ecn)
{
	uint8_t *payload = random_payload(payload_len * 31 + mss, payload_len);
	struct seg s = seg_default(family, payload, payload_len);
	struct cap c = { 0 };

	s.flags = flags;
	split_and_check(&s, mss, ecn, &c);
	cap_free(&c);
	free(payload);
}

static void test_tso_ipv4(void **state)
{
	(void)state;
	tso_case(4, 10000, 1400, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_FIN | WB_TCP_CWR, true);
	tso_case(4, 10000, 1400, WB_TCP_ACK | WB_TCP_PSH, false);
	tso_case(4, 65535 - HDR4, 1448, WB_TCP_ACK | WB_TCP_PSH, false);
}

static void test_tso_ipv6(void **state)
{
	(void)state;
	tso_case(6, 10000, 1400, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_FIN | WB_TCP_CWR, true);
	tso_case(6, 10000, 1380, WB_TCP_ACK | WB_TCP_ECE, false);
	tso_case(6, 65535 - TCP_HLEN, 1428, WB_TCP_ACK, false);
}

static void test_tso_payload_a_multiple_of_mss(void **state)
{
	(void)state;
	tso_case(4, 7 * 1400, 1400, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_FIN, false);
	tso_case(6, 7 * 1400, 1400, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_CWR, true);
}

static void test_tso_payload_below_mss_is_one_packet(void **state)
{
	(void)state;
	tso_case(4, 1399, 1400, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_FIN | WB_TCP_CWR, true);
	tso_case(6, 1400, 1400, WB_TCP_ACK | WB_TCP_PSH, false);
	tso_case(4, 1, 1400, WB_TCP_ACK, false);
}

static void test_tso_zero_payload(void **state)
{
	(void)state;
	tso_case(4, 0, 1400, WB_TCP_ACK | WB_TCP_FIN, false);
	tso_case(6, 0, 1400, WB_TCP_ACK | WB_TCP_CWR, true);
}

static void test_tso_mss_below_header_length(void **state)
{
	(void)state;
	/* Each packet's headers are written over the payload of the ones before. */
	tso_case(4, 1000, 8, WB_TCP_ACK | WB_TCP_PSH | WB_TCP_FIN | WB_TCP_CWR, true);
	tso_case(6, 1001, 8, WB_TCP_ACK | WB_TCP_PSH, false);
	tso_case(4, 300, 1, WB_TCP_ACK | WB_TCP_PSH, false);
	tso_case(6, 777, 71, WB_TCP_ACK, false);
	tso_case(6, 777, 72, WB_TCP_ACK, false);
	tso_case(6, 777, 73, WB_TCP_ACK, false);
}

/* A non-GSO packet whose checksum the kernel left to the device: the field holds the pseudo-header's sum. */
static void needs_csum_case(uint8_t *buf, size_t len, uint8_t proto, uint16_t field)
{
	uint8_t *ip = buf + WB_VNET_HDR_LEN;
	size_t ihl = ip_hlen(ip), plen = len - WB_VNET_HDR_LEN;
	uint8_t *before = malloc(len);
	struct cap c = { 0 };
	uint16_t partial = ref_fold(ref_pseudo(ip, ip_family(ip), proto, (uint32_t)(plen - ihl)));

	assert_non_null(before);
	put_vnet(buf, WB_VNET_F_NEEDS_CSUM, WB_VNET_GSO_NONE, 0, 0, (uint16_t)ihl, field);
	wb_put_be16(ip + ihl + field, partial);
	memcpy(before, buf, len);
	assert_int_equal(split(buf, len, &c), 1);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.len[0], plen);
	assert_true(ref_l4_ok(c.p[0], plen, proto));
	/* Nothing else changed. */
	assert_memory_equal(c.p[0], before + WB_VNET_HDR_LEN, ihl + field);
	assert_memory_equal(c.p[0] + ihl + field + 2, before + WB_VNET_HDR_LEN + ihl + field + 2,
			    plen - ihl - field - 2);
	if (proto == 17) {
		/* RFC 768, RFC 8200 8.1: a UDP checksum that computes to zero is sent as ffff. */
		assert_false(c.p[0][ihl + field] == 0 && c.p[0][ihl + field + 1] == 0);
	}
	cap_free(&c);
	free(before);
}

static void test_tso_needs_csum_udp_and_tcp(void **state)
{
	uint8_t *buf = malloc(BUF_MAX), *payload = random_payload(5, 3000);
	size_t len;

	(void)state;
	assert_non_null(buf);
	for (int family = 4; family <= 6; family += 2) {
		for (size_t n = 0; n < 40; n += 13) {
			len = WB_VNET_HDR_LEN + build_udp(buf + WB_VNET_HDR_LEN, family, 5353, payload, 1000 + n);
			needs_csum_case(buf, len, 17, 6);
		}
		{
			struct seg s = seg_default(family, payload, 1201);

			s.flags = WB_TCP_ACK | WB_TCP_PSH;
			len = WB_VNET_HDR_LEN + build_tcp(buf + WB_VNET_HDR_LEN, &s);
			needs_csum_case(buf, len, 6, WB_TCP_CSUM);
		}
	}
	/* Without NEEDS_CSUM the packet goes as it is. */
	{
		struct cap c = { 0 };

		len = WB_VNET_HDR_LEN + build_udp(buf + WB_VNET_HDR_LEN, 4, 1, payload, 99);
		put_vnet(buf, 0, WB_VNET_GSO_NONE, 0, 0, 0, 0);
		buf[WB_VNET_HDR_LEN + 26] ^= 0x55; /* its checksum, wrong: not the device's to fix */
		assert_int_equal(split(buf, len, &c), 1);
		assert_int_equal(c.len[0], len - WB_VNET_HDR_LEN);
		assert_memory_equal(c.p[0], buf + WB_VNET_HDR_LEN, len - WB_VNET_HDR_LEN);
		cap_free(&c);
	}
	free(buf);
	free(payload);
}

/* A UDP packet whose checksum sums to zero: the device must send ffff (zero is "none", and IPv6 drops it). */
static void test_tso_needs_csum_udp_zero_is_sent_as_ffff(void **state)
{
	uint8_t buf[WB_VNET_HDR_LEN + 40 + 8 + 64], payload[64] = { 1, 2, 3 };

	(void)state;
	for (int family = 4; family <= 6; family += 2) {
		uint8_t *ip = buf + WB_VNET_HDR_LEN;
		size_t len = WB_VNET_HDR_LEN + build_udp(ip, family, 4242, payload, sizeof(payload));
		size_t ihl = ip_hlen(ip), plen = len - WB_VNET_HDR_LEN;
		uint16_t w;

		/* The last payload word makes the whole sum ffff: the complement, the checksum, is zero. */
		ip[plen - 2] = ip[plen - 1] = 0;
		ip[ihl + 6] = ip[ihl + 7] = 0;
		w = (uint16_t)~ref_fold(ref_add(ref_pseudo(ip, family, 17, (uint32_t)(plen - ihl)), ip + ihl, plen - ihl));
		wb_put_be16(ip + plen - 2, w);
		assert_int_equal(ref_fold(ref_add(ref_pseudo(ip, family, 17, (uint32_t)(plen - ihl)), ip + ihl,
						  plen - ihl)),
				 0xffff);
		needs_csum_case(buf, len, 17, 6);
	}
}

static void expect_einval(const uint8_t *buf, size_t len, const char *what)
{
	struct cap c = { 0 };
	int rc = split(buf, len, &c);

	if (rc != -EINVAL || c.n)
		fail_msg("%s: %d (%zu emitted), not -EINVAL", what, rc, c.n);
	cap_free(&c);
}

static void test_tso_malformed_refused(void **state)
{
	uint8_t *buf = malloc(BUF_MAX), *bad = malloc(BUF_MAX), *payload = random_payload(9, 5000);
	struct seg s4 = seg_default(4, payload, 5000), s6 = seg_default(6, payload, 5000);
	size_t len4, len6, len;

	(void)state;
	assert_non_null(buf);
	assert_non_null(bad);
	memset(buf, 0, BUF_MAX);
	memset(bad, 0, BUF_MAX);
	len4 = build_tso(buf, &s4, 1400, false);
	/* The well-formed one first: each case below breaks one thing of it. */
	{
		struct cap c = { 0 };

		assert_int_equal(split(buf, len4, &c), 4);
		cap_free(&c);
	}
#define BAD(len_, what, ...)                          \
	do {                                          \
		memcpy(bad, buf, len4);               \
		__VA_ARGS__;                          \
		expect_einval(bad, (len_), what);     \
	} while (0)
	BAD(len4 - 1, "IPv4 total length above the packet's");
	BAD(len4, "IPv4 total length below the packet's", wb_put_be16(bad + 12, (uint16_t)(len4 - 11)));
	BAD(len4, "gso_size 0", put_vnet(bad, 1, WB_VNET_GSO_TCPV4, HDR4, 0, 20, 16));
	BAD(len4, "TCPV6 on IPv4", put_vnet(bad, 1, WB_VNET_GSO_TCPV6, HDR4, 1400, 20, 16));
	BAD(len4, "unknown gso type (UDP)", put_vnet(bad, 1, 3, HDR4, 1400, 20, 16));
	BAD(len4, "unknown gso type (UDP_L4)", put_vnet(bad, 1, 5, HDR4, 1400, 20, 16));
	BAD(len4, "unknown gso type 2", put_vnet(bad, 1, 2, HDR4, 1400, 20, 16));
	BAD(len4, "IPv4 with MF", bad[16] |= 0x20);
	BAD(len4, "IPv4 with a fragment offset", bad[17] = 1);
	BAD(len4, "not TCP", bad[19] = 17);
	BAD(len4, "IPv4 header length 4", bad[10] = 0x44);
	BAD(len4, "TCP data offset 4", bad[10 + 20 + 12] = 4 << 4);
	BAD(len4, "IP version 5", bad[10] = 0x55);
	BAD(5, "shorter than the virtio header");
	BAD(0, "empty");
	BAD(WB_VNET_HDR_LEN, "the virtio header alone");
	BAD(WB_VNET_HDR_LEN + 30, "a short packet", wb_put_be16(bad + 12, 30));
	BAD(WB_VNET_HDR_LEN + 19, "shorter than an IPv4 header", wb_put_be16(bad + 12, 19));
	{
		/* A TCP header that would run past the packet: data offset 15 on a 20-byte TCP packet. */
		memcpy(bad, buf, len4);
		wb_put_be16(bad + 12, 40);
		bad[10 + 20 + 12] = 15 << 4;
		expect_einval(bad, WB_VNET_HDR_LEN + 40, "TCP header past the packet");
	}
	/* Not GSO, NEEDS_CSUM: the place of the checksum past the packet. */
	len = WB_VNET_HDR_LEN + 100;
	BAD(len, "csum_start at the end", wb_put_be16(bad + 12, 100); put_vnet(bad, 1, 0, 0, 0, 100, 0));
	BAD(len, "csum_start past the end", wb_put_be16(bad + 12, 100); put_vnet(bad, 1, 0, 0, 0, 5000, 0));
	BAD(len, "csum_offset past the end", wb_put_be16(bad + 12, 100); put_vnet(bad, 1, 0, 0, 0, 20, 79));
	BAD(len, "csum_offset huge", wb_put_be16(bad + 12, 100); put_vnet(bad, 1, 0, 0, 0, 20, 0xffff));
	BAD(len, "csum_start huge", wb_put_be16(bad + 12, 100); put_vnet(bad, 1, 0, 0, 0, 0xffff, 0xffff));
	{
		/* The last place that fits is taken. */
		struct cap c = { 0 };

		memcpy(bad, buf, len);
		wb_put_be16(bad + 12, 100);
		put_vnet(bad, 1, 0, 0, 0, 20, 78);
		assert_int_equal(split(bad, len, &c), 1);
		cap_free(&c);
	}
#undef BAD
	/* IPv6. */
	len6 = build_tso(buf, &s6, 1400, false);
	memcpy(bad, buf, len6);
	put_vnet(bad, 1, WB_VNET_GSO_TCPV4, HDR6, 1400, 40, 16);
	expect_einval(bad, len6, "TCPV4 on IPv6");
	put_vnet(bad, 1, WB_VNET_GSO_TCPV4 | WB_VNET_GSO_ECN, HDR6, 1400, 40, 16);
	expect_einval(bad, len6, "TCPV4|ECN on IPv6");
	memcpy(bad, buf, len6);
	expect_einval(bad, len6 + 1, "IPv6 payload length below the packet's");
	expect_einval(bad, len6 - 1, "IPv6 payload length above the packet's");
	bad[WB_VNET_HDR_LEN + 6] = 0; /* a hop-by-hop header first */
	expect_einval(bad, len6, "IPv6 with an extension header first");
	memcpy(bad, buf, len6);
	put_vnet(bad, 1, WB_VNET_GSO_TCPV6, HDR6, 0, 40, 16);
	expect_einval(bad, len6, "IPv6 gso_size 0");
	free(buf);
	free(bad);
	free(payload);
}

/* ---- 3. gathering: wb_gro -------------------------------------------------------------------- */

/* The segment of test 2 as its packets: cut, gathered again into one item. */
static void gro_one_segment(int family, size_t payload_len, uint16_t mss)
{
	uint8_t *payload = random_payload(family * 1000 + payload_len, payload_len);
	struct seg s = seg_default(family, payload, payload_len);
	struct wb_gro *g = gro_new();
	struct out *o = out_new();
	struct cap c = { 0 };
	uint8_t *orig = malloc(BUF_MAX), *ip;
	size_t orig_len;

	assert_non_null(orig);
	s.flags = WB_TCP_ACK | WB_TCP_PSH;
	split_and_check(&s, mss, false, &c);
	orig_len = build_tcp(orig, &s);
	gro_feed(g, &c, o);
	assert_int_equal(o->n, 1);
	assert_int_equal(o->it[0].packets, c.n);
	assert_int_equal(o->it[0].len, WB_VNET_HDR_LEN + orig_len);
	ip = check_run(&o->it[0], mss);
	assert_memory_equal(ip + seg_hdr(family), payload, payload_len);
	/* Once the kernel has completed it, the very segment: PSH kept on the run, the checksum the same. */
	assert_memory_equal(ip, orig, orig_len);
	check_order(&c, o);
	out_free(o);
	cap_free(&c);
	free(orig);
	free(o);
	free(g);
	free(payload);
}

static void test_gro_joins_a_split_segment(void **state)
{
	(void)state;
	gro_one_segment(4, 10000, 1400);
	gro_one_segment(6, 10000, 1400);
	gro_one_segment(4, 7 * 1400, 1400);
	gro_one_segment(6, 1401, 1400);
}

static void test_gro_single_packet_has_zero_header(void **state)
{
	uint8_t ip[200], payload[100] = { 9 };
	struct seg s = seg_default(4, payload, sizeof(payload));
	struct wb_gro *g = gro_new();
	struct out *o = out_new();
	size_t len = build_tcp(ip, &s);

	(void)state;
	assert_true(wb_gro_add(g, ip, len));
	gro_collect(g, o);
	assert_int_equal(o->n, 1);
	assert_int_equal(o->it[0].packets, 1);
	assert_vnet_zero(o->it[0].buf);
	assert_int_equal(o->it[0].len, WB_VNET_HDR_LEN + len);
	assert_memory_equal(o->it[0].buf + WB_VNET_HDR_LEN, ip, len);
	out_free(o);
	free(o);
	free(g);
}

/* Packets of several connections, built one by one. */
struct conn {
	struct seg s;
	uint8_t data[100000];
	size_t sent;
};

static void conn_init(struct conn *k, int family, uint16_t sport, uint64_t seed)
{
	struct prng r;

	k->s = seg_default(family, k->data, 0);
	k->s.sport = sport;
	k->s.seq = (uint32_t)(seed * 0x9e3779b9u);
	prng_seed(&r, seed);
	fill_random(&r, k->data, sizeof(k->data));
	k->sent = 0;
}

/* The next n bytes of the connection, as a packet with these flags, into c. */
static void conn_send(struct conn *k, struct cap *c, size_t n, uint8_t flags)
{
	static uint8_t ip[BUF_MAX];
	struct seg s = k->s;
	size_t len;

	assert_true(k->sent + n <= sizeof(k->data));
	s.payload = k->data + k->sent;
	s.payload_len = n;
	s.seq = k->s.seq + (uint32_t)k->sent;
	s.flags = flags;
	s.id = (uint16_t)(k->s.id + k->sent);
	len = build_tcp(ip, &s);
	cap_push(c, ip, len);
	k->sent += n;
}

static void gro_run(const struct cap *c, struct out *o)
{
	struct wb_gro *g = gro_new();

	gro_feed(g, c, o);
	free(g);
	check_order(c, o);
}

static void test_gro_two_connections_interleaved(void **state)
{
	static struct conn a, b;
	struct out *o = out_new();
	struct cap c = { 0 };

	(void)state;
	conn_init(&a, 4, 1000, 1);
	conn_init(&b, 6, 2000, 2);
	for (int i = 0; i < 10; i++) {
		conn_send(&a, &c, 1000, WB_TCP_ACK | (i == 9 ? WB_TCP_PSH : 0));
		conn_send(&b, &c, 1200, WB_TCP_ACK);
	}
	gro_run(&c, o);
	assert_int_equal(o->n, 2);
	assert_int_equal(o->it[0].packets, 10);
	assert_int_equal(o->it[1].packets, 10);
	check_run(&o->it[0], 1000);
	check_run(&o->it[1], 1200);
	assert_int_equal(o->it[0].buf[WB_VNET_HDR_LEN + 20 + WB_TCP_FLAGS], WB_TCP_ACK | WB_TCP_PSH);
	assert_int_equal(o->it[1].buf[WB_VNET_HDR_LEN + 40 + WB_TCP_FLAGS], WB_TCP_ACK);
	assert_memory_equal(o->it[0].buf + WB_VNET_HDR_LEN + HDR4, a.data, 10000);
	assert_memory_equal(o->it[1].buf + WB_VNET_HDR_LEN + HDR6, b.data, 12000);
	out_free(o);
	cap_free(&c);
	free(o);
}

/* One connection's packets, one of which (at index `at`) breaks the run: how many items, and the order kept. */
static void breaker_case(const char *what, void (*breaker)(struct conn *, struct cap *), size_t expect_items)
{
	static struct conn a, b;
	struct out *o = out_new();
	struct cap c = { 0 };

	conn_init(&a, 4, 1000, 3);
	conn_init(&b, 6, 2000, 4);
	for (int i = 0; i < 3; i++) {
		conn_send(&a, &c, 1000, WB_TCP_ACK);
		conn_send(&b, &c, 900, WB_TCP_ACK);
	}
	breaker(&a, &c);
	for (int i = 0; i < 3; i++) {
		conn_send(&a, &c, 1000, WB_TCP_ACK);
		conn_send(&b, &c, 900, WB_TCP_ACK);
	}
	gro_run(&c, o);
	if (o->n != expect_items)
		fail_msg("%s: %zu items, not %zu", what, o->n, expect_items);
	/* The other connection is one run all along. */
	for (size_t i = 0, runs = 0; i < o->n; i++) {
		const uint8_t *ip = o->it[i].buf + WB_VNET_HDR_LEN;

		if (ip_family(ip) == 6) {
			assert_int_equal(o->it[i].packets, 6);
			assert_int_equal(++runs, 1);
		}
	}
	out_free(o);
	cap_free(&c);
	free(o);
}

static void break_out_of_sequence(struct conn *k, struct cap *c)
{
	(void)c;
	k->sent += 1000; /* a packet lost */
}

static void break_bad_checksum(struct conn *k, struct cap *c)
{
	conn_send(k, c, 1000, WB_TCP_ACK);
	c->p[c->n - 1][c->len[c->n - 1] - 1] ^= 1;
}

static void break_bad_ip_checksum(struct conn *k, struct cap *c)
{
	conn_send(k, c, 1000, WB_TCP_ACK);
	c->p[c->n - 1][10] ^= 1;
	/* The TCP checksum does not cover it: still valid. */
	assert_true(ref_l4_ok(c->p[c->n - 1], c->len[c->n - 1], 6));
}

static void break_syn(struct conn *k, struct cap *c)
{
	conn_send(k, c, 0, WB_TCP_SYN | WB_TCP_ACK);
}

static void break_pure_ack(struct conn *k, struct cap *c)
{
	/* The same headers, no payload: a window probe's answer, a duplicate acknowledgment. */
	conn_send(k, c, 0, WB_TCP_ACK);
}

static void break_rst(struct conn *k, struct cap *c)
{
	conn_send(k, c, 0, WB_TCP_RST | WB_TCP_ACK);
}

static void break_data_with_ece(struct conn *k, struct cap *c)
{
	conn_send(k, c, 1000, WB_TCP_ACK | WB_TCP_ECE);
}

static void break_options(struct conn *k, struct cap *c)
{
	k->s.tsval++;
	conn_send(k, c, 1000, WB_TCP_ACK);
}

static void break_ack(struct conn *k, struct cap *c)
{
	k->s.ack += 1000;
	conn_send(k, c, 1000, WB_TCP_ACK);
}

static void break_window(struct conn *k, struct cap *c)
{
	k->s.window++;
	conn_send(k, c, 1000, WB_TCP_ACK);
}

static void break_psh(struct conn *k, struct cap *c)
{
	conn_send(k, c, 1000, WB_TCP_ACK | WB_TCP_PSH);
}

static void break_short(struct conn *k, struct cap *c)
{
	conn_send(k, c, 999, WB_TCP_ACK);
}

static void break_long(struct conn *k, struct cap *c)
{
	conn_send(k, c, 1001, WB_TCP_ACK);
}

static void break_udp(struct conn *k, struct cap *c)
{
	uint8_t ip[200];

	(void)k;
	cap_push(c, ip, build_udp(ip, 4, 1000, (const uint8_t *)"same ports as the TCP connection", 32));
}

static void test_gro_breakers_start_new_items_in_order(void **state)
{
	(void)state;
	/* a: 3 packets, the breaker, 3 packets; b (IPv6) one run of 6. */
	breaker_case("out of sequence", break_out_of_sequence, 3);
	breaker_case("bad TCP checksum", break_bad_checksum, 4);
	breaker_case("bad IPv4 checksum", break_bad_ip_checksum, 4);
	breaker_case("SYN", break_syn, 4);
	breaker_case("pure ACK", break_pure_ack, 4);
	breaker_case("RST", break_rst, 4);
	breaker_case("ECE", break_data_with_ece, 4);
	breaker_case("other options", break_options, 3);
	breaker_case("other ack", break_ack, 3);
	breaker_case("other window", break_window, 3);
	/* PSH and a shorter packet end a run: they join it, the next begins one. */
	breaker_case("PSH", break_psh, 3);
	breaker_case("shorter", break_short, 3);
	/* A longer one begins a run of its own; the next, shorter, ends it. */
	breaker_case("longer", break_long, 4);
	breaker_case("UDP between", break_udp, 3);
}

static void test_gro_ttl_tos_df_differ(void **state)
{
	static struct conn a;
	size_t offs[] = { 1, 6, 8 }; /* TOS, DF, TTL */

	(void)state;
	for (size_t k = 0; k < 3; k++) {
		struct out *o = out_new();
		struct cap c = { 0 };

		conn_init(&a, 4, 1000, 5);
		conn_send(&a, &c, 1000, WB_TCP_ACK);
		conn_send(&a, &c, 1000, WB_TCP_ACK);
		c.p[1][offs[k]] ^= offs[k] == 6 ? 0x40 : 0x01;
		c.p[1][10] = c.p[1][11] = 0;
		ref_put_csum(c.p[1] + 10, ref_add(0, c.p[1], 20));
		gro_run(&c, o);
		assert_int_equal(o->n, 2);
		out_free(o);
		cap_free(&c);
		free(o);
	}
}

static void test_gro_udp_passes_as_its_own_item(void **state)
{
	uint8_t ip[1500], payload[1000];
	struct wb_gro *g = gro_new();
	struct out *o = out_new();

	(void)state;
	memset(payload, 0xab, sizeof(payload));
	for (int family = 4; family <= 6; family += 2) {
		size_t len = build_udp(ip, family, 99, payload, sizeof(payload));

		assert_true(wb_gro_add(g, ip, len));
		assert_true(wb_gro_add(g, ip, len));
		gro_collect(g, o);
		wb_gro_clear(g);
		assert_int_equal(o->n, 2);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(o->it[i].packets, 1);
			assert_vnet_zero(o->it[i].buf);
			assert_int_equal(o->it[i].len, WB_VNET_HDR_LEN + len);
			assert_memory_equal(o->it[i].buf + WB_VNET_HDR_LEN, ip, len);
		}
		out_free(o);
	}
	free(o);
	free(g);
}

static void test_gro_full_then_cleared(void **state)
{
	static uint8_t big[60000], zero[60000];
	static struct conn a;
	struct wb_gro *g = gro_new();
	struct cap c = { 0 };
	uint8_t small[100];
	size_t big_len, small_len;

	(void)state;
	big_len = build_udp(big, 4, 1, zero, 60000 - 28);
	small_len = build_udp(small, 4, 2, zero, 50);
	/* The arena: three of 60000 bytes fit, not a fourth; a small one still does. */
	for (int i = 0; i < 3; i++)
		assert_true(wb_gro_add(g, big, big_len));
	assert_false(wb_gro_add(g, big, big_len));
	assert_int_equal(g->n, 3);
	assert_int_equal(g->packets, 3);
	assert_true(wb_gro_add(g, small, small_len));
	wb_gro_clear(g);
	assert_int_equal(g->n, 0);
	/* To its last byte: 3 of 60000 and one of the rest fill it exactly; then not a byte more. */
	{
		static uint8_t rest[WB_GRO_ARENA - 3 * 60000];

		for (int i = 0; i < 3; i++)
			assert_true(wb_gro_add(g, big, big_len));
		assert_true(wb_gro_add(g, rest, build_udp(rest, 4, 3, zero, sizeof(rest) - 28)));
		assert_int_equal(g->used, WB_GRO_ARENA);
		assert_false(wb_gro_add(g, small, 1));
		wb_gro_clear(g);
	}
	assert_true(wb_gro_add(g, big, big_len));
	wb_gro_clear(g);

	/* The items: WB_GRO_ITEMS; a packet that joins one still goes in, another not. */
	conn_init(&a, 4, 1000, 6);
	conn_send(&a, &c, 1000, WB_TCP_ACK);
	conn_send(&a, &c, 1000, WB_TCP_ACK);
	for (int i = 0; i < WB_GRO_ITEMS - 1; i++)
		assert_true(wb_gro_add(g, small, small_len));
	assert_true(wb_gro_add(g, c.p[0], c.len[0]));
	assert_int_equal(g->n, WB_GRO_ITEMS);
	assert_false(wb_gro_add(g, small, small_len));
	assert_true(wb_gro_add(g, c.p[1], c.len[1]));
	assert_false(wb_gro_add(g, c.p[0], c.len[0]));
	assert_int_equal(g->n, WB_GRO_ITEMS);
	assert_int_equal(g->packets, WB_GRO_ITEMS + 1);
	wb_gro_clear(g);
	assert_true(wb_gro_add(g, small, small_len));
	assert_int_equal(g->n, 1);
	assert_int_equal(g->packets, 1);
	cap_free(&c);
	free(g);
}

/* Consecutive full packets: runs of at most `per_run`. */
static void limit_case(int family, size_t mss, size_t packets, size_t per_run)
{
	static struct conn a;
	struct out *o = out_new();
	struct cap c = { 0 };

	conn_init(&a, family, 1000, 7);
	for (size_t i = 0; i < packets; i++)
		conn_send(&a, &c, mss, WB_TCP_ACK);
	gro_run(&c, o);
	assert_int_equal(o->n, (packets + per_run - 1) / per_run);
	for (size_t i = 0; i < o->n; i++) {
		size_t n = i + 1 < o->n ? per_run : packets - i * per_run;
		uint8_t *ip;

		assert_int_equal(o->it[i].packets, n);
		assert_true(o->it[i].len - WB_VNET_HDR_LEN <= 65535);
		if (n > 1) {
			ip = check_run(&o->it[i], (uint16_t)mss);
			assert_memory_equal(ip + seg_hdr(family), a.data + i * per_run * mss, n * mss);
		}
	}
	out_free(o);
	cap_free(&c);
	free(o);
}

static void test_gro_segment_and_length_limits(void **state)
{
	(void)state;
	/* 48 packets a run. */
	limit_case(4, 1000, 60, WB_GRO_SEGMENTS);
	limit_case(6, 100, 200, WB_GRO_SEGMENTS);
	/* 65535 bytes: 46 packets of 1400 and the headers. */
	limit_case(4, 1400, 70, (65535 - HDR4) / 1400);
	limit_case(6, 1400, 50, (65535 - HDR6) / 1400);
	/* Exactly 65535: 11 packets of 5953 (and 52 bytes of headers) fit, a twelfth not. */
	limit_case(4, 5953, 12, 11);
	limit_case(4, 5953, 11, 11);
	limit_case(6, 5953, 12, 10);
}

/* ---- 4. the round trip ----------------------------------------------------------------------- */

/* The runs a greedy gatherer makes of full packets of mss and a last of the rest. */
static size_t expected_runs(size_t hdr, size_t payload, size_t mss, size_t **sizes_out)
{
	size_t n = payload ? (payload + mss - 1) / mss : 1, runs = 0;
	size_t *sizes = calloc(n, sizeof(*sizes));

	assert_non_null(sizes);
	for (size_t i = 0; i < n;) {
		size_t len = hdr + (payload ? (payload - i * mss < mss ? payload - i * mss : mss) : 0), k = 1;

		/* A packet without payload is never joined. */
		while (payload && i + k < n && k < WB_GRO_SEGMENTS) {
			size_t size = payload - (i + k) * mss < mss ? payload - (i + k) * mss : mss;

			if (len + size > 65535)
				break;
			len += size;
			k++;
		}
		sizes[runs++] = k;
		i += k;
	}
	*sizes_out = sizes;
	return runs;
}

static void test_round_trip_random(void **state)
{
	struct prng r;
	uint8_t *payload = malloc(65535), *orig = malloc(BUF_MAX), *buf = malloc(BUF_MAX);
	struct wb_gro *g = gro_new();
	struct out *o = out_new();

	(void)state;
	assert_non_null(payload);
	assert_non_null(orig);
	assert_non_null(buf);
	prng_seed(&r, 20240601);
	for (int iter = 0; iter < 400; iter++) {
		int family = prng_next(&r) % 2 ? 4 : 6;
		size_t hdr = seg_hdr(family), max = 65535 - (family == 4 ? hdr : TCP_HLEN), payload_len, orig_len;
		uint16_t mss;
		struct seg s;
		struct cap c = { 0 };
		size_t *sizes, runs, pkt = 0, off = 0;

		switch (prng_next(&r) % 4) {
		case 0:
			mss = (uint16_t)(1 + prng_next(&r) % 80);
			payload_len = prng_next(&r) % (mss * 300u);
			break;
		case 1:
			mss = (uint16_t)(500 + prng_next(&r) % 1000);
			payload_len = prng_next(&r) % 3 ? prng_next(&r) % (max + 1) : max - prng_next(&r) % 50;
			break;
		case 2:
			mss = (uint16_t)(1 + prng_next(&r) % 9000);
			payload_len = prng_next(&r) % 5 ? prng_next(&r) % (4 * mss + 1) : (size_t)mss * (1 + prng_next(&r) % 4);
			break;
		default:
			mss = (uint16_t)(1 + prng_next(&r) % 65535);
			payload_len = prng_next(&r) % (max + 1);
			break;
		}
		if (payload_len > max)
			payload_len = max;
		fill_random(&r, payload, payload_len);
		s = seg_default(family, payload, payload_len);
		s.seq = (uint32_t)prng_next(&r);
		s.ack = (uint32_t)prng_next(&r);
		s.id = (uint16_t)prng_next(&r);
		s.tsval = (uint32_t)prng_next(&r);
		s.window = (uint16_t)prng_next(&r);
		s.sport = (uint16_t)prng_next(&r);
		s.flags = WB_TCP_ACK | (prng_next(&r) % 2 ? WB_TCP_PSH : 0);
		split_and_check(&s, mss, false, &c);
		orig_len = build_tcp(orig, &s);
		gro_feed(g, &c, o);
		runs = expected_runs(hdr, payload_len, mss, &sizes);
		if (o->n != runs)
			fail_msg("iteration %d: IPv%d, payload %zu, mss %u: %zu items, not %zu", iter, family,
				 payload_len, mss, o->n, runs);
		for (size_t i = 0; i < o->n; i++) {
			struct out_item *it = &o->it[i];
			uint8_t *ip = it->buf + WB_VNET_HDR_LEN;
			size_t len = it->len - WB_VNET_HDR_LEN;
			struct cap again = { 0 };
			uint8_t flags = s.flags;

			assert_int_equal(it->packets, sizes[i]);
			if (it->packets == 1) {
				assert_vnet_zero(it->buf);
				assert_int_equal(len, c.len[pkt]);
				assert_memory_equal(ip, c.p[pkt], len);
			} else {
				/* Cut again as the kernel would, the very packets of the first cut. */
				memcpy(buf, it->buf, it->len);
				assert_int_equal(split(buf, it->len, &again), it->packets);
				for (size_t k = 0; k < again.n; k++) {
					assert_int_equal(again.len[k], c.len[pkt + k]);
					assert_memory_equal(again.p[k], c.p[pkt + k], again.len[k]);
				}
				cap_free(&again);
				ip = check_run(it, mss);
			}
			/* The original's headers but for what legitimately changes; then its payload's slice. */
			assert_headers_same(orig, ip, hdr);
			assert_int_equal(wb_get_be32(ip + hdr - TCP_HLEN + WB_TCP_SEQ), (uint32_t)(s.seq + off));
			if (family == 4)
				assert_int_equal(wb_get_be16(ip + 4), (uint16_t)(s.id + pkt));
			if (i + 1 < o->n)
				flags &= (uint8_t)~WB_TCP_PSH;
			assert_int_equal(ip[hdr - TCP_HLEN + WB_TCP_FLAGS], flags);
			assert_memory_equal(ip + hdr, payload + off, len - hdr);
			pkt += it->packets;
			off += len - hdr;
		}
		assert_int_equal(pkt, c.n);
		assert_int_equal(off, payload_len);
		if (payload_len && c.n <= WB_GRO_SEGMENTS && orig_len <= 65535 && c.n > 1) {
			/* One run: the segment itself once the kernel completes its checksum. */
			assert_int_equal(o->n, 1);
			assert_memory_equal(o->it[0].buf + WB_VNET_HDR_LEN, orig, orig_len);
		}
		free(sizes);
		out_free(o);
		cap_free(&c);
	}
	free(o);
	free(g);
	free(buf);
	free(orig);
	free(payload);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_csum_rfc1071_example),
		cmocka_unit_test(test_csum_ipv4_header_known),
		cmocka_unit_test(test_csum_every_length_and_alignment),
		cmocka_unit_test(test_csum_pieces_sum_as_the_whole),
		cmocka_unit_test(test_csum_pseudo_header),
		cmocka_unit_test(test_tso_ipv4),
		cmocka_unit_test(test_tso_ipv6),
		cmocka_unit_test(test_tso_payload_a_multiple_of_mss),
		cmocka_unit_test(test_tso_payload_below_mss_is_one_packet),
		cmocka_unit_test(test_tso_zero_payload),
		cmocka_unit_test(test_tso_mss_below_header_length),
		cmocka_unit_test(test_tso_needs_csum_udp_and_tcp),
		cmocka_unit_test(test_tso_needs_csum_udp_zero_is_sent_as_ffff),
		cmocka_unit_test(test_tso_malformed_refused),
		cmocka_unit_test(test_gro_joins_a_split_segment),
		cmocka_unit_test(test_gro_single_packet_has_zero_header),
		cmocka_unit_test(test_gro_two_connections_interleaved),
		cmocka_unit_test(test_gro_breakers_start_new_items_in_order),
		cmocka_unit_test(test_gro_ttl_tos_df_differ),
		cmocka_unit_test(test_gro_udp_passes_as_its_own_item),
		cmocka_unit_test(test_gro_full_then_cleared),
		cmocka_unit_test(test_gro_segment_and_length_limits),
		cmocka_unit_test(test_round_trip_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
