/* SPDX-License-Identifier: MIT */
/*
 * A TCP segment in an IP packet, as cutting and merging (tso.c, gro.c)
 * need it: IPv4 without fragmentation, IPv6 with TCP as the first next
 * header. Anything else is not a segment these touch.
 */
#ifndef WB_TCP_PACKET_H
#define WB_TCP_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_TCP_FIN 0x01
#define WB_TCP_SYN 0x02
#define WB_TCP_RST 0x04
#define WB_TCP_PSH 0x08
#define WB_TCP_ACK 0x10
#define WB_TCP_URG 0x20
#define WB_TCP_ECE 0x40
#define WB_TCP_CWR 0x80

/* Offsets in the TCP header. */
#define WB_TCP_SEQ 4
#define WB_TCP_FLAGS 13
#define WB_TCP_CSUM 16

struct wb_tcp_packet {
	int family;        /* 4 or 6 */
	uint16_t ip_len;   /* the IP header's bytes: where TCP's begin */
	uint16_t hdr_len;  /* the IP and TCP headers' bytes: where the payload begins */
	uint32_t len;      /* the whole packet's */
	uint32_t seq;
	uint8_t flags;
};

/*
 * Whether ip (len bytes, exactly the packet) is a TCP segment of that kind
 * whose header lengths agree with len; fills t if so.
 */
bool wb_tcp_packet_parse(const uint8_t *ip, size_t len, struct wb_tcp_packet *t);

/* Sets the IP header's length field to t->len and, for IPv4, its checksum again. */
void wb_tcp_packet_set_ip_len(uint8_t *ip, const struct wb_tcp_packet *t);

#endif
