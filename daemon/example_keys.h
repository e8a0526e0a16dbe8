/* SPDX-License-Identifier: MIT */
/*
 * The keys printed in the project's examples (conf/, the OpenWrt sample
 * configuration, docs/): anyone who has read them holds them, so a
 * configuration that uses one, as a private key, a preshared key or a
 * peer's public key (whose private half is printed beside it), is open to
 * everyone. The configuration reader refuses them (config_read.c);
 * tests/unit/example_keys.sh keeps this table in step with the files.
 */
#ifndef WB_DAEMON_EXAMPLE_KEYS_H
#define WB_DAEMON_EXAMPLE_KEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "crypto.h"

/* Whether key is one of the examples' keys. */
bool wb_key_is_example(const uint8_t key[WB_KEY_LEN]);

#endif
