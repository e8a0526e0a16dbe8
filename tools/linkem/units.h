/* SPDX-License-Identifier: MIT */
/*
 * Parsing of the quantities an operator types: rates, times, sizes and
 * percentages, in the units tc(8) uses. Every parser takes the whole string
 * or fails; none of them prints.
 */
#ifndef LINKEM_UNITS_H
#define LINKEM_UNITS_H

#include <stdint.h>

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL

/*
 * floor(a * b / c) with the product in 128 bits, as a 64-bit result
 * (UINT64_MAX when it does not fit; c = 0 gives 0). 32-bit targets have no
 * 128-bit integer type, so this is the one place such a product is written.
 */
uint64_t units_muldiv(uint64_t a, uint64_t b, uint64_t c);

/* "10mbit", "500kbit", "1.5gbit", "64000bit"; "0" and "unlimited" give 0. */
int units_parse_rate(const char *s, uint64_t *bits_per_sec);

/* "20ms", "150us", "1.5s", "800ns"; a bare "0" is accepted. */
int units_parse_time(const char *s, uint64_t *nsec);

/* "1500b", "64kb", "2mb" (k and m are 1024 and 1024^2, as in tc). */
int units_parse_size(const char *s, uint64_t *bytes);

/* "1%", "0.25%", "100%" into a probability in [0, 1]. */
int units_parse_percent(const char *s, double *prob);

/* Plain non-negative integer, the whole string, at most max. */
int units_parse_uint(const char *s, uint64_t max, uint64_t *out);

#endif
