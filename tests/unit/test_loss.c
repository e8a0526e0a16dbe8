// SPDX-License-Identifier: MIT
/* Unit tests: loss.c, Bernoulli and Gilbert-Elliott loss. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "loss.h"
#include "prng.h"

/* Two-sided 99.9% quantile of the standard normal distribution. */
#define Z_999 3.2905

#define assert_near(got, want, tol) check_near((got), (want), (tol), #got, __FILE__, __LINE__)

static void check_near(double got, double want, double tol, const char *what, const char *file, int line)
{
	if (!(fabs(got - want) <= tol)) {
		print_error("%s = %.9g, want %.9g +- %.3g\n", what, got, want, tol);
		_fail(file, line);
	}
}

static struct loss_params bernoulli(double p)
{
	return (struct loss_params){ .kind = LOSS_BERNOULLI, .p = p };
}

static struct loss_params gemodel(double p, double r, double loss_bad, double loss_good)
{
	return (struct loss_params){
		.kind = LOSS_GILBERT_ELLIOTT, .p = p, .r = r, .loss_bad = loss_bad, .loss_good = loss_good,
	};
}

/* Draws n times; returns the number lost and checks the generator was never touched. */
static uint64_t draws_without_randomness(const struct loss_params *lp, uint64_t n)
{
	struct loss_state s;
	struct prng rng, before;
	uint64_t lost = 0;

	prng_seed(&rng, 1);
	before = rng;
	loss_init(&s, lp);
	for (uint64_t i = 0; i < n; i++)
		lost += loss_draw(&s, &rng);
	assert_memory_equal(&rng, &before, sizeof(rng));
	return lost;
}

/*
 * Asymptotic variance per packet of the loss count of a Gilbert-Elliott chain:
 * the Bernoulli noise within a state plus the state's own autocorrelated noise
 * (two-state chain, second eigenvalue 1 - p - r).
 */
static double ge_variance_per_packet(const struct loss_params *lp)
{
	double pb = lp->p / (lp->p + lp->r), pg = 1 - pb, lambda = 1 - lp->p - lp->r;
	double within = pb * lp->loss_bad * (1 - lp->loss_bad) + pg * lp->loss_good * (1 - lp->loss_good);
	double d = lp->loss_bad - lp->loss_good;

	return within + d * d * pb * pg * (1 + lambda) / (1 - lambda);
}

/* ---- the ends are exact and draw nothing ---- */

static void test_none_never_loses_and_draws_nothing(void **state)
{
	struct loss_params lp = { .kind = LOSS_NONE, .p = 1 };

	(void)state;
	assert_int_equal(draws_without_randomness(&lp, 10000), 0);
}

static void test_bernoulli_zero_never_loses_and_draws_nothing(void **state)
{
	struct loss_params lp = bernoulli(0);

	(void)state;
	assert_int_equal(draws_without_randomness(&lp, 100000), 0);
}

static void test_bernoulli_hundred_always_loses_and_draws_nothing(void **state)
{
	struct loss_params lp = bernoulli(1);

	(void)state;
	assert_int_equal(draws_without_randomness(&lp, 100000), 100000);
}

static void test_gemodel_never_going_bad_draws_nothing(void **state)
{
	struct loss_params lp = gemodel(0, 0.5, 1, 0);

	(void)state;
	assert_int_equal(draws_without_randomness(&lp, 10000), 0);
}

/* ---- Bernoulli ---- */

static void test_bernoulli_one_percent_within_binomial_bound(void **state)
{
	const uint64_t n = 1000000;
	const double p = 0.01;
	/* 99.9% two-sided bound, normal approximation: 10000 +- 327.4. */
	const double tol = Z_999 * sqrt((double)n * p * (1 - p));
	struct loss_params lp = bernoulli(p);
	struct loss_state s;
	struct prng rng;
	uint64_t lost = 0;

	(void)state;
	prng_seed(&rng, 12345);
	loss_init(&s, &lp);
	for (uint64_t i = 0; i < n; i++)
		lost += loss_draw(&s, &rng);
	assert_near((double)lost, (double)n * p, tol);
}

static void test_bernoulli_half_within_binomial_bound(void **state)
{
	const uint64_t n = 200000;
	const double tol = Z_999 * sqrt((double)n * 0.25);
	struct loss_params lp = bernoulli(0.5);
	struct loss_state s;
	struct prng rng;
	uint64_t lost = 0;

	(void)state;
	prng_seed(&rng, 7);
	loss_init(&s, &lp);
	for (uint64_t i = 0; i < n; i++)
		lost += loss_draw(&s, &rng);
	assert_near((double)lost, (double)n / 2, tol);
}

/* ---- Gilbert-Elliott ---- */

/* Runs n packets and reports the loss ratio, the number of bursts and their mean length. */
static void run_ge(const struct loss_params *lp, uint64_t seed, uint64_t n, double *ratio, uint64_t *bursts,
		   double *mean_burst)
{
	struct loss_state s;
	struct prng rng;
	uint64_t lost = 0, nb = 0;
	bool prev = false;

	prng_seed(&rng, seed);
	loss_init(&s, lp);
	for (uint64_t i = 0; i < n; i++) {
		bool l = loss_draw(&s, &rng);

		lost += l;
		nb += l && !prev;
		prev = l;
	}
	*ratio = (double)lost / (double)n;
	*bursts = nb;
	*mean_burst = nb ? (double)lost / (double)nb : 0;
}

static void test_gemodel_long_run_ratio_matches_expected(void **state)
{
	const uint64_t n = 2000000;
	struct loss_params lp = gemodel(0.01, 0.10, 1, 0);
	double want = loss_expected_ratio(&lp), ratio, mean_burst;
	/* 99.9% bound on the mean of a Markov chain: sd = sqrt(var / n), about 0.00084 here. */
	double tol = Z_999 * sqrt(ge_variance_per_packet(&lp) / (double)n);
	uint64_t bursts;

	(void)state;
	assert_near(want, 1.0 / 11, 1e-12);
	run_ge(&lp, 2024, n, &ratio, &bursts, &mean_burst);
	assert_near(ratio, want, tol);
}

static void test_gemodel_mean_burst_is_one_over_r(void **state)
{
	const uint64_t n = 2000000;
	const double r = 0.10;
	struct loss_params lp = gemodel(0.01, r, 1, 0);
	double ratio, mean_burst, tol;
	uint64_t bursts;

	(void)state;
	run_ge(&lp, 99, n, &ratio, &bursts, &mean_burst);
	/* About n * pi_good * p = 18,000 bursts, each geometric: mean 1/r, variance (1-r)/r^2. */
	assert_in_range(bursts, 15000, 21000);
	tol = Z_999 * sqrt((1 - r) / (r * r) / (double)bursts);
	assert_near(mean_burst, 1 / r, tol);
}

static void test_gemodel_with_loss_in_both_states(void **state)
{
	const uint64_t n = 2000000;
	struct loss_params lp = gemodel(0.05, 0.20, 0.5, 0.01);
	double ratio, mean_burst, tol = Z_999 * sqrt(ge_variance_per_packet(&lp) / (double)n);
	uint64_t bursts;

	(void)state;
	run_ge(&lp, 5, n, &ratio, &bursts, &mean_burst);
	assert_near(ratio, 0.2 * 0.5 + 0.8 * 0.01, tol);
}

/* With certain transitions the model is deterministic: judged in the state, then it flips. */
static void test_gemodel_judges_before_changing_state(void **state)
{
	struct loss_params lp = gemodel(1, 1, 1, 0);
	struct loss_state s;
	struct prng rng;

	(void)state;
	prng_seed(&rng, 1);
	loss_init(&s, &lp);
	for (int i = 0; i < 10; i++)
		assert_int_equal(loss_draw(&s, &rng), i % 2 == 1);
}

static void test_loss_init_starts_in_the_good_state(void **state)
{
	struct loss_params lp = gemodel(1, 0, 1, 0); /* the first packet passes, then all are lost */
	struct loss_state s;
	struct prng rng;

	(void)state;
	prng_seed(&rng, 1);
	loss_init(&s, &lp);
	assert_false(loss_draw(&s, &rng));
	assert_true(loss_draw(&s, &rng));
	assert_true(loss_draw(&s, &rng));
	loss_init(&s, &lp);
	assert_false(loss_draw(&s, &rng));
}

/* ---- expected ratios ---- */

static void test_expected_ratio_formulas(void **state)
{
	struct loss_params none = { .kind = LOSS_NONE, .p = 0.5 };
	struct loss_params b = bernoulli(0.03);
	struct loss_params ge1 = gemodel(0.01, 0.10, 1, 0);
	struct loss_params ge2 = gemodel(0.2, 0.3, 0.5, 0.1);
	struct loss_params stuck = gemodel(0, 0, 0.9, 0.02);

	(void)state;
	assert_near(loss_expected_ratio(&none), 0, 0);
	assert_near(loss_expected_ratio(&b), 0.03, 0);
	assert_near(loss_expected_ratio(&ge1), 0.01 / 0.11, 1e-15);
	/* pi_bad = 0.4: 0.4 * 0.5 + 0.6 * 0.1. */
	assert_near(loss_expected_ratio(&ge2), 0.26, 1e-15);
	/* Never leaves the good state. */
	assert_near(loss_expected_ratio(&stuck), 0.02, 0);
}

/* ---- determinism ---- */

static void test_same_seed_same_sequence(void **state)
{
	struct loss_params lps[] = { bernoulli(0.3), gemodel(0.05, 0.3, 0.8, 0.02) };

	(void)state;
	for (size_t k = 0; k < 2; k++) {
		struct loss_state s1, s2, s3;
		struct prng r1, r2, r3;
		int differs = 0;

		prng_seed(&r1, 77);
		prng_seed(&r2, 77);
		prng_seed(&r3, 78);
		loss_init(&s1, &lps[k]);
		loss_init(&s2, &lps[k]);
		loss_init(&s3, &lps[k]);
		for (int i = 0; i < 10000; i++) {
			bool a = loss_draw(&s1, &r1);

			assert_int_equal(a, loss_draw(&s2, &r2));
			differs += a != loss_draw(&s3, &r3);
		}
		/* Another seed gives another sequence (so the check above is not vacuous). */
		assert_true(differs > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none_never_loses_and_draws_nothing),
		cmocka_unit_test(test_bernoulli_zero_never_loses_and_draws_nothing),
		cmocka_unit_test(test_bernoulli_hundred_always_loses_and_draws_nothing),
		cmocka_unit_test(test_gemodel_never_going_bad_draws_nothing),
		cmocka_unit_test(test_bernoulli_one_percent_within_binomial_bound),
		cmocka_unit_test(test_bernoulli_half_within_binomial_bound),
		cmocka_unit_test(test_gemodel_long_run_ratio_matches_expected),
		cmocka_unit_test(test_gemodel_mean_burst_is_one_over_r),
		cmocka_unit_test(test_gemodel_with_loss_in_both_states),
		cmocka_unit_test(test_gemodel_judges_before_changing_state),
		cmocka_unit_test(test_loss_init_starts_in_the_good_state),
		cmocka_unit_test(test_expected_ratio_formulas),
		cmocka_unit_test(test_same_seed_same_sequence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
