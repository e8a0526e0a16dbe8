// SPDX-License-Identifier: MIT
/*
 * The flat groups' tables (config_groups.h): every setting of timers,
 * transport, scheduler and control, its range and unit, its field in
 * struct wb_config and the library's field it becomes. A setting's name is
 * its field's: the macros below write both from one word. The defaults are
 * the library's (WB_TIMERS_DEFAULT, wb_bond_tuning_defaults) where it has
 * the setting; only the daemon's own settings carry theirs here.
 */
#include "config_groups.h"

#include <string.h>

#include "config.h"
#include "config_read.h"
#include "wanbond.h"

/* A setting of the group's struct T, named as its field. */
#define U32(T, key, lo_, hi_, unit_)                                                                         \
	.name = #key, .type = CONF_U32, .unit = CONF_UNIT_##unit_, .lo = (lo_), .hi = (hi_),                  \
	.offset = CONF_FIELD(T, key, uint32_t)
#define U64(T, key, lo_, hi_, unit_)                                                                         \
	.name = #key, .type = CONF_U64, .unit = CONF_UNIT_##unit_, .lo = (lo_), .hi = (hi_),                  \
	.offset = CONF_FIELD(T, key, uint64_t)
#define FLAG(T, key) .name = #key, .type = CONF_FLAG, .offset = CONF_FIELD(T, key, bool)
#define TEXT(T, key, check_)                                                                                 \
	.name = #key, .type = CONF_TEXT, .offset = CONF_FIELD(T, key, char *), .size = sizeof(((T *)0)->key), \
	.check = (check_)

/* The library's field of the setting, of the library's struct L. */
#define LIB_U64(L, field) .lib = { .has = true, .offset = CONF_FIELD(L, field, uint64_t) }
#define LIB_FLAG(L, field) .lib = { .has = true, .offset = CONF_FIELD(L, field, bool) }
#define LIB_NOT(L, field) .lib = { .has = true, .negated = true, .offset = CONF_FIELD(L, field, bool) }
#define LIB_TEXT(L, field)                                                                                   \
	.lib = { .has = true, .offset = CONF_FIELD(L, field, char *), .size = sizeof(((L *)0)->field) }

#define TABLE(group, T, settings_)                                                                           \
	{ .name = #group, .path = #group ".", .offset = CONF_FIELD(struct wb_config, group, T),                 \
	  .settings = (settings_), .n = sizeof(settings_) / sizeof((settings_)[0]) }

#define KIB_MAX (1024 * 1024) /* a GiB, in KiB; and a TiB in MiB */

/* ---- timers ---- */

#define T struct wb_conf_timers
#define L struct wb_timers
static const struct conf_setting timers[] = {
	{ U32(T, probe_interval_ms, 10, 10000, MS), LIB_U64(L, probe_interval_ns) },
	{ U32(T, uplink_timeout_ms, 100, 60000, MS), LIB_U64(L, uplink_timeout_ns) },
	{ U32(T, handshake_retry_ms, 100, 60000, MS), LIB_U64(L, handshake_retry_ns) },
	{ U32(T, rekey_after_seconds, 10, 86400, SECONDS), LIB_U64(L, rekey_after_ns) },
	{ U64(T, rekey_after_messages, 1000, 1LL << 60, NONE), LIB_U64(L, rekey_after_messages) },
};
#undef T
#undef L

/* ---- transport ---- */

/*
 * The messages below are written out in full rather than through
 * conf_report_key, which cuts what it says at 256 characters: a long value
 * is quoted whole, as it always was.
 */
static int check_congestion_control(const struct conf_sect *s, const config_setting_t *at,
				    const struct conf_setting *set, const char *v)
{
	if (!strcmp(v, "bbr") || !strcmp(v, "newreno"))
		return 0;
	return conf_report(s->p, at, "%s%s%s: '%s' is none of bbr, newreno", s->scope, s->path, set->name, v);
}

#define T struct wb_conf_transport
#define L struct wb_bond_tuning
static const struct conf_setting transport[] = {
	{ TEXT(T, congestion_control, check_congestion_control), LIB_TEXT(L, cc) },
	{ U32(T, send_buffer_kb, 64, KIB_MAX, KB), LIB_U64(L, send_buffer) },
	{ U32(T, receive_window_kb, 64, KIB_MAX, KB), LIB_U64(L, receive_window) },
	{ U32(T, send_queue_kb, 16, KIB_MAX, KB), LIB_U64(L, send_queue) },
	{ U32(T, reorder_hold_ms, 0, 60000, MS), LIB_U64(L, hold_ns) },
	{ FLAG(T, aqm), LIB_NOT(L, no_aqm) },
	{ U32(T, aqm_target_ms, 1, 1000, MS), LIB_U64(L, aqm_target_ns) },
	{ U32(T, aqm_interval_ms, 10, 10000, MS), LIB_U64(L, aqm_interval_ns) },
	/* The device's, not a bond's: 0 is a quarter of the memory (daemon.c, pool_limit). */
	{ U32(T, pool_limit_mb, 0, KIB_MAX, MB), .def = 0 },
	{ FLAG(T, outer_dscp), LIB_FLAG(L, outer_dscp) },
};
#undef T
#undef L

/* ---- scheduler ---- */

static int check_policy(const struct conf_sect *s, const config_setting_t *at, const struct conf_setting *set,
			const char *v)
{
	if (wb_sched_exists(v))
		return 0;
	return conf_report(s->p, at, "%s%s%s: '%s' is none of default, roundrobin, redundant, first", s->scope,
			   s->path, set->name, v);
}

static const struct conf_setting scheduler[] = {
	{ TEXT(struct wb_conf_scheduler, policy, check_policy), LIB_TEXT(struct wb_bond_tuning, scheduler) },
};

/* ---- control ---- */

/* Room for "/BOND.sock" after the directory. */
static int check_directory(const struct conf_sect *s, const config_setting_t *at, const struct conf_setting *set,
			   const char *v)
{
	if (v[0] == '/' && strlen(v) < set->size - WB_NAME_MAX - 6)
		return 0;
	return conf_report(s->p, at, "%s%s%s: an absolute path of at most %zu characters expected", s->scope,
			   s->path, set->name, set->size - WB_NAME_MAX - 7);
}

static int check_group_name(const struct conf_sect *s, const config_setting_t *at, const struct conf_setting *set,
			    const char *v)
{
	if (*v && strlen(v) < set->size)
		return 0;
	return conf_report(s->p, at, "%s%s%s: a group name expected", s->scope, s->path, set->name);
}

#define T struct wb_conf_control
static const struct conf_setting control[] = {
	{ TEXT(T, directory, check_directory), .def_text = WB_CONTROL_DIR },
	{ TEXT(T, group, check_group_name), .def_text = "" },
	{ TEXT(T, admin_group, check_group_name), .def_text = "" },
};
#undef T

const struct conf_table conf_timers = TABLE(timers, struct wb_conf_timers, timers);
const struct conf_table conf_transport = TABLE(transport, struct wb_conf_transport, transport);
const struct conf_table conf_scheduler = TABLE(scheduler, struct wb_conf_scheduler, scheduler);
const struct conf_table conf_control = TABLE(control, struct wb_conf_control, control);

const struct conf_table *const conf_groups[] = { &conf_timers, &conf_transport, &conf_scheduler, &conf_control, NULL };
