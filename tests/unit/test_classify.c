// SPDX-License-Identifier: MIT
/* classify.c: a packet's traffic class from its DSCP and ports, and the configuration's texts for them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "byteorder.h"
#include "classify.h"

#define EF 46
#define AF41 34
#define CS0 0

/* The transport header: UDP's 8 bytes, or TCP's 20 (only the ports matter). */
static size_t transport(uint8_t *p, uint8_t proto, uint16_t sport, uint16_t dport)
{
	size_t len = proto == IPPROTO_TCP ? 20 : 8;

	memset(p, 0, len);
	wb_put_be16(p, sport);
	wb_put_be16(p + 2, dport);
	if (proto == IPPROTO_TCP)
		p[12] = 5 << 4;
	return len;
}

/* An IPv4 packet with ihl_words of header (options zeroed), ECN bits set to show they do not count. */
static size_t ip4_opts(uint8_t *p, uint8_t ihl_words, uint8_t dscp, uint8_t proto, uint16_t sport, uint16_t dport)
{
	size_t hlen = (size_t)ihl_words * 4, len;

	memset(p, 0, hlen);
	p[0] = (uint8_t)(0x40 | ihl_words);
	p[1] = (uint8_t)(dscp << 2 | 3);
	p[8] = 64;
	p[9] = proto;
	len = hlen + transport(p + hlen, proto, sport, dport);
	wb_put_be16(p + 2, (uint16_t)len);
	return len;
}

static size_t ip4(uint8_t *p, uint8_t dscp, uint8_t proto, uint16_t sport, uint16_t dport)
{
	return ip4_opts(p, 5, dscp, proto, sport, dport);
}

/* An IPv6 fixed header whose traffic class straddles the first two bytes, with a flow label. */
static size_t ip6(uint8_t *p, uint8_t dscp, uint8_t next)
{
	uint8_t tc = (uint8_t)(dscp << 2 | 1);

	memset(p, 0, 40);
	p[0] = (uint8_t)(0x60 | tc >> 4);
	p[1] = (uint8_t)(tc << 4 | 0x0a);
	p[2] = 0xbc, p[3] = 0xde;
	p[6] = next;
	p[7] = 64;
	return 40;
}

/* An extension header of words 8-byte words (its length field says words - 1), options zeroed. */
static size_t ext(uint8_t *p, uint8_t next, uint8_t words)
{
	memset(p, 0, (size_t)words * 8);
	p[0] = next;
	p[1] = (uint8_t)(words - 1);
	return (size_t)words * 8;
}

/* A fragment header: the offset in 8-byte units, and whether more fragments follow. */
static size_t frag(uint8_t *p, uint8_t next, uint16_t offset, bool more)
{
	ext(p, next, 1);
	wb_put_be16(p + 2, (uint16_t)(offset << 3 | more));
	wb_put_be32(p + 4, 0x11223344);
	return 8;
}

static struct wb_class_rules rules_with(const char *const *texts, unsigned n)
{
	struct wb_class_rules r;

	wb_class_rules_default(&r);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(wb_port_rule_parse(texts[i], &r.ports[r.n_ports++]), 0);
	return r;
}

/* wb_ip_info reads the packet, its protocol and those ports. */
static void check_ports(const uint8_t *p, size_t len, uint8_t proto, uint16_t sport, uint16_t dport)
{
	struct wb_ip_info info;

	assert_true(wb_ip_info(p, len, &info));
	assert_int_equal(info.proto, proto);
	assert_true(info.has_ports);
	assert_int_equal(info.sport, sport);
	assert_int_equal(info.dport, dport);
}

/* wb_ip_info reads the packet, its protocol, and no ports. */
static void check_no_ports(const uint8_t *p, size_t len, uint8_t proto)
{
	struct wb_ip_info info;

	assert_true(wb_ip_info(p, len, &info));
	assert_int_equal(info.proto, proto);
	assert_false(info.has_ports);
	assert_true(!info.sport && !info.dport);
}

static void test_defaults(void **state)
{
	static const char *const names[] = { "EF", "CS4", "CS5", "CS6", "AF41", "AF42", "AF43" };
	struct wb_class_rules r;
	uint64_t want = 0;

	(void)state;
	memset(&r, 0xa5, sizeof(r));
	wb_class_rules_default(&r);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		want |= UINT64_C(1) << wb_dscp_parse(names[i]);
	assert_true(r.enabled);
	assert_true(r.dscp == want);
	assert_int_equal(r.n_ports, 0);
}

/* A UDP packet, IPv4 or IPv6, with that DSCP and those ports. */
static size_t udp_packet(uint8_t *p, bool six, uint8_t dscp, uint16_t sport, uint16_t dport)
{
	size_t len;

	if (!six)
		return ip4(p, dscp, IPPROTO_UDP, sport, dport);
	len = ip6(p, dscp, IPPROTO_UDP);
	return len + transport(p + len, IPPROTO_UDP, sport, dport);
}

static void test_dscp(void **state)
{
	struct wb_class_rules r;
	struct wb_ip_info info;
	uint8_t p[128];

	(void)state;
	wb_class_rules_default(&r);
	for (int six = 0; six <= 1; six++) {
		size_t len = udp_packet(p, six, EF, 40000, 5004);

		check_ports(p, len, IPPROTO_UDP, 40000, 5004);
		assert_true(wb_ip_info(p, len, &info));
		assert_int_equal(info.dscp, EF);
		assert_int_equal(wb_classify(&r, p, len), WB_CLASS_INTERACTIVE);
		assert_int_equal(wb_classify(&r, p, udp_packet(p, six, AF41, 1, 2)), WB_CLASS_INTERACTIVE);
		assert_int_equal(wb_classify(&r, p, udp_packet(p, six, CS0, 1, 2)), WB_CLASS_BULK);
		/* Every value read whole (IPv6's straddles two bytes), and classed by the set. */
		for (unsigned d = 0; d < 64; d++) {
			len = udp_packet(p, six, (uint8_t)d, 1, 2);
			assert_int_equal(wb_ip_dscp(p, len), d);
			assert_int_equal(wb_classify(&r, p, len), r.dscp >> d & 1 ? WB_CLASS_INTERACTIVE : WB_CLASS_BULK);
		}
	}
	/* TCP, and IPv4 options: the ports are behind them. */
	assert_int_equal(wb_classify(&r, p, ip4(p, AF41, IPPROTO_TCP, 443, 50000)), WB_CLASS_INTERACTIVE);
	assert_int_equal(ip4_opts(p, 15, CS0, IPPROTO_UDP, 7, 9), 68);
	check_ports(p, 68, IPPROTO_UDP, 7, 9);
}

static void test_port_rules(void **state)
{
	static const struct {
		uint8_t proto;
		uint16_t sport, dport;
		enum wb_class want;
	} cases[] = {
		/* UDP 5060 as the source and as the destination. */
		{ IPPROTO_UDP, 5060, 40000, WB_CLASS_INTERACTIVE },
		{ IPPROTO_UDP, 40000, 5060, WB_CLASS_INTERACTIVE },
		{ IPPROTO_UDP, 5061, 5059, WB_CLASS_BULK },
		/* A UDP rule is not TCP's, nor a TCP rule UDP's. */
		{ IPPROTO_TCP, 5060, 40000, WB_CLASS_BULK },
		{ IPPROTO_UDP, 27020, 40000, WB_CLASS_BULK },
		{ IPPROTO_TCP, 40000, 27015, WB_CLASS_INTERACTIVE },
		{ IPPROTO_TCP, 27030, 40000, WB_CLASS_INTERACTIVE },
		{ IPPROTO_TCP, 27031, 27014, WB_CLASS_BULK },
		/* Both protocols, both ends of the range. */
		{ IPPROTO_UDP, 3478, 1, WB_CLASS_INTERACTIVE },
		{ IPPROTO_TCP, 1, 3481, WB_CLASS_INTERACTIVE },
		{ IPPROTO_UDP, 3477, 3482, WB_CLASS_BULK },
		/* Other protocols have no ports, whatever their bytes say. */
		{ IPPROTO_ICMP, 3478, 3478, WB_CLASS_BULK },
	};
	struct wb_class_rules r = rules_with((const char *const[]){ "udp:5060", "tcp:27015-27030", "3478-3481" }, 3);
	uint8_t p[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = ip4(p, CS0, cases[i].proto, cases[i].sport, cases[i].dport);

		assert_int_equal(wb_classify(&r, p, len), cases[i].want);
	}
	/* A count beyond the array reads the array only. */
	r.n_ports = 1000;
	assert_int_equal(wb_classify(&r, p, ip4(p, CS0, IPPROTO_UDP, 5060, 40000)), WB_CLASS_INTERACTIVE);
}

static void test_ipv4_fragments(void **state)
{
	struct wb_class_rules r = rules_with((const char *const[]){ "udp:5060" }, 1);
	uint8_t p[64];
	size_t len = ip4(p, CS0, IPPROTO_UDP, 5060, 5060);

	(void)state;
	p[6] = 0x20; /* more fragments, offset 0: the first, with the ports */
	check_ports(p, len, IPPROTO_UDP, 5060, 5060);
	assert_int_equal(wb_classify(&r, p, len), WB_CLASS_INTERACTIVE);
	/* Later ones, with more to come or the last: their bytes are payload. */
	for (const uint16_t *o = (const uint16_t[]){ 1, 185, 0x1000, 0x1fff, 0 }; *o; o++) {
		wb_put_be16(p + 6, *o);
		check_no_ports(p, len, IPPROTO_UDP);
		assert_int_equal(wb_classify(&r, p, len), WB_CLASS_BULK);
		p[6] |= 0x20;
		assert_int_equal(wb_classify(&r, p, len), WB_CLASS_BULK);
	}
	wb_put_be16(p + 6, 0x4000); /* don't fragment */
	assert_int_equal(wb_classify(&r, p, len), WB_CLASS_INTERACTIVE);
}

/* Hop-by-hop, then a fragment header, then UDP: the first fragment has its ports, a later one has none. */
static size_t ip6_hbh_frag(uint8_t *p, uint16_t offset)
{
	size_t len = ip6(p, CS0, IPPROTO_HOPOPTS);

	len += ext(p + len, IPPROTO_FRAGMENT, 1);
	len += frag(p + len, IPPROTO_UDP, offset, true);
	return len + transport(p + len, IPPROTO_UDP, 40000, 5060);
}

static void test_ipv6_extension_headers(void **state)
{
	struct wb_class_rules r = rules_with((const char *const[]){ "udp:5060" }, 1);
	uint8_t p[256];
	size_t len;

	(void)state;
	len = ip6_hbh_frag(p, 0);
	check_ports(p, len, IPPROTO_UDP, 40000, 5060);
	assert_int_equal(wb_classify(&r, p, len), WB_CLASS_INTERACTIVE);
	for (const uint16_t *o = (const uint16_t[]){ 1, 181, 0x1fff, 0 }; *o; o++) {
		len = ip6_hbh_frag(p, *o);
		check_no_ports(p, len, IPPROTO_UDP);
		assert_int_equal(wb_classify(&r, p, len), WB_CLASS_BULK);
	}

	/* Routing (24 bytes) and destination options (16): lengths of their own. */
	len = ip6(p, CS0, IPPROTO_ROUTING);
	len += ext(p + len, IPPROTO_DSTOPTS, 3);
	len += ext(p + len, IPPROTO_TCP, 2);
	len += transport(p + len, IPPROTO_TCP, 5060, 80);
	check_ports(p, len, IPPROTO_TCP, 5060, 80);

	/* Nine destination options: the walk stops at eight, with no ports. */
	len = ip6(p, CS0, IPPROTO_DSTOPTS);
	for (int i = 0; i < 9; i++)
		len += ext(p + len, i < 8 ? IPPROTO_DSTOPTS : IPPROTO_UDP, 1);
	len += transport(p + len, IPPROTO_UDP, 5060, 5060);
	check_no_ports(p, len, IPPROTO_DSTOPTS);
	assert_int_equal(wb_classify(&r, p, len), WB_CLASS_BULK);

	/* A header the walk does not know (AH) ends it; ICMPv6 has no ports, whatever its bytes. */
	len = ip6(p, CS0, IPPROTO_AH);
	len += ext(p + len, IPPROTO_UDP, 4);
	check_no_ports(p, len, IPPROTO_AH);
	ip6(p, CS0, IPPROTO_ICMPV6);
	check_no_ports(p, len, IPPROTO_ICMPV6);
}

/* The packet cut at every length, in a buffer of exactly that length (ASan sees a read past it). */
static void check_truncations(const struct wb_class_rules *r, const uint8_t *p, size_t full, size_t fixed,
			      size_t ports_at)
{
	for (size_t len = 0; len <= full; len++) {
		uint8_t *copy = malloc(len ? len : 1);
		struct wb_ip_info info;
		bool ok;

		assert_non_null(copy);
		memcpy(copy, p, len);
		ok = wb_ip_info(copy, len, &info);
		assert_int_equal(ok, len >= fixed);
		assert_int_equal(info.has_ports, len >= ports_at + 4);
		assert_int_equal(wb_classify(r, copy, len), len >= ports_at + 4 ? WB_CLASS_INTERACTIVE : WB_CLASS_BULK);
		assert_int_equal(wb_ip_dscp(copy, len), 0);
		free(copy);
	}
}

static void test_truncated_at_every_length(void **state)
{
	struct wb_class_rules r = rules_with((const char *const[]){ "5060" }, 1);
	uint8_t p[256];
	size_t len;

	(void)state;
	len = ip4_opts(p, 6, CS0, IPPROTO_UDP, 40000, 5060);
	check_truncations(&r, p, len, 24, 24);
	len = ip6_hbh_frag(p, 0);
	check_truncations(&r, p, len, 40, 56);
	len = ip6(p, CS0, IPPROTO_ROUTING);
	len += ext(p + len, IPPROTO_TCP, 3);
	len += transport(p + len, IPPROTO_TCP, 5060, 80);
	check_truncations(&r, p, len, 40, 64);
}

static void test_malformed_headers(void **state)
{
	struct wb_class_rules r = rules_with((const char *const[]){ "udp:5060" }, 1);
	struct wb_ip_info info;
	uint8_t p[128];
	size_t len;

	(void)state;
	/* Versions other than 4 and 6, on a packet that is otherwise EF UDP to 5060. */
	for (unsigned v = 0; v < 16; v++) {
		len = ip4(p, EF, IPPROTO_UDP, 5060, 5060);
		p[0] = (uint8_t)(v << 4 | 5);
		if (v == 4)
			continue;
		if (v == 6) /* an IPv6 header needs 40 bytes */
			len = 39;
		assert_false(wb_ip_info(p, len, &info));
		assert_int_equal(wb_classify(&r, p, len), WB_CLASS_BULK);
		assert_int_equal(wb_ip_dscp(p, len), 0);
	}
	/* IHL below 5, and above what the packet holds. */
	for (uint8_t ihl = 0; ihl < 16; ihl++) {
		len = ip4(p, EF, IPPROTO_UDP, 5060, 5060);
		p[0] = (uint8_t)(0x40 | ihl);
		assert_int_equal(wb_ip_info(p, 24, &info), ihl >= 5 && ihl <= 6);
		assert_int_equal(wb_classify(&r, p, 24), ihl >= 5 && ihl <= 6 ? WB_CLASS_INTERACTIVE : WB_CLASS_BULK);
		assert_int_equal(wb_ip_dscp(p, 24), ihl >= 5 && ihl <= 6 ? EF : 0);
	}
	/* A refused packet leaves nothing of another in info. */
	len = ip4(p, EF, IPPROTO_UDP, 5060, 5060);
	assert_true(wb_ip_info(p, len, &info));
	p[0] = 0x44;
	assert_false(wb_ip_info(p, len, &info));
	assert_true(info.dscp == 0 && info.proto == 0 && !info.has_ports && !info.sport && !info.dport);
}

static void test_disabled_is_bulk(void **state)
{
	struct wb_class_rules r = rules_with((const char *const[]){ "5060" }, 1);
	uint8_t p[64];

	(void)state;
	r.enabled = false;
	assert_int_equal(wb_classify(&r, p, ip4(p, EF, IPPROTO_UDP, 5060, 5060)), WB_CLASS_BULK);
	r.enabled = true;
	assert_int_equal(wb_classify(&r, p, ip4(p, EF, IPPROTO_UDP, 5060, 5060)), WB_CLASS_INTERACTIVE);
	/* No DSCP and no port: nothing is interactive. */
	r.dscp = 0;
	r.n_ports = 0;
	assert_int_equal(wb_classify(&r, p, ip4(p, EF, IPPROTO_UDP, 5060, 5060)), WB_CLASS_BULK);
}

static void test_dscp_parse(void **state)
{
	static const char *const bad[] = { "64", "-1", "", "AF44", "AF50", "AF10", "AF01", "AF4", "AF411", "CS8",
					   "CS", "C5", "E", "EFX", " EF", "EF ", "+1", "0x2e", "100", "063", "1 ",
					   "cs-1", "BE" };
	(void)state;
	for (char x = '1'; x <= '4'; x++)
		for (char y = '1'; y <= '3'; y++) {
			int want = (x - '0') * 8 + (y - '0') * 2;

			assert_int_equal(wb_dscp_parse((const char[]){ 'A', 'F', x, y, 0 }), want);
			assert_int_equal(wb_dscp_parse((const char[]){ 'a', 'f', x, y, 0 }), want);
		}
	for (char n = '0'; n <= '7'; n++)
		assert_int_equal(wb_dscp_parse((const char[]){ 'C', 'S', n, 0 }), (n - '0') * 8);
	assert_int_equal(wb_dscp_parse("EF"), 46);
	assert_int_equal(wb_dscp_parse("ef"), 46);
	assert_int_equal(wb_dscp_parse("Cs5"), 40);
	assert_int_equal(wb_dscp_parse("VA"), 44);
	assert_int_equal(wb_dscp_parse("le"), 1);
	assert_int_equal(wb_dscp_parse("0"), 0);
	assert_int_equal(wb_dscp_parse("63"), 63);
	assert_int_equal(wb_dscp_parse("07"), 7);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(wb_dscp_parse(bad[i]), -1);
}

static void test_dscp_names(void **state)
{
	char buf[8];

	(void)state;
	assert_string_equal(wb_dscp_name(46, buf, sizeof(buf)), "EF");
	assert_string_equal(wb_dscp_name(34, buf, sizeof(buf)), "AF41");
	assert_string_equal(wb_dscp_name(14, buf, sizeof(buf)), "AF13");
	assert_string_equal(wb_dscp_name(40, buf, sizeof(buf)), "CS5");
	assert_string_equal(wb_dscp_name(0, buf, sizeof(buf)), "CS0");
	assert_string_equal(wb_dscp_name(44, buf, sizeof(buf)), "VA");
	assert_string_equal(wb_dscp_name(1, buf, sizeof(buf)), "LE");
	assert_string_equal(wb_dscp_name(3, buf, sizeof(buf)), "3");
	assert_string_equal(wb_dscp_name(42, buf, sizeof(buf)), "42");
	assert_string_equal(wb_dscp_name(50, buf, sizeof(buf)), "50");
	/* Not a DSCP: only its number. */
	assert_string_equal(wb_dscp_name(64, buf, sizeof(buf)), "64");
	assert_string_equal(wb_dscp_name(200, buf, sizeof(buf)), "200");
	assert_string_equal(wb_dscp_name(255, buf, sizeof(buf)), "255");
	assert_ptr_equal(wb_dscp_name(46, buf, sizeof(buf)), buf);
	/* Every value reads back as itself. */
	for (unsigned d = 0; d < 64; d++)
		assert_int_equal(wb_dscp_parse(wb_dscp_name((uint8_t)d, buf, sizeof(buf))), d);
}

static void check_rule(const char *text, uint8_t proto, uint16_t lo, uint16_t hi)
{
	struct wb_port_rule rule;

	assert_int_equal(wb_port_rule_parse(text, &rule), 0);
	assert_int_equal(rule.proto, proto);
	assert_int_equal(rule.lo, lo);
	assert_int_equal(rule.hi, hi);
}

static void test_port_rule_parse(void **state)
{
	static const char *const bad[] = { "udp:0", "udp:70000", "udp:10-5", "sctp:5", "udp:", ":5", "5-", "-5", "",
					   "udp:5x", "5060 ", " 5060", "udp:5-6-7", "udp:5--6", "UDP:5", "udp5",
					   "udp:tcp:5", "tcp:65536", "0-5", "udp:+5", "udp:0x10", "5-1000000" };
	struct wb_port_rule rule = { 99, 99, 99 };

	(void)state;
	check_rule("udp:5060", IPPROTO_UDP, 5060, 5060);
	check_rule("tcp:27015-27030", IPPROTO_TCP, 27015, 27030);
	check_rule("5060", 0, 5060, 5060);
	check_rule("3478-3481", 0, 3478, 3481);
	check_rule("udp:1-65535", IPPROTO_UDP, 1, 65535);
	check_rule("tcp:80-80", IPPROTO_TCP, 80, 80);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(wb_port_rule_parse(bad[i], &rule), -EINVAL);
	/* A refused text leaves the rule as it was. */
	assert_true(rule.proto == 99 && rule.lo == 99 && rule.hi == 99);
}

static void test_class_names(void **state)
{
	(void)state;
	assert_string_equal(wb_class_name(WB_CLASS_BULK), "bulk");
	assert_string_equal(wb_class_name(WB_CLASS_INTERACTIVE), "interactive");
	assert_string_equal(wb_class_name((enum wb_class)WB_CLASS_COUNT), "?");
	for (int c = 0; c < WB_CLASS_COUNT; c++)
		assert_int_equal(wb_class_parse(wb_class_name((enum wb_class)c)), c);
	assert_int_equal(wb_class_parse("Bulk"), -1);
	assert_int_equal(wb_class_parse(""), -1);
	assert_int_equal(wb_class_parse("realtime"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_dscp),
		cmocka_unit_test(test_port_rules),
		cmocka_unit_test(test_ipv4_fragments),
		cmocka_unit_test(test_ipv6_extension_headers),
		cmocka_unit_test(test_truncated_at_every_length),
		cmocka_unit_test(test_malformed_headers),
		cmocka_unit_test(test_disabled_is_bulk),
		cmocka_unit_test(test_dscp_parse),
		cmocka_unit_test(test_dscp_names),
		cmocka_unit_test(test_port_rule_parse),
		cmocka_unit_test(test_class_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
