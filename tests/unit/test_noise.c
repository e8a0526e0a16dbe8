// SPDX-License-Identifier: MIT
/*
 * Unit tests: noise.c (the IKpsk2 handshake messages, TAI64N) and cookie.c
 * (mac1, mac2, cookie replies), without any device: two parties, each a
 * wb_noise_local and a wb_noise_remote for the other.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "cookie.h"
#include "noise.h"
#include "prng.h"

#define SEC 1000000000ULL
#define UNIX_NOW (1700000000ULL * SEC + 123456789ULL)
#define I_INDEX 0x11223344u
#define R_INDEX 0x55667788u

struct party {
	struct wb_noise_local local;
	struct wb_noise_remote remote; /* the other party, as this one knows it */
};

static void key_from_seed(uint8_t key[WB_KEY_LEN], uint64_t seed)
{
	struct prng rng;

	prng_seed(&rng, seed);
	for (int i = 0; i < WB_KEY_LEN; i++)
		key[i] = (uint8_t)prng_next(&rng);
}

static void local_from_seed(struct wb_noise_local *l, uint64_t seed)
{
	uint8_t priv[WB_KEY_LEN];

	key_from_seed(priv, seed);
	assert_int_equal(wb_noise_local_init(l, priv), 0);
}

/* Initiator i and responder r, each knowing the other, with pre-shared keys psk_i and psk_r. */
static void parties(struct party *i, struct party *r, uint8_t psk_i, uint8_t psk_r)
{
	uint8_t pi[WB_KEY_LEN], pr[WB_KEY_LEN];

	memset(pi, psk_i, sizeof(pi));
	memset(pr, psk_r, sizeof(pr));
	local_from_seed(&i->local, 1);
	local_from_seed(&r->local, 2);
	assert_int_equal(wb_noise_remote_init(&i->remote, &i->local, r->local.public_key, pi), 0);
	assert_int_equal(wb_noise_remote_init(&r->remote, &r->local, i->local.public_key, pr), 0);
	assert_true(i->remote.static_static_ok);
	assert_true(r->remote.static_static_ok);
}

static void seed_bytes(uint8_t out[WB_KEY_LEN], uint8_t v)
{
	memset(out, v, WB_KEY_LEN);
}

static void initiation(struct wb_msg_initiation *msg, struct wb_noise_handshake *hs, const struct party *i)
{
	uint8_t seed[WB_KEY_LEN];

	seed_bytes(seed, 0x31);
	assert_int_equal(wb_noise_create_initiation(msg, hs, &i->local, &i->remote, seed, I_INDEX, UNIX_NOW), 0);
	assert_int_equal(hs->state, WB_NOISE_CREATED_INITIATION);
}

/* The responder's side of an initiation; returns the result of the first failing step. */
static int receive_initiation(const struct wb_msg_initiation *msg, struct wb_noise_handshake *hs,
			      const struct party *r, uint8_t ts[WB_TAI64N_LEN])
{
	int rc = wb_noise_open_initiation(msg, hs, &r->local);

	return rc ? rc : wb_noise_finish_initiation(msg, hs, &r->remote, ts);
}

static void response(struct wb_msg_response *msg, struct wb_noise_handshake *hs, const struct party *r)
{
	uint8_t seed[WB_KEY_LEN];

	seed_bytes(seed, 0x42);
	assert_int_equal(wb_noise_create_response(msg, hs, &r->local, &r->remote, seed, R_INDEX), 0);
	assert_int_equal(hs->state, WB_NOISE_CREATED_RESPONSE);
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t k = 0; k < len; k++)
		if (b[k])
			return false;
	return true;
}

static void test_full_handshake_gives_matching_keys(void **state)
{
	struct party i, r;
	struct wb_msg_initiation init;
	struct wb_msg_response resp;
	struct wb_noise_handshake hi, hr;
	struct wb_noise_keys ki, kr;
	uint8_t ts[WB_TAI64N_LEN], expect_ts[WB_TAI64N_LEN];

	(void)state;
	parties(&i, &r, 7, 7);
	i.local.incarnation = 0x1122334455667788ULL;
	r.local.incarnation = 0x99aabbccddeeff00ULL;
	r.local.caps = 0; /* a responder from before the capabilities: the byte left zero */
	initiation(&init, &hi, &i);
	assert_int_equal(init.type, WB_MSG_INITIATION);
	assert_int_equal(init.caps, WB_CAPS_ALL);
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	assert_int_equal(hr.state, WB_NOISE_CONSUMED_INITIATION);
	assert_memory_equal(hr.remote_static, i.local.public_key, WB_KEY_LEN);
	assert_int_equal(hr.remote_index, I_INDEX);
	wb_tai64n(expect_ts, UNIX_NOW);
	assert_memory_equal(ts, expect_ts, WB_TAI64N_LEN);
	response(&resp, &hr, &r);
	assert_int_equal(resp.type, WB_MSG_RESPONSE);
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), 0);
	assert_int_equal(hi.state, WB_NOISE_CONSUMED_RESPONSE);
	assert_int_equal(hi.remote_index, R_INDEX);

	assert_int_equal(wb_noise_derive_keys(&hi, &ki), 0);
	assert_int_equal(wb_noise_derive_keys(&hr, &kr), 0);
	assert_memory_equal(ki.send, kr.recv, WB_KEY_LEN);
	assert_memory_equal(ki.recv, kr.send, WB_KEY_LEN);
	assert_memory_not_equal(ki.send, ki.recv, WB_KEY_LEN);
	assert_true(ki.initiator);
	assert_false(kr.initiator);
	assert_int_equal(ki.local_index, I_INDEX);
	assert_int_equal(ki.remote_index, R_INDEX);
	assert_int_equal(kr.local_index, R_INDEX);
	assert_int_equal(kr.remote_index, I_INDEX);
	/* Each side learnt the other's incarnation, sealed in its message. */
	assert_true(ki.remote_incarnation == r.local.incarnation);
	assert_true(kr.remote_incarnation == i.local.incarnation);
	/* And what it reads. */
	assert_int_equal(kr.remote_caps, WB_CAPS_ALL);
	assert_int_equal(ki.remote_caps, 0);
	/* The handshakes are wiped once their keys are out. */
	assert_int_equal(hi.state, WB_NOISE_ZEROED);
	assert_true(all_zero(hi.chaining_key, sizeof(hi.chaining_key)));
	assert_true(all_zero(hr.ephemeral_private, sizeof(hr.ephemeral_private)));
	/* And cannot give keys a second time. */
	assert_int_equal(wb_noise_derive_keys(&hi, &ki), -EINVAL);
}

static void test_other_ephemeral_keys_give_other_session_keys(void **state)
{
	struct party i, r;
	struct wb_msg_initiation init;
	struct wb_msg_response resp;
	struct wb_noise_handshake hi, hr;
	struct wb_noise_keys k1, k2;
	uint8_t ts[WB_TAI64N_LEN], seed[WB_KEY_LEN];

	(void)state;
	parties(&i, &r, 7, 7);
	initiation(&init, &hi, &i);
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	response(&resp, &hr, &r);
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), 0);
	assert_int_equal(wb_noise_derive_keys(&hi, &k1), 0);

	seed_bytes(seed, 0x99);
	assert_int_equal(wb_noise_create_initiation(&init, &hi, &i.local, &i.remote, seed, I_INDEX, UNIX_NOW), 0);
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	response(&resp, &hr, &r);
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), 0);
	assert_int_equal(wb_noise_derive_keys(&hi, &k2), 0);
	assert_memory_not_equal(k1.send, k2.send, WB_KEY_LEN);
	assert_memory_not_equal(k1.recv, k2.recv, WB_KEY_LEN);
}

static void test_wrong_responder_key_fails_open_initiation(void **state)
{
	struct party i, r;
	struct wb_noise_local stranger;
	struct wb_msg_initiation init;
	struct wb_noise_handshake hi, hr, before;

	(void)state;
	parties(&i, &r, 7, 7);
	/* The initiator believes in another responder key. */
	local_from_seed(&stranger, 3);
	assert_int_equal(wb_noise_remote_init(&i.remote, &i.local, stranger.public_key, NULL), 0);
	initiation(&init, &hi, &i);
	memset(&hr, 0xa5, sizeof(hr));
	before = hr;
	assert_int_equal(wb_noise_open_initiation(&init, &hr, &r.local), -EBADMSG);
	assert_memory_equal(&hr, &before, sizeof(hr));
	/* The key it was meant for opens it. */
	assert_int_equal(wb_noise_open_initiation(&init, &hr, &stranger), 0);
}

static void test_responder_not_knowing_the_initiator_fails_finish(void **state)
{
	struct party i, r;
	struct wb_noise_local stranger;
	struct wb_noise_remote other;
	struct wb_msg_initiation init;
	struct wb_noise_handshake hi, hr, before;
	uint8_t ts[WB_TAI64N_LEN];

	(void)state;
	parties(&i, &r, 7, 7);
	local_from_seed(&stranger, 3);
	assert_int_equal(wb_noise_remote_init(&other, &r.local, stranger.public_key, NULL), 0);
	initiation(&init, &hi, &i);
	assert_int_equal(wb_noise_open_initiation(&init, &hr, &r.local), 0);
	before = hr;
	assert_int_equal(wb_noise_finish_initiation(&init, &hr, &other, ts), -EBADMSG);
	assert_memory_equal(&hr, &before, sizeof(hr));
	assert_int_equal(hr.state, WB_NOISE_ZEROED);
	/* Nor can a response be made from it. */
	{
		struct wb_msg_response resp;
		uint8_t seed[WB_KEY_LEN];

		seed_bytes(seed, 1);
		assert_int_equal(wb_noise_create_response(&resp, &hr, &r.local, &other, seed, R_INDEX), -EINVAL);
	}
	/* The right remote still finishes the same state. */
	assert_int_equal(wb_noise_finish_initiation(&init, &hr, &r.remote, ts), 0);
}

static void test_wrong_psk_fails_consume_response(void **state)
{
	struct party i, r;
	struct wb_msg_initiation init;
	struct wb_msg_response resp;
	struct wb_noise_handshake hi, hr, before;
	uint8_t ts[WB_TAI64N_LEN];

	(void)state;
	parties(&i, &r, 7, 8);
	initiation(&init, &hi, &i);
	/* The pre-shared key enters only with the response: the initiation is accepted. */
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	response(&resp, &hr, &r);
	before = hi;
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), -EBADMSG);
	assert_memory_equal(&hi, &before, sizeof(hi));
	/* With no pre-shared key on one side only, the same. */
	parties(&i, &r, 0, 7);
	initiation(&init, &hi, &i);
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	response(&resp, &hr, &r);
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), -EBADMSG);
}

/*
 * Every byte of an initiation, flipped: noise refuses those it authenticates
 * (type, ephemeral, encrypted static and timestamp); the others (reserved,
 * sender index) are covered by mac1, so a full check (mac1, then noise)
 * refuses any change before mac2. A changed mac2 only fails the mac2 check
 * (what counts under load).
 */
static void test_tampered_initiation_is_refused_at_every_byte(void **state)
{
	struct party i, r;
	struct wb_msg_initiation init;
	struct wb_noise_handshake hi;
	struct wb_cookie_checker checker = { 0 };
	struct wb_cookie_jar jar = { 0 };
	struct wb_msg_cookie reply;
	const struct wb_endpoint src = { .family = 4, .port = 40000, .addr = { 192, 0, 2, 100 } };
	uint8_t secret[WB_HASH_LEN], nonce[WB_NONCE_LEN] = { 1 };
	const size_t mac1_at = offsetof(struct wb_msg_initiation, mac1);
	const size_t mac2_at = offsetof(struct wb_msg_initiation, mac2);

	(void)state;
	parties(&i, &r, 7, 7);
	memset(secret, 3, sizeof(secret));
	wb_cookie_set_secret(&checker, secret, 0);
	initiation(&init, &hi, &i);
	/* A valid mac2 too: get a cookie for src, then seal the MACs again. */
	assert_int_equal(wb_cookie_add_macs(&init, sizeof(init), i.remote.mac1_key, &jar, 0), 0);
	assert_int_equal(wb_cookie_create_reply(&reply, &checker, &r.local, &init, sizeof(init), I_INDEX, &src, nonce), 0);
	assert_int_equal(wb_cookie_consume_reply(&reply, &jar, i.remote.cookie_key, 0), 0);
	assert_int_equal(wb_cookie_add_macs(&init, sizeof(init), i.remote.mac1_key, &jar, 0), 0);
	assert_int_equal(wb_cookie_validate(&checker, &r.local, &init, sizeof(init), &src), WB_MAC1_MAC2_OK);

	for (size_t at = 0; at < sizeof(init); at++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct wb_msg_initiation bad = init;
			struct wb_noise_handshake hr, before;
			uint8_t ts[WB_TAI64N_LEN];
			bool noise_covers = at == 0 || (at >= offsetof(struct wb_msg_initiation, ephemeral) && at < mac1_at);
			enum wb_mac_result mac;

			((uint8_t *)&bad)[at] ^= (uint8_t)(1 << bit);
			memset(&hr, 0x5a, sizeof(hr));
			before = hr;
			if (noise_covers) {
				int rc = wb_noise_open_initiation(&bad, &hr, &r.local);

				if (rc) {
					assert_memory_equal(&hr, &before, sizeof(hr));
				} else {
					before = hr;
					assert_int_not_equal(wb_noise_finish_initiation(&bad, &hr, &r.remote, ts), 0);
					assert_memory_equal(&hr, &before, sizeof(hr));
				}
			}
			mac = wb_cookie_validate(&checker, &r.local, &bad, sizeof(bad), &src);
			if (at < mac2_at)
				assert_int_equal(mac, WB_MAC_BAD);
			else
				assert_int_equal(mac, WB_MAC1_OK);
		}
	}
}

static void test_tampered_response_is_refused_at_every_byte(void **state)
{
	struct party i, r;
	struct wb_msg_initiation init;
	struct wb_msg_response resp;
	struct wb_noise_handshake hi, hr;
	struct wb_cookie_checker checker = { 0 };
	struct wb_cookie_jar jar = { 0 };
	const struct wb_endpoint src = { .family = 4, .port = 51820, .addr = { 192, 0, 2, 1 } };
	uint8_t ts[WB_TAI64N_LEN];
	const size_t mac1_at = offsetof(struct wb_msg_response, mac1);
	const size_t mac2_at = offsetof(struct wb_msg_response, mac2);

	(void)state;
	parties(&i, &r, 7, 7);
	initiation(&init, &hi, &i);
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	response(&resp, &hr, &r);
	assert_int_equal(wb_cookie_add_macs(&resp, sizeof(resp), r.remote.mac1_key, &jar, 0), 0);
	assert_int_equal(wb_cookie_validate(&checker, &i.local, &resp, sizeof(resp), &src), WB_MAC1_OK);

	for (size_t at = 0; at < sizeof(resp); at++) {
		for (int bit = 0; bit < 8; bit += 3) {
			struct wb_msg_response bad = resp;
			struct wb_noise_handshake h = hi;
			bool noise_covers = at == 0 || (at >= offsetof(struct wb_msg_response, receiver_index) && at < mac1_at);

			((uint8_t *)&bad)[at] ^= (uint8_t)(1 << bit);
			if (noise_covers) {
				assert_int_not_equal(wb_noise_consume_response(&bad, &h, &i.local, &i.remote), 0);
				assert_memory_equal(&h, &hi, sizeof(h));
			}
			assert_int_equal(wb_cookie_validate(&checker, &i.local, &bad, sizeof(bad), &src),
					 at < mac2_at ? WB_MAC_BAD : WB_MAC1_OK);
		}
	}
	/* The original still goes through, once. */
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), 0);
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), -EINVAL);
}

static void test_response_with_wrong_receiver_index_is_refused(void **state)
{
	struct party i, r;
	struct wb_msg_initiation init;
	struct wb_msg_response resp;
	struct wb_noise_handshake hi, hr, before;
	uint8_t ts[WB_TAI64N_LEN];
	const uint32_t wrong[] = { 0, I_INDEX + 1, I_INDEX ^ 0x80000000u, R_INDEX };

	(void)state;
	parties(&i, &r, 7, 7);
	initiation(&init, &hi, &i);
	assert_int_equal(receive_initiation(&init, &hr, &r, ts), 0);
	response(&resp, &hr, &r);
	before = hi;
	for (size_t k = 0; k < sizeof(wrong) / sizeof(wrong[0]); k++) {
		struct wb_msg_response bad = resp;
		uint8_t *ri = (uint8_t *)&bad.receiver_index;

		ri[0] = (uint8_t)wrong[k];
		ri[1] = (uint8_t)(wrong[k] >> 8);
		ri[2] = (uint8_t)(wrong[k] >> 16);
		ri[3] = (uint8_t)(wrong[k] >> 24);
		assert_int_equal(wb_noise_consume_response(&bad, &hi, &i.local, &i.remote), -EINVAL);
		assert_memory_equal(&hi, &before, sizeof(hi));
	}
	assert_int_equal(wb_noise_consume_response(&resp, &hi, &i.local, &i.remote), 0);
}

/* A peer with a low-order public key gives no shared secret: never a handshake with it. */
static void test_low_order_peer_key_is_never_accepted(void **state)
{
	struct party i, r;
	struct wb_noise_remote zero_peer;
	struct wb_msg_initiation init;
	struct wb_noise_handshake hs;
	uint8_t zero[WB_KEY_LEN] = { 0 }, seed[WB_KEY_LEN], ts[WB_TAI64N_LEN];

	(void)state;
	parties(&i, &r, 7, 7);
	wb_noise_remote_init(&zero_peer, &i.local, zero, NULL);
	assert_false(zero_peer.static_static_ok);
	seed_bytes(seed, 5);
	assert_int_equal(wb_noise_create_initiation(&init, &hs, &i.local, &zero_peer, seed, 1, UNIX_NOW), -EINVAL);
	/* And a responder that holds it as a peer refuses to finish with it. */
	initiation(&init, &hs, &i);
	wb_noise_remote_init(&zero_peer, &r.local, zero, NULL);
	assert_int_equal(wb_noise_open_initiation(&init, &hs, &r.local), 0);
	assert_int_equal(wb_noise_finish_initiation(&init, &hs, &zero_peer, ts), -EBADMSG);
}

/* ---- TAI64N ---------------------------------------------------------------- */

static void test_tai64n_encoding(void **state)
{
	/* 2^62 + 10 + 1700000000 = 0x400000006553f10a; 123456789 ns rounded down to 7 * 2^24. */
	const uint8_t expect[WB_TAI64N_LEN] = { 0x40, 0x00, 0x00, 0x00, 0x65, 0x53, 0xf1, 0x0a,
						0x07, 0x00, 0x00, 0x00 };
	const uint8_t epoch[WB_TAI64N_LEN] = { 0x40, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0 };
	/* 999999999 ns is 0x3b9ac9ff: rounded down to 0x3b000000. */
	const uint8_t last_ns[WB_TAI64N_LEN] = { 0x40, 0, 0, 0, 0, 0, 0, 0x0b, 0x3b, 0x00, 0x00, 0x00 };
	uint8_t out[WB_TAI64N_LEN];

	(void)state;
	wb_tai64n(out, UNIX_NOW);
	assert_memory_equal(out, expect, sizeof(out));
	wb_tai64n(out, 0);
	assert_memory_equal(out, epoch, sizeof(out));
	wb_tai64n(out, SEC + 999999999ULL);
	assert_memory_equal(out, last_ns, sizeof(out));
	/* Every nanosecond count is rounded down to a multiple of 2^24. */
	for (uint64_t ns = 0; ns < SEC; ns += 9999991) {
		uint32_t n;

		wb_tai64n(out, 5 * SEC + ns);
		n = (uint32_t)out[8] << 24 | (uint32_t)out[9] << 16 | (uint32_t)out[10] << 8 | out[11];
		assert_int_equal(n % (1u << 24), 0);
		assert_true(n <= ns && ns - n < (1u << 24));
		assert_int_equal(out[7], 0x0a + 5);
	}
}

static void test_tai64n_orders_like_time(void **state)
{
	uint8_t a[WB_TAI64N_LEN], b[WB_TAI64N_LEN];
	struct prng rng;

	(void)state;
	/* Within one 2^24 ns step: equal (a replay check must treat them as not newer). */
	wb_tai64n(a, UNIX_NOW);
	wb_tai64n(b, UNIX_NOW + 1000);
	assert_int_equal(memcmp(a, b, WB_TAI64N_LEN), 0);
	/* The next step, and across a second. */
	wb_tai64n(b, UNIX_NOW + (1u << 24));
	assert_true(memcmp(a, b, WB_TAI64N_LEN) < 0);
	wb_tai64n(a, 1700000000ULL * SEC + 999999999ULL);
	wb_tai64n(b, 1700000001ULL * SEC);
	assert_true(memcmp(a, b, WB_TAI64N_LEN) < 0);
	/* Across a carry into the high bytes of the seconds. */
	wb_tai64n(a, 0xffffffULL * SEC + 999999999ULL);
	wb_tai64n(b, 0x1000000ULL * SEC);
	assert_true(memcmp(a, b, WB_TAI64N_LEN) < 0);
	/* Random pairs: byte order is time order, up to the rounding. */
	prng_seed(&rng, 5);
	for (int k = 0; k < 10000; k++) {
		uint64_t x = prng_next(&rng) >> 4, y = x + (prng_next(&rng) >> (4 + prng_next(&rng) % 58));
		int c;

		wb_tai64n(a, x);
		wb_tai64n(b, y);
		c = memcmp(a, b, WB_TAI64N_LEN);
		assert_true(c <= 0);
		if (x / SEC != y / SEC || (x % SEC) >> 24 != (y % SEC) >> 24)
			assert_true(c < 0);
		else
			assert_int_equal(c, 0);
	}
}

/* ---- cookies ----------------------------------------------------------------- */

struct cookie_setup {
	struct party i, r;
	struct wb_cookie_checker checker;
	struct wb_cookie_jar jar;
	struct wb_msg_initiation msg;
	struct wb_endpoint src;
};

static void cookie_setup(struct cookie_setup *s)
{
	uint8_t secret[WB_HASH_LEN];
	struct wb_noise_handshake hs;

	memset(s, 0, sizeof(*s));
	parties(&s->i, &s->r, 7, 7);
	memset(secret, 0x33, sizeof(secret));
	wb_cookie_set_secret(&s->checker, secret, 10 * SEC);
	initiation(&s->msg, &hs, &s->i);
	s->src = (struct wb_endpoint){ .family = 4, .port = 40000, .addr = { 192, 0, 2, 100 } };
}

static void test_mac1_from_add_macs_validates(void **state)
{
	struct cookie_setup s;

	(void)state;
	cookie_setup(&s);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &s.src), WB_MAC1_OK);
	/* Without a cookie, mac2 is zeros, and the last mac1 is kept for a cookie reply. */
	assert_true(all_zero(s.msg.mac2, sizeof(s.msg.mac2)));
	assert_true(s.jar.has_last_mac1);
	assert_memory_equal(s.jar.last_mac1, s.msg.mac1, WB_MAC_LEN);
	/* A checker without a secret still checks mac1. */
	{
		struct wb_cookie_checker none = { 0 };

		assert_int_equal(wb_cookie_validate(&none, &s.r.local, &s.msg, sizeof(s.msg), &s.src), WB_MAC1_OK);
	}
}

static void test_wrong_mac1_is_bad(void **state)
{
	struct cookie_setup s;
	struct wb_msg_initiation bad;

	(void)state;
	cookie_setup(&s);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	for (size_t k = 0; k < WB_MAC_LEN; k++) {
		bad = s.msg;
		bad.mac1[k] ^= 0x80;
		assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &bad, sizeof(bad), &s.src), WB_MAC_BAD);
	}
	/* mac1 for another receiver (keyed by another public key). */
	bad = s.msg;
	assert_int_equal(wb_cookie_add_macs(&bad, sizeof(bad), s.r.remote.mac1_key, &s.jar, 10 * SEC), 0);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &bad, sizeof(bad), &s.src), WB_MAC_BAD);
	/* Too short to carry the MACs at all. */
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, 2 * WB_MAC_LEN - 1, &s.src), WB_MAC_BAD);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, 0, &s.src), WB_MAC_BAD);
}

static void test_mac2_with_a_cookie_is_bound_to_the_source(void **state)
{
	struct cookie_setup s;
	struct wb_msg_cookie reply;
	uint8_t nonce[WB_NONCE_LEN] = { 9, 8, 7 };
	struct wb_endpoint other_addr, other_port, v6 = { .family = 6, .port = 40000, .addr = { 0x20, 0x01, 0x0d, 0xb8 } };

	(void)state;
	cookie_setup(&s);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	assert_int_equal(wb_cookie_create_reply(&reply, &s.checker, &s.r.local, &s.msg, sizeof(s.msg), I_INDEX,
						&s.src, nonce), 0);
	assert_int_equal(reply.type, WB_MSG_COOKIE);
	assert_int_equal(((uint8_t *)&reply.receiver_index)[0], I_INDEX & 0xff);
	assert_int_equal(((uint8_t *)&reply.receiver_index)[3], I_INDEX >> 24);
	assert_memory_equal(reply.nonce, nonce, sizeof(nonce));
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.i.remote.cookie_key, 11 * SEC), 0);
	assert_true(s.jar.has_cookie);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 12 * SEC), 0);
	assert_false(all_zero(s.msg.mac2, sizeof(s.msg.mac2)));
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &s.src), WB_MAC1_MAC2_OK);

	other_addr = s.src;
	other_addr.addr[3]++;
	other_port = s.src;
	other_port.port++;
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &other_addr), WB_MAC1_OK);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &other_port), WB_MAC1_OK);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &v6), WB_MAC1_OK);
}

static void test_cookie_expires_on_the_sender(void **state)
{
	struct cookie_setup s;
	struct wb_msg_cookie reply;
	uint8_t nonce[WB_NONCE_LEN] = { 1 };

	(void)state;
	cookie_setup(&s);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	assert_int_equal(wb_cookie_create_reply(&reply, &s.checker, &s.r.local, &s.msg, sizeof(s.msg), 1, &s.src, nonce), 0);
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.i.remote.cookie_key, 10 * SEC), 0);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar,
					    10 * SEC + WB_COOKIE_VALID_NS - 1), 0);
	assert_false(all_zero(s.msg.mac2, sizeof(s.msg.mac2)));
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar,
					    10 * SEC + WB_COOKIE_VALID_NS), 0);
	assert_true(all_zero(s.msg.mac2, sizeof(s.msg.mac2)));
}

static void test_cookie_reply_opens_only_with_the_last_mac1(void **state)
{
	struct cookie_setup s;
	struct wb_msg_cookie reply, bad;
	struct wb_cookie_jar fresh = { 0 }, before;
	uint8_t nonce[WB_NONCE_LEN] = { 4 };

	(void)state;
	cookie_setup(&s);
	/* A jar that never sent anything takes no cookie. */
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	assert_int_equal(wb_cookie_create_reply(&reply, &s.checker, &s.r.local, &s.msg, sizeof(s.msg), 1, &s.src, nonce), 0);
	assert_int_equal(wb_cookie_consume_reply(&reply, &fresh, s.i.remote.cookie_key, 10 * SEC), -EINVAL);
	assert_false(fresh.has_cookie);

	/* The sender moved on to another message: the reply to the earlier one no longer opens. */
	s.msg.sender_index ^= 1;
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	before = s.jar;
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.i.remote.cookie_key, 10 * SEC), -EBADMSG);
	assert_memory_equal(&s.jar, &before, sizeof(before));

	/* A reply to the current one opens, unless a byte of it changed or another key sealed it. */
	assert_int_equal(wb_cookie_create_reply(&reply, &s.checker, &s.r.local, &s.msg, sizeof(s.msg), 1, &s.src, nonce), 0);
	for (size_t at = offsetof(struct wb_msg_cookie, nonce); at < sizeof(reply); at++) {
		bad = reply;
		((uint8_t *)&bad)[at] ^= 0x10;
		assert_int_equal(wb_cookie_consume_reply(&bad, &s.jar, s.i.remote.cookie_key, 10 * SEC), -EBADMSG);
	}
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.r.remote.cookie_key, 10 * SEC), -EBADMSG);
	assert_false(s.jar.has_cookie);
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.i.remote.cookie_key, 10 * SEC), 0);
	assert_true(s.jar.has_cookie);
}

static void test_secret_rotation_after_120_s_changes_the_cookie(void **state)
{
	struct cookie_setup s;
	struct wb_msg_cookie reply;
	uint8_t nonce[WB_NONCE_LEN] = { 2 }, first[WB_MAC_LEN], secret[WB_HASH_LEN];
	struct wb_cookie_checker none = { 0 };

	(void)state;
	cookie_setup(&s);
	assert_true(wb_cookie_secret_due(&none, 0));
	assert_false(wb_cookie_secret_due(&s.checker, 10 * SEC));
	assert_false(wb_cookie_secret_due(&s.checker, 10 * SEC + 120 * SEC - 1));
	assert_true(wb_cookie_secret_due(&s.checker, 10 * SEC + 120 * SEC));

	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 10 * SEC), 0);
	assert_int_equal(wb_cookie_create_reply(&reply, &s.checker, &s.r.local, &s.msg, sizeof(s.msg), 1, &s.src, nonce), 0);
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.i.remote.cookie_key, 10 * SEC), 0);
	memcpy(first, s.jar.cookie, WB_MAC_LEN);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 20 * SEC), 0);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &s.src), WB_MAC1_MAC2_OK);

	/* A new secret at 130 s: the cookie the sender holds no longer makes a valid mac2. */
	memset(secret, 0x44, sizeof(secret));
	wb_cookie_set_secret(&s.checker, secret, 130 * SEC);
	assert_false(wb_cookie_secret_due(&s.checker, 130 * SEC));
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &s.src), WB_MAC1_OK);
	assert_int_equal(wb_cookie_create_reply(&reply, &s.checker, &s.r.local, &s.msg, sizeof(s.msg), 1, &s.src, nonce), 0);
	assert_int_equal(wb_cookie_consume_reply(&reply, &s.jar, s.i.remote.cookie_key, 130 * SEC), 0);
	assert_memory_not_equal(first, s.jar.cookie, WB_MAC_LEN);
	assert_int_equal(wb_cookie_add_macs(&s.msg, sizeof(s.msg), s.i.remote.mac1_key, &s.jar, 130 * SEC), 0);
	assert_int_equal(wb_cookie_validate(&s.checker, &s.r.local, &s.msg, sizeof(s.msg), &s.src), WB_MAC1_MAC2_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_handshake_gives_matching_keys),
		cmocka_unit_test(test_other_ephemeral_keys_give_other_session_keys),
		cmocka_unit_test(test_wrong_responder_key_fails_open_initiation),
		cmocka_unit_test(test_responder_not_knowing_the_initiator_fails_finish),
		cmocka_unit_test(test_wrong_psk_fails_consume_response),
		cmocka_unit_test(test_tampered_initiation_is_refused_at_every_byte),
		cmocka_unit_test(test_tampered_response_is_refused_at_every_byte),
		cmocka_unit_test(test_response_with_wrong_receiver_index_is_refused),
		cmocka_unit_test(test_low_order_peer_key_is_never_accepted),
		cmocka_unit_test(test_tai64n_encoding),
		cmocka_unit_test(test_tai64n_orders_like_time),
		cmocka_unit_test(test_mac1_from_add_macs_validates),
		cmocka_unit_test(test_wrong_mac1_is_bad),
		cmocka_unit_test(test_mac2_with_a_cookie_is_bound_to_the_source),
		cmocka_unit_test(test_cookie_expires_on_the_sender),
		cmocka_unit_test(test_cookie_reply_opens_only_with_the_last_mac1),
		cmocka_unit_test(test_secret_rotation_after_120_s_changes_the_cookie),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
