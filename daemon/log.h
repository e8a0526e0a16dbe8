/* SPDX-License-Identifier: MIT */
/*
 * The daemon's log: one line per event, naming the bond and uplink it is
 * about, with syslog levels. Lines go to standard error with a "<N>" level
 * prefix, which journald and procd understand. Messages on the packet path
 * go through log_limited, so a flood of bad packets cannot flood the log.
 */
#ifndef WB_LOG_H
#define WB_LOG_H

#include <stdbool.h>
#include <stdint.h>

enum log_level { LOG_LVL_ERR = 3, LOG_LVL_WARNING = 4, LOG_LVL_NOTICE = 5, LOG_LVL_INFO = 6, LOG_LVL_DEBUG = 7 };

/*
 * Where lines go: standard error (the default; the journal itself, with
 * BOND= and UPLINK= fields, when built with libsystemd and standard error
 * is the journal's stream), or syslog (wanbondd --syslog, for OpenWrt's
 * logd when procd does not take standard error).
 */
enum log_sink { LOG_TO_STDERR, LOG_TO_JOURNAL, LOG_TO_SYSLOG };
void log_set_sink(enum log_sink to);

/* Lines above this level are not written (default: info). */
void log_set_level(int level);

void log_line(int level, const char *bond, const char *uplink, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A token bucket per call site: at most a burst of 5, then one a second. */
struct log_limit {
	uint64_t last_ns;
	uint32_t tokens;
	uint64_t suppressed;
};

bool log_allowed(struct log_limit *limit, uint64_t now);

#endif
