/* SWAR byte tests: 8 bytes of a 64-bit word at a time. The lowest byte a test flags is always a true hit
 * (borrows only travel upwards); bytes above it may be false hits. */
#ifndef ETL_UTIL_SWAR_H
#define ETL_UTIL_SWAR_H

#include <stdint.h>

#define ETL_SWAR_ONES 0x0101010101010101ull
#define ETL_SWAR_HIGHS 0x8080808080808080ull

/* The high bit of each zero byte of y (exact up to the lowest one). */
static inline uint64_t etl_swar_zero(uint64_t y) { return (y - ETL_SWAR_ONES) & ~y & ETL_SWAR_HIGHS; }

#endif
