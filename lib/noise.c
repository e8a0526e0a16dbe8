// SPDX-License-Identifier: MIT
/*
 * Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s, message for message as in the
 * WireGuard paper (section 5.4), with our own prologue. Every step works on
 * copies of the handshake state, committed only when the message checks out:
 * a bad message changes nothing.
 */
#include "noise.h"

#include <errno.h>
#include <string.h>

#include "byteorder.h"
#include "nsec.h"

/* The chaining key and hash every handshake starts from. */
static int initial_state(uint8_t ck[WB_HASH_LEN], uint8_t h[WB_HASH_LEN], const uint8_t responder_public[WB_KEY_LEN])
{
	int rc = wb_hash2(ck, WB_NOISE_CONSTRUCTION, strlen(WB_NOISE_CONSTRUCTION), NULL, 0);

	if (!rc)
		rc = wb_hash2(h, ck, WB_HASH_LEN, WB_NOISE_IDENTIFIER, strlen(WB_NOISE_IDENTIFIER));
	if (!rc)
		rc = wb_hash2(h, h, WB_HASH_LEN, responder_public, WB_KEY_LEN);
	return rc;
}

static int mix_hash(uint8_t h[WB_HASH_LEN], const void *data, size_t len)
{
	return wb_hash2(h, h, WB_HASH_LEN, data, len);
}

static int mix_key(uint8_t ck[WB_HASH_LEN], const void *data, size_t len)
{
	return wb_kdf(ck, NULL, NULL, ck, data, len);
}

/* ck, key = KDF2(ck, DH(priv, pub)) */
static int mix_dh(uint8_t ck[WB_HASH_LEN], uint8_t key[WB_KEY_LEN], const uint8_t priv[WB_KEY_LEN],
		  const uint8_t pub[WB_KEY_LEN])
{
	uint8_t dh[WB_KEY_LEN];
	int rc = wb_x25519(dh, priv, pub);

	if (!rc)
		rc = key ? wb_kdf(ck, key, NULL, ck, dh, sizeof(dh)) : mix_key(ck, dh, sizeof(dh));
	wb_wipe(dh, sizeof(dh));
	return rc;
}

/* ck, tau, key = KDF3(ck, psk); h = HASH(h || tau) */
static int mix_psk(uint8_t ck[WB_HASH_LEN], uint8_t h[WB_HASH_LEN], uint8_t key[WB_KEY_LEN],
		   const uint8_t psk[WB_KEY_LEN])
{
	uint8_t tau[WB_HASH_LEN];
	int rc = wb_kdf(ck, tau, key, ck, psk, WB_KEY_LEN);

	if (!rc)
		rc = mix_hash(h, tau, sizeof(tau));
	wb_wipe(tau, sizeof(tau));
	return rc;
}

/* Seal with the handshake hash as associated data, then mix the ciphertext in. */
static int seal_and_hash(uint8_t *out, uint8_t h[WB_HASH_LEN], const uint8_t key[WB_KEY_LEN], const void *in, size_t len)
{
	int rc = wb_aead_seal_once(WB_CIPHER_CHACHA20_POLY1305, key, 0, h, WB_HASH_LEN, in, len, out);

	return rc ? rc : mix_hash(h, out, len + WB_TAG_LEN);
}

static int open_and_hash(uint8_t *out, uint8_t h[WB_HASH_LEN], const uint8_t key[WB_KEY_LEN], const uint8_t *in, size_t len)
{
	int rc = wb_aead_open_once(WB_CIPHER_CHACHA20_POLY1305, key, 0, h, WB_HASH_LEN, in, len, out);

	return rc ? rc : mix_hash(h, in, len);
}

static int new_ephemeral(uint8_t priv[WB_KEY_LEN], uint8_t pub[WB_KEY_LEN], const uint8_t seed[WB_KEY_LEN])
{
	memcpy(priv, seed, WB_KEY_LEN);
	wb_x25519_clamp(priv);
	return wb_x25519_public(pub, priv);
}

int wb_noise_local_init(struct wb_noise_local *l, const uint8_t private_key[WB_KEY_LEN])
{
	int rc;

	memcpy(l->private_key, private_key, WB_KEY_LEN);
	wb_x25519_clamp(l->private_key);
	rc = wb_x25519_public(l->public_key, l->private_key);
	if (!rc)
		rc = wb_hash2(l->mac1_key, WB_LABEL_MAC1, strlen(WB_LABEL_MAC1), l->public_key, WB_KEY_LEN);
	if (!rc)
		rc = wb_hash2(l->cookie_key, WB_LABEL_COOKIE, strlen(WB_LABEL_COOKIE), l->public_key, WB_KEY_LEN);
	l->caps = WB_CAPS_ALL;
	if (rc)
		wb_wipe(l, sizeof(*l));
	return rc;
}

int wb_noise_remote_init(struct wb_noise_remote *r, const struct wb_noise_local *l,
			 const uint8_t public_key[WB_KEY_LEN], const uint8_t preshared_key[WB_KEY_LEN])
{
	int rc;

	memset(r, 0, sizeof(*r));
	memcpy(r->public_key, public_key, WB_KEY_LEN);
	if (preshared_key)
		memcpy(r->preshared_key, preshared_key, WB_KEY_LEN);
	/* A low-order key gives no shared secret: such a peer can never complete a handshake. */
	r->static_static_ok = !wb_x25519(r->static_static, l->private_key, public_key);
	rc = wb_hash2(r->mac1_key, WB_LABEL_MAC1, strlen(WB_LABEL_MAC1), public_key, WB_KEY_LEN);
	if (!rc)
		rc = wb_hash2(r->cookie_key, WB_LABEL_COOKIE, strlen(WB_LABEL_COOKIE), public_key, WB_KEY_LEN);
	return rc;
}

/* 2^24 ns, the power of two below 1/50 s: WireGuard's coarsening. */
#define TAI64N_GRAIN_NS (1u << 24)

void wb_tai64n(uint8_t out[WB_TAI64N_LEN], uint64_t unix_ns)
{
	uint64_t secs = 0x400000000000000aULL + unix_ns / WB_NSEC_PER_SEC;
	uint32_t nsec = (uint32_t)(unix_ns % WB_NSEC_PER_SEC) & ~(TAI64N_GRAIN_NS - 1);

	wb_put_be64(out, secs);
	wb_put_be32(out + 8, nsec);
}

uint64_t wb_tai64n_floor(uint64_t unix_ns)
{
	return unix_ns / WB_NSEC_PER_SEC * WB_NSEC_PER_SEC +
	       ((unix_ns % WB_NSEC_PER_SEC) & ~(uint64_t)(TAI64N_GRAIN_NS - 1));
}

uint64_t wb_tai64n_next(uint64_t t)
{
	uint64_t secs = t / WB_NSEC_PER_SEC, nsec = wb_tai64n_floor(t) % WB_NSEC_PER_SEC + TAI64N_GRAIN_NS;

	/* The last grain of a second is shorter than the others: its successor is the next second. */
	return nsec >= WB_NSEC_PER_SEC ? (secs + 1) * WB_NSEC_PER_SEC : secs * WB_NSEC_PER_SEC + nsec;
}

void wb_noise_handshake_clear(struct wb_noise_handshake *hs)
{
	wb_wipe(hs, sizeof(*hs));
	hs->state = WB_NOISE_ZEROED;
}

int wb_noise_create_initiation(struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			       const struct wb_noise_local *l, const struct wb_noise_remote *r,
			       const uint8_t ephemeral_seed[WB_KEY_LEN], uint32_t local_index, uint64_t unix_ns)
{
	struct wb_noise_handshake t = { 0 };
	uint8_t key[WB_KEY_LEN], payload[WB_TAI64N_LEN + WB_INCARNATION_LEN];
	int rc;

	if (!r->static_static_ok)
		return -EINVAL;
	memset(msg, 0, sizeof(*msg));
	msg->type = WB_MSG_INITIATION;
	msg->caps = l->caps;
	wb_put_le32(&msg->sender_index, local_index);
	wb_tai64n(payload, unix_ns);
	wb_put_le64(payload + WB_TAI64N_LEN, l->incarnation);

	rc = initial_state(t.chaining_key, t.hash, r->public_key);
	if (!rc)
		rc = new_ephemeral(t.ephemeral_private, msg->ephemeral, ephemeral_seed);
	if (!rc)
		rc = mix_key(t.chaining_key, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_hash(t.hash, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_dh(t.chaining_key, key, t.ephemeral_private, r->public_key);
	if (!rc)
		rc = seal_and_hash(msg->encrypted_static, t.hash, key, l->public_key, WB_KEY_LEN);
	if (!rc)
		rc = wb_kdf(t.chaining_key, key, NULL, t.chaining_key, r->static_static, WB_KEY_LEN);
	if (!rc)
		rc = seal_and_hash(msg->encrypted_payload, t.hash, key, payload, sizeof(payload));
	if (!rc) {
		t.state = WB_NOISE_CREATED_INITIATION;
		t.local_index = local_index;
		memcpy(t.remote_static, r->public_key, WB_KEY_LEN);
		*hs = t;
	}
	wb_wipe(&t, sizeof(t));
	wb_wipe(key, sizeof(key));
	return rc;
}

int wb_noise_open_initiation(const struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			     const struct wb_noise_local *l)
{
	struct wb_noise_handshake t = { 0 };
	uint8_t key[WB_KEY_LEN];
	int rc;

	if (msg->type != WB_MSG_INITIATION)
		return -EINVAL;
	memcpy(t.remote_ephemeral, msg->ephemeral, WB_KEY_LEN);
	rc = initial_state(t.chaining_key, t.hash, l->public_key);
	if (!rc)
		rc = mix_key(t.chaining_key, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_hash(t.hash, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_dh(t.chaining_key, key, l->private_key, msg->ephemeral);
	if (!rc)
		rc = open_and_hash(t.remote_static, t.hash, key, msg->encrypted_static, sizeof(msg->encrypted_static));
	if (!rc) {
		t.remote_index = wb_get_le32(&msg->sender_index);
		t.remote_caps = msg->caps;
		*hs = t;
	}
	wb_wipe(&t, sizeof(t));
	wb_wipe(key, sizeof(key));
	return rc ? -EBADMSG : 0;
}

int wb_noise_finish_initiation(const struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			       const struct wb_noise_remote *r, uint8_t timestamp[WB_TAI64N_LEN])
{
	struct wb_noise_handshake t = *hs;
	uint8_t key[WB_KEY_LEN], payload[WB_TAI64N_LEN + WB_INCARNATION_LEN];
	int rc = -EBADMSG;

	if (r->static_static_ok && wb_equal(t.remote_static, r->public_key, WB_KEY_LEN)) {
		rc = wb_kdf(t.chaining_key, key, NULL, t.chaining_key, r->static_static, WB_KEY_LEN);
		if (!rc)
			rc = open_and_hash(payload, t.hash, key, msg->encrypted_payload, sizeof(msg->encrypted_payload));
	}
	if (!rc) {
		memcpy(timestamp, payload, WB_TAI64N_LEN);
		t.remote_incarnation = wb_get_le64(payload + WB_TAI64N_LEN);
		t.state = WB_NOISE_CONSUMED_INITIATION;
		*hs = t;
	}
	wb_wipe(&t, sizeof(t));
	wb_wipe(key, sizeof(key));
	return rc ? -EBADMSG : 0;
}

int wb_noise_create_response(struct wb_msg_response *msg, struct wb_noise_handshake *hs,
			     const struct wb_noise_local *l, const struct wb_noise_remote *r,
			     const uint8_t ephemeral_seed[WB_KEY_LEN], uint32_t local_index)
{
	struct wb_noise_handshake t = *hs;
	uint8_t key[WB_KEY_LEN], incarnation[WB_INCARNATION_LEN];
	int rc;

	if (t.state != WB_NOISE_CONSUMED_INITIATION)
		return -EINVAL;
	memset(msg, 0, sizeof(*msg));
	msg->type = WB_MSG_RESPONSE;
	msg->caps = l->caps;
	wb_put_le32(&msg->sender_index, local_index);
	wb_put_le32(&msg->receiver_index, t.remote_index);
	wb_put_le64(incarnation, l->incarnation);

	rc = new_ephemeral(t.ephemeral_private, msg->ephemeral, ephemeral_seed);
	if (!rc)
		rc = mix_key(t.chaining_key, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_hash(t.hash, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_dh(t.chaining_key, NULL, t.ephemeral_private, t.remote_ephemeral);
	if (!rc)
		rc = mix_dh(t.chaining_key, NULL, t.ephemeral_private, t.remote_static);
	if (!rc)
		rc = mix_psk(t.chaining_key, t.hash, key, r->preshared_key);
	if (!rc)
		rc = seal_and_hash(msg->encrypted_incarnation, t.hash, key, incarnation, sizeof(incarnation));
	if (!rc) {
		t.state = WB_NOISE_CREATED_RESPONSE;
		t.local_index = local_index;
		*hs = t;
	}
	wb_wipe(&t, sizeof(t));
	wb_wipe(key, sizeof(key));
	return rc;
}

int wb_noise_consume_response(const struct wb_msg_response *msg, struct wb_noise_handshake *hs,
			      const struct wb_noise_local *l, const struct wb_noise_remote *r)
{
	struct wb_noise_handshake t = *hs;
	uint8_t key[WB_KEY_LEN], incarnation[WB_INCARNATION_LEN];
	int rc;

	if (t.state != WB_NOISE_CREATED_INITIATION || msg->type != WB_MSG_RESPONSE ||
	    wb_get_le32(&msg->receiver_index) != t.local_index)
		return -EINVAL;
	rc = mix_key(t.chaining_key, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_hash(t.hash, msg->ephemeral, WB_KEY_LEN);
	if (!rc)
		rc = mix_dh(t.chaining_key, NULL, t.ephemeral_private, msg->ephemeral);
	if (!rc)
		rc = mix_dh(t.chaining_key, NULL, l->private_key, msg->ephemeral);
	if (!rc)
		rc = mix_psk(t.chaining_key, t.hash, key, r->preshared_key);
	if (!rc)
		rc = open_and_hash(incarnation, t.hash, key, msg->encrypted_incarnation,
				   sizeof(msg->encrypted_incarnation));
	if (!rc) {
		t.remote_incarnation = wb_get_le64(incarnation);
		t.remote_caps = msg->caps;
		t.state = WB_NOISE_CONSUMED_RESPONSE;
		t.remote_index = wb_get_le32(&msg->sender_index);
		memcpy(t.remote_ephemeral, msg->ephemeral, WB_KEY_LEN);
		*hs = t;
	}
	wb_wipe(&t, sizeof(t));
	wb_wipe(key, sizeof(key));
	return rc ? -EBADMSG : 0;
}

int wb_noise_derive_keys(struct wb_noise_handshake *hs, struct wb_noise_keys *keys)
{
	bool initiator = hs->state == WB_NOISE_CONSUMED_RESPONSE;
	uint8_t first[WB_KEY_LEN], second[WB_KEY_LEN];
	int rc;

	if (!initiator && hs->state != WB_NOISE_CREATED_RESPONSE)
		return -EINVAL;
	rc = wb_kdf(first, second, NULL, hs->chaining_key, NULL, 0);
	if (!rc) {
		memcpy(keys->send, initiator ? first : second, WB_KEY_LEN);
		memcpy(keys->recv, initiator ? second : first, WB_KEY_LEN);
		keys->local_index = hs->local_index;
		keys->remote_index = hs->remote_index;
		keys->remote_incarnation = hs->remote_incarnation;
		keys->remote_caps = hs->remote_caps;
		keys->initiator = initiator;
	}
	wb_wipe(first, sizeof(first));
	wb_wipe(second, sizeof(second));
	wb_noise_handshake_clear(hs);
	return rc;
}
