// SPDX-License-Identifier: MIT
#include "endpoint.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

static size_t addr_len(const struct wb_endpoint *e)
{
	return e->family == 4 ? 4 : e->family == 6 ? 16 : 0;
}

bool wb_endpoint_equal(const struct wb_endpoint *a, const struct wb_endpoint *b)
{
	return a->family == b->family && a->port == b->port && !memcmp(a->addr, b->addr, addr_len(a));
}

void wb_endpoint_format(char out[WB_ENDPOINT_STRLEN], const struct wb_endpoint *e)
{
	char ip[INET6_ADDRSTRLEN] = "";

	if (!e->family || !inet_ntop(e->family == 4 ? AF_INET : AF_INET6, e->addr, ip, sizeof(ip))) {
		snprintf(out, WB_ENDPOINT_STRLEN, "none");
		return;
	}
	snprintf(out, WB_ENDPOINT_STRLEN, e->family == 4 ? "%s:%u" : "[%s]:%u", ip, e->port);
}

size_t wb_endpoint_bytes(const struct wb_endpoint *e, uint8_t out[18])
{
	size_t n = addr_len(e);

	memcpy(out, e->addr, n);
	out[n] = (uint8_t)(e->port >> 8);
	out[n + 1] = (uint8_t)e->port;
	return n + 2;
}
