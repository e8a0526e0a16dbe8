/* SPDX-License-Identifier: MIT */
/*
 * Packet loss models: independent (Bernoulli) and bursty (Gilbert-Elliott).
 *
 * The Gilbert-Elliott parameters follow netem's "loss gemodel p r 1-h 1-k":
 * p is the chance to go from the good to the bad state, r from bad to good,
 * 1-h the loss probability in the bad state and 1-k in the good state. Each
 * packet is first judged in the current state, then the state may change.
 */
#ifndef LINKEM_LOSS_H
#define LINKEM_LOSS_H

#include <stdbool.h>

#include "prng.h"

enum loss_kind {
	LOSS_NONE,
	LOSS_BERNOULLI,
	LOSS_GILBERT_ELLIOTT,
};

struct loss_params {
	enum loss_kind kind;
	double p;         /* Bernoulli: loss probability; GE: good -> bad */
	double r;         /* GE: bad -> good */
	double loss_bad;  /* GE: 1-h */
	double loss_good; /* GE: 1-k */
};

struct loss_state {
	struct loss_params params;
	bool bad;
};

void loss_init(struct loss_state *s, const struct loss_params *params);

/* True if this packet is lost. Draws from rng only when a model is set. */
bool loss_draw(struct loss_state *s, struct prng *rng);

/* The long-run loss ratio the parameters give. */
double loss_expected_ratio(const struct loss_params *params);

#endif
