// SPDX-License-Identifier: MIT
#include "cookie.h"

#include <errno.h>
#include <string.h>

#include "byteorder.h"

int wb_cookie_add_macs(void *msg, size_t msg_len, const uint8_t remote_mac1_key[WB_HASH_LEN],
		       struct wb_cookie_jar *jar, uint64_t now)
{
	uint8_t *mac1 = (uint8_t *)msg + msg_len - WB_MACS_LEN, *mac2 = mac1 + WB_MAC_LEN;
	int rc = wb_mac(mac1, WB_MAC_LEN, remote_mac1_key, WB_HASH_LEN, msg, msg_len - WB_MACS_LEN);

	if (rc)
		return rc;
	memcpy(jar->last_mac1, mac1, WB_MAC_LEN);
	jar->has_last_mac1 = true;
	if (jar->has_cookie && now - jar->cookie_born_ns < WB_COOKIE_VALID_NS)
		return wb_mac(mac2, WB_MAC_LEN, jar->cookie, WB_MAC_LEN, msg, msg_len - WB_MAC_LEN);
	memset(mac2, 0, WB_MAC_LEN);
	return 0;
}

bool wb_cookie_secret_due(const struct wb_cookie_checker *c, uint64_t now)
{
	return !c->has_secret || now - c->secret_born_ns >= WB_COOKIE_SECRET_MAX_AGE_NS;
}

void wb_cookie_set_secret(struct wb_cookie_checker *c, const uint8_t secret[WB_HASH_LEN], uint64_t now)
{
	memcpy(c->secret, secret, WB_HASH_LEN);
	c->secret_born_ns = now;
	c->has_secret = true;
}

/* The cookie of a source: MAC(secret, address || port). */
static int cookie_of(uint8_t cookie[WB_MAC_LEN], const struct wb_cookie_checker *c, const struct wb_endpoint *src)
{
	uint8_t bytes[18];
	size_t n = wb_endpoint_bytes(src, bytes);

	if (!c->has_secret)
		return -EINVAL;
	return wb_mac(cookie, WB_MAC_LEN, c->secret, WB_HASH_LEN, bytes, n);
}

enum wb_mac_result wb_cookie_validate(const struct wb_cookie_checker *c, const struct wb_noise_local *l,
				      const void *msg, size_t msg_len, const struct wb_endpoint *src)
{
	const uint8_t *mac1, *mac2;
	uint8_t expect[WB_MAC_LEN], cookie[WB_MAC_LEN];

	if (msg_len < WB_MACS_LEN)
		return WB_MAC_BAD;
	mac1 = (const uint8_t *)msg + msg_len - WB_MACS_LEN;
	mac2 = mac1 + WB_MAC_LEN;
	if (wb_mac(expect, WB_MAC_LEN, l->mac1_key, WB_HASH_LEN, msg, msg_len - WB_MACS_LEN) ||
	    !wb_equal(expect, mac1, WB_MAC_LEN))
		return WB_MAC_BAD;
	if (cookie_of(cookie, c, src) ||
	    wb_mac(expect, WB_MAC_LEN, cookie, WB_MAC_LEN, msg, msg_len - WB_MAC_LEN) ||
	    !wb_equal(expect, mac2, WB_MAC_LEN))
		return WB_MAC1_OK;
	return WB_MAC1_MAC2_OK;
}

int wb_cookie_create_reply(struct wb_msg_cookie *reply, const struct wb_cookie_checker *c,
			   const struct wb_noise_local *l, const void *msg, size_t msg_len, uint32_t receiver_index,
			   const struct wb_endpoint *src, const uint8_t nonce[WB_NONCE_LEN])
{
	const uint8_t *mac1 = (const uint8_t *)msg + msg_len - WB_MACS_LEN;
	uint8_t cookie[WB_MAC_LEN];
	int rc;

	memset(reply, 0, sizeof(*reply));
	reply->type = WB_MSG_COOKIE;
	wb_put_le32(&reply->receiver_index, receiver_index);
	memcpy(reply->nonce, nonce, WB_NONCE_LEN);
	rc = cookie_of(cookie, c, src);
	/* Bound to the mac1 it answers: a reply cannot be replayed against another message. */
	if (!rc)
		rc = wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, l->cookie_key, nonce, mac1, WB_MAC_LEN,
					cookie, WB_MAC_LEN, reply->encrypted_cookie);
	wb_wipe(cookie, sizeof(cookie));
	return rc;
}

int wb_cookie_consume_reply(const struct wb_msg_cookie *reply, struct wb_cookie_jar *jar,
			    const uint8_t remote_cookie_key[WB_HASH_LEN], uint64_t now)
{
	uint8_t cookie[WB_MAC_LEN];

	if (!jar->has_last_mac1)
		return -EINVAL;
	if (wb_aead_open_nonce(WB_CIPHER_CHACHA20_POLY1305, remote_cookie_key, reply->nonce, jar->last_mac1,
			       WB_MAC_LEN, reply->encrypted_cookie, sizeof(reply->encrypted_cookie), cookie))
		return -EBADMSG;
	memcpy(jar->cookie, cookie, WB_MAC_LEN);
	jar->cookie_born_ns = now;
	jar->has_cookie = true;
	wb_wipe(cookie, sizeof(cookie));
	return 0;
}
