// SPDX-License-Identifier: MIT
#include "tcp_packet.h"

#include "byteorder.h"
#include "inet_csum.h"

#define IPPROTO_TCP_NUMBER 6
#define IPV4_MF_OFFSET_MASK 0x3fff

static bool parse_ip(const uint8_t *ip, size_t len, struct wb_tcp_packet *t)
{
	if (len < 20)
		return false;
	if ((ip[0] >> 4) == 4) {
		t->family = 4;
		t->ip_len = (uint16_t)((ip[0] & 0x0f) * 4);
		return t->ip_len >= 20 && ip[9] == IPPROTO_TCP_NUMBER && wb_get_be16(ip + 2) == len &&
		       !(wb_get_be16(ip + 6) & IPV4_MF_OFFSET_MASK);
	}
	if ((ip[0] >> 4) == 6 && len >= 40) {
		t->family = 6;
		t->ip_len = 40;
		return ip[6] == IPPROTO_TCP_NUMBER && wb_get_be16(ip + 4) + 40u == len;
	}
	return false;
}

bool wb_tcp_packet_parse(const uint8_t *ip, size_t len, struct wb_tcp_packet *t)
{
	const uint8_t *tcp;

	if (len > 65535 + 40 || !parse_ip(ip, len, t) || len < t->ip_len + 20u)
		return false;
	tcp = ip + t->ip_len;
	t->hdr_len = (uint16_t)(t->ip_len + (tcp[12] >> 4) * 4);
	if ((tcp[12] >> 4) < 5 || t->hdr_len > len)
		return false;
	t->len = (uint32_t)len;
	t->seq = wb_get_be32(tcp + WB_TCP_SEQ);
	t->flags = tcp[WB_TCP_FLAGS];
	return true;
}

void wb_tcp_packet_set_ip_len(uint8_t *ip, const struct wb_tcp_packet *t)
{
	if (t->family == 6) {
		wb_put_be16(ip + 4, (uint16_t)(t->len - 40));
		return;
	}
	wb_put_be16(ip + 2, (uint16_t)t->len);
	ip[10] = ip[11] = 0;
	wb_csum_store(ip + 10, wb_csum_add(0, ip, t->ip_len));
}
