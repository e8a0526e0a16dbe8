/* SPDX-License-Identifier: MIT */
/*
 * Every wire layout and protocol constant of wanbond, in one place.
 *
 * A datagram is one message. Handshake messages follow WireGuard's layout
 * (Noise IKpsk2); a data message is a 16-byte header, then an AEAD-sealed
 * body of frames. All integers are little-endian. See docs/protocol.md.
 */
#ifndef WB_WIRE_H
#define WB_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "byteorder.h"
#include "crypto.h"

enum wb_msg_type {
	WB_MSG_INITIATION = 1,
	WB_MSG_RESPONSE = 2,
	WB_MSG_COOKIE = 3,
	WB_MSG_DATA = 4,
};

#define WB_MAX_UPLINKS 16 /* uplink ids 0..15, in the data header and the nonce */

#define WB_TAI64N_LEN 12
/*
 * Each side's incarnation: a random 64-bit number drawn when the daemon
 * starts, sealed in its handshake messages. A session whose peer is a new
 * incarnation means the peer restarted: its reliable layer starts from
 * nothing, so ours does too (docs/protocol.md, "A peer that restarts").
 */
#define WB_INCARNATION_LEN 8

/*
 * What a side reads beyond the first protocol: a bit field in the byte after
 * the type of its handshake messages, which wanbondd before the traffic
 * classes left zero and never read. A side sends what the peer's handshake
 * said it reads (learnt once per incarnation of the peer), and nothing
 * newer, so either end can be upgraded first (docs/protocol.md,
 * "Capabilities").
 */
enum {
	WB_CAP_CLASSES = 1 << 0, /* the unordered data (0x0A) and parity (0x0B) frames */
};
#define WB_CAPS_ALL WB_CAP_CLASSES

/* Noise IKpsk2 handshake, first message: initiator -> responder. */
struct wb_msg_initiation {
	uint8_t type;
	uint8_t caps; /* WB_CAP_*: what the initiator reads */
	uint8_t reserved[2];
	uint32_t sender_index;
	uint8_t ephemeral[WB_KEY_LEN];
	uint8_t encrypted_static[WB_KEY_LEN + WB_TAG_LEN];
	/* TAI64N, then the initiator's incarnation (little-endian) */
	uint8_t encrypted_payload[WB_TAI64N_LEN + WB_INCARNATION_LEN + WB_TAG_LEN];
	uint8_t mac1[WB_MAC_LEN];
	uint8_t mac2[WB_MAC_LEN];
};

/* Second message: responder -> initiator. */
struct wb_msg_response {
	uint8_t type;
	uint8_t caps; /* WB_CAP_*: what the responder reads */
	uint8_t reserved[2];
	uint32_t sender_index;
	uint32_t receiver_index;
	uint8_t ephemeral[WB_KEY_LEN];
	uint8_t encrypted_incarnation[WB_INCARNATION_LEN + WB_TAG_LEN]; /* the responder's, little-endian */
	uint8_t mac1[WB_MAC_LEN];
	uint8_t mac2[WB_MAC_LEN];
};

/*
 * Cookie reply, sent instead of a response while under load. WireGuard seals
 * the cookie with XChaCha20-Poly1305 and a 24-byte random nonce; OpenSSL has
 * no XChaCha20, so we use ChaCha20-Poly1305 with a 12-byte random nonce. The
 * key is fixed per responder and cookies are few (one per initiation refused
 * under load), so a random 96-bit nonce does not repeat in practice.
 */
struct wb_msg_cookie {
	uint8_t type;
	uint8_t reserved[3];
	uint32_t receiver_index;
	uint8_t nonce[WB_NONCE_LEN];
	uint8_t encrypted_cookie[WB_MAC_LEN + WB_TAG_LEN];
};

/*
 * Data message header; the AEAD body follows. The header is the AEAD's
 * associated data, and the nonce is the uplink id (4 bytes) then the counter
 * (8 bytes), so one session key serves every uplink without a nonce ever
 * repeating, and each uplink has its own counter and anti-replay window.
 */
struct wb_msg_data {
	uint8_t type;
	uint8_t uplink;
	uint8_t reserved[2];
	uint32_t receiver_index;
	uint64_t counter;
};

_Static_assert(sizeof(struct wb_msg_initiation) == 156, "initiation is 156 bytes");
_Static_assert(sizeof(struct wb_msg_response) == 100, "response is 100 bytes");
_Static_assert(sizeof(struct wb_msg_cookie) == 52, "cookie reply is 52 bytes");
_Static_assert(sizeof(struct wb_msg_data) == 16, "data header is 16 bytes");

/* Both MACs end every handshake message that carries them: cookie.c finds them from the length. */
#define WB_MACS_LEN (2 * WB_MAC_LEN)
_Static_assert(offsetof(struct wb_msg_initiation, mac1) == sizeof(struct wb_msg_initiation) - WB_MACS_LEN,
	       "the MACs end an initiation");
_Static_assert(offsetof(struct wb_msg_response, mac1) == sizeof(struct wb_msg_response) - WB_MACS_LEN,
	       "the MACs end a response");

/*
 * A message's fields are read where the datagram lies, at their offsets in
 * the structs above: a receive buffer need not be aligned for a struct, and
 * the wire is little-endian whatever the host (byteorder.h).
 */
#define WB_MSG_FIELD(msg, type, field) ((msg) + offsetof(struct type, field))

/* A data message around its body: the header before it, the tag after it. */
#define WB_DATA_HEADER_LEN sizeof(struct wb_msg_data)
#define WB_DATA_OVERHEAD (WB_DATA_HEADER_LEN + WB_TAG_LEN)

static inline uint8_t wb_data_uplink(const uint8_t *msg)
{
	return *WB_MSG_FIELD(msg, wb_msg_data, uplink);
}

static inline uint32_t wb_data_receiver_index(const uint8_t *msg)
{
	return wb_get_le32(WB_MSG_FIELD(msg, wb_msg_data, receiver_index));
}

/* The counter: the uplink's packet number of the message. */
static inline uint64_t wb_data_counter(const uint8_t *msg)
{
	return wb_get_le64(WB_MSG_FIELD(msg, wb_msg_data, counter));
}

static inline void wb_data_put_header(uint8_t *msg, uint8_t uplink, uint32_t receiver_index, uint64_t counter)
{
	struct wb_msg_data h = { .type = WB_MSG_DATA, .uplink = uplink };

	wb_put_le32(&h.receiver_index, receiver_index);
	wb_put_le64(&h.counter, counter);
	memcpy(msg, &h, sizeof(h));
}

/* A data message's AEAD nonce: its uplink id (32 bits), then its counter. */
static inline void wb_data_nonce(uint8_t nonce[WB_NONCE_LEN], uint8_t uplink, uint64_t counter)
{
	wb_put_le32(nonce, uplink);
	wb_put_le64(nonce + 4, counter);
}

/*
 * Frames inside a data message's sealed body, one after another. Each starts
 * with its type byte; the layouts below follow it.
 */
enum wb_frame_type {
	WB_FRAME_PADDING = 0x00,   /* the rest of the body is padding */
	WB_FRAME_DATA = 0x01,      /* struct wb_frame_data, then one IP packet */
	WB_FRAME_PROBE = 0x02,     /* struct wb_frame_probe */
	WB_FRAME_PROBE_ACK = 0x03, /* struct wb_frame_probe_ack */
	WB_FRAME_CLOSE = 0x04,     /* struct wb_frame_close: the peer ends the session */
	WB_FRAME_UPLINK_INFO = 0x05, /* struct wb_frame_uplink_info, then the name */
	WB_FRAME_ACK = 0x06,       /* varints: the packet numbers received on this uplink */
	WB_FRAME_BOND_ACK = 0x07,  /* varints: the DSNs delivered and held, the receive window */
	WB_FRAME_PMTU_PROBE = 0x08, /* a path MTU probe: padding makes the datagram the size probed */
	WB_FRAME_PMTU_ACK = 0x09,  /* struct wb_frame_pmtu_ack */
	/*
	 * As WB_FRAME_DATA, for a packet of a class that needs no order
	 * (calls, games): the receiver delivers it as soon as it arrives,
	 * never behind a gap in the DSNs, and drops its duplicates.
	 */
	WB_FRAME_DATA_UNORDERED = 0x0A,
	WB_FRAME_FEC_PARITY = 0x0B, /* the XOR of a block of interactive packets: below, and fec.h */
};

/*
 * A parity frame (WB_FRAME_FEC_PARITY), after its type byte:
 *
 *     varint  first DSN             the whole DSN, not its low 32 bits
 *     u8      n                     packets covered, 2..16 (WB_FEC_MAX_BLOCK)
 *     varint  delta, n - 1 times    each DSN less the one before, at least 1
 *     le16    len_xor               the XOR of the packets' lengths
 *     le16    payload_len           1..1500 (WB_FEC_MAX_PAYLOAD): the longest packet's
 *     u8      payload[payload_len]  the XOR of the packets, each zero-padded to payload_len
 *
 * The DSNs are listed because the interactive class's packets are spread
 * among the bulk's. A rebuilt packet's length is len_xor XORed with the
 * others' lengths; one of 0 or over payload_len means a corrupt parity.
 */

/* What goes before one IP packet (WB_FRAME_DATA and WB_FRAME_DATA_UNORDERED). */
struct wb_frame_data {
	uint32_t dsn; /* its DSN's low 32 bits (frame.h: wb_dsn_expand) */
	uint16_t len; /* the IP packet's */
} __attribute__((packed));

/* Why a session ends (WB_FRAME_CLOSE). */
enum wb_close_reason {
	WB_CLOSE_SHUTDOWN = 1, /* the daemon stops */
};

struct wb_frame_close {
	uint8_t reason; /* enum wb_close_reason */
};

/* A liveness and RTT probe on one uplink; it also holds NAT mappings open. */
struct wb_frame_probe {
	uint32_t seq;
	uint64_t sent_ns;    /* the sender's clock, echoed back */
	uint64_t tx_packets; /* data messages the sender had sent on this uplink */
} __attribute__((packed));

struct wb_frame_probe_ack {
	uint32_t seq;
	uint64_t sent_ns;    /* echoed from the probe */
	uint64_t tx_packets; /* echoed from the probe */
	uint64_t rx_packets; /* data messages received on this uplink when the probe arrived */
} __attribute__((packed));

/*
 * What the client says of one of its uplinks, with each of its probes: the
 * server does not read the client's configuration, yet it must spread its
 * traffic the same way (weights, backup uplinks) and name uplinks in logs.
 */
struct wb_frame_uplink_info {
	uint8_t flags;    /* WB_UPLINK_BACKUP */
	uint16_t weight;
	uint8_t name_len; /* 1..WB_UPLINK_NAME_MAX, the name's bytes follow */
} __attribute__((packed));

/* The answer to a path MTU probe. */
struct wb_frame_pmtu_ack {
	uint16_t size; /* of the datagram the probe arrived in */
} __attribute__((packed));

#define WB_UPLINK_BACKUP 0x01
#define WB_UPLINK_NAME_MAX 31
/* The bytes of a name, on the wire as in the configuration: safe in file names, logs and terminals. */
#define WB_NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-"

/*
 * A frame's field, where the frame lies (at p, its type byte), as
 * WB_MSG_FIELD for messages; and the bytes of a frame of a fixed layout,
 * its type byte with them.
 */
#define WB_FRAME_FIELD(p, layout, field) ((p) + 1 + offsetof(struct layout, field))
#define WB_FRAME_LEN(layout) (1 + (int)sizeof(struct layout))

#define WB_FRAME_DATA_HEADER WB_FRAME_LEN(wb_frame_data) /* type, DSN and length before an IP packet */

_Static_assert(WB_FRAME_DATA_HEADER == 7, "data frame header is 7 bytes");
_Static_assert(sizeof(struct wb_frame_probe) == 20, "probe frame is 20 bytes");
_Static_assert(sizeof(struct wb_frame_uplink_info) == 4, "uplink info frame is 4 bytes and the name");
_Static_assert(sizeof(struct wb_frame_probe_ack) == 28, "probe ack frame is 28 bytes");
_Static_assert(sizeof(struct wb_frame_close) == 1, "close frame is 1 byte");
_Static_assert(sizeof(struct wb_frame_pmtu_ack) == 2, "path MTU ack frame is 2 bytes");

/*
 * Bytes a tunnelled IP packet costs on an uplink besides itself: the outer
 * IP header, UDP, the data header, the frame header and the tag. Over IPv6
 * (the larger header, and the default) 87; over IPv4 67.
 */
#define WB_OUTER_IPV6_HEADER 40
#define WB_OUTER_IPV4_HEADER 20
#define WB_UDP_HEADER 8
#define WB_TUNNEL_BYTES_INSIDE_UDP ((int)WB_DATA_OVERHEAD + WB_FRAME_DATA_HEADER)
#define WB_TUNNEL_OVERHEAD (WB_OUTER_IPV6_HEADER + WB_UDP_HEADER + WB_TUNNEL_BYTES_INSIDE_UDP)
#define WB_TUNNEL_OVERHEAD_IPV4 (WB_OUTER_IPV4_HEADER + WB_UDP_HEADER + WB_TUNNEL_BYTES_INSIDE_UDP)
/*
 * What a packet of len bytes is counted as wherever it is weighed against a
 * window, a pacing budget or a path: len and the tunnel's bytes around it,
 * with room for the acks that ride along (64 in all).
 */
#define WB_ACK_ROOM 25
#define WB_TUNNEL_BYTES_WITH_ACKS (WB_TUNNEL_BYTES_INSIDE_UDP + WB_ACK_ROOM)
/* The largest sealed body for a TUN MTU: one full data frame; acks ride along when there is room. */
#define WB_MAX_BODY(mtu) ((mtu) + WB_FRAME_DATA_HEADER)

/*
 * The largest datagram we build: what one UDP datagram carries over IPv4
 * (65535 less the IP and UDP headers; IPv6 would take 20 more). A TUN MTU
 * is bounded so that its full data datagram fits, and every length on the
 * packet path then fits in the 16 bits of the wire's length fields.
 */
#define WB_MAX_DATAGRAM 65507
#define WB_MAX_TUN_MTU (WB_MAX_DATAGRAM - WB_TUNNEL_BYTES_INSIDE_UDP)

/* Noise names and labels. The prologue keeps us from talking to WireGuard. */
#define WB_NOISE_CONSTRUCTION "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s"
#define WB_NOISE_IDENTIFIER "wanbond v1 multi-uplink bonding"
#define WB_LABEL_MAC1 "mac1----"
#define WB_LABEL_COOKIE "cookie--"

#endif
