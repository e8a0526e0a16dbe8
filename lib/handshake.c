// SPDX-License-Identifier: MIT
/*
 * Who initiates, when, and what a finished handshake does to the sessions.
 * The client initiates (at start, when a session ages, when every uplink has
 * gone silent) and retries on the next uplink; the server answers, with the
 * replay and flood checks of WireGuard and a cookie while under load.
 *
 * Rekeying leaves no gap: the initiator switches to the new session when the
 * response arrives and still accepts the old one; the responder keeps
 * sending on the old one until the initiator's first message on the new one
 * confirms it (wb_handshake_confirm).
 */
#include <errno.h>
#include <string.h>

#include "bond.h"
#include "byteorder.h"
#include "device.h"
#include "nsec.h"

/* WireGuard's limit: at most 50 initiations a second from one peer. */
#define MIN_INITIATION_INTERVAL_NS (WB_NSEC_PER_SEC / 50)

static void free_session(struct wb_bond *b, struct wb_keypair **slot)
{
	if (!*slot)
		return;
	wb_index_remove(&b->dev->index, (*slot)->local_index);
	wb_keypair_free(*slot);
	*slot = NULL;
}

static void clear_pending(struct wb_bond *b)
{
	if (b->hs.state == WB_NOISE_CREATED_INITIATION)
		wb_index_remove(&b->dev->index, b->hs.local_index);
	wb_noise_handshake_clear(&b->hs);
}

void wb_handshake_clear_sessions(struct wb_bond *b)
{
	clear_pending(b);
	free_session(b, &b->previous);
	free_session(b, &b->current);
	free_session(b, &b->next);
}

/*
 * A CLOSE sealed in kp ends kp's session and those before it, never a
 * newer one: the next session, made by a handshake the peer began after it
 * sent the CLOSE (a late copy of a restarted peer's), is its new session,
 * and one sealed in the previous session is such a late copy itself.
 */
bool wb_handshake_close(struct wb_bond *b, const struct wb_keypair *kp)
{
	if (kp == b->previous) {
		free_session(b, &b->previous);
		return false;
	}
	clear_pending(b);
	free_session(b, &b->previous);
	free_session(b, &b->current);
	return true;
}

/* The uplink for the next initiation: up ones first, in turn, then any with a socket. */
static struct wb_uplink *initiation_uplink(struct wb_bond *b)
{
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned k = 0; k < WB_MAX_UPLINKS; k++) {
			unsigned i = (b->hs_next_uplink + k) % WB_MAX_UPLINKS;
			struct wb_uplink *u = &b->uplinks[i];

			if (u->exists && u->available && (pass || u->state == WB_UPLINK_UP)) {
				b->hs_next_uplink = i + 1;
				return u;
			}
		}
	}
	return NULL;
}

/*
 * The initiation's timestamp: the real-time clock read now, so a clock set
 * after start (NTP on a router without a battery-backed clock) counts at the
 * next attempt; but never at or below the last one sent, so a clock stepped
 * back cannot make our own initiations look like replays to the server.
 */
static uint64_t initiation_time(const struct wb_bond *b)
{
	uint64_t t = wb_tai64n_floor(b->dev->ops.wall_clock(b->dev->ctx));

	return b->last_sent_time && t <= b->last_sent_time ? wb_tai64n_next(b->last_sent_time) : t;
}

static void initiate(struct wb_bond *b, uint64_t now)
{
	struct wb_device *d = b->dev;
	struct wb_uplink *u = initiation_uplink(b);
	struct wb_msg_initiation msg;
	uint8_t seed[WB_KEY_LEN];
	uint64_t timestamp;
	uint32_t index;

	b->hs_sent_ns = now; /* without an uplink, try again after the retry time */
	if (!u)
		return;
	clear_pending(b);
	index = wb_device_new_index(d);
	wb_device_random(d, seed, sizeof(seed));
	timestamp = initiation_time(b);
	if (!index || wb_noise_create_initiation(&msg, &b->hs, &d->local, &b->remote, seed, index, timestamp) ||
	    wb_cookie_add_macs(&msg, sizeof(msg), b->remote.mac1_key, &u->cookies, now) ||
	    wb_index_insert(&d->index, &(struct wb_index_entry){ index, WB_INDEX_HANDSHAKE, b, NULL })) {
		wb_noise_handshake_clear(&b->hs);
		wb_bond_log(b, WB_LOG_ERR, u, "cannot create a handshake initiation");
	} else {
		wb_bond_transmit(b, u, (const uint8_t *)&msg, sizeof(msg), 0);
		b->last_sent_time = timestamp;
		b->c.handshakes_sent++;
		wb_bond_log(b, WB_LOG_DEBUG, u, "handshake initiation sent");
	}
	wb_wipe(seed, sizeof(seed));
}

static bool session_is_old(const struct wb_bond *b, uint64_t now)
{
	const struct wb_timers *t = &b->dev->p.timers;
	const struct wb_keypair *kp = b->current;

	/* The server never initiates: the client also counts what the server sealed with the key. */
	return now - kp->born_ns >= t->rekey_after_ns || kp->sealed >= t->rekey_after_messages ||
	       kp->opened >= t->rekey_after_messages;
}

/* A session, yet no uplink has answered for a timeout: the server may have lost it. */
static bool session_is_silent(const struct wb_bond *b, uint64_t now)
{
	if (now - b->current->born_ns < b->dev->p.timers.uplink_timeout_ns)
		return false;
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists && b->uplinks[i].available && b->uplinks[i].state != WB_UPLINK_DOWN)
			return false;
	return true;
}

static bool wants_handshake(const struct wb_bond *b, uint64_t now)
{
	return !b->current || session_is_old(b, now) || session_is_silent(b, now);
}

static void expire_sessions(struct wb_bond *b, uint64_t now)
{
	uint64_t reject = b->dev->p.timers.reject_after_ns;

	if (b->previous && now - b->previous->born_ns >= reject)
		free_session(b, &b->previous);
	if (b->next && now - b->next->born_ns >= reject)
		free_session(b, &b->next);
	if (b->current && now - b->current->born_ns >= reject) {
		free_session(b, &b->current);
		wb_bond_session_ended(b, now, "the session expired");
	}
}

void wb_handshake_tick(struct wb_bond *b, uint64_t now)
{
	expire_sessions(b, now);
	if (b->dev->p.server)
		return;
	if (!wants_handshake(b, now)) {
		/*
		 * Begun for a session gone silent that has answered since: given
		 * up at its retry time, not retried (left, it would stay due, and
		 * the caller would tick again at once until the session ages).
		 */
		if (b->hs.state == WB_NOISE_CREATED_INITIATION && now - b->hs_sent_ns >= b->dev->p.timers.handshake_retry_ns)
			clear_pending(b);
		return;
	}
	if (b->hs.state == WB_NOISE_ZEROED && b->hs_sent_ns && now - b->hs_sent_ns < b->dev->p.timers.handshake_retry_ns)
		return; /* the last attempt found no uplink: wait the retry time */
	if (b->hs.state == WB_NOISE_CREATED_INITIATION && now - b->hs_sent_ns < b->dev->p.timers.handshake_retry_ns)
		return;
	initiate(b, now);
}

uint64_t wb_handshake_deadline(const struct wb_bond *b)
{
	const struct wb_timers *t = &b->dev->p.timers;
	struct wb_keypair *const kps[] = { b->previous, b->current, b->next };
	uint64_t due = UINT64_MAX;

	for (int i = 0; i < 3; i++)
		if (kps[i])
			due = wb_min_u64(due, kps[i]->born_ns + t->reject_after_ns);
	if (b->dev->p.server)
		return due;
	if (b->hs.state == WB_NOISE_CREATED_INITIATION || (!b->current && b->hs_sent_ns))
		return wb_min_u64(due, b->hs_sent_ns + t->handshake_retry_ns);
	if (!b->current)
		return 0; /* start one now */
	due = wb_min_u64(due, b->current->born_ns + t->rekey_after_ns);
	/* A silent session is noticed at the next uplink timer, which the uplinks' deadlines cover. */
	return due;
}

/* ---- responder ------------------------------------------------------------ */

static struct wb_bond *bond_by_key(struct wb_device *d, const uint8_t key[WB_KEY_LEN])
{
	for (unsigned i = 0; i < d->n_bonds; i++)
		if (wb_equal(d->bonds[i]->remote.public_key, key, WB_KEY_LEN))
			return d->bonds[i];
	return NULL;
}

static void send_cookie(struct wb_device *d, const struct wb_endpoint *from, const uint8_t *buf, size_t len)
{
	struct wb_msg_cookie reply;
	uint8_t nonce[WB_NONCE_LEN];

	wb_device_random(d, nonce, sizeof(nonce));
	if (wb_cookie_create_reply(&reply, &d->cookies, &d->local, buf, len,
				   wb_get_le32(WB_MSG_FIELD(buf, wb_msg_initiation, sender_index)), from, nonce))
		return;
	d->ops.send(d->ctx, 0, from, (const uint8_t *)&reply, sizeof(reply), 0);
	d->c.cookie_replies_sent++;
}

/* Replay (a timestamp not newer than the last) and flood (too soon after the last). */
static const char *initiation_refusal(const struct wb_bond *b, const uint8_t ts[WB_TAI64N_LEN], uint64_t now)
{
	if (b->has_timestamp && memcmp(ts, b->last_timestamp, WB_TAI64N_LEN) <= 0)
		return "replayed or old timestamp";
	if (b->has_timestamp && now - b->last_initiation_ns < MIN_INITIATION_INTERVAL_NS)
		return "too soon after the last one";
	return NULL;
}

/* Answers an accepted initiation; the new session waits as next until confirmed. */
static void respond(struct wb_bond *b, struct wb_noise_handshake *hs, const struct wb_endpoint *from, uint64_t now)
{
	struct wb_device *d = b->dev;
	struct wb_msg_response msg;
	struct wb_noise_keys keys;
	struct wb_keypair *kp = NULL;
	uint8_t seed[WB_KEY_LEN];
	uint32_t index = wb_device_new_index(d);

	wb_device_random(d, seed, sizeof(seed));
	if (index && !wb_noise_create_response(&msg, hs, &d->local, &b->remote, seed, index) &&
	    !wb_cookie_add_macs(&msg, sizeof(msg), b->remote.mac1_key, &b->cookies, now) &&
	    !wb_noise_derive_keys(hs, &keys))
		kp = wb_keypair_new(d->p.cipher, &keys, now);
	wb_wipe(seed, sizeof(seed));
	wb_wipe(&keys, sizeof(keys));
	if (!kp || wb_index_insert(&d->index, &(struct wb_index_entry){ index, WB_INDEX_KEYPAIR, b, kp })) {
		wb_keypair_free(kp);
		wb_bond_log(b, WB_LOG_ERR, NULL, "cannot answer a handshake");
		return;
	}
	free_session(b, &b->next);
	b->next = kp;
	d->ops.send(d->ctx, 0, from, (const uint8_t *)&msg, sizeof(msg), 0);
	wb_bond_log(b, WB_LOG_DEBUG, NULL, "handshake answered");
}

static void log_refusal(struct wb_bond *b, const char *refusal, uint64_t now)
{
	uint64_t held;

	if (!wb_log_limit_pass(&b->refusal_log, now, &held))
		return;
	if (held)
		wb_bond_log(b, WB_LOG_INFO, NULL, "handshake initiation refused: %s (and %llu more since the last line)",
			    refusal, (unsigned long long)held);
	else
		wb_bond_log(b, WB_LOG_INFO, NULL, "handshake initiation refused: %s", refusal);
}

struct wb_bond *wb_handshake_on_initiation(struct wb_device *d, uint64_t now, const struct wb_endpoint *from,
					   uint8_t *buf, size_t len)
{
	struct wb_msg_initiation copy, *msg = &copy; /* a datagram buffer need not be aligned for the struct */
	struct wb_noise_handshake hs;
	uint8_t ts[WB_TAI64N_LEN];
	enum wb_mac_result mac = wb_cookie_validate(&d->cookies, &d->local, buf, len, from);
	const char *refusal;
	struct wb_bond *b;

	if (mac == WB_MAC_BAD) {
		d->c.bad_mac1++;
		return NULL;
	}
	memcpy(&copy, buf, sizeof(copy));
	if (wb_device_under_load(d, now)) {
		wb_device_note_load(d, now);
		if (mac != WB_MAC1_MAC2_OK) {
			send_cookie(d, from, buf, len);
			return NULL;
		}
		/* The cookie proves the source's address; now bound what that source may cost. */
		if (!wb_ratelimit_allow(&d->initiations, from, now)) {
			d->c.rate_limited++;
			return NULL;
		}
	}
	if (wb_noise_open_initiation(msg, &hs, &d->local)) {
		d->c.unknown_peer++;
		return NULL;
	}
	b = bond_by_key(d, hs.remote_static);
	if (!b) {
		d->c.unknown_peer++;
	} else if (wb_noise_finish_initiation(msg, &hs, &b->remote, ts)) {
		b->c.handshakes_refused++;
	} else if ((refusal = initiation_refusal(b, ts, now))) {
		b->c.handshakes_refused++;
		log_refusal(b, refusal, now);
	} else {
		memcpy(b->last_timestamp, ts, WB_TAI64N_LEN);
		b->last_initiation_ns = now;
		b->has_timestamp = true;
		respond(b, &hs, from, now);
	}
	wb_noise_handshake_clear(&hs);
	return b;
}

/*
 * What the peer reads, once per incarnation of it: an older wanbondd drops a
 * datagram with a frame it does not know, so the interactive class goes to
 * it as ordinary data, in order and without parity (bond_tx.c).
 */
static void learn_peer_caps(struct wb_bond *b)
{
	b->peer_caps = b->current->peer_caps;
	if (!(b->peer_caps & WB_CAP_CLASSES) && b->tuning.classes.rules.enabled && !b->tuning.classes.ordered)
		wb_bond_log(b, WB_LOG_NOTICE, NULL,
			    "the peer reads no traffic-class frames (an older wanbondd): interactive packets go to it in order and without FEC until it is upgraded");
}

/*
 * The new current session is in use. If the peer behind it is another
 * incarnation than the one before, it restarted: the sessions of the old one
 * go (anything late sealed with them is stale), and the reliable layer
 * starts over as the peer's has (bond_restart.c). A rekey between two
 * running daemons keeps the same incarnations, and everything with them.
 */
static void session_in_use(struct wb_bond *b, uint64_t now, bool rekey)
{
	uint64_t incarnation = b->current->peer_incarnation;

	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_SESSION, .count = rekey });
	if (b->peer_incarnation && incarnation != b->peer_incarnation) {
		free_session(b, &b->previous);
		wb_bond_peer_restarted(b, now);
	}
	if (incarnation != b->peer_incarnation)
		learn_peer_caps(b);
	b->peer_incarnation = incarnation;
}

void wb_handshake_confirm(struct wb_bond *b, uint64_t now)
{
	bool rekey = b->current != NULL;

	free_session(b, &b->previous);
	b->previous = b->current;
	b->current = b->next;
	b->next = NULL;
	b->c.handshakes_completed++;
	if (rekey)
		b->c.rekeys++;
	wb_bond_log(b, rekey ? WB_LOG_DEBUG : WB_LOG_NOTICE, NULL, "%s", rekey ? "session renewed" : "session established");
	session_in_use(b, now, rekey);
}

/* ---- initiator -------------------------------------------------------------- */

/*
 * The bond whose handshake in flight a response or cookie reply names by its
 * receiver index. A server has none: it never initiates.
 */
static struct wb_bond *pending_bond(struct wb_device *d, uint32_t index)
{
	struct wb_index_entry *e = d->p.server ? NULL : wb_index_find(&d->index, index);

	if (!e || e->kind != WB_INDEX_HANDSHAKE) {
		d->c.unknown_index++;
		return NULL;
	}
	return e->bond;
}

/* The handshake's own index becomes the new session's, and the session is current at once. */
static int install_initiator_session(struct wb_bond *b, struct wb_noise_keys *keys, uint64_t now)
{
	struct wb_index_entry *e = wb_index_find(&b->dev->index, keys->local_index);
	struct wb_keypair *kp = wb_keypair_new(b->dev->p.cipher, keys, now);

	if (!kp || !e)
		return -ENOMEM;
	e->kind = WB_INDEX_KEYPAIR;
	e->keypair = kp;
	free_session(b, &b->previous);
	b->previous = b->current;
	b->current = kp;
	return 0;
}

struct wb_bond *wb_handshake_on_response(struct wb_device *d, uint64_t now, unsigned sock,
					 const struct wb_endpoint *from, uint8_t *buf, size_t len)
{
	struct wb_bond *b = pending_bond(d, wb_get_le32(WB_MSG_FIELD(buf, wb_msg_response, receiver_index)));
	struct wb_msg_response msg;
	struct wb_noise_handshake hs;
	struct wb_noise_keys keys;
	bool rekey;

	if (!b)
		return NULL;
	memcpy(&msg, buf, sizeof(msg));
	if (wb_cookie_validate(&d->cookies, &d->local, buf, len, from) == WB_MAC_BAD) {
		d->c.bad_mac1++;
		return NULL;
	}
	hs = b->hs;
	if (wb_noise_consume_response(&msg, &hs, &d->local, &b->remote) ||
	    wb_noise_derive_keys(&hs, &keys)) {
		b->c.handshakes_refused++;
		wb_noise_handshake_clear(&hs);
		return b;
	}
	rekey = b->current != NULL;
	wb_noise_handshake_clear(&b->hs); /* its index now belongs to the session */
	if (install_initiator_session(b, &keys, now)) {
		wb_index_remove(&d->index, keys.local_index);
		wb_bond_log(b, WB_LOG_ERR, NULL, "cannot install a session");
	} else {
		b->c.handshakes_completed++;
		if (rekey)
			b->c.rekeys++;
		wb_bond_log(b, rekey ? WB_LOG_DEBUG : WB_LOG_NOTICE, NULL, "%s",
			    rekey ? "session renewed" : "session established");
		session_in_use(b, now, rekey);
		wb_bond_session_started(b, now, sock < WB_MAX_UPLINKS ? (int)sock : -1);
	}
	wb_wipe(&keys, sizeof(keys));
	return b;
}

/* A cookie reply comes back to the socket of the uplink whose initiation it answers. */
struct wb_bond *wb_handshake_on_cookie(struct wb_device *d, uint64_t now, unsigned sock, const uint8_t *buf,
				       size_t len)
{
	struct wb_bond *b = pending_bond(d, wb_get_le32(WB_MSG_FIELD(buf, wb_msg_cookie, receiver_index)));
	struct wb_msg_cookie msg;

	if (!b || sock >= WB_MAX_UPLINKS || !b->uplinks[sock].exists || len != sizeof(msg))
		return NULL;
	memcpy(&msg, buf, sizeof(msg));
	if (!wb_cookie_consume_reply(&msg, &b->uplinks[sock].cookies, b->remote.cookie_key, now))
		b->c.cookies_received++;
	return b;
}
