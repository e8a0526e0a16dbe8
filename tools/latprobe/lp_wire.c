// SPDX-License-Identifier: MIT
#include "lp_wire.h"

#include <errno.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

size_t lp_packet_write(uint8_t *buf, size_t cap, const struct lp_packet *p)
{
	if (p->length < LP_HDR_LEN || p->length > LP_MAX_LEN || p->length > cap)
		return 0;
	memset(buf, 0, p->length);
	put32(buf, LP_MAGIC);
	buf[4] = LP_VERSION;
	put32(buf + 8, p->stream);
	put32(buf + 12, p->length);
	put64(buf + 16, p->seq);
	put64(buf + 24, p->sent_ns);
	return p->length;
}

int lp_packet_parse(const uint8_t *buf, size_t len, struct lp_packet *out)
{
	if (len < LP_HDR_LEN || len > LP_MAX_LEN)
		return -EINVAL;
	if (get32(buf) != LP_MAGIC || buf[4] != LP_VERSION || buf[5] || buf[6] || buf[7])
		return -EINVAL;
	if (get32(buf + 12) != len)
		return -EINVAL;
	*out = (struct lp_packet){
		.stream = get32(buf + 8),
		.length = (uint32_t)len,
		.seq = get64(buf + 16),
		.sent_ns = get64(buf + 24),
	};
	return 0;
}
