// SPDX-License-Identifier: MIT
/*
 * What the operator sees of a bond and its uplinks, as copies
 * (wanbond.h): the daemon's status, control socket and service-manager
 * line read these, so the library's structures stay its own to change.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bond.h"

static void copy_name(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

void wb_bond_status(const struct wb_bond *b, struct wb_bond_status *out)
{
	memset(out, 0, sizeof(*out));
	copy_name(out->name, sizeof(out->name), b->name);
	out->session = b->current != NULL;
	out->session_born_ns = wb_bond_session_born(b);
	copy_name(out->scheduler, sizeof(out->scheduler), wb_bond_scheduler(b));
	out->sched_off = b->tuning.sched_off;
	out->send_buffer = b->tuning.send_buffer;
	out->receive_window = b->tuning.receive_window;
	out->send_queue = b->tuning.send_queue;
	out->memory = wb_bond_memory(b);
	out->on_backup = wb_bond_on_backup(b);
	out->path_max_packet = wb_bond_path_max_packet(b);
	out->c = b->c;
}

bool wb_bond_uplink_status(const struct wb_bond *b, unsigned i, struct wb_uplink_status *out)
{
	const struct wb_uplink *u = wb_bond_uplink(b, i);

	if (!u)
		return false;
	memset(out, 0, sizeof(*out));
	copy_name(out->name, sizeof(out->name), u->name);
	out->id = i;
	out->generation = u->generation;
	out->state = u->state;
	copy_name(out->state_why, sizeof(out->state_why), u->state_why);
	out->state_since_ns = u->state_since_ns;
	out->available = u->available;
	out->usable = wb_uplink_usable(u);
	out->backup = u->backup;
	out->weight = u->weight;
	out->endpoint = u->endpoint;
	if (u->rtt.has_sample) {
		out->srtt_ns = u->rtt.srtt_ns;
		out->min_rtt_ns = u->rtt.min_ns;
		out->rttvar_ns = u->rtt.rttvar_ns;
	}
	out->loss_ppm = u->loss_ppm;
	if (u->rec) {
		out->cwnd = u->cc.cwnd;
		out->bytes_in_flight = u->rec->bytes_in_flight;
		out->pacing_rate = u->cc.pacing_rate;
		out->lost_packets = u->rec->lost_packets;
		out->spurious_losses = u->rec->spurious;
		out->timeouts = u->rec->timeouts;
		out->timed_out = u->rec->timed_out;
	}
	out->pmtu = u->pmtu.size;
	out->pmtu_searching = u->pmtu.searching;
	out->c = u->c;
	return true;
}

int wb_bond_find_uplink(const struct wb_bond *b, const char *name)
{
	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++)
		if (b->uplinks[i].exists && !strcmp(b->uplinks[i].name, name))
			return (int)i;
	return -ENOENT;
}

bool wb_bond_on_backup(const struct wb_bond *b)
{
	bool active = false, backup = false;

	for (unsigned i = 0; i < WB_MAX_UPLINKS; i++) {
		const struct wb_uplink *u = &b->uplinks[i];

		if (wb_uplink_usable(u)) {
			active |= !u->backup;
			backup |= u->backup;
		}
	}
	return backup && !active;
}
