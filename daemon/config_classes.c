// SPDX-License-Identifier: MIT
/*
 * The group "classes" of the configuration file:
 *
 *   classes: {
 *     enabled = true;
 *     interactive: {
 *       dscp = [ "EF", "CS4", "CS5", "CS6", "AF41", "AF42", "AF43" ];
 *       ports = [ "udp:3478-3481" ];
 *       policy = "duplicate";
 *       ordered = false;
 *       fec = "auto";
 *     };
 *   };
 *
 * A DSCP is a name or a number 0..63 (classify.h); a port rule
 * "[udp:|tcp:]PORT[-PORT]". Lists given replace the defaults.
 */
#include "config_classes.h"

#include <string.h>

#include "classify.h"

static const char *const class_keys[] = { "enabled", "interactive", NULL };
static const char *const interactive_keys[] = { "dscp", "ports", "policy", "ordered", "fec", NULL };

static const char *const policy_names[] = {
	[WB_CLASS_POLICY_DUPLICATE] = "duplicate",
	[WB_CLASS_POLICY_REDUNDANT] = "redundant",
	[WB_CLASS_POLICY_BONDED] = "bonded",
};

void conf_classes_defaults(struct wb_conf_classes *c)
{
	memset(c, 0, sizeof(*c));
	wb_class_rules_default(&c->rules);
	c->policy = WB_CLASS_POLICY_DUPLICATE;
	c->fec = true;
}

/* A DSCP as a name or a number: the text of either, checked by the classifier's own parser. */
static int read_dscp(const struct conf_sect *s, const config_setting_t *e, uint64_t *set)
{
	int v = -1;

	if (config_setting_type(e) == CONFIG_TYPE_INT)
		v = config_setting_get_int(e) >= 0 && config_setting_get_int(e) <= 63 ? config_setting_get_int(e) : -1;
	else if (config_setting_type(e) == CONFIG_TYPE_STRING)
		v = wb_dscp_parse(config_setting_get_string(e));
	if (v < 0)
		return conf_report_key(s, e, "dscp",
				       "a DSCP name (EF, CS0..CS7, AF11..AF43, VA, LE) or a number 0..63 expected");
	*set |= 1ULL << v;
	return 0;
}

static int read_dscps(const struct conf_sect *s, struct wb_class_rules *r)
{
	config_setting_t *list;
	int n, ret = conf_read_list(s, "dscp", false, 64, &list, &n);

	if (ret || !list)
		return ret;
	r->dscp = 0;
	for (int i = 0; i < n && !ret; i++)
		ret = read_dscp(s, config_setting_get_elem(list, (unsigned)i), &r->dscp);
	return ret;
}

static int read_ports(const struct conf_sect *s, struct wb_class_rules *r)
{
	config_setting_t *list;
	int n, ret = conf_read_list(s, "ports", false, WB_CLASS_MAX_PORT_RULES, &list, &n);

	if (ret || !list)
		return ret;
	r->n_ports = 0;
	for (int i = 0; i < n; i++) {
		const config_setting_t *e = config_setting_get_elem(list, (unsigned)i);
		const char *v = config_setting_type(e) == CONFIG_TYPE_STRING ? config_setting_get_string(e) : NULL;

		if (!v || wb_port_rule_parse(v, &r->ports[r->n_ports]))
			return conf_report_key(s, e, "ports",
					       "a port rule \"udp:PORT\", \"tcp:PORT-PORT\" or \"PORT\" (1..65535) expected");
		r->n_ports++;
	}
	return 0;
}

static int read_policy(const struct conf_sect *s, enum wb_class_policy *out)
{
	const char *v;
	int ret = conf_read_string(s, "policy", false, &v);

	if (ret || !v)
		return ret;
	for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++)
		if (!strcmp(v, policy_names[i])) {
			*out = (enum wb_class_policy)i;
			return 0;
		}
	return conf_report_key(s, config_setting_get_member(s->set, "policy"), "policy",
			       "'%s' is none of duplicate, redundant, bonded", v);
}

static int read_fec(const struct conf_sect *s, bool *out)
{
	const char *v;
	int ret = conf_read_string(s, "fec", false, &v);

	if (ret || !v)
		return ret;
	if (strcmp(v, "auto") && strcmp(v, "off"))
		return conf_report_key(s, config_setting_get_member(s->set, "fec"), "fec",
				       "'%s' is neither \"auto\" nor \"off\"", v);
	*out = !strcmp(v, "auto");
	return 0;
}

static int read_interactive(const struct conf_sect *classes, struct wb_conf_classes *c)
{
	config_setting_t *g;
	struct conf_sect s = { classes->p, NULL, classes->scope, "classes.interactive." };
	int ret = conf_member(classes, "interactive", CONF_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = conf_check_keys(&s, interactive_keys)) || (ret = read_dscps(&s, &c->rules)) ||
	    (ret = read_ports(&s, &c->rules)) || (ret = read_policy(&s, &c->policy)) ||
	    (ret = conf_read_bool(&s, "ordered", &c->ordered)))
		return ret;
	return read_fec(&s, &c->fec);
}

int conf_classes_read(struct conf_parse *p, const struct conf_sect *root)
{
	struct wb_conf_classes *c = &p->cfg->classes;
	struct conf_sect s = { p, NULL, root->scope, "classes." };
	config_setting_t *g;
	int ret = conf_member(root, "classes", CONF_GROUP, &g);

	if (ret || !g)
		return ret;
	s.set = g;
	if ((ret = conf_check_keys(&s, class_keys)) || (ret = conf_read_bool(&s, "enabled", &c->rules.enabled)))
		return ret;
	return read_interactive(&s, c);
}

bool conf_classes_equal(const struct wb_conf_classes *a, const struct wb_conf_classes *b)
{
	if (a->rules.enabled != b->rules.enabled || a->rules.dscp != b->rules.dscp ||
	    a->rules.n_ports != b->rules.n_ports || a->policy != b->policy || a->ordered != b->ordered ||
	    a->fec != b->fec)
		return false;
	for (unsigned i = 0; i < a->rules.n_ports; i++) {
		const struct wb_port_rule *x = &a->rules.ports[i], *y = &b->rules.ports[i];

		if (x->proto != y->proto || x->lo != y->lo || x->hi != y->hi)
			return false;
	}
	return true;
}

void conf_classes_to_lib(const struct wb_conf_classes *c, struct wb_classes *out)
{
	*out = (struct wb_classes){ .rules = c->rules, .policy = c->policy, .ordered = c->ordered, .fec = c->fec };
}
