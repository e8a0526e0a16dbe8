/* SPDX-License-Identifier: MIT */
/*
 * Time as the library counts it: nanoseconds in a uint64_t, CLOCK_MONOTONIC
 * passed in by the caller (wanbond.h), and deadlines of the same kind,
 * UINT64_MAX for none.
 */
#ifndef WB_NSEC_H
#define WB_NSEC_H

#include <stdint.h>

#define WB_NSEC_PER_SEC 1000000000ULL
#define WB_NSEC_PER_MSEC 1000000ULL
#define WB_NSEC_PER_USEC 1000ULL

/* The smaller of two: the earlier of two deadlines, mostly. */
static inline uint64_t wb_min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

#endif
