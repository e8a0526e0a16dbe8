// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness: the Noise handshake past mac1. mac1 is keyed by the
 * receiver's public key, so anyone can compute it: a harness that fed raw
 * bytes would stop there (fuzz_datagram's bad_mac1), and one that fixes
 * mac1 (and mac2, when it holds a cookie) reaches the handshake's parsing,
 * its cryptography, and what a message that decrypts does to the sessions.
 *
 * A pair (fuzz_pair.h), the client's first initiation in flight, and an
 * attacker at its own address (or passing for the client's): it knows the
 * public keys, sees every datagram in flight, and receives what the server
 * sends to it. The input: a byte of setup (bits 0-1: the server's
 * handshakes a second, 50, 5, 2 or 1: the lower, the sooner it is under
 * load and wants cookies), then operations, each a byte (bits 0-3 the
 * operation, 4-7 its flags) and what it takes:
 *
 *   INIT     156 bytes: an initiation to the server, mac1 fixed; flag 0x10:
 *            mac2 with the attacker's cookie, 0x20: from the client's address
 *   RESP     100 bytes: a response to the client, mac1 fixed; 0x10: to the
 *            client's handshake in flight (its index), 0x20: on socket 1
 *   COOKIE   52 bytes: a cookie reply to the client; 0x10: to its handshake
 *            in flight, 0x20: sealed as the server would (anyone can: the
 *            key comes from its public key, the additional data is the mac1
 *            seen in flight), with bytes 20..35 as the cookie; 0x40: socket 1
 *   FORWARD  2 bytes: the oldest datagram in flight, 0x10: the server's,
 *            else the client's, delivered with the byte at the first
 *            (mod its length) XORed with the second; a handshake message's
 *            MACs fixed after, mac2 with its sender's cookie
 *   FLUSH    everything in flight, both ways, until quiet
 *   TIME     the timers run (flags: v * v * 10 + 1 ms), delivering
 *   DROP     everything in flight is lost
 *   REPLAY   the attacker sends again the last initiation (0x10 clear) or
 *            response (0x10 set) it saw in flight, MACs as they were
 *   LOAD     the server's handshake budget is spent (a flood, not sent)
 *   INSIDER  7 bytes: an initiation made with the client's keys (what only
 *            the client or whoever holds its key can do), its timestamp
 *            offset by an int16 of minutes, another incarnation if the
 *            third byte is odd, the sender index in the last four
 *
 * What must hold, after each operation:
 *   - a message whose mac1 the harness fixed never counts as bad_mac1;
 *   - every datagram is counted as received;
 *   - under load, an initiation without a valid mac2 is answered with a
 *     cookie reply and never with a response; not under load, never with a
 *     cookie reply;
 *   - the server answers one handshake (the sealed part of an initiation,
 *     whatever its index and MACs) at most once: a replay is refused;
 *   - the client takes a cookie only from a reply sealed to the mac1 it
 *     sent (with the server's cookie key) and to its handshake in flight;
 *   - each device's receiver indices are exactly its sessions (previous,
 *     current, next) and its handshake in flight: none leaked, none lost;
 * and at the end, unless the input used the client's keys (INSIDER: a
 * timestamp in the future locks the real client out, as in WireGuard),
 * the pair recovers: once the attacker stops, within 20 s of virtual time
 * over a clean network, both sides hold the same session and an IP packet
 * passes each way.
 *
 * The seeds (gen_corpus.c) carry the pair's real messages (its first
 * initiation, the response, a cookie reply) so that mutations start from
 * messages that decrypt.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "cookie.h"
#include "fuzz_pair.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                              \
	do {                                                                                  \
		if (!(c)) {                                                                   \
			fprintf(stderr, "fuzz_noise: %s:%d: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                              \
		}                                                                             \
	} while (0)

enum op { OP_INIT, OP_RESP, OP_COOKIE, OP_FORWARD, OP_FLUSH, OP_TIME, OP_DROP, OP_REPLAY, OP_LOAD, OP_INSIDER };

#define MACS_LEN (2 * WB_MAC_LEN)
#define RECOVERY_NS (20 * FP_SEC)

struct attacker {
	struct wb_endpoint ep;
	struct wb_cookie_jar jar;  /* the mac1 of its last initiation, and the cookie the server gave it */
	struct wb_msg_initiation init; /* the last initiation it saw in flight */
	struct wb_msg_response resp;   /* the last response */
	bool has_init, has_resp;
	bool insider;                  /* it used the client's keys */
};

/* The input, read as the operations take it. */
struct reader {
	const uint8_t *p;
	size_t left;
};

static struct fp f;
static struct attacker eve;

/*
 * The sealed part of each initiation the server answered (ephemeral key,
 * static key and timestamp): what the replay check must never let through
 * twice. The index and the MACs around it are not sealed.
 */
#define SEALED_OFF offsetof(struct wb_msg_initiation, ephemeral)
#define SEALED_LEN (offsetof(struct wb_msg_initiation, mac1) - SEALED_OFF)
#define MAX_ANSWERED 256

static uint8_t answered[MAX_ANSWERED][SEALED_LEN];
static size_t n_answered;

/* n bytes of the input into out; zeros once it runs out. */
static void take(struct reader *r, void *out, size_t n)
{
	size_t k = n < r->left ? n : r->left;

	memcpy(out, r->p, k);
	memset((uint8_t *)out + k, 0, n - k);
	r->p += k;
	r->left -= k;
}

static uint8_t take_byte(struct reader *r)
{
	uint8_t b;

	take(r, &b, 1);
	return b;
}

/* mac1 for the receiver whose mac1 key is given, then mac2 with a cookie (NULL: mac2 as it is). */
static void fix_macs(void *msg, size_t len, const uint8_t mac1_key[WB_HASH_LEN], const uint8_t *cookie)
{
	uint8_t *mac1 = (uint8_t *)msg + len - MACS_LEN;

	CHECK(!wb_mac(mac1, WB_MAC_LEN, mac1_key, WB_HASH_LEN, msg, len - MACS_LEN));
	if (cookie)
		CHECK(!wb_mac(mac1 + WB_MAC_LEN, WB_MAC_LEN, cookie, WB_MAC_LEN, msg, len - WB_MAC_LEN));
}

/* A cookie the sender holds and would use now (as wb_cookie_add_macs decides), or NULL. */
static const uint8_t *fresh_cookie(const struct wb_cookie_jar *jar)
{
	return jar->has_cookie && f.now - jar->cookie_born_ns < WB_COOKIE_VALID_NS ? jar->cookie : NULL;
}

/* ---- each device's receiver indices ---------------------------------------------------------- */

static void check_index_entry(struct wb_device *d, uint32_t index, enum wb_index_kind kind,
			      const struct wb_bond *b, const struct wb_keypair *kp)
{
	const struct wb_index_entry *e = wb_index_find(&d->index, index);

	CHECK(e && e->kind == kind && e->bond == b && (kind != WB_INDEX_KEYPAIR || e->keypair == kp));
}

/* The index table holds the sessions and the handshake in flight, and nothing else. */
static void check_indices(struct wb_device *d)
{
	uint32_t expect = 0;

	for (unsigned i = 0; i < d->n_bonds; i++) {
		struct wb_bond *b = d->bonds[i];
		const struct wb_keypair *kps[] = { b->previous, b->current, b->next };

		for (int k = 0; k < 3; k++) {
			if (!kps[k])
				continue;
			check_index_entry(d, kps[k]->local_index, WB_INDEX_KEYPAIR, b, kps[k]);
			expect++;
		}
		if (b->hs.state == WB_NOISE_CREATED_INITIATION) {
			check_index_entry(d, b->hs.local_index, WB_INDEX_HANDSHAKE, b, NULL);
			expect++;
		}
	}
	CHECK(d->index.count == expect);
}

/* ---- datagrams to each side -------------------------------------------------------------------- */

static size_t queued_of_type(const struct fp_side *s, uint8_t type)
{
	size_t n = 0;

	for (size_t i = 0; i < s->queued; i++)
		n += s->q[i].len && s->q[i].data[0] == type;
	return n;
}

/* The server answered this initiation: it had answered none with the same sealed part. */
static void note_answered(const uint8_t *init)
{
	for (size_t i = 0; i < n_answered; i++)
		CHECK(memcmp(answered[i], init + SEALED_OFF, SEALED_LEN)); /* a replay answered */
	if (n_answered < MAX_ANSWERED)
		memcpy(answered[n_answered++], init + SEALED_OFF, SEALED_LEN);
}

/*
 * An initiation to the server: what it answers must follow from its load
 * and from the mac2 it judges (after, with the cookie secret it then had).
 */
static void to_server(const uint8_t *buf, size_t len, const struct wb_endpoint *from, bool mac1_fixed)
{
	struct wb_device *d = f.s.dev;
	struct wb_device_counters was = d->c;
	size_t responses = queued_of_type(&f.s, WB_MSG_RESPONSE);
	bool initiation = len == sizeof(struct wb_msg_initiation) && buf[0] == WB_MSG_INITIATION;
	enum wb_mac_result mac;

	fp_receive(&f, &f.s, 0, from, buf, len);
	CHECK(d->c.rx_datagrams == was.rx_datagrams + 1);
	if (mac1_fixed)
		CHECK(d->c.bad_mac1 == was.bad_mac1);
	if (!initiation || d->c.bad_mac1 != was.bad_mac1)
		return;
	mac = wb_cookie_validate(&d->cookies, &d->local, buf, len, from);
	if (d->c.under_load == was.under_load) {
		CHECK(d->c.cookie_replies_sent == was.cookie_replies_sent);
	} else if (mac != WB_MAC1_MAC2_OK) {
		CHECK(d->c.cookie_replies_sent == was.cookie_replies_sent + 1);
		CHECK(queued_of_type(&f.s, WB_MSG_RESPONSE) == responses);
	}
	if (queued_of_type(&f.s, WB_MSG_RESPONSE) > responses)
		note_answered(buf);
}

static void to_client(const uint8_t *buf, size_t len, unsigned sock, bool mac1_fixed)
{
	struct wb_device *d = f.c.dev;
	uint64_t rx = d->c.rx_datagrams, bad = d->c.bad_mac1;

	fp_receive(&f, &f.c, sock, &f.server_ep, buf, len);
	CHECK(d->c.rx_datagrams == rx + 1);
	if (mac1_fixed)
		CHECK(d->c.bad_mac1 == bad);
}

/* The attacker keeps what it sees in flight, to send again later. */
static void observe(const struct fp_datagram *d)
{
	if (d->len == sizeof(eve.init) && d->data[0] == WB_MSG_INITIATION) {
		memcpy(&eve.init, d->data, sizeof(eve.init));
		eve.has_init = true;
	} else if (d->len == sizeof(eve.resp) && d->data[0] == WB_MSG_RESPONSE) {
		memcpy(&eve.resp, d->data, sizeof(eve.resp));
		eve.has_resp = true;
	}
}

/* What the server sends to the attacker's address: a cookie reply gives it a cookie. */
static void to_attacker(const struct fp_datagram *d)
{
	struct wb_msg_cookie reply;

	if (d->len != sizeof(reply) || d->data[0] != WB_MSG_COOKIE)
		return;
	memcpy(&reply, d->data, sizeof(reply));
	wb_cookie_consume_reply(&reply, &eve.jar, f.s.dev->local.cookie_key, f.now);
}

/* The client's socket for a server datagram sent to `to`, or -1 when it is not the client's. */
static int client_sock(const struct wb_endpoint *to)
{
	for (int k = 0; k < FP_UPLINKS; k++)
		if (wb_endpoint_equal(to, &f.client_ep[k]))
			return k;
	return -1;
}

/* One datagram in flight arrives where it was sent; mac1_fixed: the harness recomputed its MACs. */
static void arrive(struct fp_side *from, const struct fp_datagram *d, bool mac1_fixed)
{
	int sock;

	observe(d);
	if (!from->server) {
		to_server(d->data, d->len, &f.client_ep[d->sock < FP_UPLINKS ? d->sock : 0], mac1_fixed);
	} else if (wb_endpoint_equal(&d->to, &eve.ep)) {
		to_attacker(d);
	} else if ((sock = client_sock(&d->to)) >= 0) {
		to_client(d->data, d->len, (unsigned)sock, mac1_fixed);
	}
}

/* Takes the oldest datagram of a side's queue (the caller frees its data); false if none. */
static bool pop(struct fp_side *s, struct fp_datagram *out)
{
	if (!s->queued)
		return false;
	*out = s->q[0];
	memmove(&s->q[0], &s->q[1], (s->queued - 1) * sizeof(s->q[0]));
	s->queued--;
	return true;
}

/* Delivers what one side has in flight now (not what that makes the other send); whether any. */
static bool deliver_side(struct fp_side *from)
{
	size_t n = from->queued;
	struct fp_datagram d;

	for (size_t i = 0; i < n && pop(from, &d); i++) {
		arrive(from, &d, false);
		free(d.data);
	}
	return n > 0;
}

static void flush(void)
{
	for (int rounds = 0; rounds < 64; rounds++) {
		bool moved = deliver_side(&f.c);

		moved |= deliver_side(&f.s);
		if (!moved)
			return;
	}
	fp_drop_queue(&f.c);
	fp_drop_queue(&f.s);
}

/* The timers up to t, delivering after each tick (fp_run_until, with the attacker's routing). */
static void run_until(uint64_t t)
{
	for (int steps = 0; steps < 10000; steps++) {
		uint64_t c = wb_device_next_deadline(f.c.dev), s = wb_device_next_deadline(f.s.dev);
		uint64_t due = c < s ? c : s;

		if (due > t)
			break;
		if (due > f.now)
			f.now = due;
		fp_tick(&f);
		flush();
	}
	f.now = t;
	flush();
}

/* ---- the operations ----------------------------------------------------------------------------- */

static void op_init(struct reader *r, uint8_t flags)
{
	struct wb_msg_initiation msg;
	const struct wb_endpoint *from = flags & 0x20 ? &f.client_ep[0] : &eve.ep;

	take(r, &msg, sizeof(msg));
	fix_macs(&msg, sizeof(msg), f.s.dev->local.mac1_key, flags & 0x10 ? fresh_cookie(&eve.jar) : NULL);
	memcpy(eve.jar.last_mac1, msg.mac1, WB_MAC_LEN);
	eve.jar.has_last_mac1 = true;
	to_server((const uint8_t *)&msg, sizeof(msg), from, true);
}

/* The index of the client's handshake in flight; false if none is. */
static bool pending(uint32_t *index)
{
	const struct wb_bond *b = f.c.bond;

	if (b->hs.state != WB_NOISE_CREATED_INITIATION)
		return false;
	*index = b->hs.local_index;
	return true;
}

static void op_resp(struct reader *r, uint8_t flags)
{
	struct wb_msg_response msg;
	uint32_t index;

	take(r, &msg, sizeof(msg));
	if ((flags & 0x10) && pending(&index))
		wb_put_le32(&msg.receiver_index, index);
	fix_macs(&msg, sizeof(msg), f.c.dev->local.mac1_key, NULL);
	to_client((const uint8_t *)&msg, sizeof(msg), flags & 0x20 ? 1 : 0, true);
}

/* Seals the cookie in the reply as the server would, to the mac1 the client's jar on sock last sent. */
static void seal_cookie(struct wb_msg_cookie *reply, unsigned sock)
{
	const struct wb_cookie_jar *jar = &f.c.bond->uplinks[sock].cookies;
	uint8_t cookie[WB_MAC_LEN];

	memcpy(cookie, reply->encrypted_cookie, WB_MAC_LEN);
	CHECK(!wb_aead_seal_nonce(WB_CIPHER_CHACHA20_POLY1305, f.s.dev->local.cookie_key, reply->nonce, jar->last_mac1,
				  WB_MAC_LEN, cookie, WB_MAC_LEN, reply->encrypted_cookie));
}

/* Whether the reply opens, with the server's cookie key, to the mac1 the jar last sent; the cookie in it. */
static bool authentic(const struct wb_msg_cookie *reply, const struct wb_cookie_jar *jar, uint8_t cookie[WB_MAC_LEN])
{
	return jar->has_last_mac1 &&
	       !wb_aead_open_nonce(WB_CIPHER_CHACHA20_POLY1305, f.s.dev->local.cookie_key, reply->nonce, jar->last_mac1,
				   WB_MAC_LEN, reply->encrypted_cookie, sizeof(reply->encrypted_cookie), cookie);
}

static void op_cookie(struct reader *r, uint8_t flags)
{
	struct wb_msg_cookie reply;
	unsigned sock = flags & 0x40 ? 1 : 0;
	const struct wb_cookie_jar *jar = &f.c.bond->uplinks[sock].cookies;
	uint64_t taken = f.c.bond->c.cookies_received;
	uint8_t cookie[WB_MAC_LEN];
	bool to_pending, valid;
	uint32_t index;

	take(r, &reply, sizeof(reply));
	reply.type = WB_MSG_COOKIE;
	if ((flags & 0x10) && pending(&index))
		wb_put_le32(&reply.receiver_index, index);
	if (flags & 0x20)
		seal_cookie(&reply, sock);
	to_pending = pending(&index) && wb_get_le32(&reply.receiver_index) == index;
	valid = authentic(&reply, jar, cookie);
	to_client((const uint8_t *)&reply, sizeof(reply), sock, false);
	/* Taken exactly when it is authentic and answers the handshake in flight; then its cookie is held. */
	CHECK(f.c.bond->c.cookies_received == taken + (valid && to_pending));
	if (valid && to_pending)
		CHECK(jar->has_cookie && !memcmp(jar->cookie, cookie, WB_MAC_LEN) && jar->cookie_born_ns == f.now);
}

/* mac1 and mac2 of a handshake message in flight, fixed as its sender computes them. */
static bool refix(struct fp_side *from, struct fp_datagram *d)
{
	const struct wb_cookie_jar *jar = NULL;

	if (!from->server && d->len == sizeof(struct wb_msg_initiation) && d->data[0] == WB_MSG_INITIATION) {
		if (d->sock < FP_UPLINKS)
			jar = &f.c.bond->uplinks[d->sock].cookies;
		fix_macs(d->data, d->len, f.s.dev->local.mac1_key, jar ? fresh_cookie(jar) : NULL);
		return true;
	}
	if (from->server && d->len == sizeof(struct wb_msg_response) && d->data[0] == WB_MSG_RESPONSE) {
		fix_macs(d->data, d->len, f.c.dev->local.mac1_key, NULL);
		return true;
	}
	return false;
}

static void op_forward(struct reader *r, uint8_t flags)
{
	struct fp_side *from = flags & 0x10 ? &f.s : &f.c;
	uint8_t pos = take_byte(r), flip = take_byte(r);
	struct fp_datagram d;
	bool fixed;

	if (!pop(from, &d))
		return;
	if (d.len)
		d.data[pos % d.len] ^= flip;
	fixed = refix(from, &d);
	arrive(from, &d, fixed);
	free(d.data);
}

static void op_replay(uint8_t flags)
{
	if (!(flags & 0x10) && eve.has_init)
		to_server((const uint8_t *)&eve.init, sizeof(eve.init), &eve.ep, false);
	else if ((flags & 0x10) && eve.has_resp)
		to_client((const uint8_t *)&eve.resp, sizeof(eve.resp), 0, false);
}

/* An initiation with the client's keys, at another time, maybe of another incarnation. */
static void op_insider(struct reader *r, uint8_t flags)
{
	struct wb_noise_local local = f.c.dev->local;
	struct wb_noise_handshake hs;
	struct wb_msg_initiation msg;
	uint8_t b[7], seed[WB_KEY_LEN];
	int64_t minutes;
	uint64_t at;

	take(r, b, sizeof(b));
	minutes = (int16_t)(b[0] | b[1] << 8);
	at = (uint64_t)((int64_t)fp_on_wall_clock(&f.c) + minutes * 60 * (int64_t)FP_SEC);
	if (b[2] & 1)
		local.incarnation ^= 0x5a5a5a5a5a5a5a5aULL;
	memset(seed, b[2], sizeof(seed));
	CHECK(!wb_noise_create_initiation(&msg, &hs, &local, &f.c.bond->remote, seed, wb_get_le32(b + 3), at));
	wb_noise_handshake_clear(&hs);
	wb_wipe(&local, sizeof(local));
	fix_macs(&msg, sizeof(msg), f.s.dev->local.mac1_key, (flags & 0x10) ? fresh_cookie(&eve.jar) : NULL);
	to_server((const uint8_t *)&msg, sizeof(msg), flags & 0x20 ? &f.client_ep[0] : &eve.ep, true);
	eve.insider = true;
}

static void run_op(struct reader *r)
{
	uint8_t op = take_byte(r), flags = op & 0xf0;
	unsigned v = op >> 4;

	switch (op & 0x0f) {
	case OP_INIT: op_init(r, flags); break;
	case OP_RESP: op_resp(r, flags); break;
	case OP_COOKIE: op_cookie(r, flags); break;
	case OP_FORWARD: op_forward(r, flags); break;
	case OP_FLUSH: flush(); break;
	case OP_TIME: run_until(f.now + ((uint64_t)v * v * 10 + 1) * FP_MS); break;
	case OP_DROP:
		fp_drop_queue(&f.c);
		fp_drop_queue(&f.s);
		break;
	case OP_REPLAY: op_replay(flags); break;
	/* A flood spends the budget as this does; sending one would cost the fuzzer its inputs. */
	case OP_LOAD: f.s.dev->load_budget_ns = 0; f.s.dev->load_checked_ns = f.now; break;
	case OP_INSIDER: op_insider(r, flags); break;
	default: break;
	}
	check_indices(f.c.dev);
	check_indices(f.s.dev);
}

/* ---- after the attacker -------------------------------------------------------------------------- */

/* An IP packet from one side reaches the other within a second. */
static void check_passes(struct fp_side *from, struct fp_side *to)
{
	uint8_t ip[60] = { 0x45 };
	uint64_t before = to->delivered;

	CHECK(wb_bond_send_ip(from->bond, f.now, ip, sizeof(ip)) == 0);
	run_until(f.now + FP_SEC);
	CHECK(to->delivered == before + 1);
}

/* Once the attacker stops, the pair comes back over a clean network (its mail is lost). */
static void check_recovers(void)
{
	uint64_t deadline = f.now + RECOVERY_NS;
	const struct wb_keypair *c, *s;

	for (;;) {
		run_until(f.now + 100 * FP_MS);
		c = f.c.bond->current;
		s = f.s.bond->current;
		if (c && s && c->remote_index == s->local_index && s->remote_index == c->local_index &&
		    wb_bond_uplink(f.s.bond, 0) && wb_uplink_usable(wb_bond_uplink(f.s.bond, 0)))
			break;
		CHECK(f.now < deadline); /* no common session 20 s after the attacker stopped */
	}
	check_passes(&f.c, &f.s);
	check_passes(&f.s, &f.c);
}

static int setup(uint8_t cfg)
{
	static const uint32_t rates[] = { 50, 5, 2, 1 };

	if (fp_init_with(&f, &(struct fp_options){ .handshakes_per_second = rates[cfg & 3] }))
		return -1;
	memset(&eve, 0, sizeof(eve));
	n_answered = 0;
	eve.ep = (struct wb_endpoint){ .family = 4, .port = 6666, .addr = { 198, 51, 100, 9 } };
	fp_start_handshake(&f);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };

	if (!size || setup(take_byte(&r)))
		return 0;
	while (r.left)
		run_op(&r);
	if (!eve.insider)
		check_recovers();
	fp_free(&f);
	return 0;
}
