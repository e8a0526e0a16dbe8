// SPDX-License-Identifier: MIT
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <syslog.h>

#include "escape.h"
#include "nsec.h"
#include "wire.h"

#ifndef WB_HAVE_SYSTEMD
#define WB_HAVE_SYSTEMD 0
#endif
#if WB_HAVE_SYSTEMD
#include <systemd/sd-journal.h>
#endif

#define LIMIT_BURST 5
#define LIMIT_INTERVAL_NS WB_NSEC_PER_SEC

/* The mutable state outside the daemon's context, set once at start: the level and where lines go. */
static int max_level = LOG_LVL_INFO;
static enum log_sink sink = LOG_TO_STDERR;

/* Whether standard error is the journal's stream (systemd sets JOURNAL_STREAM to its device:inode). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(2, &st) && st.st_dev == dev && st.st_ino == ino;
}

void log_set_sink(enum log_sink to)
{
	if (to == LOG_TO_SYSLOG)
		openlog("wanbondd", LOG_PID, LOG_DAEMON);
	if (to == LOG_TO_STDERR && WB_HAVE_SYSTEMD && stderr_is_journal())
		to = LOG_TO_JOURNAL;
	sink = to;
}

void log_set_level(int level)
{
	max_level = level;
}

/*
 * Every line is escaped whole (escape.h): its text may hold what a peer sent
 * or a file said, and a newline or a terminal's escape sequence in it must
 * not forge a line or reach the terminal of whoever reads the log.
 */
void log_line(int level, const char *bond, const char *uplink, const char *fmt, ...)
{
	char raw[512], msg[640], bond_text[2 * WB_UPLINK_NAME_MAX], uplink_text[2 * WB_UPLINK_NAME_MAX];
	va_list ap;

	if (level > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	wb_escape(msg, sizeof(msg), raw);
	if (bond)
		bond = wb_escape(bond_text, sizeof(bond_text), bond);
	if (uplink)
		uplink = wb_escape(uplink_text, sizeof(uplink_text), uplink);
#if WB_HAVE_SYSTEMD
	/* Fields a reader can filter on: journalctl BOND=home UPLINK=lte. */
	if (sink == LOG_TO_JOURNAL) {
		sd_journal_send("MESSAGE=%s%s%s%s%s", bond ? bond : "", uplink ? "/" : "", uplink ? uplink : "",
				bond ? ": " : "", msg, "PRIORITY=%d", level, "BOND=%s", bond ? bond : "",
				"UPLINK=%s", uplink ? uplink : "", NULL);
		return;
	}
#endif
	if (sink == LOG_TO_SYSLOG) {
		syslog(level, "%s%s%s%s%s", bond ? bond : "", uplink ? "/" : "", uplink ? uplink : "", bond ? ": " : "",
		       msg);
		return;
	}
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
