// SPDX-License-Identifier: MIT
/* The only file of wanbond that includes OpenSSL: see crypto.h. */
#include "crypto.h"

#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

const char *wb_cipher_name(enum wb_cipher c)
{
	return c == WB_CIPHER_AES_256_GCM ? "aes-256-gcm" : "chacha20-poly1305";
}

int wb_cipher_from_name(const char *name, enum wb_cipher *out)
{
	if (!strcmp(name, "chacha20-poly1305"))
		*out = WB_CIPHER_CHACHA20_POLY1305;
	else if (!strcmp(name, "aes-256-gcm"))
		*out = WB_CIPHER_AES_256_GCM;
	else
		return -EINVAL;
	return 0;
}

void wb_wipe(void *p, size_t len)
{
	OPENSSL_cleanse(p, len);
}

bool wb_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

/* ---- X25519 ------------------------------------------------------------ */

void wb_x25519_clamp(uint8_t priv[WB_KEY_LEN])
{
	priv[0] &= 248;
	priv[31] = (uint8_t)((priv[31] & 127) | 64);
}

int wb_x25519_public(uint8_t pub[WB_KEY_LEN], const uint8_t priv[WB_KEY_LEN])
{
	EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, WB_KEY_LEN);
	size_t len = WB_KEY_LEN;
	int rc;

	if (!key)
		return -EINVAL;
	rc = EVP_PKEY_get_raw_public_key(key, pub, &len) == 1 && len == WB_KEY_LEN ? 0 : -EINVAL;
	EVP_PKEY_free(key);
	return rc;
}

int wb_x25519(uint8_t shared[WB_KEY_LEN], const uint8_t priv[WB_KEY_LEN], const uint8_t pub[WB_KEY_LEN])
{
	static const uint8_t zero[WB_KEY_LEN];
	EVP_PKEY *mine = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, WB_KEY_LEN);
	EVP_PKEY *theirs = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, pub, WB_KEY_LEN);
	EVP_PKEY_CTX *ctx = mine ? EVP_PKEY_CTX_new(mine, NULL) : NULL;
	size_t len = WB_KEY_LEN;
	int rc = -EINVAL;

	/* OpenSSL refuses a low-order point itself; the zero check stays as a belt. */
	if (ctx && theirs && EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer(ctx, theirs) == 1 &&
	    EVP_PKEY_derive(ctx, shared, &len) == 1 && len == WB_KEY_LEN && !wb_equal(shared, zero, WB_KEY_LEN))
		rc = 0;
	if (rc)
		wb_wipe(shared, WB_KEY_LEN);
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(theirs);
	EVP_PKEY_free(mine);
	return rc;
}

/* ---- BLAKE2s ------------------------------------------------------------ */

/*
 * OpenSSL 3 looks an algorithm up by name on every fetch (and on every init
 * with a legacy EVP_blake2s256()-style handle). A server checks mac1 on every
 * handshake datagram, flood or not, so each algorithm is fetched once and
 * kept for the process's life. The daemon is single threaded; a second
 * thread racing here would only fetch twice and leak one reference.
 */
static EVP_MD *blake2s(void)
{
	static EVP_MD *md;

	if (!md)
		md = EVP_MD_fetch(NULL, "BLAKE2S-256", NULL);
	return md;
}

static EVP_MAC *blake2s_mac(void)
{
	static EVP_MAC *mac;

	if (!mac)
		mac = EVP_MAC_fetch(NULL, "BLAKE2SMAC", NULL);
	return mac;
}

static EVP_KDF *hkdf(void)
{
	static EVP_KDF *kdf;

	if (!kdf)
		kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	return kdf;
}

int wb_hash2(uint8_t out[WB_HASH_LEN], const void *a, size_t alen, const void *b, size_t blen)
{
	EVP_MD *md = blake2s();
	EVP_MD_CTX *ctx = md ? EVP_MD_CTX_new() : NULL;
	unsigned int len = 0;
	int rc = -EINVAL;

	if (ctx && EVP_DigestInit_ex(ctx, md, NULL) == 1 && EVP_DigestUpdate(ctx, a, alen) == 1 &&
	    (!blen || EVP_DigestUpdate(ctx, b, blen) == 1) && EVP_DigestFinal_ex(ctx, out, &len) == 1 &&
	    len == WB_HASH_LEN)
		rc = 0;
	EVP_MD_CTX_free(ctx);
	return rc;
}

int wb_mac(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen, const void *in, size_t inlen)
{
	EVP_MAC *mac = blake2s_mac();
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &outlen),
		OSSL_PARAM_END,
	};
	size_t len = 0;
	int rc = -EINVAL;

	if (ctx && EVP_MAC_init(ctx, key, keylen, params) == 1 && EVP_MAC_update(ctx, in, inlen) == 1 &&
	    EVP_MAC_final(ctx, out, &len, outlen) == 1 && len == outlen)
		rc = 0;
	EVP_MAC_CTX_free(ctx);
	return rc;
}

/*
 * Noise's KDFn is HKDF (RFC 5869) with HMAC-BLAKE2s, the chaining key as the
 * salt, the input as the key material and no info: OpenSSL's HKDF does it.
 */
int wb_kdf(uint8_t t1[WB_HASH_LEN], uint8_t *t2, uint8_t *t3, const uint8_t ck[WB_HASH_LEN],
	   const void *in, size_t inlen)
{
	EVP_KDF *kdf = hkdf();
	EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	uint8_t okm[3 * WB_HASH_LEN], dummy = 0;
	size_t n = t3 ? 3 : t2 ? 2 : 1;
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "BLAKE2S-256", 0),
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)ck, WB_HASH_LEN),
		OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, inlen ? (void *)in : &dummy, inlen),
		OSSL_PARAM_END,
	};
	int rc = -EINVAL;

	if (ctx && EVP_KDF_derive(ctx, okm, n * WB_HASH_LEN, params) == 1) {
		memcpy(t1, okm, WB_HASH_LEN);
		if (t2)
			memcpy(t2, okm + WB_HASH_LEN, WB_HASH_LEN);
		if (t3)
			memcpy(t3, okm + 2 * WB_HASH_LEN, WB_HASH_LEN);
		rc = 0;
	}
	wb_wipe(okm, sizeof(okm));
	EVP_KDF_CTX_free(ctx);
	return rc;
}

/* ---- AEAD ---------------------------------------------------------------- */

struct wb_aead {
	EVP_CIPHER_CTX *enc, *dec;
};

/* Fetched once, as the BLAKE2s algorithms are: cookie replies and handshakes key a context each. */
static EVP_CIPHER *cipher_of(enum wb_cipher c)
{
	static EVP_CIPHER *chacha, *gcm;
	EVP_CIPHER **slot = c == WB_CIPHER_AES_256_GCM ? &gcm : &chacha;

	if (!*slot)
		*slot = EVP_CIPHER_fetch(NULL, c == WB_CIPHER_AES_256_GCM ? "AES-256-GCM" : "ChaCha20-Poly1305", NULL);
	return *slot;
}

static void counter_nonce(uint8_t nonce[WB_NONCE_LEN], uint64_t counter)
{
	memset(nonce, 0, 4);
	for (int i = 0; i < 8; i++)
		nonce[4 + i] = (uint8_t)(counter >> (8 * i));
}

/* Sets the nonce (the key is already in the context) and runs one AEAD operation. */
static int aead_run(EVP_CIPHER_CTX *ctx, bool seal, const uint8_t nonce[WB_NONCE_LEN], const void *aad,
		    size_t aadlen, const uint8_t *in, size_t len, uint8_t *out)
{
	uint8_t nothing[1];
	int n = 0, fin = 0;

	if (!out)
		out = nothing; /* an empty plaintext: Final still wants somewhere to write */
	if (len > INT32_MAX || aadlen > INT32_MAX)
		return -EINVAL;
	if (EVP_CipherInit_ex(ctx, NULL, NULL, NULL, nonce, seal) != 1)
		return -EINVAL;
	if (aadlen && EVP_CipherUpdate(ctx, NULL, &n, aad, (int)aadlen) != 1)
		return -EINVAL;
	if (!seal && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, WB_TAG_LEN, (void *)(in + len)) != 1)
		return -EINVAL;
	if (len && EVP_CipherUpdate(ctx, out, &n, in, (int)len) != 1)
		return -EBADMSG;
	if (EVP_CipherFinal_ex(ctx, out + n, &fin) != 1)
		return -EBADMSG;
	if (seal && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, WB_TAG_LEN, out + len) != 1)
		return -EINVAL;
	return 0;
}

static EVP_CIPHER_CTX *keyed_ctx(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], bool seal)
{
	EVP_CIPHER *cipher = cipher_of(c);
	EVP_CIPHER_CTX *ctx = cipher ? EVP_CIPHER_CTX_new() : NULL;

	if (!ctx)
		return NULL;
	/* Both ciphers take a 12-byte nonce by default; the key schedule happens here, once. */
	if (EVP_CipherInit_ex(ctx, cipher, NULL, key, NULL, seal) != 1) {
		EVP_CIPHER_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

struct wb_aead *wb_aead_new(enum wb_cipher c, const uint8_t key[WB_KEY_LEN])
{
	struct wb_aead *a = OPENSSL_zalloc(sizeof(*a));

	if (!a)
		return NULL;
	a->enc = keyed_ctx(c, key, true);
	a->dec = keyed_ctx(c, key, false);
	if (!a->enc || !a->dec) {
		wb_aead_free(a);
		return NULL;
	}
	return a;
}

void wb_aead_free(struct wb_aead *a)
{
	if (!a)
		return;
	EVP_CIPHER_CTX_free(a->enc); /* OpenSSL cleanses the key schedule */
	EVP_CIPHER_CTX_free(a->dec);
	OPENSSL_free(a);
}

int wb_aead_seal(struct wb_aead *a, const uint8_t nonce[WB_NONCE_LEN], const void *aad, size_t aadlen,
		 const uint8_t *in, size_t len, uint8_t *out)
{
	return aead_run(a->enc, true, nonce, aad, aadlen, in, len, out);
}

int wb_aead_open(struct wb_aead *a, const uint8_t nonce[WB_NONCE_LEN], const void *aad, size_t aadlen,
		 const uint8_t *in, size_t len, uint8_t *out)
{
	if (len < WB_TAG_LEN)
		return -EBADMSG;
	return aead_run(a->dec, false, nonce, aad, aadlen, in, len - WB_TAG_LEN, out);
}

static int aead_once(enum wb_cipher c, bool seal, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
		     const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out)
{
	EVP_CIPHER_CTX *ctx;
	int rc;

	if (!seal && len < WB_TAG_LEN)
		return -EBADMSG;
	ctx = keyed_ctx(c, key, seal);
	if (!ctx)
		return -ENOMEM;
	rc = aead_run(ctx, seal, nonce, aad, aadlen, in, seal ? len : len - WB_TAG_LEN, out);
	EVP_CIPHER_CTX_free(ctx);
	return rc;
}

int wb_aead_seal_nonce(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
		       const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out)
{
	return aead_once(c, true, key, nonce, aad, aadlen, in, len, out);
}

int wb_aead_open_nonce(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
		       const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out)
{
	return aead_once(c, false, key, nonce, aad, aadlen, in, len, out);
}

int wb_aead_seal_once(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], uint64_t counter,
		      const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out)
{
	uint8_t nonce[WB_NONCE_LEN];

	counter_nonce(nonce, counter);
	return aead_once(c, true, key, nonce, aad, aadlen, in, len, out);
}

int wb_aead_open_once(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], uint64_t counter,
		      const void *aad, size_t aadlen, const void *in, size_t len, uint8_t *out)
{
	uint8_t nonce[WB_NONCE_LEN];

	counter_nonce(nonce, counter);
	return aead_once(c, false, key, nonce, aad, aadlen, in, len, out);
}

/* ---- base64 keys --------------------------------------------------------- */

void wb_key_to_base64(char out[WB_KEY_B64_LEN], const uint8_t key[WB_KEY_LEN])
{
	EVP_EncodeBlock((unsigned char *)out, key, WB_KEY_LEN);
}

int wb_key_from_base64(uint8_t key[WB_KEY_LEN], const char *s)
{
	uint8_t buf[WB_KEY_LEN + 3];
	char again[WB_KEY_B64_LEN];
	int rc = -EINVAL;

	/*
	 * 32 bytes are 44 characters ending in one '='. DecodeBlock counts the pad
	 * as a zero byte and takes '=' anywhere, and the last character has two
	 * spare bits: encoding the result again and comparing accepts exactly the
	 * canonical form, as wg(8) does.
	 */
	if (strlen(s) == WB_KEY_B64_LEN - 1 &&
	    EVP_DecodeBlock(buf, (const unsigned char *)s, WB_KEY_B64_LEN - 1) == WB_KEY_LEN + 1) {
		wb_key_to_base64(again, buf);
		if (!strcmp(again, s)) {
			memcpy(key, buf, WB_KEY_LEN);
			rc = 0;
		}
	}
	wb_wipe(buf, sizeof(buf));
	wb_wipe(again, sizeof(again));
	return rc;
}
