// SPDX-License-Identifier: MIT
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

#define LIMIT_BURST 5
#define LIMIT_INTERVAL_NS 1000000000ULL

/* The one piece of mutable state outside the daemon's context: the level is set once, at start. */
static int max_level = LOG_LVL_INFO;

void log_set_level(int level)
{
	max_level = level;
}

int log_get_level(void)
{
	return max_level;
}

void log_line(int level, const char *bond, const char *uplink, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (level > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (bond && uplink)
		fprintf(stderr, "<%d>%s/%s: %s\n", level, bond, uplink, msg);
	else if (bond)
		fprintf(stderr, "<%d>%s: %s\n", level, bond, msg);
	else
		fprintf(stderr, "<%d>%s\n", level, msg);
}

bool log_allowed(struct log_limit *l, uint64_t now)
{
	uint64_t refill = (now - l->last_ns) / LIMIT_INTERVAL_NS;

	if (refill) {
		l->tokens = l->tokens + refill > LIMIT_BURST ? LIMIT_BURST : l->tokens + (uint32_t)refill;
		l->last_ns = now;
	}
	if (!l->last_ns) {
		l->tokens = LIMIT_BURST;
		l->last_ns = now;
	}
	if (!l->tokens) {
		l->suppressed++;
		return false;
	}
	l->tokens--;
	return true;
}
