// SPDX-License-Identifier: MIT
/*
 * The device: a local identity and its bonds. It takes every datagram first,
 * checks its length for its type, and hands it on: handshake messages to
 * handshake.c, data messages (found by receiver index, opened and checked
 * against replays) to their bond.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "nsec.h"

#define DEFAULT_HANDSHAKES_PER_SECOND 50

void wb_device_random(struct wb_device *d, void *buf, size_t len)
{
	d->ops.random(d->ctx, buf, len);
}

uint32_t wb_device_new_index(struct wb_device *d)
{
	/* Random, so indices reveal nothing and cannot be guessed; 0 is never used. */
	for (int tries = 0; tries < 64; tries++) {
		uint32_t index;

		wb_device_random(d, &index, sizeof(index));
		if (index && !wb_index_find(&d->index, index))
			return index;
	}
	return 0;
}

void wb_device_log(const struct wb_device *d, enum wb_log_level level, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!d->ops.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->ops.log(d->ctx, level, NULL, NULL, msg);
}

static void init_rate_limit(struct wb_device *d)
{
	uint8_t key[WB_HASH_LEN];

	wb_device_random(d, key, sizeof(key));
	wb_ratelimit_init(&d->initiations, key);
	wb_wipe(key, sizeof(key));
}

int wb_device_new(struct wb_device **out, const struct wb_device_params *p, const struct wb_device_ops *ops, void *ctx)
{
	struct wb_device *d = calloc(1, sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->p = *p;
	if (!d->p.handshakes_per_second)
		d->p.handshakes_per_second = DEFAULT_HANDSHAKES_PER_SECOND;
	d->ops = *ops;
	d->ctx = ctx;
	d->deadline_dirty = true;
	d->load_budget_ns = WB_NSEC_PER_SEC;
	init_rate_limit(d);
	wb_pktbuf_limit_init(&d->pool_limit, p->pool_limit ? p->pool_limit : UINT64_MAX);
	wb_index_init(&d->index);
	if (wb_noise_local_init(&d->local, p->private_key)) {
		free(d);
		return -EINVAL;
	}
	/* This run's identity towards peers: a restart draws another (0 stands for "none yet"). */
	wb_device_random(d, &d->local.incarnation, sizeof(d->local.incarnation));
	if (!d->local.incarnation)
		d->local.incarnation = 1;
	wb_wipe(d->p.private_key, sizeof(d->p.private_key)); /* the clamped copy in local is the one kept */
	*out = d;
	return 0;
}

void wb_device_free(struct wb_device *d)
{
	if (!d)
		return;
	for (unsigned i = 0; i < d->n_bonds; i++) {
		wb_handshake_clear_sessions(d->bonds[i]);
		wb_bond_destroy(d->bonds[i]);
		wb_wipe(d->bonds[i], sizeof(*d->bonds[i]));
		free(d->bonds[i]);
	}
	free(d->bonds);
	wb_index_free(&d->index);
	wb_wipe(d, sizeof(*d));
	free(d);
}

int wb_device_add_bond(struct wb_device *d, const struct wb_bond_params *p, struct wb_bond **out)
{
	struct wb_bond **bonds, *b;

	for (unsigned i = 0; i < d->n_bonds; i++)
		if (wb_equal(d->bonds[i]->remote.public_key, p->public_key, WB_KEY_LEN))
			return -EEXIST;
	if (!d->p.server && d->n_bonds)
		return -EINVAL; /* a client has one bond, to its server */
	bonds = realloc(d->bonds, (d->n_bonds + 1) * sizeof(*bonds));
	if (!bonds)
		return -ENOMEM;
	d->bonds = bonds;
	b = malloc(sizeof(*b));
	if (!b)
		return -ENOMEM;
	if (wb_bond_init(b, d, p) || wb_noise_remote_init(&b->remote, &d->local, p->public_key, p->preshared_key)) {
		wb_bond_destroy(b);
		free(b);
		return -EINVAL;
	}
	d->bonds[d->n_bonds++] = b;
	wb_device_timers_changed(d);
	if (out)
		*out = b;
	return 0;
}

bool wb_device_under_load(struct wb_device *d, uint64_t now)
{
	uint64_t cost = WB_NSEC_PER_SEC / d->p.handshakes_per_second;

	/* Refill with elapsed time, up to a second's worth of handshakes. */
	if (now > d->load_checked_ns) {
		d->load_budget_ns += now - d->load_checked_ns;
		if (d->load_budget_ns > WB_NSEC_PER_SEC)
			d->load_budget_ns = WB_NSEC_PER_SEC;
	}
	d->load_checked_ns = now;
	if (d->load_budget_ns < cost)
		return true;
	d->load_budget_ns -= cost;
	return false;
}

void wb_device_note_load(struct wb_device *d, uint64_t now)
{
	const struct wb_device_counters *was = &d->load_logged;
	uint64_t held;

	d->c.under_load++;
	if (!wb_log_limit_pass(&d->load_log, now, &held))
		return;
	if (held)
		wb_device_log(d, WB_LOG_WARNING,
			      "under load since the last line: %llu handshake messages, %llu cookie replies, "
			      "%llu over the per-source limit",
			      (unsigned long long)(d->c.under_load - was->under_load),
			      (unsigned long long)(d->c.cookie_replies_sent - was->cookie_replies_sent),
			      (unsigned long long)(d->c.rate_limited - was->rate_limited));
	else
		wb_device_log(d, WB_LOG_WARNING, "under load: initiations now need a cookie");
	d->load_logged = d->c;
}

static void refresh_cookie_secret(struct wb_device *d, uint64_t now)
{
	uint8_t secret[WB_HASH_LEN];

	if (!wb_cookie_secret_due(&d->cookies, now))
		return;
	wb_device_random(d, secret, sizeof(secret));
	wb_cookie_set_secret(&d->cookies, secret, now);
	wb_wipe(secret, sizeof(secret));
}

/* Returns the bond the message acted on, NULL if none. */
static struct wb_bond *on_data(struct wb_device *d, uint64_t now, const struct wb_endpoint *from, uint8_t *buf,
			       size_t len)
{
	struct wb_index_entry *e = wb_index_find(&d->index, wb_data_receiver_index(buf));
	struct wb_keypair *kp;
	struct wb_bond *b;
	int n;

	if (!e || e->kind != WB_INDEX_KEYPAIR) {
		d->c.unknown_index++;
		return NULL;
	}
	b = e->bond;
	kp = e->keypair;
	n = wb_keypair_open(kp, buf, len);
	if (n == -EALREADY) {
		b->c.replays++;
		return NULL;
	}
	if (n < 0) {
		b->c.auth_failures++;
		return NULL;
	}
	if (kp == b->next)
		wb_handshake_confirm(b, now);
	wb_bond_on_data(b, now, kp, from, wb_data_uplink(buf), wb_data_counter(buf), buf + WB_DATA_HEADER_LEN, (size_t)n);
	wb_bond_sync_pool(b);
	return b;
}

/* The bond a datagram acted on, NULL if none (too short, unknown, refused). */
static struct wb_bond *dispatch(struct wb_device *d, uint64_t now, unsigned sock, const struct wb_endpoint *from,
				uint8_t *buf, size_t len)
{
	switch (buf[0]) {
	case WB_MSG_INITIATION:
		if (len != sizeof(struct wb_msg_initiation) || !d->p.server)
			break;
		refresh_cookie_secret(d, now);
		return wb_handshake_on_initiation(d, now, from, buf, len);
	case WB_MSG_RESPONSE:
		if (len != sizeof(struct wb_msg_response))
			break;
		return wb_handshake_on_response(d, now, sock, from, buf, len);
	case WB_MSG_COOKIE:
		if (len != sizeof(struct wb_msg_cookie))
			break;
		return wb_handshake_on_cookie(d, now, sock, buf, len);
	case WB_MSG_DATA:
		if (len < WB_DATA_OVERHEAD)
			break;
		return on_data(d, now, from, buf, len);
	}
	d->c.short_or_unknown++;
	return NULL;
}

/*
 * An entry point of the library: the timers of the bond the datagram acted
 * on may have moved. Here, once, rather than in every function inside that
 * moves one (bond_timers.c).
 */
void wb_device_receive(struct wb_device *d, uint64_t now, unsigned sock, const struct wb_endpoint *from,
		       uint8_t *buf, size_t len)
{
	struct wb_bond *b;

	d->c.rx_datagrams++;
	if (!len) {
		d->c.short_or_unknown++;
		return;
	}
	b = dispatch(d, now, sock, from, buf, len);
	if (b)
		wb_bond_timers_changed(b);
}

/* The bond's deadline may have moved since it was computed. */
static bool bond_stale(const struct wb_device *d, const struct wb_bond *b)
{
	return d->every_bond_stale || b->deadline_stale;
}

/*
 * Only the bonds that are due, or whose timers changed since their
 * deadline was computed: on a server, most peers sleep through most
 * wake-ups (idle or never connected), and ticking them would cost as
 * much as the work.
 */
void wb_device_tick(struct wb_device *d, uint64_t now)
{
	for (unsigned i = 0; i < d->n_bonds; i++) {
		struct wb_bond *b = d->bonds[i];

		if (bond_stale(d, b) || b->deadline_ns <= now) {
			wb_bond_tick(b, now);
			wb_bond_timers_changed(b);
		}
	}
}

uint64_t wb_device_next_deadline(struct wb_device *d)
{
	if (d->deadline_dirty) {
		uint64_t due = UINT64_MAX;

		for (unsigned i = 0; i < d->n_bonds; i++) {
			struct wb_bond *b = d->bonds[i];

			if (bond_stale(d, b)) {
				b->deadline_ns = wb_bond_deadline(b);
				b->deadline_stale = false;
			}
			if (b->deadline_ns < due)
				due = b->deadline_ns;
		}
		d->next_deadline = due;
		d->deadline_dirty = false;
		d->every_bond_stale = false;
	}
	return d->next_deadline;
}

const struct wb_device_counters *wb_device_counters(const struct wb_device *d)
{
	return &d->c;
}

const struct wb_pktbuf_limit *wb_device_pool(const struct wb_device *d)
{
	return &d->pool_limit;
}

void wb_device_set_pacing_slack(struct wb_device *d, uint64_t ns)
{
	d->pacing_slack_ns = ns;
}

struct wb_bond *wb_device_bond(const struct wb_device *d, unsigned i)
{
	return i < d->n_bonds ? d->bonds[i] : NULL;
}
