// SPDX-License-Identifier: MIT
/*
 * A client's uplink slots (uplinks.h). A slot is set up by slot_fill and
 * cleared by slot_clear, whoever asks: the start, a reload, the control
 * socket. Opening and closing its socket follows its interface, as
 * rtnetlink reports it, and the operator's enable and disable.
 */
#include "uplinks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#include "daemon.h"

#define REOPEN_INTERVAL_NS (5ULL * 1000000000ULL)

static struct wb_bond *client_bond(const struct daemon *d)
{
	return d->bonds[0].bond;
}

static bool is_client(const struct daemon *d)
{
	return d->cfg.role == WB_ROLE_CLIENT;
}

static struct uplink_slot *slot_of(struct daemon *d, unsigned i)
{
	return is_client(d) && i < (unsigned)d->n_uplinks && d->uplinks[i].in_use ? &d->uplinks[i] : NULL;
}

const struct uplink_slot *uplinks_slot(const struct daemon *d, unsigned i)
{
	return slot_of((struct daemon *)d, i);
}

/* ---- the socket ------------------------------------------------------------------------ */

/* What keeps an open uplink out of use, in the words of its state's reason; NULL: nothing. */
static const char *kept_out(const struct uplink_slot *s)
{
	if (s->disabled)
		return "disabled by the operator";
	if (s->iface_down)
		return "interface down (the network manager's ifdown)";
	return NULL;
}

static int open_socket(struct daemon *d, unsigned i, uint64_t now)
{
	struct uplink_slot *s = &d->uplinks[i];
	char what[sizeof(s->sock.why)];
	int rc;

	rc = udp_open_uplink(&s->sock.udp, s->conf, d->cfg.server.ss_family, what, sizeof(what));
	if (rc) {
		/* Said once per reason, not at every retry. */
		if (strcmp(what, s->sock.why))
			log_line(LOG_LVL_WARNING, d->cfg.name, s->conf->name, "%s; the uplink stays down until it can open",
				 what);
		snprintf(s->sock.why, sizeof(s->sock.why), "%s", what);
		return rc;
	}
	rc = daemon_watch_socket(d, &s->sock);
	if (rc) {
		udp_close(&s->sock.udp);
		return rc;
	}
	s->sock.open = true;
	s->sock.why[0] = 0;
	log_line(LOG_LVL_INFO, d->cfg.name, s->conf->name, "socket open");
	wb_bond_set_uplink_available(client_bond(d), i, !kept_out(s), now, kept_out(s));
	return 0;
}

/* Opens it, or tries again later (its interface or address may come). */
static void open_or_retry(struct daemon *d, unsigned i, uint64_t now)
{
	if (open_socket(d, i, now) && d->next_reopen_ns > now + REOPEN_INTERVAL_NS)
		d->next_reopen_ns = now + REOPEN_INTERVAL_NS;
}

/* Takes it out of use at once: its interface went down, its address changed, or it is removed. */
static void close_socket(struct daemon *d, unsigned i, const char *why, uint64_t now)
{
	struct uplink_slot *s = &d->uplinks[i];

	if (!s->sock.open)
		return;
	daemon_unwatch_socket(d, &s->sock);
	udp_close(&s->sock.udp);
	s->sock.open = false;
	snprintf(s->sock.why, sizeof(s->sock.why), "%s", why);
	wb_bond_set_uplink_available(client_bond(d), i, false, now, why);
}

void uplinks_reopen(struct daemon *d, uint64_t now)
{
	if (!is_client(d) || now < d->next_reopen_ns)
		return;
	d->next_reopen_ns = UINT64_MAX;
	for (unsigned i = 0; i < (unsigned)d->n_uplinks; i++) {
		const struct uplink_slot *s = &d->uplinks[i];

		if (s->in_use && !s->sock.open && !s->link_down)
			open_or_retry(d, i, now);
	}
}

/* The operator's switch or the interface's state changed: an open uplink is given to the bond, or kept out, saying why. */
static void apply_kept_out(struct daemon *d, unsigned i, const struct uplink_slot *s, uint64_t now)
{
	if (s->sock.open)
		wb_bond_set_uplink_available(client_bond(d), i, !kept_out(s), now, kept_out(s));
}

void uplinks_enable(struct daemon *d, unsigned i, bool enabled, uint64_t now)
{
	struct uplink_slot *s = slot_of(d, i);

	if (!s || s->disabled == !enabled)
		return;
	s->disabled = !enabled;
	apply_kept_out(d, i, s, now);
}

void uplinks_set_iface_up(struct daemon *d, unsigned i, bool up, uint64_t now)
{
	struct uplink_slot *s = slot_of(d, i);

	if (!s || s->iface_down == !up)
		return;
	s->iface_down = !up;
	apply_kept_out(d, i, s, now);
}

void uplinks_set_role(struct daemon *d, unsigned i, bool backup, uint32_t weight)
{
	struct uplink_slot *s = slot_of(d, i);

	if (!s)
		return;
	s->conf->backup = backup;
	s->conf->weight = weight;
	wb_bond_set_uplink_role(client_bond(d), i, backup, (uint16_t)weight);
}

/* ---- the policy rule ------------------------------------------------------------------------- */

/* The uplink's policy rule, IPv4 and IPv6: added or removed. 0 or the first error (said). */
static int policy_rule(struct daemon *d, const struct wb_conf_uplink *u, bool add)
{
	static const int families[] = { AF_INET, AF_INET6 };
	int rc = 0;

	if (add && (u->fwmark & WB_MWAN3_MARK_MASK))
		log_line(LOG_LVL_WARNING, d->cfg.name, u->name,
			 "fwmark 0x%x overlaps mwan3's mark mask 0x%x: with mwan3 on this router, pick a mark outside it",
			 u->fwmark, WB_MWAN3_MARK_MASK);
	for (int f = 0; f < 2; f++) {
		int err = add ? wb_rtnl_rule_add(d->rtnl, families[f], u->fwmark, u->table, u->rule_priority)
			      : wb_rtnl_rule_del(d->rtnl, families[f], u->fwmark, u->table, u->rule_priority);

		if (err && add && !rc) {
			log_line(LOG_LVL_ERR, d->cfg.name, u->name, "policy rule fwmark 0x%x table %u priority %u: %s%s%s",
				 u->fwmark, u->table, u->rule_priority, strerror(-err), *wb_rtnl_error(d->rtnl) ? ": " : "",
				 wb_rtnl_error(d->rtnl));
			rc = err;
		}
	}
	if (add && !rc)
		log_line(LOG_LVL_INFO, d->cfg.name, u->name, "policy rule: fwmark 0x%x lookup %u, priority %u", u->fwmark,
			 u->table, u->rule_priority);
	return rc;
}

/* ---- setting a slot up and clearing it ------------------------------------------------------- */

/* Slot i takes uplink up: its interface looked up, its rule added. 0, or the rule's error (said). */
static int slot_fill(struct daemon *d, unsigned i, const struct wb_conf_uplink *up)
{
	struct uplink_slot *s = &d->uplinks[i];
	uint32_t mtu;

	/* The running configuration is the daemon's record of its uplinks: what a reload and an add compare with. */
	if (up != &d->cfg.uplinks[i])
		d->cfg.uplinks[i] = *up;
	if ((int)i >= d->cfg.n_uplinks)
		d->cfg.n_uplinks = (int)i + 1;
	s->conf = &d->cfg.uplinks[i];
	s->in_use = true;
	s->disabled = false;
	s->link_down = false;
	s->iface_down = false;
	s->sock.uplink = s->conf->name;
	s->sock.why[0] = 0;
	s->sock.error_limit = (struct log_limit){ 0 };
	if (!up->interface[0] || wb_rtnl_link_get(d->rtnl, up->interface, &s->ifindex, &mtu))
		s->ifindex = 0; /* none, or not there yet: its link event will tell */
	return up->table ? policy_rule(d, s->conf, true) : 0;
}

/* Slot i is free again: socket closed, rule removed, the library's uplink gone. Its buffers stay. */
static void slot_clear(struct daemon *d, unsigned i, const char *why, uint64_t now)
{
	struct uplink_slot *s = &d->uplinks[i];

	close_socket(d, i, why, now);
	if (s->conf->table)
		policy_rule(d, s->conf, false);
	memset(s->conf, 0, sizeof(*s->conf)); /* a free slot has no name */
	s->in_use = false;
	s->ifindex = 0;
	s->sock.uplink = NULL;
}

/* Socket buffers for every slot up to i (the ones in between stay free). */
static int grow_slots(struct daemon *d, unsigned i)
{
	uint32_t size = daemon_datagram_size(d);

	for (; (unsigned)d->n_uplinks <= i; d->n_uplinks++) {
		struct uplink_slot *s = &d->uplinks[d->n_uplinks];
		int rc;

		*s = (struct uplink_slot){ .sock.d = d };
		rc = udp_init(&s->sock.udp, (unsigned)d->n_uplinks, size);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- interfaces ------------------------------------------------------------------------------ */

/*
 * An uplink's interface changed: down or gone, the uplink is out of use at
 * once (the probes would take a second); up, or new, its socket opens and
 * probing brings it back.
 */
static void on_link_event(void *ctx, const struct rtnl_link_event *ev)
{
	struct daemon *d = ctx;
	uint64_t now = loop_now();
	char why[96];

	for (unsigned i = 0; i < (unsigned)d->n_uplinks; i++) {
		struct uplink_slot *s = &d->uplinks[i];

		if (!s->in_use || strcmp(s->conf->interface, ev->ifname))
			continue;
		s->ifindex = ev->removed ? 0 : ev->ifindex;
		s->link_down = !ev->up;
		if ((!ev->up || ev->removed) && s->sock.open) {
			snprintf(why, sizeof(why), "interface %s %s", ev->ifname, ev->removed ? "removed" : "down");
			log_line(LOG_LVL_NOTICE, d->cfg.name, s->conf->name, "%s: out of use", why);
			close_socket(d, i, why, now);
		} else if (ev->up && !s->sock.open) {
			log_line(LOG_LVL_NOTICE, d->cfg.name, s->conf->name, "interface %s up: opening", ev->ifname);
			open_socket(d, i, now);
		}
	}
}

/* An address came or went on an uplink's interface: its socket is bound again, then probed. */
static void on_addr_event(void *ctx, const struct rtnl_addr_event *ev)
{
	struct daemon *d = ctx;
	uint64_t now = loop_now();

	for (unsigned i = 0; i < (unsigned)d->n_uplinks; i++) {
		struct uplink_slot *s = &d->uplinks[i];

		/* A link going down drops its IPv6 addresses too: that is the link's event, not a new address. */
		if (!s->in_use || !s->ifindex || s->ifindex != ev->ifindex || s->link_down)
			continue;
		log_line(LOG_LVL_NOTICE, d->cfg.name, s->conf->name, "address %s on %s: binding the socket again",
			 ev->removed ? "removed" : "added", s->conf->interface);
		close_socket(d, i, "binding again after an address change", now);
		open_or_retry(d, i, now); /* e.g. its source address went away */
	}
}

static const struct rtnl_events_ops interface_events = { .link = on_link_event, .addr = on_addr_event };

static int follow_interfaces(struct daemon *d)
{
	int rc = rtnl_events_open(&d->events, &interface_events, d);

	if (!rc)
		rc = loop_add(&d->loop, &d->events.lfd, EPOLLIN);
	if (rc)
		log_line(LOG_LVL_ERR, d->cfg.name, NULL, "cannot follow the interfaces (rtnetlink): %s", strerror(-rc));
	return rc;
}

/* ---- start and stop -------------------------------------------------------------------------- */

int uplinks_start(struct daemon *d)
{
	int rc = d->cfg.n_uplinks ? grow_slots(d, (unsigned)d->cfg.n_uplinks - 1) : 0;

	for (int i = 0; !rc && i < d->cfg.n_uplinks; i++)
		rc = slot_fill(d, (unsigned)i, &d->cfg.uplinks[i]);
	if (!rc)
		rc = follow_interfaces(d);
	d->next_reopen_ns = 0; /* opened by the first pass of the loop, the bond in place */
	return rc;
}

void uplinks_stop(struct daemon *d)
{
	for (int i = 0; i < d->n_uplinks; i++) {
		struct uplink_slot *s = &d->uplinks[i];

		if (s->in_use && s->conf->table)
			policy_rule(d, s->conf, false);
		udp_free(&s->sock.udp);
	}
	if (d->events.nl) {
		loop_del(&d->loop, &d->events.lfd);
		rtnl_events_close(&d->events);
	}
}

/* ---- at run time ----------------------------------------------------------------------------- */

int uplinks_add(struct daemon *d, const struct wb_conf_uplink *up, char *err, size_t errlen)
{
	struct wb_uplink_params p = { .backup = up->backup, .weight = (uint16_t)up->weight };
	uint64_t now = loop_now();
	int slot;

	if (!is_client(d))
		return snprintf(err, errlen, "a server learns its uplinks from its clients"), -EPERM;
	snprintf(p.name, sizeof(p.name), "%s", up->name);
	slot = wb_bond_add_uplink(client_bond(d), &p, now);
	if (slot < 0) {
		snprintf(err, errlen, slot == -EEXIST   ? "an uplink is named '%s' already"
				      : slot == -ENOSPC ? "no room for '%s': %d uplinks at most"
							: "cannot add '%s'",
			 up->name, WB_MAX_UPLINKS);
		return slot;
	}
	if (grow_slots(d, (unsigned)slot)) {
		wb_bond_remove_uplink(client_bond(d), (unsigned)slot, now);
		return snprintf(err, errlen, "no memory for its socket"), -ENOMEM;
	}
	if (slot_fill(d, (unsigned)slot, up))
		log_line(LOG_LVL_WARNING, d->cfg.name, up->name, "its policy rule could not be added: it goes without");
	log_line(LOG_LVL_NOTICE, d->cfg.name, up->name, "added at run time%s%s", up->interface[0] ? " on " : "",
		 up->interface);
	open_or_retry(d, (unsigned)slot, now);
	return 0;
}

int uplinks_remove(struct daemon *d, unsigned i, char *err, size_t errlen)
{
	uint64_t now = loop_now();

	if (!is_client(d))
		return snprintf(err, errlen, "a server's uplinks are its clients'"), -EPERM;
	if (!slot_of(d, i))
		return snprintf(err, errlen, "no such uplink"), -ENOENT;
	log_line(LOG_LVL_NOTICE, d->cfg.name, d->uplinks[i].conf->name, "removed at run time");
	slot_clear(d, i, "removed", now);
	wb_bond_remove_uplink(client_bond(d), i, now);
	return 0;
}

/* ---- reloading ------------------------------------------------------------------------------- */

static int running_uplink(const struct daemon *d, const char *name)
{
	for (int i = 0; i < d->n_uplinks; i++)
		if (d->uplinks[i].in_use && !strcmp(d->uplinks[i].conf->name, name))
			return i;
	return -1;
}

static const struct wb_conf_uplink *file_uplink(const struct wb_config *c, const char *name)
{
	for (int i = 0; i < c->n_uplinks; i++)
		if (!strcmp(c->uplinks[i].name, name))
			return &c->uplinks[i];
	return NULL;
}

static bool same_binding(const struct wb_conf_uplink *a, const struct wb_conf_uplink *b)
{
	return !strcmp(a->interface, b->interface) && !memcmp(&a->source, &b->source, sizeof(a->source)) &&
	       a->fwmark == b->fwmark && a->table == b->table && a->rule_priority == b->rule_priority;
}

/* A reload's change of one uplink, as the CLI's would be; false (and said why) if it failed. */
static bool reload_add(struct daemon *d, const struct wb_conf_uplink *up)
{
	char err[160];

	if (!uplinks_add(d, up, err, sizeof(err)))
		return true;
	log_line(LOG_LVL_ERR, d->cfg.name, up->name, "reload: cannot add it: %s", err);
	return false;
}

static bool reload_remove(struct daemon *d, unsigned i)
{
	char name[WB_UPLINK_NAME_MAX + 1], err[160];

	snprintf(name, sizeof(name), "%s", d->uplinks[i].conf->name);
	if (!uplinks_remove(d, i, err, sizeof(err)))
		return true;
	log_line(LOG_LVL_ERR, d->cfg.name, name, "reload: cannot remove it: %s", err);
	return false;
}

int uplinks_reload(struct daemon *d, const struct wb_config *next)
{
	int failed = 0;

	for (unsigned i = 0; i < (unsigned)d->n_uplinks; i++) {
		const struct wb_conf_uplink *cur = d->uplinks[i].conf, *nu;

		if (!d->uplinks[i].in_use)
			continue;
		nu = file_uplink(next, cur->name);
		if (!nu || !same_binding(nu, cur)) {
			log_line(LOG_LVL_NOTICE, d->cfg.name, cur->name, "reload: %s", nu ? "bound otherwise: again" : "removed");
			failed += !reload_remove(d, i);
			if (nu)
				failed += !reload_add(d, nu);
			continue;
		}
		if (nu->backup != cur->backup || nu->weight != cur->weight) {
			uplinks_set_role(d, i, nu->backup, nu->weight);
			log_line(LOG_LVL_NOTICE, d->cfg.name, cur->name, "reload: %s, weight %u", cur->backup ? "backup" : "active",
				 cur->weight);
		}
	}
	for (int i = 0; i < next->n_uplinks; i++)
		if (running_uplink(d, next->uplinks[i].name) < 0) {
			log_line(LOG_LVL_NOTICE, d->cfg.name, next->uplinks[i].name, "reload: new");
			failed += !reload_add(d, &next->uplinks[i]);
		}
	return failed;
}
