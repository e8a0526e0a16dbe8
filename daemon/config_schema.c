// SPDX-License-Identifier: MIT
/*
 * The configuration's schema (config_schema.h): which settings there are,
 * in which group and for which role, their ranges, their defaults, and the
 * rules between settings (a timeout at least two probes long, uplinks
 * bound apart, peers with keys, names and routes of their own). The groups
 * that are flat lists of settings are read by their tables
 * (config_groups.c); the rules between their settings are here.
 */
#include "config_schema.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config_classes.h"
#include "config_groups.h"
#include "config_read.h"
#include "validate.h"
#include "wanbond.h"

#define DEFAULT_PORT 51820
#define MTU_MIN 576
#define MTU_MIN_IPV6 1280

/* A group that is only its table's settings. */
static int parse_group(const struct conf_sect *root, const struct conf_table *t)
{
	struct conf_sect s;

	return conf_table_read(root, t, NULL, &s);
}

#define SCHEDULER_RULES (32 + 1) /* a rule per bit of the flags at most, the NULL */

/* A switch per rule the scheduler names (wb_sched_rule_name), in the order of their flags. */
static void scheduler_rules(const char *rules[SCHEDULER_RULES])
{
	int n = 0;

	for (uint32_t flag = 1; flag; flag <<= 1)
		if (wb_sched_rule_name(flag))
			rules[n++] = wb_sched_rule_name(flag);
	rules[n] = NULL;
}

/* The policy (conf_scheduler), then the rules: each on unless set false. */
static int parse_scheduler(struct conf_parse *p, const struct conf_sect *root)
{
	struct wb_conf_scheduler *sc = &p->cfg->scheduler;
	const char *rules[SCHEDULER_RULES];
	struct conf_sect s;
	int ret;

	scheduler_rules(rules);
	if ((ret = conf_table_read(root, &conf_scheduler, rules, &s)) || !s.set)
		return ret;
	for (const char *const *k = rules; *k; k++) {
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

static int parse_timers(struct conf_parse *p, const struct conf_sect *root)
{
	const struct wb_conf_timers *t = &p->cfg->timers;
	struct conf_sect s;
	int ret;

	if ((ret = conf_table_read(root, &conf_timers, NULL, &s)) || !s.set)
		return ret;
	/* One lost probe must not take an uplink down. */
	if (t->uplink_timeout_ms < 2 * t->probe_interval_ms) {
		const config_setting_t *at = config_setting_get_member(s.set, "uplink_timeout_ms");

		return conf_report(p, at ? at : config_setting_get_member(s.set, "probe_interval_ms"),
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
					   "timers", "transport", "scheduler", "classes", "control", NULL };
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
	    (ret = parse_group(&root, &conf_transport)) || (ret = parse_scheduler(p, &root)) ||
	    (ret = conf_classes_read(p, &root)) || (ret = parse_group(&root, &conf_control)))
		return ret;
	ret = cfg->role == WB_ROLE_CLIENT ? parse_client(p, &root) : parse_server(p, &root);
	return ret ? ret : check_own_key(p);
}

/*
 * The flat groups' defaults are the library's where it has the setting
 * (WB_TIMERS_DEFAULT, wb_bond_tuning_defaults), in the file's units: one
 * set of defaults.
 */
void conf_schema_defaults(struct wb_config *cfg)
{
	const struct wb_timers timers = WB_TIMERS_DEFAULT;
	struct wb_bond_tuning tuning = { 0 };

	memset(cfg, 0, sizeof(*cfg));
	cfg->cipher = WB_CIPHER_CHACHA20_POLY1305;
	wb_bond_tuning_defaults(&tuning);
	conf_table_defaults(&conf_timers, &cfg->timers, &timers);
	conf_table_defaults(&conf_transport, &cfg->transport, &tuning);
	conf_table_defaults(&conf_scheduler, &cfg->scheduler, &tuning);
	cfg->scheduler.off = tuning.sched_off;
	conf_classes_defaults(&cfg->classes);
	conf_table_defaults(&conf_control, &cfg->control, NULL);
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
