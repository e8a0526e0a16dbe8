// SPDX-License-Identifier: MIT
/*
 * Every timer of the daemon, declared once: when it is due and what it
 * does. Before each wait the loop runs those due (daemon_timers_run) and
 * sleeps until the earliest (daemon_timers_due), both from the same table,
 * so a timer cannot be run and forgotten by the wake-up, nor the other
 * way round; a new one is an entry here. The protocol's own timers are one
 * entry: the library declares them (lib/bond_timers.c).
 */
#include "daemon.h"
#include "notify.h"
#include "nsec.h"

struct daemon_timer {
	const char *name;
	uint64_t (*due)(struct daemon *d); /* UINT64_MAX: not armed */
	void (*fire)(struct daemon *d, uint64_t now);
};

/* The library's timers, all its bonds'. */
static uint64_t protocol_due(struct daemon *d)
{
	return wb_device_next_deadline(d->dev);
}

static void protocol_fire(struct daemon *d, uint64_t now)
{
	wb_device_tick(d->dev, now);
}

/* Client: sockets of uplinks whose interface or address came late (uplinks.c). */
static uint64_t uplink_sockets_due(struct daemon *d)
{
	return uplinks_next_due(&d->uplinks);
}

static void uplink_sockets_fire(struct daemon *d, uint64_t now)
{
	uplinks_reopen(&d->uplinks, now);
}

/* A timer each bond's control socket has: the earliest due of them all. */
static uint64_t control_due(struct daemon *d, uint64_t (*due)(const struct ctl_server *srv))
{
	uint64_t earliest = UINT64_MAX;

	for (int i = 0; i < d->n_bonds; i++)
		earliest = wb_min_u64(earliest, due(&d->bonds[i].ctl));
	return earliest;
}

/* ... and its action, on each control socket whose due has come. */
static void control_fire(struct daemon *d, uint64_t now, uint64_t (*due)(const struct ctl_server *srv),
			 void (*fire)(struct ctl_server *srv, uint64_t now))
{
	for (int i = 0; i < d->n_bonds; i++)
		if (due(&d->bonds[i].ctl) <= now)
			fire(&d->bonds[i].ctl, now);
}

/* Each bond's control socket: a burst of events held back for a second is told. */
static uint64_t control_bursts_due(struct daemon *d)
{
	return control_due(d, ctl_bursts_due);
}

static void control_bursts_fire(struct daemon *d, uint64_t now)
{
	control_fire(d, now, ctl_bursts_due, ctl_tell_bursts);
}

/* Each bond's control socket: a client that sent nothing for too long is closed. */
static uint64_t control_idle_due(struct daemon *d)
{
	return control_due(d, ctl_idle_due);
}

static void control_idle_fire(struct daemon *d, uint64_t now)
{
	control_fire(d, now, ctl_idle_due, ctl_close_idle);
}

/* The TUN devices' MTU, where it follows the uplinks and the peers' outer family. */
static uint64_t mtu_check_due(struct daemon *d)
{
	for (int i = 0; i < d->n_bonds; i++)
		if (d->bonds[i].bond && d->bonds[i].mtu_auto)
			return d->next_mtu_check_ns;
	return UINT64_MAX;
}

/* The service manager's STATUS= line. */
static uint64_t status_due(struct daemon *d)
{
	return d->next_status_ns;
}

/* The service manager's watchdog: twice per interval, as sd_watchdog_enabled(3) advises. */
static uint64_t watchdog_due(struct daemon *d)
{
	return d->watchdog_ns ? d->next_watchdog_ns : UINT64_MAX;
}

static void watchdog_fire(struct daemon *d, uint64_t now)
{
	notify_watchdog();
	d->next_watchdog_ns = now + d->watchdog_ns / 2;
}

static const struct daemon_timer timers[] = {
	{ "uplink sockets", uplink_sockets_due, uplink_sockets_fire },
	{ "protocol", protocol_due, protocol_fire },
	{ "control bursts", control_bursts_due, control_bursts_fire },
	{ "control idle", control_idle_due, control_idle_fire },
	{ "mtu check", mtu_check_due, daemon_fit_mtus },
	{ "status", status_due, daemon_send_status },
	{ "watchdog", watchdog_due, watchdog_fire },
};

#define N_TIMERS (sizeof(timers) / sizeof(timers[0]))

void daemon_timers_run(struct daemon *d, uint64_t now)
{
	for (size_t i = 0; i < N_TIMERS; i++)
		if (timers[i].due(d) <= now)
			timers[i].fire(d, now);
}

uint64_t daemon_timers_due(struct daemon *d)
{
	uint64_t due = UINT64_MAX;

	for (size_t i = 0; i < N_TIMERS; i++)
		due = wb_min_u64(due, timers[i].due(d));
	return due;
}
