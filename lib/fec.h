/* SPDX-License-Identifier: MIT */
/*
 * Forward error correction for the interactive class (calls, games): after
 * every K of its packets the sender sends one parity frame, the XOR of the
 * K packets, so that the receiver rebuilds any one of them that was lost
 * without waiting a round trip for a resend. A call's packet resent after a
 * loss comes a round trip and a loss detection late, when the codec has
 * long played over the hole; the parity comes a few packets later.
 *
 * The class's packets are interleaved with the bulk's, so the DSNs a parity
 * covers are not consecutive: the frame lists them (layout in wire.h, at
 * WB_FRAME_FEC_PARITY). Packets are zero-padded to the longest of the block;
 * the XOR of their lengths gives the rebuilt one's.
 *
 * Pure state: no system call, no clock. The sender decides when a block
 * that waits too long is flushed, the receiver which packets it notes.
 */
#ifndef WB_FEC_H
#define WB_FEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_FEC_MAX_BLOCK 16        /* packets one parity covers at most */
#define WB_FEC_MAX_PAYLOAD 1500    /* interactive packets larger than this are not protected */
/* The largest parity frame: type, first DSN, count, the deltas, the two lengths, the payload. */
#define WB_FEC_PARITY_MAX_LEN (1 + 8 + 1 + 8 * (WB_FEC_MAX_BLOCK - 1) + 2 + 2 + WB_FEC_MAX_PAYLOAD)

/*
 * The residual loss K is chosen for: the share of the class's packets lost
 * and not rebuilt, 0.1%. A codec conceals that much without a listener
 * noticing; below it, parity buys nothing the target asks for.
 */
#define WB_FEC_TARGET_PPM 1000

/*
 * The packets the receiver keeps for rebuilding: the last 64 interactive
 * ones it got, about a second of a call, which outlasts a block of 16 and
 * its reordering.
 */
#define WB_FEC_RING 64

/* The sender's block being built. */
struct wb_fec_encoder {
	unsigned k;                 /* packets per parity now: 0 (off) or 2..WB_FEC_MAX_BLOCK */
	unsigned n;                 /* packets in the block so far */
	bool ready;                 /* the block is closed: its parity waits to be written */
	uint64_t dsns[WB_FEC_MAX_BLOCK];
	uint16_t len_xor;
	uint16_t max_len;           /* the parity's payload; every byte of parity[] past it is 0 */
	uint8_t parity[WB_FEC_MAX_PAYLOAD];
	uint64_t blocks, protected_packets; /* parity frames written, and the packets they cover */
};

void wb_fec_encoder_init(struct wb_fec_encoder *e, unsigned k);

/*
 * Sets K: 0 turns FEC off, 1 is taken as 2 (a parity of one packet is a
 * copy, and the frame needs two), more than WB_FEC_MAX_BLOCK as the most.
 * Turned off, the block being built is dropped: K goes to 0 when the loss
 * fell below the target, so those few packets lose a protection they do
 * not need. A new K goes on with the block: if it already holds K packets
 * or more, the next packet closes it (or wb_fec_flush_ready at once).
 */
void wb_fec_set_k(struct wb_fec_encoder *e, unsigned k);

/*
 * Adds a packet sent with dsn (its first sending only: a resend keeps its
 * DSN and is covered already). Returns true when the block is complete and
 * its parity ready: wb_fec_parity_len says how long it is and
 * wb_fec_put_parity writes it and starts a new block. Skipped (false): with
 * FEC off, an empty packet, one over WB_FEC_MAX_PAYLOAD, a DSN past the
 * varints' 2^62 - 1. A DSN not above the block's last (the peer restarted
 * and DSNs start over) drops the block and starts a new one with it; so
 * does any packet while a ready parity was not written.
 */
bool wb_fec_add(struct wb_fec_encoder *e, uint64_t dsn, const uint8_t *ip, size_t len);

/*
 * The stream paused with a block not full: the sender flushes it when no
 * interactive packet followed for a while (the bond's parity block timer:
 * 40 ms after the block's first packet), since a parity is of use only while
 * the receiver still waits for the gap. Returns true when the block holds two
 * packets or more and its parity is now ready (write it as a full block's);
 * a block of one packet is dropped, false.
 */
bool wb_fec_flush_ready(struct wb_fec_encoder *e);

/* The bytes the ready parity frame takes (at most WB_FEC_PARITY_MAX_LEN); 0 if none is ready. */
size_t wb_fec_parity_len(const struct wb_fec_encoder *e);
/* Writes the ready parity frame at p and starts a new block; 0 (nothing written) if none is ready. */
size_t wb_fec_put_parity(uint8_t *p, struct wb_fec_encoder *e);

/* A parsed parity frame; payload points into the body parsed. */
struct wb_fec_parity {
	uint64_t first_dsn;
	unsigned n;                             /* 2..WB_FEC_MAX_BLOCK */
	uint64_t dsns[WB_FEC_MAX_BLOCK];        /* ascending, first_dsn first, at most 2^62 - 1 */
	uint16_t len_xor;                       /* XOR of the packets' lengths */
	const uint8_t *payload;                 /* XOR of the packets, each zero-padded to payload_len */
	size_t payload_len;                     /* 1..WB_FEC_MAX_PAYLOAD */
};

/*
 * Parses a parity frame at p (its type byte) within avail bytes. Returns the
 * bytes it takes, or -EBADMSG: truncated, n out of 2..WB_FEC_MAX_BLOCK, a
 * delta of 0 or DSNs past 2^62 - 1, a payload of 0 bytes or over
 * WB_FEC_MAX_PAYLOAD, or a len_xor that no lengths up to payload_len make.
 */
int wb_fec_parse_parity(const uint8_t *p, size_t avail, struct wb_fec_parity *out);

/*
 * The receiver: the last WB_FEC_RING interactive packets it got, in the
 * order they came. Not a ring indexed by DSN: the class's DSNs are spread
 * among the bulk's, and any slot of their DSN modulo the ring would be
 * taken by another of them at random; by arrival it keeps exactly the last.
 */
struct wb_fec_decoder {
	uint8_t (*data)[WB_FEC_MAX_PAYLOAD];    /* WB_FEC_RING packets, allocated once */
	uint64_t dsns[WB_FEC_RING];
	uint16_t lens[WB_FEC_RING];             /* 0: an empty slot */
	unsigned next;                          /* the slot the next packet takes: the oldest */
	uint64_t recovered, unrecoverable, late, corrupt;
};

int wb_fec_decoder_init(struct wb_fec_decoder *d); /* -ENOMEM */
void wb_fec_decoder_free(struct wb_fec_decoder *d);
/* Forgets every packet (the peer restarted: DSNs start over); the counts go on. */
void wb_fec_decoder_restart(struct wb_fec_decoder *d);

/*
 * An interactive packet arrived: note each one the reorder buffer took
 * (not its duplicates, which would only take slots). Empty packets and
 * those over WB_FEC_MAX_PAYLOAD are not kept.
 */
void wb_fec_note_received(struct wb_fec_decoder *d, uint64_t dsn, const uint8_t *ip, size_t len);

/*
 * Rebuilds the one packet of a parity that did not arrive, if exactly one
 * did not and its DSN is at or above nxt (the receiver's next DSN expected:
 * every one below was delivered or given up). Returns 1 with *dsn, out (the
 * caller's WB_FEC_MAX_PAYLOAD bytes) and *len set, and the rebuilt packet
 * noted as received; 0 if there is nothing to rebuild (all there, two or
 * more missing, or fallen out of the ring, or the missing one below nxt);
 * -EBADMSG if the parity does not agree with the packets held (a rebuilt
 * length of 0 or over payload_len, a held packet longer than the payload,
 * padding that is not zero): a buggy peer reads and writes nothing out of
 * bounds.
 */
int wb_fec_recover(struct wb_fec_decoder *d, const struct wb_fec_parity *p, uint64_t nxt, uint64_t *dsn,
		   uint8_t *out, size_t *len);

/*
 * K for the class's uplinks, whose worst measured loss is loss_ppm (parts
 * per million), for losses taken as independent: a call's packets go 20 ms
 * apart, longer than most bursts. A packet of a block of K and its parity
 * is lost for good when it is lost and another of the K + 1 is too:
 *
 *     residual(K) = p (1 - (1 - p)^K)
 *
 * K is the largest of 2..WB_FEC_MAX_BLOCK with residual(K) at most
 * WB_FEC_TARGET_PPM; 2 when even that misses it (over about 2.25% loss, where
 * K = 2 still cuts the loss tenfold at 5%). At or below the target, 0: the
 * loss meets it without parity, which costs at least one packet in 16.
 * 0.5% gives 16, 1% 10, 2% 2.
 */
unsigned wb_fec_choose_k(uint32_t loss_ppm);

#endif
