/* SPDX-License-Identifier: MIT */
/*
 * What libconfig 1.5 does to a configuration's text that cannot be seen in
 * the tree it makes, found in the text before it reads it: integers cut to
 * 32 bits without a word, and @include.
 */
#ifndef WB_CONFIG_PRESCAN_H
#define WB_CONFIG_PRESCAN_H

#include "config_read.h"

/*
 * 0, or -EINVAL with "FILE:LINE: what" in p's buffer for the first integer
 * without L that does not fit in 32 bits, the first @include, or a string
 * with no closing quote.
 */
int conf_prescan(struct conf_parse *p, const char *text);

#endif
