// SPDX-License-Identifier: MIT
#include "allowed.h"

#include <string.h>

bool wb_prefix_contains(const struct wb_ip_prefix *p, uint8_t family, const uint8_t *addr)
{
	unsigned full = p->len / 8, rest = p->len % 8;

	if (p->family != family || p->len > (family == 4 ? 32 : 128))
		return false;
	if (memcmp(p->addr, addr, full))
		return false;
	return !rest || !((p->addr[full] ^ addr[full]) & (uint8_t)(0xff << (8 - rest)));
}

bool wb_ip_source(const uint8_t *ip, size_t len, uint8_t *family, const uint8_t **addr)
{
	if (len >= 20 && ip[0] >> 4 == 4) {
		*family = 4;
		*addr = ip + 12;
		return true;
	}
	if (len >= 40 && ip[0] >> 4 == 6) {
		*family = 6;
		*addr = ip + 8;
		return true;
	}
	return false;
}

bool wb_source_allowed(const struct wb_ip_prefix *list, int n, const uint8_t *ip, size_t len)
{
	const uint8_t *addr;
	uint8_t family;

	if (!n)
		return true;
	if (!wb_ip_source(ip, len, &family, &addr))
		return false;
	for (int i = 0; i < n; i++)
		if (wb_prefix_contains(&list[i], family, addr))
			return true;
	return false;
}
