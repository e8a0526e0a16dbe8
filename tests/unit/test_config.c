// SPDX-License-Identifier: MIT
/* Unit tests: config.c, the configuration file of wanbondd. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_parse.h"
#include "wanbond.h"
#include "crypto.h"
#include "read_whole.h"

/* Test keys: each private key's public key, as wb_x25519_public gives it. */
#define R_PRIV "KjVAS1ZhbHeCjZijrrnEz9rl8PsGERwnMj1IU15pdH8="
#define R_PUB "yb35g17ryfpD/SA9B4ovqyegIUZpzu1DW+DcWbYeHws="
#define V_PRIV "T1plcHuGkZynsr3I097p9P8KFSArNkFMV2JteIOOmaQ="
#define V_PUB "FI9ZbbVAveaVM3FrURJ+JKMi2Q+t/xRUwXPnA+z3RnA="
#define O_PUB "XhlNzqxlnCHHcbVEHNltu90C2CM9b2efedLox+XGEBI="
#define PSK "maSvusXQ2+bx/AcSHSgzPklUX2p1gIuWoay3ws3Y4+4="
#define ZERO_KEY "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

/* A client with every setting; the numbers are the lines the messages name. */
static const char client_full[] =
	"role = \"client\";\n"                                          /* 1 */
	"name = \"home\";\n"                                            /* 2 */
	"private_key = \"" R_PRIV "\";\n"                               /* 3 */
	"cipher = \"chacha20-poly1305\";\n"                             /* 4 */
	"server = {\n"                                                  /* 5 */
	"  address = \"198.51.100.7\";\n"                               /* 6 */
	"  port = 51821;\n"                                             /* 7 */
	"  public_key = \"" V_PUB "\";\n"                               /* 8 */
	"  preshared_key = \"" PSK "\";\n"                              /* 9 */
	"};\n"                                                          /* 10 */
	"tun = {\n"                                                     /* 11 */
	"  name = \"wb-x\";\n"                                          /* 12 */
	"  address = [ \"10.255.0.2/30\", \"fd00:255::2/64\" ];\n"      /* 13 */
	"  mtu = 1400;\n"                                               /* 14 */
	"};\n"                                                          /* 15 */
	"routes = [ \"10.2.0.0/24\", \"fd00:2::/64\" ];\n"              /* 16 */
	"uplinks = (\n"                                                 /* 17 */
	"  { name = \"dsl\"; interface = \"wan1\"; },\n"                /* 18 */
	"  { name = \"lte\"; interface = \"wwan0\"; weight = 2; },\n"   /* 19 */
	"  { name = \"sat\"; interface = \"wan3\"; source = \"192.0.2.10\";"         /* 20 */
	" fwmark = 0x200; backup = true; }\n"
	");\n"                                                          /* 21 */
	"timers = {\n"                                                  /* 22 */
	"  probe_interval_ms = 100;\n"                                  /* 23 */
	"  uplink_timeout_ms = 500;\n"                                  /* 24 */
	"  handshake_retry_ms = 2000;\n"                                /* 25 */
	"  rekey_after_seconds = 60;\n"                                 /* 26 */
	"  rekey_after_messages = 1000000L;\n"                          /* 27 */
	"};\n";                                                         /* 28 */

/* A client with only what is required. */
static const char client_min[] =
	"role = \"client\";\n"                                                          /* 1 */
	"name = \"home\";\n"                                                            /* 2 */
	"private_key = \"" R_PRIV "\";\n"                                               /* 3 */
	"server = { address = \"198.51.100.7\"; public_key = \"" V_PUB "\"; };\n"        /* 4 */
	"tun = { address = [ \"10.255.0.2/30\" ]; };\n"                                 /* 5 */
	"uplinks = ( { name = \"dsl\"; interface = \"wan1\"; } );\n";                   /* 6 */

static const char server_full[] =
	"role = \"server\";\n"                                                          /* 1 */
	"name = \"vps\";\n"                                                             /* 2 */
	"private_key = \"" V_PRIV "\";\n"                                               /* 3 */
	"cipher = \"aes-256-gcm\";\n"                                                   /* 4 */
	"listen = { port = 51821; address = \"0.0.0.0\"; };\n"                          /* 5 */
	"peers = (\n"                                                                   /* 6 */
	"  {\n"                                                                         /* 7 */
	"    name = \"home\";\n"                                                        /* 8 */
	"    public_key = \"" R_PUB "\";\n"                                             /* 9 */
	"    preshared_key = \"" PSK "\";\n"                                            /* 10 */
	"    tun = { name = \"wb-h\"; address = [ \"10.255.0.1/30\" ]; mtu = 1400; };\n" /* 11 */
	"    routes = [ \"10.1.0.0/24\" ];\n"                                           /* 12 */
	"  },\n"                                                                        /* 13 */
	"  {\n"                                                                         /* 14 */
	"    name = \"office\";\n"                                                      /* 15 */
	"    public_key = \"" O_PUB "\";\n"                                             /* 16 */
	"    tun = { address = [ \"10.255.0.5/30\", \"fd00:255:1::1/64\" ]; };\n"       /* 17 */
	"  }\n"                                                                         /* 18 */
	");\n";                                                                         /* 19 */

static const char server_min[] =
	"role = \"server\";\n"                                                          /* 1 */
	"name = \"vps\";\n"                                                             /* 2 */
	"private_key = \"" V_PRIV "\";\n"                                               /* 3 */
	"peers = ( { name = \"home\"; public_key = \"" R_PUB "\";\n"                    /* 4 */
	"            tun = { address = [ \"10.255.0.1/30\" ]; }; } );\n";               /* 5 */

/* base with its one occurrence of old replaced by new. */
static char *with(const char *base, const char *old, const char *new)
{
	const char *at = strstr(base, old);
	size_t blen = strlen(base), olen = strlen(old), nlen = strlen(new);
	char *out;

	if (!at || strstr(at + 1, old))
		fail_msg("'%s' is not in the base config exactly once", old);
	out = malloc(blen - olen + nlen + 1);
	assert_non_null(out);
	memcpy(out, base, (size_t)(at - base));
	memcpy(out + (at - base), new, nlen);
	strcpy(out + (at - base) + nlen, at + olen);
	return out;
}

static void expect_with(const char *base, const char *old, const char *new, const char *msg)
{
	char *text = with(base, old, new);

	expect_error(text, msg);
	free(text);
}

static void ok_with(const char *base, const char *old, const char *new)
{
	char *text = with(base, old, new);

	parse_ok(text);
	free(text);
}

static void assert_key(const uint8_t key[WB_KEY_LEN], const char *b64)
{
	char text[WB_KEY_B64_LEN];

	wb_key_to_base64(text, key);
	assert_string_equal(text, b64);
}

static void assert_sockaddr(const struct sockaddr_storage *ss, const char *addr, uint16_t port)
{
	char text[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text));
		assert_int_equal(ntohs(sin->sin_port), port);
	} else {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		assert_int_equal(ss->ss_family, AF_INET6);
		inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text));
		assert_int_equal(ntohs(sin6->sin6_port), port);
	}
	assert_string_equal(text, addr);
}

static void assert_prefix(const struct wb_prefix *p, const char *addr, int len)
{
	char text[INET6_ADDRSTRLEN];

	inet_ntop(p->family, p->addr, text, sizeof(text));
	assert_string_equal(text, addr);
	assert_int_equal(p->len, len);
}

static bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/* ---- the examples in conf/ ---- */

/* conf/NAME: from the working directory (make check runs in the root), or beside the binary's build tree. */
static void example_path(char *out, size_t size, const char *name)
{
	char exe[PATH_MAX], *slash;
	ssize_t n;

	snprintf(out, size, "conf/%s", name);
	if (!access(out, R_OK))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	/* build/tests/unit/test_config or build/san/tests/unit/test_config */
	for (int up = 0; up < 6 && (slash = strrchr(exe, '/')); up++) {
		*slash = '\0';
		snprintf(out, size, "%s/conf/%s", exe, name);
		if (!access(out, R_OK))
			return;
	}
	fail_msg("conf/%s not found", name);
}

/* The text of conf/NAME, read whole (freed by the caller). */
static char *read_example(const char *name)
{
	char path[PATH_MAX + 32];

	example_path(path, sizeof(path), name);
	return read_whole(path);
}

/* The key whose base64 starts at text (an example's "...", its closing quote after it). */
static void key_at(uint8_t key[WB_KEY_LEN], const char *text)
{
	char b64[WB_KEY_B64_LEN];

	memcpy(b64, text, WB_KEY_B64_LEN - 1);
	b64[WB_KEY_B64_LEN - 1] = '\0';
	assert_int_equal(wb_key_from_base64(key, b64), 0);
}

/*
 * conf/NAME parsed with keys of its own: each example key (refused as it
 * is: test_examples_are_refused) swapped for another, the same for the
 * same, so that what the file says of its keys still holds.
 */
static void load_example(const char *name)
{
	char *text = read_example(name), *at = text, b64[WB_KEY_B64_LEN];
	uint8_t key[WB_KEY_LEN];

	while ((at = strstr(at, "key = \""))) {
		at += strlen("key = \"");
		if (strlen(at) < WB_KEY_B64_LEN || at[WB_KEY_B64_LEN - 1] != '"')
			continue;
		key_at(key, at);
		for (int i = 0; i < WB_KEY_LEN; i++)
			key[i] ^= 0x5a;
		wb_key_to_base64(b64, key);
		memcpy(at, b64, WB_KEY_B64_LEN - 1);
	}
	if (wb_config_parse(&cfg, text, name, err, sizeof(err)))
		fail_msg("%s", err);
	free(text);
}

/* The key of the nth (from 0) line of conf/NAME that sets setting. */
static void example_key(uint8_t key[WB_KEY_LEN], const char *name, const char *setting, int nth)
{
	char *text = read_example(name), *at = text, pattern[64];

	snprintf(pattern, sizeof(pattern), "%s = \"", setting);
	for (int i = 0; i <= nth; i++) {
		at = strstr(at, pattern);
		assert_non_null(at);
		at += strlen(pattern);
	}
	key_at(key, at);
	free(text);
}

static void public_of(uint8_t pub[WB_KEY_LEN], const uint8_t priv[WB_KEY_LEN])
{
	uint8_t copy[WB_KEY_LEN];

	memcpy(copy, priv, WB_KEY_LEN);
	wb_x25519_clamp(copy);
	assert_int_equal(wb_x25519_public(pub, copy), 0);
}

/* As shipped, the examples are refused: their keys are printed for everyone to read. */
static void test_examples_are_refused(void **state)
{
	static const char *const names[] = { "router.conf", "vps.conf" };
	char path[PATH_MAX + 32];

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		example_path(path, sizeof(path), names[i]);
		assert_int_equal(wb_config_load(&cfg, path, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "private_key: an example key printed in wanbond's documentation"));
	}
}

static void test_example_router(void **state)
{
	(void)state;
	load_example("router.conf");
	assert_int_equal(cfg.role, WB_ROLE_CLIENT);
	assert_string_equal(cfg.name, "home");
	assert_int_equal(cfg.n_uplinks, 3);
	assert_string_equal(cfg.uplinks[0].name, "dsl");
	assert_string_equal(cfg.uplinks[1].name, "lte");
	assert_string_equal(cfg.uplinks[2].name, "sat");
	assert_true(cfg.uplinks[2].backup);
	assert_false(cfg.uplinks[0].backup || cfg.uplinks[1].backup);
	assert_int_equal(cfg.n_peers, 1);
	assert_string_equal(cfg.peers[0].tun.name, "wb-home");
	assert_true(cfg.peers[0].has_preshared_key);
	assert_int_equal(cfg.timers.rekey_after_messages, 1ULL << 60);
}

static void test_example_vps(void **state)
{
	(void)state;
	load_example("vps.conf");
	assert_int_equal(cfg.role, WB_ROLE_SERVER);
	assert_int_equal(cfg.n_peers, 2);
	assert_string_equal(cfg.peers[0].name, "home");
	assert_string_equal(cfg.peers[1].name, "office");
	assert_string_equal(cfg.peers[1].tun.name, "wb-office");
	assert_int_equal(cfg.peers[1].tun.mtu, 1400);
	assert_sockaddr(&cfg.listen, "::", 51820);
}

/* The two examples are two ends of one bond: their keys must match. */
static void test_examples_match(void **state)
{
	uint8_t router_priv[WB_KEY_LEN], vps_priv[WB_KEY_LEN], pub[WB_KEY_LEN], key[WB_KEY_LEN], psk[WB_KEY_LEN];
	static struct wb_config router;

	(void)state;
	example_key(router_priv, "router.conf", "private_key", 0);
	example_key(vps_priv, "vps.conf", "private_key", 0);
	public_of(pub, router_priv);
	example_key(key, "vps.conf", "public_key", 0); /* its first peer, home */
	assert_memory_equal(pub, key, WB_KEY_LEN);
	public_of(pub, vps_priv);
	example_key(key, "router.conf", "public_key", 0); /* the server's */
	assert_memory_equal(pub, key, WB_KEY_LEN);
	example_key(psk, "router.conf", "preshared_key", 0);
	example_key(key, "vps.conf", "preshared_key", 0);
	assert_memory_equal(psk, key, WB_KEY_LEN);
	load_example("router.conf");
	router = cfg;
	load_example("vps.conf");
	assert_int_equal(router.cipher, cfg.cipher);
}

/* ---- what parses, and the defaults ---- */

static void test_client_defaults(void **state)
{
	const struct wb_conf_peer *server = &cfg.peers[0];
	const struct wb_conf_uplink *up = &cfg.uplinks[0];

	(void)state;
	parse_ok(client_min);
	assert_string_equal(cfg.path, "t.conf");
	assert_int_equal(cfg.role, WB_ROLE_CLIENT);
	assert_string_equal(cfg.name, "home");
	assert_key(cfg.private_key, R_PRIV); /* as given: clamped where it is used */
	assert_int_equal(cfg.cipher, WB_CIPHER_CHACHA20_POLY1305);
	assert_int_equal(cfg.timers.probe_interval_ms, 250);
	assert_int_equal(cfg.timers.uplink_timeout_ms, 1000);
	assert_int_equal(cfg.timers.handshake_retry_ms, 1000);
	assert_int_equal(cfg.timers.rekey_after_seconds, 120);
	assert_int_equal(cfg.timers.rekey_after_messages, 1ULL << 60);
	assert_sockaddr(&cfg.server, "198.51.100.7", 51820);
	assert_int_equal(cfg.listen.ss_family, AF_UNSPEC);
	assert_int_equal(cfg.n_peers, 1);
	assert_string_equal(server->name, "home");
	assert_key(server->public_key, V_PUB);
	assert_false(server->has_preshared_key);
	assert_true(all_zero(server->preshared_key, WB_KEY_LEN));
	assert_string_equal(server->tun.name, "wb-home");
	assert_int_equal(server->tun.n_address, 1);
	assert_prefix(&server->tun.address[0], "10.255.0.2", 30);
	assert_int_equal(server->tun.mtu, 0);
	assert_int_equal(server->n_routes, 0);
	assert_int_equal(server->line, 4);
	assert_int_equal(cfg.n_uplinks, 1);
	assert_string_equal(up->name, "dsl");
	assert_string_equal(up->interface, "wan1");
	assert_int_equal(up->source.ss_family, AF_UNSPEC);
	assert_false(up->has_fwmark);
	assert_int_equal(up->fwmark, 0);
	assert_false(up->backup);
	assert_int_equal(up->weight, 1);
	assert_int_equal(up->line, 6);
}

static void test_client_full(void **state)
{
	const struct wb_conf_peer *server = &cfg.peers[0];
	const struct wb_conf_uplink *sat = &cfg.uplinks[2];

	(void)state;
	parse_ok(client_full);
	assert_sockaddr(&cfg.server, "198.51.100.7", 51821);
	assert_true(server->has_preshared_key);
	assert_key(server->preshared_key, PSK);
	assert_string_equal(server->tun.name, "wb-x");
	assert_int_equal(server->tun.n_address, 2);
	assert_prefix(&server->tun.address[1], "fd00:255::2", 64);
	assert_int_equal(server->tun.address[1].family, AF_INET6);
	assert_int_equal(server->tun.mtu, 1400);
	assert_int_equal(server->n_routes, 2);
	assert_prefix(&server->routes[0], "10.2.0.0", 24);
	assert_prefix(&server->routes[1], "fd00:2::", 64);
	assert_int_equal(server->line, 5);
	assert_int_equal(cfg.n_uplinks, 3);
	assert_int_equal(cfg.uplinks[1].weight, 2);
	assert_int_equal(cfg.uplinks[1].line, 19);
	assert_string_equal(sat->interface, "wan3");
	assert_sockaddr(&sat->source, "192.0.2.10", 0);
	assert_true(sat->has_fwmark);
	assert_int_equal(sat->fwmark, 0x200);
	assert_true(sat->backup);
	assert_int_equal(cfg.timers.probe_interval_ms, 100);
	assert_int_equal(cfg.timers.uplink_timeout_ms, 500);
	assert_int_equal(cfg.timers.handshake_retry_ms, 2000);
	assert_int_equal(cfg.timers.rekey_after_seconds, 60);
	assert_int_equal(cfg.timers.rekey_after_messages, 1000000);
}

static void test_server_defaults(void **state)
{
	(void)state;
	parse_ok(server_min);
	assert_int_equal(cfg.role, WB_ROLE_SERVER);
	assert_string_equal(cfg.name, "vps");
	assert_sockaddr(&cfg.listen, "::", 51820);
	assert_int_equal(cfg.server.ss_family, AF_UNSPEC);
	assert_int_equal(cfg.n_uplinks, 0);
	assert_int_equal(cfg.n_peers, 1);
	assert_string_equal(cfg.peers[0].name, "home");
	assert_string_equal(cfg.peers[0].tun.name, "wb-home");
	assert_false(cfg.peers[0].has_preshared_key);
	assert_int_equal(cfg.peers[0].line, 4);
	assert_int_equal(cfg.timers.rekey_after_seconds, 120);
}

static void test_server_full(void **state)
{
	(void)state;
	parse_ok(server_full);
	assert_int_equal(cfg.cipher, WB_CIPHER_AES_256_GCM);
	assert_sockaddr(&cfg.listen, "0.0.0.0", 51821);
	assert_int_equal(cfg.n_peers, 2);
	assert_key(cfg.peers[0].public_key, R_PUB);
	assert_key(cfg.peers[0].preshared_key, PSK);
	assert_string_equal(cfg.peers[0].tun.name, "wb-h");
	assert_int_equal(cfg.peers[0].tun.mtu, 1400);
	assert_int_equal(cfg.peers[0].n_routes, 1);
	assert_int_equal(cfg.peers[0].line, 7);
	assert_string_equal(cfg.peers[1].name, "office");
	assert_string_equal(cfg.peers[1].tun.name, "wb-office");
	assert_int_equal(cfg.peers[1].tun.n_address, 2);
	assert_int_equal(cfg.peers[1].n_routes, 0);
	assert_int_equal(cfg.peers[1].line, 14);
}

/* The default TUN name is "wb-" and the name, cut to the kernel's 15 characters. */
static void test_default_tun_name_truncated(void **state)
{
	(void)state;
	ok_with(server_min, "name = \"home\"", "name = \"a-very-long-peer-name\"");
	assert_string_equal(cfg.peers[0].tun.name, "wb-a-very-long-");
	ok_with(client_min, "name = \"home\"", "name = \"abcdefghijklmnopqrstuvwxyz01234\"");
	assert_string_equal(cfg.peers[0].tun.name, "wb-abcdefghijkl");
	assert_string_equal(cfg.peers[0].name, "abcdefghijklmnopqrstuvwxyz01234");
}

static void test_listen_v6_and_port(void **state)
{
	(void)state;
	ok_with(server_min, "name = \"vps\";", "name = \"vps\"; listen = { address = \"2001:db8::1\"; port = 1; };");
	assert_sockaddr(&cfg.listen, "2001:db8::1", 1);
	ok_with(server_min, "name = \"vps\";", "name = \"vps\"; listen = { port = 65535; };");
	assert_sockaddr(&cfg.listen, "::", 65535);
}

static void test_server_address_v6(void **state)
{
	(void)state;
	ok_with(client_min, "\"198.51.100.7\"", "\"2001:db8::7\"");
	assert_sockaddr(&cfg.server, "2001:db8::7", 51820);
}

static void test_uplink_sources(void **state)
{
	const struct sockaddr_storage *src = &cfg.uplinks[0].source;

	(void)state;
	ok_with(client_min, "interface = \"wan1\"", "source = \"192.0.2.1:4000\"");
	assert_sockaddr(src, "192.0.2.1", 4000);
	assert_string_equal(cfg.uplinks[0].interface, "");
	ok_with(client_min, "interface = \"wan1\"", "source = \"2001:db8::1\"");
	assert_sockaddr(src, "2001:db8::1", 0);
	ok_with(client_min, "interface = \"wan1\"", "source = \"[2001:db8::1]:65535\"");
	assert_sockaddr(src, "2001:db8::1", 65535);
	ok_with(client_min, "interface = \"wan1\"", "source = \"[2001:db8::1]\"");
	assert_sockaddr(src, "2001:db8::1", 0);
}

/* A policy rule per uplink: it needs the mark, keeps off the system's tables, and gets a priority below mwan3's. */
static void test_policy_rule(void **state)
{
	(void)state;
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 0x10000; table = 101");
	assert_int_equal(cfg.uplinks[0].table, 101);
	assert_int_equal(cfg.uplinks[0].rule_priority, WB_RULE_PRIORITY_BASE);
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 0x10000; table = 300; rule_priority = 50");
	assert_int_equal(cfg.uplinks[0].table, 300);
	assert_int_equal(cfg.uplinks[0].rule_priority, 50);
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 0x10000");
	assert_int_equal(cfg.uplinks[0].table, 0);
	expect_with(client_min, "interface = \"wan1\"", "table = 101",
		    "t.conf:6: uplink 'dsl': table: a policy rule needs the uplink's fwmark");
	expect_with(client_min, "interface = \"wan1\"", "fwmark = 1; table = 254",
		    "t.conf:6: uplink 'dsl': table: 254 is the system's (default, main, local)");
	expect_with(client_min, "interface = \"wan1\"", "fwmark = 1; rule_priority = 10",
		    "t.conf:6: uplink 'dsl': rule_priority: without a table there is no rule");
	expect_with(client_min, "interface = \"wan1\"", "fwmark = 1; table = 5; rule_priority = 40000",
		    "t.conf:6: uplink 'dsl': rule_priority: 40000 is out of range 1..32765");
}

static void test_fwmark(void **state)
{
	(void)state;
	/* libconfig 1.5 reads 0xffffffff as the int -1: the bits are what was meant. */
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 0xffffffff");
	assert_true(cfg.uplinks[0].has_fwmark);
	assert_int_equal(cfg.uplinks[0].fwmark, 0xffffffffU);
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 0x80000000");
	assert_int_equal(cfg.uplinks[0].fwmark, 0x80000000U);
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 4294967295L");
	assert_int_equal(cfg.uplinks[0].fwmark, 0xffffffffU);
	ok_with(client_min, "interface = \"wan1\"", "fwmark = 1");
	assert_int_equal(cfg.uplinks[0].fwmark, 1);
	expect_with(client_min, "interface = \"wan1\"", "fwmark = 0",
		    "t.conf:6: uplink 'dsl': fwmark: 0 is out of range 1..4294967295");
	expect_with(client_min, "interface = \"wan1\"", "fwmark = -1",
		    "t.conf:6: uplink 'dsl': fwmark: -1 is out of range 1..4294967295");
	expect_with(client_min, "interface = \"wan1\"", "fwmark = 0x100000000",
		    "t.conf:6: integer 0x100000000 does not fit in 32 bits: write 0x100000000L");
	expect_with(client_min, "interface = \"wan1\"", "fwmark = 0x100000000L",
		    "t.conf:6: uplink 'dsl': fwmark: 4294967296 is out of range 1..4294967295");
}

static void test_rekey_after_messages(void **state)
{
	(void)state;
	ok_with(client_full, "1000000L", "1000");
	assert_int_equal(cfg.timers.rekey_after_messages, 1000);
	ok_with(client_full, "1000000L", "1152921504606846976L");
	assert_int_equal(cfg.timers.rekey_after_messages, 1ULL << 60);
	expect_with(client_full, "1000000L", "999",
		    "t.conf:27: timers.rekey_after_messages: 999 is out of range 1000..1152921504606846976");
	expect_with(client_full, "1000000L", "1152921504606846977L",
		    "t.conf:27: timers.rekey_after_messages: 1152921504606846977 is out of range "
		    "1000..1152921504606846976");
	/* Without L, libconfig 1.5 would keep the low 32 bits: 10000000000 would read 1410065408. */
	expect_with(client_full, "1000000L", "10000000000",
		    "t.conf:27: integer 10000000000 does not fit in 32 bits: write 10000000000L");
}

static void test_ciphers(void **state)
{
	(void)state;
	ok_with(client_full, "chacha20-poly1305", "aes-256-gcm");
	assert_int_equal(cfg.cipher, WB_CIPHER_AES_256_GCM);
	expect_with(client_full, "chacha20-poly1305", "aes-128-gcm",
		    "t.conf:4: cipher: 'aes-128-gcm' is neither \"chacha20-poly1305\" nor \"aes-256-gcm\"");
	expect_with(client_full, "\"chacha20-poly1305\"", "1", "t.conf:4: cipher: expected a string");
}

/* Comments and strings are not read as settings or numbers; floats are not integers. */
static void test_scanner(void **state)
{
	(void)state;
	ok_with(client_min, "name = \"home\";",
		"name = \"home\"; # @include \"/etc/passwd\" 99999999999\n"
		"// 4294967296 @include\n"
		"/* 0x100000000\n @include \"x\" */");
	assert_string_equal(cfg.name, "home");
	ok_with(client_min, "interface = \"wan1\"", "interface = \"a-1\"");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\n@include \"/etc/passwd\"",
		    "t.conf:3: @include is not supported");
	expect_with(client_min, "interface = \"wan1\";", "interface = \"wan1\"; weight = 2.0;",
		    "t.conf:6: uplink 'dsl': weight: expected an integer");
	expect_with(client_min, "interface = \"wan1\";", "interface = \"wan1\"; weight = 1e10;",
		    "t.conf:6: uplink 'dsl': weight: expected an integer");
	expect_with(client_min, "interface = \"wan1\";", "interface = \"wan1\"; weight = -4294967296;",
		    "t.conf:6: integer -4294967296 does not fit in 32 bits: write -4294967296L");
	/* Strings and comments over several lines keep the count of lines right. */
	expect_with(client_min, "name = \"home\";", "name = \"home\"; s = \"\n\\\"\n\"; /* \" \n */ z = 4294967296;",
		    "t.conf:5: integer 4294967296 does not fit in 32 bits: write 4294967296L");
}

/* ---- syntax and structure ---- */

static void test_syntax_error(void **state)
{
	(void)state;
	expect_with(client_min, "name = \"home\";", "name = = \"home\";", "t.conf:2: syntax error");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\nname = \"x\";",
		    "t.conf:3: duplicate setting name");
	expect_error("", "t.conf: missing setting 'role'");
}

static void test_role(void **state)
{
	(void)state;
	expect_with(client_min, "role = \"client\";\n", "\n", "t.conf: missing setting 'role'");
	expect_with(client_min, "\"client\"", "\"router\"",
		    "t.conf:1: role: 'router' is neither \"client\" nor \"server\"");
	expect_with(client_min, "\"client\"", "true", "t.conf:1: role: expected a string");
}

static void test_settings_of_the_other_role(void **state)
{
	(void)state;
	expect_with(client_min, "name = \"home\";", "name = \"home\"; listen = { port = 1; };",
		    "t.conf:2: 'listen' is not allowed with role = \"client\"");
	expect_with(client_min, "name = \"home\";", "name = \"home\"; peers = ();",
		    "t.conf:2: 'peers' is not allowed with role = \"client\"");
	expect_with(server_min, "name = \"vps\";", "name = \"vps\";\nuplinks = ();",
		    "t.conf:3: 'uplinks' is not allowed with role = \"server\"");
	expect_with(server_min, "name = \"vps\";", "name = \"vps\";\nserver = {};",
		    "t.conf:3: 'server' is not allowed with role = \"server\"");
	expect_with(server_min, "name = \"vps\";", "name = \"vps\";\ntun = {};",
		    "t.conf:3: 'tun' is not allowed with role = \"server\"");
	expect_with(server_min, "name = \"vps\";", "name = \"vps\";\nroutes = [];",
		    "t.conf:3: 'routes' is not allowed with role = \"server\"");
}

static void test_unknown_settings(void **state)
{
	(void)state;
	expect_with(client_full, "uplinks = (", "uplink = (", "t.conf:17: unknown setting 'uplink'");
	expect_with(client_full, "port = 51821;", "prot = 51821;", "t.conf:7: unknown setting 'server.prot'");
	expect_with(client_full, "mtu = 1400;", "mtu = 1400; mut = 1;", "t.conf:14: unknown setting 'tun.mut'");
	expect_with(client_full, "weight = 2;", "wieght = 2;", "t.conf:19: uplink 'lte': unknown setting 'wieght'");
	expect_with(client_full, "rekey_after_seconds", "rekey_after_second",
		    "t.conf:26: unknown setting 'timers.rekey_after_second'");
	expect_with(server_full, "address = \"0.0.0.0\";", "adress = \"0.0.0.0\";",
		    "t.conf:5: unknown setting 'listen.adress'");
	expect_with(server_full, "routes = [ \"10.1.0.0/24\" ];", "route = [ \"10.1.0.0/24\" ];",
		    "t.conf:12: peer 'home': unknown setting 'route'");
	expect_with(server_full, "mtu = 1400;", "mtu = 1400; nmae = \"x\";",
		    "t.conf:11: peer 'home': unknown setting 'tun.nmae'");
	/* Without a name, a misspelt name is the message. */
	expect_with(client_min, "name = \"dsl\";", "nmae = \"dsl\";", "t.conf:6: uplink #1: unknown setting 'nmae'");
}

static void test_missing_settings(void **state)
{
	(void)state;
	expect_with(client_min, "name = \"home\";\n", "", "t.conf: missing setting 'name'");
	expect_with(client_min, "server = { address = \"198.51.100.7\"; public_key = \"" V_PUB "\"; };\n", "",
		    "t.conf: missing setting 'server'");
	expect_with(client_min, "tun = { address = [ \"10.255.0.2/30\" ]; };\n", "",
		    "t.conf: missing setting 'tun'");
	expect_with(client_min, "uplinks = ( { name = \"dsl\"; interface = \"wan1\"; } );\n", "",
		    "t.conf: missing setting 'uplinks'");
	expect_with(client_min, "address = \"198.51.100.7\"; ", "",
		    "t.conf:4: missing setting 'server.address'");
	expect_with(client_min, "public_key = \"" V_PUB "\"; ", "",
		    "t.conf:4: missing setting 'server.public_key'");
	expect_with(client_min, "address = [ \"10.255.0.2/30\" ]; ", "", "t.conf:5: missing setting 'tun.address'");
	expect_with(client_min, "name = \"dsl\"; ", "", "t.conf:6: uplink #1: missing setting 'name'");
	expect_with(server_min, "peers", "peer", "t.conf:4: unknown setting 'peer'");
	expect_with(server_min, "peers = ( { name = \"home\"; public_key = \"" R_PUB "\";\n"
				"            tun = { address = [ \"10.255.0.1/30\" ]; }; } );\n", "",
		    "t.conf: missing setting 'peers'");
	expect_with(server_min, "name = \"home\"; ", "", "t.conf:4: peer #1: missing setting 'name'");
	expect_with(server_min, "public_key = \"" R_PUB "\";", "",
		    "t.conf:4: peer 'home': missing setting 'public_key'");
	expect_with(server_min, "tun = { address = [ \"10.255.0.1/30\" ]; };", "",
		    "t.conf:4: peer 'home': missing setting 'tun'");
}

static void test_wrong_types(void **state)
{
	(void)state;
	expect_with(client_full, "port = 51821;", "port = \"51821\";", "t.conf:7: server.port: expected an integer");
	expect_with(client_full, "backup = true;", "backup = 1;",
		    "t.conf:20: uplink 'sat': backup: expected true or false");
	expect_with(client_full, "server = {\n", "server = (\n", "t.conf:6: syntax error");
	expect_with(client_min, "tun = { address = [ \"10.255.0.2/30\" ]; };", "tun = 1;",
		    "t.conf:5: tun: expected a group { ... }");
	expect_with(client_min, "( { name = \"dsl\"; interface = \"wan1\"; } )",
		    "{ name = \"dsl\"; interface = \"wan1\"; }", "t.conf:6: uplinks: expected a list [ ... ]");
	expect_with(client_min, "( { name = \"dsl\"; interface = \"wan1\"; } )", "( \"dsl\" )",
		    "t.conf:6: uplink #1: expected a group { ... }");
	expect_with(client_min, "[ \"10.255.0.2/30\" ]", "\"10.255.0.2/30\"",
		    "t.conf:5: tun.address: expected a list [ ... ]");
	expect_with(client_min, "[ \"10.255.0.2/30\" ]", "[ 10 ]", "t.conf:5: tun.address: expected strings");
	expect_with(client_min, "name = \"home\";", "name = 7;", "t.conf:2: name: expected a string");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\ntimers = 5;",
		    "t.conf:3: timers: expected a group { ... }");
	expect_with(client_min, "name = \"dsl\";", "name = [ \"dsl\" ];",
		    "t.conf:6: uplink #1: name: expected a string");
}

static void test_names(void **state)
{
	(void)state;
	expect_with(client_min, "\"home\"", "\"\"", "t.conf:2: name: the name is empty");
	expect_with(client_min, "\"home\"", "\"home office\"",
		    "t.conf:2: name: 'home office' has characters other than A-Z a-z 0-9 _ . -");
	expect_with(client_min, "\"home\"", "\"h/x\"",
		    "t.conf:2: name: 'h/x' has characters other than A-Z a-z 0-9 _ . -");
	expect_with(client_min, "\"home\"", "\"abcdefghijklmnopqrstuvwxyz012345\"",
		    "t.conf:2: name: 'abcdefghijklmnopqrstuvwxyz012345' is longer than 31 characters");
	expect_with(client_min, "\"dsl\"", "\"d s l\"",
		    "t.conf:6: uplink #1: name: 'd s l' has characters other than A-Z a-z 0-9 _ . -");
	expect_with(server_min, "\"home\"", "\"\"", "t.conf:4: peer #1: name: the name is empty");
}

/* ---- keys ---- */

static void test_keys(void **state)
{
	(void)state;
	expect_with(client_min, R_PRIV, "not base64", "t.conf:3: private_key: not a base64 key of 32 bytes");
	expect_with(client_min, R_PRIV, "KjVAS1ZhbHeCjZijrrnEz9rl8PsGERwnMj1IU15pdA==",
		    "t.conf:3: private_key: not a base64 key of 32 bytes");
	expect_with(client_min, R_PRIV, ZERO_KEY, "t.conf:3: private_key: the key is all zeros");
	expect_with(client_min, V_PUB, ZERO_KEY, "t.conf:4: server.public_key: the key is all zeros");
	expect_with(client_min, V_PUB, "x", "t.conf:4: server.public_key: not a base64 key of 32 bytes");
	expect_with(client_full, PSK, ZERO_KEY, "t.conf:9: server.preshared_key: the key is all zeros");
	expect_with(server_full, PSK, "", "t.conf:10: peer 'home': preshared_key: not a base64 key of 32 bytes");
	expect_with(client_min, "private_key = \"" R_PRIV "\";\n", "\n",
		    "t.conf: missing setting 'private_key' (or 'private_key_file')");
	expect_with(client_min, "\";\nserver", "\"; private_key_file = \"/k\";\nserver",
		    "t.conf:3: private_key_file: private_key is set too; keep one of them");
	expect_with(client_full, "preshared_key = \"" PSK "\";",
		    "preshared_key = \"" PSK "\"; preshared_key_file = \"/k\";",
		    "t.conf:9: server.preshared_key_file: server.preshared_key is set too; keep one of them");
}

/* A peer with our own public key is an error, as are two peers with one key. */
static void test_own_and_duplicate_keys(void **state)
{
	(void)state;
	expect_with(client_min, V_PUB, R_PUB, "t.conf:4: server.public_key: our own public key, not the server's");
	expect_with(server_full, O_PUB, V_PUB,
		    "t.conf:14: peer 'office': public_key: our own public key, not the peer's");
	expect_with(server_full, O_PUB, R_PUB, "t.conf:14: peer 'office': public_key: the same as peer 'home''s");
}

/* Writes a temporary file; returns its path in path. */
static void temp_file(char path[64], const char *content)
{
	int fd;

	strcpy(path, "/tmp/wb-test-config-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	close(fd);
}

static char *key_file_config(const char *base, const char *old, const char *key, const char *path)
{
	char line[256];

	snprintf(line, sizeof(line), "%s_file = \"%s\"", key, path);
	return with(base, old, line);
}

static void test_key_files(void **state)
{
	char path[64], *text;

	(void)state;
	temp_file(path, R_PRIV "\n");
	text = key_file_config(client_min, "private_key = \"" R_PRIV "\"", "private_key", path);
	parse_ok(text);
	assert_key(cfg.private_key, R_PRIV);
	free(text);
	unlink(path);

	temp_file(path, PSK);
	text = key_file_config(client_full, "preshared_key = \"" PSK "\"", "preshared_key", path);
	parse_ok(text);
	assert_true(cfg.peers[0].has_preshared_key);
	assert_key(cfg.peers[0].preshared_key, PSK);
	free(text);
	unlink(path);

	temp_file(path, PSK "\r\n");
	text = key_file_config(server_full, "preshared_key = \"" PSK "\"", "preshared_key", path);
	parse_ok(text);
	assert_key(cfg.peers[0].preshared_key, PSK);
	free(text);
	unlink(path);
}

/*
 * As wg(8) does: a key file, or a file with a key written in it, that group
 * or others can read loads, with a warning that says which file and how to
 * fix it. (The file is read in 4 KiB steps and grown: a long one loads too.)
 */
static void test_keys_that_others_can_read_are_warned_about(void **state)
{
	char key_path[64], conf_path[64], msg[512], *text, *padded;
	size_t len;

	(void)state;
	temp_file(key_path, R_PRIV "\n");
	text = key_file_config(client_min, "private_key = \"" R_PRIV "\"", "private_key", key_path);
	parse_ok(text);
	assert_int_equal(cfg.n_warnings, 0);
	assert_int_equal(chmod(key_path, 0640), 0);
	parse_ok(text);
	assert_int_equal(cfg.n_warnings, 1);
	snprintf(msg, sizeof(msg),
		 "t.conf:3: private_key_file: group or others can read '%s' (mode 0640), which holds a secret key: "
		 "chmod 600 it",
		 key_path);
	assert_string_equal(cfg.warnings[0], msg);
	free(text);
	unlink(key_path);

	/* The key in the file itself, after 10 KB of comments. */
	len = strlen(client_min) + 10240;
	padded = malloc(len + 1);
	assert_non_null(padded);
	memset(padded, '#', 10239);
	padded[10239] = '\n';
	strcpy(padded + 10240, client_min);
	temp_file(conf_path, padded);
	assert_int_equal(wb_config_load(&cfg, conf_path, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_warnings, 0);
	assert_key(cfg.private_key, R_PRIV);
	assert_int_equal(chmod(conf_path, 0604), 0);
	assert_int_equal(wb_config_load(&cfg, conf_path, err, sizeof(err)), 0);
	assert_int_equal(cfg.n_warnings, 1);
	snprintf(msg, sizeof(msg),
		 "%s:4: group or others can read this file (mode 0604), which holds a secret key: chmod 600 it, or "
		 "put the key in a file of its own (private_key_file, preshared_key_file)",
		 conf_path);
	assert_string_equal(cfg.warnings[0], msg);
	free(padded);
	unlink(conf_path);
}

/* The message is before, the key file's path, then after. */
static void expect_key_file_error(const char *content, const char *before, const char *after)
{
	char path[64], msg[256], *text;

	temp_file(path, content);
	text = key_file_config(client_min, "private_key = \"" R_PRIV "\"", "private_key", path);
	snprintf(msg, sizeof(msg), "%s%s%s", before, path, after);
	expect_error(text, msg);
	free(text);
	unlink(path);
}

static void test_key_file_errors(void **state)
{
	char *text;

	(void)state;
	text = key_file_config(client_min, "private_key = \"" R_PRIV "\"", "private_key", "/nonexistent/home.key");
	assert_int_equal(parse(text), -ENOENT);
	assert_string_equal(err, "t.conf:3: private_key_file: cannot read '/nonexistent/home.key': "
				 "No such file or directory");
	free(text);
	text = key_file_config(client_min, "private_key = \"" R_PRIV "\"", "private_key", "/tmp");
	expect_error(text, "t.conf:3: private_key_file: cannot read '/tmp': not a regular file");
	free(text);
	text = key_file_config(client_min, "private_key = \"" R_PRIV "\"", "private_key", "/dev/zero");
	expect_error(text, "t.conf:3: private_key_file: cannot read '/dev/zero': not a regular file");
	free(text);
	expect_key_file_error("", "t.conf:3: private_key_file: '", "' does not hold a base64 key of 32 bytes");
	expect_key_file_error("hello\n",
			      "t.conf:3: private_key_file: '", "' does not hold a base64 key of 32 bytes");
	expect_key_file_error(R_PRIV "\n" R_PRIV "\n",
			      "t.conf:3: private_key_file: '", "' does not hold a base64 key of 32 bytes");
	expect_key_file_error(ZERO_KEY "\n", "t.conf:3: private_key_file: '", "' holds a key of all zeros");
	expect_key_file_error(R_PRIV "                                                                          "
				     "                                                            \n",
			      "t.conf:3: private_key_file: cannot read '", "': too long for a key");
}

/* ---- addresses ---- */

static void test_addresses(void **state)
{
	(void)state;
	expect_with(client_min, "198.51.100.7", "vps.example.com",
		    "t.conf:4: server.address: 'vps.example.com' is not an IPv4 or IPv6 address");
	expect_with(client_min, "198.51.100.7", "198.51.100.7:51820",
		    "t.conf:4: server.address: '198.51.100.7:51820' is not an IPv4 or IPv6 address");
	expect_with(client_full, "port = 51821;", "port = 0;", "t.conf:7: server.port: 0 is out of range 1..65535");
	expect_with(client_full, "port = 51821;", "port = 65536;",
		    "t.conf:7: server.port: 65536 is out of range 1..65535");
	expect_with(server_full, "port = 51821;", "port = 0;", "t.conf:5: listen.port: 0 is out of range 1..65535");
	expect_with(server_full, "\"0.0.0.0\"", "\"any\"",
		    "t.conf:5: listen.address: 'any' is not an IPv4 or IPv6 address");
}

static void test_uplink_source_errors(void **state)
{
	static const char *const bad[] = { "192.0.2.1:0", "192.0.2.1:65536", "192.0.2.1:", "192.0.2.1:x",
					   "[2001:db8::1]:", "[2001:db8::1", "[192.0.2.1]:80", "2001:db8::1:80:x",
					   "host:80", "", "192.0.2.1:+80", "[2001:db8::1]x" };
	char line[96], msg[192];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(line, sizeof(line), "source = \"%s\"", bad[i]);
		snprintf(msg, sizeof(msg),
			 "t.conf:6: uplink 'dsl': source: '%s' is not an address, address:port or [address]:port",
			 bad[i]);
		expect_with(client_min, "interface = \"wan1\"", line, msg);
	}
}

static void test_tun(void **state)
{
	(void)state;
	expect_with(client_full, "\"wb-x\"", "\"wb-0123456789abc\"",
		    "t.conf:12: tun name 'wb-0123456789abc' is longer than 15 characters");
	ok_with(client_full, "\"wb-x\"", "\"wb-0123456789ab\"");
	expect_with(client_full, "\"wb-x\"", "\"wb/x\"", "t.conf:12: tun name 'wb/x' is not a valid interface name");
	expect_with(client_full, "\"wb-x\"", "\"..\"", "t.conf:12: tun name '..' is not a valid interface name");
	expect_with(client_full, "\"wb-x\"", "\"\"", "t.conf:12: tun name '' is not a valid interface name");
	expect_with(client_full, "[ \"10.255.0.2/30\", \"fd00:255::2/64\" ]", "[]",
		    "t.conf:13: tun.address: the list is empty");
	expect_with(client_full, "\"fd00:255::2/64\"", "\"a/1\", \"b/2\", \"c/3\", \"d/4\"",
		    "t.conf:13: tun.address: 5 entries, at most 4");
	expect_with(client_full, "\"fd00:255::2/64\"", "\"fd00:255::2\"",
		    "t.conf:13: tun.address: 'fd00:255::2' is not an address with a prefix length "
		    "(10.255.0.1/30, fd00::1/64)");
	expect_with(client_full, "\"fd00:255::2/64\"", "\"10.255.0.2/30\"",
		    "t.conf:13: tun.address: '10.255.0.2/30' is listed twice");
	expect_with(server_full, "mtu = 1400;", "mtu = 575;",
		    "t.conf:11: peer 'home': tun.mtu: 575 is out of range: 0 (automatic) or 576..65468 (a datagram of "
		    "the tunnel carries at most 65507 bytes)");
	expect_with(server_full, "mtu = 1400;", "mtu = 65536;",
		    "t.conf:11: peer 'home': tun.mtu: 65536 is out of range 0..65535");
	ok_with(server_full, "mtu = 1400;", "mtu = 576;"); /* IPv4 only */
	/* The largest whose data datagram (the packet, 39 bytes of the tunnel) fits in one UDP datagram. */
	ok_with(server_full, "mtu = 1400;", "mtu = 65468;");
	expect_with(server_full, "mtu = 1400;", "mtu = 65469;",
		    "t.conf:11: peer 'home': tun.mtu: 65469 is out of range: 0 (automatic) or 576..65468 (a datagram "
		    "of the tunnel carries at most 65507 bytes)");
	expect_with(server_full, "mtu = 1400;", "mtu = 65535;",
		    "t.conf:11: peer 'home': tun.mtu: 65535 is out of range: 0 (automatic) or 576..65468 (a datagram "
		    "of the tunnel carries at most 65507 bytes)");
	expect_with(client_full, "mtu = 1400;", "mtu = 1279;",
		    "t.conf:14: tun.mtu: 1279 is below 1280, the least IPv6 allows (tun.address has IPv6)");
	ok_with(client_full, "mtu = 1400;", "mtu = 1280;");
}

static void test_routes(void **state)
{
	(void)state;
	expect_with(client_full, "\"10.2.0.0/24\"", "\"10.2.0.5/24\"",
		    "t.conf:16: routes: '10.2.0.5/24' has bits set past its prefix length");
	expect_with(client_full, "\"fd00:2::/64\"", "\"fd00:2::1:0:0:0/64\"",
		    "t.conf:16: routes: 'fd00:2::1:0:0:0/64' has bits set past its prefix length");
	expect_with(client_full, "\"fd00:2::/64\"", "\"10.2.0.0/24\"",
		    "t.conf:16: routes: '10.2.0.0/24' is listed twice");
	expect_with(client_full, "\"fd00:2::/64\"", "\"10.3.0.0\"",
		    "t.conf:16: routes: '10.3.0.0' is not an address with a prefix length "
		    "(10.1.0.0/24, fd00:1::/64)");
	ok_with(client_full, "[ \"10.2.0.0/24\", \"fd00:2::/64\" ]", "[ \"0.0.0.0/0\", \"::/0\" ]");
	assert_int_equal(cfg.peers[0].n_routes, 2);
	ok_with(client_full, "[ \"10.2.0.0/24\", \"fd00:2::/64\" ]", "[]");
	assert_int_equal(cfg.peers[0].n_routes, 0);
	expect_with(server_full, "tun = { address = [ \"10.255.0.5/30\", \"fd00:255:1::1/64\" ]; };",
		    "tun = { address = [ \"10.255.0.5/30\" ]; }; routes = [ \"10.1.0.0/24\" ];",
		    "t.conf:14: peer 'office': routes: '10.1.0.0/24' is routed to peer 'home' too");
}

static void test_too_many_routes(void **state)
{
	char list[1024] = "[ ";

	(void)state;
	for (int i = 0; i <= WB_MAX_ROUTES; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s\"10.%d.0.0/16\"", i ? ", " : "", i);
	strcat(list, " ]");
	expect_with(client_full, "[ \"10.2.0.0/24\", \"fd00:2::/64\" ]", list,
		    "t.conf:16: routes: 17 entries, at most 16");
}

/* ---- uplinks ---- */

static void test_uplink_errors(void **state)
{
	(void)state;
	expect_with(client_full, "interface = \"wwan0\"", "interface = \"wwan0wwan0wwan0x\"",
		    "t.conf:19: uplink 'lte': interface name 'wwan0wwan0wwan0x' is longer than 15 characters");
	expect_with(client_full, "interface = \"wwan0\"", "interface = \"wwan:0\"",
		    "t.conf:19: uplink 'lte': interface name 'wwan:0' is not a valid interface name");
	expect_with(client_full, "name = \"lte\"", "name = \"dsl\"",
		    "t.conf:19: uplink 'dsl': the name is used twice (first on line 18)");
	expect_with(client_full, "interface = \"wwan0\"", "interface = \"wan1\"",
		    "t.conf:19: uplink 'lte': the same interface, source and fwmark as uplink 'dsl'");
	ok_with(client_full, "interface = \"wwan0\"", "interface = \"wan1\"; fwmark = 3");
	expect_with(client_full, "interface = \"wwan0\"; ", "",
		    "t.conf:19: uplink 'lte': needs at least one of interface, source and fwmark");
	expect_with(client_full, "weight = 2;", "weight = 0;",
		    "t.conf:19: uplink 'lte': weight: 0 is out of range 1..1000");
	expect_with(client_full, "weight = 2;", "weight = 1001;",
		    "t.conf:19: uplink 'lte': weight: 1001 is out of range 1..1000");
	ok_with(client_full, "weight = 2;", "weight = 1000;");
	expect_with(client_min, "interface = \"wan1\";", "interface = \"wan1\"; backup = true;",
		    "t.conf:6: uplinks: all are backups; one at least must not be");
	expect_with(client_min, "( { name = \"dsl\"; interface = \"wan1\"; } )", "( )",
		    "t.conf:6: uplinks: the list is empty");
}

static void test_too_many_uplinks(void **state)
{
	char list[2048] = "( ";

	(void)state;
	for (int i = 0; i <= WB_MAX_UPLINKS; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list),
			 "%s{ name = \"u%d\"; interface = \"eth%d\"; }", i ? ", " : "", i, i);
	strcat(list, " )");
	expect_with(client_min, "( { name = \"dsl\"; interface = \"wan1\"; } )", list,
		    "t.conf:6: uplinks: 17 entries, at most 16");
	/* 16 is the most. */
	strcpy(strstr(list, ", { name = \"u16\""), " )");
	ok_with(client_min, "( { name = \"dsl\"; interface = \"wan1\"; } )", list);
	assert_int_equal(cfg.n_uplinks, WB_MAX_UPLINKS);
	assert_string_equal(cfg.uplinks[15].interface, "eth15");
}

/* uplink add over the control socket: the file's checks and words, with the uplink's name for the line. */
static void test_runtime_uplink(void **state)
{
	struct wb_conf_uplink up;

	(void)state;
	parse_ok(client_full);
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "lte2", "wwan1", "192.0.2.7:4000", 0x10, true, 3, err,
						  sizeof(err)),
			 0);
	assert_string_equal(up.name, "lte2");
	assert_string_equal(up.interface, "wwan1");
	assert_sockaddr(&up.source, "192.0.2.7", 4000);
	assert_true(up.has_fwmark && up.fwmark == 0x10 && up.backup && up.weight == 3);
	/* The name's characters are the file's (the length alone was checked once). */
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "l t e", "wwan1", NULL, 0, false, 1, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "uplink name: 'l t e' has characters other than A-Z a-z 0-9 _ . -");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "", "wwan1", NULL, 0, false, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "uplink name: the name is empty");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "x", "wwan:1", NULL, 0, false, 1, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "uplink 'x': interface name 'wwan:1' is not a valid interface name");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "x", NULL, "host:80", 0, false, 1, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "uplink 'x': source: 'host:80' is not an address, address:port or [address]:port");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "x", NULL, NULL, 0, false, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "uplink 'x': needs at least one of interface, source and fwmark");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "x", "wan9", NULL, 0, false, 1001, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "uplink 'x': weight: 1001 is out of range 1..1000");
	/* Bound as another is: the file refuses that too. A name taken is the bond's to say. */
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "x", "wan1", NULL, 0, false, 1, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "uplink 'x': the same interface, source and fwmark as uplink 'dsl'");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "dsl", "wan1", NULL, 0, false, 1, err, sizeof(err)), 0);
	ok_with(client_full, "{ name = \"dsl\"; interface = \"wan1\"; },", "");
	assert_int_equal(wb_config_runtime_uplink(&up, &cfg, "x", "wan1", NULL, 0, false, 1, err, sizeof(err)), 0);
}

/* ---- peers ---- */

static void test_peer_errors(void **state)
{
	(void)state;
	expect_with(server_full, "\"office\"", "\"home\"",
		    "t.conf:14: peer 'home': the name is used twice (first on line 7)");
	expect_with(server_full, "\"wb-h\"", "\"wb-office\"",
		    "t.conf:14: peer 'office': tun name 'wb-office' is peer 'home''s too; set tun.name");
}

static void test_peer_tun_names_collide_by_default(void **state)
{
	char *one = with(server_full, "\"home\"", "\"a-very-long-one\"");
	char *two = with(one, "\"office\"", "\"a-very-long-two\"");

	(void)state;
	/* Both defaults are cut to "wb-a-very-long-". */
	expect_with(two, "tun = { name = \"wb-h\"; ", "tun = { ",
		    "t.conf:14: peer 'a-very-long-two': tun name 'wb-a-very-long-' is peer 'a-very-long-one''s too; "
		    "set tun.name");
	free(two);
	free(one);
}

static void test_peers_empty_and_too_many(void **state)
{
	char *text, *p, want[64], last[32];
	size_t cap = 128 * 1024;

	(void)state;
	expect_with(server_min, "( { name = \"home\"; public_key = \"" R_PUB "\";\n"
				"            tun = { address = [ \"10.255.0.1/30\" ]; }; } )",
		    "( )", "t.conf:4: peers: the list is empty");
	/* WB_MAX_PEERS + 1 peers, each with its own key. */
	text = malloc(cap);
	assert_non_null(text);
	p = text + sprintf(text, "role = \"server\";\nname = \"vps\";\nprivate_key = \"" V_PRIV "\";\npeers = (\n");
	for (int i = 0; i <= WB_MAX_PEERS; i++) {
		uint8_t key[WB_KEY_LEN];
		char b64[WB_KEY_B64_LEN];

		memset(key, 0x55, sizeof(key));
		key[0] = (uint8_t)i;
		key[1] = (uint8_t)(i >> 8);
		wb_key_to_base64(b64, key);
		p += sprintf(p, "%s{ name = \"p%d\"; public_key = \"%s\";"
			     " tun = { address = [ \"10.%d.%d.1/30\" ]; }; }\n", i ? "," : "", i, b64, i / 250, i % 250);
	}
	strcpy(p, ");\n");
	snprintf(want, sizeof(want), "t.conf:4: peers: %d entries, at most %d", WB_MAX_PEERS + 1, WB_MAX_PEERS);
	expect_error(text, want);
	/* Without the last, it is the most there may be. */
	snprintf(last, sizeof(last), ",{ name = \"p%d\"", WB_MAX_PEERS);
	strcpy(strstr(text, last), ");\n");
	parse_ok(text);
	assert_int_equal(cfg.n_peers, WB_MAX_PEERS);
	snprintf(last, sizeof(last), "wb-p%d", WB_MAX_PEERS - 1);
	assert_string_equal(cfg.peers[WB_MAX_PEERS - 1].tun.name, last);
	free(text);
}

/* ---- timers ---- */

static void test_timer_errors(void **state)
{
	(void)state;
	expect_with(client_full, "probe_interval_ms = 100;", "probe_interval_ms = 9;",
		    "t.conf:23: timers.probe_interval_ms: 9 is out of range 10..10000");
	expect_with(client_full, "probe_interval_ms = 100;", "probe_interval_ms = 10001;",
		    "t.conf:23: timers.probe_interval_ms: 10001 is out of range 10..10000");
	expect_with(client_full, "uplink_timeout_ms = 500;", "uplink_timeout_ms = 99;",
		    "t.conf:24: timers.uplink_timeout_ms: 99 is out of range 100..60000");
	expect_with(client_full, "uplink_timeout_ms = 500;", "uplink_timeout_ms = 60001;",
		    "t.conf:24: timers.uplink_timeout_ms: 60001 is out of range 100..60000");
	expect_with(client_full, "handshake_retry_ms = 2000;", "handshake_retry_ms = 99;",
		    "t.conf:25: timers.handshake_retry_ms: 99 is out of range 100..60000");
	expect_with(client_full, "handshake_retry_ms = 2000;", "handshake_retry_ms = 60001;",
		    "t.conf:25: timers.handshake_retry_ms: 60001 is out of range 100..60000");
	expect_with(client_full, "rekey_after_seconds = 60;", "rekey_after_seconds = 9;",
		    "t.conf:26: timers.rekey_after_seconds: 9 is out of range 10..86400");
	expect_with(client_full, "rekey_after_seconds = 60;", "rekey_after_seconds = 86401;",
		    "t.conf:26: timers.rekey_after_seconds: 86401 is out of range 10..86400");
	expect_with(client_full, "uplink_timeout_ms = 500;", "uplink_timeout_ms = 199;",
		    "t.conf:24: timers.uplink_timeout_ms: 199 is less than 2 * timers.probe_interval_ms (2 * 100)");
	ok_with(client_full, "uplink_timeout_ms = 500;", "uplink_timeout_ms = 200;");
	/* Only the probe interval set: the default timeout (1000) is checked against it. */
	expect_with(client_min, "name = \"home\";", "name = \"home\";\ntimers = { probe_interval_ms = 501; };",
		    "t.conf:3: timers.uplink_timeout_ms: 1000 is less than 2 * timers.probe_interval_ms (2 * 501)");
	ok_with(client_min, "name = \"home\";", "name = \"home\";\ntimers = { };");
	assert_int_equal(cfg.timers.probe_interval_ms, 250);
}

/* ---- transport and scheduler ---- */

static void test_transport(void **state)
{
	(void)state;
	ok_with(client_min, "name = \"home\";",
		"name = \"home\";\ntransport = { congestion_control = \"newreno\"; send_buffer_kb = 1024;"
		" receive_window_kb = 2048; send_queue_kb = 256; reorder_hold_ms = 300; aqm = false;"
		" aqm_target_ms = 10; aqm_interval_ms = 200; pool_limit_mb = 512; };");
	assert_string_equal(cfg.transport.congestion_control, "newreno");
	assert_int_equal(cfg.transport.send_buffer_kb, 1024);
	assert_int_equal(cfg.transport.receive_window_kb, 2048);
	assert_int_equal(cfg.transport.send_queue_kb, 256);
	assert_int_equal(cfg.transport.reorder_hold_ms, 300);
	assert_false(cfg.transport.aqm);
	assert_int_equal(cfg.transport.aqm_target_ms, 10);
	assert_int_equal(cfg.transport.aqm_interval_ms, 200);
	assert_int_equal(cfg.transport.pool_limit_mb, 512);
	expect_with(client_min, "name = \"home\";", "name = \"home\";\ntransport = { congestion_control = \"cubic\"; };",
		    "t.conf:3: transport.congestion_control: 'cubic' is none of bbr, newreno");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\ntransport = { send_buffer_kb = 63; };",
		    "t.conf:3: transport.send_buffer_kb: 63 is out of range 64..1048576");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\ntransport = { pool_limit_mb = 1048577; };",
		    "t.conf:3: transport.pool_limit_mb: 1048577 is out of range 0..1048576");
}

static void test_scheduler(void **state)
{
	(void)state;
	/* Defaults: the default policy, every rule on. */
	ok_with(client_min, "name = \"home\";", "name = \"home\";");
	assert_string_equal(cfg.scheduler.policy, "default");
	assert_int_equal(cfg.scheduler.off, 0);
	ok_with(client_min, "name = \"home\";",
		"name = \"home\";\nscheduler = { policy = \"roundrobin\"; penalise = false; reinject_on_rwnd = false;"
		" avoid_blocking = true; };");
	assert_string_equal(cfg.scheduler.policy, "roundrobin");
	assert_int_equal(cfg.scheduler.off, WB_SCHED_RULE_PENALISE | WB_SCHED_RULE_REINJECT_RWND);
	ok_with(client_min, "name = \"home\";",
		"name = \"home\";\nscheduler = { penalise_guard = false; reinject = false; reinject_on_sndbuf = false;"
		" reinject_on_app_limited = false; avoid_blocking = false; };");
	assert_int_equal(cfg.scheduler.off, WB_SCHED_RULE_PENALISE_GUARD | WB_SCHED_RULE_REINJECT |
						    WB_SCHED_RULE_REINJECT_SNDBUF | WB_SCHED_RULE_REINJECT_APP_LIMITED |
						    WB_SCHED_RULE_AVOID_BLOCKING);
	expect_with(client_min, "name = \"home\";", "name = \"home\";\nscheduler = { policy = \"fastest\"; };",
		    "t.conf:3: scheduler.policy: 'fastest' is none of default, roundrobin, redundant, first");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\nscheduler = { penalise = 1; };",
		    "t.conf:3: scheduler.penalise: expected true or false");
	expect_with(client_min, "name = \"home\";", "name = \"home\";\nscheduler = { reinject_on_idle = false; };",
		    "t.conf:3: unknown setting 'scheduler.reinject_on_idle'");
}

/* ---- wb_prefix_parse ---- */

static void test_prefix_parse(void **state)
{
	static const char *const bad[] = {
		"10.0.0.1", "10.0.0.1/", "10.0.0.1/33", "10.0.0.1/-1", "10.0.0.1/+5", "10.0.0.1/ 5", "10.0.0.1/5 ",
		"10.0.0.1/0x5", "10.0.0/8", "10.0.0.256/8", "fd00::/129", "fd00::/1280", "fd00::1:/64", "/24", "",
		"a/b", "10.0.0.1//24", "10.0.0.1/24/1", " 10.0.0.1/24",
		"0000:0000:0000:0000:0000:0000:0000:0000:0000/64",
	};
	struct wb_prefix p;

	(void)state;
	assert_int_equal(wb_prefix_parse(&p, "10.255.0.1/30"), 0);
	assert_int_equal(p.family, AF_INET);
	assert_prefix(&p, "10.255.0.1", 30);
	assert_true(all_zero(p.addr + 4, 12));
	assert_int_equal(wb_prefix_parse(&p, "0.0.0.0/0"), 0);
	assert_int_equal(p.len, 0);
	assert_int_equal(wb_prefix_parse(&p, "255.255.255.255/32"), 0);
	assert_int_equal(wb_prefix_parse(&p, "fd00::1/64"), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_prefix(&p, "fd00::1", 64);
	assert_int_equal(wb_prefix_parse(&p, "::/128"), 0);
	assert_int_equal(p.len, 128);
	assert_int_equal(wb_prefix_parse(&p, "::ffff:10.0.0.1/96"), 0);
	assert_int_equal(p.family, AF_INET6);
	assert_int_equal(wb_prefix_parse(&p, "10.0.0.0/08"), 0);
	assert_int_equal(p.len, 8);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (wb_prefix_parse(&p, bad[i]) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
}

/* ---- the file, the buffer, the leftovers ---- */

static void test_load(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(wb_config_load(&cfg, "/nonexistent/wb.conf", err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "/nonexistent/wb.conf: cannot read: No such file or directory");
	assert_int_equal(wb_config_load(&cfg, "/tmp", err, sizeof(err)), -EISDIR);
	assert_string_equal(err, "/tmp: cannot read: Is a directory");
	temp_file(path, client_min);
	assert_int_equal(wb_config_load(&cfg, path, err, sizeof(err)), 0);
	assert_string_equal(cfg.path, path);
	assert_string_equal(cfg.name, "home");
	unlink(path);
	temp_file(path, "role = \"client\";\nrole = 1;\n");
	assert_int_equal(wb_config_load(&cfg, path, err, sizeof(err)), -EINVAL);
	assert_true(strncmp(err, path, strlen(path)) == 0);
	assert_string_equal(err + strlen(path), ":2: duplicate setting name");
	unlink(path);
}

static void test_load_nul_byte(void **state)
{
	char path[64];
	FILE *f;

	(void)state;
	strcpy(path, "/tmp/wb-test-config-XXXXXX");
	assert_true(mkstemp(path) >= 0);
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite("role = \"client\";\0x", 1, 18, f);
	fclose(f);
	assert_int_equal(wb_config_load(&cfg, path, err, sizeof(err)), -EINVAL);
	assert_true(strstr(err, ": a NUL byte: this is not a text file") != NULL);
	unlink(path);
}

static void test_error_buffer(void **state)
{
	char small[12];

	(void)state;
	assert_int_equal(wb_config_parse(&cfg, "role = 1;", "t.conf", small, sizeof(small)), -EINVAL);
	assert_string_equal(small, "t.conf:1: r");
	assert_int_equal(wb_config_parse(&cfg, "role = 1;", "t.conf", NULL, 0), -EINVAL);
	assert_int_equal(wb_config_parse(&cfg, "role = 1;", "t.conf", small, 1), -EINVAL);
	assert_string_equal(small, "");
	assert_int_equal(wb_config_parse(&cfg, client_min, "t.conf", err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

/* A failed parse leaves no key behind in the struct. */
static void test_failure_wipes(void **state)
{
	(void)state;
	expect_with(client_full, "weight = 2;", "weight = 0;",
		    "t.conf:19: uplink 'lte': weight: 0 is out of range 1..1000");
	assert_true(all_zero(&cfg, sizeof(cfg)));
}

static void test_long_name(void **state)
{
	char name[WB_PATH_MAX + 1];

	(void)state;
	memset(name, 'a', WB_PATH_MAX);
	name[WB_PATH_MAX] = '\0';
	assert_int_equal(wb_config_parse(&cfg, client_min, name, err, sizeof(err)), -EINVAL);
	assert_true(strstr(err, ": the file name is longer than 255 characters") != NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_examples_are_refused),
		cmocka_unit_test(test_example_router),
		cmocka_unit_test(test_example_vps),
		cmocka_unit_test(test_examples_match),
		cmocka_unit_test(test_client_defaults),
		cmocka_unit_test(test_client_full),
		cmocka_unit_test(test_server_defaults),
		cmocka_unit_test(test_server_full),
		cmocka_unit_test(test_default_tun_name_truncated),
		cmocka_unit_test(test_listen_v6_and_port),
		cmocka_unit_test(test_server_address_v6),
		cmocka_unit_test(test_uplink_sources),
		cmocka_unit_test(test_fwmark),
		cmocka_unit_test(test_policy_rule),
		cmocka_unit_test(test_rekey_after_messages),
		cmocka_unit_test(test_ciphers),
		cmocka_unit_test(test_scanner),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_role),
		cmocka_unit_test(test_settings_of_the_other_role),
		cmocka_unit_test(test_unknown_settings),
		cmocka_unit_test(test_missing_settings),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_own_and_duplicate_keys),
		cmocka_unit_test(test_key_files),
		cmocka_unit_test(test_keys_that_others_can_read_are_warned_about),
		cmocka_unit_test(test_key_file_errors),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_uplink_source_errors),
		cmocka_unit_test(test_tun),
		cmocka_unit_test(test_routes),
		cmocka_unit_test(test_too_many_routes),
		cmocka_unit_test(test_uplink_errors),
		cmocka_unit_test(test_too_many_uplinks),
		cmocka_unit_test(test_runtime_uplink),
		cmocka_unit_test(test_peer_errors),
		cmocka_unit_test(test_peer_tun_names_collide_by_default),
		cmocka_unit_test(test_peers_empty_and_too_many),
		cmocka_unit_test(test_timer_errors),
		cmocka_unit_test(test_transport),
		cmocka_unit_test(test_scheduler),
		cmocka_unit_test(test_prefix_parse),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_load_nul_byte),
		cmocka_unit_test(test_error_buffer),
		cmocka_unit_test(test_failure_wipes),
		cmocka_unit_test(test_long_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
