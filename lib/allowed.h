/* SPDX-License-Identifier: MIT */
/*
 * The source addresses a peer may use inside the tunnel (WireGuard's
 * "allowed IPs", for the receive side): a server takes from a router only
 * packets from that router's prefixes, so one router cannot pass for
 * another's LAN.
 */
#ifndef WB_ALLOWED_H
#define WB_ALLOWED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_MAX_ALLOWED 24

struct wb_ip_prefix {
	uint8_t family; /* 4 or 6 */
	uint8_t len;
	uint8_t addr[16];
};

bool wb_prefix_contains(const struct wb_ip_prefix *p, uint8_t family, const uint8_t *addr);

/* The version and source address of an IP packet; false if it is neither a whole IPv4 nor IPv6 header. */
bool wb_ip_source(const uint8_t *ip, size_t len, uint8_t *family, const uint8_t **addr);

/* An empty list allows every source. */
bool wb_source_allowed(const struct wb_ip_prefix *list, int n, const uint8_t *ip, size_t len);

#endif
