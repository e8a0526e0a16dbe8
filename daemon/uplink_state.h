/* SPDX-License-Identifier: MIT */
/*
 * A client uplink slot's life, with no system call: each event changes the
 * slot's state and returns what to do, which uplinks.c carries out (the
 * socket, the library). Where its socket is, as one phase:
 *
 *   phase      event              next       what to do
 *   FREE       added              WAITING    (opened by the next try)
 *   WAITING    time to try        WAITING    open: OPEN if it did, else tried again in 5 s
 *   WAITING    link up, address   WAITING    open, the same way
 *   WAITING    link down          LINK_DOWN  nothing: no more tries until it comes up
 *   OPEN       link down          LINK_DOWN  close; the library: out ("interface wan2 down")
 *   OPEN       address changed    WAITING    close; the library: out; open again
 *   LINK_DOWN  link up            WAITING    open
 *   any        removed            FREE       close if open; the library: out ("removed")
 *
 * Beside it, two holds keep an uplink out of the bond's use without
 * closing its socket: the operator's switch and the network manager's
 * ifdown (OpenWrt's hotplug). Each is lifted only by its own, so an ifup
 * never gives back what the operator took, and the link's events touch
 * neither: an ifdown uplink whose link flaps stays out until its ifup.
 * When a socket opens, or a hold changes while it is open, the library is
 * told whether it may use the uplink, and the hold's reason if not.
 */
#ifndef WB_DAEMON_UPLINK_STATE_H
#define WB_DAEMON_UPLINK_STATE_H

#include <stdbool.h>

enum uplink_phase {
	UPLINK_FREE,      /* no uplink in the slot */
	UPLINK_WAITING,   /* in use, its socket not open: opened now or at the next retry (an interface or address may come) */
	UPLINK_LINK_DOWN, /* its interface is down or gone (rtnetlink): waits for it to come up */
	UPLINK_OPEN,      /* its socket is open */
};

struct uplink_state {
	enum uplink_phase phase;
	bool off_by_operator;  /* enabled false (the control socket) */
	bool down_by_manager;  /* the network manager's ifdown (hotplug, through the control socket) */
	char why[128];         /* why its socket is not open ("" before a first try); the status shows it */
};

/* What to do after an event, in this order. */
struct uplink_action {
	bool close;       /* close the socket */
	bool tell;        /* tell the library whether it may use the uplink, */
	bool available;   /* this, */
	const char *why;  /* and what keeps it out (NULL when available) */
	bool open;        /* try to open the socket, then report: uplink_state_opened or _open_failed */
	bool retry;       /* try again at the next retry */
	bool say;         /* a failure's reason is new: say it (once per reason, not at every retry) */
};

/* The phase's name, for logs and tests. */
const char *uplink_phase_name(enum uplink_phase phase);

/* A free slot takes an uplink: WAITING, no hold, nothing to say yet. */
void uplink_state_add(struct uplink_state *s);
/* It goes: the socket closed, the library told "removed"; the slot is free. */
struct uplink_action uplink_state_remove(struct uplink_state *s);

/* Time to try (at start, a run-time add, the retry): open it if it waits. */
struct uplink_action uplink_state_try_open(const struct uplink_state *s);
/* The socket opened: the library may use it unless a hold keeps it out. */
struct uplink_action uplink_state_opened(struct uplink_state *s);
/* It did not open, for what (udp_open_uplink's words): retried later. */
struct uplink_action uplink_state_open_failed(struct uplink_state *s, const char *what);

/* rtnetlink: the interface went down or away (why: "interface wan2 down"), or came up. */
struct uplink_action uplink_state_link_down(struct uplink_state *s, const char *why);
struct uplink_action uplink_state_link_up(struct uplink_state *s);
/* rtnetlink: an address came or went on its interface: its socket is bound again. */
struct uplink_action uplink_state_address_changed(struct uplink_state *s);

/* The operator's switch (control socket: enabled). */
struct uplink_action uplink_state_set_enabled(struct uplink_state *s, bool enabled);
/* The network manager's ifup (true) or ifdown (false). */
struct uplink_action uplink_state_set_iface_up(struct uplink_state *s, bool up);

/* What keeps it out of use although its socket may be open, in its state's reason's words; NULL: nothing. */
const char *uplink_state_kept_out(const struct uplink_state *s);

#endif
