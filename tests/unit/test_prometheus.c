// SPDX-License-Identifier: MIT
/* Unit tests: cli/prometheus.c, `wanbond stats --prometheus` from bonds as the CLI reads them. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"
#include "prometheus.h"

static struct cli_bond bonds[2];
static char *out;

/* Two bonds: "home" with dsl (up) and lte (down, its socket closed), and one whose name needs escaping. */
static void fill_bonds(void)
{
	memset(bonds, 0, sizeof(bonds));
	strcpy(bonds[0].name, "home");
	strcpy(bonds[0].role, "client");
	strcpy(bonds[0].tun, "wb-home");
	strcpy(bonds[0].peer, "KEY=");
	strcpy(bonds[0].policy, "default");
	bonds[0].session = true;
	bonds[0].has_handshake = true;
	bonds[0].handshake_ago = 3500000000ULL;
	bonds[0].uptime = 86400000000001ULL;
	bonds[0].mtu = 1433;
	bonds[0].n_uplinks = 2;
	strcpy(bonds[0].up[0].name, "dsl");
	strcpy(bonds[0].up[0].state, "up");
	strcpy(bonds[0].up[0].device, "wan1");
	strcpy(bonds[0].up[0].endpoint, "10.200.0.1:51820");
	bonds[0].up[0].enabled = true;
	bonds[0].up[0].weight = 3;
	bonds[0].up[0].srtt = 26213000;
	bonds[0].up[0].loss_ppm = 12345;
	bonds[0].up[0].pmtu = 1472;
	strcpy(bonds[0].up[1].name, "lte");
	strcpy(bonds[0].up[1].state, "down");
	strcpy(bonds[0].up[1].socket, "interface wan2 down");
	strcpy(bonds[0].up[1].state_why, "no answer for 1020 ms");
	bonds[0].up[1].backup = true;
	bonds[0].up[1].loss_ppm = 1000000;
	/* Each counter a different value: the k-th bond counter k + 1, the uplinks' 1000 * (j + 1) + k. */
#define FILL(x) bonds[0].c.x = (uint64_t)++k;
	{
		int k = 0;
		WB_CTL_BOND_COUNTERS(FILL)
	}
#undef FILL
	for (int j = 0; j < 2; j++) {
		int k = 0;
#define FILL(x) bonds[0].up[j].c.x = 1000 * (uint64_t)(j + 1) + (uint64_t)k++;
		WB_CTL_UPLINK_COUNTERS(FILL)
#undef FILL
	}
	strcpy(bonds[1].name, "a\"b\\c\nd");
	strcpy(bonds[1].policy, "redundant");
	bonds[1].n_uplinks = 1;
	strcpy(bonds[1].up[0].name, "x");
	strcpy(bonds[1].up[0].state, "probing");
}

static void render(int n)
{
	size_t len;
	FILE *f;

	free(out); /* a test may render twice */
	f = open_memstream(&out, &len);

	assert_non_null(f);
	cli_print_prometheus(f, bonds, n);
	assert_int_equal(fclose(f), 0);
}

static int teardown(void **state)
{
	(void)state;
	free(out);
	out = NULL;
	return 0;
}

/* The value of the sample line that starts with series followed by a space, or NULL. */
static const char *sample(const char *series)
{
	static char value[64];
	size_t n = strlen(series);

	for (const char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
		if (!strncmp(line, series, n) && line[n] == ' ') {
			size_t len = strcspn(line + n + 1, "\n");

			snprintf(value, sizeof(value), "%.*s", (int)len, line + n + 1);
			return value;
		}
	return NULL;
}

static void expect_sample(const char *series, const char *value)
{
	const char *v = sample(series);

	if (!v)
		fail_msg("no sample %s in:\n%s", series, out);
	assert_string_equal(v, value);
}

static bool is_name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (!first && c >= '0' && c <= '9');
}

/* The length of the metric or label name at s (0: none). */
static size_t name_len(const char *s)
{
	size_t n = 0;

	while (s[n] && is_name_char(s[n], n == 0))
		n++;
	return n;
}

/* A sample line's labels from just past '{': name="value" pairs, escapes only \\ \" \n; past the '}'. */
static const char *check_labels(const char *p)
{
	while (*p != '}') {
		size_t n = name_len(p);

		assert_true(n > 0);
		p += n;
		assert_true(p[0] == '=' && p[1] == '"');
		for (p += 2; *p != '"'; p++) {
			assert_true(*p && *p != '\n');
			if (*p == '\\') {
				p++;
				assert_true(*p == '\\' || *p == '"' || *p == 'n');
			}
		}
		p++;
		if (*p == ',')
			p++;
		else
			assert_int_equal(*p, '}');
	}
	return p + 1;
}

/*
 * The text format, line by line: HELP then TYPE once per family, each
 * family with a HELP; its samples right after its TYPE, named as it is, a
 * number each; counters named _total, gauges not.
 */
static void check_format(void)
{
	char family[128] = "", type[16] = "", help_of[128] = "", seen[8192] = " ";
	char *copy = strdup(out), *save = NULL;

	assert_non_null(copy);
	assert_true(out[0] && out[strlen(out) - 1] == '\n');
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[140];

		if (!strncmp(line, "# HELP ", 7)) {
			size_t n = name_len(line + 7);

			assert_true(n > 0 && line[7 + n] == ' ' && line[8 + n]);
			snprintf(help_of, sizeof(help_of), "%.*s", (int)n, line + 7);
		} else if (!strncmp(line, "# TYPE ", 7)) {
			size_t n = name_len(line + 7);

			snprintf(family, sizeof(family), "%.*s", (int)n, line + 7);
			snprintf(type, sizeof(type), "%s", line + 8 + n);
			if (strcmp(help_of, family))
				fail_msg("%s: no HELP right before its TYPE", family);
			assert_true(!strcmp(type, "counter") || !strcmp(type, "gauge"));
			n = strlen(family);
			assert_int_equal(!strcmp(type, "counter"), n > 6 && !strcmp(family + n - 6, "_total"));
			snprintf(key, sizeof(key), " %s ", family);
			if (strstr(seen, key))
				fail_msg("%s: a second TYPE", family);
			strncat(seen, key + 1, sizeof(seen) - strlen(seen) - 1);
		} else {
			size_t n = name_len(line);
			const char *p = line + n;
			char *end;

			assert_true(family[0] && n == strlen(family) && !strncmp(line, family, n));
			if (*p == '{')
				p = check_labels(p + 1);
			assert_int_equal(*p, ' ');
			strtod(p + 1, &end);
			assert_true(end > p + 1 && *end == 0);
		}
	}
	free(copy);
}

static void test_the_format_holds(void **state)
{
	(void)state;
	fill_bonds();
	render(2);
	check_format();
	render(0); /* no bond: every family's HELP and TYPE, and no sample */
	check_format();
	assert_null(strstr(out, "bond=\""));
}

/* Every counter of the lists, under its name, with its value: a counter added to ctl.h comes out here. */
static void test_every_counter_of_the_lists(void **state)
{
	char series[160], value[32];

	(void)state;
	fill_bonds();
	render(1);
	for (int k = 0; k < WB_CTL_N_BOND_COUNTERS; k++) {
		const char *name = wb_ctl_bond_counter_names[k];
		/* The peak and the pool's gauges (docs/cli.md); the rest counters. */
		bool gauge = !strcmp(name, "reorder_held_max") || (!strncmp(name, "pool_", 5) && strcmp(name, "pool_full_drops"));
		const char *suffix = !gauge ? "_total" : strstr(name, "bytes") ? "" : "_bytes";

		snprintf(series, sizeof(series), "wanbond_bond_%s%s{bond=\"home\"}", name, suffix);
		snprintf(value, sizeof(value), "%d", k + 1);
		expect_sample(series, value);
	}
	for (int j = 0; j < 2; j++)
		for (int k = 0; k < WB_CTL_N_UPLINK_COUNTERS; k++) {
			snprintf(series, sizeof(series), "wanbond_uplink_%s_total{bond=\"home\",uplink=\"%s\"}",
				 wb_ctl_uplink_counter_names[k], j ? "lte" : "dsl");
			snprintf(value, sizeof(value), "%d", 1000 * (j + 1) + k);
			expect_sample(series, value);
		}
}

static void test_gauges_in_base_units(void **state)
{
	(void)state;
	fill_bonds();
	render(2);
	expect_sample("wanbond_bond_session_up{bond=\"home\"}", "1");
	expect_sample("wanbond_bond_handshake_age_seconds{bond=\"home\"}", "3.500000000");
	expect_sample("wanbond_daemon_uptime_seconds{bond=\"home\"}", "86400.000000001");
	expect_sample("wanbond_bond_mtu_bytes{bond=\"home\"}", "1433");
	expect_sample("wanbond_uplink_rtt_seconds{bond=\"home\",uplink=\"dsl\"}", "0.026213000");
	expect_sample("wanbond_uplink_loss_ratio{bond=\"home\",uplink=\"dsl\"}", "0.012345");
	expect_sample("wanbond_uplink_loss_ratio{bond=\"home\",uplink=\"lte\"}", "1.000000");
	expect_sample("wanbond_uplink_weight{bond=\"home\",uplink=\"dsl\"}", "3");
	expect_sample("wanbond_uplink_pmtu_bytes{bond=\"home\",uplink=\"dsl\"}", "1472");
	expect_sample("wanbond_uplink_max_packet_bytes{bond=\"home\",uplink=\"dsl\"}", "1433"); /* 1472 less the tunnel's own bytes */
	expect_sample("wanbond_uplink_max_packet_bytes{bond=\"home\",uplink=\"lte\"}", "0");
	expect_sample("wanbond_bond_info{bond=\"home\",role=\"client\",tun=\"wb-home\",peer=\"KEY=\",policy=\"default\","
		      "rules_off=\"none\"}",
		      "1");
}

static void test_state_up_and_info(void **state)
{
	(void)state;
	fill_bonds();
	render(2);
	expect_sample("wanbond_uplink_up{bond=\"home\",uplink=\"dsl\"}", "1");
	expect_sample("wanbond_uplink_up{bond=\"home\",uplink=\"lte\"}", "0");
	expect_sample("wanbond_uplink_state{bond=\"home\",uplink=\"dsl\"}", "2");
	expect_sample("wanbond_uplink_state{bond=\"home\",uplink=\"lte\"}", "0");
	expect_sample("wanbond_uplink_backup{bond=\"home\",uplink=\"lte\"}", "1");
	expect_sample("wanbond_uplink_enabled{bond=\"home\",uplink=\"lte\"}", "0");
	expect_sample("wanbond_uplink_info{bond=\"home\",uplink=\"lte\",state=\"down\",reason=\"no answer for 1020 ms\","
		      "socket_error=\"interface wan2 down\",device=\"\",endpoint=\"\"}",
		      "1");
	assert_int_equal(cli_prometheus_state_number("down"), 0);
	assert_int_equal(cli_prometheus_state_number("probing"), 1);
	assert_int_equal(cli_prometheus_state_number("up"), 2);
	assert_int_equal(cli_prometheus_state_number("stale"), 3);
	assert_int_equal(cli_prometheus_state_number("?"), -1);
}

/* A name with a double quote, a backslash and a newline: escaped in every label, and no sample of a handshake it has not had. */
static void test_labels_escaped(void **state)
{
	(void)state;
	fill_bonds();
	render(2);
	check_format();
	expect_sample("wanbond_bond_session_up{bond=\"a\\\"b\\\\c\\nd\"}", "0");
	expect_sample("wanbond_uplink_state{bond=\"a\\\"b\\\\c\\nd\",uplink=\"x\"}", "1");
	assert_null(sample("wanbond_bond_handshake_age_seconds{bond=\"a\\\"b\\\\c\\nd\"}"));
	assert_null(strstr(out, "c\nd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_the_format_holds, teardown),
		cmocka_unit_test_teardown(test_every_counter_of_the_lists, teardown),
		cmocka_unit_test_teardown(test_gauges_in_base_units, teardown),
		cmocka_unit_test_teardown(test_state_up_and_info, teardown),
		cmocka_unit_test_teardown(test_labels_escaped, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
