/* SPDX-License-Identifier: MIT */
/*
 * `wanbond stats --prometheus`: the bonds' and uplinks' counters and gauges
 * in Prometheus's text exposition format (version 0.0.4), for
 * node_exporter's textfile collector (docs/cli.md, docs/operations.md).
 *
 * Metric families come one at a time, each with its HELP and TYPE once and
 * then a sample per bond or per uplink (labels bond and uplink), so the
 * bonds must all be read before anything is printed. The counters' metrics
 * are made from the control family's lists (ctl.h): a counter added there
 * is exported here under its name. The OpenWrt collector
 * (openwrt/wanbond/files/wanbond.lua) exports the same names from
 * `wanbond -j show`.
 */
#ifndef WB_CLI_PROMETHEUS_H
#define WB_CLI_PROMETHEUS_H

#include <stdio.h>

#include "show.h"

/* Every family, then its samples for the n bonds (none: HELP and TYPE alone). */
void cli_print_prometheus(FILE *f, const struct cli_bond *bonds, int n);

/* The number wanbond_uplink_state gives a state ("down" 0, "probing" 1, "up" 2, "stale" 3); -1 for another word. */
int cli_prometheus_state_number(const char *state);

#endif
