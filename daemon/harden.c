// SPDX-License-Identifier: MIT
/* No core dumps of a process that holds keys (harden.h). */
#include "harden.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

int harden_no_core_dumps(char *err, size_t errlen)
{
	/* Lowering a limit needs no privilege, and a hard limit of 0 cannot be raised again without CAP_SYS_RESOURCE. */
	const struct rlimit none = { .rlim_cur = 0, .rlim_max = 0 };
	int e;

	if (setrlimit(RLIMIT_CORE, &none)) {
		e = errno;
		snprintf(err, errlen, "setrlimit(RLIMIT_CORE, 0): %s", strerror(e));
		return -e;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)) {
		e = errno;
		snprintf(err, errlen, "prctl(PR_SET_DUMPABLE, 0): %s", strerror(e));
		return -e;
	}
	return 0;
}
