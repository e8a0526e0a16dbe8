// SPDX-License-Identifier: MIT
/*
 * A peer that restarted. Its new incarnation (sealed in its handshake
 * message, wire.h) has a reliable layer made from nothing: DSNs from 0 both
 * ways, packet numbers from 0, empty buffers. Kept as it was, ours would
 * take the peer's new DSNs for old ones and drop them as duplicates, send
 * DSNs far beyond the peer's new window, and let each side's acks free what
 * the other never had. So ours starts over too.
 *
 * As a TCP reset: what was sent and not yet acknowledged is given up and
 * counted, with what the reorder buffer held; the inner flows resend what
 * they miss. What waits in the send queue has no DSN yet and goes out
 * afresh. Each uplink keeps what it knows of its path (state, RTT,
 * endpoint) and its packet numbers, which stay unique under every key.
 */
#include "bond.h"
#include "device.h"

/* The uplink's half of the reliable layer, as when it was made. */
static void uplink_start_over(struct wb_uplink *u, uint64_t now)
{
	wb_recovery_reset(u->rec, u->tx_pn);
	wb_ackgen_init(&u->ackgen);
	/* Its rate samples and rounds count what the recovery delivered, which starts again. */
	u->cc.ops->init(&u->cc, u->cc.mss, u->rtt.has_sample ? u->rtt.srtt_ns : 0, now);
	u->dsns_held = 0;
	/*
	 * Its silence, if it fell silent, was the peer's restart, not the path's
	 * failure: one answer brings it up, as an uplink never seen up, instead
	 * of the three a failed path must give.
	 */
	u->ever_up = false;
	u->next_probe_ns = now; /* and it is probed at once, not at its next interval */
	/* The peer counts the messages it receives from 0 again: so do we, for the loss estimate. */
	u->data_rx = 0;
	u->answer_tx = u->answer_rx = 0;
}

void wb_bond_peer_restarted(struct wb_bond *b, uint64_t now)
{
	uint64_t unacked = wb_sndbuf_restart(&b->snd, &b->pool);
	uint32_t held = wb_reorder_restart(&b->rcv, &b->pool);

	for (int i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists && b->uplinks[i].rec)
			uplink_start_over(&b->uplinks[i], now);
	b->peer_rwnd = b->tuning.receive_window; /* until the new peer says otherwise */
	b->progress_ns = now;
	b->rto_backoff = 0;
	b->bond_ack_pending = false;
	b->bond_ack_seen = false;
	wb_sched_reset_state(b);
	/* The parity's blocks name DSNs of the session of before. */
	wb_fec_set_k(&b->fec_tx, 0);
	if (b->fec_rx.data)
		wb_fec_decoder_restart(&b->fec_rx);
	b->reinj.active = false;
	b->oppr_una = UINT64_MAX;
	b->c.peer_restarts++;
	b->c.restart_drops += unacked + held;
	wb_bond_sync_pool(b);
	wb_bond_log(b, WB_LOG_NOTICE, NULL,
		    "the peer restarted: the reliable layer starts over (%llu packets unacknowledged and %u held given up)",
		    (unsigned long long)unacked, held);
	wb_bond_event(b, &(struct wb_event){ .type = WB_EVENT_PEER_RESTART, .count = unacked + held,
					     .text = "the reliable layer started over" });
}
