// SPDX-License-Identifier: MIT
#include "frame.h"

#include <errno.h>
#include <string.h>

#include "byteorder.h"

void wb_frame_put_ip_header(uint8_t *p, size_t len)
{
	p[0] = WB_FRAME_IP;
	wb_put_le16(p + 1, (uint16_t)len);
}

size_t wb_frame_put_probe(uint8_t *p, const struct wb_probe *probe)
{
	p[0] = WB_FRAME_PROBE;
	wb_put_le32(p + 1, probe->seq);
	wb_put_le64(p + 5, probe->sent_ns);
	wb_put_le64(p + 13, probe->tx_packets);
	return WB_FRAME_PROBE_LEN;
}

size_t wb_frame_put_probe_ack(uint8_t *p, const struct wb_probe_ack *ack)
{
	p[0] = WB_FRAME_PROBE_ACK;
	wb_put_le32(p + 1, ack->seq);
	wb_put_le64(p + 5, ack->sent_ns);
	wb_put_le64(p + 13, ack->tx_packets);
	wb_put_le64(p + 21, ack->rx_packets);
	return WB_FRAME_PROBE_ACK_LEN;
}

size_t wb_frame_put_close(uint8_t *p, uint8_t reason)
{
	p[0] = WB_FRAME_CLOSE;
	p[1] = reason;
	return WB_FRAME_CLOSE_LEN;
}

size_t wb_frame_put_uplink_info(uint8_t *p, const struct wb_uplink_info *info)
{
	size_t n = strnlen(info->name, WB_UPLINK_NAME_MAX);

	p[0] = WB_FRAME_UPLINK_INFO;
	p[1] = info->flags;
	wb_put_le16(p + 2, info->weight);
	p[4] = (uint8_t)n;
	memcpy(p + 5, info->name, n);
	return 5 + n;
}

static int parse_uplink_info(const uint8_t *p, size_t avail, struct wb_frame *f, size_t *used)
{
	size_t n;

	if (avail < 5)
		return -EBADMSG;
	n = p[4];
	if (!n || n > WB_UPLINK_NAME_MAX || n > avail - 5 || memchr(p + 5, 0, n))
		return -EBADMSG;
	f->uplink_info.flags = p[1];
	f->uplink_info.weight = wb_get_le16(p + 2);
	memcpy(f->uplink_info.name, p + 5, n);
	f->uplink_info.name[n] = 0;
	*used = 5 + n;
	return 1;
}

static int parse_ip(const uint8_t *p, size_t avail, struct wb_frame *f, size_t *used)
{
	size_t len;

	if (avail < WB_FRAME_IP_HEADER)
		return -EBADMSG;
	len = wb_get_le16(p + 1);
	if (!len || len > avail - WB_FRAME_IP_HEADER)
		return -EBADMSG;
	f->ip.data = p + WB_FRAME_IP_HEADER;
	f->ip.len = len;
	*used = WB_FRAME_IP_HEADER + len;
	return 1;
}

int wb_frame_next(const uint8_t **pos, const uint8_t *end, struct wb_frame *f)
{
	const uint8_t *p = *pos;
	size_t avail = (size_t)(end - p), used;
	int rc = 1;

	if (!avail || p[0] == WB_FRAME_PADDING)
		return 0;
	f->type = (enum wb_frame_type)p[0];
	switch (p[0]) {
	case WB_FRAME_IP:
		rc = parse_ip(p, avail, f, &used);
		break;
	case WB_FRAME_PROBE:
		if (avail < WB_FRAME_PROBE_LEN)
			return -EBADMSG;
		f->probe = (struct wb_probe){ wb_get_le32(p + 1), wb_get_le64(p + 5), wb_get_le64(p + 13) };
		used = WB_FRAME_PROBE_LEN;
		break;
	case WB_FRAME_PROBE_ACK:
		if (avail < WB_FRAME_PROBE_ACK_LEN)
			return -EBADMSG;
		f->probe_ack = (struct wb_probe_ack){ wb_get_le32(p + 1), wb_get_le64(p + 5), wb_get_le64(p + 13),
						      wb_get_le64(p + 21) };
		used = WB_FRAME_PROBE_ACK_LEN;
		break;
	case WB_FRAME_UPLINK_INFO:
		rc = parse_uplink_info(p, avail, f, &used);
		break;
	case WB_FRAME_CLOSE:
		if (avail < WB_FRAME_CLOSE_LEN)
			return -EBADMSG;
		f->close_reason = p[1];
		used = WB_FRAME_CLOSE_LEN;
		break;
	default:
		return -EBADMSG;
	}
	if (rc == 1)
		*pos = p + used;
	return rc;
}
