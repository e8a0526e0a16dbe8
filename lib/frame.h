/* SPDX-License-Identifier: MIT */
/*
 * The frames inside a data message's sealed body (layouts in wire.h): a
 * builder per frame type and one parser that walks a body, checking every
 * length before it reads.
 */
#ifndef WB_FRAME_H
#define WB_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fec.h"
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

/* An inclusive range of numbers. */
struct wb_range {
	uint64_t lo, hi;
};

/*
 * The packet numbers one side received on an uplink: ranges from the
 * largest down, as QUIC's ACK frame, with the time the largest was held
 * before this ack went out.
 */
#define WB_ACK_MAX_RANGES 32
struct wb_ack {
	uint64_t delay_us;
	unsigned n;
	struct wb_range r[WB_ACK_MAX_RANGES]; /* descending, disjoint, not adjacent */
};

/* The bond ack: every DSN below cum delivered (or skipped), the ranges held above it, the window. */
#define WB_BOND_ACK_MAX_SACKS 16
struct wb_bond_ack {
	uint64_t cum;
	uint64_t rwnd;
	unsigned n;
	struct wb_range s[WB_BOND_ACK_MAX_SACKS]; /* ascending, above cum, not adjacent */
};

/* One parsed frame; data points into the body being parsed. */
struct wb_frame {
	enum wb_frame_type type;
	union {
		struct { /* DATA and DATA_UNORDERED */
			uint32_t dsn; /* the low 32 bits: wb_dsn_expand gives the whole */
			const uint8_t *data;
			size_t len;
		} data;
		struct wb_probe probe;
		struct wb_probe_ack probe_ack;
		struct wb_uplink_info uplink_info;
		struct wb_ack ack;
		struct wb_bond_ack bond_ack;
		uint8_t close_reason;
		uint16_t pmtu_size; /* PMTU_ACK */
		struct wb_fec_parity fec_parity; /* its payload points into the body */
	};
};

/* Bytes each builder writes. */
#define WB_FRAME_PROBE_LEN WB_FRAME_LEN(wb_frame_probe)
#define WB_FRAME_PROBE_ACK_LEN WB_FRAME_LEN(wb_frame_probe_ack)
#define WB_FRAME_CLOSE_LEN WB_FRAME_LEN(wb_frame_close)
#define WB_FRAME_PMTU_PROBE_LEN 1 /* its type byte; padding follows */
#define WB_FRAME_PMTU_ACK_LEN WB_FRAME_LEN(wb_frame_pmtu_ack)
#define WB_FRAME_ACK_MAX_LEN (1 + 4 * 8 + 2 * 8 * (WB_ACK_MAX_RANGES - 1))
#define WB_FRAME_BOND_ACK_MAX_LEN (1 + 3 * 8 + 2 * 8 * WB_BOND_ACK_MAX_SACKS)

/*
 * Writes the data frame header in front of a packet of len bytes (at p +
 * WB_FRAME_DATA_HEADER): WB_FRAME_DATA, or WB_FRAME_DATA_UNORDERED for a
 * packet the receiver delivers as soon as it arrives.
 */
void wb_frame_put_data_header_of(uint8_t *p, enum wb_frame_type type, uint64_t dsn, size_t len);
static inline void wb_frame_put_data_header(uint8_t *p, uint64_t dsn, size_t len)
{
	wb_frame_put_data_header_of(p, WB_FRAME_DATA, dsn, len);
}

/* A frame that carries an IP packet (f->data). */
static inline bool wb_frame_is_data(enum wb_frame_type type)
{
	return type == WB_FRAME_DATA || type == WB_FRAME_DATA_UNORDERED;
}
size_t wb_frame_put_probe(uint8_t *p, const struct wb_probe *probe);
size_t wb_frame_put_probe_ack(uint8_t *p, const struct wb_probe_ack *ack);
size_t wb_frame_put_close(uint8_t *p, uint8_t reason);
/* A path MTU probe filling len bytes (at least 1): its frame, then padding. */
size_t wb_frame_put_pmtu_probe(uint8_t *p, size_t len);
size_t wb_frame_put_pmtu_ack(uint8_t *p, uint16_t size);
/* At most WB_FRAME_LEN(wb_frame_uplink_info) + WB_UPLINK_NAME_MAX bytes; a longer name is cut. */
size_t wb_frame_put_uplink_info(uint8_t *p, const struct wb_uplink_info *info);
/* The bytes wb_frame_put_ack and wb_frame_put_bond_ack will write. */
size_t wb_frame_ack_len(const struct wb_ack *a);
size_t wb_frame_bond_ack_len(const struct wb_bond_ack *a);
size_t wb_frame_put_ack(uint8_t *p, const struct wb_ack *a);
size_t wb_frame_put_bond_ack(uint8_t *p, const struct wb_bond_ack *a);

/* The whole DSN whose low 32 bits are dsn32, the one nearest to expected. */
uint64_t wb_dsn_expand(uint32_t dsn32, uint64_t expected);

/*
 * Reads the frame at *pos (advanced past it). Returns 1 with a frame, 0 at
 * the end of the body (or at padding), -EBADMSG if the body is malformed:
 * truncated, an unknown type, a data frame of length 0, an uplink name that
 * is empty, too long or holds a NUL, ack ranges that overlap, run below 0 or
 * are too many, a parity frame that wb_fec_parse_parity refuses.
 */
int wb_frame_next(const uint8_t **pos, const uint8_t *end, struct wb_frame *f);

#endif
