/* SPDX-License-Identifier: MIT */
/* The TUN device of a bond: created by name, IP packets without any header. */
#ifndef WB_TUN_H
#define WB_TUN_H

#include <net/if.h>

/* Opens (creating if needed) TUN device name, non-blocking. Returns the fd or -errno. */
int tun_open(const char *name, char actual[IFNAMSIZ]);

#endif
