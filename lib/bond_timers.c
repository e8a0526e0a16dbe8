// SPDX-License-Identifier: MIT
/*
 * Every timer of a bond, declared once: when it is due and what it does.
 * The tick runs each one that is due, in the order of the tables; the
 * bond's deadline is the earliest due of them all. Both read the same due
 * function, so a timer cannot fire at one time and wake the embedder at
 * another: a new timer is one entry here, and nothing elsewhere.
 *
 * A due of UINT64_MAX is a timer not armed. A few entries also run at every
 * tick, due or not, for a condition that is not a time (a rekey after so
 * many messages, a path MTU wait shortened when the path's RTT fell, what
 * the other timers made ready to send); each says which in its comment.
 *
 * Nothing here marks the deadline stale: the library's entry points do,
 * once, on the way out (device.c), since any of them may move any timer.
 */
#include <stdio.h>

#include "bond.h"
#include "device.h"
#include "nsec.h"

#define BOND_RTO_MIN_NS (200 * WB_NSEC_PER_MSEC)
#define BOND_RTO_MAX_BACKOFF 6
#define PMTU_MIN_TIMEOUT_NS (100 * WB_NSEC_PER_MSEC)
/*
 * The longest a parity block is built: a call's receiver plays what it got
 * some 40 to 60 ms late (its jitter buffer), so a packet rebuilt later than
 * that is as lost. A 50 packet/s call's blocks are then two or three packets.
 */
#define FEC_BLOCK_NS (40 * WB_NSEC_PER_MSEC)

/* ---- an uplink's timers ----------------------------------------------------------- */

/* When the tick runs an uplink timer: with the others, or where the bond's sending ends (acks). */
enum uplink_timer_phase { ON_TICK, AFTER_SEND };

struct uplink_timer {
	const char *name;
	enum uplink_timer_phase phase;
	uint64_t (*due)(const struct wb_bond *b, const struct wb_uplink *u);
	void (*fire)(struct wb_bond *b, struct wb_uplink *u, uint64_t now);
	bool every_tick;
};

/* Loss detection: a packet's time threshold, or the probe timeout (recovery.c). */
static uint64_t loss_due(const struct wb_bond *b, const struct wb_uplink *u)
{
	(void)b;
	return wb_recovery_deadline(u->rec, &u->rtt);
}

static void loss_fire(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	struct wb_recovery_events ev = wb_bond_recovery_events(b, u);

	if (!wb_recovery_on_timer(u->rec, &u->rtt, &u->cc, now, &ev))
		return;
	/* Two probe timeouts without an ack: no new data goes there until it answers again. */
	if (u->rec->timed_out && u->state == WB_UPLINK_UP)
		wb_bond_uplink_transition(b, u, WB_UPLINK_STALE, now, "nothing acked for two probe timeouts");
	if (b->current)
		wb_bond_send_probe(b, u, now); /* something must elicit an ack */
	wb_bond_check_black_hole(b, u, now);
}

/* The probe: every probe interval under a session, whatever else the uplink carries. */
static uint64_t probe_due(const struct wb_bond *b, const struct wb_uplink *u)
{
	return b->current ? u->next_probe_ns : UINT64_MAX;
}

static void probe_fire(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	wb_bond_send_probe(b, u, now);
}

/* Silence starts at the last answer, or when the uplink could first send; state changes do not restart it. */
static uint64_t quiet_since(const struct wb_uplink *u)
{
	return u->last_answer_ns > u->available_since_ns ? u->last_answer_ns : u->available_since_ns;
}

/* Silence takes an uplink a step down: up to stale, stale or probing to down. Down stays down. */
static enum wb_uplink_state silence_step(const struct wb_uplink *u)
{
	return u->state == WB_UPLINK_UP ? WB_UPLINK_STALE : WB_UPLINK_DOWN;
}

static uint64_t silence_due(const struct wb_bond *b, const struct wb_uplink *u)
{
	const struct wb_timers *t = &b->dev->p.timers;

	switch (u->state) {
	case WB_UPLINK_UP:
		return quiet_since(u) + wb_uplink_stale_after(u, t->probe_interval_ns) + 1;
	case WB_UPLINK_STALE:
	case WB_UPLINK_PROBING:
		return quiet_since(u) + t->uplink_timeout_ns + 1;
	case WB_UPLINK_DOWN:
		break;
	}
	return UINT64_MAX;
}

static void silence_fire(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	char why[64];

	snprintf(why, sizeof(why), "no answer for %llu ms", (unsigned long long)((now - quiet_since(u)) / WB_NSEC_PER_MSEC));
	wb_bond_uplink_transition(b, u, silence_step(u), now, why);
}

/* The path MTU search (pmtu.c) runs on an uplink that is up, under a session. */
static bool pmtu_runs(const struct wb_bond *b, const struct wb_uplink *u)
{
	return b->current && u->state == WB_UPLINK_UP;
}

static uint64_t pmtu_due(const struct wb_bond *b, const struct wb_uplink *u)
{
	return pmtu_runs(b, u) ? wb_pmtu_deadline(&u->pmtu) : UINT64_MAX;
}

/* How long a path MTU probe's answer may take: a probe timeout, and never under 100 ms (1 s before an RTT is known). */
static uint64_t pmtu_timeout(const struct wb_uplink *u)
{
	uint64_t t = u->rtt.has_sample ? wb_recovery_pto(&u->rtt) : WB_NSEC_PER_SEC;

	return t > PMTU_MIN_TIMEOUT_NS ? t : PMTU_MIN_TIMEOUT_NS;
}

/* At every tick: a probe's answer is awaited one timeout of the path as it is known now (wb_pmtu_tick). */
static void pmtu_fire(struct wb_bond *b, struct wb_uplink *u, uint64_t now)
{
	bool later_acked, searching = u->pmtu.searching;
	uint32_t settled = u->pmtu.settled, size = 0;

	if (!pmtu_runs(b, u))
		return;
	later_acked = u->rec->has_acked && u->rec->largest_acked > u->pmtu.probe_pn;
	switch (wb_pmtu_tick(&u->pmtu, now, pmtu_timeout(u), later_acked, &size)) {
	case WB_PMTU_PROBE:
		wb_bond_send_pmtu_probe(b, u, size, now);
		break;
	case WB_PMTU_NUDGE:
		wb_bond_send_probe(b, u, now); /* its answer tells whether the path carries anything now */
		break;
	case WB_PMTU_WAIT:
		break;
	}
	if (searching && !u->pmtu.searching)
		wb_bond_pmtu_search_ended(b, u, settled);
}

/* An ack the uplink owes and no packet carried (ackgen.c); acks go out only under a session. */
static uint64_t ack_due(const struct wb_bond *b, const struct wb_uplink *u)
{
	return b->current && u->ackgen.deadline_ns ? u->ackgen.deadline_ns : UINT64_MAX;
}

static const struct uplink_timer uplink_timers[] = {
	{ "loss detection", ON_TICK, loss_due, loss_fire, false },
	{ "probe", ON_TICK, probe_due, probe_fire, false },
	{ "silence", ON_TICK, silence_due, silence_fire, false },
	{ "path mtu", ON_TICK, pmtu_due, pmtu_fire, true },
	/* After the sending: an ack due rides on a data packet when one goes, and alone only if none did. */
	{ "ack", AFTER_SEND, ack_due, wb_bond_send_ack, false },
};

#define N_UPLINK_TIMERS (sizeof(uplink_timers) / sizeof(uplink_timers[0]))

/* The uplinks that have timers: those the bond can use at all. */
static bool has_timers(const struct wb_uplink *u)
{
	return u->exists && u->available;
}

static void run_uplink_timers(struct wb_bond *b, struct wb_uplink *u, enum uplink_timer_phase phase, uint64_t now)
{
	for (size_t i = 0; i < N_UPLINK_TIMERS; i++) {
		const struct uplink_timer *t = &uplink_timers[i];

		if (t->phase == phase && (t->every_tick || now >= t->due(b, u)))
			t->fire(b, u, now);
	}
}

static void run_all_uplink_timers(struct wb_bond *b, enum uplink_timer_phase phase, uint64_t now)
{
	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (has_timers(&b->uplinks[i]))
			run_uplink_timers(b, &b->uplinks[i], phase, now);
}

void wb_bond_send_due_acks(struct wb_bond *b, uint64_t now)
{
	run_all_uplink_timers(b, AFTER_SEND, now);
}

static uint64_t uplink_deadline(const struct wb_bond *b, const struct wb_uplink *u)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < N_UPLINK_TIMERS; i++)
		due = wb_min_u64(due, uplink_timers[i].due(b, u));
	return due;
}

/* ---- the bond's timers ------------------------------------------------------------ */

struct bond_timer {
	const char *name;
	uint64_t (*due)(const struct wb_bond *b);
	void (*fire)(struct wb_bond *b, uint64_t now);
	bool every_tick;
};

/* Sessions: expiry, rekeying and handshake retries (handshake.c). */
static uint64_t handshake_due(const struct wb_bond *b)
{
	return wb_handshake_deadline(b);
}

/* Also at every tick: a rekey after so many messages, and a session whose uplinks all went silent. */
static void handshake_fire(struct wb_bond *b, uint64_t now)
{
	wb_handshake_tick(b, now);
}

static uint64_t uplinks_due(const struct wb_bond *b)
{
	uint64_t due = UINT64_MAX;

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (has_timers(&b->uplinks[i]))
			due = wb_min_u64(due, uplink_deadline(b, &b->uplinks[i]));
	return due;
}

/* Each uplink's own, in the order of uplink_timers (those after the sending run in wb_bond_push). */
static void uplinks_fire(struct wb_bond *b, uint64_t now)
{
	run_all_uplink_timers(b, ON_TICK, now);
}

/* The reorder buffer's gap: given up on once the oldest packet held has waited the hold time. */
static uint64_t gap_due(const struct wb_bond *b)
{
	return wb_reorder_deadline(&b->rcv, wb_bond_hold_ns(b));
}

static void gap_fire(struct wb_bond *b, uint64_t now)
{
	uint64_t skipped;

	wb_reorder_skip_due(&b->rcv, now, wb_bond_hold_ns(b), &b->pool, wb_bond_deliver_ip, b);
	if (b->rcv.skipped == b->c.reorder_skips)
		return;
	skipped = b->rcv.skipped - b->c.reorder_skips;
	wb_bond_log(b, WB_LOG_INFO, NULL, "gave up %llu missing packets after %llu ms, at DSN %llu",
		    (unsigned long long)skipped, (unsigned long long)(wb_bond_hold_ns(b) / WB_NSEC_PER_MSEC),
		    (unsigned long long)b->rcv.nxt);
	b->c.reorder_skips = b->rcv.skipped;
	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_REORDER_SKIP, .count = skipped });
	b->bond_ack_pending = true;
}

/* The bond's own timeout: twice the slowest uplink's probe timeout, doubled per expiry in a row. */
static uint64_t bond_rto(const struct wb_bond *b)
{
	uint64_t worst = BOND_RTO_MIN_NS;

	for (int i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if (wb_uplink_usable(u) && 2 * wb_recovery_pto(&u->rtt) > worst)
			worst = 2 * wb_recovery_pto(&u->rtt);
	}
	return worst << b->rto_backoff;
}

static uint64_t bond_timeout_due(const struct wb_bond *b)
{
	return b->current && b->snd.una < b->snd.nxt ? b->progress_ns + bond_rto(b) : UINT64_MAX;
}

/* Nothing delivered for a bond timeout: the scheduler resends from snd_una. */
static void bond_timeout_fire(struct wb_bond *b, uint64_t now)
{
	b->c.bond_timeouts++;
	wb_sched_on_bond_timeout(b, now);
	if (b->rto_backoff < BOND_RTO_MAX_BACKOFF)
		b->rto_backoff++;
	b->progress_ns = now;
}

/*
 * Pacing: work that waits only for an uplink's pacing (wb_bond_pacing_wake),
 * under a session only: without one nothing goes out, and a wake-up left
 * from before the session ended would stay in the past.
 */
static uint64_t sending_due(const struct wb_bond *b)
{
	return b->current ? b->pace_wake_ns : UINT64_MAX;
}

/* Also at every tick: what the timers before made ready to go (resends, copies, a bond ack), and acks due. */
static void sending_fire(struct wb_bond *b, uint64_t now)
{
	wb_bond_push(b, now);
}

/* The packet pool gives back what the last window or two of use did not need; it wakes only while it holds any. */
static uint64_t pool_trim_due(const struct wb_bond *b)
{
	return wb_pktbuf_deadline(&b->pool);
}

/*
 * Also at every tick: an empty pool's window rolls on at any tick past its
 * end (wb_pktbuf_trim), so one that fills after a quiet spell is measured
 * over a window of its own, with no wake-up spent on it while empty.
 */
static void pool_trim_fire(struct wb_bond *b, uint64_t now)
{
	uint64_t freed = wb_pktbuf_trim(&b->pool, now);

	if (freed)
		wb_bond_log(b, WB_LOG_DEBUG, NULL, "packet pool: %llu KiB given back, %llu KiB kept (%u buffers in use)",
			    (unsigned long long)(freed / 1024), (unsigned long long)(wb_pktbuf_memory(&b->pool) / 1024),
			    b->pool.in_use);
}

/*
 * The interactive class's parity block that did not fill (the stream
 * paused, or runs slower than K packets a block time): its parity goes
 * while the receiver may still wait for a packet it rebuilds.
 */
static uint64_t fec_block_due(const struct wb_bond *b)
{
	return b->fec_tx.n && !b->fec_tx.ready ? b->fec_block_ns + FEC_BLOCK_NS : UINT64_MAX;
}

static void fec_block_fire(struct wb_bond *b, uint64_t now)
{
	if (wb_fec_flush_ready(&b->fec_tx))
		wb_bond_send_parity(b, now);
}

static const struct bond_timer bond_timers[] = {
	{ "handshake", handshake_due, handshake_fire, true },
	{ "uplinks", uplinks_due, uplinks_fire, true },
	{ "reorder gap", gap_due, gap_fire, false },
	{ "bond timeout", bond_timeout_due, bond_timeout_fire, false },
	{ "sending", sending_due, sending_fire, true },
	{ "parity block", fec_block_due, fec_block_fire, false },
	{ "pool trim", pool_trim_due, pool_trim_fire, true },
};

#define N_BOND_TIMERS (sizeof(bond_timers) / sizeof(bond_timers[0]))

void wb_bond_tick(struct wb_bond *b, uint64_t now)
{
	for (size_t i = 0; i < N_BOND_TIMERS; i++) {
		const struct bond_timer *t = &bond_timers[i];

		if (t->every_tick || now >= t->due(b))
			t->fire(b, now);
	}
	wb_bond_sync_pool(b);
}

uint64_t wb_bond_deadline(const struct wb_bond *b)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < N_BOND_TIMERS; i++)
		due = wb_min_u64(due, bond_timers[i].due(b));
	return due;
}
