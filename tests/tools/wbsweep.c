// SPDX-License-Identifier: MIT
/*
 * wbsweep: draws sets of uplinks, and the moment a transfer over them
 * starts, from documented distributions and a seed. The simulator's sweep
 * (tests/sim/sweep.sh) and the namespace sweep (tests/bench/bench_sweep.sh)
 * both read its draws, so the two measure the same draw and can be
 * compared draw by draw.
 *
 *   wbsweep [-s SEED] I [N]     draws I to I+N-1 (N default 1)
 *
 * A draw:
 *
 *   draw SEED.I
 *   uplink u1 WORDS...          linkem's parameters, "up" and "down" for each way
 *   uplink u2 WORDS...
 *   moment fresh|after|idle2m|idle10m
 *   topology forwarded|local
 *   cc cubic|bbr
 *   dir up|down
 *
 * The distributions (docs/testing.md, "The sweep"):
 *
 * - 2 uplinks (7 in 10) or 3;
 * - each way a rate log-uniform in 2-300 Mbit/s; one uplink in two has the
 *   same rate both ways, the others one drawn for each way (asymmetric);
 * - one uplink in five is driven by one of the LTE traces instead (both
 *   ways from the same recording);
 * - a base RTT log-uniform in 2-300 ms (20-120 ms for a trace), half of it
 *   each way;
 * - jitter on two uplinks in five, uniform in 0.5-10 ms (never more than the
 *   one-way delay), without reordering;
 * - loss: none on half of them, random loss uniform in 0.05-3% on three in
 *   ten, Gilbert-Elliott bursts on one in five (a mean loss of 0.5-3% in
 *   bursts of 2-10 packets);
 * - a drop-tail queue log-uniform in 10 ms-1 s of the rate;
 * - periodic outages on one uplink in seven: for 0.3-1.5 s every 10-20 s;
 * - the moment the transfer starts: right after the tunnel comes up (4 in
 *   10), after another transfer the same way (3 in 10), after 2 minutes
 *   idle with other traffic on each path alone meanwhile (2 in 10), after 10
 *   minutes quiet (1 in 10);
 * - the topology (the TCP on a LAN host behind the router and a host behind
 *   the server, or on the router and the server themselves), the inner
 *   congestion control and the direction: each one of two.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

#define MAX_UPLINKS 3

static const char *const traces[] = { "ATT-LTE-driving-2016", "TMobile-LTE-short", "Verizon-LTE-short" };

/* Log-uniform in [lo, hi]. */
static double log_uniform(struct prng *r, double lo, double hi)
{
	return exp(log(lo) + prng_unit(r) * (log(hi) - log(lo)));
}

static double uniform(struct prng *r, double lo, double hi)
{
	return lo + prng_unit(r) * (hi - lo);
}

static bool chance(struct prng *r, double p)
{
	return prng_unit(r) < p;
}

/* One of n choices, with these weights out of their sum. */
static int pick(struct prng *r, const double *w, int n)
{
	double sum = 0, x;

	for (int i = 0; i < n; i++)
		sum += w[i];
	x = prng_unit(r) * sum;
	for (int i = 0; i < n - 1; i++) {
		if (x < w[i])
			return i;
		x -= w[i];
	}
	return n - 1;
}

static void print_loss(struct prng *r)
{
	static const double kinds[] = { 5, 3, 2 }; /* none, random, bursts */
	double mean, burst, recover, enter;

	switch (pick(r, kinds, 3)) {
	case 0:
		return;
	case 1:
		printf(" loss %.2f%%", uniform(r, 0.05, 3));
		return;
	default:
		/* A bad state that loses everything, left with 1/burst a packet: the mean loss is enter/(enter+recover). */
		mean = uniform(r, 0.005, 0.03);
		burst = uniform(r, 2, 10);
		recover = 1 / burst;
		enter = mean * recover / (1 - mean);
		printf(" loss gemodel %.4f%% %.2f%%", 100 * enter, 100 * recover);
		return;
	}
}

static void print_uplink(struct prng *r, int k)
{
	bool trace = chance(r, 0.2);
	double rtt = trace ? log_uniform(r, 20, 120) : log_uniform(r, 2, 300), delay = rtt / 2;
	double down = log_uniform(r, 2, 300), up = chance(r, 0.5) ? down : log_uniform(r, 2, 300);
	const char *tr = traces[prng_next(r) % 3];

	printf("uplink u%d", k + 1);
	if (trace)
		printf(" up trace tests/traces/%s.up down trace tests/traces/%s.down both", tr, tr);
	else
		printf(" up rate %.1fmbit down rate %.1fmbit both", up, down);
	printf(" delay %.1fms", delay);
	if (chance(r, 0.4))
		printf(" jitter %.1fms", fmin(uniform(r, 0.5, 10), delay));
	print_loss(r);
	printf(" limit %.0fms", log_uniform(r, 10, 1000));
	if (chance(r, 1.0 / 7))
		printf(" outage %.0fms %.0fms", uniform(r, 10000, 20000), uniform(r, 300, 1500));
	printf("\n");
}

static void print_draw(uint64_t seed, uint64_t i)
{
	static const double moments[] = { 4, 3, 2, 1 };
	static const char *const moment_names[] = { "fresh", "after", "idle2m", "idle10m" };
	struct prng r;
	int n;

	prng_seed(&r, seed * 1000003 + i);
	n = chance(&r, 0.7) ? 2 : MAX_UPLINKS;
	printf("draw %" PRIu64 ".%" PRIu64 "\n", seed, i);
	for (int k = 0; k < n; k++)
		print_uplink(&r, k);
	printf("moment %s\n", moment_names[pick(&r, moments, 4)]);
	printf("topology %s\n", chance(&r, 0.5) ? "forwarded" : "local");
	printf("cc %s\n", chance(&r, 0.5) ? "cubic" : "bbr");
	printf("dir %s\n", chance(&r, 0.5) ? "up" : "down");
}

static int usage(void)
{
	fprintf(stderr, "usage: wbsweep [-s SEED] I [N]   (draws I to I+N-1 of SEED, default seed 1)\n");
	return 2;
}

static int number(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || !*s || *end || *s == '-' ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t seed = 1, first, n = 1;
	int a = 1;

	if (argc > 2 && !strcmp(argv[1], "-s")) {
		if (number(argv[2], &seed))
			return usage();
		a = 3;
	}
	if (argc - a < 1 || argc - a > 2 || number(argv[a], &first) || (argc - a == 2 && number(argv[a + 1], &n)))
		return usage();
	for (uint64_t i = first; i < first + n; i++)
		print_draw(seed, i);
	return 0;
}
