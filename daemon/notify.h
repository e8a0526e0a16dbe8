/* SPDX-License-Identifier: MIT */
/*
 * Notifications to the service manager (systemd's sd_notify protocol): when
 * the daemon is ready, reloading or stopping, a one-line status, and the
 * watchdog's keep-alive. Built with libsystemd (WB_HAVE_SYSTEMD=1) it calls
 * sd_notify; without (OpenWrt), it sends the same datagrams itself to
 * $NOTIFY_SOCKET. Without NOTIFY_SOCKET (started by hand, by procd) every
 * call does nothing.
 *
 * After a reload the daemon sends notify_ready again: systemd keeps the unit
 * "reloading" until it does.
 */
#ifndef WB_NOTIFY_H
#define WB_NOTIFY_H

#include <stdint.h>

/* Reads NOTIFY_SOCKET and WATCHDOG_USEC once; returns the watchdog interval in ns (0 if none). Never unsets NOTIFY_SOCKET. */
uint64_t notify_init(void);

/*
 * Sends "READY=1\nSTATUS=..."; "RELOADING=1\nMONOTONIC_USEC=..." ; "STOPPING=1";
 * "STATUS=<text>"; "WATCHDOG=1". Each is a no-op without NOTIFY_SOCKET; errors are
 * logged once (log_line at warning) and otherwise ignored.
 */
void notify_ready(const char *status);
void notify_reloading(uint64_t monotonic_usec);
void notify_stopping(void);
void notify_status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void notify_watchdog(void);

#endif
