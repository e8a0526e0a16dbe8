/* SPDX-License-Identifier: MIT */
/*
 * Variable-length integers as QUIC's (RFC 9000, 16): the two high bits of
 * the first byte give the length (1, 2, 4 or 8 bytes), the rest is the
 * value, big-endian, up to 2^62 - 1. Acks are mostly small numbers.
 */
#ifndef WB_VARINT_H
#define WB_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_VARINT_MAX ((1ULL << 62) - 1)
#define WB_VARINT_MAX_LEN 8

static inline size_t wb_varint_len(uint64_t v)
{
	return v < (1u << 6) ? 1 : v < (1u << 14) ? 2 : v < (1u << 30) ? 4 : 8;
}

/* Writes v (at most WB_VARINT_MAX) and returns the bytes written. */
static inline size_t wb_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = wb_varint_len(v);
	uint8_t prefix = n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : 3;

	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	p[0] = (uint8_t)((p[0] & 0x3f) | prefix << 6);
	return n;
}

/* Reads a varint at *pos, not past end; false if it does not fit. */
static inline bool wb_varint_get(const uint8_t **pos, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pos;
	size_t n;

	if (p >= end)
		return false;
	n = (size_t)1 << (p[0] >> 6);
	if ((size_t)(end - p) < n)
		return false;
	*v = p[0] & 0x3f;
	for (size_t i = 1; i < n; i++)
		*v = *v << 8 | p[i];
	*pos = p + n;
	return true;
}

#endif
