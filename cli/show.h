/* SPDX-License-Identifier: MIT */
/*
 * What the CLI prints of a bond: read once (the bond, then its uplinks)
 * into plain structures, then shown as a table for people, JSON for
 * scripts and ubus, a tab-separated dump, or counters.
 */
#ifndef WB_CLI_SHOW_H
#define WB_CLI_SHOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "counters.h"
#include "wanbond.h"
#include "wire.h"

struct cli_uplink {
	char name[32], state[16], state_why[WB_STATE_WHY_MAX], device[16], endpoint[64], socket[256];
	uint32_t id, weight, loss_ppm, pmtu;
	bool backup, enabled, iface_up, has_cc, pmtu_searching;
	uint64_t srtt, min_rtt, rttvar, cwnd, in_flight, pacing_rate, state_age;
	struct wb_uplink_counters c;
};

struct cli_bond {
	char name[32], role[16], tun[16], peer[64], policy[16];
	bool session, has_handshake;
	uint64_t handshake_ago, uptime, send_buffer, receive_window, send_queue, memory;
	uint32_t sched_off, mtu;
	struct wb_bond_counters c;
	struct wb_device_counters dev; /* the daemon's, shared by its bonds */
	int n_uplinks;
	struct cli_uplink up[WB_MAX_UPLINKS];
};

/* Reads the bond behind c: 0 or -errno (message in c->error). */
int cli_read_bond(struct ctl_conn *c, struct cli_bond *b);

void cli_print_table(FILE *f, const struct cli_bond *b, bool colour);
/* One JSON object; first: no comma before it. */
void cli_print_json(FILE *f, const struct cli_bond *b, bool first);
/*
 * The same keys as cli_print_json, as a member of an object keyed by bond
 * name ("home":{...}), its uplinks an object keyed by uplink name, each
 * with a "reason" and a "share_ppm": what ubus (rpcd) passes on.
 */
void cli_print_status(FILE *f, const struct cli_bond *b, bool first);
void cli_print_dump(FILE *f, const struct cli_bond *b);
/*
 * Counters "bond NAME value" lines, each uplink's after ("bond/uplink"),
 * then the device's ("bond:device"); brief: only non-zero ones.
 */
void cli_print_stats(FILE *f, const struct cli_bond *b, bool brief);
/* The names of the rules turned off, comma-separated, "none" if none. */
void cli_rules_off(char *out, size_t len, uint32_t off);

#endif
