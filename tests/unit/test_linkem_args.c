// SPDX-License-Identifier: MIT
/* Unit tests: args.c, linkem's command line. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include "args.h"

#define MS 1000000ULL

/* A NULL-terminated argv with the program name in front. */
#define ARGV(...) ((const char *[]){ "linkem", __VA_ARGS__, NULL })

static char err[256];

static int parse(struct linkem_args *a, const char **words)
{
	int argc = 0;

	while (words[argc])
		argc++;
	strcpy(err, "(untouched)");
	return linkem_args_parse(a, argc, (char *const *)words, err, sizeof(err));
}

static void parse_ok(struct linkem_args *a, const char **words)
{
	int rc = parse(a, words);

	if (rc)
		print_error("rejected: %s\n", err);
	assert_int_equal(rc, 0);
}

/* Must be rejected with -EINVAL and a message containing every one of the words given. */
static void parse_fails(const char **words, const char *w1, const char *w2)
{
	struct linkem_args a;

	assert_int_equal(parse(&a, words), -EINVAL);
	if (!strstr(err, w1) || (w2 && !strstr(err, w2))) {
		print_error("message '%s' does not name '%s'%s%s\n", err, w1, w2 ? " and " : "", w2 ? w2 : "");
		fail();
	}
}

static const struct linkdir_params *a2b(const struct linkem_args *a)
{
	return &a->dir[DIR_A2B].link;
}

static const struct linkdir_params *b2a(const struct linkem_args *a)
{
	return &a->dir[DIR_B2A].link;
}

/* ---- the full command line ---- */

static void test_full_command_line_per_direction(void **state)
{
	const char **w = ARGV("a", "b", "delay", "20ms", "a2b", "rate", "10mbit", "loss", "1%", "b2a", "limit",
			      "64kb", "trace", "x");
	struct linkem_args a;

	(void)state;
	parse_ok(&a, w);
	assert_string_equal(a.if_name[DIR_A2B], "a");
	assert_string_equal(a.if_name[DIR_B2A], "b");
	assert_false(a.help);
	assert_false(a.seed_set);

	assert_int_equal(a2b(&a)->rate_bps, 10000000);
	assert_true(a.dir[DIR_A2B].rate_set);
	assert_int_equal(a2b(&a)->delay_ns, 20 * MS);
	assert_int_equal(a2b(&a)->loss.kind, LOSS_BERNOULLI);
	assert_true(a2b(&a)->loss.p == 0.01);
	assert_int_equal(a2b(&a)->limit.kind, LIMIT_PACKETS);
	assert_int_equal(a2b(&a)->limit.value, 1000);
	assert_null(a.dir[DIR_A2B].trace_path);

	assert_int_equal(b2a(&a)->rate_bps, 0);
	assert_false(a.dir[DIR_B2A].rate_set);
	assert_int_equal(b2a(&a)->delay_ns, 20 * MS);
	assert_int_equal(b2a(&a)->loss.kind, LOSS_NONE);
	assert_int_equal(b2a(&a)->limit.kind, LIMIT_BYTES);
	assert_int_equal(b2a(&a)->limit.value, 65536);
	assert_ptr_equal(a.dir[DIR_B2A].trace_path, w[14]);
	assert_null(b2a(&a)->trace); /* the caller loads it */
}

/*
 * A rate for both directions, then a trace for one: the later word wins in
 * that direction, the other keeps the rate.
 */
static void test_global_rate_then_trace_in_one_direction(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "rate", "10mbit", "delay", "20ms", "a2b", "loss", "1%", "b2a", "limit", "64kb",
			  "trace", "x"));
	assert_true(a.dir[DIR_A2B].rate_set);
	assert_int_equal(a.dir[DIR_A2B].link.rate_bps, 10000000);
	assert_null(a.dir[DIR_A2B].trace_path);
	assert_false(a.dir[DIR_B2A].rate_set);
	assert_string_equal(a.dir[DIR_B2A].trace_path, "x");
	assert_int_equal(a.dir[DIR_B2A].link.delay_ns, 20000000);
}

static void test_params_before_a_direction_apply_to_both(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "rate", "5mbit", "jitter", "2ms", "reorder", "overhead", "24"));
	for (int k = 0; k < DIR_COUNT; k++) {
		assert_int_equal(a.dir[k].link.rate_bps, 5000000);
		assert_true(a.dir[k].rate_set);
		assert_int_equal(a.dir[k].link.jitter_ns, 2 * MS);
		assert_true(a.dir[k].link.reorder);
		assert_int_equal(a.dir[k].link.overhead, 24);
	}
}

static void test_direction_scopes_only_itself(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "b2a", "delay", "3ms", "reorder", "a2b", "rate", "1mbit"));
	assert_int_equal(a2b(&a)->delay_ns, 0);
	assert_false(a2b(&a)->reorder);
	assert_int_equal(a2b(&a)->rate_bps, 1000000);
	assert_int_equal(b2a(&a)->delay_ns, 3 * MS);
	assert_true(b2a(&a)->reorder);
	assert_int_equal(b2a(&a)->rate_bps, 0);
}

static void test_both_rescopes_to_both_directions(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "a2b", "rate", "1mbit", "both", "delay", "7ms", "b2a", "jitter", "1ms"));
	assert_int_equal(a2b(&a)->rate_bps, 1000000);
	assert_int_equal(b2a(&a)->rate_bps, 0);
	assert_int_equal(a2b(&a)->delay_ns, 7 * MS);
	assert_int_equal(b2a(&a)->delay_ns, 7 * MS);
	assert_int_equal(a2b(&a)->jitter_ns, 0);
	assert_int_equal(b2a(&a)->jitter_ns, 1 * MS);
}

static void test_later_value_overrides_earlier(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "delay", "10ms", "a2b", "delay", "30ms"));
	assert_int_equal(a2b(&a)->delay_ns, 30 * MS);
	assert_int_equal(b2a(&a)->delay_ns, 10 * MS);
}

/* ---- defaults ---- */

static void test_defaults(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b"));
	for (int k = 0; k < DIR_COUNT; k++) {
		const struct linkem_dir_args *d = &a.dir[k];

		assert_int_equal(d->link.limit.kind, LIMIT_PACKETS);
		assert_int_equal(d->link.limit.value, LINKEM_DEFAULT_LIMIT_PACKETS);
		assert_int_equal(d->link.rate_bps, 0);
		assert_false(d->rate_set);
		assert_int_equal(d->link.delay_ns, 0);
		assert_int_equal(d->link.jitter_ns, 0);
		assert_false(d->link.reorder);
		assert_int_equal(d->link.loss.kind, LOSS_NONE);
		assert_int_equal(d->link.overhead, 0);
		assert_null(d->trace_path);
	}
	assert_int_equal(LINKEM_DEFAULT_LIMIT_PACKETS, 1000);
	assert_false(a.seed_set);
	assert_false(a.help);
}

/* ---- loss ---- */

static void test_loss_percent_and_loss_random(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "a2b", "loss", "0.5%", "b2a", "loss", "random", "2%"));
	assert_int_equal(a2b(&a)->loss.kind, LOSS_BERNOULLI);
	assert_true(a2b(&a)->loss.p == 0.005);
	assert_int_equal(b2a(&a)->loss.kind, LOSS_BERNOULLI);
	assert_true(b2a(&a)->loss.p == 0.02);
}

static void test_loss_zero_is_no_loss(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "loss", "5%", "loss", "0%"));
	assert_int_equal(a2b(&a)->loss.kind, LOSS_NONE);
}

static void check_ge(const struct loss_params *lp, double p, double r, double bad, double good)
{
	assert_int_equal(lp->kind, LOSS_GILBERT_ELLIOTT);
	/* Within rounding: "70%" is 70 * 0.01, which need not be the double nearest 0.7. */
	if (fabs(lp->p - p) > 1e-12 || fabs(lp->r - r) > 1e-12 || fabs(lp->loss_bad - bad) > 1e-12 ||
	    fabs(lp->loss_good - good) > 1e-12) {
		print_error("gemodel %g %g %g %g, want %g %g %g %g\n", lp->p, lp->r, lp->loss_bad, lp->loss_good, p,
			    r, bad, good);
		fail();
	}
}

static void test_gemodel_p_only_takes_netem_defaults(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "loss", "gemodel", "1%"));
	/* r = 1 - p, 1-h = 100%, 1-k = 0. */
	check_ge(&a2b(&a)->loss, 0.01, 1 - 0.01, 1, 0);
	check_ge(&b2a(&a)->loss, 0.01, 1 - 0.01, 1, 0);
}

static void test_gemodel_p_r(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "loss", "gemodel", "1%", "10%"));
	check_ge(&a2b(&a)->loss, 0.01, 0.1, 1, 0);
}

static void test_gemodel_p_r_1h(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "loss", "gemodel", "1%", "10%", "70%"));
	check_ge(&a2b(&a)->loss, 0.01, 0.1, 0.7, 0);
}

static void test_gemodel_all_four(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "loss", "gemodel", "1%", "10%", "70%", "0.1%"));
	check_ge(&a2b(&a)->loss, 0.01, 0.1, 0.7, 0.001);
}

static void test_gemodel_stops_at_the_next_parameter(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "loss", "gemodel", "2%", "30%", "delay", "5ms"));
	check_ge(&a2b(&a)->loss, 0.02, 0.3, 1, 0);
	assert_int_equal(a2b(&a)->delay_ns, 5 * MS);
}

static void test_gemodel_takes_at_most_four(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "loss", "gemodel", "1%", "2%", "3%", "4%", "5%"), "unknown parameter", "5%");
}

static void test_gemodel_needs_p(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "loss", "gemodel"), "gemodel", NULL);
	parse_fails(ARGV("a", "b", "loss", "gemodel", "often"), "gemodel", NULL);
}

static void test_bad_loss(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "loss", "5"), "'5'", NULL);
	parse_fails(ARGV("a", "b", "loss", "101%"), "101%", NULL);
	parse_fails(ARGV("a", "b", "loss"), "loss", "missing");
	parse_fails(ARGV("a", "b", "loss", "random"), "loss random", "missing");
}

/* ---- limits ---- */

static void check_limit(const char *word, enum limit_kind kind, uint64_t value)
{
	struct linkem_args a;

	parse_ok(&a, ARGV("a", "b", "limit", word));
	assert_int_equal(a2b(&a)->limit.kind, kind);
	assert_int_equal(a2b(&a)->limit.value, value);
}

static void test_limit_forms(void **state)
{
	(void)state;
	check_limit("100p", LIMIT_PACKETS, 100);
	check_limit("100pkt", LIMIT_PACKETS, 100);
	check_limit("100pkts", LIMIT_PACKETS, 100);
	check_limit("1048576p", LIMIT_PACKETS, LINKDIR_MAX_PACKETS);
	check_limit("64kb", LIMIT_BYTES, 65536);
	check_limit("1500b", LIMIT_BYTES, 1500);
	check_limit("50ms", LIMIT_TIME, 50 * MS);
}

static void test_bad_limits(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "limit", "0p"), "limit", "'0p'");
	parse_fails(ARGV("a", "b", "limit", "0"), "limit", "'0'");
	parse_fails(ARGV("a", "b", "limit", "0ms"), "limit", "'0ms'");
	parse_fails(ARGV("a", "b", "limit", "100"), "limit", "'100'");
	parse_fails(ARGV("a", "b", "limit", "p"), "limit", "'p'");
	parse_fails(ARGV("a", "b", "limit", "1048577p"), "limit", "'1048577p'");
	parse_fails(ARGV("a", "b", "limit", "-5p"), "limit", "'-5p'");
}

/* ---- other values ---- */

static void test_overhead(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "overhead", "65535"));
	assert_int_equal(a2b(&a)->overhead, 65535);
	parse_fails(ARGV("a", "b", "overhead", "65536"), "overhead", "'65536'");
	parse_fails(ARGV("a", "b", "overhead", "24b"), "overhead", "'24b'");
}

static void test_mtu(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "a2b", "mtu", "1300"));
	assert_int_equal(a2b(&a)->mtu, 1300);
	assert_int_equal(a.dir[1].link.mtu, 0);
	parse_fails(ARGV("a", "b", "mtu", "67"), "mtu", "'67'");
	parse_fails(ARGV("a", "b", "mtu", "65536"), "mtu", "'65536'");
}

static void test_outage(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "b2a", "outage", "15s", "800ms", "delay", "5ms"));
	assert_int_equal(a.dir[1].link.outage_every_ns, 15000000000ULL);
	assert_int_equal(a.dir[1].link.outage_len_ns, 800000000ULL);
	assert_int_equal(a.dir[1].link.delay_ns, 5000000ULL);
	assert_int_equal(a2b(&a)->outage_every_ns, 0);
	parse_fails(ARGV("a", "b", "outage", "1s", "1s"), "outage", "not shorter");
	parse_fails(ARGV("a", "b", "outage", "1s"), "outage", "EVERY and LENGTH");
	parse_fails(ARGV("a", "b", "outage", "0s", "1s"), "outage", "'0s'");
	parse_fails(ARGV("a", "b", "outage", "10s", "soon"), "outage", "'soon'");
}

static void test_rate_unlimited_counts_as_set(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "rate", "unlimited"));
	assert_int_equal(a2b(&a)->rate_bps, 0);
	assert_true(a.dir[DIR_A2B].rate_set);
}

static void test_seed(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("a", "b", "a2b", "seed", "42", "delay", "1ms"));
	assert_true(a.seed_set);
	assert_int_equal(a.seed, 42);
	/* seed is global; a2b is still in scope after it. */
	assert_int_equal(a2b(&a)->delay_ns, 1 * MS);
	assert_int_equal(b2a(&a)->delay_ns, 0);
	parse_ok(&a, ARGV("a", "b", "seed", "18446744073709551615"));
	assert_int_equal(a.seed, UINT64_MAX);
}

static void test_bad_seed(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "seed", "x"), "seed", NULL);
	parse_fails(ARGV("a", "b", "seed", "18446744073709551616"), "seed", NULL);
	parse_fails(ARGV("a", "b", "seed"), "seed", NULL);
}

/* ---- help ---- */

static void test_help(void **state)
{
	struct linkem_args a;

	(void)state;
	parse_ok(&a, ARGV("-h"));
	assert_true(a.help);
	parse_ok(&a, ARGV("--help"));
	assert_true(a.help);
	assert_non_null(strstr(linkem_usage, "usage: linkem"));
}

/* ---- errors ---- */

static void test_missing_interfaces(void **state)
{
	struct linkem_args a;
	const char *none[] = { "linkem", NULL };

	(void)state;
	assert_int_equal(parse(&a, none), -EINVAL);
	assert_non_null(strstr(err, "IF_A"));
	parse_fails(ARGV("a"), "missing interface", "IF_B");
}

static void test_same_interface_twice(void **state)
{
	(void)state;
	parse_fails(ARGV("eth0", "eth0"), "'eth0'", NULL);
}

static void test_bad_interface_names(void **state)
{
	struct linkem_args a;

	(void)state;
	/* 15 characters fit IFNAMSIZ, 16 do not. */
	parse_ok(&a, ARGV("abcdefghijklmno", "b"));
	parse_fails(ARGV("abcdefghijklmnop", "b"), "'abcdefghijklmnop'", "interface");
	parse_fails(ARGV("a", "abcdefghijklmnopqrstuvwxyz"), "'abcdefghijklmnopqrstuvwxyz'", NULL);
	parse_fails(ARGV("a/b", "c"), "'a/b'", NULL);
	parse_fails(ARGV("", "c"), "''", NULL);
}

static void test_unknown_parameter(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "delay", "1ms", "bandwidth", "10mbit"), "unknown parameter", "'bandwidth'");
}

static void test_missing_value(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "rate"), "rate", "missing value");
	parse_fails(ARGV("a", "b", "delay", "1ms", "trace"), "trace", "missing value");
	parse_fails(ARGV("a", "b", "a2b", "limit"), "limit", "missing value");
}

static void test_bad_rate(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "rate", "10mbs"), "rate", "'10mbs'");
	parse_fails(ARGV("a", "b", "rate", "10"), "rate", "'10'");
}

static void test_bad_times(void **state)
{
	(void)state;
	parse_fails(ARGV("a", "b", "delay", "fast"), "delay", "'fast'");
	parse_fails(ARGV("a", "b", "jitter", "5"), "jitter", "'5'");
}

static void test_rate_and_trace_in_one_direction(void **state)
{
	struct linkem_args a;

	(void)state;
	/* In one direction the later of the two replaces the other. */
	parse_ok(&a, ARGV("a", "b", "a2b", "trace", "x", "rate", "1mbit"));
	assert_null(a.dir[DIR_A2B].trace_path);
	assert_true(a.dir[DIR_A2B].rate_set);
	parse_ok(&a, ARGV("a", "b", "rate", "1mbit", "trace", "x"));
	assert_false(a.dir[DIR_A2B].rate_set);
	assert_string_equal(a.dir[DIR_B2A].trace_path, "x");
	/* One direction with each. */
	parse_ok(&a, ARGV("a", "b", "a2b", "trace", "x", "b2a", "rate", "1mbit"));
	assert_string_equal(a.dir[DIR_A2B].trace_path, "x");
	assert_int_equal(b2a(&a)->rate_bps, 1000000);
}

static void test_unknown_option(void **state)
{
	(void)state;
	parse_fails(ARGV("-x", "a", "b"), "unknown option", "'-x'");
	parse_fails(ARGV("-h", "-v"), "unknown option", "'-v'");
}

static void test_error_without_a_buffer(void **state)
{
	const char *w[] = { "linkem", "a", "b", "bogus", NULL };
	struct linkem_args a;

	(void)state;
	assert_int_equal(linkem_args_parse(&a, 4, (char *const *)w, NULL, 0), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_command_line_per_direction),
		cmocka_unit_test(test_global_rate_then_trace_in_one_direction),
		cmocka_unit_test(test_params_before_a_direction_apply_to_both),
		cmocka_unit_test(test_direction_scopes_only_itself),
		cmocka_unit_test(test_both_rescopes_to_both_directions),
		cmocka_unit_test(test_later_value_overrides_earlier),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_loss_percent_and_loss_random),
		cmocka_unit_test(test_loss_zero_is_no_loss),
		cmocka_unit_test(test_gemodel_p_only_takes_netem_defaults),
		cmocka_unit_test(test_gemodel_p_r),
		cmocka_unit_test(test_gemodel_p_r_1h),
		cmocka_unit_test(test_gemodel_all_four),
		cmocka_unit_test(test_gemodel_stops_at_the_next_parameter),
		cmocka_unit_test(test_gemodel_takes_at_most_four),
		cmocka_unit_test(test_gemodel_needs_p),
		cmocka_unit_test(test_bad_loss),
		cmocka_unit_test(test_limit_forms),
		cmocka_unit_test(test_bad_limits),
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_mtu),
		cmocka_unit_test(test_outage),
		cmocka_unit_test(test_rate_unlimited_counts_as_set),
		cmocka_unit_test(test_seed),
		cmocka_unit_test(test_bad_seed),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_missing_interfaces),
		cmocka_unit_test(test_same_interface_twice),
		cmocka_unit_test(test_bad_interface_names),
		cmocka_unit_test(test_unknown_parameter),
		cmocka_unit_test(test_missing_value),
		cmocka_unit_test(test_bad_rate),
		cmocka_unit_test(test_bad_times),
		cmocka_unit_test(test_rate_and_trace_in_one_direction),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_error_without_a_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
