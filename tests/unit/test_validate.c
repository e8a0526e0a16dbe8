// SPDX-License-Identifier: MIT
/* Unit tests: validate.c, the settings' values that the file, the control socket and the CLI share. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "validate.h"
#include "wire.h"

static char why[WB_WHY_MAX];

/* Every check leaves why alone on success, and may be asked without one. */
#define ACCEPTS(call) \
	do { \
		strcpy(why, "(untouched)"); \
		assert_int_equal(call, 0); \
		assert_string_equal(why, "(untouched)"); \
	} while (0)

#define REFUSES(call, phrase) \
	do { \
		assert_int_equal(call, -EINVAL); \
		assert_string_equal(why, phrase); \
	} while (0)

static void test_names(void **state)
{
	char longest[WB_UPLINK_NAME_MAX + 2];

	(void)state;
	ACCEPTS(wb_validate_name("lte-2_b.x", why, sizeof(why)));
	memset(longest, 'a', WB_UPLINK_NAME_MAX);
	longest[WB_UPLINK_NAME_MAX] = '\0';
	ACCEPTS(wb_validate_name(longest, why, sizeof(why)));
	strcat(longest, "b");
	REFUSES(wb_validate_name(longest, why, sizeof(why)),
		"'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab' is longer than 31 characters");
	REFUSES(wb_validate_name("", why, sizeof(why)), "the name is empty");
	REFUSES(wb_validate_name("d s l", why, sizeof(why)), "'d s l' has characters other than A-Z a-z 0-9 _ . -");
	/* What a socket sent is quoted escaped. */
	REFUSES(wb_validate_name("a\nb", why, sizeof(why)), "'a\\x0ab' has characters other than A-Z a-z 0-9 _ . -");
	assert_int_equal(wb_validate_name("a/b", NULL, 0), -EINVAL);
}

/* Each byte the wire takes in a name, and no other. */
static void test_name_characters_are_the_wires(void **state)
{
	char name[2] = { 0, 0 };

	(void)state;
	for (int c = 1; c < 256; c++) {
		name[0] = (char)c;
		assert_int_equal(wb_validate_name(name, NULL, 0) == 0, strchr(WB_NAME_CHARS, c) != NULL);
	}
}

static void test_ifnames(void **state)
{
	(void)state;
	ACCEPTS(wb_validate_ifname("wwan0", why, sizeof(why)));
	ACCEPTS(wb_validate_ifname("wb-0123456789ab", why, sizeof(why)));
	REFUSES(wb_validate_ifname("wb-0123456789abc", why, sizeof(why)), "'wb-0123456789abc' is longer than 15 characters");
	REFUSES(wb_validate_ifname("", why, sizeof(why)), "'' is not a valid interface name");
	REFUSES(wb_validate_ifname(".", why, sizeof(why)), "'.' is not a valid interface name");
	REFUSES(wb_validate_ifname("..", why, sizeof(why)), "'..' is not a valid interface name");
	REFUSES(wb_validate_ifname("wwan:0", why, sizeof(why)), "'wwan:0' is not a valid interface name");
	REFUSES(wb_validate_ifname("a/b", why, sizeof(why)), "'a/b' is not a valid interface name");
	REFUSES(wb_validate_ifname("a b", why, sizeof(why)), "'a b' is not a valid interface name");
	ACCEPTS(wb_validate_ifname("...", why, sizeof(why)));
}

static void test_numbers(void **state)
{
	(void)state;
	ACCEPTS(wb_validate_weight(WB_WEIGHT_MIN, why, sizeof(why)));
	ACCEPTS(wb_validate_weight(WB_WEIGHT_MAX, why, sizeof(why)));
	ACCEPTS(wb_validate_weight(WB_WEIGHT_DEFAULT, why, sizeof(why)));
	REFUSES(wb_validate_weight(0, why, sizeof(why)), "0 is out of range 1..1000");
	REFUSES(wb_validate_weight(1001, why, sizeof(why)), "1001 is out of range 1..1000");
	REFUSES(wb_validate_weight(-1, why, sizeof(why)), "-1 is out of range 1..1000");
	ACCEPTS(wb_validate_fwmark(1, why, sizeof(why)));
	ACCEPTS(wb_validate_fwmark(0xffffffffLL, why, sizeof(why)));
	REFUSES(wb_validate_fwmark(0, why, sizeof(why)), "0 is out of range 1..4294967295");
	REFUSES(wb_validate_fwmark(0x100000000LL, why, sizeof(why)), "4294967296 is out of range 1..4294967295");
}

static void test_binding(void **state)
{
	(void)state;
	ACCEPTS(wb_validate_binding(true, false, false, why, sizeof(why)));
	ACCEPTS(wb_validate_binding(false, true, false, why, sizeof(why)));
	ACCEPTS(wb_validate_binding(false, false, true, why, sizeof(why)));
	REFUSES(wb_validate_binding(false, false, false, why, sizeof(why)),
		"needs at least one of interface, source and fwmark");
}

static void test_ports(void **state)
{
	static const char *const bad[] = { "0", "65536", "", "+80", " 80", "80 ", "0x50", "123456", "-1" };
	uint16_t port = 7;

	(void)state;
	assert_int_equal(wb_parse_port("1", &port), 0);
	assert_int_equal(port, 1);
	assert_int_equal(wb_parse_port("65535", &port), 0);
	assert_int_equal(port, 65535);
	assert_int_equal(wb_parse_port("00080", &port), 0);
	assert_int_equal(port, 80);
	/* A refused text leaves the port as it was. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(wb_parse_port(bad[i], &port), -EINVAL);
	assert_int_equal(port, 80);
}

static void assert_port(const struct sockaddr_storage *ss, int family, uint16_t port)
{
	assert_int_equal(ss->ss_family, family);
	assert_int_equal(ntohs(family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
						 : ((const struct sockaddr_in6 *)ss)->sin6_port),
			 port);
}

static void test_sources(void **state)
{
	static const char *const bad[] = { "192.0.2.1:0", "192.0.2.1:65536", "192.0.2.1:", "[2001:db8::1",
					   "[192.0.2.1]:80", "host:80", "", "192.0.2.1:+80", "[2001:db8::1]x" };
	struct sockaddr_storage ss;

	(void)state;
	ACCEPTS(wb_validate_source(&ss, "192.0.2.10:4000", why, sizeof(why)));
	assert_port(&ss, AF_INET, 4000);
	ACCEPTS(wb_validate_source(&ss, "2001:db8::1", why, sizeof(why)));
	assert_port(&ss, AF_INET6, 0);
	ACCEPTS(wb_validate_source(&ss, "[2001:db8::1]:65535", why, sizeof(why)));
	assert_port(&ss, AF_INET6, 65535);
	ACCEPTS(wb_validate_source(NULL, "192.0.2.10", why, sizeof(why)));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(wb_validate_source(&ss, bad[i], NULL, 0), -EINVAL);
	REFUSES(wb_validate_source(&ss, "host:80", why, sizeof(why)),
		"'host:80' is not an address, address:port or [address]:port");
}

static void test_addresses(void **state)
{
	struct sockaddr_storage ss;

	(void)state;
	ACCEPTS(wb_validate_address(&ss, "198.51.100.7", AF_UNSPEC, 51820, why, sizeof(why)));
	assert_port(&ss, AF_INET, 51820);
	ACCEPTS(wb_validate_address(&ss, "::", AF_INET6, 1, why, sizeof(why)));
	assert_port(&ss, AF_INET6, 1);
	REFUSES(wb_validate_address(&ss, "198.51.100.7", AF_INET6, 1, why, sizeof(why)),
		"'198.51.100.7' is not an IPv4 or IPv6 address");
	REFUSES(wb_validate_address(&ss, "vps.example.com", AF_UNSPEC, 1, why, sizeof(why)),
		"'vps.example.com' is not an IPv4 or IPv6 address");
	assert_int_equal(ss.ss_family, AF_UNSPEC);
}

/* A phrase is cut to the room given, and a value too long to quote whole is cut in it. */
static void test_short_room(void **state)
{
	char small[8], name[300];

	(void)state;
	assert_int_equal(wb_validate_weight(0, small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "0 is ou");
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(wb_validate_name(name, why, sizeof(why)), -EINVAL);
	assert_true(strlen(why) < sizeof(why) - 1);
	assert_non_null(strstr(why, "' is longer than 31 characters"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_name_characters_are_the_wires),
		cmocka_unit_test(test_ifnames),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_binding),
		cmocka_unit_test(test_ports),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_short_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
