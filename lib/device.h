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
	/* Handshake budget (a token bucket in ns of work): spent, an initiation needs a cookie. */
	uint64_t load_budget_ns, load_checked_ns;
	uint64_t next_deadline;
	bool deadline_dirty;
	struct wb_device_counters c;
};

/* Some bond's timers changed: recompute the next deadline before sleeping. */
static inline void wb_device_timers_changed(struct wb_device *d)
{
	d->deadline_dirty = true;
}

/* True when handshake work is over budget: initiations then need a valid mac2. */
bool wb_device_under_load(struct wb_device *d, uint64_t now);

/* A fresh random receiver index in no use (the caller registers it). 0 on failure. */
uint32_t wb_device_new_index(struct wb_device *d);

void wb_device_random(struct wb_device *d, void *buf, size_t len);

#endif
