// SPDX-License-Identifier: MIT
/*
 * A client uplink slot's state machine (uplink_state.h): every change of a
 * slot's phase and holds is here, and returns what uplinks.c is to do.
 */
#include "uplink_state.h"

#include <stdio.h>
#include <string.h>

static const struct uplink_action nothing;

const char *uplink_phase_name(enum uplink_phase phase)
{
	static const char *const names[] = {
		[UPLINK_FREE] = "free", [UPLINK_WAITING] = "waiting", [UPLINK_LINK_DOWN] = "link down", [UPLINK_OPEN] = "open",
	};

	return (unsigned)phase < sizeof(names) / sizeof(names[0]) ? names[phase] : "?";
}

const char *uplink_state_kept_out(const struct uplink_state *s)
{
	if (s->off_by_operator)
		return "disabled by the operator";
	if (s->down_by_manager)
		return "interface down (the network manager's ifdown)";
	return NULL;
}

/* The library's view of an open uplink: in use, or kept out by a hold, saying which. */
static struct uplink_action tell_holds(const struct uplink_state *s)
{
	return (struct uplink_action){ .tell = true, .available = !uplink_state_kept_out(s), .why = uplink_state_kept_out(s) };
}

/* An open socket closes, for why: out of the library's use at once, the probes would take a second. */
static struct uplink_action close_open(struct uplink_state *s, enum uplink_phase next, const char *why)
{
	snprintf(s->why, sizeof(s->why), "%s", why);
	s->phase = next;
	return (struct uplink_action){ .close = true, .tell = true, .available = false, .why = s->why };
}

void uplink_state_add(struct uplink_state *s)
{
	*s = (struct uplink_state){ .phase = UPLINK_WAITING };
}

struct uplink_action uplink_state_remove(struct uplink_state *s)
{
	struct uplink_action a = nothing;

	if (s->phase == UPLINK_OPEN)
		a = close_open(s, UPLINK_FREE, "removed");
	s->phase = UPLINK_FREE;
	s->off_by_operator = s->down_by_manager = false;
	return a;
}

struct uplink_action uplink_state_try_open(const struct uplink_state *s)
{
	return (struct uplink_action){ .open = s->phase == UPLINK_WAITING };
}

struct uplink_action uplink_state_opened(struct uplink_state *s)
{
	s->phase = UPLINK_OPEN;
	s->why[0] = 0;
	return tell_holds(s);
}

struct uplink_action uplink_state_open_failed(struct uplink_state *s, const char *what)
{
	struct uplink_action a = { .retry = true, .say = strcmp(what, s->why) != 0 };

	snprintf(s->why, sizeof(s->why), "%s", what);
	return a;
}

struct uplink_action uplink_state_link_down(struct uplink_state *s, const char *why)
{
	switch (s->phase) {
	case UPLINK_OPEN:
		return close_open(s, UPLINK_LINK_DOWN, why);
	case UPLINK_WAITING:
		s->phase = UPLINK_LINK_DOWN; /* no retry until it comes up: its why stays the last failure's */
		return nothing;
	default:
		return nothing;
	}
}

struct uplink_action uplink_state_link_up(struct uplink_state *s)
{
	if (s->phase != UPLINK_WAITING && s->phase != UPLINK_LINK_DOWN)
		return nothing;
	s->phase = UPLINK_WAITING;
	return uplink_state_try_open(s);
}

struct uplink_action uplink_state_address_changed(struct uplink_state *s)
{
	struct uplink_action a = nothing;

	/* A link going down drops its IPv6 addresses too: that is the link's event, not a new address. */
	if (s->phase == UPLINK_FREE || s->phase == UPLINK_LINK_DOWN)
		return nothing;
	if (s->phase == UPLINK_OPEN)
		a = close_open(s, UPLINK_WAITING, "binding again after an address change");
	a.open = true; /* e.g. its source address went away: then it waits for the next */
	return a;
}

/* A hold changed: an open uplink is given back to the library or kept out, saying why. */
static struct uplink_action holds_changed(const struct uplink_state *s)
{
	return s->phase == UPLINK_OPEN ? tell_holds(s) : nothing;
}

struct uplink_action uplink_state_set_enabled(struct uplink_state *s, bool enabled)
{
	if (s->phase == UPLINK_FREE || s->off_by_operator == !enabled)
		return nothing;
	s->off_by_operator = !enabled;
	return holds_changed(s);
}

struct uplink_action uplink_state_set_iface_up(struct uplink_state *s, bool up)
{
	if (s->phase == UPLINK_FREE || s->down_by_manager == !up)
		return nothing;
	s->down_by_manager = !up;
	return holds_changed(s);
}
