/* SPDX-License-Identifier: MIT */
/*
 * A session: the two data keys one handshake gave, with a message counter and
 * an anti-replay window per uplink. A bond holds up to three (bond.h): the
 * previous one (still accepted while the peer switches), the current one, and
 * on the responder the next one, unconfirmed until the initiator uses it.
 */
#ifndef WB_KEYPAIR_H
#define WB_KEYPAIR_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto.h"
#include "noise.h"
#include "replay.h"
#include "wire.h"

struct wb_keypair {
	struct wb_aead *send, *recv;
	uint32_t local_index, remote_index;
	uint64_t born_ns;
	uint64_t peer_incarnation;               /* sealed in the peer's handshake message */
	uint8_t peer_caps;                       /* WB_CAP_*: what the peer reads, from its handshake message */
	bool initiator;
	uint64_t sealed;                         /* messages sealed, all uplinks together */
	uint64_t opened;                         /* messages opened, all uplinks together */
	struct wb_replay replay[WB_MAX_UPLINKS];
};

/* NULL without memory; the keys in k are not wiped (the caller's). */
struct wb_keypair *wb_keypair_new(enum wb_cipher c, const struct wb_noise_keys *k, uint64_t now);
void wb_keypair_free(struct wb_keypair *kp);

/*
 * Seals a data message in place: buf holds room for the header
 * (WB_DATA_HEADER_LEN), then body_len bytes of frames, then room for the
 * tag (WB_TAG_LEN). The counter
 * is the uplink's packet number: it goes on across sessions, so it is
 * unique under every key, and the uplink's acks can name packets by it.
 * Writes the header and returns the message length, or a negative errno
 * (-ENOSPC for a counter past what a key may seal).
 */
int wb_keypair_seal(struct wb_keypair *kp, uint8_t uplink, uint64_t counter, uint8_t *buf, size_t body_len);

/*
 * Opens a data message in place (len: header, body and tag) and runs the
 * replay check of its uplink. Returns the body length, -EBADMSG if it does
 * not authenticate, -EALREADY for a replay or a counter too old.
 */
int wb_keypair_open(struct wb_keypair *kp, uint8_t *buf, size_t len);

#endif
