/* SPDX-License-Identifier: MIT */
/*
 * The frames inside a data message's sealed body (layouts in wire.h): a
 * builder per frame type and one parser that walks a body, checking every
 * length before it reads.
 */
#ifndef WB_FRAME_H
#define WB_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "wire.h"

struct wb_probe {
	uint32_t seq;
	uint64_t sent_ns;
	uint64_t tx_packets;
};

struct wb_probe_ack {
	uint32_t seq;
	uint64_t sent_ns;
	uint64_t tx_packets;
	uint64_t rx_packets;
};

struct wb_uplink_info {
	uint8_t flags;
	uint16_t weight;
	char name[WB_UPLINK_NAME_MAX + 1];
};

/* One parsed frame; ip points into the body being parsed. */
struct wb_frame {
	enum wb_frame_type type;
	union {
		struct {
			const uint8_t *data;
			size_t len;
		} ip;
		struct wb_probe probe;
		struct wb_probe_ack probe_ack;
		struct wb_uplink_info uplink_info;
		uint8_t close_reason;
	};
};

/* Bytes each builder writes. */
#define WB_FRAME_PROBE_LEN (1 + (int)sizeof(struct wb_frame_probe))
#define WB_FRAME_PROBE_ACK_LEN (1 + (int)sizeof(struct wb_frame_probe_ack))
#define WB_FRAME_CLOSE_LEN 2

/* Writes the IP frame header in front of a packet of len bytes (at p + 3). */
void wb_frame_put_ip_header(uint8_t *p, size_t len);
size_t wb_frame_put_probe(uint8_t *p, const struct wb_probe *probe);
size_t wb_frame_put_probe_ack(uint8_t *p, const struct wb_probe_ack *ack);
size_t wb_frame_put_close(uint8_t *p, uint8_t reason);
/* At most 1 + 4 + WB_UPLINK_NAME_MAX bytes; a longer name is cut. */
size_t wb_frame_put_uplink_info(uint8_t *p, const struct wb_uplink_info *info);

/*
 * Reads the frame at *pos (advanced past it). Returns 1 with a frame, 0 at
 * the end of the body (or at padding), -EBADMSG if the body is malformed:
 * truncated, an unknown type, an IP frame of length 0, an uplink name that
 * is empty, too long or holds a NUL.
 */
int wb_frame_next(const uint8_t **pos, const uint8_t *end, struct wb_frame *f);

#endif
