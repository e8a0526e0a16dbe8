// SPDX-License-Identifier: MIT
#include "loss.h"

void loss_init(struct loss_state *s, const struct loss_params *params)
{
	s->params = *params;
	s->bad = false;
}

static bool chance(struct prng *rng, double p)
{
	/* Skip the draw at the ends, so 0% and 100% are exact. */
	if (p <= 0)
		return false;
	if (p >= 1)
		return true;
	return prng_unit(rng) < p;
}

static bool gilbert_elliott(struct loss_state *s, struct prng *rng)
{
	const struct loss_params *lp = &s->params;
	bool lost = chance(rng, s->bad ? lp->loss_bad : lp->loss_good);

	if (s->bad) {
		if (chance(rng, lp->r))
			s->bad = false;
	} else if (chance(rng, lp->p)) {
		s->bad = true;
	}
	return lost;
}

bool loss_draw(struct loss_state *s, struct prng *rng)
{
	switch (s->params.kind) {
	case LOSS_NONE:
		return false;
	case LOSS_BERNOULLI:
		return chance(rng, s->params.p);
	case LOSS_GILBERT_ELLIOTT:
		return gilbert_elliott(s, rng);
	}
	return false;
}

double loss_expected_ratio(const struct loss_params *lp)
{
	double pi_bad;

	switch (lp->kind) {
	case LOSS_NONE:
		return 0;
	case LOSS_BERNOULLI:
		return lp->p;
	case LOSS_GILBERT_ELLIOTT:
		if (lp->p + lp->r <= 0)
			return lp->loss_good; /* never leaves the good state */
		pi_bad = lp->p / (lp->p + lp->r);
		return pi_bad * lp->loss_bad + (1 - pi_bad) * lp->loss_good;
	}
	return 0;
}
