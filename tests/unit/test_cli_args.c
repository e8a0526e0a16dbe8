// SPDX-License-Identifier: MIT
/* Unit tests: cli/cli_args.c, the arguments of the wanbond CLI's uplink commands. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "cli_args.h"
#include "ctl.h"

/* A NULL-terminated list of words: the arguments after the command's name. */
#define WORDS(...) ((const char *[]){ __VA_ARGS__, NULL })

static struct cli_uplink_args a;
static char err[256];

static int parse(enum cli_uplink_cmd cmd, const char **words)
{
	int argc = 0;

	while (words[argc])
		argc++;
	strcpy(err, "(untouched)");
	return cli_uplink_parse(&a, cmd, argc, (char *const *)words, err, sizeof(err));
}

static void parse_ok(enum cli_uplink_cmd cmd, const char **words)
{
	if (parse(cmd, words))
		fail_msg("refused: %s", err);
}

static void refused(enum cli_uplink_cmd cmd, const char **words, const char *msg)
{
	assert_int_equal(parse(cmd, words), -EINVAL);
	assert_string_equal(err, msg);
}

static void test_numbers_as_the_file_writes_them(void **state)
{
	long long v;

	(void)state;
	assert_int_equal(cli_number("1000", &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(cli_number("0x10000", &v), 0);
	assert_int_equal(v, 0x10000);
	assert_int_equal(cli_number("0XfF", &v), 0);
	assert_int_equal(v, 255);
	/* A leading zero is decimal, as in the file (strtoul's base 0 read it as octal). */
	assert_int_equal(cli_number("010", &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(cli_number("99999999999999999999999", &v), 0);
	assert_true(v == LLONG_MAX);
	assert_int_equal(cli_number("", &v), -EINVAL);
	assert_int_equal(cli_number("0x", &v), -EINVAL);
	assert_int_equal(cli_number("-1", &v), -EINVAL);
	assert_int_equal(cli_number("+1", &v), -EINVAL);
	assert_int_equal(cli_number(" 1", &v), -EINVAL);
	assert_int_equal(cli_number("1k", &v), -EINVAL);
}

static void test_on_off(void **state)
{
	bool on = false;

	(void)state;
	assert_int_equal(cli_on_off("on", &on), 0);
	assert_true(on);
	assert_int_equal(cli_on_off("no", &on), 0);
	assert_false(on);
	assert_int_equal(cli_on_off("maybe", &on), -EINVAL);
}

static void test_set(void **state)
{
	(void)state;
	parse_ok(CLI_UPLINK_SET, WORDS("lte", "backup", "on", "weight", "7", "down", "bond", "home"));
	assert_string_equal(a.name, "lte");
	assert_string_equal(a.bond, "home");
	assert_int_equal(a.backup, 1);
	assert_int_equal(a.weight, 7);
	assert_int_equal(a.enabled, 0);
	parse_ok(CLI_UPLINK_SET, WORDS("lte", "up"));
	assert_int_equal(a.backup, -1);
	assert_int_equal(a.weight, 0);
	assert_int_equal(a.enabled, 1);
	assert_null(a.bond);
	refused(CLI_UPLINK_SET, WORDS("lte", "weight", "0"), "uplink set: weight: 0 is out of range 1..1000");
	refused(CLI_UPLINK_SET, WORDS("lte", "weight", "1001"), "uplink set: weight: 1001 is out of range 1..1000");
	refused(CLI_UPLINK_SET, WORDS("lte", "weight", "x"), "uplink set: weight: 'x' is not a number");
	refused(CLI_UPLINK_SET, WORDS("lte", "backup", "maybe"), "uplink set: backup: 'maybe' is neither on nor off");
	refused(CLI_UPLINK_SET, WORDS("lte", "weight"), "uplink set: 'weight' needs a value");
	refused(CLI_UPLINK_SET, WORDS("lte", "source", "192.0.2.1"), "uplink set: unexpected 'source'");
	refused(CLI_UPLINK_SET, (const char *[]){ NULL }, "uplink set: which uplink?");
}

/* The hotplug script's form: set, with the interface named for the log. */
static void test_hotplug(void **state)
{
	(void)state;
	parse_ok(CLI_UPLINK_HOTPLUG, WORDS("lte", "dev", "wwan0", "down"));
	assert_string_equal(a.dev, "wwan0");
	assert_int_equal(a.enabled, 0);
	refused(CLI_UPLINK_HOTPLUG, WORDS("lte", "dev", "wwan0", "sideways"), "uplink: unexpected 'sideways'");
}

/* add: every value as the file checks it, the name's characters and the binding too. */
static void test_add(void **state)
{
	(void)state;
	parse_ok(CLI_UPLINK_ADD, WORDS("lte2", "dev", "wwan1", "source", "[2001:db8::1]:4000", "fwmark", "0x10000",
				       "backup", "off", "weight", "3"));
	assert_string_equal(a.dev, "wwan1");
	assert_string_equal(a.source, "[2001:db8::1]:4000");
	assert_int_equal(a.fwmark, 0x10000);
	assert_int_equal(a.backup, 0);
	assert_int_equal(a.weight, 3);
	parse_ok(CLI_UPLINK_ADD, WORDS("lte2", "fwmark", "1"));
	parse_ok(CLI_UPLINK_ADD, WORDS("lte2", "source", "192.0.2.7"));
	refused(CLI_UPLINK_ADD, WORDS("lte2"), "uplink add: needs at least one of interface, source and fwmark");
	refused(CLI_UPLINK_ADD, WORDS("l t e", "dev", "wwan1"),
		"uplink add: name: 'l t e' has characters other than A-Z a-z 0-9 _ . -");
	refused(CLI_UPLINK_ADD, WORDS("abcdefghijklmnopqrstuvwxyz012345", "dev", "wwan1"),
		"uplink add: name: 'abcdefghijklmnopqrstuvwxyz012345' is longer than 31 characters");
	refused(CLI_UPLINK_ADD, WORDS("lte2", "dev", "wwan:1"), "uplink add: dev: 'wwan:1' is not a valid interface name");
	refused(CLI_UPLINK_ADD, WORDS("lte2", "dev", "wwan0wwan0wwan0x"),
		"uplink add: dev: 'wwan0wwan0wwan0x' is longer than 15 characters");
	refused(CLI_UPLINK_ADD, WORDS("lte2", "source", "host:80"),
		"uplink add: source: 'host:80' is not an address, address:port or [address]:port");
	refused(CLI_UPLINK_ADD, WORDS("lte2", "fwmark", "0"), "uplink add: fwmark: 0 is out of range 1..4294967295");
	refused(CLI_UPLINK_ADD, WORDS("lte2", "fwmark", "0x100000000"),
		"uplink add: fwmark: 4294967296 is out of range 1..4294967295");
	refused(CLI_UPLINK_ADD, WORDS("lte2", "dev", "wwan1", "up"), "uplink add: unexpected 'up'");
}

static void test_del(void **state)
{
	(void)state;
	parse_ok(CLI_UPLINK_DEL, WORDS("lte", "bond", "home"));
	assert_string_equal(a.bond, "home");
	refused(CLI_UPLINK_DEL, WORDS("lte", "weight", "2"), "uplink del: unexpected 'weight'");
}

/* The request carries what was given, and the codec takes it as a request of its command. */
static void test_requests(void **state)
{
	static const uint8_t cmds[] = { [CLI_UPLINK_SET] = WB_CTL_CMD_SET_UPLINK,
					[CLI_UPLINK_ADD] = WB_CTL_CMD_ADD_UPLINK,
					[CLI_UPLINK_DEL] = WB_CTL_CMD_DEL_UPLINK,
					[CLI_UPLINK_HOTPLUG] = WB_CTL_CMD_SET_UPLINK };
	const char **const words[] = {
		[CLI_UPLINK_SET] = WORDS("lte", "weight", "9", "backup", "on"),
		[CLI_UPLINK_ADD] = WORDS("lte2", "dev", "wwan1", "source", "192.0.2.7", "fwmark", "5", "weight", "2"),
		[CLI_UPLINK_DEL] = WORDS("lte"),
		[CLI_UPLINK_HOTPLUG] = WORDS("lte", "dev", "wwan0", "up"),
	};
	static char buf[WB_CTL_MSG_MAX];
	struct nlmsghdr *nlh;
	struct wb_ctl_msg m;
	char why[256];

	(void)state;
	for (int cmd = 0; cmd < 4; cmd++) {
		parse_ok((enum cli_uplink_cmd)cmd, words[cmd]);
		nlh = cli_uplink_request(buf, &a);
		if (wb_ctl_parse(nlh, nlh->nlmsg_len, WB_CTL_REQUEST, &m, why, sizeof(why)))
			fail_msg("%s: the codec refused it: %s", cli_uplink_cmd_name(a.cmd), why);
		assert_int_equal(m.cmd, cmds[cmd]);
		assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_NAME]), a.name);
		/* The interface of set is the configuration's: only add sends one. */
		assert_true((m.u[WB_CTL_U_DEVICE] != NULL) == (cmd == CLI_UPLINK_ADD));
	}
	/* The hotplug form (the last) tells the interface's state, never the operator's switch. */
	assert_null(m.u[WB_CTL_U_ENABLED]);
	assert_int_equal(mnl_attr_get_u8(m.u[WB_CTL_U_IFACE_UP]), 1);
	parse_ok(CLI_UPLINK_SET, WORDS("lte", "up"));
	nlh = cli_uplink_request(buf, &a);
	assert_int_equal(wb_ctl_parse(nlh, nlh->nlmsg_len, WB_CTL_REQUEST, &m, why, sizeof(why)), 0);
	assert_int_equal(mnl_attr_get_u8(m.u[WB_CTL_U_ENABLED]), 1);
	assert_null(m.u[WB_CTL_U_IFACE_UP]);
	parse_ok(CLI_UPLINK_ADD, words[CLI_UPLINK_ADD]);
	nlh = cli_uplink_request(buf, &a);
	assert_int_equal(wb_ctl_parse(nlh, nlh->nlmsg_len, WB_CTL_REQUEST, &m, why, sizeof(why)), 0);
	assert_string_equal(mnl_attr_get_str(m.u[WB_CTL_U_SOURCE]), "192.0.2.7");
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_FWMARK]), 5);
	assert_int_equal(mnl_attr_get_u32(m.u[WB_CTL_U_WEIGHT]), 2);
	assert_null(m.u[WB_CTL_U_BACKUP]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers_as_the_file_writes_them),
		cmocka_unit_test(test_on_off),
		cmocka_unit_test(test_set),
		cmocka_unit_test(test_hotplug),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_del),
		cmocka_unit_test(test_requests),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
