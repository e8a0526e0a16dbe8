// SPDX-License-Identifier: MIT
/* libFuzzer harness: linkem's command line, the input split into words at NUL bytes. */
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

#define MAX_WORDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *words[MAX_WORDS + 1] = { "linkem" };
	char *copy = malloc(size + 1);
	struct linkem_args a;
	char err[200] = "";
	int argc = 1, rc;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	copy[size] = 0;
	for (char *p = copy; p < copy + size && argc < MAX_WORDS; p += strlen(p) + 1)
		words[argc++] = p;
	words[argc] = NULL;

	rc = linkem_args_parse(&a, argc, words, err, sizeof(err));
	if (rc) {
		assert(rc == -EINVAL && err[0]);
	} else if (!a.help) {
		assert(a.if_name[0] && a.if_name[1] && strcmp(a.if_name[0], a.if_name[1]));
		for (int k = 0; k < DIR_COUNT; k++) {
			const struct linkdir_params *p = &a.dir[k].link;

			assert(!(a.dir[k].trace_path && a.dir[k].rate_set));
			assert(p->limit.value > 0);
			assert(p->loss.p >= 0 && p->loss.p <= 1 && p->loss.r >= 0 && p->loss.r <= 1);
		}
	}
	free(copy);
	return 0;
}
