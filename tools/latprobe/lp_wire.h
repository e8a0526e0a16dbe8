/* SPDX-License-Identifier: MIT */
/*
 * latprobe's packet: a fixed header at the start of the UDP payload, padding
 * after it up to the stream's packet size. Pure: it builds and parses bytes.
 *
 *   offset  size  field (big-endian)
 *        0     4  magic "WBLP"
 *        4     1  version (1)
 *        5     3  zero
 *        8     4  stream id
 *       12     4  length: the whole UDP payload, header and padding
 *       16     8  sequence number, from 0
 *       24     8  send time, CLOCK_MONOTONIC in nanoseconds
 *
 * Network namespaces on one host share CLOCK_MONOTONIC, so a receiver on the
 * same host takes its own clock minus the send time as the one-way delay.
 */
#ifndef LATPROBE_WIRE_H
#define LATPROBE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define LP_MAGIC 0x57424c50u /* "WBLP" */
#define LP_VERSION 1
#define LP_HDR_LEN 32
/* The largest UDP payload over IPv4 (65535 - 20 - 8). */
#define LP_MAX_LEN 65507

struct lp_packet {
	uint32_t stream;
	uint32_t length;
	uint64_t seq;
	uint64_t sent_ns;
};

/*
 * Writes the header of p into buf (p->length bytes, at least LP_HDR_LEN) and
 * zeroes the padding. Returns p->length, or 0 when p->length is out of
 * LP_HDR_LEN..LP_MAX_LEN or above cap.
 */
size_t lp_packet_write(uint8_t *buf, size_t cap, const struct lp_packet *p);

/*
 * Parses a received datagram of len bytes. Returns 0, or -EINVAL when it is
 * not one of ours: shorter than the header, another magic or version,
 * nonzero reserved bytes, or a length field that is not len (a datagram cut
 * short or run together is refused).
 */
int lp_packet_parse(const uint8_t *buf, size_t len, struct lp_packet *out);

#endif
