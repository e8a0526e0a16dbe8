// SPDX-License-Identifier: MIT
/*
 * The configuration's schema (config_schema.h): which settings there are,
 * in which group and for which role, their ranges, their defaults, and the
 * rules between settings (a timeout at least two probes long, uplinks
 * bound apart, peers with keys, names and routes of their own).
 */
#include "config_schema.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_read.h"
#include "validate.h"
#include "wanbond.h"

#define DEFAULT_PORT 51820
#define MTU_MIN 576
#define MTU_MIN_IPV6 1280

#define NS_PER_MS 1000000ULL

static int parse_transport(struct conf_parse *p, const struct conf_sect *root)
{
	static const char *const keys[] = { "congestion_control", "send_buffer_kb", "receive_window_kb",
					    "send_queue_kb", "reorder_hold_ms", "aqm", "aqm_target_ms",
					    "aqm_interval_ms", "pool_limit_mb", NULL };
	struct wb_conf_transport *t = &p->cfg->transport;
	struct conf_sect s = { p, NULL, "", "transport." };
	config_setting_t *g;
	const char *cc = NULL;
	int ret = conf_member(root, "transport", CONF_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = conf_check_keys(&s, keys)) || (ret = conf_read_string(&s, "congestion_control", false, &cc)) ||
	    (ret = conf_read_u32(&s, "send_buffer_kb", 64, 1024 * 1024, &t->send_buffer_kb)) ||
	    (ret = conf_read_u32(&s, "receive_window_kb", 64, 1024 * 1024, &t->receive_window_kb)) ||
	    (ret = conf_read_u32(&s, "send_queue_kb", 16, 1024 * 1024, &t->send_queue_kb)) ||
	    (ret = conf_read_u32(&s, "reorder_hold_ms", 0, 60000, &t->reorder_hold_ms)) ||
	    (ret = conf_read_bool(&s, "aqm", &t->aqm)) ||
	    (ret = conf_read_u32(&s, "aqm_target_ms", 1, 1000, &t->aqm_target_ms)) ||
	    (ret = conf_read_u32(&s, "aqm_interval_ms", 10, 10000, &t->aqm_interval_ms)) ||
	    (ret = conf_read_u32(&s, "pool_limit_mb", 0, 1024 * 1024, &t->pool_limit_mb)))
		return ret;
	if (cc && strcmp(cc, "bbr") && strcmp(cc, "newreno"))
		return conf_report(p, config_setting_get_member(g, "congestion_control"),
				   "transport.congestion_control: '%s' is none of bbr, newreno", cc);
	if (cc)
		snprintf(t->congestion_control, sizeof(t->congestion_control), "%s", cc);
	return 0;
}

#define SCHEDULER_KEYS (1 + 32 + 1) /* the policy, a rule per bit of the flags at most, the NULL */

/* The policy, then a switch per rule the scheduler names (wb_sched_rule_name), in the order of their flags. */
static void scheduler_keys(const char *keys[SCHEDULER_KEYS])
{
	int n = 0;

	keys[n++] = "policy";
	for (uint32_t flag = 1; flag; flag <<= 1)
		if (wb_sched_rule_name(flag))
			keys[n++] = wb_sched_rule_name(flag);
	keys[n] = NULL;
}

static int parse_scheduler(struct conf_parse *p, const struct conf_sect *root)
{
	struct wb_conf_scheduler *sc = &p->cfg->scheduler;
	struct conf_sect s = { p, NULL, "", "scheduler." };
	const char *keys[SCHEDULER_KEYS], *policy = NULL;
	config_setting_t *g;
	int ret = conf_member(root, "scheduler", CONF_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	scheduler_keys(keys);
	if ((ret = conf_check_keys(&s, keys)) || (ret = conf_read_string(&s, "policy", false, &policy)))
		return ret;
	if (policy && !wb_sched_exists(policy))
		return conf_report(p, config_setting_get_member(g, "policy"),
				   "scheduler.policy: '%s' is none of default, roundrobin, redundant, first", policy);
	if (policy)
		snprintf(sc->policy, sizeof(sc->policy), "%s", policy);
	/* Every other key is a rule, on unless set false. */
	for (const char *const *k = keys + 1; *k; k++) {
		bool on = true;

		if ((ret = conf_read_bool(&s, *k, &on)))
			return ret;
		if (on)
			sc->off &= ~wb_sched_rule_by_name(*k);
		else
			sc->off |= wb_sched_rule_by_name(*k);
	}
	return 0;
}

/* A group name of control's, at most size - 1 characters. */
static int check_group_name(struct conf_parse *p, config_setting_t *g, const char *key, const char *name, size_t size)
{
	if (name && (!*name || strlen(name) >= size))
		return conf_report(p, config_setting_get_member(g, key), "control.%s: a group name expected", key);
	return 0;
}

static int parse_control(struct conf_parse *p, const struct conf_sect *root)
{
	static const char *const keys[] = { "directory", "group", "admin_group", NULL };
	struct wb_conf_control *c = &p->cfg->control;
	struct conf_sect s = { p, NULL, "", "control." };
	config_setting_t *g;
	const char *dir = NULL, *group = NULL, *admin = NULL;
	int ret = conf_member(root, "control", CONF_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = conf_check_keys(&s, keys)) || (ret = conf_read_string(&s, "directory", false, &dir)) ||
	    (ret = conf_read_string(&s, "group", false, &group)) ||
	    (ret = conf_read_string(&s, "admin_group", false, &admin)))
		return ret;
	if (dir && (dir[0] != '/' || strlen(dir) >= sizeof(c->directory) - WB_NAME_MAX - 6))
		return conf_report(p, config_setting_get_member(g, "directory"),
				   "control.directory: an absolute path of at most %zu characters expected",
				   sizeof(c->directory) - WB_NAME_MAX - 7);
	if ((ret = check_group_name(p, g, "group", group, sizeof(c->group))) ||
	    (ret = check_group_name(p, g, "admin_group", admin, sizeof(c->admin_group))))
		return ret;
	if (dir)
		snprintf(c->directory, sizeof(c->directory), "%s", dir);
	if (group)
		snprintf(c->group, sizeof(c->group), "%s", group);
	if (admin)
		snprintf(c->admin_group, sizeof(c->admin_group), "%s", admin);
	return 0;
}

static int parse_timers(struct conf_parse *p, const struct conf_sect *root)
{
	static const char *const keys[] = { "probe_interval_ms", "uplink_timeout_ms", "handshake_retry_ms",
					    "rekey_after_seconds", "rekey_after_messages", NULL };
	struct wb_conf_timers *t = &p->cfg->timers;
	config_setting_t *g;
	struct conf_sect s = { p, NULL, "", "timers." };
	long long messages = (long long)t->rekey_after_messages;
	int ret = conf_member(root, "timers", CONF_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = conf_check_keys(&s, keys)) ||
	    (ret = conf_read_u32(&s, "probe_interval_ms", 10, 10000, &t->probe_interval_ms)) ||
	    (ret = conf_read_u32(&s, "uplink_timeout_ms", 100, 60000, &t->uplink_timeout_ms)) ||
	    (ret = conf_read_u32(&s, "handshake_retry_ms", 100, 60000, &t->handshake_retry_ms)) ||
	    (ret = conf_read_u32(&s, "rekey_after_seconds", 10, 86400, &t->rekey_after_seconds)) ||
	    (ret = conf_read_range(&s, "rekey_after_messages", 1000, 1LL << 60, &messages)))
		return ret;
	t->rekey_after_messages = (uint64_t)messages;
	/* One lost probe must not take an uplink down. */
	if (t->uplink_timeout_ms < 2 * t->probe_interval_ms) {
		const config_setting_t *at = config_setting_get_member(g, "uplink_timeout_ms");

		return conf_report(p, at ? at : config_setting_get_member(g, "probe_interval_ms"),
				   "timers.uplink_timeout_ms: %u is less than 2 * timers.probe_interval_ms (2 * %u)",
				   t->uplink_timeout_ms, t->probe_interval_ms);
	}
	return 0;
}

static bool has_ipv6(const struct wb_conf_tun *tun)
{
	for (int i = 0; i < tun->n_address; i++)
		if (tun->address[i].family == AF_INET6)
			return true;
	return false;
}

static int check_mtu(const struct conf_sect *s, const struct wb_conf_tun *tun)
{
	const config_setting_t *m = config_setting_get_member(s->set, "mtu");

	if (!tun->mtu)
		return 0;
	if (tun->mtu < MTU_MIN || tun->mtu > WB_MAX_TUN_MTU)
		return conf_report_key(s, m, "mtu",
				       "%u is out of range: 0 (automatic) or %d..%d (a datagram of the tunnel carries at most "
				       "%d bytes)",
				       tun->mtu, MTU_MIN, WB_MAX_TUN_MTU, WB_MAX_DATAGRAM);
	if (tun->mtu < MTU_MIN_IPV6 && has_ipv6(tun))
		return conf_report_key(s, m, "mtu", "%u is below %d, the least IPv6 allows (tun.address has IPv6)",
				       tun->mtu, MTU_MIN_IPV6);
	return 0;
}

/* The TUN device of one bond; its name defaults to "wb-" and the bond's name, cut to 15 characters. */
static int parse_tun(const struct conf_sect *parent, const char *bond, struct wb_conf_tun *tun)
{
	static const char *const keys[] = { "name", "address", "mtu", NULL };
	struct conf_sect s = { parent->p, NULL, parent->scope, "tun." };
	config_setting_t *g;
	const char *name;
	int ret = conf_required(parent, "tun", CONF_GROUP, &g);

	if (ret)
		return ret;
	s.set = g;
	if ((ret = conf_check_keys(&s, keys)) || (ret = conf_read_string(&s, "name", false, &name)))
		return ret;
	if (name && (ret = conf_check_ifname(&s, config_setting_get_member(g, "name"), "tun name", name)))
		return ret;
	if (name)
		strcpy(tun->name, name);
	else if (snprintf(tun->name, sizeof(tun->name), "wb-%s", bond) < 0)
		return -EINVAL;
	if ((ret = conf_read_prefixes(&s, "address", false, tun->address, WB_MAX_ADDRESSES, &tun->n_address)) ||
	    (ret = conf_read_u32(&s, "mtu", 0, UINT16_MAX, &tun->mtu)))
		return ret;
	return check_mtu(&s, tun);
}

/* The peer's keys, TUN and routes, common to a client's server and a server's peers. */
static int parse_bond(const struct conf_sect *s, const struct conf_sect *tun_parent, struct wb_conf_peer *peer)
{
	int ret = conf_read_public_key(s, "public_key", peer->public_key);

	if (!ret)
		ret = conf_read_secret_key(s, "preshared_key", false, peer->preshared_key, &peer->has_preshared_key);
	if (!ret)
		ret = parse_tun(tun_parent, peer->name, &peer->tun);
	if (!ret)
		ret = conf_read_prefixes(tun_parent, "routes", true, peer->routes, WB_MAX_ROUTES, &peer->n_routes);
	return ret;
}

/* A group in a list whose scope is "KIND 'NAME': " once the name is known, "KIND #N: " before. */
static int list_entry(struct conf_sect *s, config_setting_t *g, const char *kind, int index, char *scope,
		      size_t size, char name[WB_NAME_MAX], const char *const *keys)
{
	config_setting_t *m;
	int ret;

	snprintf(scope, size, "%s #%d: ", kind, index + 1);
	s->scope = scope;
	s->set = g;
	if (config_setting_type(g) != CONFIG_TYPE_GROUP)
		return conf_report(s->p, g, "%sexpected %s", scope, conf_kind_text[CONF_GROUP]);
	/* Without a name, a typo such as "nmae" is the better message. */
	ret = conf_member(s, "name", CONF_STRING, &m);
	if (!ret && !m)
		ret = conf_check_keys(s, keys);
	if (!ret)
		ret = conf_read_name(s, "name", name);
	if (ret)
		return ret;
	snprintf(scope, size, "%s '%s': ", kind, name);
	return conf_check_keys(s, keys);
}

static int parse_peer(struct conf_parse *p, config_setting_t *g, int index)
{
	static const char *const keys[] = { "name", "public_key", "preshared_key", "preshared_key_file", "tun",
					    "routes", NULL };
	struct wb_conf_peer *peer = &p->cfg->peers[index];
	struct conf_sect s = { p, NULL, "", "" };
	char scope[64];
	int ret = list_entry(&s, g, "peer", index, scope, sizeof(scope), peer->name, keys);

	if (ret)
		return ret;
	peer->line = conf_line_of(g);
	return parse_bond(&s, &s, peer);
}

/*
 * table: a policy rule sends what carries the uplink's mark to that routing
 * table (which the system fills, e.g. netifd's ip4table); it needs a mark,
 * and keeps clear of the tables every system has.
 */
static int read_policy_rule(const struct conf_sect *s, struct wb_conf_uplink *up)
{
	long long table = 0, priority = 0;
	config_setting_t *at;
	int ret;

	if ((ret = conf_read_range(s, "table", 1, UINT32_MAX, &table)) ||
	    (ret = conf_read_range(s, "rule_priority", 1, 32765, &priority)))
		return ret;
	at = config_setting_get_member(s->set, "table");
	if (table && !up->has_fwmark)
		return conf_report_key(s, at, "table", "a policy rule needs the uplink's fwmark");
	if (table >= 253 && table <= 255)
		return conf_report_key(s, at, "table", "%lld is the system's (default, main, local)", table);
	if (priority && !table)
		return conf_report_key(s, config_setting_get_member(s->set, "rule_priority"), "rule_priority",
				       "without a table there is no rule");
	up->table = (uint32_t)table;
	up->rule_priority = (uint32_t)priority;
	return 0;
}

static int read_uplink_binding(const struct conf_sect *s, struct wb_conf_uplink *up)
{
	config_setting_t *ifname, *source;
	long long fwmark = 0;
	char why[WB_WHY_MAX];
	int ret;

	if ((ret = conf_member(s, "interface", CONF_STRING, &ifname)) ||
	    (ret = conf_member(s, "source", CONF_STRING, &source)) ||
	    (ret = conf_read_checked(s, "fwmark", wb_validate_fwmark, &fwmark)))
		return ret;
	if (ifname && (ret = conf_check_ifname(s, ifname, "interface name", config_setting_get_string(ifname))))
		return ret;
	if (ifname)
		strcpy(up->interface, config_setting_get_string(ifname));
	if (source && wb_validate_source(&up->source, config_setting_get_string(source), why, sizeof(why)))
		return conf_report_key(s, source, "source", "%s", why);
	up->fwmark = (uint32_t)fwmark;
	up->has_fwmark = fwmark != 0;
	if ((ret = read_policy_rule(s, up)))
		return ret;
	if (wb_validate_binding(ifname != NULL, source != NULL, up->has_fwmark, why, sizeof(why)))
		return conf_report(s->p, s->set, "%s%s", s->scope, why);
	return 0;
}

static int parse_uplink(struct conf_parse *p, config_setting_t *g, int index)
{
	static const char *const keys[] = { "name",	  "interface", "source", "fwmark", "table",
					    "rule_priority", "weight",    "backup", NULL };
	struct wb_conf_uplink *up = &p->cfg->uplinks[index];
	struct conf_sect s = { p, NULL, "", "" };
	long long weight = WB_WEIGHT_DEFAULT;
	char scope[64];
	int ret = list_entry(&s, g, "uplink", index, scope, sizeof(scope), up->name, keys);

	up->line = conf_line_of(g);
	if (ret || (ret = read_uplink_binding(&s, up)) ||
	    (ret = conf_read_checked(&s, "weight", wb_validate_weight, &weight)))
		return ret;
	up->weight = (uint32_t)weight;
	if (up->table && !up->rule_priority)
		up->rule_priority = WB_RULE_PRIORITY_BASE + (uint32_t)index;
	return conf_read_bool(&s, "backup", &up->backup);
}

/* Two uplinks bound the same way would be one path twice. */
#define BOUND_ALIKE "the same interface, source and fwmark as uplink '%s'"

static bool same_binding(const struct wb_conf_uplink *a, const struct wb_conf_uplink *b)
{
	return !strcmp(a->interface, b->interface) && a->fwmark == b->fwmark &&
	       !memcmp(&a->source, &b->source, sizeof(a->source));
}

/* Uplinks are told apart by name and by how their socket is bound; u is the later one. */
static int check_uplinks_apart(struct conf_parse *p, const struct wb_conf_uplink *u, const struct wb_conf_uplink *v)
{
	if (!strcmp(u->name, v->name))
		return conf_report_line(p, u->line, "uplink '%s': the name is used twice (first on line %d)", u->name,
					v->line);
	if (same_binding(u, v))
		return conf_report_line(p, u->line, "uplink '%s': " BOUND_ALIKE, u->name, v->name);
	return 0;
}

static int check_uplinks(struct conf_parse *p)
{
	const struct wb_config *cfg = p->cfg;
	int backups = 0, ret = 0;

	for (int i = 0; !ret && i < cfg->n_uplinks; i++) {
		backups += cfg->uplinks[i].backup;
		for (int j = 0; !ret && j < i; j++)
			ret = check_uplinks_apart(p, &cfg->uplinks[i], &cfg->uplinks[j]);
	}
	if (!ret && backups == cfg->n_uplinks)
		ret = conf_report_line(p, cfg->uplinks[0].line, "uplinks: all are backups; one at least must not be");
	return ret;
}

static int parse_uplinks(struct conf_parse *p, const struct conf_sect *root)
{
	config_setting_t *list;
	int ret = conf_read_list(root, "uplinks", true, WB_MAX_UPLINKS, &list, &p->cfg->n_uplinks);

	for (int i = 0; !ret && i < p->cfg->n_uplinks; i++)
		ret = parse_uplink(p, config_setting_get_elem(list, (unsigned)i), i);
	return ret ? ret : check_uplinks(p);
}

/* Where a client sends: the server's address literal (no DNS) and port. */
static int parse_endpoint(const struct conf_sect *s, bool need_address, const char *default_address,
			  struct sockaddr_storage *ss)
{
	const char *addr;
	uint32_t port = DEFAULT_PORT;
	char why[WB_WHY_MAX];
	int ret = conf_read_string(s, "address", need_address, &addr);

	if (!ret)
		ret = conf_read_u32(s, "port", 1, 65535, &port);
	if (ret)
		return ret;
	if (wb_validate_address(ss, addr ? addr : default_address, AF_UNSPEC, (uint16_t)port, why, sizeof(why)))
		return conf_report_key(s, config_setting_get_member(s->set, "address"), "address", "%s", why);
	return 0;
}

static int parse_client(struct conf_parse *p, const struct conf_sect *root)
{
	static const char *const keys[] = { "address", "port", "public_key", "preshared_key",
					    "preshared_key_file", NULL };
	struct wb_config *cfg = p->cfg;
	struct wb_conf_peer *peer = &cfg->peers[0];
	struct conf_sect s = { p, NULL, "", "server." };
	config_setting_t *g;
	int ret = conf_required(root, "server", CONF_GROUP, &g);

	if (ret)
		return ret;
	s.set = g;
	strcpy(peer->name, cfg->name);
	peer->line = conf_line_of(g);
	cfg->n_peers = 1;
	if ((ret = conf_check_keys(&s, keys)) || (ret = parse_endpoint(&s, true, NULL, &cfg->server)) ||
	    (ret = parse_bond(&s, root, peer)))
		return ret;
	return parse_uplinks(p, root);
}

static int check_routes_apart(struct conf_parse *p, const struct wb_conf_peer *a, const struct wb_conf_peer *b)
{
	char text[INET6_ADDRSTRLEN + 4];

	for (int i = 0; i < a->n_routes; i++)
		for (int j = 0; j < b->n_routes; j++)
			if (conf_prefix_equal(&a->routes[i], &b->routes[j]))
				return conf_report_line(p, a->line, "peer '%s': routes: '%s' is routed to peer '%s' too",
							a->name, conf_prefix_text(&a->routes[i], text), b->name);
	return 0;
}

/* Names, keys, TUN names and routes are each one peer's own; a is the later of the two. */
static int check_peers_apart(struct conf_parse *p, const struct wb_conf_peer *a, const struct wb_conf_peer *b)
{
	if (!strcmp(a->name, b->name))
		return conf_report_line(p, a->line, "peer '%s': the name is used twice (first on line %d)", a->name,
					b->line);
	if (!memcmp(a->public_key, b->public_key, WB_KEY_LEN))
		return conf_report_line(p, a->line, "peer '%s': public_key: the same as peer '%s''s", a->name, b->name);
	if (!strcmp(a->tun.name, b->tun.name))
		return conf_report_line(p, a->line, "peer '%s': tun name '%s' is peer '%s''s too; set tun.name", a->name,
					a->tun.name, b->name);
	return check_routes_apart(p, a, b);
}

static int parse_server(struct conf_parse *p, const struct conf_sect *root)
{
	static const char *const keys[] = { "address", "port", NULL };
	struct wb_config *cfg = p->cfg;
	struct conf_sect s = { p, NULL, "", "listen." };
	config_setting_t *g, *list;
	int ret = conf_member(root, "listen", CONF_GROUP, &g);

	if (!ret && g) {
		s.set = g;
		ret = conf_check_keys(&s, keys);
	}
	if (!ret)
		ret = g ? parse_endpoint(&s, false, "::", &cfg->listen)
			: wb_validate_address(&cfg->listen, "::", AF_INET6, DEFAULT_PORT, NULL, 0);
	if (!ret)
		ret = conf_read_list(root, "peers", true, WB_MAX_PEERS, &list, &cfg->n_peers);
	for (int i = 0; !ret && i < cfg->n_peers; i++)
		ret = parse_peer(p, config_setting_get_elem(list, (unsigned)i), i);
	for (int i = 0; !ret && i < cfg->n_peers; i++)
		for (int j = 0; !ret && j < i; j++)
			ret = check_peers_apart(p, &cfg->peers[i], &cfg->peers[j]);
	return ret;
}

/* A peer with our own key would be a handshake with ourselves: a copy-paste slip. */
static int check_own_key(struct conf_parse *p)
{
	const struct wb_config *cfg = p->cfg;
	uint8_t priv[WB_KEY_LEN], pub[WB_KEY_LEN];
	int ret;

	memcpy(priv, cfg->private_key, WB_KEY_LEN);
	wb_x25519_clamp(priv);
	ret = wb_x25519_public(pub, priv);
	wb_wipe(priv, sizeof(priv));
	if (ret)
		return conf_report(p, NULL, "private_key: cannot derive its public key (%s)", strerror(-ret));
	for (int i = 0; i < cfg->n_peers; i++) {
		const struct wb_conf_peer *peer = &cfg->peers[i];

		if (memcmp(pub, peer->public_key, WB_KEY_LEN))
			continue;
		if (cfg->role == WB_ROLE_CLIENT)
			return conf_report_line(p, peer->line,
						"server.public_key: our own public key, not the server's");
		return conf_report_line(p, peer->line, "peer '%s': public_key: our own public key, not the peer's",
					peer->name);
	}
	return 0;
}

static const char *const common_keys[] = { "role", "name", "private_key", "private_key_file", "cipher",
					   "timers", "transport", "scheduler", "control", NULL };
static const char *const client_keys[] = { "server", "tun", "routes", "uplinks", NULL };
static const char *const server_keys[] = { "listen", "peers", NULL };

/* Unknown top-level settings, and those of the other role, named as such. */
static int check_root_keys(struct conf_parse *p, const config_setting_t *root)
{
	bool client = p->cfg->role == WB_ROLE_CLIENT;

	for (int i = 0; i < config_setting_length(root); i++) {
		const config_setting_t *m = config_setting_get_elem(root, (unsigned)i);
		const char *name = config_setting_name(m);

		if (conf_in_list(name, common_keys) || conf_in_list(name, client ? client_keys : server_keys))
			continue;
		if (conf_in_list(name, client ? server_keys : client_keys))
			return conf_report(p, m, "'%s' is not allowed with role = \"%s\"", name,
					   client ? "client" : "server");
		return conf_report(p, m, "unknown setting '%s'", name);
	}
	return 0;
}

static int parse_role(struct conf_parse *p, const struct conf_sect *root)
{
	const char *role;
	int ret = conf_read_string(root, "role", true, &role);

	if (ret)
		return ret;
	if (!strcmp(role, "client"))
		p->cfg->role = WB_ROLE_CLIENT;
	else if (!strcmp(role, "server"))
		p->cfg->role = WB_ROLE_SERVER;
	else
		return conf_report(p, config_setting_get_member(root->set, "role"),
				   "role: '%s' is neither \"client\" nor \"server\"", role);
	return 0;
}

static int parse_cipher(struct conf_parse *p, const struct conf_sect *root)
{
	const char *name;
	int ret = conf_read_string(root, "cipher", false, &name);

	if (ret || !name)
		return ret;
	if (wb_cipher_from_name(name, &p->cfg->cipher))
		return conf_report(p, config_setting_get_member(root->set, "cipher"),
				   "cipher: '%s' is neither \"chacha20-poly1305\" nor \"aes-256-gcm\"", name);
	return 0;
}

int conf_schema_read(struct conf_parse *p, const config_setting_t *set)
{
	struct wb_config *cfg = p->cfg;
	struct conf_sect root = { p, set, "", "" };
	bool has_key;
	int ret;

	if ((ret = parse_role(p, &root)) || (ret = check_root_keys(p, set)) ||
	    (ret = conf_read_name(&root, "name", cfg->name)) ||
	    (ret = conf_read_secret_key(&root, "private_key", true, cfg->private_key, &has_key)) ||
	    (ret = parse_cipher(p, &root)) || (ret = parse_timers(p, &root)) ||
	    (ret = parse_transport(p, &root)) || (ret = parse_scheduler(p, &root)) ||
	    (ret = parse_control(p, &root)))
		return ret;
	ret = cfg->role == WB_ROLE_CLIENT ? parse_client(p, &root) : parse_server(p, &root);
	return ret ? ret : check_own_key(p);
}

/* The library's timers (WB_TIMERS_DEFAULT) in the file's units: one set of defaults. */
static void default_timers(struct wb_conf_timers *t)
{
	const struct wb_timers lib = WB_TIMERS_DEFAULT;

	*t = (struct wb_conf_timers){
		.probe_interval_ms = (uint32_t)(lib.probe_interval_ns / NS_PER_MS),
		.uplink_timeout_ms = (uint32_t)(lib.uplink_timeout_ns / NS_PER_MS),
		.handshake_retry_ms = (uint32_t)(lib.handshake_retry_ns / NS_PER_MS),
		.rekey_after_seconds = (uint32_t)(lib.rekey_after_ns / WB_NSEC_PER_SEC),
		.rekey_after_messages = lib.rekey_after_messages,
	};
}

/* The library's tuning of a bond (wb_bond_tuning_defaults) in the file's units: its transport and scheduler. */
static void default_tuning(struct wb_conf_transport *t, struct wb_conf_scheduler *sc)
{
	struct wb_bond_tuning lib = { 0 };

	wb_bond_tuning_defaults(&lib);
	*t = (struct wb_conf_transport){
		.send_buffer_kb = (uint32_t)(lib.send_buffer >> 10),
		.receive_window_kb = (uint32_t)(lib.receive_window >> 10),
		.send_queue_kb = (uint32_t)(lib.send_queue >> 10),
		.aqm = !lib.no_aqm,
		.aqm_target_ms = (uint32_t)(lib.aqm_target_ns / NS_PER_MS),
		.aqm_interval_ms = (uint32_t)(lib.aqm_interval_ns / NS_PER_MS),
	};
	snprintf(t->congestion_control, sizeof(t->congestion_control), "%s", lib.cc);
	*sc = (struct wb_conf_scheduler){ .off = lib.sched_off };
	snprintf(sc->policy, sizeof(sc->policy), "%s", lib.scheduler);
}

void conf_schema_defaults(struct wb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->cipher = WB_CIPHER_CHACHA20_POLY1305;
	default_timers(&cfg->timers);
	default_tuning(&cfg->transport, &cfg->scheduler);
	cfg->control = (struct wb_conf_control){ .directory = WB_CONTROL_DIR };
}

/* Another of cfg's uplinks bound as up is; a free slot has no name, and a name taken is the bond's to say. */
static const struct wb_conf_uplink *bound_alike(const struct wb_config *cfg, const struct wb_conf_uplink *up)
{
	for (int i = 0; i < cfg->n_uplinks; i++) {
		const struct wb_conf_uplink *other = &cfg->uplinks[i];

		if (other->name[0] && strcmp(other->name, up->name) && same_binding(up, other))
			return other;
	}
	return NULL;
}

int wb_config_runtime_uplink(struct wb_conf_uplink *up, const struct wb_config *cfg, const char *name,
			     const char *ifname, const char *source, uint32_t fwmark, bool backup, uint32_t weight,
			     char *err, size_t errlen)
{
	const struct wb_conf_uplink *other;
	char why[WB_WHY_MAX];

	memset(up, 0, sizeof(*up));
	if (wb_validate_name(name, why, sizeof(why)))
		return snprintf(err, errlen, "uplink name: %s", why), -EINVAL;
	if (ifname && wb_validate_ifname(ifname, why, sizeof(why)))
		return snprintf(err, errlen, "uplink '%s': interface name %s", name, why), -EINVAL;
	if (source && wb_validate_source(&up->source, source, why, sizeof(why)))
		return snprintf(err, errlen, "uplink '%s': source: %s", name, why), -EINVAL;
	if (wb_validate_binding(ifname != NULL, source != NULL, fwmark != 0, why, sizeof(why)))
		return snprintf(err, errlen, "uplink '%s': %s", name, why), -EINVAL;
	if (wb_validate_weight(weight, why, sizeof(why)))
		return snprintf(err, errlen, "uplink '%s': weight: %s", name, why), -EINVAL;
	snprintf(up->name, sizeof(up->name), "%s", name);
	if (ifname)
		snprintf(up->interface, sizeof(up->interface), "%s", ifname);
	up->fwmark = fwmark;
	up->has_fwmark = fwmark != 0;
	up->backup = backup;
	up->weight = weight;
	other = bound_alike(cfg, up);
	if (other)
		return snprintf(err, errlen, "uplink '%s': " BOUND_ALIKE, name, other->name), -EINVAL;
	return 0;
}
