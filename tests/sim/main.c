// SPDX-License-Identifier: MIT
/*
 * wbsim: runs simulator scenarios.
 *
 *   wbsim [-s SEED] [-v] SCENARIO...
 *
 * Prints each scenario's report; exits 1 if an expectation failed, 2 for a
 * scenario that does not parse.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "units.h"

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long size;

	if (f && !fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (text = calloc(1, (size_t)size + 1)) && fread(text, 1, (size_t)size, f) != (size_t)size) {
		free(text);
		text = NULL;
	}
	if (f)
		fclose(f);
	return text;
}

int main(int argc, char **argv)
{
	static struct sim_scenario s;
	bool verbose = false, seed_set = false;
	uint64_t seed = 0;
	int c, worst = 0;

	while ((c = getopt(argc, argv, "s:vh")) != -1) {
		if (c == 's' && !units_parse_uint(optarg, UINT64_MAX, &seed)) {
			seed_set = true;
		} else if (c == 'v') {
			verbose = true;
		} else {
			fputs("usage: wbsim [-s SEED] [-v] SCENARIO...\n", c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind == argc) {
		fputs("wbsim: no scenario (usage: wbsim [-s SEED] [-v] SCENARIO...)\n", stderr);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		char err[300], *text = slurp(argv[i]);
		int rc;

		if (!text) {
			fprintf(stderr, "wbsim: cannot read %s\n", argv[i]);
			return 2;
		}
		rc = sim_scenario_parse(&s, text, argv[i], err, sizeof(err));
		free(text);
		if (rc) {
			fprintf(stderr, "wbsim: %s\n", err);
			return 2;
		}
		if (seed_set)
			s.seed = seed;
		s.verbose |= verbose;
		rc = sim_run(&s, stdout);
		fflush(stdout);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}
