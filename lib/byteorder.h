/* SPDX-License-Identifier: MIT */
/*
 * Reading and writing integers at any address in a fixed byte order. The
 * wire is little-endian (TAI64N is big-endian), and routers are of both
 * kinds (MIPS big-endian ones among them), so nothing is read through a
 * host-order struct field.
 */
#ifndef WB_BYTEORDER_H
#define WB_BYTEORDER_H

#include <stdint.h>

static inline uint16_t wb_get_le16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] | b[1] << 8);
}

static inline uint32_t wb_get_le32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t wb_get_le64(const void *p)
{
	const uint8_t *b = p;

	return (uint64_t)wb_get_le32(b) | (uint64_t)wb_get_le32(b + 4) << 32;
}

static inline void wb_put_le16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static inline void wb_put_le32(void *p, uint32_t v)
{
	uint8_t *b = p;

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static inline void wb_put_le64(void *p, uint64_t v)
{
	wb_put_le32(p, (uint32_t)v);
	wb_put_le32((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t wb_get_be16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline void wb_put_be16(void *p, uint16_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

static inline uint32_t wb_get_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static inline void wb_put_be32(void *p, uint32_t v)
{
	uint8_t *b = p;

	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (24 - 8 * i));
}

static inline void wb_put_be64(void *p, uint64_t v)
{
	wb_put_be32(p, (uint32_t)(v >> 32));
	wb_put_be32((uint8_t *)p + 4, (uint32_t)v);
}

static inline uint64_t wb_get_be64(const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

#endif
