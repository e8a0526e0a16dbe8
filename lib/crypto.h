/* SPDX-License-Identifier: MIT */
/*
 * The cryptographic primitives of wanbond, as the Noise IKpsk2 handshake of
 * WireGuard uses them: X25519, BLAKE2s (hash, keyed MAC, HKDF) and an
 * AEAD (ChaCha20-Poly1305, or AES-256-GCM for data). crypto.c is the only
 * file that includes OpenSSL; everything here is OpenSSL 3's EVP.
 *
 * Errors: functions return 0 or a negative errno (-EBADMSG: authentication
 * failed; -EINVAL: a bad key, such as an X25519 public key of low order;
 * -ENOMEM). Nothing here prints.
 */
#ifndef WB_CRYPTO_H
#define WB_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WB_KEY_LEN 32
#define WB_HASH_LEN 32
#define WB_TAG_LEN 16
#define WB_MAC_LEN 16   /* mac1, mac2 and cookies: BLAKE2s with a 16-byte output */
#define WB_NONCE_LEN 12

enum wb_cipher {
	WB_CIPHER_CHACHA20_POLY1305,
	WB_CIPHER_AES_256_GCM,
};

const char *wb_cipher_name(enum wb_cipher c);
/* "chacha20-poly1305" or "aes-256-gcm"; -EINVAL for anything else. */
int wb_cipher_from_name(const char *name, enum wb_cipher *out);

/* X25519. A private key is 32 random bytes, clamped here. */
void wb_x25519_clamp(uint8_t priv[WB_KEY_LEN]);
int wb_x25519_public(uint8_t pub[WB_KEY_LEN], const uint8_t priv[WB_KEY_LEN]);
/* -EINVAL if the result is all zeros (a low-order public key). */
int wb_x25519(uint8_t shared[WB_KEY_LEN], const uint8_t priv[WB_KEY_LEN], const uint8_t pub[WB_KEY_LEN]);

/* HASH(a || b), BLAKE2s-256; b may be NULL with blen 0. */
int wb_hash2(uint8_t out[WB_HASH_LEN], const void *a, size_t alen, const void *b, size_t blen);
/* Keyed BLAKE2s with an outlen-byte output (16 or 32), as Noise's MAC(). */
int wb_mac(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen, const void *in, size_t inlen);
/*
 * Noise's KDF: HKDF with HMAC-BLAKE2s, from the chaining key and the input,
 * up to three 32-byte outputs (t2 and t3 may be NULL).
 */
int wb_kdf(uint8_t t1[WB_HASH_LEN], uint8_t *t2, uint8_t *t3, const uint8_t ck[WB_HASH_LEN],
	   const void *in, size_t inlen);

/* One-shot AEAD with a 64-bit counter nonce (4 zero bytes, then the counter LE). */
int wb_aead_seal_once(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], uint64_t counter,
		      const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out);
int wb_aead_open_once(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], uint64_t counter,
		      const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out);
/* The same with a full 96-bit nonce (cookie replies use a random one). */
int wb_aead_seal_nonce(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
		       const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out);
int wb_aead_open_nonce(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
		       const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out);

/*
 * A keyed AEAD context for the data path: the key schedule is done once, and
 * each packet only sets its nonce. in and out may be the same buffer.
 */
struct wb_aead;
struct wb_aead *wb_aead_new(enum wb_cipher c, const uint8_t key[WB_KEY_LEN]);
void wb_aead_free(struct wb_aead *a);
/* out receives len bytes of ciphertext and the 16-byte tag. */
int wb_aead_seal(struct wb_aead *a, const uint8_t nonce[WB_NONCE_LEN], const void *aad, size_t aadlen,
		 const uint8_t *in, size_t len, uint8_t *out);
/* in is ciphertext and tag (len includes the tag); out receives len - 16 bytes. */
int wb_aead_open(struct wb_aead *a, const uint8_t nonce[WB_NONCE_LEN], const void *aad, size_t aadlen,
		 const uint8_t *in, size_t len, uint8_t *out);

/* Wipes secrets (the compiler cannot drop it). */
void wb_wipe(void *p, size_t len);
/* Constant-time comparison, for tags, MACs and cookies. */
bool wb_equal(const void *a, const void *b, size_t len);

/* Base64 of a 32-byte key, as wg(8) prints it: 44 characters and a NUL. */
#define WB_KEY_B64_LEN 45
void wb_key_to_base64(char out[WB_KEY_B64_LEN], const uint8_t key[WB_KEY_LEN]);
/* -EINVAL unless s is exactly the base64 of 32 bytes. */
int wb_key_from_base64(uint8_t key[WB_KEY_LEN], const char *s);

#endif
