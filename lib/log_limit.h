/* SPDX-License-Identifier: MIT */
/*
 * A log line that outside input can cause as often as it likes (a replayed
 * handshake, a flood) is written at most once an interval; the lines held
 * back in between are counted and the next line says how many.
 */
#ifndef WB_LOG_LIMIT_H
#define WB_LOG_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "nsec.h"

#define WB_LOG_LIMIT_INTERVAL_NS (10 * WB_NSEC_PER_SEC)

struct wb_log_limit {
	uint64_t logged_ns;
	uint64_t held; /* lines not written since the last one */
	bool ever;
};

/* True when a line may be written now; *held is then the count held back before it. */
static inline bool wb_log_limit_pass(struct wb_log_limit *l, uint64_t now, uint64_t *held)
{
	if (l->ever && now - l->logged_ns < WB_LOG_LIMIT_INTERVAL_NS) {
		l->held++;
		return false;
	}
	*held = l->held;
	l->held = 0;
	l->logged_ns = now;
	l->ever = true;
	return true;
}

#endif
