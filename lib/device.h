/* SPDX-License-Identifier: MIT */
/* A device, inside the library (see wanbond.h for what it is). */
#ifndef WB_DEVICE_H
#define WB_DEVICE_H

#include <stdbool.h>
#include <stdint.h>

#include "bond.h"
#include "cookie.h"
#include "counters.h"
#include "index.h"
#include "noise.h"
#include "ratelimit.h"
#include "log_limit.h"
#include "pktbuf.h"
#include "wanbond.h"

struct wb_device {
	struct wb_device_params p;  /* (the incarnation, drawn at creation, is in local) */
	struct wb_device_ops ops;
	void *ctx;
	struct wb_noise_local local;
	struct wb_cookie_checker cookies;
	struct wb_index_table index;
	struct wb_bond **bonds;
	unsigned n_bonds;
	struct wb_pktbuf_limit pool_limit; /* what the bonds' packet pools may hold together */
	/* Handshake budget (a token bucket in ns of work): spent, an initiation needs a cookie. */
	uint64_t load_budget_ns, load_checked_ns;
	struct wb_ratelimit initiations; /* per source, once the load limit asks for cookies */
	/* One log line per interval while under load, instead of one per datagram. */
	struct wb_log_limit load_log;
	struct wb_device_counters load_logged; /* the counters at the last such line */
	uint64_t pacing_slack_ns; /* wb_device_set_pacing_slack */
	uint64_t next_deadline;
	bool deadline_dirty;    /* next_deadline is to be found again ... */
	bool every_bond_stale;  /* ... and every bond's own with it, not only those marked stale */
	struct wb_device_counters c;
};

/*
 * The timers of the device's bonds changed, any of them: each bond's
 * deadline is computed again before sleeping. Where the bond is known,
 * wb_bond_timers_changed (bond.h) recomputes that one's alone.
 */
static inline void wb_device_timers_changed(struct wb_device *d)
{
	d->deadline_dirty = true;
	d->every_bond_stale = true;
}

/*
 * This bond's timers may have changed: its deadline is computed again before
 * sleeping. Called only where the embedder calls in (wb_device_receive,
 * wb_device_tick, the wb_bond_* functions that change a bond), once on the
 * way out: any function inside may move any timer (bond_timers.c), and the
 * library does nothing between the embedder's calls.
 */
static inline void wb_bond_timers_changed(struct wb_bond *b)
{
	b->deadline_stale = true;
	b->dev->deadline_dirty = true;
}

/* True when handshake work is over budget: initiations then need a valid mac2. */
bool wb_device_under_load(struct wb_device *d, uint64_t now);

/* A fresh random receiver index in no use (the caller registers it). 0 on failure. */
uint32_t wb_device_new_index(struct wb_device *d);

void wb_device_random(struct wb_device *d, void *buf, size_t len);

/* A line for the log about the device as a whole (no bond, no uplink). */
void wb_device_log(const struct wb_device *d, enum wb_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* An initiation met the load limit: counts it and now and then says so in the log. */
void wb_device_note_load(struct wb_device *d, uint64_t now);

#endif
