// SPDX-License-Identifier: MIT
#include "frame.h"

#include <errno.h>
#include <string.h>

#include "byteorder.h"
#include "varint.h"

/* An uplink info frame's name follows its fixed part. */
#define UPLINK_INFO_NAME ((size_t)WB_FRAME_LEN(wb_frame_uplink_info))

void wb_frame_put_data_header_of(uint8_t *p, enum wb_frame_type type, uint64_t dsn, size_t len)
{
	p[0] = (uint8_t)type;
	wb_put_le32(WB_FRAME_FIELD(p, wb_frame_data, dsn), (uint32_t)dsn);
	wb_put_le16(WB_FRAME_FIELD(p, wb_frame_data, len), (uint16_t)len);
}

uint64_t wb_dsn_expand(uint32_t dsn32, uint64_t expected)
{
	/* RFC 9000's packet number decoding, for a 32-bit window. */
	const uint64_t win = 1ULL << 32, half = win / 2;
	uint64_t candidate = (expected & ~(win - 1)) | dsn32;

	if (candidate + half <= expected && candidate < UINT64_MAX - win)
		return candidate + win;
	if (candidate > expected + half && candidate >= win)
		return candidate - win;
	return candidate;
}

size_t wb_frame_ack_len(const struct wb_ack *a)
{
	size_t n = 1 + wb_varint_len(a->r[0].hi) + wb_varint_len(a->delay_us) + wb_varint_len(a->n - 1) +
		   wb_varint_len(a->r[0].hi - a->r[0].lo);

	for (unsigned i = 1; i < a->n; i++)
		n += wb_varint_len(a->r[i - 1].lo - a->r[i].hi - 2) + wb_varint_len(a->r[i].hi - a->r[i].lo);
	return n;
}

size_t wb_frame_put_ack(uint8_t *p, const struct wb_ack *a)
{
	size_t n = 1;

	p[0] = WB_FRAME_ACK;
	n += wb_varint_put(p + n, a->r[0].hi);
	n += wb_varint_put(p + n, a->delay_us);
	n += wb_varint_put(p + n, a->n - 1);
	n += wb_varint_put(p + n, a->r[0].hi - a->r[0].lo);
	for (unsigned i = 1; i < a->n; i++) {
		n += wb_varint_put(p + n, a->r[i - 1].lo - a->r[i].hi - 2);
		n += wb_varint_put(p + n, a->r[i].hi - a->r[i].lo);
	}
	return n;
}

/* The gap before each held range: from cum (itself missing), then from the end of the previous range. */
static uint64_t sack_gap(const struct wb_bond_ack *a, unsigned i)
{
	return i ? a->s[i].lo - a->s[i - 1].hi - 2 : a->s[0].lo - a->cum - 1;
}

size_t wb_frame_bond_ack_len(const struct wb_bond_ack *a)
{
	size_t n = 1 + wb_varint_len(a->cum) + wb_varint_len(a->rwnd) + wb_varint_len(a->n);

	for (unsigned i = 0; i < a->n; i++)
		n += wb_varint_len(sack_gap(a, i)) + wb_varint_len(a->s[i].hi - a->s[i].lo);
	return n;
}

size_t wb_frame_put_bond_ack(uint8_t *p, const struct wb_bond_ack *a)
{
	size_t n = 1;

	p[0] = WB_FRAME_BOND_ACK;
	n += wb_varint_put(p + n, a->cum);
	n += wb_varint_put(p + n, a->rwnd);
	n += wb_varint_put(p + n, a->n);
	for (unsigned i = 0; i < a->n; i++) {
		n += wb_varint_put(p + n, sack_gap(a, i));
		n += wb_varint_put(p + n, a->s[i].hi - a->s[i].lo);
	}
	return n;
}

size_t wb_frame_put_probe(uint8_t *p, const struct wb_probe *probe)
{
	p[0] = WB_FRAME_PROBE;
	wb_put_le32(WB_FRAME_FIELD(p, wb_frame_probe, seq), probe->seq);
	wb_put_le64(WB_FRAME_FIELD(p, wb_frame_probe, sent_ns), probe->sent_ns);
	wb_put_le64(WB_FRAME_FIELD(p, wb_frame_probe, tx_packets), probe->tx_packets);
	return WB_FRAME_PROBE_LEN;
}

size_t wb_frame_put_probe_ack(uint8_t *p, const struct wb_probe_ack *ack)
{
	p[0] = WB_FRAME_PROBE_ACK;
	wb_put_le32(WB_FRAME_FIELD(p, wb_frame_probe_ack, seq), ack->seq);
	wb_put_le64(WB_FRAME_FIELD(p, wb_frame_probe_ack, sent_ns), ack->sent_ns);
	wb_put_le64(WB_FRAME_FIELD(p, wb_frame_probe_ack, tx_packets), ack->tx_packets);
	wb_put_le64(WB_FRAME_FIELD(p, wb_frame_probe_ack, rx_packets), ack->rx_packets);
	return WB_FRAME_PROBE_ACK_LEN;
}

size_t wb_frame_put_pmtu_probe(uint8_t *p, size_t len)
{
	p[0] = WB_FRAME_PMTU_PROBE;
	memset(p + 1, WB_FRAME_PADDING, len - 1);
	return len;
}

size_t wb_frame_put_pmtu_ack(uint8_t *p, uint16_t size)
{
	p[0] = WB_FRAME_PMTU_ACK;
	wb_put_le16(WB_FRAME_FIELD(p, wb_frame_pmtu_ack, size), size);
	return WB_FRAME_PMTU_ACK_LEN;
}

size_t wb_frame_put_close(uint8_t *p, uint8_t reason)
{
	p[0] = WB_FRAME_CLOSE;
	*WB_FRAME_FIELD(p, wb_frame_close, reason) = reason;
	return WB_FRAME_CLOSE_LEN;
}

size_t wb_frame_put_uplink_info(uint8_t *p, const struct wb_uplink_info *info)
{
	size_t n = strnlen(info->name, WB_UPLINK_NAME_MAX);

	p[0] = WB_FRAME_UPLINK_INFO;
	*WB_FRAME_FIELD(p, wb_frame_uplink_info, flags) = info->flags;
	wb_put_le16(WB_FRAME_FIELD(p, wb_frame_uplink_info, weight), info->weight);
	*WB_FRAME_FIELD(p, wb_frame_uplink_info, name_len) = (uint8_t)n;
	memcpy(p + UPLINK_INFO_NAME, info->name, n);
	return UPLINK_INFO_NAME + n;
}

/* A name of the configuration's character set; a NUL is not one of them, so memchr is not needed. */
static bool name_ok(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!p[i] || !strchr(WB_NAME_CHARS, p[i]))
			return false;
	return true;
}

static int parse_uplink_info(const uint8_t *p, size_t avail, struct wb_frame *f, size_t *used)
{
	size_t n;

	if (avail < UPLINK_INFO_NAME)
		return -EBADMSG;
	n = *WB_FRAME_FIELD(p, wb_frame_uplink_info, name_len);
	if (!n || n > WB_UPLINK_NAME_MAX || n > avail - UPLINK_INFO_NAME || !name_ok(p + UPLINK_INFO_NAME, n))
		return -EBADMSG;
	f->uplink_info.flags = *WB_FRAME_FIELD(p, wb_frame_uplink_info, flags);
	f->uplink_info.weight = wb_get_le16(WB_FRAME_FIELD(p, wb_frame_uplink_info, weight));
	memcpy(f->uplink_info.name, p + UPLINK_INFO_NAME, n);
	f->uplink_info.name[n] = 0;
	*used = UPLINK_INFO_NAME + n;
	return 1;
}

static void parse_probe(const uint8_t *p, struct wb_probe *probe)
{
	probe->seq = wb_get_le32(WB_FRAME_FIELD(p, wb_frame_probe, seq));
	probe->sent_ns = wb_get_le64(WB_FRAME_FIELD(p, wb_frame_probe, sent_ns));
	probe->tx_packets = wb_get_le64(WB_FRAME_FIELD(p, wb_frame_probe, tx_packets));
}

static void parse_probe_ack(const uint8_t *p, struct wb_probe_ack *ack)
{
	ack->seq = wb_get_le32(WB_FRAME_FIELD(p, wb_frame_probe_ack, seq));
	ack->sent_ns = wb_get_le64(WB_FRAME_FIELD(p, wb_frame_probe_ack, sent_ns));
	ack->tx_packets = wb_get_le64(WB_FRAME_FIELD(p, wb_frame_probe_ack, tx_packets));
	ack->rx_packets = wb_get_le64(WB_FRAME_FIELD(p, wb_frame_probe_ack, rx_packets));
}

static int parse_data(const uint8_t *p, size_t avail, struct wb_frame *f, size_t *used)
{
	size_t len;

	if (avail < WB_FRAME_DATA_HEADER)
		return -EBADMSG;
	len = wb_get_le16(WB_FRAME_FIELD(p, wb_frame_data, len));
	if (!len || len > avail - WB_FRAME_DATA_HEADER)
		return -EBADMSG;
	f->data.dsn = wb_get_le32(WB_FRAME_FIELD(p, wb_frame_data, dsn));
	f->data.data = p + WB_FRAME_DATA_HEADER;
	f->data.len = len;
	*used = WB_FRAME_DATA_HEADER + len;
	return 1;
}

/* Ranges from the largest down; every subtraction is checked, so nothing runs below zero. */
static int parse_ack(const uint8_t *p, const uint8_t *end, struct wb_frame *f, size_t *used)
{
	const uint8_t *q = p + 1;
	struct wb_ack *a = &f->ack;
	uint64_t largest, count, first, gap, len, smallest;

	if (!wb_varint_get(&q, end, &largest) || !wb_varint_get(&q, end, &a->delay_us) ||
	    !wb_varint_get(&q, end, &count) || !wb_varint_get(&q, end, &first) || first > largest ||
	    count >= WB_ACK_MAX_RANGES)
		return -EBADMSG;
	a->n = (unsigned)count + 1;
	a->r[0] = (struct wb_range){ largest - first, largest };
	smallest = largest - first;
	for (unsigned i = 1; i < a->n; i++) {
		if (!wb_varint_get(&q, end, &gap) || !wb_varint_get(&q, end, &len) || smallest < gap + 2 ||
		    smallest - gap - 2 < len)
			return -EBADMSG;
		a->r[i].hi = smallest - gap - 2;
		a->r[i].lo = a->r[i].hi - len;
		smallest = a->r[i].lo;
	}
	*used = (size_t)(q - p);
	return 1;
}

static int parse_bond_ack(const uint8_t *p, const uint8_t *end, struct wb_frame *f, size_t *used)
{
	const uint8_t *q = p + 1;
	struct wb_bond_ack *a = &f->bond_ack;
	uint64_t count, gap, len, next;

	if (!wb_varint_get(&q, end, &a->cum) || !wb_varint_get(&q, end, &a->rwnd) ||
	    !wb_varint_get(&q, end, &count) || count > WB_BOND_ACK_MAX_SACKS)
		return -EBADMSG;
	a->n = (unsigned)count;
	next = a->cum + 1; /* cum itself is missing */
	for (unsigned i = 0; i < a->n; i++) {
		/* Varints are below 2^62: these sums cannot wrap 64 bits. */
		if (!wb_varint_get(&q, end, &gap) || !wb_varint_get(&q, end, &len))
			return -EBADMSG;
		a->s[i].lo = next + gap;
		a->s[i].hi = a->s[i].lo + len;
		if (a->s[i].hi > WB_VARINT_MAX)
			return -EBADMSG;
		next = a->s[i].hi + 2;
	}
	*used = (size_t)(q - p);
	return 1;
}

int wb_frame_next(const uint8_t **pos, const uint8_t *end, struct wb_frame *f)
{
	const uint8_t *p = *pos;
	size_t avail = (size_t)(end - p), used;
	int rc = 1;

	if (!avail || p[0] == WB_FRAME_PADDING)
		return 0;
	f->type = (enum wb_frame_type)p[0];
	switch (p[0]) {
	case WB_FRAME_DATA:
	case WB_FRAME_DATA_UNORDERED:
		rc = parse_data(p, avail, f, &used);
		break;
	case WB_FRAME_ACK:
		rc = parse_ack(p, end, f, &used);
		break;
	case WB_FRAME_BOND_ACK:
		rc = parse_bond_ack(p, end, f, &used);
		break;
	case WB_FRAME_PROBE:
		if (avail < WB_FRAME_PROBE_LEN)
			return -EBADMSG;
		parse_probe(p, &f->probe);
		used = WB_FRAME_PROBE_LEN;
		break;
	case WB_FRAME_PROBE_ACK:
		if (avail < WB_FRAME_PROBE_ACK_LEN)
			return -EBADMSG;
		parse_probe_ack(p, &f->probe_ack);
		used = WB_FRAME_PROBE_ACK_LEN;
		break;
	case WB_FRAME_UPLINK_INFO:
		rc = parse_uplink_info(p, avail, f, &used);
		break;
	case WB_FRAME_PMTU_PROBE:
		used = WB_FRAME_PMTU_PROBE_LEN;
		break;
	case WB_FRAME_PMTU_ACK:
		if (avail < WB_FRAME_PMTU_ACK_LEN)
			return -EBADMSG;
		f->pmtu_size = wb_get_le16(WB_FRAME_FIELD(p, wb_frame_pmtu_ack, size));
		used = WB_FRAME_PMTU_ACK_LEN;
		break;
	case WB_FRAME_CLOSE:
		if (avail < WB_FRAME_CLOSE_LEN)
			return -EBADMSG;
		f->close_reason = *WB_FRAME_FIELD(p, wb_frame_close, reason);
		used = WB_FRAME_CLOSE_LEN;
		break;
	case WB_FRAME_FEC_PARITY: {
		int n = wb_fec_parse_parity(p, avail, &f->fec_parity);

		if (n < 0)
			return -EBADMSG;
		used = (size_t)n;
		break;
	}
	default:
		return -EBADMSG;
	}
	if (rc == 1)
		*pos = p + used;
	return rc;
}
