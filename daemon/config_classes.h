/* SPDX-License-Identifier: MIT */
/*
 * The configuration's traffic classes (the top-level group "classes",
 * docs/configuration.md): which packets are interactive, and how the bond
 * carries them. Private to daemon/config*.c and daemon.c.
 */
#ifndef WB_CONFIG_CLASSES_H
#define WB_CONFIG_CLASSES_H

#include <libconfig.h>
#include <stdbool.h>

#include "config.h"
#include "config_read.h"
#include "wanbond.h"

/* The defaults: classes on, DSCP EF, CS4-CS6 and AF4x interactive, each packet on two uplinks, unordered, FEC. */
void conf_classes_defaults(struct wb_conf_classes *c);
/* Reads the group "classes" of root, if it is there. */
int conf_classes_read(struct conf_parse *p, const struct conf_sect *root);
/* Whether two say the same (field by field: a struct's padding is anyone's). */
bool conf_classes_equal(const struct wb_conf_classes *a, const struct wb_conf_classes *b);
/* What the library takes. */
void conf_classes_to_lib(const struct wb_conf_classes *c, struct wb_classes *out);

#endif
