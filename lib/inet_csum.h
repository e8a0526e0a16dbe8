/* SPDX-License-Identifier: MIT */
/*
 * The Internet checksum (RFC 1071), for the packets the daemon cuts from a
 * TUN device's large segments and merges for it (tso.c, gro.c). The sum is
 * kept in the host's byte order, which the one's complement sum allows
 * (RFC 1071, 2(B)): folded, it is stored with memcpy and reads right in
 * network order on either kind of host.
 */
#ifndef WB_INET_CSUM_H
#define WB_INET_CSUM_H

#include <stddef.h>
#include <stdint.h>

/* The sum of len bytes added to sum; only the last piece of a sum may be of odd length. */
uint64_t wb_csum_add(uint64_t sum, const void *data, size_t len);

/* The 16-bit one's complement sum, in host layout (not complemented). */
uint16_t wb_csum_fold(uint64_t sum);

/*
 * The pseudo-header's sum for TCP or UDP (RFC 793, RFC 8200 8.1) of an IP
 * packet's addresses: family 4 or 6, the addresses read from ip,
 * upper_len the transport header and payload's length.
 */
uint64_t wb_csum_pseudo(const uint8_t *ip, int family, uint8_t proto, uint32_t upper_len);

/* Stores the complemented sum at p (two bytes, any alignment). */
void wb_csum_store(uint8_t *p, uint64_t sum);

#endif
