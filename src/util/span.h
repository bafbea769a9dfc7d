/* Whether a byte range lies inside another: the one test behind "read in place" (reader, -j batches). */
#ifndef ETL_UTIL_SPAN_H
#define ETL_UTIL_SPAN_H

#include <stdint.h>

/* 1 when [p, p + n) lies inside [base, base + size). Compared as addresses: the two may belong to different
 * objects (a record's bytes and a file's mapping), which pointer comparison leaves undefined. */
static inline int etl_span_holds(const void *base, uint64_t size, const void *p, uint64_t n)
{
    uintptr_t b = (uintptr_t)base, a = (uintptr_t)p;
    return base && p && a >= b && (uint64_t)(a - b) <= size && n <= size - (uint64_t)(a - b);
}

#endif
