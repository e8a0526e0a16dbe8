/* SPDX-License-Identifier: MIT */
/*
 * The configuration's schema: every setting, the group and the role it
 * belongs to, its range and its default (docs/configuration.md is its
 * reference). Private to daemon/config*.c.
 */
#ifndef WB_CONFIG_SCHEMA_H
#define WB_CONFIG_SCHEMA_H

#include <libconfig.h>

#include "config.h"
#include "config_read.h"

/* cfg zeroed, then every setting's default. */
void conf_schema_defaults(struct wb_config *cfg);

/* The parsed file's root group into p->cfg (its defaults set): 0, or -EINVAL with what is wrong. */
int conf_schema_read(struct conf_parse *p, const config_setting_t *root);

#endif
