// SPDX-License-Identifier: MIT
/*
 * Unit tests: crypto.c, known answers for every primitive of the handshake
 * and the data path.
 *
 * Where a vector is published (RFC 8439, RFC 7693, RFC 7748, the GCM
 * specification, the BLAKE2 reference KAT, Wycheproof) its bytes are pasted
 * as printed there. Where none is (BLAKE2s with a 16-byte output, HKDF with
 * HMAC-BLAKE2s, the hash of a split input), the expected bytes were computed
 * once with Python 3's hashlib / hmac / base64 (an implementation independent
 * of OpenSSL: CPython's own BLAKE2 code) and pasted; each says how.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "crypto.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* The longest message here (RFC 8439 A.5, 265 bytes) and its tag, with room. */
#define BUF_LEN 512

/* ---- RFC 8439 section 2.8.2: the "Ladies and Gentlemen" AEAD sealing test ---- */

static const uint8_t rfc8439_key[WB_KEY_LEN] = {
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
};
static const uint8_t rfc8439_nonce[WB_NONCE_LEN] = {
	0x07, 0x00, 0x00, 0x00, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47,
};
static const uint8_t rfc8439_aad[] = {
	0x50, 0x51, 0x52, 0x53, 0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
};
static const char rfc8439_plain[] = "Ladies and Gentlemen of the class of '99: If I could offer you only one "
				    "tip for the future, sunscreen would be it.";
#define RFC8439_LEN (sizeof(rfc8439_plain) - 1) /* 114 bytes, no NUL */
/* Ciphertext, then the tag 1a:e1:0b:59:4f:09:e2:6a:7e:90:2e:cb:d0:60:06:91. */
static const uint8_t rfc8439_sealed[RFC8439_LEN + WB_TAG_LEN] = {
	0xd3, 0x1a, 0x8d, 0x34, 0x64, 0x8e, 0x60, 0xdb, 0x7b, 0x86, 0xaf, 0xbc, 0x53, 0xef, 0x7e, 0xc2,
	0xa4, 0xad, 0xed, 0x51, 0x29, 0x6e, 0x08, 0xfe, 0xa9, 0xe2, 0xb5, 0xa7, 0x36, 0xee, 0x62, 0xd6,
	0x3d, 0xbe, 0xa4, 0x5e, 0x8c, 0xa9, 0x67, 0x12, 0x82, 0xfa, 0xfb, 0x69, 0xda, 0x92, 0x72, 0x8b,
	0x1a, 0x71, 0xde, 0x0a, 0x9e, 0x06, 0x0b, 0x29, 0x05, 0xd6, 0xa5, 0xb6, 0x7e, 0xcd, 0x3b, 0x36,
	0x92, 0xdd, 0xbd, 0x7f, 0x2d, 0x77, 0x8b, 0x8c, 0x98, 0x03, 0xae, 0xe3, 0x28, 0x09, 0x1b, 0x58,
	0xfa, 0xb3, 0x24, 0xe4, 0xfa, 0xd6, 0x75, 0x94, 0x55, 0x85, 0x80, 0x8b, 0x48, 0x31, 0xd7, 0xbc,
	0x3f, 0xf4, 0xde, 0xf0, 0x8e, 0x4b, 0x7a, 0x9d, 0xe5, 0x76, 0xd2, 0x65, 0x86, 0xce, 0xc6, 0x4b,
	0x61, 0x16,
	0x1a, 0xe1, 0x0b, 0x59, 0x4f, 0x09, 0xe2, 0x6a, 0x7e, 0x90, 0x2e, 0xcb, 0xd0, 0x60, 0x06, 0x91,
};

/* ---- RFC 8439 appendix A.5: the ChaCha20-Poly1305 AEAD decryption vector ---- */

static const uint8_t a5_key[WB_KEY_LEN] = {
	0x1c, 0x92, 0x40, 0xa5, 0xeb, 0x55, 0xd3, 0x8a, 0xf3, 0x33, 0x88, 0x86, 0x04, 0xf6, 0xb5, 0xf0,
	0x47, 0x39, 0x17, 0xc1, 0x40, 0x2b, 0x80, 0x09, 0x9d, 0xca, 0x5c, 0xbc, 0x20, 0x70, 0x75, 0xc0,
};
static const uint8_t a5_nonce[WB_NONCE_LEN] = {
	0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
};
static const uint8_t a5_aad[] = {
	0xf3, 0x33, 0x88, 0x86, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x4e, 0x91,
};
/* The RFC's plaintext is UTF-8: the quotes around "work in progress." are U+201C and U+201D. */
static const char a5_plain[] =
	"Internet-Drafts are draft documents valid for a maximum of six months and may be updated, "
	"replaced, or obsoleted by other documents at any time. It is inappropriate to use "
	"Internet-Drafts as reference material or to cite them other than as "
	"/\xe2\x80\x9cwork in progress./\xe2\x80\x9d";
#define A5_LEN (sizeof(a5_plain) - 1) /* 265 bytes */
/* Ciphertext, then the tag ee ad 9d 67 89 0c bb 22 39 23 36 fe a1 85 1f 38. */
static const uint8_t a5_sealed[A5_LEN + WB_TAG_LEN] = {
	0x64, 0xa0, 0x86, 0x15, 0x75, 0x86, 0x1a, 0xf4, 0x60, 0xf0, 0x62, 0xc7, 0x9b, 0xe6, 0x43, 0xbd,
	0x5e, 0x80, 0x5c, 0xfd, 0x34, 0x5c, 0xf3, 0x89, 0xf1, 0x08, 0x67, 0x0a, 0xc7, 0x6c, 0x8c, 0xb2,
	0x4c, 0x6c, 0xfc, 0x18, 0x75, 0x5d, 0x43, 0xee, 0xa0, 0x9e, 0xe9, 0x4e, 0x38, 0x2d, 0x26, 0xb0,
	0xbd, 0xb7, 0xb7, 0x3c, 0x32, 0x1b, 0x01, 0x00, 0xd4, 0xf0, 0x3b, 0x7f, 0x35, 0x58, 0x94, 0xcf,
	0x33, 0x2f, 0x83, 0x0e, 0x71, 0x0b, 0x97, 0xce, 0x98, 0xc8, 0xa8, 0x4a, 0xbd, 0x0b, 0x94, 0x81,
	0x14, 0xad, 0x17, 0x6e, 0x00, 0x8d, 0x33, 0xbd, 0x60, 0xf9, 0x82, 0xb1, 0xff, 0x37, 0xc8, 0x55,
	0x97, 0x97, 0xa0, 0x6e, 0xf4, 0xf0, 0xef, 0x61, 0xc1, 0x86, 0x32, 0x4e, 0x2b, 0x35, 0x06, 0x38,
	0x36, 0x06, 0x90, 0x7b, 0x6a, 0x7c, 0x02, 0xb0, 0xf9, 0xf6, 0x15, 0x7b, 0x53, 0xc8, 0x67, 0xe4,
	0xb9, 0x16, 0x6c, 0x76, 0x7b, 0x80, 0x4d, 0x46, 0xa5, 0x9b, 0x52, 0x16, 0xcd, 0xe7, 0xa4, 0xe9,
	0x90, 0x40, 0xc5, 0xa4, 0x04, 0x33, 0x22, 0x5e, 0xe2, 0x82, 0xa1, 0xb0, 0xa0, 0x6c, 0x52, 0x3e,
	0xaf, 0x45, 0x34, 0xd7, 0xf8, 0x3f, 0xa1, 0x15, 0x5b, 0x00, 0x47, 0x71, 0x8c, 0xbc, 0x54, 0x6a,
	0x0d, 0x07, 0x2b, 0x04, 0xb3, 0x56, 0x4e, 0xea, 0x1b, 0x42, 0x22, 0x73, 0xf5, 0x48, 0x27, 0x1a,
	0x0b, 0xb2, 0x31, 0x60, 0x53, 0xfa, 0x76, 0x99, 0x19, 0x55, 0xeb, 0xd6, 0x31, 0x59, 0x43, 0x4e,
	0xce, 0xbb, 0x4e, 0x46, 0x6d, 0xae, 0x5a, 0x10, 0x73, 0xa6, 0x72, 0x76, 0x27, 0x09, 0x7a, 0x10,
	0x49, 0xe6, 0x17, 0xd9, 0x1d, 0x36, 0x10, 0x94, 0xfa, 0x68, 0xf0, 0xff, 0x77, 0x98, 0x71, 0x30,
	0x30, 0x5b, 0xea, 0xba, 0x2e, 0xda, 0x04, 0xdf, 0x99, 0x7b, 0x71, 0x4d, 0x6c, 0x6f, 0x2c, 0x29,
	0xa6, 0xad, 0x5c, 0xb4, 0x02, 0x2b, 0x02, 0x70, 0x9b,
	0xee, 0xad, 0x9d, 0x67, 0x89, 0x0c, 0xbb, 0x22, 0x39, 0x23, 0x36, 0xfe, 0xa1, 0x85, 0x1f, 0x38,
};

/* ---- Wycheproof chacha20_poly1305_test.json tcId 2 and 3: empty messages (a keepalive) ---- */

static const uint8_t wp2_key[WB_KEY_LEN] = {
	0x80, 0xba, 0x31, 0x92, 0xc8, 0x03, 0xce, 0x96, 0x5e, 0xa3, 0x71, 0xd5, 0xff, 0x07, 0x3c, 0xf0,
	0xf4, 0x3b, 0x6a, 0x2a, 0xb5, 0x76, 0xb2, 0x08, 0x42, 0x6e, 0x11, 0x40, 0x9c, 0x09, 0xb9, 0xb0,
};
static const uint8_t wp2_nonce[WB_NONCE_LEN] = {
	0x4d, 0xa5, 0xbf, 0x8d, 0xfd, 0x58, 0x52, 0xc1, 0xea, 0x12, 0x37, 0x9d,
};
static const uint8_t wp2_tag[WB_TAG_LEN] = {
	0x76, 0xac, 0xb3, 0x42, 0xcf, 0x31, 0x66, 0xa5, 0xb6, 0x3c, 0x0c, 0x0e, 0xa1, 0x38, 0x3c, 0x8d,
};
static const uint8_t wp3_key[WB_KEY_LEN] = {
	0x7a, 0x4c, 0xd7, 0x59, 0x17, 0x2e, 0x02, 0xeb, 0x20, 0x4d, 0xb2, 0xc3, 0xf5, 0xc7, 0x46, 0x22,
	0x7d, 0xf5, 0x84, 0xfc, 0x13, 0x45, 0x19, 0x63, 0x91, 0xdb, 0xb9, 0x57, 0x7a, 0x25, 0x07, 0x42,
};
static const uint8_t wp3_nonce[WB_NONCE_LEN] = {
	0xa9, 0x2e, 0xf0, 0xac, 0x99, 0x1d, 0xd5, 0x16, 0xa3, 0xc6, 0xf6, 0x89,
};
static const uint8_t wp3_aad[] = { 0xbd, 0x50, 0x67, 0x64, 0xf2, 0xd2, 0xc4, 0x10 };
static const uint8_t wp3_tag[WB_TAG_LEN] = {
	0x90, 0x6f, 0xa6, 0x28, 0x4b, 0x52, 0xf8, 0x7b, 0x73, 0x59, 0xcb, 0xaa, 0x75, 0x63, 0xc7, 0x09,
};

/* ---- The GCM specification (McGrew and Viega), test case 16: AES-256, 96-bit IV, with AAD ---- */

static const uint8_t gcm16_key[WB_KEY_LEN] = {
	0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
	0xfe, 0xff, 0xe9, 0x92, 0x86, 0x65, 0x73, 0x1c, 0x6d, 0x6a, 0x8f, 0x94, 0x67, 0x30, 0x83, 0x08,
};
static const uint8_t gcm16_iv[WB_NONCE_LEN] = {
	0xca, 0xfe, 0xba, 0xbe, 0xfa, 0xce, 0xdb, 0xad, 0xde, 0xca, 0xf8, 0x88,
};
static const uint8_t gcm16_aad[] = {
	0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef, 0xfe, 0xed, 0xfa, 0xce, 0xde, 0xad, 0xbe, 0xef,
	0xab, 0xad, 0xda, 0xd2,
};
static const uint8_t gcm16_plain[60] = {
	0xd9, 0x31, 0x32, 0x25, 0xf8, 0x84, 0x06, 0xe5, 0xa5, 0x59, 0x09, 0xc5, 0xaf, 0xf5, 0x26, 0x9a,
	0x86, 0xa7, 0xa9, 0x53, 0x15, 0x34, 0xf7, 0xda, 0x2e, 0x4c, 0x30, 0x3d, 0x8a, 0x31, 0x8a, 0x72,
	0x1c, 0x3c, 0x0c, 0x95, 0x95, 0x68, 0x09, 0x53, 0x2f, 0xcf, 0x0e, 0x24, 0x49, 0xa6, 0xb5, 0x25,
	0xb1, 0x6a, 0xed, 0xf5, 0xaa, 0x0d, 0xe6, 0x57, 0xba, 0x63, 0x7b, 0x39,
};
/* Ciphertext, then the tag 76fc6ece0f4e1768cddf8853bb2d551b. */
static const uint8_t gcm16_sealed[sizeof(gcm16_plain) + WB_TAG_LEN] = {
	0x52, 0x2d, 0xc1, 0xf0, 0x99, 0x56, 0x7d, 0x07, 0xf4, 0x7f, 0x37, 0xa3, 0x2a, 0x84, 0x42, 0x7d,
	0x64, 0x3a, 0x8c, 0xdc, 0xbf, 0xe5, 0xc0, 0xc9, 0x75, 0x98, 0xa2, 0xbd, 0x25, 0x55, 0xd1, 0xaa,
	0x8c, 0xb0, 0x8e, 0x48, 0x59, 0x0d, 0xbb, 0x3d, 0xa7, 0xb0, 0x8b, 0x10, 0x56, 0x82, 0x88, 0x38,
	0xc5, 0xf6, 0x1e, 0x63, 0x93, 0xba, 0x7a, 0x0a, 0xbc, 0xc9, 0xf6, 0x62,
	0x76, 0xfc, 0x6e, 0xce, 0x0f, 0x4e, 0x17, 0x68, 0xcd, 0xdf, 0x88, 0x53, 0xbb, 0x2d, 0x55, 0x1b,
};
/* Test case 13: AES-256, zero key and IV, empty plaintext and AAD: only a tag. */
static const uint8_t gcm13_tag[WB_TAG_LEN] = {
	0x53, 0x0f, 0x8a, 0xfb, 0xc7, 0x45, 0x36, 0xb9, 0xa9, 0x63, 0xb4, 0xf1, 0xc4, 0xcb, 0x73, 0x8b,
};

/* ---- RFC 7748 section 6.1: X25519 Diffie-Hellman ---- */

static const uint8_t alice_priv[WB_KEY_LEN] = {
	0x77, 0x07, 0x6d, 0x0a, 0x73, 0x18, 0xa5, 0x7d, 0x3c, 0x16, 0xc1, 0x72, 0x51, 0xb2, 0x66, 0x45,
	0xdf, 0x4c, 0x2f, 0x87, 0xeb, 0xc0, 0x99, 0x2a, 0xb1, 0x77, 0xfb, 0xa5, 0x1d, 0xb9, 0x2c, 0x2a,
};
static const uint8_t alice_pub[WB_KEY_LEN] = {
	0x85, 0x20, 0xf0, 0x09, 0x89, 0x30, 0xa7, 0x54, 0x74, 0x8b, 0x7d, 0xdc, 0xb4, 0x3e, 0xf7, 0x5a,
	0x0d, 0xbf, 0x3a, 0x0d, 0x26, 0x38, 0x1a, 0xf4, 0xeb, 0xa4, 0xa9, 0x8e, 0xaa, 0x9b, 0x4e, 0x6a,
};
static const uint8_t bob_priv[WB_KEY_LEN] = {
	0x5d, 0xab, 0x08, 0x7e, 0x62, 0x4a, 0x8a, 0x4b, 0x79, 0xe1, 0x7f, 0x8b, 0x83, 0x80, 0x0e, 0xe6,
	0x6f, 0x3b, 0xb1, 0x29, 0x26, 0x18, 0xb6, 0xfd, 0x1c, 0x2f, 0x8b, 0x27, 0xff, 0x88, 0xe0, 0xeb,
};
static const uint8_t bob_pub[WB_KEY_LEN] = {
	0xde, 0x9e, 0xdb, 0x7d, 0x7b, 0x7d, 0xc1, 0xb4, 0xd3, 0x5b, 0x61, 0xc2, 0xec, 0xe4, 0x35, 0x37,
	0x3f, 0x83, 0x43, 0xc8, 0x5b, 0x78, 0x67, 0x4d, 0xad, 0xfc, 0x7e, 0x14, 0x6f, 0x88, 0x2b, 0x4f,
};
static const uint8_t alice_bob_shared[WB_KEY_LEN] = {
	0x4a, 0x5d, 0x9d, 0x5b, 0xa4, 0xce, 0x2d, 0xe1, 0x72, 0x8e, 0x3b, 0xf4, 0x80, 0x35, 0x0f, 0x25,
	0xe0, 0x7e, 0x21, 0xc9, 0x47, 0xd1, 0x9e, 0x33, 0x76, 0xf0, 0x9b, 0x3c, 0x1e, 0x16, 0x17, 0x42,
};

/* ---- Noise / WireGuard constants, reused as inputs below ---- */

/*
 * Noise's initial chaining key, HASH("Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s"), as
 * WireGuard's whitepaper and every implementation has it (and Python's
 * hashlib.blake2s(b"Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s").digest() agrees).
 */
static const uint8_t noise_ck0[WB_HASH_LEN] = {
	0x60, 0xe2, 0x6d, 0xae, 0xf3, 0x27, 0xef, 0xc0, 0x2e, 0xc3, 0x35, 0xe2, 0xa0, 0x25, 0xd2, 0xd0,
	0x16, 0xeb, 0x42, 0x06, 0xf8, 0x72, 0x77, 0xf5, 0x2d, 0x38, 0xd1, 0x98, 0x8b, 0x78, 0xcd, 0x36,
};
static const char noise_construction[] = "Noise_IKpsk2_25519_ChaChaPoly_BLAKE2s";
static const char wg_identifier[] = "WireGuard v1 zx2c4 Jason@zx2c4.com";
/*
 * WireGuard's initial hash, HASH(ck0 || "WireGuard v1 zx2c4 Jason@zx2c4.com"): the
 * value wireguard-go and boringtun hard-code; Python's
 * hashlib.blake2s(ck0 + b"WireGuard v1 zx2c4 Jason@zx2c4.com").digest() agrees.
 */
static const uint8_t wg_h0[WB_HASH_LEN] = {
	0x22, 0x11, 0xb3, 0x61, 0x08, 0x1a, 0xc5, 0x66, 0x69, 0x12, 0x43, 0xdb, 0x45, 0x8a, 0xd5, 0x32,
	0x2d, 0x9c, 0x6c, 0x66, 0x22, 0x93, 0xe8, 0xb7, 0x0e, 0xe1, 0x9c, 0x65, 0xba, 0x07, 0x9e, 0xf3,
};

/* ---- helpers ---- */

static void fill_counting(uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)i;
}

static bool all_bytes(const uint8_t *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* The nonce of the counter form, written out by hand: 4 zero bytes, then the counter LE. */
static void counter_nonce_by_hand(uint8_t nonce[WB_NONCE_LEN], uint64_t counter)
{
	memset(nonce, 0, WB_NONCE_LEN);
	for (int i = 0; i < 8; i++)
		nonce[4 + i] = (uint8_t)(counter >> (8 * i));
}

/*
 * Opens sealed (len bytes, tag included) with the one-shot form and with a keyed
 * context; both must give plain. The context must also open it in place.
 */
static void expect_open_all_ways(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
				 const uint8_t *aad, size_t aadlen, const uint8_t *sealed, size_t len,
				 const uint8_t *plain)
{
	uint8_t out[BUF_LEN], buf[BUF_LEN];
	struct wb_aead *a;

	assert_true(len >= WB_TAG_LEN && len <= BUF_LEN);
	memset(out, 0xa5, sizeof(out));
	assert_int_equal(wb_aead_open_nonce(c, key, nonce, aad, aadlen, sealed, len, out), 0);
	assert_memory_equal(out, plain, len - WB_TAG_LEN);

	a = wb_aead_new(c, key);
	assert_non_null(a);
	memset(out, 0xa5, sizeof(out));
	assert_int_equal(wb_aead_open(a, nonce, aad, aadlen, sealed, len, out), 0);
	assert_memory_equal(out, plain, len - WB_TAG_LEN);
	memcpy(buf, sealed, len);
	assert_int_equal(wb_aead_open(a, nonce, aad, aadlen, buf, len, buf), 0);
	assert_memory_equal(buf, plain, len - WB_TAG_LEN);
	wb_aead_free(a);
}

/* The open must fail with -EBADMSG, in the one-shot form and in a keyed context. */
static void expect_refused_all_ways(enum wb_cipher c, const uint8_t key[WB_KEY_LEN], const uint8_t nonce[WB_NONCE_LEN],
				    const uint8_t *aad, size_t aadlen, const uint8_t *sealed, size_t len)
{
	uint8_t out[BUF_LEN];
	struct wb_aead *a;

	assert_true(len <= BUF_LEN);
	assert_int_equal(wb_aead_open_nonce(c, key, nonce, aad, aadlen, sealed, len, out), -EBADMSG);
	a = wb_aead_new(c, key);
	assert_non_null(a);
	assert_int_equal(wb_aead_open(a, nonce, aad, aadlen, sealed, len, out), -EBADMSG);
	wb_aead_free(a);
}

/*
 * Flips each bit of the sealed message, of the AAD and of the nonce in turn: every
 * one of them must be refused, by the one-shot form and by one keyed context that
 * must still open the untouched message afterwards (a failure leaves no state).
 */
static void expect_every_bit_flip_refused(enum wb_cipher c, const uint8_t key[WB_KEY_LEN],
					  const uint8_t nonce[WB_NONCE_LEN], const uint8_t *aad, size_t aadlen,
					  const uint8_t *sealed, size_t len, const uint8_t *plain)
{
	uint8_t msg[BUF_LEN], ad[BUF_LEN], n[WB_NONCE_LEN], out[BUF_LEN];
	struct wb_aead *a = wb_aead_new(c, key);

	assert_non_null(a);
	assert_true(len <= BUF_LEN && aadlen <= BUF_LEN);
	for (size_t bit = 0; bit < 8 * len; bit++) {
		memcpy(msg, sealed, len);
		msg[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(wb_aead_open_nonce(c, key, nonce, aad, aadlen, msg, len, out), -EBADMSG);
		assert_int_equal(wb_aead_open(a, nonce, aad, aadlen, msg, len, out), -EBADMSG);
	}
	for (size_t bit = 0; bit < 8 * aadlen; bit++) {
		memcpy(ad, aad, aadlen);
		ad[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(wb_aead_open_nonce(c, key, nonce, ad, aadlen, sealed, len, out), -EBADMSG);
		assert_int_equal(wb_aead_open(a, nonce, ad, aadlen, sealed, len, out), -EBADMSG);
	}
	for (size_t bit = 0; bit < 8 * WB_NONCE_LEN; bit++) {
		memcpy(n, nonce, WB_NONCE_LEN);
		n[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(wb_aead_open_nonce(c, key, n, aad, aadlen, sealed, len, out), -EBADMSG);
		assert_int_equal(wb_aead_open(a, n, aad, aadlen, sealed, len, out), -EBADMSG);
	}
	/* The context that refused all of that still opens the real message. */
	assert_int_equal(wb_aead_open(a, nonce, aad, aadlen, sealed, len, out), 0);
	assert_memory_equal(out, plain, len - WB_TAG_LEN);
	wb_aead_free(a);
}

/* ---- cipher names ---- */

static void test_cipher_name_round_trip(void **state)
{
	enum wb_cipher c = WB_CIPHER_AES_256_GCM;

	(void)state;
	assert_string_equal(wb_cipher_name(WB_CIPHER_CHACHA20_POLY1305), "chacha20-poly1305");
	assert_string_equal(wb_cipher_name(WB_CIPHER_AES_256_GCM), "aes-256-gcm");
	assert_int_equal(wb_cipher_from_name("chacha20-poly1305", &c), 0);
	assert_int_equal(c, WB_CIPHER_CHACHA20_POLY1305);
	assert_int_equal(wb_cipher_from_name("aes-256-gcm", &c), 0);
	assert_int_equal(c, WB_CIPHER_AES_256_GCM);
	assert_int_equal(wb_cipher_from_name(wb_cipher_name(WB_CIPHER_CHACHA20_POLY1305), &c), 0);
	assert_int_equal(c, WB_CIPHER_CHACHA20_POLY1305);
}

static void test_cipher_unknown_name_refused(void **state)
{
	static const char *const bad[] = {
		"", "chacha20", "poly1305", "chacha20poly1305", "ChaCha20-Poly1305", "AES-256-GCM",
		"aes-128-gcm", "aes-256-gcm ", " aes-256-gcm", "chacha20-poly1305\n", "xchacha20-poly1305",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		enum wb_cipher c = WB_CIPHER_AES_256_GCM;

		assert_int_equal(wb_cipher_from_name(bad[i], &c), -EINVAL);
		assert_int_equal(c, WB_CIPHER_AES_256_GCM); /* untouched */
	}
}

/* ---- ChaCha20-Poly1305 ---- */

static void test_chacha_rfc8439_seal_nonce(void **state)
{
	uint8_t out[BUF_LEN];

	(void)state;
	memset(out, 0xa5, sizeof(out));
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, rfc8439_aad,
					    sizeof(rfc8439_aad), rfc8439_plain, RFC8439_LEN, out),
			 0);
	assert_memory_equal(out, rfc8439_sealed, sizeof(rfc8439_sealed));
	assert_true(all_bytes(out + sizeof(rfc8439_sealed), sizeof(out) - sizeof(rfc8439_sealed), 0xa5));
}

static void test_chacha_rfc8439_open_nonce(void **state)
{
	uint8_t out[BUF_LEN];

	(void)state;
	memset(out, 0xa5, sizeof(out));
	assert_int_equal(wb_aead_open_nonce(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, rfc8439_aad,
					    sizeof(rfc8439_aad), rfc8439_sealed, sizeof(rfc8439_sealed), out),
			 0);
	assert_memory_equal(out, rfc8439_plain, RFC8439_LEN);
	assert_true(all_bytes(out + RFC8439_LEN, sizeof(out) - RFC8439_LEN, 0xa5));
}

static void test_chacha_rfc8439_keyed_context(void **state)
{
	struct wb_aead *a = wb_aead_new(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key);
	uint8_t out[BUF_LEN], plain[BUF_LEN];

	(void)state;
	assert_non_null(a);
	/* Twice each: the context is reused, only the nonce is set again. */
	for (int round = 0; round < 2; round++) {
		memset(out, 0xa5, sizeof(out));
		assert_int_equal(wb_aead_seal(a, rfc8439_nonce, rfc8439_aad, sizeof(rfc8439_aad),
					      (const uint8_t *)rfc8439_plain, RFC8439_LEN, out),
				 0);
		assert_memory_equal(out, rfc8439_sealed, sizeof(rfc8439_sealed));
		memset(plain, 0xa5, sizeof(plain));
		assert_int_equal(wb_aead_open(a, rfc8439_nonce, rfc8439_aad, sizeof(rfc8439_aad), rfc8439_sealed,
					      sizeof(rfc8439_sealed), plain),
				 0);
		assert_memory_equal(plain, rfc8439_plain, RFC8439_LEN);
	}
	wb_aead_free(a);
}

static void test_chacha_rfc8439_keyed_in_place(void **state)
{
	struct wb_aead *a = wb_aead_new(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key);
	uint8_t buf[BUF_LEN];

	(void)state;
	assert_non_null(a);
	memcpy(buf, rfc8439_plain, RFC8439_LEN);
	assert_int_equal(wb_aead_seal(a, rfc8439_nonce, rfc8439_aad, sizeof(rfc8439_aad), buf, RFC8439_LEN, buf), 0);
	assert_memory_equal(buf, rfc8439_sealed, sizeof(rfc8439_sealed));
	assert_int_equal(wb_aead_open(a, rfc8439_nonce, rfc8439_aad, sizeof(rfc8439_aad), buf,
				      sizeof(rfc8439_sealed), buf),
			 0);
	assert_memory_equal(buf, rfc8439_plain, RFC8439_LEN);
	wb_aead_free(a);
}

static void test_chacha_rfc8439_a5_decrypt(void **state)
{
	(void)state;
	expect_open_all_ways(WB_CIPHER_CHACHA20_POLY1305, a5_key, a5_nonce, a5_aad, sizeof(a5_aad), a5_sealed,
			     sizeof(a5_sealed), (const uint8_t *)a5_plain);
}

static void test_chacha_a5_seal_gives_the_vector(void **state)
{
	uint8_t out[BUF_LEN];

	(void)state;
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, a5_key, a5_nonce, a5_aad, sizeof(a5_aad),
					    a5_plain, A5_LEN, out),
			 0);
	assert_memory_equal(out, a5_sealed, sizeof(a5_sealed));
}

/* An empty plaintext is WireGuard's keepalive: the sealed message is the tag alone. */
static void test_chacha_wycheproof_empty_message(void **state)
{
	uint8_t out[WB_TAG_LEN + 1];
	struct wb_aead *a;

	(void)state;
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, wp2_key, wp2_nonce, NULL, 0, NULL, 0, out), 0);
	assert_memory_equal(out, wp2_tag, WB_TAG_LEN);
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, wp3_key, wp3_nonce, wp3_aad,
					    sizeof(wp3_aad), NULL, 0, out),
			 0);
	assert_memory_equal(out, wp3_tag, WB_TAG_LEN);

	a = wb_aead_new(WB_CIPHER_CHACHA20_POLY1305, wp3_key);
	assert_non_null(a);
	assert_int_equal(wb_aead_seal(a, wp3_nonce, wp3_aad, sizeof(wp3_aad), NULL, 0, out), 0);
	assert_memory_equal(out, wp3_tag, WB_TAG_LEN);
	assert_int_equal(wb_aead_open(a, wp3_nonce, wp3_aad, sizeof(wp3_aad), wp3_tag, WB_TAG_LEN, out), 0);
	wb_aead_free(a);
	assert_int_equal(wb_aead_open_nonce(WB_CIPHER_CHACHA20_POLY1305, wp2_key, wp2_nonce, NULL, 0, wp2_tag,
					    WB_TAG_LEN, out),
			 0);
}

static void test_chacha_tampering_refused(void **state)
{
	(void)state;
	expect_every_bit_flip_refused(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, rfc8439_aad,
				      sizeof(rfc8439_aad), rfc8439_sealed, sizeof(rfc8439_sealed),
				      (const uint8_t *)rfc8439_plain);
}

/* The wrong key, a dropped AAD, a truncated or extended message: each refused. */
static void test_chacha_wrong_context_refused(void **state)
{
	uint8_t key[WB_KEY_LEN], msg[BUF_LEN];

	(void)state;
	memcpy(key, rfc8439_key, sizeof(key));
	key[31] ^= 0x80;
	expect_refused_all_ways(WB_CIPHER_CHACHA20_POLY1305, key, rfc8439_nonce, rfc8439_aad, sizeof(rfc8439_aad),
				rfc8439_sealed, sizeof(rfc8439_sealed));
	expect_refused_all_ways(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, NULL, 0, rfc8439_sealed,
				sizeof(rfc8439_sealed));
	expect_refused_all_ways(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, rfc8439_aad,
				sizeof(rfc8439_aad) - 1, rfc8439_sealed, sizeof(rfc8439_sealed));
	expect_refused_all_ways(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, rfc8439_aad,
				sizeof(rfc8439_aad), rfc8439_sealed, sizeof(rfc8439_sealed) - 1);
	memcpy(msg, rfc8439_sealed, sizeof(rfc8439_sealed));
	msg[sizeof(rfc8439_sealed)] = 0;
	expect_refused_all_ways(WB_CIPHER_CHACHA20_POLY1305, rfc8439_key, rfc8439_nonce, rfc8439_aad,
				sizeof(rfc8439_aad), msg, sizeof(rfc8439_sealed) + 1);
	/* The same message under the other cipher. */
	expect_refused_all_ways(WB_CIPHER_AES_256_GCM, rfc8439_key, rfc8439_nonce, rfc8439_aad, sizeof(rfc8439_aad),
				rfc8439_sealed, sizeof(rfc8439_sealed));
}

/* Shorter than a tag: refused before anything is read or written. */
static void test_aead_shorter_than_tag_refused(void **state)
{
	static const enum wb_cipher ciphers[] = { WB_CIPHER_CHACHA20_POLY1305, WB_CIPHER_AES_256_GCM };
	uint8_t in[WB_TAG_LEN] = { 0 }, out[BUF_LEN];

	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(ciphers); k++) {
		struct wb_aead *a = wb_aead_new(ciphers[k], rfc8439_key);

		assert_non_null(a);
		for (size_t len = 0; len < WB_TAG_LEN; len++) {
			memset(out, 0xa5, sizeof(out));
			assert_int_equal(wb_aead_open_nonce(ciphers[k], rfc8439_key, rfc8439_nonce, NULL, 0, in, len,
							    out),
					 -EBADMSG);
			assert_int_equal(wb_aead_open_once(ciphers[k], rfc8439_key, 0, NULL, 0, in, len, out),
					 -EBADMSG);
			assert_int_equal(wb_aead_open(a, rfc8439_nonce, NULL, 0, in, len, out), -EBADMSG);
			assert_true(all_bytes(out, sizeof(out), 0xa5));
		}
		wb_aead_free(a);
	}
}

/* ---- the counter form ---- */

static void test_aead_counter_nonce_layout(void **state)
{
	static const uint64_t counters[] = {
		0, 1, 0xff, 0x100, 0x0102030405060708ull, 0x8000000000000000ull, UINT64_MAX - 1, UINT64_MAX,
	};
	static const enum wb_cipher ciphers[] = { WB_CIPHER_CHACHA20_POLY1305, WB_CIPHER_AES_256_GCM };
	uint8_t nonce[WB_NONCE_LEN], want[BUF_LEN], got[BUF_LEN], plain[BUF_LEN];

	(void)state;
	for (size_t k = 0; k < ARRAY_LEN(ciphers); k++) {
		for (size_t i = 0; i < ARRAY_LEN(counters); i++) {
			counter_nonce_by_hand(nonce, counters[i]);
			assert_int_equal(wb_aead_seal_nonce(ciphers[k], rfc8439_key, nonce, rfc8439_aad,
							    sizeof(rfc8439_aad), rfc8439_plain, RFC8439_LEN, want),
					 0);
			assert_int_equal(wb_aead_seal_once(ciphers[k], rfc8439_key, counters[i], rfc8439_aad,
							   sizeof(rfc8439_aad), rfc8439_plain, RFC8439_LEN, got),
					 0);
			assert_memory_equal(got, want, RFC8439_LEN + WB_TAG_LEN);
			assert_int_equal(wb_aead_open_once(ciphers[k], rfc8439_key, counters[i], rfc8439_aad,
							   sizeof(rfc8439_aad), got, RFC8439_LEN + WB_TAG_LEN, plain),
					 0);
			assert_memory_equal(plain, rfc8439_plain, RFC8439_LEN);
			/* The neighbouring counter does not open it. */
			assert_int_equal(wb_aead_open_once(ciphers[k], rfc8439_key, counters[i] ^ 1, rfc8439_aad,
							   sizeof(rfc8439_aad), got, RFC8439_LEN + WB_TAG_LEN, plain),
					 -EBADMSG);
		}
	}
}

/* The layout written out as bytes, so that a shared mistake in the helper above cannot hide. */
static void test_aead_counter_nonce_literal(void **state)
{
	static const uint8_t nonce[WB_NONCE_LEN] = { 0, 0, 0, 0, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01 };
	uint8_t want[BUF_LEN], got[BUF_LEN];

	(void)state;
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, a5_key, nonce, NULL, 0, a5_plain, A5_LEN,
					    want),
			 0);
	assert_int_equal(wb_aead_seal_once(WB_CIPHER_CHACHA20_POLY1305, a5_key, 0x0102030405060708ull, NULL, 0,
					   a5_plain, A5_LEN, got),
			 0);
	assert_memory_equal(got, want, A5_LEN + WB_TAG_LEN);
	/* RFC 8439 A.5's nonce is 00000000 0102030405060708: counter 0x0807060504030201. */
	assert_int_equal(wb_aead_open_once(WB_CIPHER_CHACHA20_POLY1305, a5_key, 0x0807060504030201ull, a5_aad,
					   sizeof(a5_aad), a5_sealed, sizeof(a5_sealed), got),
			 0);
	assert_memory_equal(got, a5_plain, A5_LEN);
}

/* ---- AES-256-GCM ---- */

static void test_gcm_spec_case16_seal(void **state)
{
	struct wb_aead *a = wb_aead_new(WB_CIPHER_AES_256_GCM, gcm16_key);
	uint8_t out[BUF_LEN];

	(void)state;
	assert_non_null(a);
	memset(out, 0xa5, sizeof(out));
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_AES_256_GCM, gcm16_key, gcm16_iv, gcm16_aad, sizeof(gcm16_aad),
					    gcm16_plain, sizeof(gcm16_plain), out),
			 0);
	assert_memory_equal(out, gcm16_sealed, sizeof(gcm16_sealed));
	assert_true(all_bytes(out + sizeof(gcm16_sealed), sizeof(out) - sizeof(gcm16_sealed), 0xa5));

	for (int round = 0; round < 2; round++) {
		memset(out, 0xa5, sizeof(out));
		assert_int_equal(wb_aead_seal(a, gcm16_iv, gcm16_aad, sizeof(gcm16_aad), gcm16_plain,
					      sizeof(gcm16_plain), out),
				 0);
		assert_memory_equal(out, gcm16_sealed, sizeof(gcm16_sealed));
	}
	memcpy(out, gcm16_plain, sizeof(gcm16_plain));
	assert_int_equal(wb_aead_seal(a, gcm16_iv, gcm16_aad, sizeof(gcm16_aad), out, sizeof(gcm16_plain), out), 0);
	assert_memory_equal(out, gcm16_sealed, sizeof(gcm16_sealed));
	wb_aead_free(a);
}

static void test_gcm_spec_case16_open(void **state)
{
	(void)state;
	expect_open_all_ways(WB_CIPHER_AES_256_GCM, gcm16_key, gcm16_iv, gcm16_aad, sizeof(gcm16_aad), gcm16_sealed,
			     sizeof(gcm16_sealed), gcm16_plain);
}

static void test_gcm_spec_case13_empty(void **state)
{
	static const uint8_t zero_key[WB_KEY_LEN], zero_iv[WB_NONCE_LEN];
	uint8_t out[WB_TAG_LEN + 1];
	struct wb_aead *a;

	(void)state;
	assert_int_equal(wb_aead_seal_nonce(WB_CIPHER_AES_256_GCM, zero_key, zero_iv, NULL, 0, NULL, 0, out), 0);
	assert_memory_equal(out, gcm13_tag, WB_TAG_LEN);
	/* Counter 0 is the zero nonce. */
	assert_int_equal(wb_aead_seal_once(WB_CIPHER_AES_256_GCM, zero_key, 0, NULL, 0, NULL, 0, out), 0);
	assert_memory_equal(out, gcm13_tag, WB_TAG_LEN);
	a = wb_aead_new(WB_CIPHER_AES_256_GCM, zero_key);
	assert_non_null(a);
	assert_int_equal(wb_aead_seal(a, zero_iv, NULL, 0, NULL, 0, out), 0);
	assert_memory_equal(out, gcm13_tag, WB_TAG_LEN);
	assert_int_equal(wb_aead_open(a, zero_iv, NULL, 0, gcm13_tag, WB_TAG_LEN, out), 0);
	wb_aead_free(a);
	assert_int_equal(wb_aead_open_once(WB_CIPHER_AES_256_GCM, zero_key, 0, NULL, 0, gcm13_tag, WB_TAG_LEN, out),
			 0);
}

static void test_gcm_tampering_refused(void **state)
{
	(void)state;
	expect_every_bit_flip_refused(WB_CIPHER_AES_256_GCM, gcm16_key, gcm16_iv, gcm16_aad, sizeof(gcm16_aad),
				      gcm16_sealed, sizeof(gcm16_sealed), gcm16_plain);
}

/* ---- BLAKE2s-256 ---- */

static void test_hash_rfc7693_abc(void **state)
{
	/* RFC 7693 appendix B: BLAKE2s-256("abc"). */
	static const uint8_t want[WB_HASH_LEN] = {
		0x50, 0x8c, 0x5e, 0x8c, 0x32, 0x7c, 0x14, 0xe2, 0xe1, 0xa7, 0x2b, 0xa3, 0x4e, 0xeb, 0x45, 0x2f,
		0x37, 0x45, 0x8b, 0x20, 0x9e, 0xd6, 0x3a, 0x29, 0x4d, 0x99, 0x9b, 0x4c, 0x86, 0x67, 0x59, 0x82,
	};
	uint8_t out[WB_HASH_LEN];

	(void)state;
	assert_int_equal(wb_hash2(out, "abc", 3, NULL, 0), 0);
	assert_memory_equal(out, want, sizeof(want));
	/* Split anywhere, the same hash. */
	assert_int_equal(wb_hash2(out, "a", 1, "bc", 2), 0);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(wb_hash2(out, "", 0, "abc", 3), 0);
	assert_memory_equal(out, want, sizeof(want));
}

static void test_hash_empty(void **state)
{
	/* BLAKE2s-256 of the empty string, from the BLAKE2 reference blake2s-kat.txt (unkeyed, in = ""). */
	static const uint8_t want[WB_HASH_LEN] = {
		0x69, 0x21, 0x7a, 0x30, 0x79, 0x90, 0x80, 0x94, 0xe1, 0x11, 0x21, 0xd0, 0x42, 0x35, 0x4a, 0x7c,
		0x1f, 0x55, 0xb6, 0x48, 0x2c, 0xa1, 0xa5, 0x1e, 0x1b, 0x25, 0x0d, 0xfd, 0x1e, 0xd0, 0xee, 0xf9,
	};
	uint8_t out[WB_HASH_LEN];

	(void)state;
	assert_int_equal(wb_hash2(out, "", 0, NULL, 0), 0);
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(wb_hash2(out, NULL, 0, NULL, 0), 0);
	assert_memory_equal(out, want, sizeof(want));
}

/* wb_hash2(a, b) is HASH(a || b), for every split point of a 100-byte input (crossing a 64-byte block). */
static void test_hash2_is_hash_of_concatenation(void **state)
{
	/* hashlib.blake2s(bytes(range(100))).digest(), Python 3.11. */
	static const uint8_t want[WB_HASH_LEN] = {
		0x81, 0xdc, 0xc3, 0xa5, 0x05, 0xea, 0xce, 0x3f, 0x87, 0x9d, 0x8f, 0x70, 0x27, 0x76, 0x77, 0x0f,
		0x9d, 0xf5, 0x0e, 0x52, 0x1d, 0x14, 0x28, 0xa8, 0x5d, 0xaf, 0x04, 0xf9, 0xad, 0x21, 0x50, 0xe0,
	};
	uint8_t msg[100], out[WB_HASH_LEN];

	(void)state;
	fill_counting(msg, sizeof(msg));
	for (size_t split = 0; split <= sizeof(msg); split++) {
		memset(out, 0, sizeof(out));
		assert_int_equal(wb_hash2(out, msg, split, msg + split, sizeof(msg) - split), 0);
		assert_memory_equal(out, want, sizeof(want));
	}
}

/* Noise's first steps in WireGuard: ck0 = HASH(construction), h0 = HASH(ck0 || identifier). */
static void test_hash2_wireguard_initial_hash(void **state)
{
	uint8_t ck[WB_HASH_LEN], h[WB_HASH_LEN];

	(void)state;
	assert_int_equal(wb_hash2(ck, noise_construction, strlen(noise_construction), NULL, 0), 0);
	assert_memory_equal(ck, noise_ck0, sizeof(ck));
	assert_int_equal(wb_hash2(h, ck, sizeof(ck), wg_identifier, strlen(wg_identifier)), 0);
	assert_memory_equal(h, wg_h0, sizeof(h));
}

/* ---- keyed BLAKE2s ---- */

/* The BLAKE2 reference blake2s-kat.txt, keyed: key 00 01 .. 1f, input 00 01 .. (n-1). */
static void test_mac32_blake2s_keyed_kat(void **state)
{
	static const struct {
		size_t inlen;
		uint8_t out[32];
	} kat[] = {
		{ 0, { 0x48, 0xa8, 0x99, 0x7d, 0xa4, 0x07, 0x87, 0x6b, 0x3d, 0x79, 0xc0, 0xd9, 0x23, 0x25, 0xad, 0x3b,
		       0x89, 0xcb, 0xb7, 0x54, 0xd8, 0x6a, 0xb7, 0x1a, 0xee, 0x04, 0x7a, 0xd3, 0x45, 0xfd, 0x2c, 0x49 } },
		{ 1, { 0x40, 0xd1, 0x5f, 0xee, 0x7c, 0x32, 0x88, 0x30, 0x16, 0x6a, 0xc3, 0xf9, 0x18, 0x65, 0x0f, 0x80,
		       0x7e, 0x7e, 0x01, 0xe1, 0x77, 0x25, 0x8c, 0xdc, 0x0a, 0x39, 0xb1, 0x1f, 0x59, 0x80, 0x66, 0xf1 } },
		{ 2, { 0x6b, 0xb7, 0x13, 0x00, 0x64, 0x4c, 0xd3, 0x99, 0x1b, 0x26, 0xcc, 0xd4, 0xd2, 0x74, 0xac, 0xd1,
		       0xad, 0xea, 0xb8, 0xb1, 0xd7, 0x91, 0x45, 0x46, 0xc1, 0x19, 0x8b, 0xbe, 0x9f, 0xc9, 0xd8, 0x03 } },
		{ 3, { 0x1d, 0x22, 0x0d, 0xbe, 0x2e, 0xe1, 0x34, 0x66, 0x1f, 0xdf, 0x6d, 0x9e, 0x74, 0xb4, 0x17, 0x04,
		       0x71, 0x05, 0x56, 0xf2, 0xf6, 0xe5, 0xa0, 0x91, 0xb2, 0x27, 0x69, 0x74, 0x45, 0xdb, 0xea, 0x6b } },
		{ 64, { 0x89, 0x75, 0xb0, 0x57, 0x7f, 0xd3, 0x55, 0x66, 0xd7, 0x50, 0xb3, 0x62, 0xb0, 0x89, 0x7a, 0x26,
			0xc3, 0x99, 0x13, 0x6d, 0xf0, 0x7b, 0xab, 0xab, 0xbd, 0xe6, 0x20, 0x3f, 0xf2, 0x95, 0x4e, 0xd4 } },
		{ 255, { 0x3f, 0xb7, 0x35, 0x06, 0x1a, 0xbc, 0x51, 0x9d, 0xfe, 0x97, 0x9e, 0x54, 0xc1, 0xee, 0x5b, 0xfa,
			 0xd0, 0xa9, 0xd8, 0x58, 0xb3, 0x31, 0x5b, 0xad, 0x34, 0xbd, 0xe9, 0x99, 0xef, 0xd7, 0x24, 0xdd } },
	};
	uint8_t key[32], in[255], out[32];

	(void)state;
	fill_counting(key, sizeof(key));
	fill_counting(in, sizeof(in));
	for (size_t i = 0; i < ARRAY_LEN(kat); i++) {
		memset(out, 0, sizeof(out));
		assert_int_equal(wb_mac(out, 32, key, sizeof(key), in, kat[i].inlen), 0);
		assert_memory_equal(out, kat[i].out, 32);
	}
}

/*
 * A 16-byte output (mac1, mac2, cookies) is a different function, not a truncation:
 * the output length is in BLAKE2's parameter block. No published vector; computed
 * with hashlib.blake2s(bytes(range(n)), key=bytes(range(32)), digest_size=16).
 */
static void test_mac16_python_blake2s(void **state)
{
	static const struct {
		size_t inlen;
		uint8_t out[WB_MAC_LEN];
	} kat[] = {
		{ 0, { 0x95, 0x36, 0xf9, 0xb2, 0x67, 0x65, 0x57, 0x43, 0xde, 0xe9, 0x7b, 0x8a, 0x67, 0x0f, 0x9f, 0x53 } },
		{ 3, { 0x1e, 0x2a, 0x79, 0x43, 0x6a, 0x77, 0x96, 0xa3, 0xe9, 0x82, 0x6b, 0xfe, 0xdf, 0x07, 0x65, 0x9f } },
		{ 64, { 0xf1, 0xef, 0xa9, 0x0d, 0x25, 0x47, 0x03, 0x68, 0x41, 0xec, 0xd3, 0x62, 0x7f, 0xaf, 0xbc, 0x36 } },
		{ 255, { 0xcd, 0x07, 0x59, 0x28, 0xab, 0x7e, 0x68, 0x83, 0xe6, 0x97, 0xfe, 0x7f, 0xd3, 0xac, 0x43, 0xee } },
	};
	uint8_t key[32], in[255], out[WB_MAC_LEN + 1], out32[32];

	(void)state;
	fill_counting(key, sizeof(key));
	fill_counting(in, sizeof(in));
	for (size_t i = 0; i < ARRAY_LEN(kat); i++) {
		memset(out, 0xa5, sizeof(out));
		assert_int_equal(wb_mac(out, WB_MAC_LEN, key, sizeof(key), in, kat[i].inlen), 0);
		assert_memory_equal(out, kat[i].out, WB_MAC_LEN);
		assert_int_equal(out[WB_MAC_LEN], 0xa5); /* nothing past the 16 bytes */
		assert_int_equal(wb_mac(out32, 32, key, sizeof(key), in, kat[i].inlen), 0);
		assert_memory_not_equal(out32, out, WB_MAC_LEN);
	}
}

/* ---- HKDF with HMAC-BLAKE2s (Noise's KDF) ---- */

/*
 * Expected outputs computed with Python 3.11:
 *   prk = hmac.new(ck, input, hashlib.blake2s).digest()
 *   t1 = hmac.new(prk, b"\x01", hashlib.blake2s).digest()
 *   t2 = hmac.new(prk, t1 + b"\x02", hashlib.blake2s).digest()
 *   t3 = hmac.new(prk, t2 + b"\x03", hashlib.blake2s).digest()
 * with ck = noise_ck0 and input = the RFC 7748 Alice public key (Noise's
 * KDF1(C, e.pub) / KDF3(C, psk) shape) or the empty string (KDF2(C, empty)).
 */
static const uint8_t kdf_pub_t[3][WB_HASH_LEN] = {
	{ 0x35, 0x4b, 0xb2, 0xff, 0xe6, 0xe5, 0xab, 0x22, 0xa0, 0x0e, 0x11, 0x31, 0xaa, 0x1c, 0xc5, 0x5c,
	  0xca, 0xa5, 0xa9, 0x06, 0x24, 0xd1, 0x63, 0x85, 0x3d, 0xc2, 0xda, 0x76, 0xda, 0x62, 0xac, 0x92 },
	{ 0xc3, 0x18, 0x55, 0x08, 0xce, 0x23, 0x54, 0x7d, 0xe1, 0xa5, 0xfb, 0x6f, 0x2c, 0x86, 0x70, 0x4b,
	  0xf8, 0x29, 0x56, 0x58, 0x95, 0x42, 0x3f, 0x1a, 0xd8, 0x62, 0xc1, 0xc1, 0x8d, 0xf2, 0x3f, 0xf4 },
	{ 0x32, 0x7b, 0x0f, 0x0b, 0xc5, 0x44, 0xfe, 0x60, 0x0a, 0x5f, 0xdf, 0xb0, 0xe1, 0x4f, 0x1c, 0x75,
	  0x00, 0xcc, 0x49, 0x79, 0x52, 0x8f, 0x55, 0xbf, 0xf4, 0x84, 0xc5, 0xbd, 0x6d, 0x6f, 0x23, 0x46 },
};
static const uint8_t kdf_empty_t[3][WB_HASH_LEN] = {
	{ 0xbd, 0x96, 0x87, 0x25, 0xa9, 0x17, 0x79, 0x42, 0xa8, 0xc2, 0xe4, 0x25, 0x3d, 0x1d, 0xde, 0x31,
	  0xcf, 0x7b, 0x19, 0xec, 0x00, 0x1b, 0x4a, 0x3a, 0x3d, 0x14, 0x1c, 0xd9, 0xd9, 0x98, 0xd3, 0xba },
	{ 0xaa, 0xb5, 0x46, 0x2b, 0x32, 0x37, 0x80, 0xfa, 0x61, 0x5b, 0xf8, 0x0f, 0xfe, 0x46, 0x95, 0x10,
	  0x23, 0x9f, 0xf3, 0x61, 0x57, 0x5a, 0x66, 0x39, 0x68, 0xe6, 0x86, 0xa7, 0xae, 0x41, 0xd6, 0x93 },
	{ 0xae, 0x1e, 0x06, 0xe0, 0x93, 0x1d, 0xa1, 0x0b, 0x99, 0x71, 0xba, 0xb8, 0xe2, 0x82, 0xb4, 0x23,
	  0x07, 0x52, 0x2b, 0x38, 0xc0, 0xf4, 0x49, 0x2c, 0xdd, 0x1b, 0xf4, 0x42, 0x98, 0x12, 0x68, 0x87 },
};

static void test_kdf_three_outputs(void **state)
{
	uint8_t t1[WB_HASH_LEN], t2[WB_HASH_LEN], t3[WB_HASH_LEN];

	(void)state;
	assert_int_equal(wb_kdf(t1, t2, t3, noise_ck0, alice_pub, sizeof(alice_pub)), 0);
	assert_memory_equal(t1, kdf_pub_t[0], WB_HASH_LEN);
	assert_memory_equal(t2, kdf_pub_t[1], WB_HASH_LEN);
	assert_memory_equal(t3, kdf_pub_t[2], WB_HASH_LEN);
}

static void test_kdf_empty_input(void **state)
{
	uint8_t t1[WB_HASH_LEN], t2[WB_HASH_LEN], t3[WB_HASH_LEN];

	(void)state;
	/* KDF2(C, empty): the transport keys at the end of the handshake. */
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	assert_int_equal(wb_kdf(t1, t2, NULL, noise_ck0, NULL, 0), 0);
	assert_memory_equal(t1, kdf_empty_t[0], WB_HASH_LEN);
	assert_memory_equal(t2, kdf_empty_t[1], WB_HASH_LEN);
	assert_int_equal(wb_kdf(t1, t2, t3, noise_ck0, "", 0), 0);
	assert_memory_equal(t1, kdf_empty_t[0], WB_HASH_LEN);
	assert_memory_equal(t2, kdf_empty_t[1], WB_HASH_LEN);
	assert_memory_equal(t3, kdf_empty_t[2], WB_HASH_LEN);
}

/* Fewer outputs are a prefix of the same HKDF stream: t1 alone, or t1 and t2, are unchanged. */
static void test_kdf_fewer_outputs_same_prefix(void **state)
{
	uint8_t t1[WB_HASH_LEN], t2[WB_HASH_LEN];

	(void)state;
	memset(t1, 0, sizeof(t1));
	assert_int_equal(wb_kdf(t1, NULL, NULL, noise_ck0, alice_pub, sizeof(alice_pub)), 0);
	assert_memory_equal(t1, kdf_pub_t[0], WB_HASH_LEN);
	memset(t1, 0, sizeof(t1));
	memset(t2, 0, sizeof(t2));
	assert_int_equal(wb_kdf(t1, t2, NULL, noise_ck0, alice_pub, sizeof(alice_pub)), 0);
	assert_memory_equal(t1, kdf_pub_t[0], WB_HASH_LEN);
	assert_memory_equal(t2, kdf_pub_t[1], WB_HASH_LEN);
	memset(t1, 0, sizeof(t1));
	assert_int_equal(wb_kdf(t1, NULL, NULL, noise_ck0, NULL, 0), 0);
	assert_memory_equal(t1, kdf_empty_t[0], WB_HASH_LEN);
}

/* Noise writes the new chaining key over the old one: ck and t1 may be the same buffer. */
static void test_kdf_output_over_chaining_key(void **state)
{
	uint8_t ck[WB_HASH_LEN], t2[WB_HASH_LEN];

	(void)state;
	memcpy(ck, noise_ck0, sizeof(ck));
	assert_int_equal(wb_kdf(ck, t2, NULL, ck, alice_pub, sizeof(alice_pub)), 0);
	assert_memory_equal(ck, kdf_pub_t[0], WB_HASH_LEN);
	assert_memory_equal(t2, kdf_pub_t[1], WB_HASH_LEN);
}

/* ---- X25519 ---- */

static void test_x25519_rfc7748_public(void **state)
{
	uint8_t pub[WB_KEY_LEN];

	(void)state;
	assert_int_equal(wb_x25519_public(pub, alice_priv), 0);
	assert_memory_equal(pub, alice_pub, WB_KEY_LEN);
	assert_int_equal(wb_x25519_public(pub, bob_priv), 0);
	assert_memory_equal(pub, bob_pub, WB_KEY_LEN);
}

static void test_x25519_rfc7748_shared(void **state)
{
	uint8_t shared[WB_KEY_LEN];

	(void)state;
	memset(shared, 0, sizeof(shared));
	assert_int_equal(wb_x25519(shared, alice_priv, bob_pub), 0);
	assert_memory_equal(shared, alice_bob_shared, WB_KEY_LEN);
	memset(shared, 0, sizeof(shared));
	assert_int_equal(wb_x25519(shared, bob_priv, alice_pub), 0);
	assert_memory_equal(shared, alice_bob_shared, WB_KEY_LEN);
}

/*
 * Public keys of small order give an all-zero shared secret for every private key:
 * refused, and the output left wiped. The list is the usual one (Bernstein's
 * Curve25519 page, libsodium's blacklist): 0, 1, the two points of order 8,
 * p - 1, p, p + 1, and some of the same with bit 255 set (ignored by X25519).
 */
static void test_x25519_low_order_refused(void **state)
{
	static const uint8_t low[][WB_KEY_LEN] = {
		{ 0 },
		{ 0x01 },
		{ 0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
		  0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x00 },
		{ 0x5f, 0x9c, 0x95, 0xbc, 0xa3, 0x50, 0x8c, 0x24, 0xb1, 0xd0, 0xb1, 0x55, 0x9c, 0x83, 0xef, 0x5b,
		  0x04, 0x44, 0x5c, 0xc4, 0x58, 0x1c, 0x8e, 0x86, 0xd8, 0x22, 0x4e, 0xdd, 0xd0, 0x9f, 0x11, 0x57 },
		{ 0xec, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f },
		{ 0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f },
		{ 0xee, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f },
		{ [31] = 0x80 },
		{ 0xe0, 0xeb, 0x7a, 0x7c, 0x3b, 0x41, 0xb8, 0xae, 0x16, 0x56, 0xe3, 0xfa, 0xf1, 0x9f, 0xc4, 0x6a,
		  0xda, 0x09, 0x8d, 0xeb, 0x9c, 0x32, 0xb1, 0xfd, 0x86, 0x62, 0x05, 0x16, 0x5f, 0x49, 0xb8, 0x80 },
		{ 0xed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	const uint8_t *privs[] = { alice_priv, bob_priv };
	uint8_t shared[WB_KEY_LEN];

	(void)state;
	for (size_t p = 0; p < ARRAY_LEN(privs); p++) {
		for (size_t i = 0; i < ARRAY_LEN(low); i++) {
			memset(shared, 0xa5, sizeof(shared));
			assert_true(wb_x25519(shared, privs[p], low[i]) < 0);
			assert_true(all_bytes(shared, sizeof(shared), 0));
		}
	}
}

static void test_x25519_clamp_bits(void **state)
{
	uint8_t k[WB_KEY_LEN], want[WB_KEY_LEN];

	(void)state;
	memset(k, 0xff, sizeof(k));
	wb_x25519_clamp(k);
	memset(want, 0xff, sizeof(want));
	want[0] = 0xf8;  /* the low three bits cleared: a multiple of the cofactor */
	want[31] = 0x7f; /* bit 255 cleared, bit 254 set */
	assert_memory_equal(k, want, sizeof(k));

	memset(k, 0, sizeof(k));
	wb_x25519_clamp(k);
	memset(want, 0, sizeof(want));
	want[31] = 0x40;
	assert_memory_equal(k, want, sizeof(k));

	/* RFC 7748's Alice: 0x77 -> 0x70 and 0x2a -> 0x6a, nothing else changes; clamping twice is once. */
	memcpy(k, alice_priv, sizeof(k));
	wb_x25519_clamp(k);
	memcpy(want, alice_priv, sizeof(want));
	want[0] = 0x70;
	want[31] = 0x6a;
	assert_memory_equal(k, want, sizeof(k));
	wb_x25519_clamp(k);
	assert_memory_equal(k, want, sizeof(k));
}

/* X25519 clamps the scalar itself: a clamped key has the same public key and shared secret. */
static void test_x25519_clamped_key_same_results(void **state)
{
	uint8_t k[WB_KEY_LEN], pub[WB_KEY_LEN], shared[WB_KEY_LEN];

	(void)state;
	memcpy(k, alice_priv, sizeof(k));
	wb_x25519_clamp(k);
	assert_int_equal(wb_x25519_public(pub, k), 0);
	assert_memory_equal(pub, alice_pub, WB_KEY_LEN);
	assert_int_equal(wb_x25519(shared, k, bob_pub), 0);
	assert_memory_equal(shared, alice_bob_shared, WB_KEY_LEN);
}

/* ---- base64 keys ---- */

/* `wg pubkey` of RFC 7748's Alice; Python's base64.b64encode(alice_pub) agrees. */
static const char alice_pub_b64[] = "hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=";

static void test_base64_alice_as_wg(void **state)
{
	char s[WB_KEY_B64_LEN];
	uint8_t key[WB_KEY_LEN];

	(void)state;
	memset(s, 'x', sizeof(s));
	wb_key_to_base64(s, alice_pub);
	assert_string_equal(s, alice_pub_b64);
	assert_int_equal(s[WB_KEY_B64_LEN - 1], '\0');
	assert_int_equal(wb_key_from_base64(key, alice_pub_b64), 0);
	assert_memory_equal(key, alice_pub, WB_KEY_LEN);
}

static void test_base64_round_trip(void **state)
{
	/* The first two from Python's base64.b64encode(bytes(32)) and (b"\xff" * 32). */
	static const struct {
		uint8_t fill;
		const char *b64;
	} fixed[] = {
		{ 0x00, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" },
		{ 0xff, "//////////////////////////////////////////8=" },
	};
	char s[WB_KEY_B64_LEN];
	uint8_t key[WB_KEY_LEN], back[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(fixed); i++) {
		memset(key, fixed[i].fill, sizeof(key));
		wb_key_to_base64(s, key);
		assert_string_equal(s, fixed[i].b64);
		memset(back, 0x5a, sizeof(back));
		assert_int_equal(wb_key_from_base64(back, s), 0);
		assert_memory_equal(back, key, WB_KEY_LEN);
	}
	/* Every byte value in every position, and every value of the last, partial character. */
	for (unsigned int seed = 0; seed < 256; seed++) {
		for (size_t i = 0; i < WB_KEY_LEN; i++)
			key[i] = (uint8_t)(seed * 31 + i * 97 + (seed >> 3) * i);
		key[WB_KEY_LEN - 1] = (uint8_t)seed;
		wb_key_to_base64(s, key);
		assert_int_equal(strlen(s), WB_KEY_B64_LEN - 1);
		assert_int_equal(wb_key_from_base64(back, s), 0);
		assert_memory_equal(back, key, WB_KEY_LEN);
	}
}

static void test_base64_wrong_length_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo",                  /* 43: no padding */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTm=",                  /* 43 with '=' */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo==",                /* 45 */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmoA",                 /* 44 without '=' */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=A",                /* 45 */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066Spjqqb",                     /* 40: 30 bytes */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmpqb28=",             /* 48: 35 bytes */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
	};
	uint8_t key[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		memset(key, 0x5a, sizeof(key));
		assert_int_equal(wb_key_from_base64(key, bad[i]), -EINVAL);
		assert_true(all_bytes(key, sizeof(key), 0x5a));
	}
}

static void test_base64_two_pad_refused(void **state)
{
	/* 44 characters ending in "==": the base64 of 32 bytes has one '=', not two. */
	static const char *const bad[] = {
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTm==",
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==",
		"============================================",
	};
	uint8_t key[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		assert_int_equal(wb_key_from_base64(key, bad[i]), -EINVAL);
}

static void test_base64_bad_characters_refused(void **state)
{
	/* Each is 44 characters with the '=' in place; one character is not base64. */
	static const char *const bad[] = {
		"hSDwCYkwp1R0i33ctD73Wg2_Og0mOBr066SpjqqbTmo=", /* base64url '_' */
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066S-jqqbTmo=", /* base64url '-' */
		"!SDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTm.=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066Spjqqb\x01mo=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066Spjqqb\xc3\xa9o=", /* UTF-8 e-acute: two bytes */
	};
	uint8_t key[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		assert_int_equal(strlen(bad[i]), WB_KEY_B64_LEN - 1);
		memset(key, 0x5a, sizeof(key));
		assert_int_equal(wb_key_from_base64(key, bad[i]), -EINVAL);
		assert_true(all_bytes(key, sizeof(key), 0x5a));
	}
}

/* '=' is padding only at the end; inside the string it is not a character of base64. */
static void test_base64_inner_pad_refused(void **state)
{
	static const char *const bad[] = {
		"=SDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
		"hSDwCYkwp1=0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbT=o=",
		"==========================================A=", /* would be the all-zero key */
	};
	uint8_t key[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		assert_int_equal(strlen(bad[i]), WB_KEY_B64_LEN - 1);
		if (wb_key_from_base64(key, bad[i]) != -EINVAL)
			fail_msg("\"%s\" was accepted as a key", bad[i]);
	}
}

static void test_base64_whitespace_refused(void **state)
{
	/* Leading, trailing and inner whitespace, each keeping 44 characters and the final '='. */
	static const char *const bad[] = {
		" SDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
		"\tSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTm =",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTm\n=",
		"hSDwCYkwp1R0i33ctD73Wg2 Og0mOBr066SpjqqbTmo=",
		"hSDwCYkwp1R0i33ctD73Wg2/\r\n0mOBr066SpjqqbTmo=",
		/* And the valid 44 characters with whitespace added. */
		" hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo= ",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmo=\n",
	};
	uint8_t key[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		if (i < 6) /* the first six are of the right length: only the whitespace is wrong */
			assert_int_equal(strlen(bad[i]), WB_KEY_B64_LEN - 1);
		memset(key, 0x5a, sizeof(key));
		assert_int_equal(wb_key_from_base64(key, bad[i]), -EINVAL);
		assert_true(all_bytes(key, sizeof(key), 0x5a));
	}
}

/*
 * The 43rd character carries the last 4 bits of the key and 2 bits that must be
 * zero: 'o' (101000) is Alice's, 'p' (101001) and 'r' (101011) decode to the same
 * key but are not "exactly the base64 of 32 bytes"; wg(8) refuses them.
 */
static void test_base64_non_canonical_refused(void **state)
{
	static const char *const bad[] = {
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmp=",
		"hSDwCYkwp1R0i33ctD73Wg2/Og0mOBr066SpjqqbTmr=",
		"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=",
		"//////////////////////////////////////////9=",
	};
	uint8_t key[WB_KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		if (wb_key_from_base64(key, bad[i]) != -EINVAL)
			fail_msg("non-canonical \"%s\" was accepted as a key", bad[i]);
	}
}

/* ---- wipe and compare ---- */

static void test_equal(void **state)
{
	uint8_t a[64], b[64];

	(void)state;
	fill_counting(a, sizeof(a));
	memcpy(b, a, sizeof(b));
	assert_true(wb_equal(a, b, sizeof(a)));
	assert_true(wb_equal(a, a, sizeof(a)));
	assert_true(wb_equal(a, b, 0));
	b[0] ^= 1;
	assert_false(wb_equal(a, b, sizeof(a)));
	assert_true(wb_equal(a + 1, b + 1, sizeof(a) - 1));
	b[0] ^= 1;
	b[63] ^= 0x80; /* the last byte, last bit */
	assert_false(wb_equal(a, b, sizeof(a)));
	assert_true(wb_equal(a, b, sizeof(a) - 1));
	b[63] ^= 0x80;
	b[31] = (uint8_t)(b[31] + 1);
	assert_false(wb_equal(a, b, sizeof(a)));
	/* A tag-sized compare, differing only in the last byte. */
	memcpy(b, wp2_tag, WB_TAG_LEN);
	b[WB_TAG_LEN - 1] ^= 1;
	assert_false(wb_equal(wp2_tag, b, WB_TAG_LEN));
	assert_true(wb_equal(wp2_tag, b, WB_TAG_LEN - 1));
}

static void test_wipe(void **state)
{
	uint8_t buf[64];

	(void)state;
	memset(buf, 0xa5, sizeof(buf));
	wb_wipe(buf + 8, 32);
	assert_true(all_bytes(buf, 8, 0xa5));
	assert_true(all_bytes(buf + 8, 32, 0));
	assert_true(all_bytes(buf + 40, sizeof(buf) - 40, 0xa5));
	wb_wipe(buf, 0);
	assert_int_equal(buf[0], 0xa5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cipher_name_round_trip),
		cmocka_unit_test(test_cipher_unknown_name_refused),
		cmocka_unit_test(test_chacha_rfc8439_seal_nonce),
		cmocka_unit_test(test_chacha_rfc8439_open_nonce),
		cmocka_unit_test(test_chacha_rfc8439_keyed_context),
		cmocka_unit_test(test_chacha_rfc8439_keyed_in_place),
		cmocka_unit_test(test_chacha_rfc8439_a5_decrypt),
		cmocka_unit_test(test_chacha_a5_seal_gives_the_vector),
		cmocka_unit_test(test_chacha_wycheproof_empty_message),
		cmocka_unit_test(test_chacha_tampering_refused),
		cmocka_unit_test(test_chacha_wrong_context_refused),
		cmocka_unit_test(test_aead_shorter_than_tag_refused),
		cmocka_unit_test(test_aead_counter_nonce_layout),
		cmocka_unit_test(test_aead_counter_nonce_literal),
		cmocka_unit_test(test_gcm_spec_case16_seal),
		cmocka_unit_test(test_gcm_spec_case16_open),
		cmocka_unit_test(test_gcm_spec_case13_empty),
		cmocka_unit_test(test_gcm_tampering_refused),
		cmocka_unit_test(test_hash_rfc7693_abc),
		cmocka_unit_test(test_hash_empty),
		cmocka_unit_test(test_hash2_is_hash_of_concatenation),
		cmocka_unit_test(test_hash2_wireguard_initial_hash),
		cmocka_unit_test(test_mac32_blake2s_keyed_kat),
		cmocka_unit_test(test_mac16_python_blake2s),
		cmocka_unit_test(test_kdf_three_outputs),
		cmocka_unit_test(test_kdf_empty_input),
		cmocka_unit_test(test_kdf_fewer_outputs_same_prefix),
		cmocka_unit_test(test_kdf_output_over_chaining_key),
		cmocka_unit_test(test_x25519_rfc7748_public),
		cmocka_unit_test(test_x25519_rfc7748_shared),
		cmocka_unit_test(test_x25519_low_order_refused),
		cmocka_unit_test(test_x25519_clamp_bits),
		cmocka_unit_test(test_x25519_clamped_key_same_results),
		cmocka_unit_test(test_base64_alice_as_wg),
		cmocka_unit_test(test_base64_round_trip),
		cmocka_unit_test(test_base64_wrong_length_refused),
		cmocka_unit_test(test_base64_two_pad_refused),
		cmocka_unit_test(test_base64_bad_characters_refused),
		cmocka_unit_test(test_base64_inner_pad_refused),
		cmocka_unit_test(test_base64_whitespace_refused),
		cmocka_unit_test(test_base64_non_canonical_refused),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_wipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
