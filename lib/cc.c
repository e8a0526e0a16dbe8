// SPDX-License-Identifier: MIT
#include <string.h>

#include "cc.h"

const struct wb_cc_ops *wb_cc_find(const char *name)
{
	static const struct wb_cc_ops *const all[] = { &wb_cc_bbr, &wb_cc_newreno };

	for (unsigned i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}
