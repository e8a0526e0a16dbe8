// SPDX-License-Identifier: MIT
/* Unit tests: lp_args.c, wb-latprobe's command line and the send schedule. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include "lp_args.h"

#define SEC 1000000000ULL
#define ARGV(...) ((const char *[]){ "wb-latprobe", __VA_ARGS__, NULL })

static char err[256];

static int parse(struct lp_args *a, const char **words)
{
	int argc = 0;

	while (words[argc])
		argc++;
	strcpy(err, "(untouched)");
	return lp_args_parse(a, argc, (char *const *)words, err, sizeof(err));
}

static void parse_ok(struct lp_args *a, const char **words)
{
	int rc = parse(a, words);

	if (rc)
		print_error("rejected: %s\n", err);
	assert_int_equal(rc, 0);
}

/* Refused with -EINVAL and a message naming w1 (and w2). */
static void parse_fails(const char **words, const char *w1, const char *w2)
{
	struct lp_args a;

	assert_int_equal(parse(&a, words), -EINVAL);
	if (!strstr(err, w1) || (w2 && !strstr(err, w2))) {
		print_error("message '%s' does not name '%s'%s%s\n", err, w1, w2 ? " and " : "", w2 ? w2 : "");
		fail();
	}
}

static uint16_t port_of(const struct lp_addr *x)
{
	return ntohs(x->ss.ss_family == AF_INET6 ? ((const struct sockaddr_in6 *)&x->ss)->sin6_port
						 : ((const struct sockaddr_in *)&x->ss)->sin_port);
}

static void test_send_full(void **state)
{
	struct lp_args a;
	const struct sockaddr_in *to = (const struct sockaddr_in *)&a.to.ss;

	(void)state;
	parse_ok(&a, ARGV("send", "--to", "10.2.0.2:6000", "--rate", "50", "--size", "200", "--dscp", "EF",
			  "--duration", "20", "--bind", "10.1.0.2", "-J"));
	assert_int_equal(a.mode, LP_MODE_SEND);
	assert_int_equal(to->sin_family, AF_INET);
	assert_int_equal(to->sin_addr.s_addr, inet_addr("10.2.0.2"));
	assert_int_equal(port_of(&a.to), 6000);
	assert_int_equal(a.to.len, sizeof(struct sockaddr_in));
	assert_int_equal(a.rate, 50);
	assert_int_equal(a.size, 200);
	assert_int_equal(a.dscp, 46);
	assert_int_equal(a.duration_ns, 20 * SEC);
	assert_int_equal(a.bind.ss.ss_family, AF_INET);
	assert_int_equal(port_of(&a.bind), 0);
	assert_true(a.json);
	assert_int_equal(a.stream, 1); /* the default */
	assert_false(a.stream_set);
	assert_false(a.help);
}

static void test_send_defaults_and_equals_form(void **state)
{
	struct lp_args a;

	(void)state;
	parse_ok(&a, ARGV("send", "--to=[::1]:9", "--rate=60", "--size=100", "--duration=1500ms", "--stream=7"));
	assert_int_equal(a.to.ss.ss_family, AF_INET6);
	assert_int_equal(port_of(&a.to), 9);
	assert_int_equal(a.dscp, -1);
	assert_int_equal(a.duration_ns, 1500000000ULL);
	assert_int_equal(a.stream, 7);
	assert_true(a.stream_set);
	assert_false(a.json);
	assert_int_equal(a.bind.len, 0);
}

static void test_recv_full(void **state)
{
	struct lp_args a;

	(void)state;
	parse_ok(&a, ARGV("recv", "--bind", "[fd00::2]:6001", "--duration", "0.5", "--expect", "1200", "--delays",
			  "d.txt", "--json", "--stream", "3"));
	assert_int_equal(a.mode, LP_MODE_RECV);
	assert_int_equal(a.bind.ss.ss_family, AF_INET6);
	assert_int_equal(port_of(&a.bind), 6001);
	assert_int_equal(a.duration_ns, SEC / 2);
	assert_int_equal(a.expect, 1200);
	assert_string_equal(a.delays_path, "d.txt");
	assert_true(a.json);
	assert_int_equal(a.stream, 3);
}

static void test_help(void **state)
{
	struct lp_args a;

	(void)state;
	parse_ok(&a, ARGV("-h"));
	assert_true(a.help);
	parse_ok(&a, ARGV("send", "--help"));
	assert_true(a.help);
}

static void test_refused(void **state)
{
	(void)state;
	parse_fails((const char *[]){ "wb-latprobe", NULL }, "mode", NULL);
	parse_fails(ARGV("listen"), "listen", "mode");
	parse_fails(ARGV("send", "--rate", "50", "--size", "200", "--duration", "1"), "--to", NULL);
	parse_fails(ARGV("send", "--to", "1.2.3.4:5", "--size", "200", "--duration", "1"), "--rate", NULL);
	parse_fails(ARGV("send", "--to", "1.2.3.4:5", "--rate", "50", "--duration", "1"), "--size", NULL);
	parse_fails(ARGV("send", "--to", "1.2.3.4:5", "--rate", "50", "--size", "200"), "--duration", NULL);
	parse_fails(ARGV("recv", "--duration", "1"), "--bind", NULL);
	parse_fails(ARGV("send", "--to", "1.2.3.4", "--rate", "1"), "--to", "1.2.3.4");
	parse_fails(ARGV("send", "--to", "1.2.3.4:0"), "--to", NULL);
	parse_fails(ARGV("send", "--to", "1.2.3.4:65536"), "--to", NULL);
	parse_fails(ARGV("send", "--to", "::1:80"), "--to", NULL); /* IPv6 with a port needs brackets */
	parse_fails(ARGV("send", "--to", "[::1]80"), "--to", NULL);
	parse_fails(ARGV("send", "--to", "host:80"), "--to", "host");
	parse_fails(ARGV("send", "--rate", "0"), "--rate", "'0'");
	parse_fails(ARGV("send", "--rate", "100001"), "--rate", NULL);
	parse_fails(ARGV("send", "--rate", "5x"), "--rate", NULL);
	parse_fails(ARGV("send", "--size", "31"), "--size", "31");
	parse_fails(ARGV("send", "--size", "65508"), "--size", NULL);
	parse_fails(ARGV("send", "--dscp", "XX"), "--dscp", "XX");
	parse_fails(ARGV("send", "--dscp", "64"), "--dscp", NULL);
	parse_fails(ARGV("send", "--duration", "0"), "--duration", NULL);
	parse_fails(ARGV("send", "--duration", "86401"), "--duration", NULL);
	parse_fails(ARGV("send", "--duration", "1.5.2"), "--duration", NULL);
	parse_fails(ARGV("send", "--duration", "s"), "--duration", NULL);
	parse_fails(ARGV("send", "--duration"), "--duration", "missing");
	parse_fails(ARGV("send", "--expect", "5"), "--expect", "send");
	parse_fails(ARGV("recv", "--dscp", "EF"), "--dscp", "recv");
	parse_fails(ARGV("recv", "--bind", "127.0.0.1"), "--bind", NULL); /* recv needs a port */
	parse_fails(ARGV("recv", "--bind", "127.0.0.1:0"), "--bind", NULL);
	parse_fails(ARGV("recv", "--delays", ""), "--delays", NULL);
	parse_fails(ARGV("send", "--frobnicate", "1"), "--frobnicate", NULL);
	parse_fails(ARGV("send", "--a-very-long-option-name=1"), "--a-very-long-option-name", NULL);
	parse_fails(ARGV("send", "--to", "[::1]:5", "--bind", "10.0.0.1", "--rate", "1", "--size", "32", "--duration",
			 "1"),
		    "family", NULL);
}

static void test_durations(void **state)
{
	struct lp_args a;
	static const struct {
		const char *text;
		uint64_t ns;
	} ok[] = {
		{ "20", 20 * SEC },	   { "20s", 20 * SEC },	       { "0.5", SEC / 2 },
		{ "1500ms", 3 * SEC / 2 }, { "1.5ms", 1500000 },       { ".25", SEC / 4 },
		{ "86400", 86400 * SEC },  { "86400000ms", 86400 * SEC }, { "0.0000000019", 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		parse_ok(&a, ARGV("recv", "--bind", "127.0.0.1:1", "--duration", ok[i].text));
		assert_int_equal(a.duration_ns, ok[i].ns);
	}
}

static void test_dscp_names(void **state)
{
	(void)state;
	assert_int_equal(lp_dscp_parse("EF"), 46);
	assert_int_equal(lp_dscp_parse("ef"), 46);
	assert_int_equal(lp_dscp_parse("CS0"), 0);
	assert_int_equal(lp_dscp_parse("CS4"), 32);
	assert_int_equal(lp_dscp_parse("cs7"), 56);
	assert_int_equal(lp_dscp_parse("AF11"), 10);
	assert_int_equal(lp_dscp_parse("AF41"), 34);
	assert_int_equal(lp_dscp_parse("AF43"), 38);
	assert_int_equal(lp_dscp_parse("VA"), 44);
	assert_int_equal(lp_dscp_parse("LE"), 1);
	assert_int_equal(lp_dscp_parse("DF"), 0);
	assert_int_equal(lp_dscp_parse("0"), 0);
	assert_int_equal(lp_dscp_parse("63"), 63);
	assert_int_equal(lp_dscp_parse("64"), -1);
	assert_int_equal(lp_dscp_parse("CS8"), -1);
	assert_int_equal(lp_dscp_parse("AF44"), -1);
	assert_int_equal(lp_dscp_parse("AF51"), -1);
	assert_int_equal(lp_dscp_parse("CS"), -1);
	assert_int_equal(lp_dscp_parse(""), -1);
	assert_int_equal(lp_dscp_parse("-1"), -1);
}

/* Packet i leaves i / rate seconds after the start, exactly: no drift over a long stream. */
static void test_schedule(void **state)
{
	(void)state;
	assert_int_equal(lp_packet_count(50, 20 * SEC), 1000);
	assert_int_equal(lp_packet_count(60, 8 * SEC), 480);
	assert_int_equal(lp_packet_count(3, SEC / 2), 2);     /* 1.5 rounds up */
	assert_int_equal(lp_packet_count(3, SEC / 2 - 1), 1); /* 1.4999... down */
	assert_int_equal(lp_packet_count(LP_MAX_RATE, LP_MAX_DURATION_S * SEC), 8640000000ULL);
	assert_int_equal(lp_send_offset_ns(0, 3), 0);
	assert_int_equal(lp_send_offset_ns(1, 3), 333333333);
	assert_int_equal(lp_send_offset_ns(2, 3), 666666666);
	assert_int_equal(lp_send_offset_ns(3, 3), SEC);
	assert_int_equal(lp_send_offset_ns(3000001, 3), 1000000 * SEC + 333333333);
	assert_int_equal(lp_send_offset_ns(60, 60), SEC);
	assert_int_equal(lp_send_offset_ns(7, 60), 116666666);
	/* The last packet of the longest stream, without overflow. */
	assert_int_equal(lp_send_offset_ns(8640000000ULL - 1, LP_MAX_RATE), LP_MAX_DURATION_S * SEC - 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_send_full),     cmocka_unit_test(test_send_defaults_and_equals_form),
		cmocka_unit_test(test_recv_full),     cmocka_unit_test(test_help),
		cmocka_unit_test(test_refused),	      cmocka_unit_test(test_durations),
		cmocka_unit_test(test_dscp_names),    cmocka_unit_test(test_schedule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
