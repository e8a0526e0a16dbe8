// SPDX-License-Identifier: MIT
/*
 * Unit tests: config_classes.c, the configuration's traffic classes: the
 * defaults (on, the DSCPs of calls and games, two copies, unordered, FEC),
 * a group that sets everything, lists that replace the defaults, and each
 * wrong value refused with its file, line and setting, changing nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "classify.h"
#include "config.h"
#include "config_parse.h"
#include "config_classes.h"
#include "wanbond.h"

#define R_PRIV "KjVAS1ZhbHeCjZijrrnEz9rl8PsGERwnMj1IU15pdH8="
#define V_PUB "FI9ZbbVAveaVM3FrURJ+JKMi2Q+t/xRUwXPnA+z3RnA="

/* A client with only what is required (lines 1 to 6); a test's settings follow from line 7. */
#define CLIENT                                                                      \
	"role = \"client\";\n"                                                      \
	"name = \"home\";\n"                                                        \
	"private_key = \"" R_PRIV "\";\n"                                           \
	"server = { address = \"198.51.100.7\"; public_key = \"" V_PUB "\"; };\n"    \
	"tun = { address = [ \"10.255.0.2/30\" ]; };\n"                             \
	"uplinks = ( { name = \"dsl\"; interface = \"wan1\"; } );\n"

#define DSCP_BIT(d) (1ULL << (d))

static void test_defaults(void **state)
{
	struct wb_classes lib;

	(void)state;
	parse_ok(CLIENT);
	assert_true(cfg.classes.rules.enabled);
	assert_int_equal(cfg.classes.rules.dscp, DSCP_BIT(46) | DSCP_BIT(32) | DSCP_BIT(40) | DSCP_BIT(48) |
							 DSCP_BIT(34) | DSCP_BIT(36) | DSCP_BIT(38));
	assert_int_equal(cfg.classes.rules.n_ports, 0);
	assert_int_equal(cfg.classes.policy, WB_CLASS_POLICY_DUPLICATE);
	assert_false(cfg.classes.ordered);
	assert_true(cfg.classes.fec);
	assert_false(cfg.transport.outer_dscp);
	/* What the library gets is what was read (field by field: a struct's padding is anyone's). */
	conf_classes_to_lib(&cfg.classes, &lib);
	assert_true(lib.rules.enabled);
	assert_int_equal(lib.rules.dscp, cfg.classes.rules.dscp);
	assert_int_equal(lib.rules.n_ports, 0);
	assert_int_equal(lib.policy, cfg.classes.policy);
	assert_false(lib.ordered);
	assert_true(lib.fec);
}

static void test_every_setting(void **state)
{
	(void)state;
	parse_ok(CLIENT "classes: {\n"
			"  enabled = true;\n"
			"  interactive: {\n"
			"    dscp = ( \"ef\", 34, \"CS5\" );\n"
			"    ports = [ \"udp:3478-3481\", \"tcp:27015\", \"5060\" ];\n"
			"    policy = \"redundant\";\n"
			"    ordered = true;\n"
			"    fec = \"off\";\n"
			"  };\n"
			"};\n"
			"transport = { outer_dscp = true; };\n");
	assert_int_equal(cfg.classes.rules.dscp, DSCP_BIT(46) | DSCP_BIT(34) | DSCP_BIT(40));
	assert_int_equal(cfg.classes.rules.n_ports, 3);
	assert_int_equal(cfg.classes.rules.ports[0].proto, IPPROTO_UDP);
	assert_int_equal(cfg.classes.rules.ports[0].lo, 3478);
	assert_int_equal(cfg.classes.rules.ports[0].hi, 3481);
	assert_int_equal(cfg.classes.rules.ports[1].proto, IPPROTO_TCP);
	assert_int_equal(cfg.classes.rules.ports[1].lo, 27015);
	assert_int_equal(cfg.classes.rules.ports[2].proto, 0);
	assert_int_equal(cfg.classes.policy, WB_CLASS_POLICY_REDUNDANT);
	assert_true(cfg.classes.ordered);
	assert_false(cfg.classes.fec);
	assert_true(cfg.transport.outer_dscp);
}

static void test_off_and_empty_lists(void **state)
{
	(void)state;
	parse_ok(CLIENT "classes = { enabled = false; };\n");
	assert_false(cfg.classes.rules.enabled);
	/* An empty DSCP list leaves the port rules alone to decide. */
	parse_ok(CLIENT "classes = { interactive = { dscp = [ ]; ports = [ \"udp:5060\" ]; policy = \"bonded\"; }; };\n");
	assert_true(cfg.classes.rules.enabled);
	assert_int_equal(cfg.classes.rules.dscp, 0);
	assert_int_equal(cfg.classes.rules.n_ports, 1);
	assert_int_equal(cfg.classes.policy, WB_CLASS_POLICY_BONDED);
}

static void test_wrong_values_are_named(void **state)
{
	(void)state;
	expect_error(CLIENT "classes = { interactive = { dscp = [ \"EF\", \"AF44\" ]; }; };\n",
		     "t.conf:7: classes.interactive.dscp: a DSCP name (EF, CS0..CS7, AF11..AF43, VA, LE) or a number "
		     "0..63 expected");
	expect_error(CLIENT "classes = { interactive = { dscp = [ 64 ]; }; };\n",
		     "t.conf:7: classes.interactive.dscp: a DSCP name (EF, CS0..CS7, AF11..AF43, VA, LE) or a number "
		     "0..63 expected");
	expect_error(CLIENT "classes = { interactive = { ports = [ \"udp:0\" ]; }; };\n",
		     "t.conf:7: classes.interactive.ports: a port rule \"udp:PORT\", \"tcp:PORT-PORT\" or \"PORT\" "
		     "(1..65535) expected");
	expect_error(CLIENT "classes = { interactive = { ports = [ \"udp:10-5\" ]; }; };\n",
		     "t.conf:7: classes.interactive.ports: a port rule \"udp:PORT\", \"tcp:PORT-PORT\" or \"PORT\" "
		     "(1..65535) expected");
	expect_error(CLIENT "classes = { interactive = { ports = [ 5060 ]; }; };\n",
		     "t.conf:7: classes.interactive.ports: a port rule \"udp:PORT\", \"tcp:PORT-PORT\" or \"PORT\" "
		     "(1..65535) expected");
	expect_error(CLIENT "classes = { interactive = { policy = \"fastest\"; }; };\n",
		     "t.conf:7: classes.interactive.policy: 'fastest' is none of duplicate, redundant, bonded");
	expect_error(CLIENT "classes = { interactive = { fec = \"on\"; }; };\n",
		     "t.conf:7: classes.interactive.fec: 'on' is neither \"auto\" nor \"off\"");
	expect_error(CLIENT "classes = { interactive = { ordered = \"no\"; }; };\n",
		     "t.conf:7: classes.interactive.ordered: expected true or false");
	expect_error(CLIENT "classes = { enabled = 1; };\n",
		     "t.conf:7: classes.enabled: expected true or false");
	expect_error(CLIENT "classes = { bulk = { }; };\n", "t.conf:7: unknown setting 'classes.bulk'");
	expect_error(CLIENT "classes = { interactive = { dscps = [ ]; }; };\n",
		     "t.conf:7: unknown setting 'classes.interactive.dscps'");
	expect_error(CLIENT "classes = [ 1 ];\n", "t.conf:7: classes: expected a group { ... }");
	expect_error(CLIENT "classes = { interactive = { ports = [ \"1\", \"2\", \"3\", \"4\", \"5\", \"6\", \"7\", "
			    "\"8\", \"9\", \"10\", \"11\", \"12\", \"13\", \"14\", \"15\", \"16\", \"17\" ]; }; };\n",
		     "t.conf:7: classes.interactive.ports: 17 entries, at most 16");
}

/* A reload applies classes only when they changed: each field counts, nothing else. */
static void test_a_change_is_told_apart(void **state)
{
	struct wb_conf_classes a, b;

	(void)state;
	parse_ok(CLIENT "classes = { interactive = { ports = [ \"udp:5060\", \"tcp:443\" ]; }; };\n");
	a = cfg.classes;
	parse_ok(CLIENT "classes = { interactive = { ports = [ \"udp:5060\", \"tcp:443\" ]; }; };\n");
	b = cfg.classes;
	assert_true(conf_classes_equal(&a, &b));
	b.rules.ports[1].hi = 444;
	assert_false(conf_classes_equal(&a, &b));
	b = a;
	b.rules.dscp ^= 1;
	assert_false(conf_classes_equal(&a, &b));
	b = a;
	b.fec = !b.fec;
	assert_false(conf_classes_equal(&a, &b));
	b = a;
	b.rules.enabled = false;
	assert_false(conf_classes_equal(&a, &b));
}

static void test_outer_dscp_is_a_flag(void **state)
{
	(void)state;
	expect_error(CLIENT "transport = { outer_dscp = \"copy\"; };\n",
		     "t.conf:7: transport.outer_dscp: expected true or false");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_setting),
		cmocka_unit_test(test_off_and_empty_lists),
		cmocka_unit_test(test_wrong_values_are_named),
		cmocka_unit_test(test_a_change_is_told_apart),
		cmocka_unit_test(test_outer_dscp_is_a_flag),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
