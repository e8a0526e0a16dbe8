/* SPDX-License-Identifier: MIT */
/*
 * The groups of the configuration that are flat lists of settings, each as
 * one table (config_table.h): timers, transport, scheduler (its policy; the
 * rules' switches are the scheduler's own names, wb_sched_rule_name) and
 * control. docs/configuration.md describes each setting; the unit test
 * test_config_table holds it, and the OpenWrt generator, to the tables.
 */
#ifndef WB_CONFIG_GROUPS_H
#define WB_CONFIG_GROUPS_H

#include "config_table.h"

extern const struct conf_table conf_timers;    /* struct wb_conf_timers, the library's struct wb_timers */
extern const struct conf_table conf_transport; /* struct wb_conf_transport, the library's struct wb_bond_tuning */
extern const struct conf_table conf_scheduler; /* struct wb_conf_scheduler, the library's struct wb_bond_tuning */
extern const struct conf_table conf_control;   /* struct wb_conf_control, the daemon's alone */

/* All of them, NULL-terminated. */
extern const struct conf_table *const conf_groups[];

#endif
