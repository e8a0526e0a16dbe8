// SPDX-License-Identifier: MIT
#include "inet_csum.h"

#include <string.h>

#include "byteorder.h"

uint64_t wb_csum_add(uint64_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	/* 32-bit words into a 64-bit sum: the carries are folded at the end. */
	for (; len >= 16; p += 16, len -= 16) {
		uint32_t w[4];

		memcpy(w, p, sizeof(w));
		sum += (uint64_t)w[0] + w[1] + w[2] + w[3];
	}
	for (; len >= 4; p += 4, len -= 4) {
		uint32_t w;

		memcpy(&w, p, sizeof(w));
		sum += w;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, p, sizeof(w));
		sum += w;
		p += 2;
		len -= 2;
	}
	if (len) {
		/* The odd byte, as the first of a word whose second is zero. */
		uint8_t last[2] = { p[0], 0 };
		uint16_t w;

		memcpy(&w, last, sizeof(w));
		sum += w;
	}
	return sum;
}

uint16_t wb_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

uint64_t wb_csum_pseudo(const uint8_t *ip, int family, uint8_t proto, uint32_t upper_len)
{
	uint8_t tail[8] = { 0 };
	uint64_t sum;

	if (family == 4) {
		sum = wb_csum_add(0, ip + 12, 8);
	} else {
		sum = wb_csum_add(0, ip + 8, 32);
	}
	/* RFC 8200's form (a 32-bit length, a 24-bit zero, the next header): for IPv4 it sums the same. */
	wb_put_be32(tail, upper_len);
	tail[7] = proto;
	return wb_csum_add(sum, tail, sizeof(tail));
}

void wb_csum_store(uint8_t *p, uint64_t sum)
{
	uint16_t v = (uint16_t)~wb_csum_fold(sum);

	memcpy(p, &v, sizeof(v));
}
