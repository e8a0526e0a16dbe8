// SPDX-License-Identifier: MIT
/*
 * The monitor's events (docs/control.md, "Monitor"): the library tells the
 * daemon what changed as it happens (wb_event), and this turns each into
 * the control family's event message for the bond's monitors. Bursts are
 * held to one message a second, with the count of what came meanwhile.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ctl.h"
#include "daemon.h"
#include "nsec.h"

#define BURST_INTERVAL_NS WB_NSEC_PER_SEC

static void tell(struct ctl_server *srv, enum wb_ctl_event type, const char *uplink, uint64_t count, const char *text)
{
	char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh = wb_ctl_msg_start(buf, WB_CTL_CMD_EVENT, 0, 0);
	struct nlattr *nest;

	mnl_attr_put_strz(nlh, WB_CTL_A_BOND_NAME, srv->bc->conf->name);
	nest = mnl_attr_nest_start(nlh, WB_CTL_A_EVENT);
	mnl_attr_put_u32(nlh, WB_CTL_E_TYPE, type);
	if (uplink)
		mnl_attr_put_strz(nlh, WB_CTL_E_UPLINK, uplink);
	if (count)
		mnl_attr_put_u64(nlh, WB_CTL_E_COUNT, count);
	if (text && *text)
		mnl_attr_put_strz(nlh, WB_CTL_E_TEXT, text);
	mnl_attr_nest_end(nlh, nest);
	ctl_broadcast(srv, nlh);
}

/* Tells every burst that built up, and holds the next ones for a second. */
void ctl_tell_bursts(struct ctl_server *srv, uint64_t now)
{
	uint64_t *n = srv->bursts.pending;
	char text[64];

	if (n[CTL_BURST_REINJECTION]) {
		snprintf(text, sizeof(text), "%" PRIu64 " packets copied in all",
			 wb_bond_counters(srv->bc->bond)->opp_reinject);
		tell(srv, WB_CTL_EV_REINJECTION, NULL, n[CTL_BURST_REINJECTION], text);
	}
	if (n[CTL_BURST_PENALTY])
		tell(srv, WB_CTL_EV_PENALTY, NULL, n[CTL_BURST_PENALTY], NULL);
	if (n[CTL_BURST_REORDER_SKIP])
		tell(srv, WB_CTL_EV_REORDER_SKIP, NULL, n[CTL_BURST_REORDER_SKIP], NULL);
	srv->bursts = (struct ctl_bursts){ .due_ns = now + BURST_INTERVAL_NS };
}

static void burst(struct ctl_server *srv, unsigned kind, uint64_t count, uint64_t now)
{
	srv->bursts.pending[kind] += count;
	if (now >= srv->bursts.due_ns)
		ctl_tell_bursts(srv, now);
}

static void tell_state(struct ctl_server *srv, const struct wb_event *ev)
{
	static const enum wb_ctl_event by_state[] = {
		[WB_UPLINK_DOWN] = WB_CTL_EV_UPLINK_DOWN,
		[WB_UPLINK_UP] = WB_CTL_EV_UPLINK_UP,
		[WB_UPLINK_STALE] = WB_CTL_EV_UPLINK_STALE,
	};

	/* The step into probing is not told: an operator cares whether it carries traffic. */
	if (ev->to != WB_UPLINK_PROBING)
		tell(srv, by_state[ev->to], ev->uplink, 0, ev->text);
}

static void tell_restart(struct ctl_server *srv)
{
	char text[96];

	snprintf(text, sizeof(text), "the reliable layer started over; %" PRIu64 " packets given up in all",
		 wb_bond_counters(srv->bc->bond)->restart_drops);
	tell(srv, WB_CTL_EV_PEER_RESTART, NULL, 1, text);
}

void ctl_on_event(struct ctl_server *srv, const struct wb_event *ev, uint64_t now)
{
	if (!srv->bc || !srv->monitors)
		return; /* nobody listens: a monitor hears of changes from when it subscribed */
	switch (ev->type) {
	case WB_EVENT_UPLINK_STATE:
		tell_state(srv, ev);
		break;
	case WB_EVENT_ADDRESS_CHANGE:
		tell(srv, WB_CTL_EV_ADDRESS_CHANGE, ev->uplink, ev->count, ev->text);
		break;
	case WB_EVENT_SESSION:
		tell(srv, WB_CTL_EV_HANDSHAKE, NULL, 0, "new session keys");
		break;
	case WB_EVENT_SESSION_ENDED:
		tell(srv, WB_CTL_EV_SESSION_ENDED, NULL, 0, ev->text);
		break;
	case WB_EVENT_FAILOVER:
		tell(srv, WB_CTL_EV_FAILOVER, NULL, 0, ev->to_backup ? "to the backup uplinks" : "back to the active uplinks");
		break;
	case WB_EVENT_PEER_RESTART:
		tell_restart(srv);
		break;
	case WB_EVENT_REINJECTION:
		burst(srv, CTL_BURST_REINJECTION, 1, now);
		break;
	case WB_EVENT_PENALTY:
		burst(srv, CTL_BURST_PENALTY, 1, now);
		break;
	case WB_EVENT_REORDER_SKIP:
		burst(srv, CTL_BURST_REORDER_SKIP, ev->count, now);
		break;
	}
}

static bool bursts_wait(const struct ctl_bursts *b)
{
	for (unsigned k = 0; k < CTL_BURSTS; k++)
		if (b->pending[k])
			return true;
	return false;
}

uint64_t ctl_bursts_due(const struct ctl_server *srv)
{
	return srv->bc && bursts_wait(&srv->bursts) ? srv->bursts.due_ns : UINT64_MAX;
}

