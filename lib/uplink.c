// SPDX-License-Identifier: MIT
#include "uplink.h"

const char *wb_uplink_state_name(enum wb_uplink_state s)
{
	switch (s) {
	case WB_UPLINK_DOWN:
		return "down";
	case WB_UPLINK_PROBING:
		return "probing";
	case WB_UPLINK_UP:
		return "up";
	case WB_UPLINK_STALE:
		return "stale";
	}
	return "?";
}

static uint64_t abs_diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* RFC 6298's estimator, and the minimum. */
void wb_rtt_sample(struct wb_rtt *r, uint64_t sample_ns)
{
	r->latest_ns = sample_ns;
	if (!r->has_sample) {
		r->srtt_ns = sample_ns;
		r->rttvar_ns = sample_ns / 2;
		r->min_ns = sample_ns;
		r->has_sample = true;
		return;
	}
	r->rttvar_ns = (3 * r->rttvar_ns + abs_diff(r->srtt_ns, sample_ns)) / 4;
	r->srtt_ns = (7 * r->srtt_ns + sample_ns) / 8;
	if (sample_ns < r->min_ns)
		r->min_ns = sample_ns;
}

uint64_t wb_uplink_stale_after(const struct wb_uplink *u, uint64_t probe_interval_ns)
{
	uint64_t rtt = u->rtt.has_sample ? u->rtt.srtt_ns + 4 * u->rtt.rttvar_ns : probe_interval_ns;

	return 2 * probe_interval_ns + rtt;
}

void wb_uplink_note_loss(struct wb_uplink *u, uint64_t tx_packets, uint64_t rx_packets)
{
	uint64_t sent = tx_packets - u->answer_tx, got = rx_packets - u->answer_rx;
	uint32_t interval_ppm;

	/* Counters that went back mean the peer started over: begin a new baseline. */
	if (tx_packets >= u->answer_tx && rx_packets >= u->answer_rx && sent) {
		interval_ppm = got >= sent ? 0 : (uint32_t)((sent - got) * 1000000 / sent);
		u->loss_ppm = (uint32_t)(((uint64_t)u->loss_ppm * 7 + interval_ppm) / 8);
	}
	u->answer_tx = tx_packets;
	u->answer_rx = rx_packets;
}
