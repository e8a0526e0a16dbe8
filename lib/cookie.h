/* SPDX-License-Identifier: MIT */
/*
 * mac1, mac2 and cookie replies, as in WireGuard: every handshake message
 * carries mac1, keyed by the receiver's public key, so a sender that does not
 * know it costs one keyed hash and nothing more. Under load the responder
 * also wants mac2, keyed by a cookie bound to the sender's address that only
 * a sender who can receive at that address gets (a cookie reply): floods from
 * spoofed addresses then stop at a hash too.
 */
#ifndef WB_COOKIE_H
#define WB_COOKIE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint.h"
#include "noise.h"
#include "nsec.h"
#include "wire.h"

#define WB_COOKIE_SECRET_MAX_AGE_NS (120 * WB_NSEC_PER_SEC)
/* A cookie is used a little less long than the secret behind it lives. */
#define WB_COOKIE_VALID_NS ((120 - 5) * WB_NSEC_PER_SEC)

/* Responder side, one per device. */
struct wb_cookie_checker {
	uint8_t secret[WB_HASH_LEN];
	uint64_t secret_born_ns;
	bool has_secret;
};

/* Sender side, one per peer: the cookie it gave us and the last mac1 we sent. */
struct wb_cookie_jar {
	uint8_t cookie[WB_MAC_LEN];
	uint64_t cookie_born_ns;
	bool has_cookie;
	uint8_t last_mac1[WB_MAC_LEN];
	bool has_last_mac1;
};

enum wb_mac_result {
	WB_MAC_BAD,        /* mac1 wrong: drop without any further work */
	WB_MAC1_OK,        /* mac1 right, mac2 missing or wrong */
	WB_MAC1_MAC2_OK,   /* both right: the sender owns its address */
};

/*
 * Fills the last 32 bytes of a handshake message (mac1, then mac2 when we
 * hold a fresh cookie from that peer). msg_len covers the whole message.
 */
int wb_cookie_add_macs(void *msg, size_t msg_len, const uint8_t remote_mac1_key[WB_HASH_LEN],
		       struct wb_cookie_jar *jar, uint64_t now);

/* The checker's secret is missing or two minutes old: set a fresh random one before using it. */
bool wb_cookie_secret_due(const struct wb_cookie_checker *c, uint64_t now);
void wb_cookie_set_secret(struct wb_cookie_checker *c, const uint8_t secret[WB_HASH_LEN], uint64_t now);

/* Checks mac1 (against our own public key) and mac2 (against the cookie of the source). */
enum wb_mac_result wb_cookie_validate(const struct wb_cookie_checker *c, const struct wb_noise_local *l,
				      const void *msg, size_t msg_len, const struct wb_endpoint *src);

/* The reply that gives the source its cookie; nonce: 12 random bytes. */
int wb_cookie_create_reply(struct wb_msg_cookie *reply, const struct wb_cookie_checker *c,
			   const struct wb_noise_local *l, const void *msg, size_t msg_len, uint32_t receiver_index,
			   const struct wb_endpoint *src, const uint8_t nonce[WB_NONCE_LEN]);

/* Takes a cookie from a reply to the last message we sent that peer. */
int wb_cookie_consume_reply(const struct wb_msg_cookie *reply, struct wb_cookie_jar *jar,
			    const uint8_t remote_cookie_key[WB_HASH_LEN], uint64_t now);

#endif
