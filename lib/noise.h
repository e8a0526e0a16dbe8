/* SPDX-License-Identifier: MIT */
/*
 * The Noise IKpsk2 handshake as WireGuard uses it (noise.c), on wanbond's own
 * prologue so it never talks to a WireGuard peer. This file knows only the
 * message cryptography; who may initiate, replay and flood checks, and
 * sessions are the caller's (handshake.c).
 *
 * Initiator                               Responder
 *   create_initiation  -- initiation -->    open_initiation, finish_initiation
 *   consume_response   <-- response ----    create_response
 *   derive_keys                             derive_keys (after its first data packet)
 */
#ifndef WB_NOISE_H
#define WB_NOISE_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto.h"
#include "wire.h"

/* Our own static identity, with the keys derived from it once, and this run's incarnation. */
struct wb_noise_local {
	uint8_t private_key[WB_KEY_LEN];
	uint8_t public_key[WB_KEY_LEN];
	uint8_t mac1_key[WB_HASH_LEN];   /* HASH(LABEL_MAC1 || public_key): checks mac1 sent to us */
	uint8_t cookie_key[WB_HASH_LEN]; /* HASH(LABEL_COOKIE || public_key): seals our cookie replies */
	uint64_t incarnation;            /* sealed in every handshake message we send (wire.h) */
	uint8_t caps;                    /* WB_CAP_*: what we read, in every handshake message we send */
};

/* A peer we may talk to, with what can be computed before any handshake. */
struct wb_noise_remote {
	uint8_t public_key[WB_KEY_LEN];
	uint8_t preshared_key[WB_KEY_LEN]; /* zeros when none */
	uint8_t static_static[WB_KEY_LEN]; /* DH(our static, their static) */
	bool static_static_ok;             /* false for a low-order key: never accepted */
	uint8_t mac1_key[WB_HASH_LEN];     /* for mac1 on what we send to it */
	uint8_t cookie_key[WB_HASH_LEN];   /* opens cookie replies it sends us */
};

enum wb_noise_state {
	WB_NOISE_ZEROED,
	WB_NOISE_CREATED_INITIATION,
	WB_NOISE_CONSUMED_INITIATION,
	WB_NOISE_CREATED_RESPONSE,
	WB_NOISE_CONSUMED_RESPONSE,
};

/* One handshake in progress. Wiped when it ends, whichever way. */
struct wb_noise_handshake {
	enum wb_noise_state state;
	uint32_t local_index, remote_index;
	uint8_t ephemeral_private[WB_KEY_LEN];
	uint8_t remote_ephemeral[WB_KEY_LEN];
	uint8_t remote_static[WB_KEY_LEN];
	uint64_t remote_incarnation; /* once its message is opened */
	uint8_t remote_caps;         /* WB_CAP_*, from its message */
	uint8_t hash[WB_HASH_LEN];
	uint8_t chaining_key[WB_HASH_LEN];
};

/* Session keys out of a finished handshake. */
struct wb_noise_keys {
	uint8_t send[WB_KEY_LEN];
	uint8_t recv[WB_KEY_LEN];
	uint32_t local_index, remote_index;
	uint64_t remote_incarnation;
	uint8_t remote_caps;
	bool initiator;
};

int wb_noise_local_init(struct wb_noise_local *l, const uint8_t private_key[WB_KEY_LEN]);
int wb_noise_remote_init(struct wb_noise_remote *r, const struct wb_noise_local *l,
			 const uint8_t public_key[WB_KEY_LEN], const uint8_t preshared_key[WB_KEY_LEN]);

/* TAI64N of a wall-clock time in ns, its nanoseconds rounded down (as WireGuard, against timing leaks). */
void wb_tai64n(uint8_t out[WB_TAI64N_LEN], uint64_t unix_ns);
/* A wall-clock time rounded down as its TAI64N is: the same timestamp, in Unix ns. */
uint64_t wb_tai64n_floor(uint64_t unix_ns);
/* The first time after t (rounded down) whose timestamp is newer than t's. */
uint64_t wb_tai64n_next(uint64_t t);

/*
 * Initiator: fills msg up to mac1 (mac1 and mac2 are the cookie module's),
 * sealing the timestamp of unix_ns and our incarnation. ephemeral_seed is
 * 32 random bytes; the handshake keeps the ephemeral key.
 */
int wb_noise_create_initiation(struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			       const struct wb_noise_local *l, const struct wb_noise_remote *r,
			       const uint8_t ephemeral_seed[WB_KEY_LEN], uint32_t local_index, uint64_t unix_ns);

/*
 * Responder, first half: decrypts the initiator's static key into hs so the
 * caller can find the peer. -EBADMSG if it does not decrypt.
 */
int wb_noise_open_initiation(const struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			     const struct wb_noise_local *l);

/*
 * Second half, once the peer is known: checks the static-static step and
 * decrypts the timestamp (for the caller's replay check) and the
 * initiator's incarnation (into hs). On success hs is CONSUMED_INITIATION.
 */
int wb_noise_finish_initiation(const struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			       const struct wb_noise_remote *r, uint8_t timestamp[WB_TAI64N_LEN]);

/* Responder: the response to a consumed initiation, up to mac1, with our incarnation. */
int wb_noise_create_response(struct wb_msg_response *msg, struct wb_noise_handshake *hs,
			     const struct wb_noise_local *l, const struct wb_noise_remote *r,
			     const uint8_t ephemeral_seed[WB_KEY_LEN], uint32_t local_index);

/* Initiator: checks a response to our initiation (the responder's incarnation into hs); hs becomes CONSUMED_RESPONSE. */
int wb_noise_consume_response(const struct wb_msg_response *msg, struct wb_noise_handshake *hs,
			      const struct wb_noise_local *l, const struct wb_noise_remote *r);

/* Either side, after the last message: the session keys; hs is wiped. */
int wb_noise_derive_keys(struct wb_noise_handshake *hs, struct wb_noise_keys *keys);

void wb_noise_handshake_clear(struct wb_noise_handshake *hs);

#endif
