// SPDX-License-Identifier: MIT
/*
 * wbsim: runs simulator scenarios.
 *
 *   wbsim [-s SEED] [-v] [-m] [-e DIRECTIVE]... SCENARIO...
 *
 * Prints each scenario's report; exits 1 if an expectation failed, 2 for a
 * scenario that does not parse. Each -e adds a line after the scenario's
 * own (a later "bond" line wins), so one file serves several variants; -m
 * prints every metric as "metric NAME VALUE" (for scripts).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "units.h"

#define MAX_EXTRA 32

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

/* The scenario's text, then the extra lines; NULL if text is. */
static char *with_extra(char *text, const char *const *extra, int n)
{
	size_t len = text ? strlen(text) : 0, add = 0;
	char *out;

	if (!text)
		return NULL;
	for (int i = 0; i < n; i++)
		add += strlen(extra[i]) + 1;
	out = realloc(text, len + add + 2);
	if (!out) {
		free(text);
		return NULL;
	}
	out[len++] = '\n';
	for (int i = 0; i < n; i++) {
		memcpy(out + len, extra[i], strlen(extra[i]));
		len += strlen(extra[i]);
		out[len++] = '\n';
	}
	out[len] = 0;
	return out;
}

int main(int argc, char **argv)
{
	static struct sim_scenario s;
	static const char usage[] = "usage: wbsim [-s SEED] [-v] [-m] [-e DIRECTIVE]... SCENARIO...\n";
	const char *extra[MAX_EXTRA];
	bool verbose = false, seed_set = false, metrics = false;
	uint64_t seed = 0;
	int c, worst = 0, n_extra = 0;

	while ((c = getopt(argc, argv, "s:vme:h")) != -1) {
		if (c == 's' && !units_parse_uint(optarg, UINT64_MAX, &seed)) {
			seed_set = true;
		} else if (c == 'v') {
			verbose = true;
		} else if (c == 'm') {
			metrics = true;
		} else if (c == 'e' && n_extra < MAX_EXTRA) {
			extra[n_extra++] = optarg;
		} else {
			fputs(usage, c == 'h' ? stdout : stderr);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, "wbsim: no scenario (%s)", usage);
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		char err[300], *text = with_extra(slurp(argv[i]), extra, n_extra);
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
		s.print_metrics = metrics;
		rc = sim_run(&s, stdout);
		fflush(stdout);
		if (rc > worst)
			worst = rc;
	}
	return worst;
}
