/* SPDX-License-Identifier: MIT */
/*
 * linkem's command line, parsed into per-direction link parameters. Pure: it
 * opens no file and prints nothing, so it can be unit tested and fuzzed.
 *
 *   linkem IF_A IF_B [seed N] [[both|a2b|b2a] PARAM...]...
 */
#ifndef LINKEM_ARGS_H
#define LINKEM_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linkdir.h"

#define LINKEM_IFNAMSIZ 16 /* IFNAMSIZ, without pulling in <net/if.h> */
#define LINKEM_DEFAULT_LIMIT_PACKETS 1000

enum { DIR_A2B, DIR_B2A, DIR_COUNT };

struct linkem_dir_args {
	struct linkdir_params link; /* .trace is left NULL: the caller loads trace_path */
	const char *trace_path;
	bool rate_set;
};

struct linkem_args {
	const char *if_name[DIR_COUNT]; /* [DIR_A2B] is A, [DIR_B2A] is B */
	struct linkem_dir_args dir[DIR_COUNT];
	uint64_t seed;
	bool seed_set;
	bool help;
};

/*
 * Returns 0, or -EINVAL with a one-line message in err naming the offending
 * word. argv[0] is the program name.
 */
int linkem_args_parse(struct linkem_args *a, int argc, char *const argv[], char *err, size_t errlen);

extern const char linkem_usage[];

#endif
