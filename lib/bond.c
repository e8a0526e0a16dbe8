// SPDX-License-Identifier: MIT
/*
 * A bond's life: made and destroyed, its uplinks' states, added, removed
 * and switched, its sessions' start and end, an IP packet taken in to send,
 * and what it tells of itself. What it receives is bond_rx.c's, what it
 * sends bond_tx.c's, its timers bond_timers.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bond.h"
#include "device.h"
#include "frame.h"
#include "nsec.h"

#define CONTROL_BODY 1024 /* room for probes and acks, whatever the MTU */
#define MIN_HOLD_NS (100 * WB_NSEC_PER_MSEC)
#define MAX_HOLD_NS (5 * WB_NSEC_PER_SEC)
#define HOLD_MARGIN_NS (200 * WB_NSEC_PER_MSEC)
#define POOL_FULL_LOG_NS (10 * WB_NSEC_PER_SEC) /* a packet without a buffer is said at most this often */
/*
 * The interactive class's queue, in window units: seconds of a call or a
 * game, which it never holds (it goes first), and a bound on what a
 * misclassified bulk flow can put ahead of the rest.
 */
#define INTERACTIVE_QUEUE (128 * 1024)

void wb_bond_log(const struct wb_bond *b, enum wb_log_level level, const struct wb_uplink *u, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (!b->dev->ops.log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	b->dev->ops.log(b->dev->ctx, level, b->name, u ? u->name : NULL, msg);
}

void wb_bond_tuning_defaults(struct wb_bond_tuning *t)
{
	if (!t->mtu)
		t->mtu = WB_DEFAULT_MTU;
	if (!t->send_buffer)
		t->send_buffer = WB_DEFAULT_SEND_BUFFER;
	if (!t->receive_window)
		t->receive_window = WB_DEFAULT_RECEIVE_WINDOW;
	if (!t->send_queue)
		t->send_queue = WB_DEFAULT_SEND_QUEUE;
	if (!t->aqm_target_ns)
		t->aqm_target_ns = WB_DEFAULT_AQM_TARGET_NS;
	if (!t->aqm_interval_ns)
		t->aqm_interval_ns = WB_DEFAULT_AQM_INTERVAL_NS;
	if (!t->cc[0])
		snprintf(t->cc, sizeof(t->cc), "bbr");
	if (!t->scheduler[0])
		snprintf(t->scheduler, sizeof(t->scheduler), "default");
}

/* The reliable layer of an uplink, once it exists. */
int wb_bond_uplink_start(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	if (u->rec)
		return 0;
	u->rec = malloc(sizeof(*u->rec));
	if (!u->rec || wb_recovery_init(u->rec, u->tx_pn)) {
		free(u->rec);
		u->rec = NULL;
		return -ENOMEM;
	}
	u->bond = b;
	wb_pmtu_init(&u->pmtu, (uint32_t)WB_DATA_OVERHEAD + b->max_body);
	u->cc.ops = b->cc_ops;
	u->cc.ops->init(&u->cc, b->max_body + (uint32_t)WB_DATA_OVERHEAD, 0, now);
	wb_ackgen_init(&u->ackgen);
	return 0;
}

static int init_reliable(struct wb_bond *b, const struct wb_bond_tuning *t)
{
	uint64_t packets;

	b->tuning = *t;
	wb_bond_tuning_defaults(&b->tuning);
	b->cc_ops = wb_cc_find(b->tuning.cc);
	if (!b->cc_ops || b->tuning.mtu > WB_MAX_TUN_MTU ||
	    wb_bond_set_scheduler(b, b->tuning.scheduler, b->tuning.sched_off))
		return -EINVAL;
	b->oppr_una = UINT64_MAX;
	b->max_body = WB_MAX_BODY(b->tuning.mtu) > CONTROL_BODY ? WB_MAX_BODY(b->tuning.mtu) : CONTROL_BODY;
	/* Buffers for two MTU-sized packets per window MTU: small packets use a whole buffer each. */
	packets = 2 * (b->tuning.send_buffer + b->tuning.receive_window + b->tuning.send_queue) / b->tuning.mtu + 64;
	wb_pktbuf_init(&b->pool, b->tuning.mtu, packets > UINT32_MAX ? UINT32_MAX : (uint32_t)packets);
	wb_pktbuf_attach(&b->pool, &b->dev->pool_limit);
	b->peer_rwnd = b->tuning.receive_window; /* until the peer says otherwise */
	b->pace_wake_ns = UINT64_MAX;
	wb_fec_encoder_init(&b->fec_tx, 0);
	b->scratch = malloc(WB_DATA_OVERHEAD + b->max_body);
	if (!b->scratch || wb_sndbuf_init(&b->snd) || wb_reorder_init(&b->rcv, b->tuning.receive_window) ||
	    wb_txq_init(&b->txq, b->tuning.send_queue, b->tuning.mtu, !b->tuning.no_aqm, b->tuning.aqm_target_ns,
			b->tuning.aqm_interval_ns) ||
	    wb_txq_init(&b->txq_interactive, INTERACTIVE_QUEUE, b->tuning.mtu, false, 0, 0))
		return -ENOMEM;
	return 0;
}

int wb_bond_init(struct wb_bond *b, struct wb_device *d, const struct wb_bond_params *p)
{
	memset(b, 0, sizeof(*b));
	b->dev = d;
	b->user = p->user;
	snprintf(b->name, sizeof(b->name), "%s", p->name);
	b->server = p->server;
	b->n_allowed = p->n_allowed < WB_MAX_ALLOWED ? p->n_allowed : WB_MAX_ALLOWED;
	memcpy(b->allowed, p->allowed, (size_t)b->n_allowed * sizeof(b->allowed[0]));
	if (init_reliable(b, &p->tuning))
		return -EINVAL;
	for (int i = 0; i < p->n_uplinks && i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		u->exists = true;
		u->id = (uint8_t)i;
		snprintf(u->name, sizeof(u->name), "%s", p->uplinks[i].name);
		u->backup = p->uplinks[i].backup;
		u->weight = p->uplinks[i].weight ? p->uplinks[i].weight : 1;
		u->endpoint = p->server;
		if (wb_bond_uplink_start(b, u, 0))
			return -ENOMEM;
	}
	return 0;
}

void wb_bond_destroy(struct wb_bond *b)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		if (b->uplinks[i].rec)
			wb_recovery_free(b->uplinks[i].rec);
		free(b->uplinks[i].rec);
	}
	if (b->txq.ring)
		wb_txq_free(&b->txq, &b->pool);
	if (b->txq_interactive.ring)
		wb_txq_free(&b->txq_interactive, &b->pool);
	wb_fec_decoder_free(&b->fec_rx);
	wb_sndbuf_free(&b->snd, &b->pool);
	if (b->rcv.ring)
		wb_reorder_free(&b->rcv, &b->pool);
	wb_pktbuf_destroy(&b->pool);
	free(b->scratch);
}

/* ---- uplink states ------------------------------------------------------------ */

void wb_bond_uplink_transition(struct wb_bond *b, struct wb_uplink *u, enum wb_uplink_state to, uint64_t now,
			       const char *why)
{
	enum wb_uplink_state from = u->state;

	if (from == to)
		return;
	u->state = to;
	u->state_since_ns = now;
	if (from == WB_UPLINK_UP) {
		u->left_up_ns = now;
		u->left_up_rate = u->cc.pacing_rate;
	}
	snprintf(u->state_why, sizeof(u->state_why), "%s", why);
	if (to == WB_UPLINK_DOWN || to == WB_UPLINK_STALE) {
		u->answers_in_row = 0;
		wb_pmtu_forget_losses(&u->pmtu); /* what silence lost says nothing of size */
	}
	if (to == WB_UPLINK_DOWN) {
		struct wb_recovery_events ev = wb_bond_recovery_events(b, u);

		u->c.went_down++;
		/* What it carries is lost with it: resent on the others at once. */
		if (u->rec) {
			wb_recovery_abandon(u->rec, &u->rtt, now, &ev);
			wb_recovery_new_path(u->rec);
		}
		/* When it answers again it may be another path (a modem reconnected): learn it afresh. */
		if (u->cc.ops)
			u->cc.ops->init(&u->cc, u->cc.mss, u->rtt.has_sample ? u->rtt.srtt_ns : 0, now);
	}
	if (to == WB_UPLINK_UP)
		u->ever_up = true;
	/* Up after down (or for the first time): maybe another path, whose size is not known yet. */
	if (to == WB_UPLINK_UP && from != WB_UPLINK_STALE)
		wb_pmtu_restart(&u->pmtu, now);
	/* Back from stale: was it a black hole that left only its small probes acked? */
	if (to == WB_UPLINK_UP && from == WB_UPLINK_STALE && !u->pmtu.searching)
		wb_pmtu_suspect(&u->pmtu, now);
	wb_bond_log(b, to == WB_UPLINK_UP || to == WB_UPLINK_DOWN ? WB_LOG_NOTICE : WB_LOG_INFO, u, "%s -> %s (%s)",
		    wb_uplink_state_name(from), wb_uplink_state_name(to), why);
	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_UPLINK_STATE, .uplink = u->name, .from = from, .to = to,
					     .text = why });
	wb_bond_check_failover(b);
}

static uint64_t kib(uint64_t bytes)
{
	return bytes / 1024;
}

/*
 * A packet found no buffer: counted, and said at most every 10 s with the
 * limit it met, the bond's own pool size or the device's cap.
 */
void wb_bond_pool_full(struct wb_bond *b, uint64_t now, const char *what)
{
	const struct wb_pktbuf_limit *l = b->pool.limit;
	char cap[32] = "no cap";

	b->c.pool_full_drops++;
	if (now < b->next_pool_full_log_ns)
		return;
	b->next_pool_full_log_ns = now + POOL_FULL_LOG_NS;
	if (l->cap != UINT64_MAX)
		snprintf(cap, sizeof(cap), "a cap of %llu KiB", (unsigned long long)kib(l->cap));
	wb_bond_log(b, WB_LOG_WARNING, NULL,
		    "no packet buffer for %s: dropped (%llu so far); the bond's pool holds %llu of at most %llu KiB, "
		    "the %u bonds' %llu KiB with %s",
		    what, (unsigned long long)b->c.pool_full_drops, (unsigned long long)kib(wb_pktbuf_memory(&b->pool)),
		    (unsigned long long)kib((uint64_t)b->pool.max * b->pool.slot), l->pools,
		    (unsigned long long)kib(l->allocated), cap);
}

void wb_bond_sync_pool(struct wb_bond *b)
{
	b->c.pool_bytes = wb_pktbuf_memory(&b->pool);
	b->c.pool_in_use_bytes = (uint64_t)b->pool.in_use * b->pool.slot;
	b->c.pool_high_water = (uint64_t)b->pool.high_water * b->pool.slot;
}

static bool interactive(const struct wb_bond *b, const uint8_t *ip, size_t len)
{
	return wb_classify(&b->tuning.classes.rules, ip, len) == WB_CLASS_INTERACTIVE;
}

/* A packet of the interactive class: counted, and its own queue. */
static struct wb_txq *queue_for(struct wb_bond *b, const uint8_t *ip, size_t len)
{
	if (!interactive(b, ip, len))
		return &b->txq;
	b->c.interactive_tx_packets++;
	b->c.interactive_tx_bytes += len;
	return &b->txq_interactive;
}

int wb_bond_send_ip(struct wb_bond *b, uint64_t now, const uint8_t *ip, size_t len)
{
	struct wb_txq *q;
	uint8_t *buf;

	if (!len)
		return -EMSGSIZE; /* no packet: nothing taken in */
	b->c.tun_rx_packets++;
	b->c.tun_rx_bytes += len;
	if (!b->current) {
		b->c.no_session_drops++;
		return -ENOTCONN;
	}
	if (len > b->tuning.mtu) {
		/* Taken in and dropped at the door: counted as such, or the account would not balance. */
		b->c.too_big_drops++;
		return -EMSGSIZE;
	}
	q = queue_for(b, ip, len);
	if (!wb_txq_has_room(q, (uint32_t)len)) {
		/*
		 * The queue waits for an uplink while none is up (a gap is bridged,
		 * an outage fills it): a packet it then has no room for is lost to
		 * the outage, not to congestion, and counted so.
		 */
		if (wb_sched_uplinks(b))
			b->c.queue_drops++;
		else
			b->c.no_uplink_drops++;
		if (q == &b->txq_interactive)
			b->c.interactive_queue_drops++;
		return -ENOBUFS;
	}
	buf = wb_pktbuf_get(&b->pool);
	if (!buf) {
		wb_bond_pool_full(b, now, "an IP packet to send");
		return -ENOBUFS;
	}
	memcpy(buf, ip, len);
	wb_txq_push(q, buf, (uint16_t)len, now);
	wb_bond_push(b, now);
	wb_bond_sync_pool(b);
	wb_bond_timers_changed(b);
	return 0;
}

void wb_bond_set_classes(struct wb_bond *b, const struct wb_classes *c)
{
	b->tuning.classes = *c;
	wb_fec_set_k(&b->fec_tx, 0);
}

bool wb_bond_can_queue(const struct wb_bond *b, const uint8_t *ip, size_t len)
{
	const struct wb_txq *q = interactive(b, ip, len) ? &b->txq_interactive : &b->txq;

	return b->current && len && len <= b->tuning.mtu && wb_txq_has_room(q, (uint32_t)len) &&
	       wb_pktbuf_available(&b->pool);
}

/* ---- timers ---------------------------------------------------------------------- */

uint64_t wb_bond_hold_ns(const struct wb_bond *b)
{
	uint64_t worst = 0;

	if (b->tuning.hold_ns)
		return b->tuning.hold_ns;
	/*
	 * Time for a loss on the slowest uplink to be seen (by a later packet,
	 * or at worst two probe timeouts) and the packet resent on another.
	 */
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];
		uint64_t t = 3 * wb_recovery_pto(&u->rtt);

		if (u->exists && u->available && u->rtt.has_sample && t > worst)
			worst = t;
	}
	if (!worst)
		return WB_NSEC_PER_SEC;
	worst += HOLD_MARGIN_NS;
	return worst < MIN_HOLD_NS ? MIN_HOLD_NS : worst > MAX_HOLD_NS ? MAX_HOLD_NS : worst;
}

/* ---- sessions and uplinks --------------------------------------------------------- */

void wb_bond_session_started(struct wb_bond *b, uint64_t now, int hint_uplink)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		if (!u->exists || !u->available)
			continue;
		if (i == hint_uplink && b->hs_sent_ns && now >= b->hs_sent_ns) {
			wb_rtt_sample(&u->rtt, now - b->hs_sent_ns);
			wb_bond_uplink_answered(b, u, now);
		}
		/* Probe every uplink now: it confirms the session to the server and shows it our endpoints. */
		wb_bond_send_probe(b, u, now);
	}
}

void wb_bond_session_ended(struct wb_bond *b, uint64_t now, const char *why)
{
	wb_bond_log(b, WB_LOG_NOTICE, NULL, "no session: %s", why);
	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_SESSION_ENDED, .text = why });
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists)
			wb_bond_uplink_transition(b, &b->uplinks[i], WB_UPLINK_DOWN, now, why);
}

void wb_bond_set_uplink_available(struct wb_bond *b, unsigned i, bool available, uint64_t now, const char *why)
{
	struct wb_uplink *u = i < WB_MAX_UPLINKS ? &b->uplinks[i] : NULL;

	if (!u || !u->exists || u->available == available)
		return;
	u->available = available;
	if (!available) {
		wb_bond_uplink_transition(b, u, WB_UPLINK_DOWN, now, why ? why : "no usable socket");
	} else {
		u->available_since_ns = now;
		u->next_probe_ns = now;
	}
	wb_bond_timers_changed(b);
}

int wb_bond_add_uplink(struct wb_bond *b, const struct wb_uplink_params *p, uint64_t now)
{
	struct wb_uplink *u = NULL;
	uint64_t tx_pn;
	uint32_t generation;
	int i;

	if (b->dev->p.server)
		return -EPERM;
	if (!p->name[0] || wb_bond_find_uplink(b, p->name) >= 0)
		return -EEXIST;
	for (i = 0; i < WB_MAX_UPLINKS && !u; i++)
		if (!b->uplinks[i].exists)
			u = &b->uplinks[i];
	if (!u)
		return -ENOSPC;
	/* A slot used before keeps its packet number: under the same keys a nonce never repeats. */
	tx_pn = u->tx_pn;
	generation = u->generation;
	memset(u, 0, sizeof(*u));
	u->tx_pn = tx_pn;
	u->generation = generation + 1;
	u->exists = true;
	u->id = (uint8_t)(u - b->uplinks);
	snprintf(u->name, sizeof(u->name), "%s", p->name);
	u->backup = p->backup;
	u->weight = p->weight ? p->weight : 1;
	u->endpoint = b->server;
	if (wb_bond_uplink_start(b, u, now)) {
		u->exists = false;
		return -ENOMEM;
	}
	wb_bond_log(b, WB_LOG_NOTICE, u, "added as uplink %u", u->id);
	wb_bond_timers_changed(b);
	return u->id;
}

int wb_bond_remove_uplink(struct wb_bond *b, unsigned i, uint64_t now)
{
	struct wb_uplink *u = i < WB_MAX_UPLINKS ? &b->uplinks[i] : NULL;
	uint64_t tx_pn;
	uint32_t generation;

	if (!u || !u->exists)
		return -ENOENT;
	if (b->dev->p.server)
		return -EPERM;
	/* Down first: what it carries is declared lost and goes out again on the others. */
	wb_bond_set_uplink_available(b, i, false, now, "removed");
	wb_bond_uplink_transition(b, u, WB_UPLINK_DOWN, now, "removed");
	for (uint64_t d = b->snd.una; d < b->snd.nxt; d++) {
		struct wb_sndbuf_entry *e = wb_sndbuf_get(&b->snd, d);

		e->holders &= (uint16_t)~(1u << i);
		e->lost_on &= (uint16_t)~(1u << i);
	}
	if (b->reinj.active && b->reinj.uplink == i)
		b->reinj.active = false;
	wb_bond_log(b, WB_LOG_NOTICE, u, "removed");
	wb_recovery_free(u->rec);
	free(u->rec);
	tx_pn = u->tx_pn;
	generation = u->generation;
	memset(u, 0, sizeof(*u));
	u->tx_pn = tx_pn;
	u->generation = generation;
	wb_bond_timers_changed(b);
	return 0;
}

int wb_bond_set_uplink_role(struct wb_bond *b, unsigned i, bool backup, uint16_t weight)
{
	struct wb_uplink *u = i < WB_MAX_UPLINKS ? &b->uplinks[i] : NULL;

	if (!u || !u->exists)
		return -ENOENT;
	if (b->dev->p.server)
		return -EPERM; /* it follows what the client's probes say */
	if (!weight)
		return -EINVAL;
	u->backup = backup;
	u->weight = weight;
	wb_bond_check_failover(b);
	wb_bond_timers_changed(b);
	return 0;
}

void wb_bond_close(struct wb_bond *b, uint64_t now)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		struct wb_uplink *u = &b->uplinks[i];

		if (u->exists && u->available)
			wb_bond_send_close(b, u, now);
	}
	wb_bond_timers_changed(b);
}

void *wb_bond_user(const struct wb_bond *b)
{
	return b->user;
}

const struct wb_bond_counters *wb_bond_counters(const struct wb_bond *b)
{
	return &b->c;
}

bool wb_bond_has_session(const struct wb_bond *b)
{
	return b->current != NULL;
}

uint64_t wb_bond_session_born(const struct wb_bond *b)
{
	return b->current ? b->current->born_ns : 0;
}

const struct wb_uplink *wb_bond_uplink(const struct wb_bond *b, unsigned i)
{
	return i < WB_MAX_UPLINKS && b->uplinks[i].exists ? &b->uplinks[i] : NULL;
}

uint32_t wb_bond_path_max_packet(const struct wb_bond *b)
{
	uint32_t smallest = 0;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];
		uint32_t settled = u->pmtu.settled;

		if (!wb_uplink_usable(u) || settled <= WB_TUNNEL_BYTES_INSIDE_UDP)
			continue;
		if (!smallest || settled - WB_TUNNEL_BYTES_INSIDE_UDP < smallest)
			smallest = settled - WB_TUNNEL_BYTES_INSIDE_UDP;
	}
	return smallest;
}

uint64_t wb_bond_memory(const struct wb_bond *b)
{
	uint64_t m = sizeof(*b) + wb_pktbuf_memory(&b->pool) + WB_DATA_OVERHEAD + b->max_body;

	m += (uint64_t)b->snd.cap * sizeof(*b->snd.ring) + (uint64_t)b->snd.retx_cap * sizeof(uint64_t);
	m += (uint64_t)b->rcv.cap * sizeof(*b->rcv.ring) + (uint64_t)b->txq.cap * sizeof(*b->txq.ring);
	m += (uint64_t)b->txq_interactive.cap * sizeof(*b->txq_interactive.ring);
	if (b->fec_rx.data)
		m += WB_FEC_RING * sizeof(*b->fec_rx.data);
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].rec)
			m += sizeof(struct wb_recovery) + (uint64_t)b->uplinks[i].rec->cap * sizeof(struct wb_sent);
	return m;
}
