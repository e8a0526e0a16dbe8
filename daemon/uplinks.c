// SPDX-License-Identifier: MIT
/*
 * A client's uplink slots (uplinks.h). A slot is set up by slot_fill and
 * cleared by slot_clear, whoever asks: the start, a reload, the control
 * socket. Its state changes in uplink_state.c only; what each change asks
 * for (the socket opened or closed, the library told) is carried out by
 * carry_out, so the socket follows its interface, as rtnetlink reports it,
 * and the library follows the operator's and the network manager's holds.
 */
#include "uplinks.h"
#include "nsec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>

#define REOPEN_INTERVAL_NS (5 * WB_NSEC_PER_SEC)

/* The daemon's name, that its log lines start with. */
static const char *own_name(const struct uplinks *u)
{
	return u->env.cfg->name;
}

static struct uplink_slot *slot_of(struct uplinks *u, unsigned i)
{
	return u->started && i < (unsigned)u->n_slots && u->slots[i].state.phase != UPLINK_FREE ? &u->slots[i] : NULL;
}

static const struct uplink_slot *slot_of_const(const struct uplinks *u, unsigned i)
{
	return slot_of((struct uplinks *)u, i);
}

/* ---- the socket ------------------------------------------------------------------------ */

static void carry_out(struct uplinks *u, unsigned i, struct uplink_action a, uint64_t now);

/* Opens it and watches it on the loop; 0, or -errno with what went wrong in what. */
static int open_socket(struct uplinks *u, struct uplink_slot *s, char *what, size_t whatlen)
{
	int rc = udp_open_uplink(&s->sock.udp, s->conf, u->env.cfg->server.ss_family, what, whatlen);

	if (rc)
		return rc;
	s->sock.udp.lfd.cb = u->env.on_readable;
	rc = loop_add(u->env.loop, &s->sock.udp.lfd, EPOLLIN);
	if (rc) {
		snprintf(what, whatlen, "cannot watch its socket: %s", strerror(-rc));
		udp_close(&s->sock.udp);
	}
	return rc;
}

/* Tries to open it, and tells the state how it went; a failure is tried again later. */
static void try_open(struct uplinks *u, unsigned i, uint64_t now)
{
	struct uplink_slot *s = &u->slots[i];
	char what[sizeof(s->state.why)];
	struct uplink_action a;

	if (open_socket(u, s, what, sizeof(what))) {
		a = uplink_state_open_failed(&s->state, what);
		if (a.say)
			log_line(LOG_LVL_WARNING, own_name(u), s->conf->name,
				 "%s; the uplink stays down until it can open", what);
		if (a.retry && u->next_reopen_ns > now + REOPEN_INTERVAL_NS)
			u->next_reopen_ns = now + REOPEN_INTERVAL_NS;
		return;
	}
	log_line(LOG_LVL_INFO, own_name(u), s->conf->name, "socket open");
	carry_out(u, i, uplink_state_opened(&s->state), now);
}

static void close_socket(struct uplinks *u, struct uplink_slot *s)
{
	loop_del(u->env.loop, &s->sock.udp.lfd);
	udp_close(&s->sock.udp);
}

/* What a change of slot i's state asks for, in its order: close, tell the library, open. */
static void carry_out(struct uplinks *u, unsigned i, struct uplink_action a, uint64_t now)
{
	if (a.close)
		close_socket(u, &u->slots[i]);
	if (a.tell)
		wb_bond_set_uplink_available(u->env.bond, i, a.available, now, a.why);
	if (a.open)
		try_open(u, i, now);
}

void uplinks_reopen(struct uplinks *u, uint64_t now)
{
	if (!u->started || now < u->next_reopen_ns)
		return;
	u->next_reopen_ns = UINT64_MAX;
	for (unsigned i = 0; i < (unsigned)u->n_slots; i++)
		carry_out(u, i, uplink_state_try_open(&u->slots[i].state), now);
}

uint64_t uplinks_next_due(const struct uplinks *u)
{
	return u->started ? u->next_reopen_ns : UINT64_MAX; /* a server has no uplinks of its own */
}

void uplinks_enable(struct uplinks *u, unsigned i, bool enabled, uint64_t now)
{
	struct uplink_slot *s = slot_of(u, i);

	if (s)
		carry_out(u, i, uplink_state_set_enabled(&s->state, enabled), now);
}

void uplinks_set_iface_up(struct uplinks *u, unsigned i, bool up, uint64_t now)
{
	struct uplink_slot *s = slot_of(u, i);

	if (s)
		carry_out(u, i, uplink_state_set_iface_up(&s->state, up), now);
}

void uplinks_set_role(struct uplinks *u, unsigned i, bool backup, uint32_t weight)
{
	struct uplink_slot *s = slot_of(u, i);

	if (!s)
		return;
	s->conf->backup = backup;
	s->conf->weight = weight;
	wb_bond_set_uplink_role(u->env.bond, i, backup, (uint16_t)weight);
}

/* ---- the packet path and the status ------------------------------------------------------------ */

struct udp_sock *uplinks_open_socket(struct uplinks *u, unsigned i)
{
	struct uplink_slot *s = slot_of(u, i);

	return s && s->state.phase == UPLINK_OPEN ? &s->sock.udp : NULL;
}

void uplinks_flush(struct uplinks *u)
{
	for (int i = 0; i < u->n_slots; i++)
		if (u->slots[i].sock.udp.tx_n)
			udp_flush(&u->slots[i].sock.udp);
}

bool uplinks_info(const struct uplinks *u, unsigned i, struct uplink_info *out)
{
	const struct uplink_slot *s = slot_of_const(u, i);

	if (!s)
		return false;
	*out = (struct uplink_info){
		.name = s->conf->name,
		.interface = s->conf->interface,
		.enabled = !s->state.off_by_operator,
		.iface_up = !s->state.down_by_manager,
		.socket_why = s->state.phase == UPLINK_OPEN ? NULL : s->state.why,
		.udp = &s->sock.udp,
	};
	return true;
}

/* ---- the policy rule ------------------------------------------------------------------------- */

/* The uplink's policy rule, IPv4 and IPv6: added or removed. 0 or the first error (said). */
static int policy_rule(struct uplinks *u, const struct wb_conf_uplink *c, bool add)
{
	static const int families[] = { AF_INET, AF_INET6 };
	struct wb_rtnl *rtnl = u->env.rtnl;
	int rc = 0;

	if (add && (c->fwmark & WB_MWAN3_MARK_MASK))
		log_line(LOG_LVL_WARNING, own_name(u), c->name,
			 "fwmark 0x%x overlaps mwan3's mark mask 0x%x: with mwan3 on this router, pick a mark outside it",
			 c->fwmark, WB_MWAN3_MARK_MASK);
	for (int f = 0; f < 2; f++) {
		int err = add ? wb_rtnl_rule_add(rtnl, families[f], c->fwmark, c->table, c->rule_priority)
			      : wb_rtnl_rule_del(rtnl, families[f], c->fwmark, c->table, c->rule_priority);

		if (err && add && !rc) {
			log_line(LOG_LVL_ERR, own_name(u), c->name, "policy rule fwmark 0x%x table %u priority %u: %s%s%s",
				 c->fwmark, c->table, c->rule_priority, strerror(-err), *wb_rtnl_error(rtnl) ? ": " : "",
				 wb_rtnl_error(rtnl));
			rc = err;
		}
	}
	if (add && !rc)
		log_line(LOG_LVL_INFO, own_name(u), c->name, "policy rule: fwmark 0x%x lookup %u, priority %u", c->fwmark,
			 c->table, c->rule_priority);
	return rc;
}

/* ---- setting a slot up and clearing it ------------------------------------------------------- */

/* Slot i takes uplink up: its interface looked up, its rule added. 0, or the rule's error (said). */
static int slot_fill(struct uplinks *u, unsigned i, const struct wb_conf_uplink *up)
{
	struct wb_config *cfg = u->env.cfg;
	struct uplink_slot *s = &u->slots[i];
	uint32_t mtu;

	/* The running configuration is the daemon's record of its uplinks: what a reload and an add compare with. */
	if (up != &cfg->uplinks[i])
		cfg->uplinks[i] = *up;
	if ((int)i >= cfg->n_uplinks)
		cfg->n_uplinks = (int)i + 1;
	s->conf = &cfg->uplinks[i];
	uplink_state_add(&s->state);
	s->sock.uplink = s->conf->name;
	s->sock.error_limit = (struct log_limit){ 0 };
	if (!up->interface[0] || wb_rtnl_link_get(u->env.rtnl, up->interface, &s->ifindex, &mtu))
		s->ifindex = 0; /* none, or not there yet: its link event will tell */
	return up->table ? policy_rule(u, s->conf, true) : 0;
}

/* Slot i is free again: socket closed, rule removed, the library's uplink gone. Its buffers stay. */
static void slot_clear(struct uplinks *u, unsigned i, uint64_t now)
{
	struct uplink_slot *s = &u->slots[i];

	carry_out(u, i, uplink_state_remove(&s->state), now);
	if (s->conf->table)
		policy_rule(u, s->conf, false);
	memset(s->conf, 0, sizeof(*s->conf)); /* a free slot has no name */
	s->ifindex = 0;
	s->sock.uplink = NULL;
}

/* Socket buffers for every slot up to i (the ones in between stay free). */
static int grow_slots(struct uplinks *u, unsigned i)
{
	for (; (unsigned)u->n_slots <= i; u->n_slots++) {
		struct uplink_slot *s = &u->slots[u->n_slots];
		int rc;

		*s = (struct uplink_slot){ .sock.owner = u->env.owner, .state.phase = UPLINK_FREE };
		rc = udp_init(&s->sock.udp, (unsigned)u->n_slots, u->env.datagram_size);
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
static void link_changed(struct uplinks *u, unsigned i, const struct rtnl_link_event *ev, uint64_t now)
{
	struct uplink_slot *s = &u->slots[i];
	struct uplink_action a;
	char why[96];

	s->ifindex = ev->removed ? 0 : ev->ifindex;
	if (!ev->up) {
		snprintf(why, sizeof(why), "interface %s %s", ev->ifname, ev->removed ? "removed" : "down");
		a = uplink_state_link_down(&s->state, why);
		if (a.close)
			log_line(LOG_LVL_NOTICE, own_name(u), s->conf->name, "%s: out of use", why);
	} else {
		a = uplink_state_link_up(&s->state);
		if (a.open)
			log_line(LOG_LVL_NOTICE, own_name(u), s->conf->name, "interface %s up: opening", ev->ifname);
	}
	carry_out(u, i, a, now);
}

static void on_link_event(void *ctx, const struct rtnl_link_event *ev)
{
	struct uplinks *u = ctx;
	uint64_t now = loop_now();

	for (unsigned i = 0; i < (unsigned)u->n_slots; i++)
		if (slot_of(u, i) && !strcmp(u->slots[i].conf->interface, ev->ifname))
			link_changed(u, i, ev, now);
}

/* An address came or went on an uplink's interface: its socket is bound again, then probed. */
static void on_addr_event(void *ctx, const struct rtnl_addr_event *ev)
{
	struct uplinks *u = ctx;
	uint64_t now = loop_now();

	for (unsigned i = 0; i < (unsigned)u->n_slots; i++) {
		struct uplink_slot *s = &u->slots[i];
		struct uplink_action a;

		if (!slot_of(u, i) || !s->ifindex || s->ifindex != ev->ifindex)
			continue;
		a = uplink_state_address_changed(&s->state);
		if (a.open)
			log_line(LOG_LVL_NOTICE, own_name(u), s->conf->name, "address %s on %s: binding the socket again",
				 ev->removed ? "removed" : "added", s->conf->interface);
		carry_out(u, i, a, now);
	}
}

static const struct rtnl_events_ops interface_events = { .link = on_link_event, .addr = on_addr_event };

static int follow_interfaces(struct uplinks *u)
{
	int rc = rtnl_events_open(&u->events, &interface_events, u);

	if (!rc)
		rc = loop_add(u->env.loop, &u->events.lfd, EPOLLIN);
	if (rc)
		log_line(LOG_LVL_ERR, own_name(u), NULL, "cannot follow the interfaces (rtnetlink): %s", strerror(-rc));
	return rc;
}

/* ---- start and stop -------------------------------------------------------------------------- */

int uplinks_start(struct uplinks *u, const struct uplinks_env *env)
{
	int n = env->cfg->n_uplinks, rc;

	memset(u, 0, sizeof(*u)); /* large: not through a compound literal on the stack */
	u->env = *env;
	u->started = true;
	rc = n ? grow_slots(u, (unsigned)n - 1) : 0;
	for (int i = 0; !rc && i < n; i++)
		rc = slot_fill(u, (unsigned)i, &env->cfg->uplinks[i]);
	if (!rc)
		rc = follow_interfaces(u);
	u->next_reopen_ns = 0; /* opened by the first pass of the loop, the bond in place */
	return rc;
}

void uplinks_stop(struct uplinks *u)
{
	for (int i = 0; i < u->n_slots; i++) {
		struct uplink_slot *s = &u->slots[i];

		if (s->state.phase != UPLINK_FREE && s->conf->table)
			policy_rule(u, s->conf, false);
		udp_free(&s->sock.udp);
	}
	if (u->events.nl) {
		loop_del(u->env.loop, &u->events.lfd);
		rtnl_events_close(&u->events);
	}
}

/* ---- at run time ----------------------------------------------------------------------------- */

int uplinks_add(struct uplinks *u, const struct wb_conf_uplink *up, char *err, size_t errlen)
{
	struct wb_uplink_params p = { .backup = up->backup, .weight = (uint16_t)up->weight };
	uint64_t now = loop_now();
	int slot;

	if (!u->started)
		return snprintf(err, errlen, "a server learns its uplinks from its clients"), -EPERM;
	snprintf(p.name, sizeof(p.name), "%s", up->name);
	slot = wb_bond_add_uplink(u->env.bond, &p, now);
	if (slot < 0) {
		snprintf(err, errlen, slot == -EEXIST   ? "an uplink is named '%s' already"
				      : slot == -ENOSPC ? "no room for '%s': %d uplinks at most"
							: "cannot add '%s'",
			 up->name, WB_MAX_UPLINKS);
		return slot;
	}
	if (grow_slots(u, (unsigned)slot)) {
		wb_bond_remove_uplink(u->env.bond, (unsigned)slot, now);
		return snprintf(err, errlen, "no memory for its socket"), -ENOMEM;
	}
	if (slot_fill(u, (unsigned)slot, up))
		log_line(LOG_LVL_WARNING, own_name(u), up->name, "its policy rule could not be added: it goes without");
	log_line(LOG_LVL_NOTICE, own_name(u), up->name, "added at run time%s%s", up->interface[0] ? " on " : "",
		 up->interface);
	carry_out(u, (unsigned)slot, uplink_state_try_open(&u->slots[slot].state), now);
	return 0;
}

int uplinks_remove(struct uplinks *u, unsigned i, char *err, size_t errlen)
{
	uint64_t now = loop_now();

	if (!u->started)
		return snprintf(err, errlen, "a server's uplinks are its clients'"), -EPERM;
	if (!slot_of(u, i))
		return snprintf(err, errlen, "no such uplink"), -ENOENT;
	log_line(LOG_LVL_NOTICE, own_name(u), u->slots[i].conf->name, "removed at run time");
	slot_clear(u, i, now);
	wb_bond_remove_uplink(u->env.bond, i, now);
	return 0;
}

/* ---- reloading ------------------------------------------------------------------------------- */

static int running_uplink(const struct uplinks *u, const char *name)
{
	for (int i = 0; i < u->n_slots; i++)
		if (slot_of_const(u, (unsigned)i) && !strcmp(u->slots[i].conf->name, name))
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
static bool reload_add(struct uplinks *u, const struct wb_conf_uplink *up)
{
	char err[160];

	if (!uplinks_add(u, up, err, sizeof(err)))
		return true;
	log_line(LOG_LVL_ERR, own_name(u), up->name, "reload: cannot add it: %s", err);
	return false;
}

static bool reload_remove(struct uplinks *u, unsigned i)
{
	char name[WB_UPLINK_NAME_MAX + 1], err[160];

	snprintf(name, sizeof(name), "%s", u->slots[i].conf->name);
	if (!uplinks_remove(u, i, err, sizeof(err)))
		return true;
	log_line(LOG_LVL_ERR, own_name(u), name, "reload: cannot remove it: %s", err);
	return false;
}

int uplinks_reload(struct uplinks *u, const struct wb_config *next)
{
	int failed = 0;

	for (unsigned i = 0; i < (unsigned)u->n_slots; i++) {
		const struct wb_conf_uplink *cur = u->slots[i].conf, *nu;

		if (!slot_of(u, i))
			continue;
		nu = file_uplink(next, cur->name);
		if (!nu || !same_binding(nu, cur)) {
			log_line(LOG_LVL_NOTICE, own_name(u), cur->name, "reload: %s", nu ? "bound otherwise: again" : "removed");
			failed += !reload_remove(u, i);
			if (nu)
				failed += !reload_add(u, nu);
			continue;
		}
		if (nu->backup != cur->backup || nu->weight != cur->weight) {
			uplinks_set_role(u, i, nu->backup, nu->weight);
			log_line(LOG_LVL_NOTICE, own_name(u), cur->name, "reload: %s, weight %u", cur->backup ? "backup" : "active",
				 cur->weight);
		}
	}
	for (int i = 0; i < next->n_uplinks; i++)
		if (running_uplink(u, next->uplinks[i].name) < 0) {
			log_line(LOG_LVL_NOTICE, own_name(u), next->uplinks[i].name, "reload: new");
			failed += !reload_add(u, &next->uplinks[i]);
		}
	return failed;
}
