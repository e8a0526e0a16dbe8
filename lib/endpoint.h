/* SPDX-License-Identifier: MIT */
/*
 * A UDP endpoint (address and port), as plain data: the protocol code keeps
 * and compares them without any socket type.
 */
#ifndef WB_ENDPOINT_H
#define WB_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wb_endpoint {
	uint8_t family;   /* 4, 6, or 0 when unknown */
	uint16_t port;    /* host order */
	uint8_t addr[16]; /* IPv4 in the first 4 bytes */
};

#define WB_ENDPOINT_STRLEN 56 /* "[v6addr]:port" and a NUL */

bool wb_endpoint_equal(const struct wb_endpoint *a, const struct wb_endpoint *b);
/* "192.0.2.1:51820" or "[2001:db8::1]:51820"; "none" when unknown. */
void wb_endpoint_format(char out[WB_ENDPOINT_STRLEN], const struct wb_endpoint *e);
/* Address then port, the bytes a cookie is bound to; returns their count. */
size_t wb_endpoint_bytes(const struct wb_endpoint *e, uint8_t out[18]);

#endif
