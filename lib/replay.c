// SPDX-License-Identifier: MIT
#include "replay.h"

#include <string.h>

#define WORDS (WB_REPLAY_BITS / 64)

void wb_replay_init(struct wb_replay *r)
{
	memset(r, 0, sizeof(*r));
}

static bool seen(const struct wb_replay *r, uint64_t counter)
{
	return r->bits[(counter / 64) % WORDS] & (1ULL << (counter % 64));
}

bool wb_replay_check(const struct wb_replay *r, uint64_t counter)
{
	if (counter >= WB_REJECT_AFTER_MESSAGES)
		return false;
	if (counter > r->highest)
		return true;
	return r->highest - counter < WB_REPLAY_WINDOW && !seen(r, counter);
}

/* Moves the window up to counter, clearing the words it slides over. */
static void advance(struct wb_replay *r, uint64_t counter)
{
	uint64_t from = r->highest / 64, to = counter / 64;
	uint64_t steps = to - from < WORDS ? to - from : WORDS;

	for (uint64_t i = 1; i <= steps; i++)
		r->bits[(from + i) % WORDS] = 0;
	r->highest = counter;
}

bool wb_replay_accept(struct wb_replay *r, uint64_t counter)
{
	if (!wb_replay_check(r, counter))
		return false;
	if (counter > r->highest)
		advance(r, counter);
	r->bits[(counter / 64) % WORDS] |= 1ULL << (counter % 64);
	return true;
}
